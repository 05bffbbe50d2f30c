#include "analysis/Interval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "analysis/ConstMath.h"
#include "analysis/Inequality.h"
#include "analysis/Simplify.h"
#include "ir/Check.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "ir/Scalar.h"
#include "tessera/Param.h"

namespace tessera::analysis {

using namespace ir;
using detail::const_int;
using detail::fits;
using detail::i128;
using detail::make_const;
using detail::type_max;
using detail::type_min;

// =======================================================================================
// Interval, Scope, unions

bool Interval::is_single_point() const {
    if (!min.defined() || !max.defined()) return false;
    return min.same_as(max) || equal(min, max);
}

bool Interval::is_const(int64_t &lo, int64_t &hi) const {
    i128 a, b;
    if (!const_int(min, a) || !const_int(max, b)) return false;
    if (a < INT64_MIN || a > INT64_MAX || b < INT64_MIN || b > INT64_MAX) return false;
    lo = int64_t(a);
    hi = int64_t(b);
    return true;
}

void Scope::push(const std::string &name, Interval interval) {
    table_[name].push_back(std::move(interval));
}

void Scope::pop(const std::string &name) {
    auto it = table_.find(name);
    TESSERA_INTERNAL_ASSERT(it != table_.end() && !it->second.empty(), "Scope::pop of " << name);
    it->second.pop_back();
    if (it->second.empty()) table_.erase(it);
}

const Interval *Scope::lookup(const std::string &name) const {
    auto it = table_.find(name);
    if (it == table_.end() || it->second.empty()) return nullptr;
    return &it->second.back();
}

Interval interval_union(const Interval &a, const Interval &b) {
    Interval r;
    if (a.min.defined() && b.min.defined())
        r.min = a.min.same_as(b.min) ? a.min : simplify(Min::make(a.min, b.min));
    if (a.max.defined() && b.max.defined())
        r.max = a.max.same_as(b.max) ? a.max : simplify(Max::make(a.max, b.max));
    return r;
}

Interval intersect(const Interval &a, const Interval &b) {
    Interval r;
    if (a.min.defined() && b.min.defined())
        r.min = a.min.same_as(b.min) ? a.min : simplify(Max::make(a.min, b.min));
    else
        r.min = a.min.defined() ? a.min : b.min;
    if (a.max.defined() && b.max.defined())
        r.max = a.max.same_as(b.max) ? a.max : simplify(Min::make(a.max, b.max));
    else
        r.max = a.max.defined() ? a.max : b.max;
    return r;
}

Box box_union(const Box &a, const Box &b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    TESSERA_INTERNAL_ASSERT(a.size() == b.size(), "box_union of boxes of different dimensions");
    Box r(a.size());
    for (size_t i = 0; i < a.size(); i++) r[i] = interval_union(a[i], b[i]);
    return r;
}

Box box_intersect(const Box &a, const Box &b) {
    TESSERA_INTERNAL_ASSERT(a.size() == b.size(), "box_intersect of boxes of different dimensions");
    Box r(a.size());
    for (size_t i = 0; i < a.size(); i++) r[i] = intersect(a[i], b[i]);
    return r;
}

// =======================================================================================
// bounds_of_expr

namespace {

/** int32 and int64: treated as mathematical integers when endpoints are symbolic. */
bool is_index_type(Type t) {
    t = t.element_of();
    return t.is_int() && (t.bits == 32 || t.bits == 64);
}

/** Integer and bool types other than the index types: wrap-exact treatment. */
bool is_careful(Type t) {
    t = t.element_of();
    return (t.is_integer() || t.is_bool()) && !is_index_type(t);
}

Interval type_range(Type t) {
    t = t.element_of();
    if (t.is_float()) return Interval::everything();
    return Interval(make_const(t, type_min(t)), make_const(t, type_max(t)));
}

/** What is known when nothing is: the type's range for narrow/unsigned types and bool;
 * unbounded for index types (so that bounds inference reports an unbounded access rather
 * than a 4-billion-element region) and floats. */
Interval full(Type t) {
    return is_careful(t) ? type_range(t) : Interval::everything();
}

/** Replace non-constant or missing endpoints by the limits of the (integer) type. */
Interval constify(Type t, const Interval &i) {
    t = t.element_of();
    Interval r = i;
    if (!detail::is_const_int(r.min)) r.min = make_const(t, type_min(t));
    if (!detail::is_const_int(r.max)) r.max = make_const(t, type_max(t));
    return r;
}

bool const_interval(const Interval &i, i128 &lo, i128 &hi) {
    return const_int(i.min, lo) && const_int(i.max, hi);
}

bool const_float(const Expr &e, double &v) {
    if (const auto *f = as<FloatImm>(e)) {
        v = f->value;
        return !std::isnan(v);
    }
    return false;
}

bool const_float_interval(const Interval &i, double &lo, double &hi) {
    return const_float(i.min, lo) && const_float(i.max, hi);
}

/** Endpoint arithmetic for results of type t. Constant operands are combined exactly and
 * checked against the type's range (`bad` is set when a result does not fit); symbolic
 * operands build simplified expressions. An undefined operand gives an undefined
 * result (the caller decides what infinity means for each endpoint). */
struct EP {
    Type t;
    bool bad = false;
    explicit EP(Type type) : t(type.element_of()) {}

    Expr k(i128 v) {
        if (!fits(t, v)) {
            bad = true;
            return make_const(t, 0);
        }
        return make_const(t, v);
    }
    Expr zero() { return make_const(t, 0); }

