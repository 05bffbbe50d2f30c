// The structure checks of the translation validator (src/validate/StructureChecks.h):
// coverage of the output window and races between iterations of parallel loops, on the
// lowered code of real schedules (Proved, or Unknown with a reason, never Refuted) and on
// mutants of it that drop a row or make every iteration write the same row (Refuted, with
// a counterexample).

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"
#include "lower/Lower.h"
#include "support/images.h"
#include "validate/Coverage.h"
#include "validate/LoopNest.h"
#include "validate/StructureChecks.h"
#include "validate/Validate.h"

using namespace tessera;
using validator::Verdict;

namespace {

using test::image;

std::string describe(const validator::StructureReport &r) {
    return std::string("coverage: ") + validator::verdict_name(r.coverage.verdict) + " (" + r.coverage.detail +
           ")\nraces: " + validator::verdict_name(r.races.verdict) + " (" + r.races.detail + ")\nbounds: " +
           validator::verdict_name(r.bounds.verdict) + " (" + r.bounds.detail + ")";
}

/** Changes the loops whose variable's name ends with `suffix`. */
class EditLoops : public ir::IRMutator {
public:
    EditLoops(std::string suffix, std::function<ir::Stmt(const ir::For *, ir::Stmt)> edit)
        : suffix_(std::move(suffix)), edit_(std::move(edit)) {}
    int edited = 0;

protected:
    ir::Stmt visit(const ir::For *op, const ir::Stmt &self) override {
        ir::Stmt s = IRMutator::visit(op, self);
        if (op->name.size() >= suffix_.size() && op->name.compare(op->name.size() - suffix_.size(), suffix_.size(), suffix_) == 0) {
            edited++;
            return edit_(ir::as<ir::For>(s), s);
        }
        return s;
    }

private:
    std::string suffix_;
    std::function<ir::Stmt(const ir::For *, ir::Stmt)> edit_;
};

/** The lowered code of f(x, y) = input(x, y) + 3 over a 40 x 30 input, with its loop over
 * y parallel if asked (the mutants below start from it). */
ir::LoweredPipeline lowered_pointwise(bool parallel_y) {
    Buffer<uint16_t> in = image(40, 30);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + 3;
    if (parallel_y) f.parallel(y);
    return lower::lower(f.data());
}

}  // namespace

TEST(ValidateStructure, PointwiseFuncIsCoveredWithoutRaces) {
    Buffer<uint16_t> in = image(64, 48);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2 + 1;
    auto r = validator::check_structure(lower::lower(f.data()));
    EXPECT_EQ(r.coverage.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.races.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.modelled, r.statements) << describe(r);
}

TEST(ValidateStructure, HalideBlurScheduleIsCoveredWithoutRaces) {
    // apps/blur's schedule: strips of 32 rows in parallel, vectors of 16, a sliding window
    // over blur_x stored per strip (each strip's storage is its own, so the two rows that
    // neighbouring strips both compute are no race).
    Buffer<uint16_t> in = image(256 + 2, 96 + 2);
    Var x("x"), y("y"), yi("yi");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
    blur_y.split(y, y, yi, 32).parallel(y).vectorize(x, 16);
    blur_x.store_at(blur_y, y).compute_at(blur_y, yi).vectorize(x, 16);
    auto r = validator::check_structure(lower::lower(blur_y.data()));
    EXPECT_EQ(r.coverage.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.races.verdict, Verdict::Proved) << describe(r);
}

TEST(ValidateStructure, AMissingRowIsRefutedWithThePoint) {
    ir::LoweredPipeline p = lowered_pointwise(false);
    EditLoops shorten(".y", [](const ir::For *op, ir::Stmt) {
        return ir::For::make(op->name, op->min, ir::Sub::make(op->extent, ir::IntImm::make(op->extent.type(), 1)),
                             op->for_type, op->body, op->loop);
    });
    p.body = shorten.mutate(p.body);
    ASSERT_EQ(shorten.edited, 1);
    auto r = validator::check_structure(p);
    EXPECT_EQ(r.coverage.verdict, Verdict::Refuted) << describe(r);
    EXPECT_NE(r.coverage.detail.find("is never written"), std::string::npos) << describe(r);
    EXPECT_NE(r.coverage.detail.find("f.extent.1"), std::string::npos) << describe(r);
}

