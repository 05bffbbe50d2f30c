#include "validate/Smt.h"

#include "validate/Isl.h"

namespace tessera::validator {

using namespace ir;

namespace {

void require_integer_or_bool(Type t) {
    if (!t.element_of().is_int() && !t.element_of().is_uint() && !t.element_of().is_bool())
        throw Unsupported("values of type " + t.to_string() + " are not modelled as bit-vectors");
}

}  // namespace

z3::expr SmtScalars::constant(Type t, Scalar v) const {
    require_integer_or_bool(t);
    if (t.is_bool()) return c_.bool_val(v.u != 0);
    const unsigned n = unsigned(t.bits);
    // The bit pattern: a signed value's low n bits.
    const uint64_t bits = t.is_int() ? uint64_t(v.i) : v.u;
    return c_.bv_val(n == 64 ? bits : bits & ((uint64_t(1) << n) - 1), n);
}

z3::expr SmtScalars::binary(ExprKind op, Type t, const z3::expr &a, const z3::expr &b) const {
    require_integer_or_bool(t);
    if (t.is_bool()) {
        switch (op) {
        case ExprKind::And:
        case ExprKind::Min: return a && b;
        case ExprKind::Or:
        case ExprKind::Max: return a || b;
        case ExprKind::EQ: return a == b;
        case ExprKind::NE: return a != b;
        // false < true, as the integers 0 and 1.
        case ExprKind::LT: return !a && b;
        case ExprKind::LE: return !a || b;
        case ExprKind::GT: return a && !b;
        case ExprKind::GE: return a || !b;
        default: throw Unsupported("this operator on bools is not modelled");
        }
    }
    const bool s = t.is_int();
    const unsigned n = unsigned(t.bits);
    const z3::expr zero = c_.bv_val(0, n);
    switch (op) {
    case ExprKind::Add: return a + b;
    case ExprKind::Sub: return a - b;
    case ExprKind::Mul: return a * b;
    case ExprKind::Div:
    case ExprKind::Mod: {
        // By a positive constant (tile and vector sizes): a shift and a mask for a power of
        // two, an unsigned division of a or of its complement otherwise (floor(a / d) =
        // ~(~a / d) for a < 0), which the solver takes far better than the general case.
        if (b.is_numeral() && n <= 64) {
            const uint64_t bits = b.get_numeral_uint64();
            const int64_t d = s && n < 64 ? int64_t(bits << (64 - n)) >> (64 - n) : int64_t(bits);
            if (d > 0 && (s || bits <= (uint64_t(1) << 62))) {
                if ((d & (d - 1)) == 0) {
                    unsigned k = 0;
                    while ((int64_t(1) << k) < d) k++;
                    if (op == ExprKind::Mod) return a & c_.bv_val(uint64_t(d - 1), n);
                    const z3::expr shift = c_.bv_val(k, n);
                    return s ? z3::ashr(a, shift) : z3::lshr(a, shift);
                }
                if (!s) return op == ExprKind::Div ? z3::udiv(a, b) : z3::urem(a, b);
                const z3::expr q = z3::ite(a < zero, ~z3::udiv(~a, b), z3::udiv(a, b));
                return op == ExprKind::Div ? q : a - q * b;
            }
        }
        if (!s) return z3::ite(b == zero, zero, op == ExprKind::Div ? z3::udiv(a, b) : z3::urem(a, b));
        // Euclidean, computed exactly in n + 1 bits (where |MIN| and a - r have values):
        // the truncated remainder (the sign of a) plus |b| where it is negative, and the
        // exact quotient (a - r) / b; the low n bits are the results (MIN / -1 wraps to
        // MIN, as defined).
        const z3::expr wa = z3::sext(a, 1), wb = z3::sext(b, 1), wzero = c_.bv_val(0, n + 1);
        const z3::expr r0 = z3::srem(wa, wb);
        const z3::expr wr = z3::ite(r0 < wzero, r0 + z3::ite(wb < wzero, -wb, wb), r0);
        const z3::expr r = wr.extract(n - 1, 0);
        const z3::expr q = ((wa - wr) / wb).extract(n - 1, 0);  // bvsdiv, exact
        return z3::ite(b == zero, zero, op == ExprKind::Div ? q : r);
    }
    case ExprKind::Min: return z3::ite(s ? a < b : z3::ult(a, b), a, b);
    case ExprKind::Max: return z3::ite(s ? a > b : z3::ugt(a, b), a, b);
    case ExprKind::EQ: return a == b;
    case ExprKind::NE: return a != b;
    case ExprKind::LT: return s ? a < b : z3::ult(a, b);
    case ExprKind::LE: return s ? a <= b : z3::ule(a, b);
    case ExprKind::GT: return s ? a > b : z3::ugt(a, b);
    case ExprKind::GE: return s ? a >= b : z3::uge(a, b);
    default: throw Unsupported("this integer operator is not modelled");
    }
}

z3::expr SmtScalars::cast(Type to, Type from, const z3::expr &v) const {
    require_integer_or_bool(to);
    require_integer_or_bool(from);
    if (to.is_bool()) return from.is_bool() ? v : v != c_.bv_val(0, unsigned(from.bits));
    const unsigned n = unsigned(to.bits);
    if (from.is_bool()) return z3::ite(v, c_.bv_val(1, n), c_.bv_val(0, n));
    const unsigned m = unsigned(from.bits);
    if (n == m) return v;
    if (n < m) return v.extract(n - 1, 0);
    // Widening extends by the source's signedness (the value is kept).
    return from.is_int() ? z3::sext(v, n - m) : z3::zext(v, n - m);
}

Scalar SmtScalars::value(Type t, const z3::expr &e) const {
    const z3::expr v = e.simplify();
    if (t.is_bool()) {
        if (v.is_true()) return make_uint(1);
        if (v.is_false()) return make_uint(0);
        throw Unsupported("not a constant");
    }
    if (!v.is_numeral()) throw Unsupported("not a constant");
    const uint64_t bits = v.get_numeral_uint64();
    if (t.is_uint()) return make_uint(bits);
    const int n = t.bits;
    const int64_t signed_value = n == 64 ? int64_t(bits) : int64_t(bits << (64 - n)) >> (64 - n);
    return make_int(signed_value);
}

}  // namespace tessera::validator
