#pragma once
// The value check, first part: for a pipeline whose output stores compute their values from
// the inputs alone (every other Func inlined), each store to the output writes, at the cell
// of the point its provenance names, the value the algorithm defines there, for every
// instance of the store and every parameter value the entry assertions allow. Decided by
// Z3 on bit-vectors with Tessera's semantics (src/validate/Smt.h): the inputs are
// uninterpreted functions of their coordinates, the algorithm's Funcs are unfolded into
// their definitions. Integers and bools only for now; floats, updates, intrinsics and
// values read from intermediate storage answer Unknown.

#include "ir/LoweredPipeline.h"
#include "validate/LoopNest.h"
#include "validate/StructureChecks.h"

namespace tessera::validator {

/** `rlimit`: Z3's resource limit per query (deterministic, unlike a timeout). */
CheckResult check_values(IslContext &ctx, const ir::LoweredPipeline &p, const LoopNest &nest, unsigned rlimit);

}  // namespace tessera::validator
