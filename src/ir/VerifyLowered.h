#pragma once
// The checked contract of a lowered pipeline (src/ir/LoweredPipeline.h): what lowering
// promises the IR interpreter, the C emitter and the validator, checked node by node.
//
//  * Node kinds: only flat code. No Provide, Realize or ProducerConsumer; calls are
//    intrinsics (Func and image reads are Loads); variables are lets, loop variables,
//    Params of the pipeline or descriptor variables of its buffer arguments (no Var or
//    RVar of the algorithm is left); StringImms only in assertion messages.
//  * Scopes and names: every variable and buffer used is bound where it is used, or is a
//    pipeline argument (a Param, a buffer, or a buffer's B.min.i, B.extent.i, B.stride.i);
//    stores go to the output buffer or to allocations. With `unique_names`, every name is
//    bound once in the whole statement, and never a name that is also used unbound
//    (src/lower/UniquifyNames.cpp establishes it).
//  * Types: loads and stores access a buffer with its element type (bool and uint8 are
//    interchangeable, as in memory) at Int(64) indices with as many lanes as the value;
//    loop bounds are scalar Int(32) or Int(64); conditions are bools, scalar where
//    statements branch on them.
//  * Loops: every loop says which loop of the algorithm it is (For::loop).
//  * Frees: a Free names an allocation in scope, at most once, outside any loop or
//    branch of that allocation's body; nothing after it accesses the buffer.
//  * Provenance: every store carries one, naming a Func of the pipeline, one of its
//    definitions, one coordinate per dimension and one value per RDom variable of that
//    definition, each with the stored value's lane count; a final copy writes the output.
//
// A violation is an InternalError that says what is wrong and where.

#include <string>

#include "ir/LoweredPipeline.h"

namespace tessera::ir {

struct VerifyOptions {
    /** Check that every name is bound once (true after the last lowering pass; passes
     * before alpha renaming may bind a name more than once). */
    bool unique_names = true;
    /** Named in the message: the pass after which the check ran. */
    std::string after;
};

void verify_lowered(const LoweredPipeline &p, const VerifyOptions &options = {});

}  // namespace tessera::ir
