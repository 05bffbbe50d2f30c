#pragma once
// Pipeline and Realization, as Halide's: a pipeline of one or more output Funcs realized
// together.
//
//     Pipeline p({gradient, edges});
//     Realization r = p.realize({640, 480});
//     Buffer<float> g = r[0], e = r[1];
//
// Each output is compiled as a pipeline of its own and realized in turn (Halide computes
// them in one pass): a producer scheduled compute_root that two outputs share is computed
// once for each. The results are the same, since Funcs are pure
// (docs/halide-compatibility.md).

#include <string>
#include <vector>

#include "tessera/Buffer.h"
#include "tessera/Error.h"
#include "tessera/Func.h"
#include "tessera/Realization.h"
#include "tessera/Target.h"

namespace tessera {

class Pipeline {
public:
    Pipeline() = default;
    Pipeline(const Func &output);
    Pipeline(const std::vector<Func> &outputs);

    const std::vector<Func> &outputs() const { return outputs_; }
    bool defined() const { return !outputs_.empty(); }

    /** Every output over [0, sizes[0]) x [0, sizes[1]) x ... */
    Realization realize(const std::vector<int> &sizes = {}, const Target &target = get_jit_target_from_environment()) const;
    Realization realize(std::initializer_list<int> sizes) const { return realize(std::vector<int>(sizes)); }
    /** Each output into its buffer (one per output, in order), over the buffer's window. */
    void realize(Realization dst, const Target &target = get_jit_target_from_environment()) const;
    void realize(const std::vector<Buffer<>> &dst, const Target &target = get_jit_target_from_environment()) const;

    /** Compiles every output (Func::compile_jit). */
    void compile_jit(const Target &target = get_jit_target_from_environment()) const;

private:
    std::vector<Func> outputs_;
};

}  // namespace tessera
