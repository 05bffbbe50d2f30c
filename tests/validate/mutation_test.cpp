// Mutation testing of the translation validator: lowering's test-only switch
// (src/lower/Mutation.h) injects one miscompilation at a time into small pipelines that
// exercise its construct; each mutant whose code differs from the unmutated lowering is
// run against the reference interpreter and validated. A mutant whose output differs from
// the reference, or that makes a parallel loop race, must never be Proved; the share of
// them the validator refutes is measured (docs/validation.md, "Mutation testing").
//
// "Output differs" is decided by two runs over the window:
//   * the IR interpreter, with every access bounds-checked, the output starting poisoned
//     (a point never written is reported) and parallel loops run last to first (so that a
//     race changes the result deterministically);
//   * the compiled code (C at -O0 unless TESSERA_C_OPT says otherwise), only when the
//     interpreter ran to the end: a mutant that accesses memory outside its buffers is
//     not run natively (it has already shown itself, and could corrupt this process).
// A mutant that lowering's own contract check rejects (src/ir/VerifyLowered.h) counts as
// caught by the contract and is left out of the validator's rate.
//
// The short run (CI) applies to each slow pipeline only the mutants it was built for, at
// one window size; TESSERA_MUTATION_LONG=1 applies every mutant to every pipeline at more
// window sizes (other tails, other fold phases). TESSERA_MUTATION_PIPELINE=name runs only
// that pipeline (to look into one; the rates are then those of its mutants alone).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "driver/CCompiler.h"
#include "driver/JIT.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "lower/Mutation.h"
#include "semantics/IRInterpreter.h"
#include "support/differential.h"
#include "support/images.h"
#include "validate/Validate.h"

using namespace tessera;
using lower::testing::Mutation;
using lower::testing::MutationInfo;
using lower::testing::ScopedMutation;

