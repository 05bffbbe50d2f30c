#include "analysis/Associativity.h"

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "tessera/IROperator.h"

namespace tessera::analysis {

using namespace ir;
using Op = AssociativeUpdate::Op;

namespace {

bool reads(const Expr &e, const FunctionData &f) {
    struct Find : IRVisitor {
        const FunctionData *f;
        bool found = false;
        using IRVisitor::include;
        void visit(const Call *op) override {
            found = found || (op->call_kind == CallKind::Func && op->func.get() == f);
            IRVisitor::visit(op);
        }
    } v;
    v.f = &f;
    v.include(e);
    return v.found;
}

}  // namespace

std::optional<AssociativeUpdate> associative_update(const FunctionData &f, const Definition &d) {
    const Type t = d.value.type();
    if (t.is_float() || t.lanes != 1) return std::nullopt;
    auto is_self = [&](const Expr &x) {
        const Call *c = as<Call>(x);
        if (!c || c->call_kind != CallKind::Func || c->func.get() != &f || c->args.size() != d.args.size()) return false;
        for (size_t i = 0; i < c->args.size(); i++)
            if (!equal(c->args[i], d.args[i])) return false;
        return true;
    };
    Op op;
    Expr a, b;
    switch (d.value->kind) {
    case ExprKind::Add: op = Op::Add, a = as<Add>(d.value)->a, b = as<Add>(d.value)->b; break;
    case ExprKind::Mul: op = Op::Mul, a = as<Mul>(d.value)->a, b = as<Mul>(d.value)->b; break;
    case ExprKind::Min: op = Op::Min, a = as<Min>(d.value)->a, b = as<Min>(d.value)->b; break;
    case ExprKind::Max: op = Op::Max, a = as<Max>(d.value)->a, b = as<Max>(d.value)->b; break;
    case ExprKind::And: op = Op::And, a = as<And>(d.value)->a, b = as<And>(d.value)->b; break;
    case ExprKind::Or: op = Op::Or, a = as<Or>(d.value)->a, b = as<Or>(d.value)->b; break;
    case ExprKind::Call: {
        const Call *c = as<Call>(d.value);
        if (c->call_kind != CallKind::Intrinsic || c->args.size() != 2) return std::nullopt;
        switch (c->op) {
        case Intrinsic::BitAnd: op = Op::BitAnd; break;
        case Intrinsic::BitOr: op = Op::BitOr; break;
        case Intrinsic::BitXor: op = Op::BitXor; break;
        default: return std::nullopt;
        }
        a = c->args[0], b = c->args[1];
        break;
    }
    default: return std::nullopt;
    }
    AssociativeUpdate u{op, Expr(), Expr()};
    if (is_self(a)) u.self = a, u.other = b;
    else if (is_self(b)) u.self = b, u.other = a;
    else return std::nullopt;
    if (reads(u.other, f)) return std::nullopt;
    for (const Expr &p : d.predicates)
        if (reads(p, f)) return std::nullopt;
    for (const Expr &x : d.args)
        if (reads(x, f)) return std::nullopt;
    return u;
}

Expr apply(Op op, const Expr &x, const Expr &y) {
    switch (op) {
    case Op::Add: return Add::make(x, y);
    case Op::Mul: return Mul::make(x, y);
    case Op::Min: return Min::make(x, y);
    case Op::Max: return Max::make(x, y);
    case Op::And: return And::make(x, y);
    case Op::Or: return Or::make(x, y);
    case Op::BitAnd: return Call::make_intrinsic(x.type(), Intrinsic::BitAnd, {x, y});
    case Op::BitOr: return Call::make_intrinsic(x.type(), Intrinsic::BitOr, {x, y});
    case Op::BitXor: return Call::make_intrinsic(x.type(), Intrinsic::BitXor, {x, y});
    }
    return Expr();
}

namespace {
/** The largest or smallest value of an integer or bool type. */
Expr limit(Type t, bool largest) {
    if (t.is_bool()) return make_bool(largest);
    if (t.is_uint()) return largest ? UIntImm::make(t, t.bits == 64 ? ~uint64_t(0) : (uint64_t(1) << t.bits) - 1)
                                    : UIntImm::make(t, 0);
    const int64_t max = t.bits == 64 ? INT64_MAX : (int64_t(1) << (t.bits - 1)) - 1;
    return IntImm::make(t, largest ? max : -max - 1);
}
}  // namespace

Expr identity(Op op, Type t) {
    switch (op) {
    case Op::Add:
    case Op::Or:
    case Op::BitOr:
    case Op::BitXor: return make_zero(t);
    case Op::Mul:
    case Op::And: return make_one(t);
    case Op::Min: return limit(t, true);
    case Op::Max: return limit(t, false);
    case Op::BitAnd: return t.is_uint() ? limit(t, true) : make_const(t, int64_t(-1));
    }
    return Expr();
}

}  // namespace tessera::analysis
