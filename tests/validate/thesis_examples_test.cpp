// The worked examples of Clément's thesis on translation validation (docs/validation.md),
// as Tessera pipelines: each correct lowering is Proved, and each mistake the thesis
// rejects, made in the lowered code, is Refuted. T3 (a rolling buffer) and T9 (a box
// filter under three schedules) are the folded and tiled stencils of values_test.cpp; T4's
// races are structure_test.cpp's; T5 and T10 are steps inside the checks (the value
// equalities and isl's own operations), not pipelines.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRMutator.h"
#include "lower/Lower.h"
#include "support/images.h"
#include "support/lowered_edits.h"
#include "validate/Validate.h"

using namespace tessera;
using validator::Verdict;

namespace {

validator::ValidationReport validate(const Func &f) { return validator::validate_lowered(lower::lower(f.data())); }
validator::ValidationReport validate(const ir::LoweredPipeline &p) { return validator::validate_lowered(p); }

/** T1: the outer product C(i, j) = A(i) * B(j), i split by 4 with its last tile shifted
 * inwards (rows written twice, with the same values), the tiles serial or parallel. */
Func outer_product(bool parallel) {
    ImageParam a(Int(32), 1, "a"), b(Int(32), 1, "b");
    Var i("i"), j("j"), i0("i0"), i1("i1");
    Func c("outer");
    c(i, j) = a(i) * b(j);
    c.split(i, i0, i1, 4).reorder(i1, j, i0);
    if (parallel) c.parallel(i0);
    return c;
}


/** Replaces the loads from `from` by loads from `to` at the same index. */
struct RenameLoads : ir::IRMutator {
    std::string from, to;
    int renamed = 0;
    Expr visit(const ir::Load *op, const Expr &self) override {
        if (op->buffer != from) return ir::IRMutator::visit(op, self);
        renamed++;
        return ir::Load::make(op->type, to, op->index);
    }
};


}  // namespace

TEST(ThesisExamples, T1OuterProductWithAShiftedTail) {
    // Serial tiles, and parallel ones: the rows two tiles write are written with the same
    // values, which is no race.
    for (bool parallel : {false, true}) {
        const validator::ValidationReport r = validate(outer_product(parallel));
        EXPECT_EQ(r.verdict, Verdict::Proved) << (parallel ? "parallel" : "serial") << "\n" << r.to_string();
    }
}

TEST(ThesisExamples, T1WrongValueAndWrongCellAreRefuted) {
    // T1-neg-b: a[i] * a[i] stored instead of a[i] * b[j].
    {
        ir::LoweredPipeline p = lower::lower(outer_product(false).data());
        RenameLoads rename;
        rename.from = "b";
        rename.to = "a";
        p.body = rename.mutate(p.body);
        ASSERT_GE(rename.renamed, 1);
        const validator::ValidationReport r = validate(p);
        EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
    }
    // T1-neg-c: the value of C(i, j) stored one column further (into c[i, j + 1]).
    {
        ir::LoweredPipeline p = lower::lower(outer_product(false).data());
        test::EditStores shifted;
        shifted.edit = [](const ir::Store *s) {
            const Expr stride = ir::Variable::make(Int(64), s->buffer + ".stride.1");
            const int lanes = s->index.type().lanes;
            return ir::Store::make(s->buffer, s->value, ir::Add::make(s->index, lanes > 1 ? ir::Broadcast::make(stride, lanes) : stride),
                                   s->provenance);
        };
        p.body = shifted.mutate(p.body);
        ASSERT_GE(shifted.edited, 1);
        const validator::ValidationReport r = validate(p);
        EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
    }
}

TEST(ThesisExamples, T2MatrixProductWithAnAccumulator) {
    // Implementation A: the accumulation in the output, rows in parallel; implementation B:
    // a local accumulator per point of tiles of 4 rows, copied out.
    ImageParam a(Int(32), 2, "a"), b(Int(32), 2, "b");
    Var i("i"), j("j"), i0("i0"), i1("i1");
    RDom k(0, a.width(), "k");
    Func direct("matmul_a");
    direct(j, i) = 0;
    direct(j, i) += a(k, i) * b(j, k);
    direct.parallel(i);
    direct.update(0).parallel(i);
    EXPECT_EQ(validate(direct).verdict, Verdict::Proved) << validate(direct).to_string();

    Func acc("acc"), tiled("matmul_b");
    acc(j, i) = 0;
    acc(j, i) += a(k, i) * b(j, k);
    tiled(j, i) = acc(j, i);
    tiled.split(i, i0, i1, 4);
    acc.compute_at(tiled, j);
    const validator::ValidationReport r = validate(tiled);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
}