    Expr add(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        i128 x, y;
        if (const_int(a, x) && const_int(b, y)) return k(x + y);
        return simplify(Add::make(a, b));
    }
    Expr sub(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        i128 x, y;
        if (const_int(a, x) && const_int(b, y)) return k(x - y);
        return simplify(Sub::make(a, b));
    }
    Expr neg(const Expr &a) { return sub(zero(), a); }
    Expr mul(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        i128 x, y, r;
        if (const_int(a, x) && const_int(b, y)) {
            if (!detail::mul_checked(x, y, r)) {
                bad = true;
                return zero();
            }
            return k(r);
        }
        return simplify(Mul::make(a, b));
    }
    Expr div(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        i128 x, y;
        if (const_int(a, x) && const_int(b, y)) return k(detail::div_euclid(x, y));
        return simplify(Div::make(a, b));
    }
    Expr min(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        i128 x, y;
        if (const_int(a, x) && const_int(b, y)) return k(std::min(x, y));
        if (a.same_as(b)) return a;
        return simplify(Min::make(a, b));
    }
    Expr max(const Expr &a, const Expr &b) {
        if (!a.defined() || !b.defined()) return Expr();
        i128 x, y;
        if (const_int(a, x) && const_int(b, y)) return k(std::max(x, y));
        if (a.same_as(b)) return a;
        return simplify(Max::make(a, b));
    }
    Interval finish(const Interval &r) const { return bad ? full(t) : r; }
};

/** An endpoint is a constant that coordinate arithmetic does not reach. */
bool beyond_coordinates(Type t, const Interval &i) {
    i128 v;
    return (const_int(i.min, v) && detail::beyond_coordinates(t, v)) || (const_int(i.max, v) && detail::beyond_coordinates(t, v));
}

/** Something in e that coordinate arithmetic of type t does not reach, so that e is the
 * algorithm's own arithmetic on a value, not a coordinate: a constant beyond coordinates
 * (a Func's value widened with its type's limits), or a conversion to an integer from a
 * float or from an integer type wider than t (a Param<double> converted to int64 may be
 * any int64). */
bool mentions_beyond_coordinates(Type t, const Expr &e) {
    struct Find : IRVisitor {
        Type t;
        bool found = false;
        using IRVisitor::include;
        void visit(const IntImm *op) override { found = found || detail::beyond_coordinates(t, op->value); }
        void visit(const UIntImm *op) override { found = found || detail::beyond_coordinates(t, i128(op->value)); }
        void visit(const Cast *op) override {
            const Type from = op->value.type().element_of();
            if (!op->type.is_float() && !op->type.is_bool() &&
                (from.is_float() || (!from.is_bool() && (!fits(t, type_min(from)) || !fits(t, type_max(from))))))
                found = true;
            IRVisitor::visit(op);
        }
    } f;
    f.t = t;
    f.include(e);
    return f.found;
}

constexpr int kMaxEndpointSize = 400;

bool too_big(const Interval &i) {
    return detail::expr_size(i.min, kMaxEndpointSize + 1) > kMaxEndpointSize ||
           detail::expr_size(i.max, kMaxEndpointSize + 1) > kMaxEndpointSize;
}

class Bounds {
public:
    explicit Bounds(const Scope &scope) : scope_(scope) {}

    Interval get(const Expr &e) {
        Interval r = get_raw(e);
        Type t = e.type().element_of();
        if (is_careful(t)) {
            // Narrow, unsigned and bool values never leave their type: fill infinities.
            if (!r.min.defined()) r.min = make_const(t, type_min(t));
            if (!r.max.defined()) r.max = make_const(t, type_max(t));
        }
        return r;
    }

private:
    const Scope &scope_;
    Scope local_;  // lets inside the expression
    int fresh_ = 0;

    const Interval *lookup(const std::string &name) const {
        if (const Interval *i = local_.lookup(name)) return i;
        return scope_.lookup(name);
    }

    static Interval point(const Expr &e) { return Interval::single_point(e); }

    Interval get_raw(const Expr &e) {
        Type t = e.type().element_of();
        switch (e->kind) {
        case ExprKind::IntImm:
        case ExprKind::UIntImm: return point(e);
        case ExprKind::FloatImm: {
            double v = as<FloatImm>(e)->value;
            return std::isnan(v) ? Interval::everything() : point(e);
        }
        case ExprKind::StringImm: return Interval::everything();
        case ExprKind::Variable: {
            const auto *op = as<Variable>(e);
            if (const Interval *i = lookup(op->name)) return *i;
            if (e.type().is_vector()) return full(t);
            return point(e);
        }
        case ExprKind::Cast: return visit_cast(as<Cast>(e));
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul:
        case ExprKind::Div:
        case ExprKind::Mod:
        case ExprKind::Min:
        case ExprKind::Max: return visit_arith(e);
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE: return visit_cmp(e);
        case ExprKind::And:
        case ExprKind::Or: return visit_logic(e);
        case ExprKind::Not: {
            Interval a = get(as<Not>(e)->a);
            if (a.is_single_point()) return point(simplify(Not::make(a.min)));
            return Interval(simplify(Not::make(a.max)), simplify(Not::make(a.min)));
        }
        case ExprKind::Select: return visit_select(as<Select>(e));
        case ExprKind::Call: return visit_call(as<Call>(e));
        case ExprKind::Let: return visit_let(as<Let>(e));
        case ExprKind::Load: return full(t);
        case ExprKind::Ramp: {
            const auto *op = as<Ramp>(e);
            Expr last = Add::make(op->base, Mul::make(op->stride, make_const(t, op->lanes - 1)));
            Interval first = get(op->base);
            Interval end = get(last);
            if (t.is_float()) return Interval::everything();
            return interval_union(first, end);
        }
        case ExprKind::Broadcast: return get(as<Broadcast>(e)->value);
        }
        return full(t);
    }

    // -----------------------------------------------------------------------------------

    Interval visit_cast(const Cast *op) {
        Type to = op->type.element_of(), from = op->value.type().element_of();
        Interval a = get(op->value);
        if (a.is_single_point()) return point(simplify(Cast::make(to, a.min)));
        if (to.is_bool()) {
            i128 lo, hi;
            if (!from.is_float() && const_interval(a, lo, hi)) {
                if (lo > 0 || hi < 0) return point(detail::make_bool_const(true));
                if (lo == 0 && hi == 0) return point(detail::make_bool_const(false));
            }
            return type_range(to);
        }
        if (from.is_float()) {
            double lo, hi;
            if (const_float_interval(a, lo, hi)) {
                ir::Scalar l = ir::cast(to, from, ir::make_float(lo));
                ir::Scalar h = ir::cast(to, from, ir::make_float(hi));
                return Interval(detail::make_scalar(to, l), detail::make_scalar(to, h));
            }
            return full(to);
        }
        // From an integer or bool.
        if (is_careful(from)) a = constify(from, a);
        if (to.is_float()) {
            i128 lo, hi;
            if (!const_interval(a, lo, hi)) return Interval::everything();
            auto conv = [&](i128 v) {
                ir::Scalar s = from.is_int() ? ir::make_int(int64_t(v))
                                                    : ir::make_uint(uint64_t(v));
                return detail::make_scalar(to, ir::cast(to, from, s));
            };
            return Interval(conv(lo), conv(hi));
        }
        bool widening = fits(to, type_min(from)) && fits(to, type_max(from));
        if (widening) {
            // Exact and monotone. A missing bound of a source narrower than 64 bits is the
            // source type's limit.
            if (from.bits < 64) {
                if (!a.min.defined()) a.min = make_const(from, type_min(from));
                if (!a.max.defined()) a.max = make_const(from, type_max(from));
            }
            Interval r;
            if (a.min.defined()) r.min = simplify(Cast::make(to, a.min));
            if (a.max.defined()) r.max = simplify(Cast::make(to, a.max));
            return r;
        }
        i128 lo, hi;
        bool lo_c = const_int(a.min, lo), hi_c = const_int(a.max, hi);
        if ((lo_c && !fits(to, lo)) || (hi_c && !fits(to, hi))) return full(to);
        if (lo_c && hi_c) return Interval(make_const(to, lo), make_const(to, hi));
        if (is_index_type(from) && is_index_type(to) && a.is_bounded() && !mentions_beyond_coordinates(to, a.min) &&
            !mentions_beyond_coordinates(to, a.max)) {
            // int64 -> int32: the identity on the values the index-type regime assumes. (A
            // missing bound means any int64 value, which truncation can send anywhere; an
            // endpoint with a constant no int32 coordinate reaches, such as a Func's value
            // widened from its type's limits and moved by a coordinate, or with a
            // conversion from a float or a wider integer, is a value that may not fit,
            // which truncation wraps.)
            Interval r;
            if (a.min.defined()) r.min = simplify(Cast::make(to, a.min));
            if (a.max.defined()) r.max = simplify(Cast::make(to, a.max));
            return r;
        }
        return full(to);
    }

