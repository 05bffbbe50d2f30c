#include "ir/IRVisitor.h"

#include "ir/Check.h"

namespace tessera::ir {

void IRVisitor::include(const Expr &e) {
    if (!e.defined()) return;
    switch (e->kind) {
#define TESSERA_DISPATCH(N) \
    case ExprKind::N: visit(static_cast<const N *>(e.get())); return;
        TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
    }
    TESSERA_INTERNAL_ERROR("unknown expression kind");
}

void IRVisitor::include(const Stmt &s) {
    if (!s.defined()) return;
    switch (s->kind) {
#define TESSERA_DISPATCH(N) \
    case StmtKind::N: visit(static_cast<const N *>(s.get())); return;
        TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
    }
    TESSERA_INTERNAL_ERROR("unknown statement kind");
}

void IRVisitor::visit(const IntImm *) {}
void IRVisitor::visit(const UIntImm *) {}
void IRVisitor::visit(const FloatImm *) {}
void IRVisitor::visit(const StringImm *) {}
void IRVisitor::visit(const Variable *) {}
void IRVisitor::visit(const Cast *op) { include(op->value); }
#define TESSERA_VISIT_BINARY(N) \
    void IRVisitor::visit(const N *op) { include(op->a); include(op->b); }
TESSERA_VISIT_BINARY(Add)
TESSERA_VISIT_BINARY(Sub)
TESSERA_VISIT_BINARY(Mul)
TESSERA_VISIT_BINARY(Div)
TESSERA_VISIT_BINARY(Mod)
TESSERA_VISIT_BINARY(Min)
TESSERA_VISIT_BINARY(Max)
TESSERA_VISIT_BINARY(EQ)
TESSERA_VISIT_BINARY(NE)
TESSERA_VISIT_BINARY(LT)
TESSERA_VISIT_BINARY(LE)
TESSERA_VISIT_BINARY(GT)
TESSERA_VISIT_BINARY(GE)
TESSERA_VISIT_BINARY(And)
TESSERA_VISIT_BINARY(Or)
#undef TESSERA_VISIT_BINARY
void IRVisitor::visit(const Not *op) { include(op->a); }
void IRVisitor::visit(const Select *op) {
    include(op->condition);
    include(op->true_value);
    include(op->false_value);
}
void IRVisitor::visit(const Call *op) {
    for (const Expr &a : op->args) include(a);
}
void IRVisitor::visit(const Let *op) {
    include(op->value);
    include(op->body);
}
void IRVisitor::visit(const Load *op) { include(op->index); }
void IRVisitor::visit(const Ramp *op) {
    include(op->base);
    include(op->stride);
}
void IRVisitor::visit(const Broadcast *op) { include(op->value); }

void IRVisitor::visit(const LetStmt *op) {
    include(op->value);
    include(op->body);
}
void IRVisitor::visit(const AssertStmt *op) {
    include(op->condition);
    for (const Expr &m : op->message) include(m);
}
void IRVisitor::visit(const For *op) {
    include(op->min);
    include(op->extent);
    include(op->body);
}
void IRVisitor::visit(const Store *op) {
    include(op->value);
    include(op->index);
    if (op->provenance) visit_provenance(*op->provenance);
}
void IRVisitor::visit(const Provide *op) {
    include(op->value);
    for (const Expr &a : op->args) include(a);
    if (op->provenance) visit_provenance(*op->provenance);
}
void IRVisitor::visit(const Allocate *op) {
    for (const Expr &e : op->extents) include(e);
    include(op->body);
}
void IRVisitor::visit(const Realize *op) {
    for (const Range &r : op->bounds) {
        include(r.min);
        include(r.extent);
    }
    include(op->body);
}
void IRVisitor::visit(const Block *op) {
    include(op->first);
    include(op->rest);
}
void IRVisitor::visit(const IfThenElse *op) {
    include(op->condition);
    include(op->then_case);
    include(op->else_case);
}
void IRVisitor::visit(const Evaluate *op) { include(op->value); }
void IRVisitor::visit(const ProducerConsumer *op) { include(op->body); }
void IRVisitor::visit(const Free *) {}

}  // namespace tessera::ir
