#pragma once
// Read-only traversal of IR trees. Override the `visit` overloads of the nodes you care
// about; the defaults visit every child, in evaluation order.

#include "ir/IR.h"

namespace tessera::ir {

// X-macros listing every node type, so that the visitor, the mutator, the printer and
// the equality test cannot forget one.
#define TESSERA_FOR_EACH_EXPR(X)                                                        \
    X(IntImm) X(UIntImm) X(FloatImm) X(StringImm) X(Variable) X(Cast) X(Add) X(Sub)    \
    X(Mul) X(Div) X(Mod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And)      \
    X(Or) X(Not) X(Select) X(Call) X(Let) X(Load) X(Ramp) X(Broadcast)
#define TESSERA_FOR_EACH_STMT(X)                                                        \
    X(LetStmt) X(AssertStmt) X(For) X(Store) X(Provide) X(Allocate) X(Realize) X(Block) \
    X(IfThenElse) X(Evaluate) X(ProducerConsumer) X(Free)

class IRVisitor {
public:
    virtual ~IRVisitor() = default;
    void include(const Expr &e);
    void include(const Stmt &s);

protected:
#define TESSERA_DECLARE_VISIT(N) virtual void visit(const N *);
    TESSERA_FOR_EACH_EXPR(TESSERA_DECLARE_VISIT)
    TESSERA_FOR_EACH_STMT(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
    /** Visits the expressions of a store's provenance annotation (off by default: most
     * analyses are about the code, not the annotation). */
    virtual void visit_provenance(const Provenance &) {}
};

}  // namespace tessera::ir
