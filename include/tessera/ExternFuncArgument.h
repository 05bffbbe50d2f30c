#pragma once
// The arguments of a Func computed by a C function (Func::define_extern), as Halide's:
//
//     extern "C" int blur_rows(tessera_buffer_t *in, int32_t radius, tessera_buffer_t *out);
//     Func blurred("blurred");
//     blurred.define_extern("blur_rows", {input, radius}, Float(32), 2);
//
// A Func (computed over the region the function asks for), a Buffer or an ImageParam
// (passed as its memory), or a scalar startup expression (Params and constants, passed by
// value in its type). docs/semantics.md §7.6 says what the function must do.

#include <memory>
#include <type_traits>

#include "tessera/Buffer.h"
#include "tessera/Expr.h"
#include "tessera/Param.h"

namespace tessera {

class Func;

/** How the C function's name is linked: Default and C are C linkage (extern "C"). */
enum class NameMangling { Default, C, CPlusPlus };

class ExternFuncArgument {
public:
    ExternFuncArgument(const Func &f);  // NOLINT: implicit, as Halide's
    template<typename T>
    ExternFuncArgument(const Buffer<T> &b) : buffer_(b.data_handle()) {}  // NOLINT
    ExternFuncArgument(const ImageParam &p) : input_(p.data()) {}       // NOLINT
    ExternFuncArgument(const Expr &e) : value_(e) {}                    // NOLINT
    template<typename T>
    ExternFuncArgument(const Param<T> &p) : value_(Expr(p)) {}          // NOLINT
    template<typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
    ExternFuncArgument(T v) : value_(Expr(v)) {}                        // NOLINT

    const std::shared_ptr<ir::FunctionData> &func() const { return func_; }
    const std::shared_ptr<ir::BufferData> &buffer() const { return buffer_; }
    const std::shared_ptr<ir::InputData> &input() const { return input_; }
    const Expr &value() const { return value_; }

private:
    std::shared_ptr<ir::FunctionData> func_;
    std::shared_ptr<ir::BufferData> buffer_;
    std::shared_ptr<ir::InputData> input_;
    Expr value_;
};

}  // namespace tessera