    // -----------------------------------------------------------------------------------

    Interval float_arith(ExprKind kind, const Interval &a, const Interval &b, Type t) {
        double al, ah, bl, bh;
        if (!const_float_interval(a, al, ah) || !const_float_interval(b, bl, bh))
            return Interval::everything();
        auto op = [&](ExprKind k, double x, double y) {
            return ir::binary(k, t, ir::make_float(x), ir::make_float(y)).f;
        };
        double lo, hi;
        switch (kind) {
        case ExprKind::Min:
            lo = std::min(al, bl);
            hi = std::min(ah, bh);
            break;
        case ExprKind::Max:
            lo = std::max(al, bl);
            hi = std::max(ah, bh);
            break;
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul: {
            // Rounding is monotone, so the extremes of the exact results round to the
            // extremes of the rounded results; infinite operands could make NaN.
            if (!std::isfinite(al) || !std::isfinite(ah) || !std::isfinite(bl) || !std::isfinite(bh))
                return Interval::everything();
            if (kind == ExprKind::Add) {
                lo = op(kind, al, bl);
                hi = op(kind, ah, bh);
            } else if (kind == ExprKind::Sub) {
                lo = op(kind, al, bh);
                hi = op(kind, ah, bl);
            } else {
                double c[4] = {op(kind, al, bl), op(kind, al, bh), op(kind, ah, bl), op(kind, ah, bh)};
                lo = *std::min_element(c, c + 4);
                hi = *std::max_element(c, c + 4);
            }
            break;
        }
        default: return Interval::everything();
        }
        if (std::isnan(lo) || std::isnan(hi)) return Interval::everything();
        return Interval(FloatImm::make(t, lo), FloatImm::make(t, hi));
    }

    /** [a.min, a.max] * c for a constant c. */
    static Interval mul_const(EP &ep, const Interval &a, i128 c) {
        if (c == 0) return point(ep.zero());
        Expr k = ep.k(c);
        Expr lo = ep.mul(a.min, k), hi = ep.mul(a.max, k);
        return c > 0 ? Interval(lo, hi) : Interval(hi, lo);
    }

    Interval visit_arith(const Expr &e) {
        Type t = e.type().element_of();
        const Expr *pa, *pb;
        const bool binary = detail::binary_operands(e, pa, pb);
        TESSERA_INTERNAL_ASSERT(binary, "visit_arith");
        const Expr &ea = *pa, &eb = *pb;
        if (e->kind == ExprKind::Sub && !t.is_float() && equal(ea, eb)) {
            return point(make_const(t, 0));  // x - x is 0 whatever x is (no dependency problem)
        }
        Interval a = get(ea), b = get(eb);
        if (a.is_single_point() && b.is_single_point()) {
            Expr r;
            switch (e->kind) {
            case ExprKind::Add: r = Add::make(a.min, b.min); break;
            case ExprKind::Sub: r = Sub::make(a.min, b.min); break;
            case ExprKind::Mul: r = Mul::make(a.min, b.min); break;
            case ExprKind::Div: r = Div::make(a.min, b.min); break;
            case ExprKind::Mod: r = Mod::make(a.min, b.min); break;
            case ExprKind::Min: r = Min::make(a.min, b.min); break;
            default: r = Max::make(a.min, b.min); break;
            }
            return point(simplify(r));
        }
        if (t.is_float()) {
            // min(a, c) is a < c ? a : c, which is c when a is NaN (docs/semantics.md §3):
            // with c a constant, it is at most c whatever a is, and never NaN; max(a, c)
            // at least c. (A clamp of a Func's value, say, before a conversion to an index.)
            double c, alo, ahi;
            if ((e->kind == ExprKind::Min || e->kind == ExprKind::Max) && b.is_single_point() && const_float(b.min, c) &&
                !const_float_interval(a, alo, ahi)) {
                const Expr inf = FloatImm::make(t, std::numeric_limits<double>::infinity());
                const Expr minus_inf = FloatImm::make(t, -std::numeric_limits<double>::infinity());
                return e->kind == ExprKind::Min ? Interval(minus_inf, b.min) : Interval(b.min, inf);
            }
            return float_arith(e->kind, a, b, t);
        }

        EP ep(t);
        switch (e->kind) {
        case ExprKind::Min:
            // min/max cannot wrap: symbolic endpoints are fine for every type.
            return Interval(ep.min(a.min, b.min),
                            !a.max.defined() ? b.max : !b.max.defined() ? a.max : ep.min(a.max, b.max));
        case ExprKind::Max:
            return Interval(!a.min.defined() ? b.min : !b.min.defined() ? a.min : ep.max(a.min, b.min),
                            ep.max(a.max, b.max));
        default: break;
        }

        bool careful = is_careful(t);
        if (careful) {
            a = constify(t, a);
            b = constify(t, b);
        } else if ((e->kind == ExprKind::Add || e->kind == ExprKind::Sub || e->kind == ExprKind::Mul) &&
                   (!a.is_bounded() || !b.is_bounded())) {
            // A missing bound means "any value of the type" (an unknown Func value, or a
            // result that could have wrapped): x + 1 can then wrap past any finite bound.
            return full(t);
        }
        i128 alo, ahi, blo, bhi;
        if (!careful && (e->kind == ExprKind::Add || e->kind == ExprKind::Sub || e->kind == ExprKind::Mul) &&
            (beyond_coordinates(t, a) || beyond_coordinates(t, b)) &&
            !(const_interval(a, alo, ahi) && const_interval(b, blo, bhi))) {
            // A symbolic endpoint combined with a constant no coordinate reaches (the
            // saturated conversion of a Func's value, a huge constant of the algorithm's
            // own arithmetic) is not coordinate arithmetic: the endpoint could wrap where
            // it is evaluated, and so could the value.
            return full(t);
        }
        i128 c;
        switch (e->kind) {
        case ExprKind::Add:
            return ep.finish(Interval(ep.add(a.min, b.min), ep.add(a.max, b.max)));
        case ExprKind::Sub:
            return ep.finish(Interval(ep.sub(a.min, b.max), ep.sub(a.max, b.min)));
        case ExprKind::Mul: {
            if (b.is_single_point() && const_int(b.min, c)) return ep.finish(mul_const(ep, a, c));
            if (a.is_single_point() && const_int(a.min, c)) return ep.finish(mul_const(ep, b, c));
            if (too_big(a) || too_big(b)) return full(t);
            if (equal(ea, eb)) return ep.finish(square(ep, a));
            return ep.finish(corners(ep, a, b));
        }
        case ExprKind::Div: return ep.finish(divide(ep, a, b));
        case ExprKind::Mod: return ep.finish(modulo(ep, a, b));
        default: break;
        }
        return full(t);
    }