namespace {

using test::image;
using tessera::testing::differential::compare_window;

// The validator's refutation rate over the mutants whose output differs (and the race
// mutants), as a fraction. The goal, 0.95, is what the short run requires. The long run
// requires the rate it last measured, which must not go down.
//   measured: short run 40 of 40 refuted, 1.00; long run 102 of 102, 1.00
constexpr double kGoalRefutationRate = 0.95;
constexpr double kRequiredRefutationRate = kGoalRefutationRate;
constexpr double kRequiredRefutationRateLongRun = 1.0;

bool long_run() {
    const char *v = std::getenv("TESSERA_MUTATION_LONG");
    return v && *v && std::string(v) != "0";
}

/** Whether TESSERA_MUTATION_PIPELINE, if set, names this pipeline. */
bool selected(const char *pipeline) {
    const char *v = std::getenv("TESSERA_MUTATION_PIPELINE");
    return !v || !*v || std::strcmp(v, pipeline) == 0;
}

/** A pipeline to mutate: its output Func, built fresh for a window size, and what it
 * exercises. */
struct MutationPipeline {
    const char *name;
    const char *exercises;
    /** Window sizes: the first in the short run, all in the long one. */
    std::vector<std::vector<int>> sizes;
    /** The mutants it is built for, the only ones applied to it in the short run (where
     * validating it takes seconds); empty: every mutant. The long run applies every mutant
     * to every pipeline. */
    std::vector<Mutation> targets;
    std::function<Func(const std::vector<int> &size)> make;
};

/** uint16 input covering the window and `margin_x`, `margin_y` points past it. */
Buffer<uint16_t> input_for(const std::vector<int> &size, int margin_x, int margin_y) {
    return image(size[0] + margin_x, size[1] + margin_y);
}

// The pipelines, each built fresh for a window size.

// Halide's blur schedule: parallel strips of 8 rows, blur_x slid down each strip and
// folded, both vectorized; the strips' ShiftInwards tail.
Func blur_sliding(const std::vector<int> &size) {
    Buffer<uint16_t> in = input_for(size, 2, 2);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func bx("blur_x"), by("blur_y");
    bx(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
    by(x, y) = (bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3;
    by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
    bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 8);
    return by;
}

// A stencil over an input clamped in x (repeat_edge), in vectors: the clamps are peeled
// off the steady state of the loop over vectors. (Its rows are not parallel: the race
// check of the partitioned loop reaches the operation limit, which takes seconds.)
Func clamped_stencil(const std::vector<int> &size) {
    Buffer<uint16_t> in = input_for(size, 0, 2);
    Var x("x"), y("y");
    Func source("source"), out("clamped_stencil");
    source(x, y) = in(x, y);
    Func clamped = BoundaryConditions::repeat_edge(source, {Range(0, size[0]), Range()});
    out(x, y) = clamped(x - 1, y) + clamped(x, y + 1) * 2 + clamped(x + 1, y + 2) - clamped(x + 2, y);
    out.vectorize(x, 8);
    return out;
}

// Guarded tiles: a GuardWithIf tile with vector columns, unrolled rows and parallel rows of
// tiles, and a producer computed per tile whose region shrinks in the last tiles (its
// vector loop gets a constant-extent copy).
Func guarded_tiles(const std::vector<int> &size) {
    Buffer<uint16_t> in = input_for(size, 1, 1);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), out("guarded_tiles");
    g(x, y) = in(x, y) * 3 + in(x + 1, y + 1);
    out(x, y) = g(x, y) + g(x, y) / 7;
    out.tile(x, y, xo, yo, xi, yi, 8, 4, TailStrategy::GuardWithIf).vectorize(xi).unroll(yi).parallel(yo);
    g.compute_at(out, xo).vectorize(x);
    return out;
}

// Tiles fused into one parallel loop.
Func fused_tiles(const std::vector<int> &size) {
    Buffer<uint16_t> in = input_for(size, 1, 0);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    Func out("fused_tiles");
    out(x, y) = in(x, y) + in(x + 1, y) * 5;
    out.tile(x, y, xo, yo, xi, yi, 4, 4).fuse(xo, yo, t).parallel(t);
    return out;
}

// Matrix product: an update over an RDom, its pure loop split with a tail, vectorized and
// in parallel rows.
Func matmul(const std::vector<int> &size) {
    const int k = 12;
    Buffer<int32_t> a(std::vector<int>{k, size[1]}, "A"), b(std::vector<int>{size[0], k}, "B");
    for (int j = 0; j < size[1]; j++)
        for (int i = 0; i < k; i++) a(i, j) = (i * 7 + j * 3) % 11 - 5;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < size[0]; i++) b(i, j) = (i * 5 + j * 13) % 9 - 4;
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, k, "r");
    Func c("matmul");
    c(x, y) = 0;
    c(x, y) += a(r, y) * b(x, r);
    c.vectorize(x, 4);
    c.update().split(x, xo, xi, 4).vectorize(xi).parallel(y);
    return c;
}

// Two updates that do not commute, the second over an RDom reading the point after its
// own (so the earlier definitions cover one more column than the window).
Func noncommutative_updates(const std::vector<int> &size) {
    Buffer<uint16_t> in = input_for(size, 1, 0);
    Var x("x"), y("y");
    RDom r(0, size[0], "r");
    Func f("noncommutative_updates");
    f(x, y) = cast<int32_t>(in(x, y));
    f(x, y) = f(x, y) * f(x, y) + x;
    f(r, y) = f(r, y) * 2 - f(r + 1, y);
    f.update(1).parallel(y);
    return f;
}

// A producer with an update, stored at the root and computed per row of its consumer.
Func updated_producer(const std::vector<int> &size) {
    Buffer<uint16_t> in = input_for(size, 0, 2);
    Var x("x"), y("y");
    Func g("g"), h("updated_producer");
    g(x, y) = cast<int32_t>(in(x, y));
    g(x, y) = g(x, y) * 2 + 1;
    h(x, y) = g(x, y) + g(x, y + 1) * 3 + g(x, y + 2);
    g.store_root().compute_at(h, y);
    return h;
}

