#pragma once
// A lowered pipeline: one imperative statement over flat buffers, and the arguments of the
// function it becomes. It is what lowering produces (src/lower/Lower.h) and what the IR
// interpreter, the C emitter and the validator take.
//
// The contract of a lowered pipeline (shared by src/semantics/IRInterpreter and
// src/codegen):
//
// * `args` lists the pipeline's arguments in calling order: every input buffer
//   (ImageParams and Buffers read by the algorithm, in order of first use), then every
//   scalar Param (sorted by name), then the output buffer (always last).
// * For every buffer argument (inputs and output) named B with D dimensions, the body may
//   read the Int(32) variables `B.min.i` and `B.extent.i` and the Int(64) variable
//   `B.stride.i` (i in [0, D)): they hold the buffer descriptor's fields and are bound by
//   the caller (the emitted C defines them at function entry). Elements of B are read with
//   Load(type, "B", index) and written with Store("B", value, index): `index` is an Int(64)
//   element offset from the buffer's host pointer, i.e. sum_i (coord_i - B.min.i) *
//   B.stride.i.
// * Scalar Params are Variables of VarKind::Param, named by the Param's name.
// * Internal storage is an Allocate(name, type, {extent_0, ...}) (Int(64) extents,
//   dense, dimension 0 innermost) whose body refers to it with Load/Store by name.
//   Fresh allocations hold unspecified values (the IR interpreter poisons them).
// * An AssertStmt whose condition is false ends the pipeline: the message parts
//   (StringImms and scalar values) are concatenated, passed to the error handler, and
//   the pipeline returns a non-zero error code.
// * Stores carry provenance annotations (ir::Provenance).

#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace tessera::ir {

struct PipelineArgument {
    enum class Kind { InputBuffer, Param, OutputBuffer };
    Kind kind;
    std::string name;
    Type type;              // element type of a buffer, or the Param's type
    int dimensions = 0;     // buffers only
    std::shared_ptr<BufferData> buffer;  // a Buffer read by the algorithm (bound when run)
    std::shared_ptr<InputData> input;    // an ImageParam
    std::shared_ptr<ParamData> param;    // a Param
    /** A Buffer read by the algorithm that an ahead-of-time caller did not list among the
     * arguments: its contents are compiled into the code and it is not a parameter of the
     * generated function. */
    bool embedded = false;
};

/** The region of an input image that stands for an extern Func (define_extern) which the
 * pipeline reads: [min[i], max[i]] per dimension, in terms of the pipeline's arguments
 * (its output's window `f.min.i`, `f.extent.i`, its Params and other inputs' bounds)
 * after `lets`, in order. Realize computes the extern Func over it before running the
 * pipeline (src/lang/Extern.cpp). */
struct ExternRegion {
    std::string image;
    std::vector<std::pair<std::string, Expr>> lets;
    std::vector<Expr> min, max;
};

struct LoweredPipeline {
    std::string name;  // the output Func's name; the C function is named after it
    std::shared_ptr<FunctionData> output;
    std::vector<PipelineArgument> args;
    ir::Stmt body;
    /** The allocations that took the memory of an enclosing one whose value was dead
     * (src/lower/ReuseAllocations.cpp): (allocation, the allocation whose memory it took). */
    std::vector<std::pair<std::string, std::string>> reused_allocations;
    /** The extern Funcs it reads, as input images, and the region it reads of each. */
    std::vector<ExternRegion> extern_regions;
};

}  // namespace tessera::ir
