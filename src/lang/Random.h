#pragma once
// The random numbers of a definition (src/lang/Random.cpp).

#include <memory>
#include <vector>

#include "ir/Function.h"
#include "tessera/Expr.h"

namespace tessera::lang {

/** Whether `e` calls random_float, random_uint or random_int not yet given coordinates. */
bool uses_random(const Expr &e);

/** `value` with each random call given the definition's coordinates: the left-hand side
 * `args` and the RVars of `rdom` (if any). */
Expr resolve_random(const Expr &value, const std::vector<Expr> &args, const std::shared_ptr<ir::RDomData> &rdom);

}  // namespace tessera::lang
