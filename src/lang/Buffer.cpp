// Reads of Buffers inside algorithms (the memory of a Buffer is the IR's:
// src/ir/BufferData.cpp).

#include "ir/IR.h"
#include "ir/Names.h"
#include "lang/ImplicitVars.h"
#include "lang/Validity.h"
#include "tessera/Buffer.h"

namespace tessera {

using namespace ir;

namespace detail {

Expr buffer_call(const std::shared_ptr<BufferData> &b, std::vector<Expr> args) {
    if (!b) throw CompileError("Use of an undefined Buffer in an algorithm");
    args = lang::call_coordinates(std::move(args), int(b->dims.size()), "Buffer " + b->name);
    args = lang::coerce_coordinates(std::move(args), b->name);
    if (args.size() != b->dims.size())
        throw CompileError("Buffer " + b->name + " has " + std::to_string(b->dims.size()) +
                           " dimensions but is read with " + std::to_string(args.size()) + " coordinates");
    return Call::make_image(b, std::move(args));
}

}  // namespace detail

}  // namespace tessera
