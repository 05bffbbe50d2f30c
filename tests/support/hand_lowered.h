#pragma once
// Pieces of hand-built lowered code for tests: Funcs named in provenance annotations, loop
// identities, and the arguments of a pipeline.

#include <map>
#include <memory>
#include <string>

#include "ir/Function.h"
#include "ir/LoweredPipeline.h"

namespace tessera::test {

/** A FunctionData with only a name, for provenance annotations in hand-built IR: one per
 * name, so that annotations naming the same Func name the same object. */
inline std::shared_ptr<ir::FunctionData> named_func(const std::string &name) {
    static std::map<std::string, std::shared_ptr<ir::FunctionData>> funcs;
    auto &f = funcs[name];
    if (!f) {
        f = std::make_shared<ir::FunctionData>();
        f->name = name;
    }
    return f;
}

/** The identity of loop `dim` of definition `stage` of `func`. */
inline std::shared_ptr<const ir::LoopId> loop_of(const std::shared_ptr<ir::FunctionData> &func, int stage,
                                                 const std::string &dim) {
    auto l = std::make_shared<ir::LoopId>();
    l->func = func;
    l->stage = stage;
    l->dim = l->var = dim;
    return l;
}

/** A buffer argument of a lowered pipeline. */
inline ir::PipelineArgument buffer_argument(ir::PipelineArgument::Kind kind, const std::string &name, Type type,
                                            int dimensions) {
    ir::PipelineArgument a;
    a.kind = kind;
    a.name = name;
    a.type = type;
    a.dimensions = dimensions;
    return a;
}

/** The output argument of the pipeline computing `f`. */
inline ir::PipelineArgument output_argument(const ir::FunctionData &f) {
    return buffer_argument(ir::PipelineArgument::Kind::OutputBuffer, f.name, f.type, f.dimensions());
}

}  // namespace tessera::test
