#pragma once
// Lowering: from a Func (algorithm + schedule) to one imperative statement over flat
// buffers — the input of the IR interpreter and of the C emitter.
//
// The contract of the result is src/ir/LoweredPipeline.h; verify_lowered
// (src/lower/VerifyLowered.h) checks it.

#include <functional>
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
    /** Check the contract of lowered code (src/ir/VerifyLowered.h) after every pass from
     * storage flattening on, and in full (names bound once) after the last. Also on in
     * debug builds and when $TESSERA_CHECK_INVARIANTS is set (the test suite sets it). */
    bool check_invariants = false;
    /** The caller's order of the inputs (ahead-of-time compilation). Every Param and
     * ImageParam the pipeline uses must be listed (CompileError otherwise); listed inputs
     * the pipeline does not use stay parameters; Buffers read but not listed are embedded.
     * Unset: the order of src/ir/LoweredPipeline.h. */
    std::optional<std::vector<tessera::Argument>> arguments;
    /** Called with the pipeline as each pass from storage flattening on leaves it (the
     * validator's per-pass mode, to find the pass that broke a proof). */
    std::function<void(const ir::LoweredPipeline &, const char *pass)> after_pass;
    /** Fuse float multiplies and adds into fused multiply-adds (src/lower/ContractFloats.h):
     * the target's fp_contract feature; off by default (docs/semantics.md). */
    bool contract_floats = false;
    /** The JIT: the Buffers the pipeline reads are those it will run on, so their mins,
     * extents and strides are compiled in as constants (src/lower/SpecializeBufferShapes.cpp). */
    bool fixed_buffer_shapes = false;
};

/** Whether lowering checks its invariants in every pipeline (a debug build, or
 * $TESSERA_CHECK_INVARIANTS set and not 0). */
bool invariant_checks_requested();

/** Lower the pipeline computing `output` (its dependencies, with their schedules). */
ir::LoweredPipeline lower(const std::shared_ptr<ir::FunctionData> &output, const LowerOptions &options = {});

}  // namespace tessera::lower