// Downsampling: the consumer reads every second row of a producer slid along its rows,
// whose own row loop is parallel (fuzzer seed 921100057's shape), and two columns per
// point, with a stride of 2 in vector code.
Func downsample(const std::vector<int> &size) {
    // The slid producer's region is bounded through the slide's select, which reaches one
    // row above the first (rows from -1 are read).
    Buffer<uint16_t> in(std::vector<int>{2 * size[0] + 2, 2 * size[1] + 2}, "input");
    in.set_min({0, -1});
    for (int j = -1; j < 2 * size[1] + 1; j++)
        for (int i = 0; i < in.width(); i++) in(i, j) = uint16_t((i * 37 + j * 11 + 11) & 0x3ff);
    Var x("x"), y("y");
    Func g("g"), h("downsample");
    g(x, y) = in(x, y) * 3 + in(x + 1, y);
    h(x, y) = g(2 * x, 2 * y) + g(2 * x + 1, 2 * y);
    g.store_root().compute_at(h, y).parallel(y);
    h.vectorize(x, 8);
    return h;
}

std::vector<MutationPipeline> pipelines() {
    using M = Mutation;
    return {
        {"blur_sliding", "compute_at + store_at (sliding window, fold), parallel strips, vectors, ShiftInwards tails",
         {{37, 27}, {64, 21}, {19, 44}},
         {M::ShiftInwardsTailOffByOne, M::ProducerAfterConsumer, M::ComputeAtRegionOneRowShort,
          M::SlidingWindowStartOffByOne, M::SlidingWindowSkipsWarmUp, M::FoldFactorHalved, M::VectorLoadLanesReversed},
         blur_sliding},
        {"clamped_stencil", "boundary clamps partitioned, vectors", {{29, 13}, {40, 9}},
         {M::ClampPeeledOneIterationEarly}, clamped_stencil},
        {"guarded_tiles", "GuardWithIf tails partitioned, unrolled loops, a producer per tile with variable extents",
         {{23, 10}, {31, 17}},
         {M::GuardWithIfTailOffByOne, M::SplitOuterExtentRoundsDown, M::FullTileTestOffByOne, M::UnrollDropsLastCopy,
          M::GuardPeeledOneIterationLate},
         guarded_tiles},
        {"fused_tiles", "fused parallel tile loop (more tiles across than down, or the other way)",
         {{24, 12}, {20, 36}}, {}, fused_tiles},
        {"matmul", "reduction update (RDom), vectorized split of an update with a tail, parallel rows",
         {{14, 10}, {21, 16}}, {}, matmul},
        {"noncommutative_updates", "updates in order (f * f + x, then f(r) = 2 f(r) - f(r + 1)), reads past the window",
         {{12, 6}, {17, 9}}, {}, noncommutative_updates},
        {"updated_producer", "a Func with an update computed per consumer row, stored at the root",
         {{20, 12}, {9, 25}}, {}, updated_producer},
        {"downsample", "slide over every second row into a fold, a parallel producer loop, strided vector loads",
         {{16, 10}, {24, 7}}, {}, downsample},
    };
}

/** Whether the lowered code has a parallel loop (a race needs one). */
bool has_parallel_loop(const ir::Stmt &s) {
    struct Find : ir::IRVisitor {
        bool found = false;
        using IRVisitor::include;
        void visit(const ir::For *op) override {
            found = found || op->for_type == ir::ForType::Parallel;
            IRVisitor::visit(op);
        }
    } f;
    f.include(s);
    return f.found;
}

std::string first_line(const std::string &s, size_t max = 110) {
    std::string l = s.substr(0, s.find('\n'));
    return l.size() > max ? l.substr(0, max - 3) + "..." : l;
}

struct RunOutcome {
    bool differs = false;
    bool completed = false;  // the run reached the end (memory-safe at this size)
    std::string detail;
};

/** Whether `error` is the message of one of the checks `p` makes before its loop nest (an
 * assertion at the top of its body, among lets and other assertions). */
