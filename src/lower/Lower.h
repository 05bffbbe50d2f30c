#pragma once
// Lowering: from a Func (algorithm + schedule) to one imperative statement over flat
// buffers — the input of the IR interpreter and of the C emitter.
//
// The contract of the result is src/ir/LoweredPipeline.h; verify_lowered
// (src/lower/VerifyLowered.h) checks it.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/LoweredPipeline.h"
#include "tessera/Argument.h"

namespace tessera::lower {

struct LowerOptions {
    /** Run the provenance-preserving checks of each pass (tests). */
    bool check_invariants = false;
    /** The caller's order of the inputs (ahead-of-time compilation). Every Param and
     * ImageParam the pipeline uses must be listed (CompileError otherwise); listed inputs
     * the pipeline does not use stay parameters; Buffers read but not listed are embedded.
     * Unset: the order of src/ir/LoweredPipeline.h. */
    std::optional<std::vector<tessera::Argument>> arguments;
};

/** Lower the pipeline computing `output` (its dependencies, with their schedules). */
ir::LoweredPipeline lower(const std::shared_ptr<ir::FunctionData> &output, const LowerOptions &options = {});

}  // namespace tessera::lower
