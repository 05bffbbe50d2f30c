#include "validate/Smt.h"

#include <cmath>
#include <cstring>

#include "validate/Isl.h"

namespace tessera::validator {

using namespace ir;

namespace {

void require_integer_or_bool(Type t) {
    if (!t.element_of().is_int() && !t.element_of().is_uint() && !t.element_of().is_bool())
        throw Unsupported("values of type " + t.to_string() + " are not modelled as bit-vectors");
}

void require_float(Type t) {
    if (!t.is_float() || (t.bits != 32 && t.bits != 64)) throw Unsupported("values of type " + t.to_string() + " are not modelled");
}

}  // namespace

z3::sort SmtScalars::sort(Type t) const {
    if (t.is_bool()) return c_.bool_sort();
    if (t.is_float()) {
        require_float(t);
        return t.bits == 32 ? c_.fpa_sort(8, 24) : c_.fpa_sort(11, 53);
    }
    require_integer_or_bool(t);
    return c_.bv_sort(unsigned(t.bits));
}

z3::expr SmtScalars::term(Z3_ast r) const {
    c_.check_error();
    return z3::expr(c_, r);
}

z3::expr SmtScalars::rounding(Z3_ast (*mode)(Z3_context)) const { return term(mode(c_)); }

z3::expr SmtScalars::float_constant(Type t, double v) const {
    const z3::sort s = sort(t);
    return term(std::isnan(v) ? Z3_mk_fpa_nan(c_, s)
                              : t.bits == 32 ? Z3_mk_fpa_numeral_float(c_, float(v), s) : Z3_mk_fpa_numeral_double(c_, v, s));
}

z3::expr SmtScalars::constant(Type t, Scalar v) const {
    if (t.is_float()) return float_constant(t, v.f);
    require_integer_or_bool(t);
    if (t.is_bool()) return c_.bool_val(v.u != 0);
    const unsigned n = unsigned(t.bits);
    // The bit pattern: a signed value's low n bits.
    const uint64_t bits = t.is_int() ? uint64_t(v.i) : v.u;
    return c_.bv_val(n == 64 ? bits : bits & ((uint64_t(1) << n) - 1), n);
}

z3::expr SmtScalars::float_binary(ExprKind op, Type t, const z3::expr &a, const z3::expr &b) const {
    require_float(t);
    const z3::expr rne = rounding(Z3_mk_fpa_rne);
    auto less = [&](const z3::expr &x, const z3::expr &y) { return term(Z3_mk_fpa_lt(c_, x, y)); };
    auto equal = [&](const z3::expr &x, const z3::expr &y) { return term(Z3_mk_fpa_eq(c_, x, y)); };
    switch (op) {
    case ExprKind::Add: return term(Z3_mk_fpa_add(c_, rne, a, b));
    case ExprKind::Sub: return term(Z3_mk_fpa_sub(c_, rne, a, b));
    case ExprKind::Mul: return term(Z3_mk_fpa_mul(c_, rne, a, b));
    case ExprKind::Div: return term(Z3_mk_fpa_div(c_, rne, a, b));
    case ExprKind::Mod: {
        // a - b * floor(a / b), each step rounded.
        const z3::expr q = term(Z3_mk_fpa_round_to_integral(c_, rounding(Z3_mk_fpa_rtn), term(Z3_mk_fpa_div(c_, rne, a, b))));
        return term(Z3_mk_fpa_sub(c_, rne, a, term(Z3_mk_fpa_mul(c_, rne, b, q))));
    }
    // a < b ? a : b and a > b ? a : b, exactly (not IEEE's minNum).
    case ExprKind::Min: return z3::ite(less(a, b), a, b);
    case ExprKind::Max: return z3::ite(less(b, a), a, b);
    case ExprKind::EQ: return equal(a, b);
    case ExprKind::NE: return !equal(a, b);
    case ExprKind::LT: return less(a, b);
    case ExprKind::LE: return term(Z3_mk_fpa_leq(c_, a, b));
    case ExprKind::GT: return less(b, a);
    case ExprKind::GE: return term(Z3_mk_fpa_geq(c_, a, b));
    default: throw Unsupported("this float operator is not modelled");
    }
}

z3::expr SmtScalars::binary(ExprKind op, Type t, const z3::expr &a, const z3::expr &b) const {
    if (t.is_float()) return float_binary(op, t, a, b);
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
    if (to.is_float()) {
        const z3::sort s = sort(to);
        const z3::expr rne = rounding(Z3_mk_fpa_rne);
        if (from.is_bool()) return z3::ite(v, float_constant(to, 1.0), float_constant(to, 0.0));
        if (from.is_float()) {
            require_float(from);
            return from.bits == to.bits ? v : term(Z3_mk_fpa_to_fp_float(c_, rne, v, s));
        }
        require_integer_or_bool(from);
        return term(from.is_int() ? Z3_mk_fpa_to_fp_signed(c_, rne, v, s) : Z3_mk_fpa_to_fp_unsigned(c_, rne, v, s));
    }
    if (from.is_float()) {
        require_float(from);
        const z3::expr zero = float_constant(from, 0.0);
        if (to.is_bool()) return !term(Z3_mk_fpa_eq(c_, v, zero));
        require_integer_or_bool(to);
        // Truncated toward zero, saturated at the type's range, NaN to 0 (src/ir/Scalar.cpp):
        // the bounds are powers of two, exact in both formats.
        const unsigned n = unsigned(to.bits);
        const z3::expr rtz = rounding(Z3_mk_fpa_rtz), nan = term(Z3_mk_fpa_is_nan(c_, v));
        const z3::expr none = c_.bv_val(0, n);
        if (to.is_int()) {
            const double hi = std::ldexp(1.0, int(n) - 1);
            const z3::expr max = c_.bv_val(uint64_t(to.max_int()), n), min = c_.bv_val(uint64_t(to.min_int()), n);
            return z3::ite(nan, none,
                           z3::ite(term(Z3_mk_fpa_geq(c_, v, float_constant(from, hi))), max,
                                   z3::ite(term(Z3_mk_fpa_leq(c_, v, float_constant(from, -hi))), min,
                                           term(Z3_mk_fpa_to_sbv(c_, rtz, v, n)))));
        }
        const double hi = std::ldexp(1.0, int(n));
        return z3::ite(nan, none,
                       z3::ite(term(Z3_mk_fpa_geq(c_, v, float_constant(from, hi))), c_.bv_val(to.max_uint(), n),
                               z3::ite(term(Z3_mk_fpa_leq(c_, v, zero)), none, term(Z3_mk_fpa_to_ubv(c_, rtz, v, n)))));
    }
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

z3::expr SmtScalars::intrinsic(Intrinsic op, Type t, const std::vector<Type> &arg_types, const std::vector<z3::expr> &args) const {
    if (args.empty() || arg_types.size() != args.size() || !arg_types[0].is_float())
        throw Unsupported(std::string("the intrinsic ") + intrinsic_name(op) + " is not modelled on these operands");
    const Type a = arg_types[0];
    require_float(a);
    auto integral = [&](Z3_ast (*mode)(Z3_context)) { return term(Z3_mk_fpa_round_to_integral(c_, rounding(mode), args[0])); };
    switch (op) {
    case Intrinsic::Floor: return integral(Z3_mk_fpa_rtn);
    case Intrinsic::Ceil: return integral(Z3_mk_fpa_rtp);
    case Intrinsic::Round: return integral(Z3_mk_fpa_rne);  // half to even, as rint
    case Intrinsic::Trunc: return integral(Z3_mk_fpa_rtz);
    case Intrinsic::Sqrt: return term(Z3_mk_fpa_sqrt(c_, rounding(Z3_mk_fpa_rne), args[0]));
    case Intrinsic::Fma:
        if (args.size() != 3) break;
        return term(Z3_mk_fpa_fma(c_, rounding(Z3_mk_fpa_rne), args[0], args[1], args[2]));
    case Intrinsic::Abs: return term(Z3_mk_fpa_abs(c_, args[0]));
    case Intrinsic::Absd:
        if (args.size() != 2) break;
        return term(Z3_mk_fpa_abs(c_, float_binary(ExprKind::Sub, a, args[0], args[1])));
    case Intrinsic::IsNan:
    case Intrinsic::IsInf:
    case Intrinsic::IsFinite: {
        const z3::expr nan = term(Z3_mk_fpa_is_nan(c_, args[0])), inf = term(Z3_mk_fpa_is_infinite(c_, args[0]));
        const z3::expr holds = op == Intrinsic::IsNan ? nan : op == Intrinsic::IsInf ? inf : !nan && !inf;
        // A bool, or the integer 0 or 1 (src/ir/Scalar.cpp makes them unsigned).
        if (t.is_bool()) return holds;
        require_integer_or_bool(t);
        return z3::ite(holds, c_.bv_val(1, unsigned(t.bits)), c_.bv_val(0, unsigned(t.bits)));
    }
    default: break;
    }
    throw Unsupported(std::string("the intrinsic ") + intrinsic_name(op) + " has no exact term (the C library's own value)");
}

Scalar SmtScalars::value(Type t, const z3::expr &e) const {
    const z3::expr v = e.simplify();
    if (t.is_float()) {
        require_float(t);
        if (Z3_fpa_is_numeral_nan(c_, v)) return make_float(std::nan(""));
        const z3::expr bits = term(Z3_mk_fpa_to_ieee_bv(c_, v)).simplify();
        if (!bits.is_numeral()) throw Unsupported("not a constant");
        const uint64_t b = bits.get_numeral_uint64();
        if (t.bits == 32) {
            const uint32_t b32 = uint32_t(b);
            float f;
            std::memcpy(&f, &b32, 4);
            return make_float(double(f));
        }
        double d;
        std::memcpy(&d, &b, 8);
        return make_float(d);
    }
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
