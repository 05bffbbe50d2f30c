#include "analysis/Inequality.h"

#include "analysis/ConstMath.h"

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

Expr slack(const Inequality &i) {
    return Sub::make(Sub::make(i.greater, i.lesser), detail::make_const(i.lesser.type(), i.gap));
}

}  // namespace tessera::analysis
