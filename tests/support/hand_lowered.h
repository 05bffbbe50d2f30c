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

/** The pipeline `for x in [0, extent): f[index] = value` (over the variable "x"), with the
 * store's provenance and the loop's identity: a statement built by hand for the IR
 * interpreter, of a Func f of one dimension. */
inline ir::LoweredPipeline store_loop_pipeline(const std::shared_ptr<ir::FunctionData> &f, const Expr &value,
                                               const Expr &index, int extent) {
    auto prov = std::make_shared<ir::Provenance>();
    prov->func = f;
    prov->coords = {ir::Variable::make(Int(32), "x")};
    ir::LoweredPipeline p;
    p.name = f->name;
    p.output = f;
    p.args = {output_argument(*f)};
    p.body = ir::For::make("x", ir::IntImm::make(Int(32), 0), ir::IntImm::make(Int(32), extent), ir::ForType::Serial,
                           ir::Store::make(f->name, value, index, prov), loop_of(f, 0, "x"));
    return p;
}

}  // namespace tessera::test
