#include "ir/IRMutator.h"

#include "ir/Check.h"

namespace tessera::ir {

Expr IRMutator::mutate(const Expr &e) {
    if (!e.defined()) return e;
    switch (e->kind) {
#define TESSERA_DISPATCH(N) \
    case ExprKind::N: return visit(static_cast<const N *>(e.get()), e);
        TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
    }
    TESSERA_INTERNAL_ERROR("unknown expression kind");
}

Stmt IRMutator::mutate(const Stmt &s) {
    if (!s.defined()) return s;
    switch (s->kind) {
#define TESSERA_DISPATCH(N) \
    case StmtKind::N: return visit(static_cast<const N *>(s.get()), s);
        TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
    }
    TESSERA_INTERNAL_ERROR("unknown statement kind");
}

Expr rebuild_call(const Call *call, std::vector<Expr> args) {
    auto c = std::make_shared<Call>(call->type, call->name, std::move(args), call->call_kind);
    c->op = call->op;
    c->func = call->func;
    c->buffer = call->buffer;
    c->input = call->input;
    c->value_index = call->value_index;
    return Expr(std::shared_ptr<const ExprNode>(std::move(c)));
}

namespace {
bool mutate_all(IRMutator &m, const std::vector<Expr> &in, std::vector<Expr> &out) {
    bool changed = false;
    out.reserve(in.size());
    for (const Expr &e : in) {
        out.push_back(m.mutate(e));
        changed = changed || !out.back().same_as(e);
    }
    return changed;
}
}  // namespace

Expr IRMutator::visit(const IntImm *, const Expr &self) { return self; }
Expr IRMutator::visit(const UIntImm *, const Expr &self) { return self; }
Expr IRMutator::visit(const FloatImm *, const Expr &self) { return self; }
Expr IRMutator::visit(const StringImm *, const Expr &self) { return self; }
Expr IRMutator::visit(const Variable *, const Expr &self) { return self; }

Expr IRMutator::visit(const Cast *op, const Expr &self) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? self : Cast::make(op->type, std::move(v), op->in_range);
}

#define TESSERA_MUTATE_BINARY(N)                                           \
    Expr IRMutator::visit(const N *op, const Expr &self) {                 \
        Expr a = mutate(op->a), b = mutate(op->b);                         \
        if (a.same_as(op->a) && b.same_as(op->b)) return self;             \
        return N::make(std::move(a), std::move(b));                        \
    }
#define TESSERA_MUTATE_ARITH(N)                                            \
    Expr IRMutator::visit(const N *op, const Expr &self) {                 \
        Expr a = mutate(op->a), b = mutate(op->b);                         \
        if (a.same_as(op->a) && b.same_as(op->b)) return self;             \
        return N::make(std::move(a), std::move(b), op->no_overflow);       \
    }
TESSERA_MUTATE_ARITH(Add)
TESSERA_MUTATE_ARITH(Sub)
TESSERA_MUTATE_ARITH(Mul)
#undef TESSERA_MUTATE_ARITH
TESSERA_MUTATE_BINARY(Div)
TESSERA_MUTATE_BINARY(Mod)
TESSERA_MUTATE_BINARY(Min)
TESSERA_MUTATE_BINARY(Max)
TESSERA_MUTATE_BINARY(EQ)
TESSERA_MUTATE_BINARY(NE)
TESSERA_MUTATE_BINARY(LT)
TESSERA_MUTATE_BINARY(LE)
TESSERA_MUTATE_BINARY(GT)
TESSERA_MUTATE_BINARY(GE)
TESSERA_MUTATE_BINARY(And)
TESSERA_MUTATE_BINARY(Or)
#undef TESSERA_MUTATE_BINARY

Expr IRMutator::visit(const Not *op, const Expr &self) {
    Expr a = mutate(op->a);
    return a.same_as(op->a) ? self : Not::make(std::move(a));
}

Expr IRMutator::visit(const Select *op, const Expr &self) {
    Expr c = mutate(op->condition), a = mutate(op->true_value), b = mutate(op->false_value);
    if (c.same_as(op->condition) && a.same_as(op->true_value) && b.same_as(op->false_value))
        return self;
    return Select::make(std::move(c), std::move(a), std::move(b));
}

Expr IRMutator::visit(const Call *op, const Expr &self) {
    std::vector<Expr> args;
    if (!mutate_all(*this, op->args, args)) return self;
    return rebuild_call(op, std::move(args));
}

Expr IRMutator::visit(const Let *op, const Expr &self) {
    Expr v = mutate(op->value), b = mutate(op->body);
    if (v.same_as(op->value) && b.same_as(op->body)) return self;
    return Let::make(op->name, std::move(v), std::move(b));
}

Expr IRMutator::visit(const Load *op, const Expr &self) {
    Expr i = mutate(op->index);
    return i.same_as(op->index) ? self : Load::make(op->type, op->buffer, std::move(i));
}

