// The translation validator's value check (src/validate/ValueCheck.h) and its verdict on
// whole pipelines (src/validate/Validate.h): pipelines whose output is computed from the
// inputs are Proved; mutants of their lowered code that store another value, or store into
// another point's cell, are Refuted with the values that show it; floats are the terms that
// compute them; what is not modelled yet (intermediate storage) is Unknown with the reason.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tessera/Validate.h>
#include <tessera/tessera.h>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "lower/Lower.h"
#include "support/images.h"
#include "support/lowered_edits.h"
#include "validate/Validate.h"
#include "support/differential.h"
#include "validation_pipelines.h"

using namespace tessera;
using validator::Verdict;

namespace {

using test::image;

/** blur_y over an inlined blur_x, scheduled as asked. */
ir::LoweredPipeline blur(bool vectorize_and_parallel) {
    Buffer<uint16_t> in = image(64 + 2, 48 + 2);
    Var x("x"), y("y");
    Func bx("blur_x"), by("blur_y");
    bx(x, y) = (in(x, y) + in(x + 1, y) + in(x + 2, y)) / 3;
    by(x, y) = (bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3;
    if (vectorize_and_parallel) by.vectorize(x, 8).parallel(y);
    return lower::lower(by.data());
}


/** A three-stage stencil (two producers in storage) under a schedule. */
ir::LoweredPipeline stencil_chain(int schedule) {
    Buffer<uint16_t> img = image(70, 52);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), h("h"), out("out");
    g(x, y) = img(x, y) * 3 + img(x + 1, y);
    h(x, y) = g(x, y) + g(x, y + 1) * 2 - g(x + 1, y + 1);
    out(x, y) = h(x, y) + h(x + 1, y + 1);
    switch (schedule) {
    case 0: g.compute_root(); h.compute_root(); break;
    case 1: g.compute_at(out, y); h.compute_at(out, y); break;
    case 2: g.store_root().compute_at(out, y); h.store_root().compute_at(out, y); break;  // sliding windows
    case 3:
        out.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo);
        h.compute_at(out, xo).vectorize(x, 8);
        g.compute_at(out, xo);
        break;
    case 4:
        out.split(y, yo, yi, 5).parallel(yo);  // a tail: ShiftInwards
        h.compute_at(out, yo);
        g.compute_at(h, y);
        break;
    default: g.compute_root().vectorize(x, 4).unroll(y, 2); h.compute_at(out, y).fold_storage(y, 4); break;
    }
    return lower::lower(out.data());
}

/** Replaces the index of the loads from `buffer` (a Func's storage). */
struct EditLoads : ir::IRMutator {
    std::string buffer;
    std::function<Expr(const ir::Load *)> index;
    int edited = 0;
    Expr visit(const ir::Load *op, const Expr &self) override {
        if (op->buffer != buffer) return ir::IRMutator::visit(op, self);
        edited++;
        return ir::Load::make(op->type, op->buffer, index(op));
    }
};

}  // namespace

TEST(ValidateValues, InlinedStencilsAreProved) {
    for (bool scheduled : {false, true}) {
        const validator::ValidationReport r = validator::validate_lowered(blur(scheduled));
        EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
    }
}

