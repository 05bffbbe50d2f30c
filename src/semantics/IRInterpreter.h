#pragma once
// The IR interpreter: executes a lowered pipeline (src/ir/LoweredPipeline.h) on concrete buffers,
// with the meaning docs/architecture.md gives lowered code ("What lowered code means") and
// every state where that meaning is stuck made loud.
//
// * Fresh allocations are POISONED (ε_mem): every element carries a poison bit until it is
//   stored to. Reading a poisoned element is allowed and yields a poisoned value. Poison
//   propagates: the result of any operation with a poisoned operand is poisoned, except
//   `select`, whose result is poisoned only if its condition or the operand it chooses is
//   (lane by lane). Storing a poisoned value into an allocation is fine.
// * Every Load and Store is bounds-checked against its allocation, or against the elements
//   of the input/output buffer (strided, possibly with gaps). An access outside is an
//   InternalError naming the buffer, the lane, the index and the valid range: lowering must
//   never produce one (memory safety, docs/semantics.md §11).
// * A poisoned value used as a Load/Store index, a loop bound, an allocation extent, or an
//   if/assert condition is an InternalError: control and indices must be computed from
//   valid data (regression R4, docs/semantics.md §14).
// * A loop with a negative extent is an InternalError (lowered code checks RDom extents at
//   start-up, so it never reaches such a loop).
// * A false AssertStmt throws RuntimeError with the concatenated message (the compiled
//   pipeline returns an error code there).
// * After the run, no element of the output window (the output buffer) may hold poison:
//   with RunOptions::poison_output the output starts poisoned, so a window point the code
//   never writes is reported too.
// * Index arithmetic marked as staying in the int32 range (src/lower/MarkIndexArithmetic.cpp)
//   that leaves it is an InternalError.
// * With RunOptions::prophecy, every annotated store is checked against the reference
//   semantics (src/semantics/Prophecy.h documents exactly what is checked).
//
// Scalars and vectors (Ramp, Broadcast, lanes > 1 Loads, Stores and operators) are
// evaluated lane by lane with the operators of src/ir/Scalar.h. Parallel loops run
// serially, first to last or, with RunOptions::reverse_parallel, last to first: the order
// of their iterations is unspecified (the legality rules of schedules make it irrelevant),
// so code whose result depends on it (two iterations writing one element, or one reading
// what another writes) shows as a difference between the two orders.

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/LoweredPipeline.h"
#include "semantics/Prophecy.h"
#include "ir/Scalar.h"

namespace tessera::semantics {

using ir::Scalar;

/** The value of one pipeline argument, in the order of LoweredPipeline::args. */
struct ArgValue {
    /** InputBuffer and OutputBuffer arguments: the caller's memory. For an input that is a
     * Buffer read by the algorithm (Argument::buffer), null means that Buffer itself. */
    std::shared_ptr<ir::BufferData> buffer;
    /** Param arguments: the value, of type `type` (converted to the Param's type as by a
     * cast if the types differ). */
    Scalar scalar{};
    Type type;

    static ArgValue of_buffer(std::shared_ptr<ir::BufferData> b);
    static ArgValue of_int(int64_t v);     // Int(64)
    static ArgValue of_uint(uint64_t v);   // UInt(64)
    static ArgValue of_float(double v);    // Float(64)
    static ArgValue of_scalar(Type t, Scalar v);
    /** A Param's current value. */
    static ArgValue of_param(const ir::ParamData &p);
};

/** What a run observed (filled when RunOptions::stats is set). */
struct RunStats {
    int64_t stores = 0;           // element stores executed (one per lane)
    int64_t poisoned_stores = 0;  // of which stored a poisoned value
    int64_t loads = 0;            // element loads executed
    int64_t poisoned_loads = 0;   // of which read a poisoned element
    ProphecyStats prophecy;       // with RunOptions::prophecy
};

struct RunOptions {
    /** Run the dynamic prophecy check (src/semantics/Prophecy.h). */
    bool prophecy = false;
    /** With `prophecy`: a Store without a provenance annotation is an InternalError
     * (every store created by lowering carries one: src/ir/VerifyLowered.h). */
    bool require_provenance = true;
    /** The output buffer starts poisoned (as if freshly allocated), so that window points
     * the pipeline never writes are reported. If false it starts as the caller's data. */
    bool poison_output = true;
    /** After the run, an element of the output window holding poison is an InternalError. */
    bool check_output_poison = true;
    /** Filled at the end of a run that returns normally (may be null). */
    RunStats *stats = nullptr;
    /** Run the iterations of parallel loops last to first (see above). */
    bool reverse_parallel = false;
    /** Stop with WorkLimitExceeded after this many element stores (0: no limit). The
     * interpreter is orders of magnitude slower than compiled code, and a default schedule
     * that recomputes a reduction per consumer point can take minutes in it; tests over
     * random programs bound their time with this and count the programs they skip. */
    int64_t max_stores = 0;
};

/** Thrown by run() when RunOptions::max_stores is reached. Not a failure of the pipeline. */
struct WorkLimitExceeded : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/** Executes `p` with the given arguments (one per p.args, in order). Writes the output
 * buffer. Throws RuntimeError where the pipeline's assertions fail (and for arguments
 * that do not fit p.args), InternalError where the lowered code breaks an invariant
 * above. */
void run(const ir::LoweredPipeline &p, const std::vector<ArgValue> &args, const RunOptions &options = {});

/** Arguments for `p` taken from the algorithm objects: each Param's current value, the
 * Buffer bound to each ImageParam, each Buffer read by the algorithm, and `output` for
 * the output buffer. */
std::vector<ArgValue> default_arguments(const ir::LoweredPipeline &p, std::shared_ptr<ir::BufferData> output);
/** The same for a pipeline with several output buffers (a Func with several values), in
 * the order of its output arguments. */
std::vector<ArgValue> default_arguments(const ir::LoweredPipeline &p,
                                        const std::vector<std::shared_ptr<ir::BufferData>> &outputs);
/** The same, with the buffers of some ImageParams given here instead of those bound to
 * them (the extern Funcs' images, src/lang/Extern.cpp). */
std::vector<ArgValue> default_arguments(const ir::LoweredPipeline &p,
                                        const std::vector<std::shared_ptr<ir::BufferData>> &outputs,
                                        const std::map<const ir::InputData *, std::shared_ptr<ir::BufferData>> &inputs);
/** The same for the arguments `args` of the pipeline named `pipeline` (a compiled
 * pipeline's, without a copy of them). */
std::vector<ArgValue> default_arguments(const std::string &pipeline, const std::vector<ir::PipelineArgument> &args,
                                        const std::vector<std::shared_ptr<ir::BufferData>> &outputs,
                                        const std::map<const ir::InputData *, std::shared_ptr<ir::BufferData>> &inputs);

}  // namespace tessera::semantics
