#pragma once
// Funcs computed by C functions (src/lang/Extern.cpp): what realize does for them.

#include <map>
#include <memory>
#include <vector>

#include "ir/Function.h"
#include "ir/LoweredPipeline.h"
#include "tessera/Target.h"

namespace tessera::lang {

/** Computes extern Func f over the window of dst, into it. */
void realize_extern(const std::shared_ptr<ir::FunctionData> &f, const std::shared_ptr<ir::BufferData> &dst,
                    const Target &target);

/** Before running the pipeline computing `output` (arguments `args`) into `outputs`:
 * computes each extern Func it reads over the region `regions` says; the buffer of each
 * extern Func's image. */
std::map<const ir::InputData *, std::shared_ptr<ir::BufferData>> compute_extern_inputs(const std::shared_ptr<ir::FunctionData> &output, const std::vector<ir::ExternRegion> &regions,
                           const std::vector<ir::PipelineArgument> &args,
                           const std::vector<std::shared_ptr<ir::BufferData>> &outputs, const Target &target);

}  // namespace tessera::lang