TEST(ValidateValues, AnotherValueIsRefuted) {
    ir::LoweredPipeline p = blur(true);
    test::EditStores plus_one;
    plus_one.edit = [](const ir::Store *s) {
        return ir::Store::make(s->buffer, ir::Add::make(s->value, ir::Broadcast::make(ir::UIntImm::make(UInt(16), 1), s->value.type().lanes)),
                               s->index, s->provenance);
    };
    p.body = plus_one.mutate(p.body);
    ASSERT_GE(plus_one.edited, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
    EXPECT_NE(r.to_string().find("another value than the algorithm defines"), std::string::npos) << r.to_string();
    // Replayed at the counterexample's sizes, the prophecy check sees the value too.
    EXPECT_NE(r.check("values")->detail.find("confirmed by the IR interpreter"), std::string::npos) << r.to_string();
}

TEST(ValidateValues, AnotherPointsCellIsRefuted) {
    ir::LoweredPipeline p = blur(false);
    // Each value stored one row down from the point it is for.
    test::EditStores shifted;
    shifted.edit = [](const ir::Store *s) {
        const Expr stride = ir::Variable::make(Int(64), s->buffer + ".stride.1");
        return ir::Store::make(s->buffer, s->value, ir::Add::make(s->index, stride), s->provenance);
    };
    p.body = shifted.mutate(p.body);
    ASSERT_GE(shifted.edited, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
}

TEST(ValidateValues, FloatsAreTheTermsThatComputeThemThenIeeeValues) {
    // Float operations are first uninterpreted: the code is proved when it computes the
    // same terms as the algorithm (lowering does not reassociate floats). Where it computes
    // other terms, they are compared as IEEE values (x * 1.0f is x; x + 0.0f is not, at
    // x = -0.0), the terms both sides compute alike taken as given; the IR interpreter,
    // replaying runs with the prophecy check, refutes the code where a run shows a
    // difference that the solver does not decide.
    Buffer<float> in(std::vector<int>{16, 16}, "in");
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = sqrt(in(x, y) * 2.0f + in(x + 1, y));
    g(x, y) = in(x, y) * 2.0f + in(x + 1, y);
    const ir::LoweredPipeline p = lower::lower(f.data()), q = lower::lower(g.data());
    validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();

    auto edited = [&](const ir::LoweredPipeline &original, std::function<Expr(const Expr &)> value) {
        test::EditStores edit;
        edit.edit = [&](const ir::Store *s) { return ir::Store::make(s->buffer, value(s->value), s->index, s->provenance); };
        ir::LoweredPipeline e = original;
        e.body = edit.mutate(e.body);
        EXPECT_GE(edit.edited, 1);
        return e;
    };
    auto by_constant = [](ir::ExprKind op, double k) {
        return [op, k](const Expr &v) {
            const Expr c = ir::FloatImm::make(Float(32), k);
            const Expr b = v.type().lanes == 1 ? c : ir::Broadcast::make(c, v.type().lanes);
            return op == ir::ExprKind::Mul ? ir::Mul::make(v, b) : ir::Add::make(v, b);
        };
    };
    // v + v: another value (the pattern's inputs make sqrt(...) nonzero).
    r = validator::validate_lowered(edited(p, [](const Expr &v) { return ir::Add::make(v, v); }));
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
    // v * 1.0f: another term, the same IEEE value.
    r = validator::validate_lowered(edited(p, by_constant(ir::ExprKind::Mul, 1.0)));
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
    r = validator::validate_lowered(edited(q, by_constant(ir::ExprKind::Mul, 1.0)));
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
    // v * 0.5f * 2.0f: the same value but where the product overflows or is subnormal.
    r = validator::validate_lowered(edited(q, [&](const Expr &v) { return by_constant(ir::ExprKind::Mul, 2.0)(by_constant(ir::ExprKind::Mul, 0.5)(v)); }));
    EXPECT_NE(r.verdict, Verdict::Proved) << r.to_string();
    // v + 0.0f: -0.0 + 0.0 is +0.0, shown with the point and both values.
    r = validator::validate_lowered(edited(q, by_constant(ir::ExprKind::Add, 0.0)));
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
    EXPECT_THAT(r.check("values")->detail, ::testing::HasSubstr("at its point g(")) << r.to_string();
    EXPECT_THAT(r.check("values")->detail, ::testing::HasSubstr("the code stores 0f where the algorithm defines -0f")) << r.to_string();
}

TEST(ValidateValues, ValuesAreFollowedThroughStorage) {
    // The value a load reads is the one its last writer stored: stencils whose stages live
    // in storage, computed at root, per row, in sliding windows, per tile in parallel, and
    // with folded storage, are Proved as a whole.
    for (int schedule = 0; schedule < 6; schedule++) {
        const validator::ValidationReport r = validator::validate_lowered(stencil_chain(schedule));
        EXPECT_EQ(r.verdict, Verdict::Proved) << "schedule " << schedule << "\n" << r.to_string();
    }
}

TEST(ValidateValues, ReadingAnotherPointOfStorageIsRefuted) {
    // Every load from g's storage one element further on: the loads read a point of g that
    // the algorithm does not use there.
    ir::LoweredPipeline p = stencil_chain(0);
    EditLoads shifted;
    shifted.buffer = "g";
    shifted.index = [](const ir::Load *l) {
        const Expr one = make_const(l->index.type().element_of(), int64_t(1));
        const int lanes = l->index.type().lanes;
        return ir::Add::make(l->index, lanes > 1 ? ir::Broadcast::make(one, lanes) : one);
    };
    p.body = shifted.mutate(p.body);
    ASSERT_GE(shifted.edited, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
}

namespace {

/** A Func with updates under a schedule: a pure definition, a reduction over an RDom
 * (a sum of five columns), a scan along x that reads the point before (f(r) = f(r - 1) +
 * f(r)), then a consumer. */
ir::LoweredPipeline updates(int schedule) {
    Buffer<uint16_t> img = image(40, 20);
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, 5, "r"), s(1, 15, "s");
    Func g("g"), h("h");
    g(x, y) = img(x, y) + 1;
    g(x, y) += img(x + r, y);
    g(s, y) = g(s - 1, y) + g(s, y);
    h(x, y) = g(x, y) * 2 + g(x, y + 1);
    switch (schedule) {
    case 0: g.compute_root(); break;
    case 1: g.compute_at(h, y); break;
    case 2:
        g.compute_root().vectorize(x, 4).parallel(y);
        g.update(0).vectorize(x, 4).parallel(y);
        g.update(1).parallel(y);
        break;
    default:
        h.split(x, xo, xi, 8).parallel(y);
        g.compute_at(h, y);
        g.update(0).split(x, xo, xi, 4).reorder(r, xi, xo);
        break;
    }
    return lower::lower(h.data());
}

}  // namespace

TEST(ValidateValues, UpdatesAreFollowedIterationByIteration) {
    // Each update's store writes its right-hand side with the values its self-calls read
    // (the last earlier iteration that wrote the point, or the previous definition), and
    // the consumer reads the final values: a reduction and a scan, at the root, per row,
    // vectorized and parallel, and split with the RDom outside its inner pure loop.
    for (int schedule = 0; schedule < 4; schedule++) {
        const validator::ValidationReport r = validator::validate_lowered(updates(schedule));
        EXPECT_EQ(r.verdict, Verdict::Proved) << "schedule " << schedule << "\n" << r.to_string();
    }
}

TEST(ValidateValues, AScanReadingThePointAfterIsRefuted) {
    // The scan's loop run backwards: each iteration reads g(s - 1) before the iteration
    // that writes it, that is the reduction's value, not the scan's.
    ir::LoweredPipeline p = updates(0);
    test::ReverseLoops reverse;
    reverse.which = test::reduction_loops_of(2);
    p.body = reverse.mutate(p.body);
    ASSERT_EQ(reverse.reversed, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
}

TEST(ValidateValues, ADataDependentUpdateIsUnknownWithTheReason) {
    // A histogram writes where its input says: not a point the algorithm's iteration fixes.
    Buffer<uint8_t> img(16, 8);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) img(x, y) = uint8_t((x * 7 + y * 3) % 10);
    Var i("i");
    RDom r(0, 16, 0, 8, "r");
    Func hist("hist");
    hist(i) = 0;
    hist(cast<int32_t>(img(r.x, r.y))) += 1;
    hist.compute_root();
    const validator::ValidationReport rep = validator::validate_lowered(lower::lower(hist.data()));
    EXPECT_EQ(rep.verdict, Verdict::Unknown) << rep.to_string();
    EXPECT_NE(rep.to_string().find("memory"), std::string::npos) << rep.to_string();
}

TEST(ValidateValues, TheEvaluationsQuickPipelinesAreProved) {
    // The pipelines of the evaluation (docs/validation.md) that prove in a few seconds:
    // a split reduction, matrix products tiled and vectorized in parallel, a convolution
    // layer, a depthwise-separable convolution, a folded blur and a stencil chain, for
    // every size their entry checks allow.
    using namespace tessera::evaluation;
    const std::vector<std::pair<std::string, Func>> pipelines = {
        {"sdot", dot_product()},         {"sgemm tiled", matrix_product("sgemm_tiled", 1)},
        {"sgemm vectors", matrix_product("sgemm_vec", 2)}, {"conv", conv_layer()},
        {"dsc", depthwise_separable()},  {"blur", blur_folded()},
        {"sc4", tessera::evaluation::stencil_chain(4)},
    };
    for (const auto &[name, f] : pipelines) {
        const ValidationReport r = validate(f);
        EXPECT_EQ(r.verdict, Verdict::Proved) << name << "\n" << r.to_string();
    }
}

TEST(ValidateValues, TheSpecializedProductIsProvedForAnySizeAndUnderEachConfiguration) {
    // The thesis' sgemm configurations: one schedule specialized on the sizes, validated
    // for any size (both specializations' code), then under the assumptions of bigsqsgemm
    // (square, above 512), under which the small matrices' code never runs.
    tessera::evaluation::SpecializedProduct p = tessera::evaluation::specialized_product();
    const ValidationReport any = validate(p.c);
    EXPECT_EQ(any.verdict, Verdict::Proved) << any.to_string();
    const ValidationReport big_square = validate(p.c, {.assumptions = {p.square(), p.big()}});
    EXPECT_EQ(big_square.verdict, Verdict::Proved) << big_square.to_string();
    EXPECT_THAT(big_square.rests_on, ::testing::Contains(::testing::HasSubstr("assumed: ")));
}

TEST(ValidateValues, TheEvaluationsNonLocalMeansComputesTheReference) {
    // Its validation takes about 25 s (bench/validation.cpp); here, that its schedule
    // computes what the reference interpreter does, on an image with 3 channels.
    ImageParam in(Float(32), 3, "input");
    Buffer<float> img(std::vector<int>{21, 13, 3}, "nl_means_input");
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < 13; y++)
            for (int x = 0; x < 21; x++) img(x, y, c) = float((x * 7 + y * 13 + c * 5) % 17) / 17.0f;
    in.set(img);
    Func f = tessera::evaluation::nl_means(in);
    const Buffer<> reference = f.realize_reference({21, 13, 3});
    EXPECT_EQ(tessera::testing::differential::compare_window(f.realize({21, 13, 3}), reference, {0, 0, 0}, {21, 13, 3}), "");
}

namespace {

/** g(x, y) = clamped(x - 1, y) + clamped(x + 1, y + 1), vectorized: the vector loop is
 * partitioned, its prologue and epilogue in one boundary loop whose variable is a select
 * of the two (src/lower/PartitionLoops.cpp). */
ir::LoweredPipeline clamped_stencil() {
    Buffer<uint16_t> in = image(64, 48);
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func g("g");
    g(x, y) = clamped(x - 1, y) + clamped(x + 1, y + 1);
    g.vectorize(x, 8);
    return lower::lower(g.data());
}

/** Adds `delta` to the epilogue's side of boundary loops' selects. */
struct ShiftEpilogues : ir::IRMutator {
    int delta = 1, edited = 0;
    ir::Stmt visit(const ir::LetStmt *op, const ir::Stmt &self) override {
        const ir::Select *s = ir::as<ir::Select>(op->value);
        const ir::LT *lt = s ? ir::as<ir::LT>(s->condition) : nullptr;
        const ir::Variable *b = lt ? ir::as<ir::Variable>(lt->a) : nullptr;
        const std::string suffix = ".boundary";
        if (!b || b->name.size() < suffix.size() || b->name.compare(b->name.size() - suffix.size(), suffix.size(), suffix) != 0)
            return ir::IRMutator::visit(op, self);
        edited++;
        const Expr shifted = ir::Add::make(s->false_value, ir::IntImm::make(s->false_value.type(), delta));
        return ir::LetStmt::make(op->name, ir::Select::make(s->condition, s->true_value, shifted), mutate(op->body));
    }
};

}  // namespace

TEST(ValidateValues, ABoundaryLoopIsProvedPartByPart) {
    // The boundary loop is modelled as its two parts, two loops over the partitioned
    // variable: the clamps of the body then see an affine index.
    const ir::LoweredPipeline p = clamped_stencil();
    ASSERT_NE(ir::to_string(p.body).find(".boundary"), std::string::npos) << "no boundary loop to model";
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
}

TEST(ValidateValues, AShiftedEpilogueInABoundaryLoopIsRefuted) {
    ir::LoweredPipeline p = clamped_stencil();
    ShiftEpilogues shift;
    p.body = shift.mutate(p.body);
    ASSERT_GE(shift.edited, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
}

TEST(ValidateValues, UndefPureDefinitionsAreProvedWhereTheUpdatesWriteWhatIsRead) {
    // A transpose through a reduction into an undef Func at the root, and an undef output
    // written in tiles: nothing computes the pure definitions, and every cell read (or in
    // the window) is written by an update.
    Buffer<uint16_t> in = image(8, 6);
    Var x("x"), y("y");
    RDom r(0, 8, 0, 6, "r");
    Func t("t"), out("out");
    t(x, y) = undef<uint16_t>();
    t(r.y, r.x) = in(r.x, r.y) * 2;
    out(x, y) = t(x, y) + 1;
    t.compute_root();
    out.bound(x, 0, 6).bound(y, 0, 8);
    validator::ValidationReport rep = validator::validate_lowered(lower::lower(out.data()));
    EXPECT_EQ(rep.verdict, Verdict::Proved) << rep.to_string();

    RDom s(0, 4, 0, 4, "s");
    Func tiles("tiles");
    tiles(x) = undef<uint16_t>();
    tiles(s.y * 4 + s.x) = in(s.x, s.y) + 3;
    tiles.bound(x, 0, 16);
    rep = validator::validate_lowered(lower::lower(tiles.data()));
    EXPECT_EQ(rep.verdict, Verdict::Proved) << rep.to_string();

    // Reading a row the update does not write: the algorithm gives it no value, so the
    // value check cannot be Proved.
    Func u("u"), o2("o2");
    u(x, y) = undef<uint16_t>();
    u(r.y, r.x) = in(r.x, r.y);
    o2(x, y) = u(x, y + 1);
    u.compute_root();
    o2.bound(x, 0, 6).bound(y, 0, 8);
    rep = validator::validate_lowered(lower::lower(o2.data()));
    EXPECT_NE(rep.verdict, Verdict::Proved) << rep.to_string();
}

TEST(ValidateValues, TracedPipelinesAreProvedAsTheSameWithoutTracing) {
    // The trace lines (src/lower/AddTracing.cpp) are effects the value check reads through:
    // a traced store stores its value, a traced load is the value loaded.
    Buffer<uint16_t> img = image(40, 30);
    Var x("x"), y("y");
    Func g("g"), out("out");
    g(x, y) = img(x, y) * 3 + img(x + 1, y);
    out(x, y) = g(x, y) + g(x, y + 1);
    g.compute_at(out, y).trace_stores().trace_loads().trace_realizations();
    out.trace_stores();
    const validator::ValidationReport r = validator::validate_lowered(lower::lower(out.data()));
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();
}
