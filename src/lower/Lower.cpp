// The lowering pipeline, pass by pass: the table of contents of lowering
// (docs/architecture.md draws it).
// Each pass is one file of src/lower/ and takes IR and returns IR.

#include "lower/Lower.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

#include "analysis/Simplify.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "ir/VerifyLowered.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

bool invariant_checks_requested() {
#ifndef NDEBUG
    return true;
#else
    static const bool on = [] {
        const char *v = std::getenv("TESSERA_CHECK_INVARIANTS");
        return v && *v && std::string(v) != "0";
    }();
    return on;
#endif
}

namespace {

/** Runs the passes. $TESSERA_TIME_PASSES=1 prints the time of each (to stderr);
 * $TESSERA_DUMP_PASSES=DIR writes the statement after each pass to DIR/NN-pass.stmt, to
 * see what a pass did. Once the code is flat (`verify` set), each pass's result is checked
 * against the contract of lowered code, so that a broken invariant names its pass. */
class PassRunner {
public:
    explicit PassRunner(std::string pipeline) : pipeline_(std::move(pipeline)) {
        const char *v = std::getenv("TESSERA_TIME_PASSES");
        timed_ = v && *v && std::string(v) != "0";
        if (const char *d = std::getenv("TESSERA_DUMP_PASSES")) dump_dir_ = d;
    }

    /** From now on, check each statement a pass returns with `check(s, pass)`. */
    std::function<void(const Stmt &, const char *)> verify;

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
            if (verify) verify(result, pass);
        }
        return result;
    }

private:
    std::string pipeline_, dump_dir_;
    bool timed_ = false;
    int dumped_ = 0;
};

}  // namespace

LoweredPipeline lower(const std::shared_ptr<FunctionData> &output, const LowerOptions &options) {
    ir::check_unique_names(output);
    const bool check = options.check_invariants || invariant_checks_requested();
    PassRunner run(output->name);
    LoweredPipeline p;
    p.name = output->name;
    p.output = output;

    // The algorithm: which Funcs are computed, their loop nests, their bounds.
    PipelinePlan plan = run("inline functions", [&] { return inline_functions(output); });
    run("check schedules", [&] {
        check_schedules(plan);
        return 0;
    });
    Stmt s = run("schedule functions", [&] { return schedule_functions(plan); });
    s = run("add tracing", [&] { return add_tracing(plan, s); });
    s = run("lift requirements", [&] { return lift_requirements(s); });
    s = run("bounds inference", [&] { return bounds_inference(plan, s); });
    s = run("fuse compute_with", [&] { return fuse_compute_with(plan, s); });
    s = run("sliding window", [&] { return sliding_window(plan, s); });
    s = run("add image checks", [&] { return add_image_checks(plan, s, &p.extern_regions); });
    p.args = pipeline_arguments(*output, s);  // read off the image calls before flattening
    if (options.arguments) p.args = order_arguments(output->name, p.args, *options.arguments);
    s = run("bound constant extent loops", [&] { return bound_constant_extent_loops(plan, s); });

    // Flat code: from here on every pass keeps the contract of lowered code.
    s = run("storage flattening", [&] { return storage_flattening(plan, s); });
    if (check || options.after_pass)
        run.verify = [&](const Stmt &body, const char *pass) {
            LoweredPipeline q = p;
            q.body = body;
            if (check) verify_lowered(q, VerifyOptions{false, std::string("the pass \"") + pass + "\""});
            if (options.after_pass) options.after_pass(q, pass);
        };
    if (run.verify) run.verify(s, "storage flattening");
    s = run("check buffer arguments", [&] { return check_buffer_arguments(p.args, s); });
    s = run("simplify", [&] { return analysis::simplify(s); });
    s = run("hoist loop invariant lets", [&] { return hoist_loop_invariant_lets(s); });
    s = run("unroll loops", [&] { return unroll_loops(s); });
    s = run("eliminate guards", [&] { return eliminate_guards(analysis::simplify(s)); });
    s = run("partition loops", [&] { return partition_loops(s); });
    s = run("specialize guards", [&] { return specialize_guards(s); });
    s = run("vectorize loops", [&] { return vectorize_loops(s); });
    s = run("widen indices", [&] { return widen_indices(s); });
    s = run("simplify", [&] { return analysis::simplify(s); });
    s = run("fuse small loop nests", [&] { return fuse_small_loop_nests(s); });
    if (options.contract_floats) s = run("contract floats", [&] { return contract_floats(s); });
    s = run("hoist constant calls", [&] { return hoist_constant_calls(s); });
    s = run("uniquify names", [&] { return uniquify_names(s); });
    s = run("reuse allocations", [&] { return reuse_allocations(s, p.reused_allocations); });
    s = run("free after last use", [&] { return free_after_last_use(s); });
    s = run("common subexpressions", [&] { return common_subexpressions(s); });
    s = run("mark index arithmetic", [&] { return mark_index_arithmetic(s); });
    s = run("mark in-range conversions", [&] { return mark_in_range_conversions(s); });
    s = run("specialize buffer shapes", [&] { return specialize_buffer_shapes(p.args, options.fixed_buffer_shapes, s); });

    p.body = s;
    if (check) verify_lowered(p, VerifyOptions{true, "the last pass"});
    return p;
}

}  // namespace tessera::lower
