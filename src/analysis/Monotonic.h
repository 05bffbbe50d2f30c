#pragma once
// Monotonicity of an integer index expression in one variable: how it changes when the
// variable grows, with everything else fixed. Used by the sliding window, which needs the
// region a Func computes per iteration to move forward. Index arithmetic is assumed not to
// wrap (the contract of index expressions, docs/semantics.md).

#include <string>

#include "ir/IR.h"

namespace tessera::analysis {

enum class Monotonic { Constant, Increasing, Decreasing, Unknown };

/** Whether e is constant, non-decreasing or non-increasing in `var` (Unknown if neither can
 * be shown). "Increasing" means non-decreasing. */
Monotonic monotonic_in(const Expr &e, const std::string &var);

}  // namespace tessera::analysis
