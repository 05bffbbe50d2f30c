#pragma once
// Computing an extern Func (Func::define_extern) over a region: the protocol its C
// function follows (docs/semantics.md §7.6), shared by realize (the compiled path) and the
// reference interpreter, which differ only in how they compute the Funcs it reads and
// the values of its scalar arguments.
//
//   1. If it reads Funcs: a bounds query. Each Func input is a buffer with no memory
//      (host null) whose dims the function sets to the region it reads (they start as the
//      output's region, dimension by dimension); the output too has no memory.
//   2. Each Func input is computed over the region asked for; Buffers and ImageParams are
//      passed as they are; scalars by value.
//   3. The call, with the output's memory: a non-zero return is a RuntimeError.

#include <functional>
#include <memory>
#include <vector>

#include "ir/Function.h"

namespace tessera::semantics {

/** How one run gets the extern function's arguments, each by its position in
 * ExternDefinition::args. */
struct ExternInputs {
    /** Computes Func argument i over the window of `dst` into it. */
    std::function<void(size_t i, const std::shared_ptr<ir::BufferData> &dst)> realize;
    /** The memory of Buffer or ImageParam argument i as this run sees it. */
    std::function<std::shared_ptr<ir::BufferData>(size_t i)> buffer;
    /** The value of scalar argument i (a startup expression). */
    std::function<ir::Scalar(size_t i)> scalar;
};

/** Fills `output` (whose dims give the region; its type is f's) with extern Func f's
 * values. */
void compute_extern(const ir::FunctionData &f, const std::shared_ptr<ir::BufferData> &output, const ExternInputs &inputs);

}  // namespace tessera::semantics
