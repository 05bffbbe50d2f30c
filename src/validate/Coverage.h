#pragma once
// The coverage check: every point of the output window is written, for every value of the
// parameters that the entry assertions allow (docs/validation.md, "Coverage").

#include "ir/LoweredPipeline.h"
#include "validate/Isl.h"
#include "validate/LoopNest.h"
#include "validate/StructureChecks.h"

namespace tessera::validator {

/** Proved if the stores to the output write every point of its window; Refuted with a
 * point that none writes; Unknown if a store is not modelled or isl's limit is reached. */
CheckResult check_coverage(IslContext &ctx, const ir::LoweredPipeline &p, const LoopNest &nest);

}  // namespace tessera::validator
