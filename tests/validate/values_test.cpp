// The translation validator's value check (src/validate/ValueCheck.h) and its verdict on
// whole pipelines (src/validate/Validate.h): pipelines whose output is computed from the
// inputs are Proved; mutants of their lowered code that store another value, or store into
// another point's cell, are Refuted with the values that show it; floats are the terms that
// compute them; what is not modelled yet (intermediate storage) is Unknown with the reason.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRMutator.h"
#include "lower/Lower.h"
#include "support/images.h"
#include "validate/Validate.h"

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

/** Replaces every store's value or index, keeping its provenance. */
struct EditStores : ir::IRMutator {
    std::function<ir::Stmt(const ir::Store *)> edit;
    int edited = 0;
    ir::Stmt visit(const ir::Store *op, const ir::Stmt &) override {
        edited++;
        return edit(op);
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
    EditStores plus_one;
    plus_one.edit = [](const ir::Store *s) {
        return ir::Store::make(s->buffer, ir::Add::make(s->value, ir::Broadcast::make(ir::UIntImm::make(UInt(16), 1), s->value.type().lanes)),
                               s->index, s->provenance);
    };
    p.body = plus_one.mutate(p.body);
    ASSERT_GE(plus_one.edited, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
    EXPECT_NE(r.to_string().find("another value than the algorithm defines"), std::string::npos) << r.to_string();
}

TEST(ValidateValues, AnotherPointsCellIsRefuted) {
    ir::LoweredPipeline p = blur(false);
    // Each value stored one row down from the point it is for.
    EditStores shifted;
    shifted.edit = [](const ir::Store *s) {
        const Expr stride = ir::Variable::make(Int(64), s->buffer + ".stride.1");
        return ir::Store::make(s->buffer, s->value, ir::Add::make(s->index, stride), s->provenance);
    };
    p.body = shifted.mutate(p.body);
    ASSERT_GE(shifted.edited, 1);
    const validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Refuted) << r.to_string();
}

TEST(ValidateValues, FloatsAreTheTermsThatComputeThem) {
    // Float operations are uninterpreted: the code is proved when it computes the same
    // terms as the algorithm (lowering does not reassociate floats), and a difference is
    // only Unknown (the two terms might be equal as IEEE values).
    Buffer<float> in(std::vector<int>{16, 16}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = sqrt(in(x, y) * 2.0f + in(x + 1, y));
    ir::LoweredPipeline p = lower::lower(f.data());
    validator::ValidationReport r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Proved) << r.to_string();

    EditStores doubled;
    doubled.edit = [](const ir::Store *s) {
        return ir::Store::make(s->buffer, ir::Add::make(s->value, s->value), s->index, s->provenance);
    };
    p.body = doubled.mutate(p.body);
    r = validator::validate_lowered(p);
    EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_string();
    EXPECT_NE(r.to_string().find("uninterpreted operations"), std::string::npos) << r.to_string();
}

TEST(ValidateValues, IntermediateStorageIsUnknownWithTheReason) {
    Buffer<uint16_t> img = image(18, 18);
    Var x("x"), y("y");
    Func g("g"), h("h");
    g(x, y) = img(x, y) + 1;
    h(x, y) = g(x, y) + g(x + 1, y);
    g.compute_root();
    const validator::ValidationReport r = validator::validate_lowered(lower::lower(h.data()));
    EXPECT_EQ(r.verdict, Verdict::Unknown) << r.to_string();
    EXPECT_NE(r.to_string().find("not followed yet"), std::string::npos) << r.to_string();
}
