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

/** Which stores one call of the value check looks at, and what it tells as it goes. */
struct ValueCheckScope {
    /** The stores to check (all if empty); the nest must model them, and every store
     * writing storage they load from, and every store to the output. */
    std::function<bool(const Statement &)> checks;
    /** Whether to check, after the stores, that the output holds its final values (for
     * an output with updates: one call of the check does it). */
    bool final_values = true;
    /** Told after each store checked. */
    std::function<void()> store_done;
    /** Asked before each store: true when the result is no longer needed (a check of
     * earlier stores, elsewhere, has failed); the check then stops, its result Unknown. */
    std::function<bool()> cancelled;
    /** A nest, in the same isl context, that models every store to the output: what the
     * output's window holds after the pipeline is read off it (where a store to the output
     * reads memory no store wrote, and for the final values). The checked nest if not given. */
    std::function<const LoopNest &()> output_writers;
};

/** What the value check has looked at: stores, the loads they read, and the cases (pieces
 * of the instances) the solver was asked about. */
struct ValueTally {
    int stores = 0, loads = 0, cases = 0;
    /** Whether the output's final values were checked (and hold). */
    bool final_values = false;
};

/** The detail of a Proved value check that looked at `tally`. */
std::string values_proved(const ValueTally &tally);

/** `rlimit`: Z3's resource limit per query (deterministic, unlike a timeout). Where a
 * store is Refuted, `run` (if given) gets the integer parameters of the counterexample.
 * The first store (in program order) that is not Proved decides the result; where every
 * store is, the result is Proved and `tally` (if given) says what was looked at. */
CheckResult check_values(IslContext &ctx, const ir::LoweredPipeline &p, const LoopNest &nest, unsigned rlimit,
                         std::map<std::string, int64_t> *run = nullptr, const ValueCheckScope &scope = {},
                         ValueTally *tally = nullptr);

}  // namespace tessera::validator