    static bool sign_known(const Interval &i, bool &nonneg) {
        i128 lo, hi;
        if (!const_interval(i, lo, hi)) return false;
        if (lo >= 0) {
            nonneg = true;
            return true;
        }
        if (hi <= 0) {
            nonneg = false;
            return true;
        }
        return false;
    }

    /** Products of two bounded intervals. */
    static Interval corners(EP &ep, const Interval &a, const Interval &b) {
        bool nonneg;
        // If one factor has a known sign, the product is monotone in the other factor.
        if (sign_known(b, nonneg)) {
            Expr l0 = ep.mul(a.min, b.min), l1 = ep.mul(a.min, b.max);
            Expr h0 = ep.mul(a.max, b.min), h1 = ep.mul(a.max, b.max);
            if (nonneg) return Interval(ep.min(l0, l1), ep.max(h0, h1));
            return Interval(ep.min(h0, h1), ep.max(l0, l1));
        }
        if (sign_known(a, nonneg)) {
            Expr l0 = ep.mul(b.min, a.min), l1 = ep.mul(b.min, a.max);
            Expr h0 = ep.mul(b.max, a.min), h1 = ep.mul(b.max, a.max);
            if (nonneg) return Interval(ep.min(l0, l1), ep.max(h0, h1));
            return Interval(ep.min(h0, h1), ep.max(l0, l1));
        }
        Expr p0 = ep.mul(a.min, b.min), p1 = ep.mul(a.min, b.max);
        Expr p2 = ep.mul(a.max, b.min), p3 = ep.mul(a.max, b.max);
        return Interval(ep.min(ep.min(p0, p1), ep.min(p2, p3)), ep.max(ep.max(p0, p1), ep.max(p2, p3)));
    }

    /** e * e with e in a (bounded). */
    static Interval square(EP &ep, const Interval &a) {
        i128 lo, hi;
        if (const_interval(a, lo, hi)) {
            if (lo >= 0) return Interval(ep.mul(a.min, a.min), ep.mul(a.max, a.max));
            if (hi <= 0) return Interval(ep.mul(a.max, a.max), ep.mul(a.min, a.min));
            return Interval(ep.zero(), ep.max(ep.mul(a.min, a.min), ep.mul(a.max, a.max)));
        }
        return Interval(ep.zero(), ep.max(ep.mul(a.min, a.min), ep.mul(a.max, a.max)));
    }

    /** A Param whose range (set_range, asserted when the pipeline starts) has a lower
     * bound of at least 1. */
    static bool positive_parameter(const Expr &e) {
        const Variable *v = as<Variable>(e);
        if (!v || v->var_kind != VarKind::Param || !v->param || !v->param->min_value.defined()) return false;
        i128 lo;
        return const_int(v->param->min_value, lo) && lo >= 1;
    }

    static Interval divide(EP &ep, const Interval &a, const Interval &b) {
        Type t = ep.t;
        i128 c;
        if (b.is_single_point() && const_int(b.min, c)) {
            // Euclidean division by a constant is monotone: non-decreasing for c > 0,
            // non-increasing for c < 0.
            if (c == 0) return point(ep.zero());
            Expr k = ep.k(c);
            Expr lo = ep.div(a.min, k), hi = ep.div(a.max, k);
            return c > 0 ? Interval(lo, hi) : Interval(hi, lo);
        }
        if (b.is_single_point() && positive_parameter(b.min)) {
            // A Param whose asserted range (checked at entry) is positive: Euclidean
            // division by it is non-decreasing in a.
            return Interval(a.min.defined() ? ep.div(a.min, b.min) : Expr(), a.max.defined() ? ep.div(a.max, b.min) : Expr());
        }
        i128 blo;
        if (const_int(b.min, blo) && blo >= 1) {
            // For a positive divisor, a / b is monotone in a, and for a fixed a monotone in
            // b; as b grows without bound a / b tends to 0 (a >= 0) or -1 (a < 0).
            Expr lo, hi;
            if (a.min.defined())
                lo = b.max.defined() ? ep.min(ep.div(a.min, b.min), ep.div(a.min, b.max))
                                     : ep.min(ep.div(a.min, b.min), ep.zero());
            if (a.max.defined())
                hi = b.max.defined() ? ep.max(ep.div(a.max, b.min), ep.div(a.max, b.max))
                                     : ep.max(ep.div(a.max, b.min), ep.zero());
            return Interval(lo, hi);
        }
        if (t.is_uint()) return Interval(ep.zero(), a.max);  // a / b <= a
        if (!a.is_bounded()) return Interval::everything();
        if (too_big(a)) return Interval::everything();
        // |a / b| <= |a| for every b (and a / 0 == 0).
        Expr m = ep.max(ep.neg(a.min), a.max);
        return Interval(ep.neg(m), m);
    }

    static Interval modulo(EP &ep, const Interval &a, const Interval &b) {
        Type t = ep.t;
        i128 c;
        if (b.is_single_point() && const_int(b.min, c)) {
            if (c == 0) return point(ep.zero());
            i128 m = detail::abs128(c), lo, hi;
            if (const_interval(a, lo, hi) && detail::div_euclid(lo, m) == detail::div_euclid(hi, m))
                return Interval(ep.k(detail::mod_euclid(lo, m)), ep.k(detail::mod_euclid(hi, m)));
            return Interval(ep.zero(), ep.k(m - 1));
        }
        // 0 <= a % b < |b|, and a % 0 == 0.
        Expr hi;
        i128 blo, bhi;
        if (const_interval(b, blo, bhi)) {
            i128 m = t.is_uint() ? bhi : std::max(detail::abs128(blo), detail::abs128(bhi));
            hi = ep.k(std::max<i128>(m - 1, 0));
        } else if (b.is_bounded() && !t.is_uint()) {
            if (const_int(b.min, blo) && blo >= 1) {
                hi = ep.sub(b.max, make_const(t, 1));
            } else {
                hi = ep.max(ep.sub(ep.max(ep.neg(b.min), b.max), make_const(t, 1)), ep.zero());
            }
        }
        // For a >= 0, a % b <= a.
        i128 alo;
        if (const_int(a.min, alo) && alo >= 0 && a.max.defined()) hi = hi.defined() ? ep.min(hi, a.max) : a.max;
        return Interval(ep.zero(), hi);
    }

    // -----------------------------------------------------------------------------------