TEST(ValidateStructure, EveryIterationWritingOneRowIsARace) {
    Buffer<uint16_t> in = image(40, 30);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + 3;
    f(x, y) += cast<uint16_t>(y);
    f.update().parallel(y);
    ir::LoweredPipeline p = lower::lower(f.data());
    // Every iteration of the update's parallel loop over y updates the first row: the
    // iterations race on values that are not final.
    EditLoops first_row(".s1.y", [](const ir::For *op, ir::Stmt) {
        return ir::For::make(op->name, op->min, op->extent, op->for_type, ir::substitute(op->name, op->min, op->body),
                             op->loop);
    });
    p.body = first_row.mutate(p.body);
    ASSERT_EQ(first_row.edited, 1);
    auto r = validator::check_structure(p);
    EXPECT_EQ(r.races.verdict, Verdict::Refuted) << describe(r);
    EXPECT_NE(r.races.detail.find("both write one cell of f"), std::string::npos) << describe(r);
}

TEST(ValidateStructure, OverlappingFinalValuesAreNoRace) {
    // A ShiftInwards split of a parallel loop: the last strip overlaps the one before and
    // writes the same values there (as in Halide).
    Buffer<uint16_t> in = image(40, 30);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func f("f");
    f(x, y) = in(x, y) + 3;
    f.split(y, yo, yi, 8, TailStrategy::ShiftInwards).parallel(yo);
    auto r = validator::check_structure(lower::lower(f.data()));
    EXPECT_EQ(r.races.verdict, Verdict::Proved) << describe(r);
    EXPECT_NE(r.races.detail.find("final values"), std::string::npos) << describe(r);
    EXPECT_EQ(r.coverage.verdict, Verdict::Proved) << describe(r);
}

TEST(ValidateStructure, AScatterIsNotModelledAndTheRestIs) {
    // A histogram: the point written depends on the input's values.
    Buffer<uint8_t> in(std::vector<int>{16, 16}, "in");
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) in(x, y) = uint8_t((x * 7 + y) % 8);
    Var i("i");
    RDom r(0, 16, 0, 16, "r");
    Func h("h");
    h(i) = 0;
    h(clamp(cast<int32_t>(in(r.x, r.y)), 0, 7)) += 1;
    auto rep = validator::check_structure(lower::lower(h.data()));
    // Every store is looked at (the value check follows values through storage): the
    // scatter, whose point depends on the input's values, is not modelled; the pure
    // definition and the final copy into the output are, and the output is covered.
    EXPECT_EQ(rep.statements, 3) << describe(rep);
    EXPECT_EQ(rep.modelled, 2) << describe(rep);
    EXPECT_EQ(rep.coverage.verdict, Verdict::Proved) << describe(rep);
    EXPECT_EQ(rep.values.verdict, Verdict::Unknown) << describe(rep);
}

TEST(ValidateStructure, ADataDependentStoreInAParallelLoopIsUnknown) {
    // A scatter in a parallel loop: which points two iterations write depends on data.
    Buffer<uint8_t> in(std::vector<int>{16, 16}, "in");
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) in(x, y) = uint8_t((x * 7 + y) % 8);
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = 0;
    RDom r(0, 16, "r");
    g(clamp(cast<int32_t>(in(r.x, 0)), 0, 7), y) += y;
    g.update().parallel(y);
    auto rep = validator::check_structure(lower::lower(g.data()));
    EXPECT_EQ(rep.races.verdict, Verdict::Unknown) << describe(rep);
    EXPECT_NE(rep.races.detail.find("read from memory"), std::string::npos) << describe(rep);
}

TEST(ValidateStructure, AFusedParallelLoopIsModelledAsTheLoopsItFuses) {
    // Tiles in parallel over one fused loop: its extent is a product of two tile counts and
    // its variable is divided by one of them, which the model takes as the two loops.
    Buffer<uint16_t> in = image(64, 48);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    Func f("f");
    f(x, y) = in(x, y) * 3;
    f.tile(x, y, xo, yo, xi, yi, 8, 8).fuse(xo, yo, t).parallel(t);
    auto r = validator::check_structure(lower::lower(f.data()));
    EXPECT_EQ(r.modelled, r.statements) << describe(r);
    EXPECT_EQ(r.coverage.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.races.verdict, Verdict::Proved) << describe(r);
}

