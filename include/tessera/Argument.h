#pragma once
// Argument: one input of a pipeline compiled ahead of time, in the order the generated
// C function takes them (Halide's Argument). Built implicitly from a Param, an ImageParam
// or a Buffer, so that `f.compile_to_c("f.c", {input, scale})` reads like Halide.

#include <memory>
#include <string>

#include "tessera/Buffer.h"
#include "tessera/Param.h"
#include "tessera/Type.h"

namespace tessera {

class Argument {
public:
    enum class Kind { InputScalar, InputBuffer };

    template<typename T>
    Argument(const Param<T> &p) : kind(Kind::InputScalar), name(p.name()), type(p.type()), param(p.data()) {}
    Argument(const ImageParam &p)
        : kind(Kind::InputBuffer), name(p.name()), type(p.type()), dimensions(p.dimensions()), input(p.data()) {}
    template<typename T>
    Argument(const Buffer<T> &b)
        : kind(Kind::InputBuffer), name(b.defined() ? b.name() : std::string()),
          type(b.defined() ? b.type() : Type()), dimensions(b.defined() ? b.dimensions() : 0),
          buffer(b.data_handle()) {}

    explicit Argument(std::shared_ptr<ir::ParamData> p)
        : kind(Kind::InputScalar), name(p->name), type(p->type), param(std::move(p)) {}
    explicit Argument(std::shared_ptr<ir::InputData> in)
        : kind(Kind::InputBuffer), name(in->name), type(in->type), dimensions(in->dimensions), input(std::move(in)) {}

    bool is_scalar() const { return kind == Kind::InputScalar; }
    bool is_buffer() const { return kind == Kind::InputBuffer; }

    Kind kind;
    std::string name;
    Type type;
    int dimensions = 0;
    std::shared_ptr<ir::ParamData> param;   // a Param
    std::shared_ptr<ir::InputData> input;   // an ImageParam
    std::shared_ptr<ir::BufferData> buffer; // a Buffer
};

}  // namespace tessera