    Interval visit_cmp(const Expr &e) {
        const Expr *pa, *pb;
        const bool binary = detail::binary_operands(e, pa, pb);
        TESSERA_INTERNAL_ASSERT(binary, "visit_cmp");
        const Expr &ea = *pa, &eb = *pb;
        Interval a = get(ea), b = get(eb);
        Interval both = type_range(Bool());
        if (a.is_single_point() && b.is_single_point()) {
            Expr r;
            switch (e->kind) {
            case ExprKind::EQ: r = EQ::make(a.min, b.min); break;
            case ExprKind::NE: r = NE::make(a.min, b.min); break;
            case ExprKind::LT: r = LT::make(a.min, b.min); break;
            case ExprKind::LE: r = LE::make(a.min, b.min); break;
            case ExprKind::GT: r = GT::make(a.min, b.min); break;
            default: r = GE::make(a.min, b.min); break;
            }
            return point(simplify(r));
        }
        if (ea.type().is_float()) return both;
        // Decide the comparison when the intervals are ordered.
        auto proves = [](Expr c) { return detail::is_const_true(simplify(c)); };
        auto yes = point(detail::make_bool_const(true)), no = point(detail::make_bool_const(false));
        bool a_lt_b = a.max.defined() && b.min.defined() && proves(LT::make(a.max, b.min));
        bool a_le_b = a.max.defined() && b.min.defined() && proves(LE::make(a.max, b.min));
        bool b_lt_a = b.max.defined() && a.min.defined() && proves(LT::make(b.max, a.min));
        bool b_le_a = b.max.defined() && a.min.defined() && proves(LE::make(b.max, a.min));
        switch (e->kind) {
        case ExprKind::LT: return a_lt_b ? yes : b_le_a ? no : both;
        case ExprKind::LE: return a_le_b ? yes : b_lt_a ? no : both;
        case ExprKind::GT: return b_lt_a ? yes : a_le_b ? no : both;
        case ExprKind::GE: return b_le_a ? yes : a_lt_b ? no : both;
        case ExprKind::EQ: return (a_lt_b || b_lt_a) ? no : both;
        case ExprKind::NE: return (a_lt_b || b_lt_a) ? yes : both;
        default: return both;
        }
    }

    Interval visit_logic(const Expr &e) {
        bool is_and = e->kind == ExprKind::And;
        Expr ea = is_and ? as<And>(e)->a : as<Or>(e)->a;
        Expr eb = is_and ? as<And>(e)->b : as<Or>(e)->b;
        Interval a = get(ea), b = get(eb);
        auto mk = [&](const Expr &x, const Expr &y) {
            return simplify(is_and ? And::make(x, y) : Or::make(x, y));
        };
        if (a.is_single_point() && b.is_single_point()) return point(mk(a.min, b.min));
        // And / Or are monotone in both operands (false < true).
        return Interval(mk(a.min, b.min), mk(a.max, b.max));
    }

    Interval visit_select(const Select *op) {
        Interval c = get(op->condition);
        if (detail::is_const_true(c.min)) return get(op->true_value);
        if (detail::is_const_false(c.max)) return get(op->false_value);
        Interval a = get(op->true_value), b = get(op->false_value);
        Type t = op->type.element_of();
        if (t.is_float()) {
            if (a.is_single_point() && b.is_single_point() && equal(a.min, b.min)) return a;
            double al, ah, bl, bh;
            if (!const_float_interval(a, al, ah) || !const_float_interval(b, bl, bh))
                return Interval::everything();
            return Interval(FloatImm::make(t, std::min(al, bl)), FloatImm::make(t, std::max(ah, bh)));
        }
        return interval_union(a, b);
    }

    // -----------------------------------------------------------------------------------

    Interval visit_call(const Call *op) {
        Type t = op->type.element_of();
        if (op->call_kind != CallKind::Intrinsic) {
            // Values of Funcs and images are not analysed.
            return full(t);
        }
        if (has_effect(op->op)) return get(op->args[1]);  // its value
        std::vector<Interval> args;
        bool all_points = true;
        for (const Expr &a : op->args) {
            args.push_back(get(a));
            all_points = all_points && args.back().is_single_point();
        }
        if (all_points) {
            std::vector<Expr> mins;
            for (const Interval &i : args) mins.push_back(i.min);
            return point(simplify(rebuild_call(op, std::move(mins))));
        }
        EP ep(t);
        switch (op->op) {
        case Intrinsic::Floor:
        case Intrinsic::Ceil:
        case Intrinsic::Round:
        case Intrinsic::Trunc: {
            // Monotone non-decreasing.
            double lo, hi;
            if (!const_float_interval(args[0], lo, hi)) return Interval::everything();
            Type at = op->args[0].type().element_of();
            ir::Scalar l = ir::make_float(lo), h = ir::make_float(hi);
            l = ir::intrinsic(op->op, t, &at, &l, 1);
            h = ir::intrinsic(op->op, t, &at, &h, 1);
            return Interval(FloatImm::make(t, l.f), FloatImm::make(t, h.f));
        }
        case Intrinsic::Abs: {
            Type at = op->args[0].type().element_of();
            if (at.is_float()) {
                double lo, hi;
                if (!const_float_interval(args[0], lo, hi)) return Interval::everything();
                double mx = std::max(std::fabs(lo), std::fabs(hi));
                double mn = (lo <= 0 && hi >= 0) ? 0.0 : std::min(std::fabs(lo), std::fabs(hi));
                return Interval(FloatImm::make(t, mn), FloatImm::make(t, mx));
            }
            i128 lo, hi;
            const_interval(constify(at, args[0]), lo, hi);
            if (lo >= 0) return Interval(ep.k(lo), ep.k(hi));
            if (hi <= 0) return Interval(ep.k(-hi), ep.k(-lo));
            return Interval(ep.zero(), ep.k(std::max(-lo, hi)));
        }
        case Intrinsic::PopCount:
        case Intrinsic::CountLeadingZeros:
        case Intrinsic::CountTrailingZeros: return Interval(ep.zero(), ep.k(i128(t.bits)));
        case Intrinsic::Absd: {
            Type at = op->args[0].type().element_of();
            if (at.is_float()) return Interval::everything();
            i128 al, ah, bl, bh;
            const_interval(constify(at, args[0]), al, ah);
            const_interval(constify(at, args[1]), bl, bh);
            i128 lo = std::max<i128>({0, al - bh, bl - ah});
            i128 hi = std::max(ah - bl, bh - al);
            return ep.finish(Interval(ep.k(lo), ep.k(hi)));
        }
        case Intrinsic::BitAnd:
        case Intrinsic::BitOr:
        case Intrinsic::BitXor: {
            if (!t.is_integer()) return full(t);
            i128 al, ah, bl, bh;
            const_interval(constify(t, args[0]), al, ah);
            const_interval(constify(t, args[1]), bl, bh);
            if (op->op == Intrinsic::BitAnd) {
                // The result has a subset of the bits of a non-negative operand.
                if (al >= 0 && bl >= 0) return Interval(ep.zero(), ep.k(std::min(ah, bh)));
                if (al >= 0) return Interval(ep.zero(), ep.k(ah));
                if (bl >= 0) return Interval(ep.zero(), ep.k(bh));
                return full(t);
            }
            if (al >= 0 && bl >= 0) {
                i128 p = 1;
                while (p <= std::max(ah, bh)) p <<= 1;
                i128 lo = op->op == Intrinsic::BitOr ? std::max(al, bl) : 0;
                return ep.finish(Interval(ep.k(lo), ep.k(p - 1)));
            }
            return full(t);
        }
        case Intrinsic::BitNot: {
            if (!t.is_integer()) return full(t);
            // ~x is -x - 1 (signed) or MAX - x (unsigned): decreasing.
            i128 lo, hi;
            const_interval(constify(t, args[0]), lo, hi);
            if (t.is_int()) return Interval(ep.k(-hi - 1), ep.k(-lo - 1));
            return Interval(ep.k(type_max(t) - hi), ep.k(type_max(t) - lo));
        }
        case Intrinsic::ShiftRight:
        case Intrinsic::ShiftLeft: {
            if (!t.is_integer()) return full(t);
            i128 k;
            if (!args[1].is_single_point() || !const_int(args[1].min, k)) {
                // A shift by a bounded amount of a non-negative value: monotone in both
                // (1 << clamp(x, 0, 6), a table index).
                i128 klo, khi, alo, ahi;
                auto constant = [](const Expr &e, const Interval &iv, i128 &lo, i128 &hi) {
                    int64_t l, h;
                    if (const_interval(iv, lo, hi)) return true;
                    if (!const_bounds(e, l, h)) return false;
                    lo = l;
                    hi = h;
                    return true;
                };
                if (!constant(op->args[1], args[1], klo, khi) || klo < 0 || khi >= t.bits - 1 ||
                    !constant(op->args[0], args[0], alo, ahi) || alo < 0)
                    return full(t);
                if (op->op == Intrinsic::ShiftRight) return Interval(ep.k(alo >> int(khi)), ep.k(ahi >> int(klo)));
                const i128 top = ahi << int(khi);
                if (top > type_max(t)) return full(t);
                return Interval(ep.k(alo << int(klo)), ep.k(top));
            }
            bool left = op->op == Intrinsic::ShiftLeft;
            if (k < 0) {
                left = !left;
                k = -k;
            }
            const Interval &a = args[0];
            if (!left) {
                // floor(a / 2^k): monotone, cannot wrap.
                Expr amount = make_const(Int(32), std::min<i128>(k, 64));
                auto shr = [&](const Expr &x) {
                    return x.defined() ? simplify(Call::make_intrinsic(t, Intrinsic::ShiftRight, {x, amount}))
                                       : Expr();
                };
                return Interval(shr(a.min), shr(a.max));
            }
            // A shift by the type's width or more gives 0 (docs/semantics.md §2), as the
            // simplifier knows: it drops a clamp of such a value, which must not leave the
            // value's bounds the whole type.
            if (k >= t.bits) return Interval(ep.k(0), ep.k(0));
            if (k >= t.bits - (t.is_int() ? 1 : 0) || (!is_careful(t) && !a.is_bounded())) return full(t);
            Interval a2 = is_careful(t) ? constify(t, a) : a;
            return ep.finish(mul_const(ep, a2, i128(1) << int(k)));
        }
        case Intrinsic::IsNan:
        case Intrinsic::IsInf:
        case Intrinsic::IsFinite: return type_range(Bool());
        default: break;
        }
        return full(t);
    }

