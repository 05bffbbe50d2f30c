#pragma once
// What a pipeline refers to outside its Funcs: the ImageParams, Buffers, Params and RDoms
// used by its definitions and its schedule, in order of first appearance. The .tsr printer
// declares them; the JIT's pipeline index finds its arguments among them.

#include <memory>
#include <vector>

#include "ir/IR.h"
#include "ir/Function.h"

namespace tessera::lang {

struct References {
    std::vector<std::shared_ptr<ir::InputData>> inputs;
    std::vector<std::shared_ptr<ir::BufferData>> buffers;
    std::vector<std::shared_ptr<ir::ParamData>> params;
    std::vector<std::shared_ptr<ir::RDomData>> rdoms;
};

/** Everything the pipeline computing `output` refers to (its wrappers included). */
References pipeline_references(const std::shared_ptr<ir::FunctionData> &output);

/** What an expression, a definition or an RDom refers to, added to `refs`. */
void add_references(References &refs, const Expr &e);
void add_references(References &refs, const ir::Definition &d);
void add_references(References &refs, const std::shared_ptr<ir::RDomData> &r);

}  // namespace tessera::lang
