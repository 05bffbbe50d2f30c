#pragma once
// Recognising updates whose iterations may run in any order or be regrouped: an update
// f(lhs) = f(lhs) op e where op is commutative and associative on its type and nothing
// but that one term reads f. On integers (and bools) +, *, min, max, &, |, ^ qualify under
// wrap-around arithmetic; on floats none does, because reassociating float arithmetic
// changes results (docs/semantics.md).

#include <optional>

#include "ir/Function.h"

namespace tessera::analysis {

struct AssociativeUpdate {
    enum class Op { Add, Mul, Min, Max, And, Or, BitAnd, BitOr, BitXor };
    Op op;
    Expr self;   // the f(lhs) term
    Expr other;  // e
};

/** The update's operator and operands, if definition `d` of `f` has that form. */
std::optional<AssociativeUpdate> associative_update(const ir::FunctionData &f, const ir::Definition &d);

/** x op y, for the operator of an associative update. */
Expr apply(AssociativeUpdate::Op op, const Expr &x, const Expr &y);

/** The identity of the operator on type t (0 for +, 1 for *, the type's max for min, ...). */
Expr identity(AssociativeUpdate::Op op, Type t);

}  // namespace tessera::analysis