    Interval visit_let(const Let *op) {
        Interval v = get(op->value);
        auto simple = [](const Expr &e) {
            return !e.defined() || detail::is_const(e) || e->kind == ExprKind::Variable;
        };
        if (simple(v.min) && simple(v.max)) {
            local_.push(op->name, v);
            Interval r = get(op->body);
            local_.pop(op->name);
            return r;
        }
        // Keep the endpoints as let-bound variables, so that a value used many times in the
        // body is not copied into the result many times.
        std::string id = std::to_string(fresh_++);
        Expr lo_var, hi_var;
        Interval bound;
        if (v.is_single_point()) {
            lo_var = hi_var = Variable::make(v.min.type(), op->name + "$" + id);
            bound = Interval(lo_var, hi_var);
        } else {
            if (v.min.defined()) lo_var = Variable::make(v.min.type(), op->name + "$min" + id);
            if (v.max.defined()) hi_var = Variable::make(v.max.type(), op->name + "$max" + id);
            bound = Interval(lo_var, hi_var);
        }
        local_.push(op->name, bound);
        Interval r = get(op->body);
        local_.pop(op->name);
        auto wrap = [&](Expr e) {
            if (!e.defined()) return e;
            if (lo_var.defined() && uses_var(e, as<Variable>(lo_var)->name))
                e = Let::make(as<Variable>(lo_var)->name, v.min, e);
            if (hi_var.defined() && !hi_var.same_as(lo_var) && uses_var(e, as<Variable>(hi_var)->name))
                e = Let::make(as<Variable>(hi_var)->name, v.max, e);
            return simplify(e);
        };
        return Interval(wrap(r.min), wrap(r.max));
    }
};

}  // namespace

Interval bounds_of_expr(const Expr &e, const Scope &scope) {
    if (!e.defined()) return Interval::everything();
    Bounds b(scope);
    return b.get(e);
}

// =======================================================================================
// const_bounds: constant, wrap-exact bounds.

namespace {

class ConstBounds {
public:
    explicit ConstBounds(const ConstBoundsScope *scope) : scope_(scope) {}

