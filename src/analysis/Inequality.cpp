#include "analysis/Inequality.h"

#include "analysis/ConstMath.h"
#include "ir/Substitute.h"

namespace tessera::analysis {

using namespace ir;

namespace {

void collect_conjuncts(const Expr &c, std::vector<Expr> &out) {
    if (const And *a = as<And>(c)) {
        collect_conjuncts(a->a, out);
        collect_conjuncts(a->b, out);
    } else {
        out.push_back(c);
    }
}

}  // namespace

std::vector<Expr> conjuncts(const Expr &c) {
    std::vector<Expr> out;
    collect_conjuncts(c, out);
    return out;
}

bool as_comparison(const Expr &c, Comparison &out) {
    switch (c->kind) {
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::EQ: break;
    default: return false;
    }
    const Expr *pa, *pb;
    detail::binary_operands(c, pa, pb);
    const Expr &a = *pa, &b = *pb;
    // The gap form holds for integers only: a < b is not a + 1 <= b for floats.
    if (!a.type().element_of().is_integer()) return false;
    out.a = a;
    out.b = b;
    out.op = c->kind;
    out.count = 1;
    switch (c->kind) {
    case ExprKind::LT: out.inequalities[0] = {a, b, 1}; break;
    case ExprKind::LE: out.inequalities[0] = {a, b, 0}; break;
    case ExprKind::GT: out.inequalities[0] = {b, a, 1}; break;
    case ExprKind::GE: out.inequalities[0] = {b, a, 0}; break;
    default:
        out.inequalities[0] = {a, b, 0};
        out.inequalities[1] = {b, a, 0};
        out.count = 2;
        break;
    }
    return true;
}

std::vector<Comparison> comparisons_of(const Expr &c) {
    std::vector<Comparison> out;
    for (const Expr &e : conjuncts(c)) {
        Comparison cmp;
        if (as_comparison(e, cmp)) out.push_back(std::move(cmp));
    }
    return out;
}

Limits limits_of(const Expr &c, const std::function<bool(const Expr &)> &is_it) {
    Limits out;
    for (const Comparison &k : comparisons_of(c))
        for (const Inequality &q : k) {  // lesser + gap <= greater
            const Expr gap = detail::make_const(q.lesser.type(), q.gap);
            if (is_it(q.lesser)) out.upper.push_back(q.gap ? Sub::make(q.greater, gap) : q.greater);
            else if (is_it(q.greater)) out.lower.push_back(q.gap ? Add::make(q.lesser, gap) : q.lesser);
        }
    return out;
}

Expr slack(const Inequality &i) {
    return Sub::make(Sub::make(i.greater, i.lesser), detail::make_const(i.lesser.type(), i.gap));
}

Expr in_int64(const Expr &e) {
    if (e.type() != Int(32)) return e;
    if (const IntImm *c = as<IntImm>(e)) return IntImm::make(Int(64), c->value);
    if (reads_memory(e)) return Cast::make(Int(64), e);
    if (const Select *op = as<Select>(e))
        return Select::make(op->condition, in_int64(op->true_value), in_int64(op->false_value));
    const Expr *a, *b;
    switch (e->kind) {
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::Min:
    case ExprKind::Max: {
        detail::binary_operands(e, a, b);
        const auto beyond = [](const Expr &x) {
            detail::i128 v;
            return detail::const_int(x, v) && detail::beyond_coordinates(Int(32), v);
        };
        const bool wraps = e->kind == ExprKind::Add || e->kind == ExprKind::Sub || e->kind == ExprKind::Mul;
        if (wraps && (beyond(*a) || beyond(*b)))
            return Cast::make(Int(64), e);  // the algorithm's arithmetic, as it wraps
        return detail::make_binary(e->kind, in_int64(*a), in_int64(*b));
    }
    default: return Cast::make(Int(64), e);
    }
}

Expr nonnegative_difference(const Expr &cond) {
    Comparison c;
    if (!as_comparison(cond, c) || c.count != 1 || c.a.type() != Int(32)) return Expr();
    const Inequality &i = c.inequalities[0];
    return slack({in_int64(i.lesser), in_int64(i.greater), i.gap});
}

}  // namespace tessera::analysis
