#pragma once
// The value check: each store writes, at the cell of the point its provenance names, the
// value the algorithm defines there (the output's into that point's cell), for every
// instance of the store and every parameter value the entry assertions allow, given the
// values its loads read (from their last writers: src/validate/LastWriter.h). Decided by
// Z3 on bit-vectors with Tessera's semantics (src/validate/Smt.h): the inputs are
// uninterpreted functions of their coordinates, the algorithm's Funcs are unfolded into
// their definitions, floats and intrinsics are uninterpreted operations first, and floats
// IEEE terms where those show a difference (docs/validation.md).

#include <functional>

#include "ir/LoweredPipeline.h"
#include "validate/LoopNest.h"
#include "validate/StructureChecks.h"

namespace tessera::validator {

/** `rlimit`: Z3's resource limit per query (deterministic, unlike a timeout). Where a
 * store is Refuted, `run` (if given) gets the integer parameters of the counterexample.
 * `progress` (if given) hears how many stores are done, every few seconds. */
CheckResult check_values(IslContext &ctx, const ir::LoweredPipeline &p, const LoopNest &nest, unsigned rlimit,
                         std::map<std::string, int64_t> *run = nullptr,
                         const std::function<void(const std::string &)> &progress = {});

}  // namespace tessera::validator
