#pragma once
// The validity rules of the algorithm language (docs/semantics.md §8), checked when a
// definition is made. Each violation is a CompileError naming the Func, the definition
// and the offending argument in the user's own names.

#include <memory>
#include <vector>

#include "ir/Function.h"

namespace tessera::lang {

/** Checks a pure definition `f(args) = value` of a Func that has none yet. */
void check_pure_definition(const ir::FunctionData &f, const std::vector<Expr> &args, const Expr &value);

/** Checks update definition number `update_index` (0-based) `f(args) = value`, with the
 * RDom it uses (may be null). Fills `pure_dims`. */
void check_update_definition(const ir::FunctionData &f, int update_index, const std::vector<Expr> &args,
                             const Expr &value, const std::shared_ptr<ir::RDomData> &rdom,
                             std::vector<bool> &pure_dims);

/** The unique RDom used in a definition (null if none); CompileError if several. */
std::shared_ptr<ir::RDomData> find_rdom(const ir::FunctionData &f, int stage, const std::vector<Expr> &args,
                                         const Expr &value);

/** Coerce Func or image call coordinates to int32 (CompileError for non-integers). */
std::vector<Expr> coerce_coordinates(std::vector<Expr> args, const std::string &callee);

/** Is e a startup expression (constants, Params and ImageParam bounds only)? */
bool is_startup_expression(const Expr &e);

}  // namespace tessera::lang
