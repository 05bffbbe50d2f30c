// The lowering pipeline, pass by pass (DESIGN.md "Data flow through the compiler").
// Each pass is one file of src/lower/ and takes IR and returns IR.

#include "lower/Lower.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "analysis/Simplify.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
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
            // An ImageParam whose shape is used (say, in an RDom's bounds) is an argument
            // even where none of its elements is read.
            if (op->var_kind == VarKind::InputBound && op->input && seen.insert(op->input->name).second) {
                Argument a;
                a.kind = Argument::Kind::InputBuffer;
                a.name = op->input->name;
                a.type = op->input->type;
                a.dimensions = op->input->dimensions;
                a.input = op->input;
                buffers.push_back(a);
            }
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

std::string describe_argument(const tessera::Argument &a) {
    if (a.param) return "Param \"" + a.name + "\"";
    if (a.input) return "ImageParam \"" + a.name + "\"";
    return "Buffer \"" + a.name + "\"";
}

bool same_input(const Argument &used, const tessera::Argument &listed) {
    return (listed.param && used.param == listed.param) || (listed.input && used.input == listed.input) ||
           (listed.buffer && used.buffer == listed.buffer);
}

/** The arguments in the caller's order (LowerOptions::arguments), then the output. */
std::vector<Argument> order_arguments(const std::string &pipeline, const std::vector<Argument> &used,
                                      const std::vector<tessera::Argument> &listed) {
    std::vector<Argument> ordered;
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
            if (used[i].kind == Argument::Kind::OutputBuffer || !same_input(used[i], l)) continue;
            ordered.push_back(used[i]);
            placed[i] = found = true;
        }
        if (found) continue;
        // Listed but not read: still a parameter of the generated function.
        Argument a;
        a.kind = l.is_scalar() ? Argument::Kind::Param : Argument::Kind::InputBuffer;
        a.name = l.name;
        a.type = l.type;
        a.dimensions = l.dimensions;
        a.param = l.param;
        a.input = l.input;
        a.buffer = l.buffer;
        ordered.push_back(a);
    }
    for (size_t i = 0; i < used.size(); i++) {
        if (placed[i] || used[i].kind == Argument::Kind::OutputBuffer) continue;
        if (!used[i].buffer)
            throw CompileError("Pipeline \"" + pipeline + "\" uses the " +
                               (used[i].param ? "Param \"" : "ImageParam \"") + used[i].name +
                               "\", which is not in the list of arguments it is compiled with; add it to the list");
        Argument embedded = used[i];
        embedded.embedded = true;
        ordered.push_back(embedded);
    }
    for (const Argument &a : used)
        if (a.kind == Argument::Kind::OutputBuffer) ordered.push_back(a);
    return ordered;
}

}  // namespace

/** Dimension 0 of every buffer argument is dense (stride 1), as in Halide: a check on
 * entry, and the stride is the constant 1 in the code, so that vector loads and stores
 * along dimension 0 are contiguous. */
Stmt dense_innermost_dimension(const std::vector<Argument> &args, Stmt s) {
    std::map<std::string, Expr> ones;
    std::vector<Stmt> checks;
    for (const Argument &a : args) {
        if (a.kind == Argument::Kind::Param || a.dimensions == 0 || a.embedded) continue;
        const Expr stride = buffer_stride(a.name, 0);
        ones[a.name + ".stride.0"] = IntImm::make(Int(64), 1);
        checks.push_back(AssertStmt::make(
            EQ::make(stride, IntImm::make(Int(64), 1)),
            {StringImm::make(std::string(a.kind == Argument::Kind::OutputBuffer ? "Output" : "Input") + " buffer \"" +
                             a.name + "\" has stride "),
             stride,
             StringImm::make(" in dimension 0; compiled pipelines need dimension 0 of every buffer to be dense "
                             "(stride 1)")}));
    }
    if (ones.empty()) return s;
    checks.push_back(substitute(ones, s));
    return Block::make(checks);
}

/** Runs the passes. $TESSERA_TIME_PASSES=1 prints the time of each (to stderr);
 * $TESSERA_DUMP_PASSES=DIR writes the statement after each pass to DIR/NN-pass.stmt, to
 * see what a pass did. */
class PassRunner {
public:
    explicit PassRunner(std::string pipeline) : pipeline_(std::move(pipeline)) {
        const char *v = std::getenv("TESSERA_TIME_PASSES");
        timed_ = v && *v && std::string(v) != "0";
        if (const char *d = std::getenv("TESSERA_DUMP_PASSES")) dump_dir_ = d;
    }
    template<typename F>
    auto operator()(const char *pass, F &&f) {
        const auto start = std::chrono::steady_clock::now();
        auto result = f();
        if (timed_) {
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            std::fprintf(stderr, "tessera: lowering %s: %-20s %8.3f ms\n", pipeline_.c_str(), pass, ms);
        }
        if constexpr (std::is_same_v<decltype(result), Stmt>) {
            if (!dump_dir_.empty()) {
                char name[32];
                std::snprintf(name, sizeof(name), "%02d-", ++dumped_);
                std::string file = dump_dir_ + "/" + pipeline_ + "-" + name + pass + ".stmt";
                std::replace(file.begin() + long(dump_dir_.size()) + 1, file.end(), ' ', '_');
                if (FILE *out = std::fopen(file.c_str(), "w")) {
                    const std::string text = ir::to_string(result);
                    std::fwrite(text.data(), 1, text.size(), out);
                    std::fclose(out);
                }
            }
        }
        return result;
    }

private:
    std::string pipeline_, dump_dir_;
    bool timed_ = false;
    int dumped_ = 0;
};

LoweredPipeline lower(const std::shared_ptr<FunctionData> &output, const LowerOptions &options) {
    lang::check_unique_names(output);
    PassRunner run(output->name);

    PipelinePlan plan = run("inline functions", [&] { return inline_functions(output); });
    run("check schedules", [&] {
        check_schedules(plan);
        return 0;
    });
    Stmt s = run("schedule functions", [&] { return schedule_functions(plan); });
    s = run("bounds inference", [&] { return bounds_inference(plan, s); });
    s = run("sliding window", [&] { return sliding_window(plan, s); });
    s = run("add image checks", [&] { return add_image_checks(plan, s); });
    LoweredPipeline p;
    p.args = pipeline_arguments(*output, s);  // read off the image calls before flattening
    if (options.arguments) p.args = order_arguments(output->name, p.args, *options.arguments);
    s = run("bound constant extent loops", [&] { return bound_constant_extent_loops(s); });
    s = run("storage flattening", [&] { return storage_flattening(plan, s); });
    s = run("dense innermost dimension", [&] { return dense_innermost_dimension(p.args, s); });
    s = run("simplify", [&] { return analysis::simplify(s); });
    s = run("hoist loop invariant lets", [&] { return hoist_loop_invariant_lets(s); });
    s = run("unroll loops", [&] { return unroll_loops(s); });
    s = run("eliminate guards", [&] { return eliminate_guards(analysis::simplify(s)); });
    s = run("partition loops", [&] { return partition_loops(s); });
    s = run("specialize guards", [&] { return specialize_guards(s); });
    s = run("vectorize loops", [&] { return vectorize_loops(s); });
    s = run("widen indices", [&] { return widen_indices(s); });
    s = run("simplify", [&] { return analysis::simplify(s); });
    s = run("hoist constant calls", [&] { return hoist_constant_calls(s); });

    p.name = output->name;
    p.output = output;
    p.body = s;
    return p;
}

}  // namespace tessera::lower
