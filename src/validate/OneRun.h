#pragma once
// Refuting at one run (docs/validation.md, "Refuting at one run"): where the model leaves
// a construct out at every run, the code at one run of the pipeline, with its integer
// parameters fixed, can make it constants the model reads; and the IR interpreter can run
// the code there and show memory no store wrote reaching the output.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/LoweredPipeline.h"
#include "validate/StructureChecks.h"

namespace tessera::validator {

/** The code of a pipeline at one run, and the run. */
struct OneRun {
    ir::LoweredPipeline code;
    std::string words;                      // "f.extent.0 = 5, ...", for a counterexample
    std::map<std::string, int64_t> values;  // the integer parameters fixed
};

/** Which run at_one_run picks, among those the entry checks allow with every extent at
 * least 1: one with small values; one with windows near the origin and extents near
 * values that differ from one dimension to the next (about 8, 25, 42); one with windows
 * near the origin and extents of about 64. */
enum class RunKind { Small, Spread, Large };

/** The code of `p` at one run of `kind`: its integer parameters (buffer fields and Params)
 * fixed to the run's values, both
 * as entry assertions (so that every check, and the window, takes them) and as lets around
 * the body (so that an expression of them is a constant: a division by a parameter becomes
 * a division by a constant). nullopt if no such run was found. */
std::optional<OneRun> at_one_run(const ir::LoweredPipeline &p, const StructureOptions &options, RunKind kind);

/** The most element stores a replay runs: the IR interpreter is slow, and a run that
 * would take longer shows nothing. */
constexpr int64_t kMaxReplayStores = 4'000'000;
/** The most elements of a buffer a replay allocates. */
constexpr int64_t kMaxReplayElements = 4'000'000;

/** Runs `p` by the IR interpreter at `run` (buffers of the run's shapes, inputs filled
 * with a fixed pattern, the other Params at their current values; the output starts
 * poisoned), with the prophecy check (src/semantics/Prophecy.h). Returns the
 * interpreter's report if the run shows memory no store wrote reaching the output window
 * (or an index or condition computed from it), an access outside its storage, or a store
 * of another value than the reference semantics defines at its point; else "". */
std::string replay(const ir::LoweredPipeline &p, const OneRun &run);
/** The same, with a limit on the stores, and whether the run took place and ended
 * (`completed`): false when a buffer of the run is too large, an argument cannot be made,
 * an entry check fails or the limit is reached, so that an empty report says nothing. */
std::string replay(const ir::LoweredPipeline &p, const OneRun &run, bool &completed, int64_t max_stores);

/** A read outside its region that the polyhedral model finds (a Refuted `bounds` check,
 * `run` its example's sizes and parameters), replayed: the IR interpreter runs the code at
 * the example and checks every access against its storage, and follows memory no store
 * wrote to the window. What the run shows confirms the verdict (and is added to its
 * detail); a run that completes and shows nothing means the example is not one (the model
 * of some index or region is looser than the code), and the check becomes Unknown. */
void confirm_bounds(const ir::LoweredPipeline &p, const OneRun &run, CheckResult &bounds);

}  // namespace tessera::validator