TEST(ThesisExamples, T2TheReductionRunBackwardsOrInParallelIsRefuted) {
    ImageParam a(Int(32), 2, "a"), b(Int(32), 2, "b");
    Var i("i"), j("j");
    RDom k(0, a.width(), "k");
    // Subtraction does not commute with the order: run backwards, each iteration reads
    // the value of the iteration after it.
    Func f("alternating");
    f(j, i) = 0;
    f(j, i) = a(k, i) - f(j, i) * b(j, k);
    ir::LoweredPipeline p = lower::lower(f.data());
    test::ReverseLoops reverse;
    reverse.which = test::reduction_loops_of(1);
    p.body = reverse.mutate(p.body);
    ASSERT_EQ(reverse.reversed, 1);
    EXPECT_EQ(validate(p).verdict, Verdict::Refuted) << validate(p).to_string();
    // par k: the iterations of the reduction write one cell of the output.
    Func g("racing");
    g(j, i) = 0;
    g(j, i) += a(k, i) * b(j, k);
    g.update(0).allow_race_conditions().parallel(k);
    EXPECT_EQ(validate(g).verdict, Verdict::Refuted) << validate(g).to_string();
}

TEST(ThesisExamples, T6AReductionOverAnEmptyDomainIsItsPureDefinition) {
    // RDom k(0, K) with K a parameter: every K, including 0, where C is its pure value.
    ImageParam a(Int(32), 2, "a"), b(Int(32), 2, "b");
    Param<int32_t> extent("K");
    Var i("i"), j("j");
    RDom k(0, extent, "k");
    Func c("matmul_k");
    c(j, i) = 0;
    c(j, i) += a(k, i) * b(j, k);
    const validator::ValidationReport r = validate(c);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
}

TEST(ThesisExamples, T7AnUpdateReadingWhatAnEarlierIterationWrote) {
    // D(i, 2k) += D(i, k) over k in [0, 3): iteration k = 2 reads D(i, 2), which iteration
    // k = 1 updated. Proved as lowered; Refuted with the loop run backwards (k = 2 would
    // read D(i, 2) before k = 1 updates it).
    ImageParam in(Int(32), 1, "in");
    Var i("i"), j("j");
    RDom k(0, 3, "k");
    Func d("doubling");
    d(i, j) = in(i) + j + 1;
    d(i, 2 * k) = d(i, 2 * k) + d(i, k);
    const validator::ValidationReport r = validate(d);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
    ir::LoweredPipeline p = lower::lower(d.data());
    test::ReverseLoops reverse;
    reverse.which = test::reduction_loops_of(1);
    p.body = reverse.mutate(p.body);
    ASSERT_EQ(reverse.reversed, 1);
    const validator::ValidationReport backwards = validate(p);
    EXPECT_EQ(backwards.verdict, Verdict::Refuted) << backwards.to_string();
}

TEST(ThesisExamples, T8TheOrderOfAMultiDimensionalRDom) {
    // f = f * 10 + (r.x + 2 r.y) over r.x innermost: 123 for a 2 x 2 RDom. Proved as
    // lowered; Refuted with the inner loop (r.x) run backwards (213).
    ImageParam in(Int(32), 1, "in");
    Var x("x");
    RDom r(0, 2, 0, 2, "r");
    Func f("digits");
    f(x) = in(x);
    f(x) = f(x) * 10 + (r.x + 2 * r.y);
    const validator::ValidationReport ok = validate(f);
    EXPECT_EQ(ok.verdict, Verdict::Proved) << ok.to_string();
    ir::LoweredPipeline p = lower::lower(f.data());
    test::ReverseLoops reverse;
    reverse.which = test::reduction_loops_of(1, "r.x");
    p.body = reverse.mutate(p.body);
    ASSERT_EQ(reverse.reversed, 1);
    const validator::ValidationReport swapped = validate(p);
    EXPECT_EQ(swapped.verdict, Verdict::Refuted) << swapped.to_string();
}
