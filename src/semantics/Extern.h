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

struct ExternInputs {
    /** Computes Func `f` over the window of `dst` into it. */
    std::function<void(const std::shared_ptr<ir::FunctionData> &f, const std::shared_ptr<ir::BufferData> &dst)> realize;
    /** The memory of a Buffer or an ImageParam argument as this run sees it. */
    std::function<std::shared_ptr<ir::BufferData>(const ir::ExternArgument &a)> buffer;
    /** The value of a scalar argument (a startup expression). */
    std::function<ir::Scalar(const Expr &e)> scalar;
};

/** Fills `output` (whose dims give the region; its type is f's) with extern Func f's
 * values. */
void compute_extern(const ir::FunctionData &f, const std::shared_ptr<ir::BufferData> &output, const ExternInputs &inputs);

}  // namespace tessera::semantics