    /** Bounds of an integer or bool expression; never fails (the type's range). */
    void get(const Expr &e, i128 &lo, i128 &hi, int depth) {
        Type t = e.type().element_of();
        auto full = [&] {
            if (t.is_float()) {
                lo = hi = 0;  // never asked: callers only ask about integer and bool values
                return;
            }
            lo = type_min(t);
            hi = type_max(t);
        };
        if (--budget_ < 0 || depth > kMaxDepth) return full();
        auto fit = [&](i128 l, i128 h) {
            if (fits(t, l) && fits(t, h)) {
                lo = l;
                hi = h;
            } else {
                full();
            }
        };
        switch (e->kind) {
        case ExprKind::IntImm:
        case ExprKind::UIntImm:
            const_int(e, lo);
            hi = lo;
            return;
        case ExprKind::Variable: {
            const auto *op = as<Variable>(e);
            for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) {
                if (std::get<0>(*it) == op->name) {
                    if (!std::get<3>(*it)) return full();
                    lo = std::get<1>(*it);
                    hi = std::get<2>(*it);
                    return;
                }
            }
            if (scope_ && !e.type().is_vector()) {
                auto s = scope_->find(op->name);
                if (s != scope_->end()) {
                    lo = std::max<i128>(s->second.first, type_min(t));
                    hi = std::min<i128>(s->second.second, type_max(t));
                    if (lo > hi) full();
                    return;
                }
            }
            return full();
        }
        case ExprKind::Broadcast: return get(as<Broadcast>(e)->value, lo, hi, depth + 1);
        case ExprKind::Ramp: {
            const auto *op = as<Ramp>(e);
            i128 bl, bh, sl, sh;
            get(op->base, bl, bh, depth + 1);
            get(op->stride, sl, sh, depth + 1);
            i128 n = op->lanes - 1;
            return fit(bl + std::min<i128>(0, sl * n), bh + std::max<i128>(0, sh * n));
        }
        case ExprKind::Cast: {
            const auto *op = as<Cast>(e);
            Type from = op->value.type().element_of();
            if (from.is_float()) {
                ir::Scalar v;
                if (detail::const_scalar(op->value, v)) {
                    ir::Scalar r = ir::cast(t, from, v);
                    lo = hi = t.is_int() ? i128(r.i) : i128(r.u);
                    return;
                }
                return full();
            }
            i128 l, h;
            get(op->value, l, h, depth + 1);
            if (t.is_bool()) {
                if (l > 0 || h < 0) lo = hi = 1;
                else if (l == 0 && h == 0) lo = hi = 0;
                else full();
                return;
            }
            return fit(l, h);
        }
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul:
        case ExprKind::Div:
        case ExprKind::Mod:
        case ExprKind::Min:
        case ExprKind::Max: {
            if (t.is_float()) return full();
            Expr ea, eb;
            operands(e, ea, eb);
            i128 al, ah, bl, bh;
            get(ea, al, ah, depth + 1);
            get(eb, bl, bh, depth + 1);
            switch (e->kind) {
            case ExprKind::Add: return fit(al + bl, ah + bh);
            case ExprKind::Sub: return fit(al - bh, ah - bl);
            case ExprKind::Mul: {
                i128 p[4];
                if (!detail::mul_checked(al, bl, p[0]) || !detail::mul_checked(al, bh, p[1]) ||
                    !detail::mul_checked(ah, bl, p[2]) || !detail::mul_checked(ah, bh, p[3]))
                    return full();
                return fit(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
            }
            case ExprKind::Div: {
                if (bl == bh) {
                    if (bl == 0) return fit(0, 0);
                    i128 q0 = detail::div_euclid(al, bl), q1 = detail::div_euclid(ah, bl);
                    return fit(std::min(q0, q1), std::max(q0, q1));
                }
                if (bl > 0 || bh < 0) {
                    // Monotone in each operand on a divisor range of constant sign.
                    i128 q[4] = {detail::div_euclid(al, bl), detail::div_euclid(al, bh),
                                 detail::div_euclid(ah, bl), detail::div_euclid(ah, bh)};
                    return fit(*std::min_element(q, q + 4), *std::max_element(q, q + 4));
                }
                if (t.is_uint() || t.is_bool()) return fit(0, ah);
                // |a / b| <= |a|, and a / 0 == 0.
                i128 m = std::max(detail::abs128(al), detail::abs128(ah));
                return fit(-m, m);
            }
            case ExprKind::Mod: {
                i128 m = std::max(detail::abs128(bl), detail::abs128(bh));
                if (m == 0) return fit(0, 0);
                if (bl == bh && detail::div_euclid(al, m) == detail::div_euclid(ah, m))
                    return fit(detail::mod_euclid(al, m), detail::mod_euclid(ah, m));
                i128 h = m - 1;
                if (al >= 0) h = std::min(h, ah);  // a % b <= a for a >= 0
                return fit(0, h);
            }
            case ExprKind::Min: return fit(std::min(al, bl), std::min(ah, bh));
            default: return fit(std::max(al, bl), std::max(ah, bh));
            }
        }
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE: {
            Expr ea, eb;
            operands(e, ea, eb);
            if (ea.type().is_float()) return full();
            i128 al, ah, bl, bh;
            get(ea, al, ah, depth + 1);
            get(eb, bl, bh, depth + 1);
            int r = -1;  // unknown
            switch (e->kind) {
            case ExprKind::LT: r = ah < bl ? 1 : al >= bh ? 0 : -1; break;
            case ExprKind::LE: r = ah <= bl ? 1 : al > bh ? 0 : -1; break;
            case ExprKind::GT: r = al > bh ? 1 : ah <= bl ? 0 : -1; break;
            case ExprKind::GE: r = al >= bh ? 1 : ah < bl ? 0 : -1; break;
            case ExprKind::EQ: r = (ah < bl || bh < al) ? 0 : (al == ah && bl == bh && al == bl) ? 1 : -1; break;
            default: r = (ah < bl || bh < al) ? 1 : (al == ah && bl == bh && al == bl) ? 0 : -1; break;
            }
            if (r < 0) return full();
            lo = hi = r;
            return;
        }
        case ExprKind::And:
        case ExprKind::Or: {
            Expr ea, eb;
            operands(e, ea, eb);
            i128 al, ah, bl, bh;
            get(ea, al, ah, depth + 1);
            get(eb, bl, bh, depth + 1);
            if (e->kind == ExprKind::And) return fit(std::min(al, bl), std::min(ah, bh));
            return fit(std::max(al, bl), std::max(ah, bh));
        }
        case ExprKind::Not: {
            i128 l, h;
            get(as<Not>(e)->a, l, h, depth + 1);
            return fit(1 - h, 1 - l);
        }
        case ExprKind::Select: {
            const auto *op = as<Select>(e);
            i128 cl, ch;
            get(op->condition, cl, ch, depth + 1);
            if (t.is_float()) return full();
            if (cl == 1) return get(op->true_value, lo, hi, depth + 1);
            if (ch == 0) return get(op->false_value, lo, hi, depth + 1);
            i128 al, ah, bl, bh;
            get(op->true_value, al, ah, depth + 1);
            get(op->false_value, bl, bh, depth + 1);
            return fit(std::min(al, bl), std::max(ah, bh));
        }
        case ExprKind::Let: {
            const auto *op = as<Let>(e);
            Type vt = op->value.type().element_of();
            if (vt.is_integer() || vt.is_bool()) {
                i128 l, h;
                get(op->value, l, h, depth + 1);
                lets_.emplace_back(op->name, l, h, true);
            } else {
                lets_.emplace_back(op->name, 0, 0, false);
            }
            get(op->body, lo, hi, depth + 1);
            lets_.pop_back();
            return;
        }
        case ExprKind::Call: {
            const auto *op = as<Call>(e);
            if (op->call_kind != CallKind::Intrinsic || !t.is_integer()) return full();
            switch (op->op) {
            case Intrinsic::Abs: {
                Type at = op->args[0].type().element_of();
                if (!at.is_integer()) return full();
                i128 l, h;
                get(op->args[0], l, h, depth + 1);
                if (l >= 0) return fit(l, h);
                if (h <= 0) return fit(-h, -l);
                return fit(0, std::max(-l, h));
            }
            case Intrinsic::PopCount:
            case Intrinsic::CountLeadingZeros:
            case Intrinsic::CountTrailingZeros: return fit(0, t.bits);
            case Intrinsic::Absd: {
                Type at = op->args[0].type().element_of();
                if (!at.is_integer()) return full();
                i128 al, ah, bl, bh;
                get(op->args[0], al, ah, depth + 1);
                get(op->args[1], bl, bh, depth + 1);
                return fit(std::max<i128>({0, al - bh, bl - ah}), std::max(ah - bl, bh - al));
            }
            case Intrinsic::BitAnd:
            case Intrinsic::BitOr:
            case Intrinsic::BitXor: {
                i128 al, ah, bl, bh;
                get(op->args[0], al, ah, depth + 1);
                get(op->args[1], bl, bh, depth + 1);
                if (op->op == Intrinsic::BitAnd) {
                    if (al >= 0 && bl >= 0) return fit(0, std::min(ah, bh));
                    if (al >= 0) return fit(0, ah);
                    if (bl >= 0) return fit(0, bh);
                    return full();
                }
                if (al >= 0 && bl >= 0) {
                    i128 p = 1;
                    while (p <= std::max(ah, bh)) p <<= 1;
                    return fit(op->op == Intrinsic::BitOr ? std::max(al, bl) : 0, p - 1);
                }
                return full();
            }
            case Intrinsic::ShiftLeft:
            case Intrinsic::ShiftRight: {
                i128 kl, kh;
                get(op->args[1], kl, kh, depth + 1);
                if (kl != kh) return full();
                bool left = op->op == Intrinsic::ShiftLeft;
                i128 k = kl;
                if (k < 0) {
                    left = !left;
                    k = -k;
                }
                i128 al, ah;
                get(op->args[0], al, ah, depth + 1);
                if (!left) {
                    i128 d = i128(1) << int(std::min<i128>(k, 100));
                    return fit(detail::div_euclid(al, d), detail::div_euclid(ah, d));
                }
                if (k >= t.bits) return fit(0, 0);
                i128 m = i128(1) << int(k), l, h;
                if (!detail::mul_checked(al, m, l) || !detail::mul_checked(ah, m, h)) return full();
                return fit(l, h);
            }
            default: return full();
            }
        }
        default: return full();
        }
    }

private:
    static constexpr int kMaxDepth = 24;
    const ConstBoundsScope *scope_;
    std::vector<std::tuple<std::string, i128, i128, bool>> lets_;
    int budget_ = 512;

