#pragma once
// Rebuilding traversal of IR trees. Override `visit` for the nodes you rewrite; the
// defaults mutate the children and rebuild the node only if a child changed, so untouched
// subtrees stay shared.
//
// Provenance annotations are mutated with the same `mutate` as the code, so a pass that
// substitutes a variable in a store also substitutes it in the store's annotation
// (docs/architecture.md, "Identity in lowered code"). A pass that must not touch annotations overrides
// `mutate_provenance`.

#include "ir/IR.h"
#include "ir/IRVisitor.h"

namespace tessera::ir {

class IRMutator {
public:
    virtual ~IRMutator() = default;
    virtual Expr mutate(const Expr &e);
    virtual Stmt mutate(const Stmt &s);

protected:
#define TESSERA_DECLARE_MUTATE(N) virtual Expr visit(const N *op, const Expr &self);
    TESSERA_FOR_EACH_EXPR(TESSERA_DECLARE_MUTATE)
#undef TESSERA_DECLARE_MUTATE
#define TESSERA_DECLARE_MUTATE(N) virtual Stmt visit(const N *op, const Stmt &self);
    TESSERA_FOR_EACH_STMT(TESSERA_DECLARE_MUTATE)
#undef TESSERA_DECLARE_MUTATE
    virtual std::shared_ptr<const Provenance> mutate_provenance(
        const std::shared_ptr<const Provenance> &p);
};

/** A copy of `call` with other arguments (same callee, kind and type). */
Expr rebuild_call(const Call *call, std::vector<Expr> args);

}  // namespace tessera::ir