TEST(ValidateStructure, AStorePastTheEndIsRefutedWithThePoint) {
    ir::LoweredPipeline p = lowered_pointwise(true);
    EXPECT_EQ(validator::check_structure(p).bounds.verdict, Verdict::Proved);
    // The loop over x starts one later: its last iteration stores past the end of a row.
    EditLoops shift(".x", [](const ir::For *op, ir::Stmt) {
        return ir::For::make(op->name, ir::Add::make(op->min, ir::IntImm::make(op->min.type(), 1)), op->extent,
                             op->for_type, op->body, op->loop);
    });
    p.body = shift.mutate(p.body);
    ASSERT_EQ(shift.edited, 1);
    auto r = validator::check_structure(p);
    EXPECT_EQ(r.bounds.verdict, Verdict::Refuted) << describe(r);
    EXPECT_NE(r.bounds.detail.find("writes f outside its region"), std::string::npos) << describe(r);
}

TEST(ValidateStructure, AStorePastTheEndOnlyOutsideTheCoordinateRangesIsNoRefutation) {
    // The checks hold the entry checks' coordinate ranges and the int32 parameters' ranges
    // apart from the context (src/validate/LoopNest.h) and ask a failure again with them:
    // a loop one iteration longer only where the output ends past 2^30, which the entry
    // checks rule out, stores past the end of no run; past 1000, it does.
    for (const int64_t from : {int64_t(1) << 30, int64_t(1000)}) {
        ir::LoweredPipeline p = lowered_pointwise(false);
        EditLoops longer(".x", [from](const ir::For *op, ir::Stmt) {
            const Expr end = ir::Add::make(ir::Variable::make(Int(32), "f.min.0"), ir::Variable::make(Int(32), "f.extent.0"));
            const Expr one_more = ir::Select::make(ir::GT::make(end, ir::IntImm::make(Int(32), from)),
                                                       ir::IntImm::make(Int(32), 1), ir::IntImm::make(Int(32), 0));
            return ir::For::make(op->name, op->min, ir::Add::make(op->extent, one_more), op->for_type, op->body, op->loop);
        });
        p.body = longer.mutate(p.body);
        ASSERT_EQ(longer.edited, 1);
        const auto r = validator::check_structure(p);
        if (from == 1000) {
            EXPECT_EQ(r.bounds.verdict, Verdict::Refuted) << describe(r);
            EXPECT_NE(r.bounds.detail.find("writes f outside its region"), std::string::npos) << describe(r);
        } else {
            EXPECT_EQ(r.bounds.verdict, Verdict::Proved) << describe(r);
        }
    }
}

TEST(ValidateStructure, DifferentPointsInOneCellAreARace) {
    // Storage that maps two points to one cell (as a fold too small for what a parallel
    // loop computes does: the schedule fuzzer's seed 921100057) races even when each store
    // writes a final value: the values are those of different points.
    ir::LoweredPipeline p = lowered_pointwise(true);
    // Every row stored into the first row's cells: the loop variable replaced by its first
    // value everywhere in the body (lets included), the provenance of each store kept, so
    // that it still says which point the store is for.
    struct OneRow : ir::IRMutator {
        int edited = 0;
        ir::Stmt visit(const ir::For *op, const ir::Stmt &self) override {
            if (op->for_type != ir::ForType::Parallel) return IRMutator::visit(op, self);
            struct Provenances : ir::IRMutator {
                std::vector<std::shared_ptr<const ir::Provenance>> list;
                size_t next = 0;
                bool restore = false;
                ir::Stmt visit(const ir::Store *s, const ir::Stmt &self) override {
                    if (!restore) {
                        list.push_back(s->provenance);
                        return self;
                    }
                    return ir::Store::make(s->buffer, s->value, s->index, list.at(next++));
                }
            } provenances;
            provenances.mutate(op->body);
            provenances.restore = true;
            ir::Stmt body = provenances.mutate(ir::substitute(op->name, op->min, op->body));
            edited += int(provenances.next);
            return ir::For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
        }
    } one_row;
    p.body = one_row.mutate(p.body);
    ASSERT_GE(one_row.edited, 1);
    auto r = validator::check_structure(p);
    EXPECT_EQ(r.races.verdict, Verdict::Refuted) << describe(r);
    EXPECT_NE(r.races.detail.find("both write one cell of f"), std::string::npos) << describe(r);
}