Expr IRMutator::visit(const Ramp *op, const Expr &self) {
    Expr b = mutate(op->base), s = mutate(op->stride);
    if (b.same_as(op->base) && s.same_as(op->stride)) return self;
    return Ramp::make(std::move(b), std::move(s), op->lanes);
}

Expr IRMutator::visit(const Broadcast *op, const Expr &self) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? self : Broadcast::make(std::move(v), op->lanes);
}

std::shared_ptr<const Provenance> IRMutator::mutate_provenance(
    const std::shared_ptr<const Provenance> &p) {
    if (!p) return p;
    std::vector<Expr> coords;
    bool changed = mutate_all(*this, p->coords, coords);
    std::vector<std::pair<std::string, Expr>> rvars;
    for (const auto &[name, value] : p->rvars) {
        Expr v = mutate(value);
        changed = changed || !v.same_as(value);
        rvars.emplace_back(name, std::move(v));
    }
    if (!changed) return p;
    auto q = std::make_shared<Provenance>(*p);
    q->coords = std::move(coords);
    q->rvars = std::move(rvars);
    return q;
}

Stmt IRMutator::visit(const LetStmt *op, const Stmt &self) {
    Expr v = mutate(op->value);
    Stmt b = mutate(op->body);
    if (v.same_as(op->value) && b.same_as(op->body)) return self;
    return LetStmt::make(op->name, std::move(v), std::move(b));
}

Stmt IRMutator::visit(const AssertStmt *op, const Stmt &self) {
    Expr c = mutate(op->condition);
    std::vector<Expr> msg;
    bool changed = mutate_all(*this, op->message, msg);
    if (!changed && c.same_as(op->condition)) return self;
    return AssertStmt::make(std::move(c), std::move(msg));
}

Stmt IRMutator::visit(const For *op, const Stmt &self) {
    Expr mn = mutate(op->min), ex = mutate(op->extent);
    Stmt b = mutate(op->body);
    if (mn.same_as(op->min) && ex.same_as(op->extent) && b.same_as(op->body)) return self;
    return For::make(op->name, std::move(mn), std::move(ex), op->for_type, std::move(b), op->loop);
}

Stmt IRMutator::visit(const Store *op, const Stmt &self) {
    Expr v = mutate(op->value), i = mutate(op->index);
    auto p = mutate_provenance(op->provenance);
    if (v.same_as(op->value) && i.same_as(op->index) && p == op->provenance) return self;
    return Store::make(op->buffer, std::move(v), std::move(i), std::move(p));
}

Stmt IRMutator::visit(const Provide *op, const Stmt &self) {
    Expr v = mutate(op->value);
    std::vector<Expr> args;
    bool changed = mutate_all(*this, op->args, args);
    auto p = mutate_provenance(op->provenance);
    if (!changed && v.same_as(op->value) && p == op->provenance) return self;
    return Provide::make(op->name, std::move(v), std::move(args), std::move(p));
}

Stmt IRMutator::visit(const Allocate *op, const Stmt &self) {
    std::vector<Expr> ex;
    bool changed = mutate_all(*this, op->extents, ex);
    Stmt b = mutate(op->body);
    if (!changed && b.same_as(op->body)) return self;
    return Allocate::make(op->name, op->type, std::move(ex), std::move(b));
}

Stmt IRMutator::visit(const Realize *op, const Stmt &self) {
    Region bounds;
    bool changed = false;
    for (const Range &r : op->bounds) {
        Range m{mutate(r.min), mutate(r.extent)};
        changed = changed || !m.min.same_as(r.min) || !m.extent.same_as(r.extent);
        bounds.push_back(std::move(m));
    }
    Stmt b = mutate(op->body);
    if (!changed && b.same_as(op->body)) return self;
    return Realize::make(op->name, op->type, std::move(bounds), std::move(b));
}

Stmt IRMutator::visit(const Block *op, const Stmt &self) {
    Stmt a = mutate(op->first), b = mutate(op->rest);
    if (a.same_as(op->first) && b.same_as(op->rest)) return self;
    return Block::make(std::move(a), std::move(b));
}

Stmt IRMutator::visit(const IfThenElse *op, const Stmt &self) {
    Expr c = mutate(op->condition);
    Stmt t = mutate(op->then_case), e = mutate(op->else_case);
    if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case))
        return self;
    if (!t.defined()) {
        if (!e.defined()) return Stmt();
        return IfThenElse::make(Not::make(std::move(c)), std::move(e));
    }
    return IfThenElse::make(std::move(c), std::move(t), std::move(e));
}

Stmt IRMutator::visit(const Evaluate *op, const Stmt &self) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? self : Evaluate::make(std::move(v));
}

Stmt IRMutator::visit(const Free *, const Stmt &self) { return self; }

Stmt IRMutator::visit(const ProducerConsumer *op, const Stmt &self) {
    Stmt b = mutate(op->body);
    if (b.same_as(op->body)) return self;
    if (!b.defined()) return Stmt();
    return ProducerConsumer::make(op->name, op->is_producer, std::move(b));
}

}  // namespace tessera::ir
