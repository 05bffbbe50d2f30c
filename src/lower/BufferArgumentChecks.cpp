// What compiled code requires of the buffers it is given, checked on entry before anything
// else reads them:
//
//   * their coordinates lie in [-2^30, 2^30): lowering computes coordinates, loop bounds
//     and regions in 32 bits and assumes that this index arithmetic does not wrap
//     (src/lower/MarkIndexArithmetic.cpp); buffers that start and end within half of the
//     int32 range leave room for the offsets and strides of stencils, tiles and
//     resampling (docs/semantics.md §11 says exactly what is assumed). A larger buffer is
//     a RuntimeError, before any value is computed.
//   * dimension 0 is dense (stride 1), as in Halide; the stride is then the constant 1 in
//     the code, so that vector loads and stores along dimension 0 are contiguous.

#include <map>

#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

Expr i64(const Expr &e) { return Cast::make(Int(64), e); }

std::string describe(const PipelineArgument &a, int input_position) {
    if (a.kind == PipelineArgument::Kind::OutputBuffer) return "Output buffer \"" + a.name + "\"";
    return describe_input_buffer(a.name, a.buffer.get(), input_position);
}

}  // namespace

Stmt check_buffer_arguments(const std::vector<PipelineArgument> &args, Stmt s) {
    constexpr int64_t kLimit = int64_t(1) << 30;
    std::map<std::string, Expr> ones;
    std::vector<Stmt> checks;
    int inputs = 0;  // the input buffers before `a`
    for (const PipelineArgument &a : args) {
        if (a.kind == PipelineArgument::Kind::Param) continue;
        const std::string what = describe(a, inputs);
        inputs += a.kind == PipelineArgument::Kind::InputBuffer;
        // min >= -2^30 && min <= 2^30 - extent, in int32 without wrapping (the runtime has
        // checked that extents are not negative); one check for all dimensions.
        Expr in_range;
        std::vector<Expr> message{text(what + " has the coordinates ")};
        for (int d = 0; d < a.dimensions; d++) {
            const Expr mn = buffer_min(a.name, d), ex = buffer_extent(a.name, d);
            const Expr dim = And::make(GE::make(mn, IntImm::make(Int(32), -kLimit)),
                                       LE::make(mn, Sub::make(IntImm::make(Int(32), kLimit), ex)));
            in_range = in_range.defined() ? And::make(in_range, dim) : dim;
            message.insert(message.end(), {text(d ? " x [" : "["), mn, text(", "),
                                           Sub::make(Add::make(i64(mn), i64(ex)), IntImm::make(Int(64), 1)), text("]")});
        }
        if (in_range.defined()) {
            message.push_back(text(", outside [-1073741824, 1073741823] in some dimension: compiled pipelines compute "
                                  "coordinates in 32 bits and support buffers whose coordinates lie within half of "
                                  "that range"));
            checks.push_back(AssertStmt::make(in_range, message));
        }
        if (a.dimensions == 0 || a.embedded) continue;
        const Expr stride = buffer_stride(a.name, 0);
        ones[a.name + ".stride.0"] = IntImm::make(Int(64), 1);
        checks.push_back(AssertStmt::make(
            EQ::make(stride, IntImm::make(Int(64), 1)),
            {text(what + " has stride "), stride,
             text(" in dimension 0; compiled pipelines need dimension 0 of every buffer to be dense (stride 1)")}));
    }
    if (checks.empty()) return s;
    checks.push_back(ones.empty() ? s : substitute(ones, s));
    return Block::make(checks);
}

}  // namespace tessera::lower
