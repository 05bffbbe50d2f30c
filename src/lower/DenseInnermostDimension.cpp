// Dimension 0 of every buffer argument is dense: a check on entry, and the constant 1 for
// its stride in the code.

#include <map>

#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

/** Dimension 0 of every buffer argument is dense (stride 1), as in Halide: a check on
 * entry, and the stride is the constant 1 in the code, so that vector loads and stores
 * along dimension 0 are contiguous. */
Stmt dense_innermost_dimension(const std::vector<PipelineArgument> &args, Stmt s) {
    std::map<std::string, Expr> ones;
    std::vector<Stmt> checks;
    for (const PipelineArgument &a : args) {
        if (a.kind == PipelineArgument::Kind::Param || a.dimensions == 0 || a.embedded) continue;
        const Expr stride = buffer_stride(a.name, 0);
        ones[a.name + ".stride.0"] = IntImm::make(Int(64), 1);
        checks.push_back(AssertStmt::make(
            EQ::make(stride, IntImm::make(Int(64), 1)),
            {StringImm::make(std::string(a.kind == PipelineArgument::Kind::OutputBuffer ? "Output" : "Input") + " buffer \"" +
                             a.name + "\" has stride "),
             stride,
             StringImm::make(" in dimension 0; compiled pipelines need dimension 0 of every buffer to be dense "
                             "(stride 1)")}));
    }
    if (ones.empty()) return s;
    checks.push_back(substitute(ones, s));
    return Block::make(checks);
}

}  // namespace tessera::lower