    static void operands(const Expr &e, Expr &a, Expr &b) {
        const Expr *x, *y;
        const bool binary = detail::binary_operands(e, x, y);
        TESSERA_INTERNAL_ASSERT(binary, "not a binary node");
        a = *x;
        b = *y;
    }
};

}  // namespace

bool const_bounds(const Expr &e, const ConstBoundsScope &scope, int64_t &lo, int64_t &hi) {
    if (!e.defined()) return false;
    Type t = e.type().element_of();
    if (!(t.is_integer() || t.is_bool())) return false;
    ConstBounds cb(&scope);
    i128 l, h;
    cb.get(e, l, h, 0);
    if (l < INT64_MIN || h > INT64_MAX) return false;
    lo = int64_t(l);
    hi = int64_t(h);
    return true;
}

bool const_bounds(const Expr &e, int64_t &lo, int64_t &hi) {
    static const ConstBoundsScope empty;
    return const_bounds(e, empty, lo, hi);
}

namespace {

bool mentions(const Expr &e, const std::string &name) {
    struct Finder : IRVisitor {
        const std::string &name;
        bool found = false;
        explicit Finder(const std::string &n) : name(n) {}
        using IRVisitor::include;
        void visit(const Variable *op) override { found = found || op->name == name; }
    } f(name);
    f.include(e);
    return f.found;
}

}  // namespace

std::vector<std::pair<std::string, Interval>> narrow_by_condition(const Expr &condition, const Scope &scope) {
    std::map<std::string, Interval> narrowed;
    for (const Comparison &c : comparisons_of(condition)) {
        // The variable narrowed: the left operand if it is in scope, else the right one;
        // e is the other operand.
        const Expr *var = &c.a, *e = &c.b;
        const Variable *v = as<Variable>(*var);
        if (!v || !scope.contains(v->name)) {
            std::swap(var, e);
            v = as<Variable>(*var);
            if (!v || !scope.contains(v->name)) continue;
        }
        const Type t = var->type();
        if (!(t == Int(32) || t == Int(64)) || mentions(*e, v->name)) continue;
        auto it = narrowed.find(v->name);
        Interval cur = it != narrowed.end() ? it->second : *scope.lookup(v->name);
        // Simplified first, so that a guard's min + (max - min + 1) is max + 1 before its
        // terms are bounded separately.
        const Interval bounds = bounds_of_expr(simplify_index(*e), scope);
        // v + gap <= e bounds v by max(e) - gap, and e + gap <= v by min(e) + gap. A bound
        // that is off by one wraps only at the type's limits, where the resulting endpoint is
        // looser than the current one, so min/max keep it sound.
        Interval limit;
        for (const Inequality &q : c) {
            if (q.lesser.same_as(*var)) {
                if (bounds.max.defined()) limit.max = q.gap ? Sub::make(bounds.max, IntImm::make(t, q.gap)) : bounds.max;
            } else if (bounds.min.defined()) {
                limit.min = q.gap ? Add::make(bounds.min, IntImm::make(t, q.gap)) : bounds.min;
            }
        }
        if (limit.is_everything()) continue;
        narrowed[v->name] = intersect(cur, limit);
    }
    return {narrowed.begin(), narrowed.end()};
}

namespace {

/** Pushes + and - of a term into min and max operands (after substitution of lets). Each
 * push copies a term, so nested mins and maxes grow exponentially: past a budget of steps
 * the rewrite gives up (`exhausted`), and the loop keeps its variable extent. */
class Distribute : public ir::IRMutator {
public:
    bool exhausted = false;

protected:
    Expr visit(const Add *op, const Expr &self) override {
        if (spend()) return self;
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr d = push(a, b, false); d.defined()) return d;
        if (Expr d = push(b, a, false); d.defined()) return d;
        return a.same_as(op->a) && b.same_as(op->b) ? self : Add::make(a, b);
    }
    Expr visit(const Sub *op, const Expr &self) override {
        if (spend()) return self;
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr d = push(a, b, true); d.defined()) return d;
        return a.same_as(op->a) && b.same_as(op->b) ? self : Sub::make(a, b);
    }

private:
    bool spend() {
        exhausted = exhausted || ++steps_ > 20000;
        return exhausted;
    }
    int steps_ = 0;

    /** min(x, y) +- c -> min(x +- c, y +- c) (and max). */
    Expr push(const Expr &m, const Expr &c, bool sub) {
        auto apply = [&](const Expr &x) { return mutate(sub ? Sub::make(x, c) : Add::make(x, c)); };
        if (const Min *mn = as<Min>(m)) return Min::make(apply(mn->a), apply(mn->b));
        if (const Max *mx = as<Max>(m)) return Max::make(apply(mx->a), apply(mx->b));
        return Expr();
    }
};

}  // namespace

bool constant_upper_bound(const Expr &e, const std::vector<std::pair<std::string, Expr>> &lets, int64_t &hi, int64_t *lo) {
    const Expr x = ir::substitute_lets(lets, e);
    return x.defined() && constant_upper_bound(x, hi, lo);
}

bool constant_upper_bound(const Expr &e, int64_t &hi, int64_t *lo) {
    Distribute d;
    Expr pushed = d.mutate(simplify_index(e));
    if (d.exhausted) return false;
    int64_t l = 0;
    if (!const_bounds(simplify_index(pushed), l, hi)) return false;
    if (lo) *lo = l;
    return true;
}

}  // namespace tessera::analysis
