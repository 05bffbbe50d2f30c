// Conversions known to be in range are marked. A float converted to an integer type
// truncates toward zero and saturates: NaN gives 0, values past the type's ends its ends
// (docs/semantics.md). As C code that is a few comparisons and blends around the
// conversion instruction, per lane. Most conversions in image pipelines convert a value the
// algorithm has just clamped, `uint8(clamp(v * 255.0f + 0.5f, 0.0f, 255.0f))`, which
// saturation leaves as it is; this pass marks those (Cast::in_range), so that the C emitter
// converts them directly, and the IR interpreter checks the mark wherever it runs.
//
// The range of a float expression is found by interval arithmetic on its floats, which is
// exact at the ends: +, -, *, / round monotonically, so the ends of a result are the
// operation, in the expression's type, on the operands' ends. A range also
// says the value is not NaN: a constant, an integer converted to a float, and
// max(e, c) / min(e, c) with a constant c (max(NaN, c) is c: docs/semantics.md defines
// max(a, b) as a > b ? a : b) are numbers; an operation that could make NaN of numbers
// (inf - inf, 0 * inf, 0 / 0, inf / inf) has no range, nor has anything read from memory.

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Scalar.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** The value is a number (not NaN) in [lo, hi]; the ends may be infinite. */
struct FloatRange {
    double lo, hi;
};
using Range = std::optional<FloatRange>;

/** The ends of ranges are computed with the reference interpreter's operations and
 * conversions (src/ir/Scalar.h), which round as compiled code does, as
 * src/analysis/Interval.cpp does for its float intervals. (A first version rounded
 * inline with double(float(x)), which gcc 12 at -O2 left unrounded here: 2^31 - 1 stayed
 * 2^31 - 1, and int32(float32(i)) was marked in range.) */
double apply(ExprKind op, Type t, double x, double y) {
    return ir::binary(op, t.element_of(), ir::make_float(x), ir::make_float(y)).f;
}
double convert(Type to, Type from, ir::Scalar v) { return ir::cast(to.element_of(), from.element_of(), v).f; }

bool has(const FloatRange &r, double v) { return r.lo <= v && v <= r.hi; }

/** The lets of the statement (names are bound once by now; a name bound twice, which
 * would be a mistake of an earlier pass, is left out: its value is not known). */
struct Lets : IRVisitor {
    std::map<std::string, Expr> values;
    std::set<std::string> twice;
    using IRVisitor::include;

    void finish() {
        for (const std::string &n : twice) values.erase(n);
    }

protected:
    void visit(const LetStmt *op) override {
        bind(op->name, op->value);
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        bind(op->name, op->value);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        twice.insert(op->name);  // a loop's variable is no let's value
        IRVisitor::visit(op);
    }

private:
    void bind(const std::string &name, const Expr &value) {
        if (!values.emplace(name, value).second) twice.insert(name);
    }
};

class FloatRanges {
public:
    explicit FloatRanges(const std::map<std::string, Expr> &lets) : lets_(lets) {}

