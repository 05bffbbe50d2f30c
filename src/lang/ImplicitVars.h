#pragma once
// Halide's implicit arguments: the placeholder `_` in a call stands for the callee's
// remaining dimensions, as the implicit Vars `_0`, `_1`, ... (also appended to a call with
// fewer coordinates than dimensions), and `_` on the left of a definition for the
// implicit Vars its value uses.

#include <string>
#include <vector>

#include "ir/Function.h"
#include "tessera/Expr.h"

namespace tessera::lang {

/** Whether `e` is the placeholder `_`. */
bool is_placeholder(const Expr &e);

/** k for the implicit Var `_k`, -1 for any other name. */
int implicit_index(const std::string &name);

/** A call's coordinates, with `_` (at most one) replaced by as many implicit Vars as the
 * callee has dimensions left, or, without `_`, implicit Vars appended up to `dims`.
 * `dims` < 0: the callee's dimensions are not known (an undefined Func), and `_` is a
 * CompileError. */
std::vector<Expr> call_coordinates(std::vector<Expr> args, int dims, const std::string &callee);

/** The left-hand side of the next definition of `func`, with `_` (at most one) replaced
 * by the implicit Vars that `value` uses, `_0` to the highest. Where the value uses
 * implicit Vars that the left-hand side does not bind, a CompileError names the call that
 * has fewer coordinates than its callee has dimensions (the usual mistake). */
std::vector<Expr> definition_arguments(std::vector<Expr> args, const Expr &value, const ir::FunctionData &func);

}  // namespace tessera::lang
