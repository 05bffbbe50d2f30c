// The arguments of a lowered pipeline (src/ir/LoweredPipeline.h): the buffers and Params
// its statement refers to, in the default order or in the order an ahead-of-time caller
// lists them.

#include <map>
#include <set>

#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

std::string describe_argument(const tessera::Argument &a) {
    if (a.param) return "Param \"" + a.name + "\"";
    if (a.input) return "ImageParam \"" + a.name + "\"";
    return "Buffer \"" + a.name + "\"";
}

bool same_input(const PipelineArgument &used, const tessera::Argument &listed) {
    return (listed.param && used.param == listed.param) || (listed.input && used.input == listed.input) ||
           (listed.buffer && used.buffer == listed.buffer);
}

}  // namespace

/** The pipeline's arguments: input buffers in order of first use, Params by name, then
 * the output buffer (src/ir/LoweredPipeline.h). */
std::vector<PipelineArgument> pipeline_arguments(const FunctionData &output, const Stmt &s) {
    struct Collect : IRVisitor {
        std::vector<PipelineArgument> buffers;
        std::map<std::string, PipelineArgument> params;
        std::set<std::string> seen;
        using IRVisitor::include;

    protected:
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Image && seen.insert(op->name).second) {
                PipelineArgument a;
                a.kind = PipelineArgument::Kind::InputBuffer;
                a.name = op->name;
                a.type = op->type;
                a.dimensions = int(op->args.size());
                a.buffer = op->buffer;
                a.input = op->input;
                buffers.push_back(a);
            }
            IRVisitor::visit(op);
        }
        void visit(const Variable *op) override {
            // An ImageParam whose shape is used (say, in an RDom's bounds) is an argument
            // even where none of its elements is read.
            if (op->var_kind == VarKind::InputBound && op->input && seen.insert(op->input->name).second) {
                PipelineArgument a;
                a.kind = PipelineArgument::Kind::InputBuffer;
                a.name = op->input->name;
                a.type = op->input->type;
                a.dimensions = op->input->dimensions;
                a.input = op->input;
                buffers.push_back(a);
            }
            if (op->var_kind == VarKind::Param && !params.count(op->name)) {
                PipelineArgument a;
                a.kind = PipelineArgument::Kind::Param;
                a.name = op->name;
                a.type = op->type;
                a.param = op->param;
                params[op->name] = a;
            }
        }
    } collect;
    collect.include(s);
    std::vector<PipelineArgument> args = collect.buffers;
    for (auto &[name, a] : collect.params) args.push_back(a);
    // One output buffer per value of the output (f.0, f.1, ... for a Tuple).
    const std::vector<Type> types = output.types();
    const std::vector<std::string> names = value_storages(output.name, int(types.size()));
    for (size_t k = 0; k < types.size(); k++) {
        PipelineArgument out;
        out.kind = PipelineArgument::Kind::OutputBuffer;
        out.name = names[k];
        out.type = types[k];
        out.dimensions = output.dimensions();
        args.push_back(out);
    }
    return args;
}

/** The arguments in the caller's order (LowerOptions::arguments), then the output. */
std::vector<PipelineArgument> order_arguments(const std::string &pipeline, const std::vector<PipelineArgument> &used,
                                      const std::vector<tessera::Argument> &listed) {
    std::vector<PipelineArgument> ordered;
    std::vector<bool> placed(used.size(), false);
    for (size_t k = 0; k < listed.size(); k++) {
        const tessera::Argument &l = listed[k];
        if (!l.param && !l.input && !l.buffer)
            throw CompileError("Argument " + std::to_string(k) + " given for pipeline \"" + pipeline +
                               "\" is an undefined Buffer");
        for (size_t j = 0; j < k; j++)
            if ((l.param && l.param == listed[j].param) || (l.input && l.input == listed[j].input) ||
                (l.buffer && l.buffer == listed[j].buffer))
                throw CompileError("The " + describe_argument(l) + " is listed twice among the arguments of pipeline \"" +
                                   pipeline + "\" (as argument " + std::to_string(j) + " and " + std::to_string(k) + ")");
        bool found = false;
        for (size_t i = 0; i < used.size(); i++) {
            if (used[i].kind == PipelineArgument::Kind::OutputBuffer || !same_input(used[i], l)) continue;
            ordered.push_back(used[i]);
            placed[i] = found = true;
        }
        if (found) continue;
        // Listed but not read: still a parameter of the generated function.
        PipelineArgument a;
        a.kind = l.is_scalar() ? PipelineArgument::Kind::Param : PipelineArgument::Kind::InputBuffer;
        a.name = l.name;
        a.type = l.type;
        a.dimensions = l.dimensions;
        a.param = l.param;
        a.input = l.input;
        a.buffer = l.buffer;
        ordered.push_back(a);
    }
    for (size_t i = 0; i < used.size(); i++) {
        if (placed[i] || used[i].kind == PipelineArgument::Kind::OutputBuffer) continue;
        if (!used[i].buffer)
            throw CompileError("Pipeline \"" + pipeline + "\" uses the " +
                               (used[i].param ? "Param \"" : "ImageParam \"") + used[i].name +
                               "\", which is not in the list of arguments it is compiled with; add it to the list");
        PipelineArgument embedded = used[i];
        embedded.embedded = true;
        ordered.push_back(embedded);
    }
    for (const PipelineArgument &a : used)
        if (a.kind == PipelineArgument::Kind::OutputBuffer) ordered.push_back(a);
    return ordered;
}

}  // namespace tessera::lower