    Range of(const Expr &e) {
        const Type t = e.type();
        if (!t.is_float()) return std::nullopt;
        switch (e->kind) {
        case ExprKind::FloatImm: {
            const double v = as<FloatImm>(e)->value;
            if (v != v) return std::nullopt;
            return FloatRange{v, v};
        }
        case ExprKind::Broadcast: return of(as<Broadcast>(e)->value);
        case ExprKind::Variable: return of_let(as<Variable>(e)->name);
        case ExprKind::Let: return of(as<Let>(e)->body);  // its value is in lets_
        case ExprKind::Cast: {
            const Expr &v = as<Cast>(e)->value;
            const Type from = v.type().element_of();
            if (from.is_float()) {
                Range r = of(v);
                if (!r) return r;
                return FloatRange{convert(t, from, ir::make_float(r->lo)), convert(t, from, ir::make_float(r->hi))};
            }
            if (from.is_bool()) return FloatRange{0, 1};
            // Every integer of the type: its ends, rounded (the conversion is monotonic).
            if (from.is_int())
                return FloatRange{convert(t, from, ir::make_int(INT64_MIN >> (64 - from.bits))),
                                  convert(t, from, ir::make_int(INT64_MAX >> (64 - from.bits)))};
            return FloatRange{0.0, convert(t, from, ir::make_uint(UINT64_MAX >> (64 - from.bits)))};
        }
        case ExprKind::Add: return add(t, of(as<Add>(e)->a), of(as<Add>(e)->b), false);
        case ExprKind::Sub: return add(t, of(as<Sub>(e)->a), of(as<Sub>(e)->b), true);
        case ExprKind::Mul: return mul(t, of(as<Mul>(e)->a), of(as<Mul>(e)->b));
        case ExprKind::Div: return div(t, of(as<Div>(e)->a), of(as<Div>(e)->b));
        case ExprKind::Min:
        case ExprKind::Max: {
            // min(a, b) is a < b ? a : b, max(a, b) is a > b ? a : b: b when a is NaN, so
            // a number if b is one; NaN if b is.
            const bool is_min = e->kind == ExprKind::Min;
            Range a = of(is_min ? as<Min>(e)->a : as<Max>(e)->a), b = of(is_min ? as<Min>(e)->b : as<Max>(e)->b);
            if (!b) return std::nullopt;
            if (!a) return is_min ? FloatRange{-INFINITY, b->hi} : FloatRange{b->lo, INFINITY};
            if (is_min) return FloatRange{std::fmin(a->lo, b->lo), std::fmin(a->hi, b->hi)};
            return FloatRange{std::fmax(a->lo, b->lo), std::fmax(a->hi, b->hi)};
        }
        case ExprKind::Select: {
            const Select *s = as<Select>(e);
            Range a = of(s->true_value), b = of(s->false_value);
            if (!a || !b) return std::nullopt;
            return FloatRange{std::fmin(a->lo, b->lo), std::fmax(a->hi, b->hi)};
        }
        case ExprKind::Call: {
            const Call *c = as<Call>(e);
            if (c->call_kind != CallKind::Intrinsic || c->args.size() != 1) return std::nullopt;
            Range a = of(c->args[0]);
            if (!a) return std::nullopt;
            switch (c->op) {
            case Intrinsic::Floor: return FloatRange{std::floor(a->lo), std::floor(a->hi)};
            case Intrinsic::Ceil: return FloatRange{std::ceil(a->lo), std::ceil(a->hi)};
            case Intrinsic::Round: return FloatRange{std::nearbyint(a->lo), std::nearbyint(a->hi)};
            case Intrinsic::Trunc: return FloatRange{std::trunc(a->lo), std::trunc(a->hi)};
            case Intrinsic::Abs: {
                const double m = std::fmax(std::fabs(a->lo), std::fabs(a->hi));
                return FloatRange{has(*a, 0) ? 0.0 : std::fmin(std::fabs(a->lo), std::fabs(a->hi)), m};
            }
            default: return std::nullopt;
            }
        }
        default: return std::nullopt;
        }
    }

private:
    Range of_let(const std::string &name) {
        if (auto it = memo_.find(name); it != memo_.end()) return it->second;
        auto value = lets_.find(name);
        if (value == lets_.end() || in_progress_.count(name)) return std::nullopt;
        in_progress_.insert(name);
        Range r = of(value->second);
        in_progress_.erase(name);
        memo_[name] = r;
        return r;
    }

    static Range add(Type t, Range a, Range b, bool subtract) {
        if (!a || !b) return std::nullopt;
        FloatRange y = subtract ? FloatRange{-b->hi, -b->lo} : *b;
        // inf + -inf is NaN.
        if ((a->hi == INFINITY && y.lo == -INFINITY) || (a->lo == -INFINITY && y.hi == INFINITY)) return std::nullopt;
        return FloatRange{apply(ExprKind::Add, t, a->lo, y.lo), apply(ExprKind::Add, t, a->hi, y.hi)};
    }

    static Range corners(Type t, const FloatRange &a, const FloatRange &b, ExprKind op) {
        const double p[4] = {apply(op, t, a.lo, b.lo), apply(op, t, a.lo, b.hi), apply(op, t, a.hi, b.lo),
                             apply(op, t, a.hi, b.hi)};
        double lo = p[0], hi = p[0];
        for (double v : p) {
            if (v != v) return std::nullopt;
            lo = std::fmin(lo, v);
            hi = std::fmax(hi, v);
        }
        return FloatRange{lo, hi};
    }

    static bool infinite(const FloatRange &r) { return std::isinf(r.lo) || std::isinf(r.hi); }

    static Range mul(Type t, Range a, Range b) {
        if (!a || !b) return std::nullopt;
        // 0 * inf is NaN.
        if ((has(*a, 0) && infinite(*b)) || (has(*b, 0) && infinite(*a))) return std::nullopt;
        return corners(t, *a, *b, ExprKind::Mul);
    }

    static Range div(Type t, Range a, Range b) {
        if (!a || !b) return std::nullopt;
        // x / 0 is inf or NaN, inf / inf NaN; a divisor of one sign, finite, is monotonic.
        if (has(*b, 0) || infinite(*b)) return std::nullopt;
        return corners(t, *a, *b, ExprKind::Div);
    }

    const std::map<std::string, Expr> &lets_;
    std::map<std::string, Range> memo_;
    std::set<std::string> in_progress_;
};

class MarkInRange : public IRMutator {
public:
    explicit MarkInRange(const std::map<std::string, Expr> &lets) : ranges_(lets) {}

protected:
    Expr visit(const Cast *op, const Expr &self) override {
        Expr v = mutate(op->value);
        const Type to = op->type.element_of();
        bool in_range = op->in_range;
        if (!in_range && v.type().is_float() && (to.is_int() || to.is_uint())) {
            const Range r = ranges_.of(v);
            in_range = r && truncates_into(to, r->lo) && truncates_into(to, r->hi);
        }
        if (v.same_as(op->value) && in_range == op->in_range) return self;
        return Cast::make(op->type, std::move(v), in_range);
    }

private:
    FloatRanges ranges_;
};

}  // namespace

Stmt mark_in_range_conversions(Stmt s) {
    Lets lets;
    lets.include(s);
    lets.finish();
    return MarkInRange(lets.values).mutate(s);
}

}  // namespace tessera::lower