bool fails_at_entry(const ir::LoweredPipeline &p, const std::string &error) {
    for (ir::Stmt s = p.body; s.defined();) {
        if (const ir::LetStmt *l = ir::as<ir::LetStmt>(s)) {
            s = l->body;
        } else if (const ir::Block *b = ir::as<ir::Block>(s)) {
            const ir::AssertStmt *a = ir::as<ir::AssertStmt>(b->first);
            if (!a) return false;
            const ir::StringImm *text = a->message.empty() ? nullptr : ir::as<ir::StringImm>(a->message.front());
            if (text && !text->value.empty() && error.find(text->value) != std::string::npos) return true;
            s = b->rest;
        } else {
            return false;
        }
    }
    return false;
}

/** The lowered pipeline run by the IR interpreter over the window, against the reference. */
RunOutcome interpret(const ir::LoweredPipeline &p, const Buffer<> &reference) {
    RunOutcome o;
    std::vector<int> extents, mins;
    for (int i = 0; i < reference.dimensions(); i++) {
        extents.push_back(reference.extent(i));
        mins.push_back(reference.min(i));
    }
    Buffer<> out(reference.type(), extents, "interpreted");
    semantics::RunOptions options;
    options.reverse_parallel = true;
    try {
        semantics::run(p, semantics::default_arguments(p, out.data_handle()), options);
        o.completed = true;
    } catch (const std::exception &e) {
        const std::string what = e.what();
        // Poison left in the output window is found after the run: the accesses were fine.
        o.completed = what.find("of the output window") != std::string::npos;
        o.differs = true;
        o.detail = "interpreter: " + first_line(what, 200);
        return o;
    }
    const std::string diff = compare_window(out, reference, mins, extents);
    o.differs = !diff.empty();
    if (o.differs) o.detail = "interpreter: " + first_line(diff, 200);
    return o;
}

/** The lowered pipeline compiled to C and run over the window, against the reference. */
RunOutcome run_compiled(const ir::LoweredPipeline &p, const Buffer<> &reference) {
    RunOutcome o;
    std::vector<int> extents, mins;
    for (int i = 0; i < reference.dimensions(); i++) {
        extents.push_back(reference.extent(i));
        mins.push_back(reference.min(i));
    }
    Buffer<> out(reference.type(), extents, "compiled");
    // Not zero: a point the code never writes should not happen to hold the right value.
    std::memset(out.data(), 0xa5, size_t(out.number_of_elements()) * size_t(out.type().bytes()));
    try {
        driver::CCompilerOptions cc;
        cc.flags = driver::c_flags_for(get_jit_target_from_environment());
        driver::JITModule m(p, cc);
        m.run(semantics::default_arguments(p, out.data_handle()));
        o.completed = true;
    } catch (const std::exception &e) {
        o.differs = true;
        o.detail = std::string("compiled: ") + first_line(e.what(), 200);
        return o;
    }
    const std::string diff = compare_window(out, reference, mins, extents);
    o.differs = !diff.empty();
    if (o.differs) o.detail = "compiled: " + first_line(diff, 200);
    return o;
}

/** One mutant on one pipeline at one size. */
struct MutantResult {
    const MutationInfo *mutant;
    std::string pipeline;
    std::string size;
    enum class Status { RejectedByLowering, Lowered } status = Status::Lowered;
    bool differs = false, race = false;
    /** The run stopped at one of the checks before the loop nest (the code asks more of the
     * buffers than the algorithm does): the validator proves what the code computes when
     * those checks pass (partial correctness, docs/validation.md), so such a mutant is
     * shown but not counted. */
    bool rejects_at_entry = false;
    Verdict verdict = Verdict::Unknown;
    std::string detail;  // why it differs, or what lowering said
    std::string verdict_detail;
    double validator_seconds = 0;
    bool counted() const { return status == Status::Lowered && ((differs && !rejects_at_entry) || race); }
};

struct MutationRun {
    std::vector<MutantResult> results;
    /** Problems with the unmutated pipelines (wrong output, refuted): test failures. */
    std::vector<std::string> baseline_failures;
    int counted = 0, refuted = 0, proved = 0, unknown = 0, rejected = 0, same_output = 0, rejecting = 0;
    double seconds = 0;
    /** Where the time goes: lowering, the IR interpreter, C compilation and runs, the validator. */
    double lowering_seconds = 0, interpreter_seconds = 0, compiled_seconds = 0, validator_seconds = 0;
    double rate() const { return counted ? double(refuted) / counted : 0; }
};