TEST(ValidateStructure, StridesEqualAcrossADimensionOfExtentOne) {
    // A producer stored at the root whose middle dimension has extent 1: its strides 1 and
    // 2 are equal, and lowering put the stride's value in a consumer's index; the term
    // belongs to the outer dimension (the schedule fuzzer's seed 1516100032 was refuted
    // wrongly when the inner one took it).
    Buffer<int32_t> in0(std::vector<int>{3, 5, 4}, "in0");
    in0.set_min({-2, -2, -3});
    Var x("x"), y("y"), z("z");
    Func mirror = BoundaryConditions::mirror_image(in0);
    Func f0("f0");
    f0(x, y, z) = mirror(z + 3, -2, 0 - z) + cast<int32_t>(x);
    mirror.vectorize(mirror.args()[0], 4, TailStrategy::ShiftInwards);
    f0.reorder(x, z, y);
    mirror.compute_at(f0, y).store_root();
    auto r = validator::check_structure(lower::lower(f0.data()));
    EXPECT_EQ(r.bounds.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.coverage.verdict, Verdict::Proved) << describe(r);
}

TEST(ValidateStructure, CopiesOfAnAllocationInAPartitionedLoopAreModelled) {
    // A boundary condition read at the strip's rows partitions the parallel loop over
    // strips, and each part gets its own copy of the producer's storage (f, f$2, f$3 after
    // renaming), indexed with the strides and region of the original: every access of
    // every copy is modelled, so the races between strips and the bounds are decided.
    Buffer<uint16_t> in = image(64, 48);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func f("f"), g("g");
    f(x, y) = cast<uint16_t>(clamped(x, y - 1)) + cast<uint16_t>(clamped(x, y + 1));
    g(x, y) = f(x, y) + f(x, y + 1) + cast<uint16_t>(clamped(x, y));
    g.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
    f.store_at(g, yo).compute_at(g, yi);
    const ir::LoweredPipeline p = lower::lower(g.data());
    // The premise: partitioning did copy the storage.
    EXPECT_NE(ir::to_string(p.body).find("allocate f$2"), std::string::npos);
    validator::StructureOptions options;
    auto r = validator::check_structure(p, options);
    EXPECT_EQ(r.races.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.bounds.verdict, Verdict::Proved) << describe(r);
}

TEST(ValidateStructure, PartitionedStripsAreCoveredAlongTheLoops) {
    // apps/unsharp's loops: strips of rows in parallel over a three-channel input with a
    // boundary condition, a sliding window of gray rows per strip, channels inside the
    // rows, vectors of x. The loops over strips, channels and vectors are each partitioned
    // where the clamps change, at floors of the buffer bounds; the points the output's
    // stores write are many pieces, and the window minus their union reaches the
    // operation limit. Along the loops, the rows are covered by the strips, then at each
    // row the channels, then at each channel the x vectors.
    Buffer<uint8_t> in(std::vector<int>{40, 70, 3}, "in");
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func gray("gray"), out("out");
    gray(x, y) = cast<uint16_t>(clamped(x, y, 0)) + cast<uint16_t>(clamped(x, y, 1));
    out(x, y, c) = gray(x, y - 1) + gray(x, y + 1) + cast<uint16_t>(clamped(x, y, c));
    out.split(y, yo, yi, 32).vectorize(x, 8).parallel(yo).reorder(x, c, yi, yo);
    gray.compute_at(out, yi).store_at(out, yo).vectorize(x, 8);
    const ir::LoweredPipeline p = lower::lower(out.data());
    // The stores to the output alone, with the coverage check on its own.
    validator::IslContext ctx(validator::StructureOptions{}.max_operations);
    const validator::LoopNest nest =
        validator::loop_nest_of(ctx, p, [](const validator::Statement &s) { return s.store->buffer == "out"; });
    int stores = 0;
    for (const validator::Statement &s : nest.statements) stores += s.store->buffer == "out";
    EXPECT_GE(stores, 6);  // the premise: the partitions made many stores
    ctx.reset_operations();
    const validator::CheckResult r = validator::check_coverage(ctx, p, nest);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.detail;
    EXPECT_NE(r.detail.find("along the loops"), std::string::npos) << r.detail;
}

