#pragma once
// The simplifier: constant folding and algebraic rewrites that are exact under
// docs/semantics.md (wrap-around integers of every width, Euclidean division with
// x / 0 == 0, IEEE floats without reassociation). Every rewrite preserves the value of the
// expression bit for bit, for every value of its free variables; Simplify.cpp lists the
// rules and explains why each non-obvious one is valid under wrap-around.
//
// Constant folding goes through ir::binary / cast / intrinsic, so a folded
// constant is exactly what the operation computes at run time. Calls of the platform math
// library (sin, exp, pow, ...) are never folded (docs/semantics.md §3).
//
// Statements: loops of extent 0, if(true) / if(false), assert(true), evaluations of
// constants and empty blocks are removed; lets of constants and variables are
// substituted (into provenance annotations too: the IRMutator default for stores);
// lets whose variable is unused are dropped. The bounds of loop variables (constant min
// and extent) and of let variables are used to prove that arithmetic cannot wrap, which
// some rules need.

#include "analysis/Interval.h"
#include "ir/IR.h"

namespace tessera::analysis {

/** The simplified expression (the same node if nothing changed). */
Expr simplify(const Expr &e);

/** The same, knowing that each variable in `bounds` lies in its interval. */
Expr simplify(const Expr &e, const ConstBoundsScope &bounds);

/** The simplified statement. A statement that simplifies away entirely (a loop of extent
 * 0, an if(false) without else, ...) is returned as a no-op `Evaluate(0)`, never as an
 * undefined Stmt. */
ir::Stmt simplify(const ir::Stmt &s);

/** Does the condition simplify to true (for every value of its variables)? False means
 * "not proven", not "false". */
bool can_prove(const Expr &condition);
bool can_prove(const Expr &condition, const ConstBoundsScope &bounds);

/** Simplification of coordinate and bound arithmetic (bounds inference, sliding
 * windows): as simplify, and int32 and int64 additions of constants are taken not to wrap,
 * so that min(x, x + 1) is x. This is the contract of the interval analysis
 * (src/analysis/Interval.h): coordinates a pipeline computes stay inside their type. */
Expr simplify_index(const Expr &e);
bool can_prove_index(const Expr &condition);

/** A no-op statement: Evaluate(0). */
ir::Stmt make_no_op();
bool is_no_op(const ir::Stmt &s);

}  // namespace tessera::analysis
