// The quality floor of bounds inference (docs/architecture.md, "What bounds inference
// guarantees", item 8): wherever the naive engine β0 (tests/support/beta0.h) bounds every
// region, Tessera's bounds inference must succeed too, and the compiled pipeline must then run. Checked on the corpus and on
// random programs; β0 itself is checked on programs whose answer is known by hand.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "lower/Lower.h"
#include "support/beta0.h"
#include "support/pipeline_corpus.h"
#include "support/random_pipeline.h"

using namespace tessera;
using tessera::testing::Beta0;

namespace {

/** "" if Tessera lowers `f` wherever β0 succeeds on it; else what went wrong. */
std::string check_floor(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents,
                        int *beta0_successes) {
    auto b = Beta0().run(f.data(), mins, extents);
    if (!b.success) return "";
    ++*beta0_successes;
    try {
        lower::lower(f.data());
    } catch (const CompileError &e) {
        return std::string("β0 bounds every region but lowering failed: ") + e.what();
    }
    return "";
}

}  // namespace

TEST(Beta0, KnownRegions) {
    // f(x) = g(x) + g(x + 1) over [0, 6): g is needed on [0, 6] (the tight region).
    Var x("x");
    Func g("b0_g"), f("b0_f");
    g(x) = x * 2;
    f(x) = g(x) + g(x + 1);
    auto r = Beta0().run(f.data(), {0}, {6});
    ASSERT_TRUE(r.success) << r.failure;
    ASSERT_EQ(r.regions["b0_g"].size(), 1u);
    EXPECT_TRUE(r.regions["b0_g"][0].lo == 0 && r.regions["b0_g"][0].hi == 6);

    // An index read from a Func is unbounded for β0 unless clamped.
    Buffer<int32_t> in(std::vector<int>{10}, "b0_in");
    Func h("b0_h"), k("b0_k");
    h(x) = in(x % 10);
    k(x) = h(in(x % 10));
    EXPECT_FALSE(Beta0().run(k.data(), {0}, {4}).success);
    Func k2("b0_k2");
    k2(x) = h(clamp(in(x % 10), 0, 9));
    auto r2 = Beta0().run(k2.data(), {0}, {4});
    ASSERT_TRUE(r2.success) << r2.failure;
    EXPECT_TRUE(r2.regions["b0_h"][0].lo == 0 && r2.regions["b0_h"][0].hi == 9);

    // Division uses |a / b| <= |a|: x / 2 over [0, 9] is needed on [-9, 9].
    Func d("b0_d"), e("b0_e");
    d(x) = x;
    e(x) = d(x / 2);
    auto r3 = Beta0().run(e.data(), {0}, {10});
    ASSERT_TRUE(r3.success);
    EXPECT_TRUE(r3.regions["b0_d"][0].lo == -9 && r3.regions["b0_d"][0].hi == 9);

    // An update writes its left-hand side: a histogram's bins come from clamped data.
    RDom rd(0, 10, "b0_r");
    Func hist("b0_hist");
    hist(x) = 0;
    hist(clamp(in(rd), 0, 3)) += 1;
    auto r4 = Beta0().run(hist.data(), {0}, {4});
    ASSERT_TRUE(r4.success) << r4.failure;
    EXPECT_TRUE(r4.regions["b0_in"][0].lo == 0 && r4.regions["b0_in"][0].hi == 9);
}

TEST(Beta0, TesseraSucceedsWhereverBeta0DoesOnTheCorpus) {
    int successes = 0;
    for (const auto &entry : tessera::testing::pipeline_corpus()) {
        auto p = entry.make();
        EXPECT_EQ(check_floor(p.output, p.mins, p.extents, &successes), "") << p.name;
    }
    EXPECT_GT(successes, 10) << "β0 should bound most of the corpus";
}

TEST(Beta0, TesseraSucceedsWhereverBeta0DoesOnRandomPrograms) {
    int successes = 0;
    for (uint64_t seed = 7000; seed < 7500; seed++) {
        auto p = tessera::testing::random_pipeline(seed);
        ASSERT_TRUE(p.construction_error.empty()) << p.construction_error;
        EXPECT_EQ(check_floor(p.output, p.mins, p.extents, &successes), "") << "seed " << seed << "\n" << p.description;
    }
    EXPECT_GT(successes, 100) << "β0 should bound many random programs";
}