std::string size_text(const std::vector<int> &size) {
    std::string s;
    for (size_t i = 0; i < size.size(); i++) s += (i ? "x" : "") + std::to_string(size[i]);
    return s;
}

ir::LoweredPipeline lower_checked(const Func &f) {
    lower::LowerOptions options;
    options.check_invariants = true;  // the contract of lowered code, after every pass
    return lower::lower(f.data(), options);
}

/** A check's verdict and detail, for the table: the first refuting check, else the first
 * that is not proved. */
std::string verdict_detail(const validator::ValidationReport &r) {
    for (const auto &c : r.checks)
        if (c.verdict == Verdict::Refuted) return c.name + ": " + first_line(c.detail);
    for (const auto &c : r.checks)
        if (c.verdict != Verdict::Proved) return c.name + ": " + first_line(c.detail);
    return "every check proved";
}

/** Runs f, adding the seconds it takes to `total`. */
template<typename F>
auto timed(double &total, F &&f) {
    const auto start = std::chrono::steady_clock::now();
    struct Add {
        double &total;
        std::chrono::steady_clock::time_point start;
        ~Add() { total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
    } add{total, start};
    return f();
}

MutationRun run_mutants() {
    // Many small C files: compile them quickly (the fuzzer's tests do the same).
    ::setenv("TESSERA_C_OPT", "-O0", 0);
    const auto start = std::chrono::steady_clock::now();
    MutationRun run;
    for (const MutationPipeline &pipeline : pipelines()) {
        if (!selected(pipeline.name)) continue;
        const size_t sizes = long_run() ? pipeline.sizes.size() : 1;
        for (size_t si = 0; si < sizes; si++) {
            const std::vector<int> &size = pipeline.sizes[si];
            const Func out = pipeline.make(size);
            Buffer<> reference(out.type(), size, "reference");
            out.realize_reference(reference);

            const ir::LoweredPipeline baseline = timed(run.lowering_seconds, [&] { return lower_checked(out); });
            const std::string baseline_code = ir::to_string(baseline.body);
            const RunOutcome base_interpreted =
                timed(run.interpreter_seconds, [&] { return interpret(baseline, reference); });
            const RunOutcome base_compiled =
                timed(run.compiled_seconds, [&] { return run_compiled(baseline, reference); });
            double base_seconds = 0;
            const validator::ValidationReport base_report =
                timed(base_seconds, [&] { return validator::validate_lowered(baseline); });
            run.validator_seconds += base_seconds;
            const std::string where = std::string(pipeline.name) + " " + size_text(size);
            if (base_interpreted.differs || base_compiled.differs)
                run.baseline_failures.push_back(where + ": the unmutated pipeline differs from the reference: " +
                                                base_interpreted.detail + base_compiled.detail);
            if (base_report.verdict == Verdict::Refuted)
                run.baseline_failures.push_back(where + ": the unmutated pipeline is refuted: " +
                                                base_report.to_string());
            std::printf("[ mutation ] %-24s %-6s unmutated: %s in %.1f s (%s); exercises %s\n", pipeline.name,
                        size_text(size).c_str(), verdict_name(base_report.verdict), base_seconds,
                        verdict_detail(base_report).c_str(), pipeline.exercises);

            for (const MutationInfo &m : lower::testing::all_mutations()) {
                const auto &targets = pipeline.targets;
                const bool targeted = std::find(targets.begin(), targets.end(), m.mutation) != targets.end();
                if (!long_run() && !targets.empty() && !targeted) continue;
                MutantResult r;
                r.mutant = &m;
                r.pipeline = pipeline.name;
                r.size = size_text(size);
                ir::LoweredPipeline mutated;
                {
                    ScopedMutation on(m.mutation);
                    try {
                        mutated = timed(run.lowering_seconds, [&] { return lower_checked(out); });
                    } catch (const std::exception &e) {
                        r.status = MutantResult::Status::RejectedByLowering;
                        r.detail = first_line(e.what(), 200);
                        run.results.push_back(r);
                        continue;
                    }
                }
                if (ir::to_string(mutated.body) == baseline_code) continue;  // not applicable here
                r.race = m.race && has_parallel_loop(mutated.body);
                const RunOutcome interpreted =
                    timed(run.interpreter_seconds, [&] { return interpret(mutated, reference); });
                r.differs = interpreted.differs;
                r.detail = interpreted.detail;
                r.rejects_at_entry = interpreted.differs && !interpreted.completed && fails_at_entry(mutated, interpreted.detail);
                if (interpreted.completed) {
                    const RunOutcome compiled =
                        timed(run.compiled_seconds, [&] { return run_compiled(mutated, reference); });
                    if (compiled.differs) {
                        r.differs = true;
                        r.detail += (r.detail.empty() ? "" : "; ") + compiled.detail;
                    }
                }
                try {
                    const validator::ValidationReport report =
                        timed(r.validator_seconds, [&] { return validator::validate_lowered(mutated); });
                    run.validator_seconds += r.validator_seconds;
                    r.verdict = report.verdict;
                    r.verdict_detail = verdict_detail(report);
                } catch (const std::exception &e) {
                    // The validator answers Unknown on its own errors; anything escaping is
                    // still not a proof, and is shown.
                    r.verdict = Verdict::Unknown;
                    r.verdict_detail = std::string("the validator threw: ") + first_line(e.what());
                }
                run.results.push_back(r);
            }
        }
    }
    for (const MutantResult &r : run.results) {
        if (r.status == MutantResult::Status::RejectedByLowering) run.rejected++;
        if (r.status != MutantResult::Status::Lowered) continue;
        if (r.rejects_at_entry && !r.race) {
            run.rejecting++;
            continue;
        }
        if (!r.counted()) {
            run.same_output++;
            continue;
        }
        run.counted++;
        run.refuted += r.verdict == Verdict::Refuted;
        run.proved += r.verdict == Verdict::Proved;
        run.unknown += r.verdict == Verdict::Unknown;
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

/** The run, once per process (the tests below share it). */
const MutationRun &mutation_run() {
    static const MutationRun run = run_mutants();
    return run;
}

void print_table(const MutationRun &run) {
    std::printf("[ mutation ] %-30s %-24s %-6s %-12s %-8s %6s  %s\n", "mutant", "pipeline", "size", "output", "verdict",
                "time", "detail");
    for (const MutantResult &r : run.results) {
        std::string output, verdict, detail;
        if (r.status == MutantResult::Status::RejectedByLowering) {
            output = "-";
            verdict = "contract";
            detail = r.detail;
        } else {
            output = r.rejects_at_entry ? "rejects" : r.differs ? (r.race ? "differs+race" : "differs") : (r.race ? "race" : "same");
            verdict = verdict_name(r.verdict);
            detail = r.verdict_detail + (r.detail.empty() ? "" : " | " + first_line(r.detail, 90));
        }
        std::printf("[ mutation ] %-30s %-24s %-6s %-12s %-8s %5.1fs  %s\n", r.mutant->name, r.pipeline.c_str(),
                    r.size.c_str(), output.c_str(), verdict.c_str(), r.validator_seconds, detail.c_str());
    }
    std::printf("[ mutation ] %d mutants lowered differently from their pipeline, %d rejected by lowering's contract "
                "check; of the lowered ones %d differ from the reference or race (%d refuted, %d unknown, %d proved), "
                "%d have the same output, %d stop at an entry check on this window (not counted); refutation rate %.2f "
                "(goal %.2f)\n",
                int(run.results.size()) - run.rejected, run.rejected, run.counted, run.refuted, run.unknown,
                run.proved, run.same_output, run.rejecting, run.rate(), kGoalRefutationRate);
    std::printf("[ mutation ] %.1f s: lowering %.1f s, IR interpreter %.1f s, C compilation and runs %.1f s, validator "
                "%.1f s\n",
                run.seconds, run.lowering_seconds, run.interpreter_seconds, run.compiled_seconds,
                run.validator_seconds);
}

}  // namespace

// The switch is off unless a ScopedMutation is alive, and restores what was on before.
TEST(Mutation, SwitchIsScoped) {
    EXPECT_EQ(lower::testing::active_mutation(), Mutation::None);
    {
        ScopedMutation outer(Mutation::FoldFactorHalved);
        EXPECT_TRUE(lower::testing::injects(Mutation::FoldFactorHalved));
        {
            ScopedMutation inner(Mutation::UnrollDropsLastCopy);
            EXPECT_FALSE(lower::testing::injects(Mutation::FoldFactorHalved));
        }
        EXPECT_TRUE(lower::testing::injects(Mutation::FoldFactorHalved));
    }
    EXPECT_EQ(lower::testing::active_mutation(), Mutation::None);
    EXPECT_GE(lower::testing::all_mutations().size(), 20u);
}

// A Func realized with a mutant on, then without, is compiled twice: neither the Func's
// compiled module nor the disk cache's index serves one for the other.
TEST(Mutation, JITKeepsMutatedAndUnmutatedApart) {
    ::setenv("TESSERA_C_OPT", "-O0", 0);
    Buffer<uint16_t> in = image(21, 6);
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("jit_mutation_key");
    f(x, y) = in(x, y) + 1;
    f.split(x, xo, xi, 8, TailStrategy::GuardWithIf);
    const Buffer<> reference = f.realize_reference({21, 6});
    EXPECT_EQ(compare_window(f.realize({21, 6}), reference, {0, 0}, {21, 6}), "");
    {
        ScopedMutation on(Mutation::GuardWithIfTailOffByOne);  // the last column is not computed
        EXPECT_NE(compare_window(f.realize({21, 6}), reference, {0, 0}, {21, 6}), "");
    }
    EXPECT_EQ(compare_window(f.realize({21, 6}), reference, {0, 0}, {21, 6}), "");
}

// Every unmutated pipeline matches the reference and is not refuted; every mutant applies
// to some pipeline; no mutant whose output differs, or that races, is Proved.
TEST(Mutation, ValidatorNeverProvesAMutant) {
    const MutationRun &run = mutation_run();
    print_table(run);
    for (const std::string &f : run.baseline_failures) ADD_FAILURE() << f;
    std::map<std::string, int> caught;  // per mutant: pipelines where it differs, races or stops at entry, or lowering rejects it
    for (const MutantResult &r : run.results) {
        if (r.counted() || r.rejects_at_entry || r.status == MutantResult::Status::RejectedByLowering) caught[r.mutant->name]++;
        if (r.counted()) {
            EXPECT_NE(r.verdict, Verdict::Proved)
                << "the validator proved the mutant " << r.mutant->name << " (" << r.mutant->description << ") of "
                << r.pipeline << " " << r.size << ", whose output differs or races: " << r.detail;
        }
    }
    int distinct = 0;
    for (const MutationInfo &m : lower::testing::all_mutations()) {
        if (caught.count(m.name)) distinct++;
        else ADD_FAILURE() << "the mutant " << m.name << " changes no pipeline's output here; give it a pipeline";
    }
    EXPECT_GE(distinct, 20);
}

// The share of those mutants the validator refutes. kRequiredRefutationRate (and its long
// run's) is what it reaches now; kGoalRefutationRate is the target.
TEST(Mutation, ValidatorRefutesNinetyFivePercent) {
    const MutationRun &run = mutation_run();
    ASSERT_GT(run.counted, 0);
    const double required = long_run() ? kRequiredRefutationRateLongRun : kRequiredRefutationRate;
    std::printf("[ mutation ] refuted %d of %d mutants whose output differs or that race: %.2f (required %.2f, goal "
                "%.2f)\n",
                run.refuted, run.counted, run.rate(), required, kGoalRefutationRate);
    EXPECT_GE(run.rate(), required);
}
