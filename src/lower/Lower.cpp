// The lowering pipeline, pass by pass (DESIGN.md "Data flow through the compiler").
// Each pass is one file of src/lower/ and takes IR and returns IR.

#include "lower/Lower.h"

#include <algorithm>
#include <set>

#include "analysis/Simplify.h"
#include "ir/IRVisitor.h"
#include "lang/Validity.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** The pipeline's arguments: input buffers in order of first use, Params by name, then
 * the output buffer (src/lower/Lower.h). */
std::vector<Argument> pipeline_arguments(const FunctionData &output, const Stmt &s) {
    struct Collect : IRVisitor {
        std::vector<Argument> buffers;
        std::map<std::string, Argument> params;
        std::set<std::string> seen;
        using IRVisitor::include;

    protected:
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Image && seen.insert(op->name).second) {
                Argument a;
                a.kind = Argument::Kind::InputBuffer;
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
            if (op->var_kind == VarKind::Param && !params.count(op->name)) {
                Argument a;
                a.kind = Argument::Kind::Param;
                a.name = op->name;
                a.type = op->type;
                a.param = op->param;
                params[op->name] = a;
            }
        }
    } collect;
    collect.include(s);
    std::vector<Argument> args = collect.buffers;
    for (auto &[name, a] : collect.params) args.push_back(a);
    Argument out;
    out.kind = Argument::Kind::OutputBuffer;
    out.name = output.name;
    out.type = output.type;
    out.dimensions = output.dimensions();
    args.push_back(out);
    return args;
}

}  // namespace

LoweredPipeline lower(const std::shared_ptr<FunctionData> &output, const LowerOptions &options) {
    (void)options;
    lang::check_unique_names(output);

    PipelinePlan plan = inline_functions(output);
    Stmt s = schedule_functions(plan);
    s = bounds_inference(plan, s);
    s = add_image_checks(plan, s);
    LoweredPipeline p;
    p.args = pipeline_arguments(*output, s);  // read off the image calls before flattening
    s = storage_flattening(plan, s);
    s = analysis::simplify(s);

    p.name = output->name;
    p.output = output;
    p.body = s;
    return p;
}

}  // namespace tessera::lower
