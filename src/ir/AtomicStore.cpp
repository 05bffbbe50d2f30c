#include "ir/AtomicStore.h"

#include <functional>
#include <vector>

#include "ir/IREquality.h"
#include "ir/Substitute.h"

namespace tessera::ir {

std::optional<AtomicStoreParts> atomic_store_parts(const Store &st) {
    // A store of one point from every lane (the vectorizer's form of a loop whose lanes all
    // update one point with one value): its lanes are the updates of that point, one after
    // the other.
    Expr v = st.value, index = st.index;
    const Broadcast *every_lane = as<Broadcast>(v), *one_point = as<Broadcast>(index);
    if (every_lane && one_point) v = every_lane->value, index = one_point->value;
    else every_lane = nullptr;
    const Type t = v.type().element_of();
    AtomicStoreParts p;
    p.old = st.buffer + ".atomic.old";
    p.operand_lane = st.buffer + ".atomic.operand";
    const Expr old = Variable::make(t, p.old), operand = Variable::make(t, p.operand_lane);
    auto is_the_point = [&](const Expr &e) {
        const Load *l = as<Load>(e);
        return l && l->buffer == st.buffer && equal(l->index, index);
    };
    if (is_the_point(v)) {
        p.combine = old;
        return p;
    }
    auto each_lane = [&](const Expr &e) { return every_lane ? Broadcast::make(e, every_lane->lanes) : e; };
    if (!reads_buffer(v, st.buffer)) {
        p.operand = each_lane(v);
        p.combine = operand;
        return p;
    }
    // The value is a tree of one associative and commutative operator (the simplifier may
    // have regrouped f[i] + (e1 + e2) as (f[i] + e1) + e2); one of its leaves is the
    // point, the others make e, in any grouping.
    const ExprKind kind = v->kind;
    Intrinsic intrinsic = Intrinsic::None;
    if (kind == ExprKind::Call) {
        const Call *c = as<Call>(v);
        if (c->call_kind != CallKind::Intrinsic || c->args.size() != 2 ||
            (c->op != Intrinsic::BitAnd && c->op != Intrinsic::BitOr && c->op != Intrinsic::BitXor))
            return std::nullopt;
        intrinsic = c->op;
    } else if (kind != ExprKind::Add && kind != ExprKind::Mul && kind != ExprKind::Min && kind != ExprKind::Max &&
               kind != ExprKind::And && kind != ExprKind::Or) {
        return std::nullopt;
    }
    auto operands = [&](const Expr &e, Expr &a, Expr &b) {
        if (e->kind != kind) return false;
        switch (kind) {
        case ExprKind::Add: a = as<Add>(e)->a, b = as<Add>(e)->b; return true;
        case ExprKind::Mul: a = as<Mul>(e)->a, b = as<Mul>(e)->b; return true;
        case ExprKind::Min: a = as<Min>(e)->a, b = as<Min>(e)->b; return true;
        case ExprKind::Max: a = as<Max>(e)->a, b = as<Max>(e)->b; return true;
        case ExprKind::And: a = as<And>(e)->a, b = as<And>(e)->b; return true;
        case ExprKind::Or: a = as<Or>(e)->a, b = as<Or>(e)->b; return true;
        default: {
            const Call *c = as<Call>(e);
            if (!c || c->call_kind != CallKind::Intrinsic || c->op != intrinsic || c->args.size() != 2) return false;
            a = c->args[0], b = c->args[1];
            return true;
        }
        }
    };
    auto make = [&](const Expr &x, const Expr &y) -> Expr {
        switch (kind) {
        case ExprKind::Add: return Add::make(x, y);
        case ExprKind::Mul: return Mul::make(x, y);
        case ExprKind::Min: return Min::make(x, y);
        case ExprKind::Max: return Max::make(x, y);
        case ExprKind::And: return And::make(x, y);
        case ExprKind::Or: return Or::make(x, y);
        default: return Call::make_intrinsic(x.type(), intrinsic, {x, y});
        }
    };
    std::vector<Expr> leaves;
    std::function<void(const Expr &)> collect = [&](const Expr &e) {
        Expr a, b;
        if (operands(e, a, b)) {
            collect(a);
            collect(b);
        } else {
            leaves.push_back(e);
        }
    };
    collect(v);
    int point = -1;
    for (size_t k = 0; k < leaves.size(); k++) {
        if (is_the_point(leaves[k]) && point < 0) point = int(k);
        else if (reads_buffer(leaves[k], st.buffer)) return std::nullopt;
    }
    if (point < 0 || leaves.size() < 2) return std::nullopt;
    for (size_t k = 0; k < leaves.size(); k++)
        if (int(k) != point) p.operand = p.operand.defined() ? make(p.operand, leaves[k]) : leaves[k];
    p.operand = each_lane(p.operand);
    p.combine = make(old, operand);
    return p;
}

}  // namespace tessera::ir