TEST(ValidateStructure, ClampedReadsOfAnInputAreInBounds) {
    // apps/harris: a boundary condition on a three-channel input read at constant
    // channels. In the boundary loops of the partitioned vector loops the clamped x
    // coordinate takes many cases, and its clamp's bounds show it inside the input; the
    // channel's clamp, min(max(in.min.2, 1), in.max.2) for channel 1, is inside only by its
    // value (its bound 1 is below a channel range that starts above it).
    Buffer<uint8_t> in(std::vector<int>{40, 24, 3}, "in");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func gray("gray"), out("out");
    gray(x, y) = cast<uint16_t>(clamped(x, y, 0)) + cast<uint16_t>(clamped(x, y, 1)) * 2 + cast<uint16_t>(clamped(x, y, 2));
    out(x, y) = gray(x - 1, y) + gray(x + 1, y + 1);
    out.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
    gray.compute_at(out, yo).vectorize(x, 8);
    auto r = validator::check_structure(lower::lower(out.data()));
    EXPECT_EQ(r.bounds.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.races.verdict, Verdict::Proved) << describe(r);
    EXPECT_EQ(r.coverage.verdict, Verdict::Proved) << describe(r);
}

// A construct the model leaves out (here a division by a size) makes the checks Unknown at
// every run; at one run it is a constant, and a mistake behind it is Refuted there, with
// the run in the counterexample. What holds at that run is not taken for a proof.
namespace {
ir::LoweredPipeline rows_with_division(bool cut_short) {
    ir::LoweredPipeline p = lowered_pointwise(false);
    EditLoops edit(".x", [cut_short](const ir::For *op, ir::Stmt) {
        const Expr q = ir::Div::make(ir::Variable::make(op->extent.type(), "f.extent.1"), op->extent);
        const Expr extent = cut_short ? ir::Sub::make(op->extent, q)
                                          : ir::Add::make(op->extent, ir::Mul::make(q, ir::IntImm::make(op->extent.type(), 0)));
        return ir::For::make(op->name, op->min, extent, op->for_type, op->body, op->loop);
    });
    p.body = edit.mutate(p.body);
    EXPECT_EQ(edit.edited, 1);
    return p;
}
}  // namespace

TEST(ValidateStructure, AMistakeBehindADivisionBySizesIsRefutedAtOneRun) {
    const ir::LoweredPipeline p = rows_with_division(true);  // rows cut short by f.extent.1 / f.extent.0
    EXPECT_EQ(validator::check_structure(p).coverage.verdict, Verdict::Unknown);
    const ValidationReport r = validator::validate_lowered(p);
    const NamedCheck *coverage = r.check("coverage");
    ASSERT_NE(coverage, nullptr) << r.to_string();
    EXPECT_EQ(coverage->verdict, Verdict::Refuted) << r.to_string();
    EXPECT_NE(coverage->detail.find("at the run with"), std::string::npos) << r.to_string();
    EXPECT_NE(coverage->detail.find("is never written"), std::string::npos) << r.to_string();
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
}

TEST(ValidateStructure, CodeRightAtTheRunsTriedStaysUnknown) {
    const ValidationReport r = validator::validate_lowered(rows_with_division(false));  // + (f.extent.1 / f.extent.0) * 0
    EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_string();
    const NamedCheck *coverage = r.check("coverage");
    ASSERT_NE(coverage, nullptr) << r.to_string();
    EXPECT_EQ(coverage->verdict, Verdict::Unknown) << r.to_string();
}
