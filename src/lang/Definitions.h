#pragma once
// Adding a definition to a Func, with the validity checks (src/lang/Validity.h): what
// `f(args) = value` does, for the API's other ways of defining Funcs (inline reductions).

#include <memory>
#include <vector>

#include "ir/Function.h"
#include "tessera/Func.h"

namespace tessera::lang {

/** Adds `args` = `value` as f's pure definition (the first) or its next update. An update
 * iterates the RDom its RVars belong to, or `over` when given (which `value` need not use;
 * CompileError if it uses another). */
Stage add_definition(const std::shared_ptr<ir::FunctionData> &f, std::vector<Expr> args, const Expr &value,
                     const std::shared_ptr<ir::RDomData> &over = nullptr);

/** The value of a definition giving the values of `t`: tuple(t[0], ...) for two or more
 * (src/lang/Tuple.cpp), t[0] alone for one. */
Expr tuple_value(const Tuple &t);

}  // namespace tessera::lang
