// Every scheduling directive, against the reference interpreter: compiled results bit for
// bit on the window, and the lowered code run by the IR interpreter with the dynamic
// prophecy check. Sizes that are and are not multiples of the factors.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "ir/IRPrinter.h"
#include "support/differential.h"
#include "support/pipeline_corpus.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

/** Compiled code and the IR interpreter (prophecy check on) both agree with the reference. */
void expect_matches(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents,
                    const std::string &what) {
    EXPECT_EQ(differential_check(f, mins, extents, false), "") << what;
    EXPECT_EQ(prophecy_check(f, mins, extents, 2000000), "") << what;
}

Buffer<int32_t> input_2d(int w, int h, int min_x = 0, int min_y = 0) {
    Buffer<int32_t> b(std::vector<int>{w, h}, "input");
    b.set_min({min_x, min_y});
    for (int y = min_y; y < min_y + h; y++)
        for (int x = min_x; x < min_x + w; x++) b(x, y) = (x * 37 + y * 101) % 251 - 60;
    return b;
}

const char *tail_name(TailStrategy t) { return tail_strategy_name(t); }

}  // namespace

TEST(Schedule, SplitEveryTailOnAnIntermediateFunc) {
    for (TailStrategy tail : {TailStrategy::GuardWithIf, TailStrategy::RoundUp, TailStrategy::ShiftInwards,
                              TailStrategy::Auto}) {
        for (int factor : {1, 3, 8}) {
            for (int extent : {1, 5, 16, 17}) {
                Buffer<int32_t> in = input_2d(40, 6, -4, 0);
                Var x("x"), y("y"), xo("xo"), xi("xi");
                Func g("g"), h("h");
                g(x, y) = in(clamp(x, -4, 35), y) * 3 + x;
                h(x, y) = g(x - 1, y) + g(x + 2, y);
                g.compute_root().split(x, xo, xi, factor, tail);
                expect_matches(h, {-2, 0}, {extent, 3},
                               std::string("g split by ") + std::to_string(factor) + " " + tail_name(tail) +
                                   ", extent " + std::to_string(extent));
            }
        }
    }
}

TEST(Schedule, SplitTailsOnTheOutput) {
    for (TailStrategy tail : {TailStrategy::GuardWithIf, TailStrategy::Auto, TailStrategy::ShiftInwards,
                              TailStrategy::RoundUp}) {
        for (int extent : {8, 16, 13, 3}) {
            Var x("x"), y("y"), xo("xo"), xi("xi");
            Func f("out");
            f(x, y) = x * 7 - y * y;
            f.split(x, xo, xi, 8, tail);
            // Auto is ShiftInwards on a pure definition, the output's included (as in Halide).
            const bool shifts = tail == TailStrategy::ShiftInwards || tail == TailStrategy::Auto;
            const bool fits = tail == TailStrategy::GuardWithIf || (shifts && extent >= 8) || extent % 8 == 0;
            const std::string what = std::string("output split by 8 ") + tail_name(tail) + ", extent " +
                                     std::to_string(extent);
            if (fits) {
                expect_matches(f, {5, -1}, {extent, 2}, what);
            } else {
                // Computing past the end of the output buffer is a run-time error, never a
                // write out of bounds.
                Buffer<int32_t> out(std::vector<int>{extent, 2});
                try {
                    f.realize(out);
                    ADD_FAILURE() << what << ": no error";
                } catch (const RuntimeError &e) {
                    // The message names the output and the cause, before any input.
                    EXPECT_NE(std::string(e.what()).find("Output buffer \"out\" is written at"), std::string::npos)
                        << e.what();
                    EXPECT_NE(std::string(e.what()).find("use TailStrategy::GuardWithIf"), std::string::npos)
                        << e.what();
                }
            }
        }
    }
}

TEST(Schedule, TileReorderFuseRename) {
    Buffer<int32_t> in = input_2d(30, 30);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t"), r("renamed");
    for (int variant = 0; variant < 6; variant++) {
        Func g("g"), f("f");
        g(x, y) = in(x, y) + in(x + 1, y + 1);
        f(x, y) = g(x, y) * 2 - g(x + 1, y);
        switch (variant) {
        case 0: f.tile(x, y, xo, yo, xi, yi, 4, 3); break;
        case 1: f.tile(x, y, xi, yi, 5, 5).reorder(yi, xi); break;
        case 2: f.reorder(y, x); break;
        case 3: f.fuse(x, y, t); break;
        case 4: f.split(x, xo, xi, 4).fuse(xi, xo, t).rename(t, r); break;
        case 5: f.tile(x, y, xo, yo, xi, yi, 4, 4).fuse(xo, yo, t); break;
        }
        g.compute_root();
        expect_matches(f, {0, 0}, {13, 11}, "variant " + std::to_string(variant));
    }
}

TEST(Schedule, LoopKindsGiveTheSameResults) {
    Buffer<int32_t> in = input_2d(70, 20);
    Var x("x"), y("y");
    for (int variant = 0; variant < 6; variant++) {
        Func f("f");
        f(x, y) = in(x, y) * in(x + 1, y) + y;
        switch (variant) {
        case 0: f.vectorize(x, 8); break;
        case 1: f.vectorize(x, 4).unroll(y, 2); break;
        case 2: f.parallel(y); break;
        case 3: f.parallel(y, 3); break;
        case 4: f.vectorize(x, 4).unroll(x, 2).parallel(y); break;
        case 5: f.split(x, x, Var("xi"), 16).vectorize(Var("xi"), 4).parallel(x); break;
        }
        expect_matches(f, {0, 0}, {61, 17}, "variant " + std::to_string(variant));
    }
}

TEST(Schedule, ComputeAndStoreLevels) {
    Buffer<int32_t> in = input_2d(64, 64, -8, -8);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    for (int variant = 0; variant < 8; variant++) {
        Func a("a"), b("b"), c("c");
        a(x, y) = in(clamp(x, -8, 55), clamp(y, -8, 55)) * 2;
        b(x, y) = a(x - 1, y) + a(x + 1, y) + a(x, y - 1);
        c(x, y) = b(x, y) + b(x, y + 2);
        switch (variant) {
        case 0: a.compute_root(); b.compute_root(); break;
        case 1: b.compute_at(c, y); a.compute_at(b, y); break;
        case 2: c.tile(x, y, xo, yo, xi, yi, 8, 8); b.compute_at(c, xo); a.compute_at(c, xo); break;
        case 3: c.tile(x, y, xo, yo, xi, yi, 8, 8); b.compute_at(c, xi); a.store_at(c, yo).compute_at(c, xi); break;
        case 4: c.split(y, yo, yi, 4); b.store_at(c, yo).compute_at(c, yi); a.compute_root(); break;
        case 5: b.compute_at(c, x); a.compute_at(c, x); break;
        case 6: b.compute_root(); a.compute_inline(); break;
        case 7: b.store_root().compute_at(c, y); a.store_root().compute_at(c, y); break;
        }
        expect_matches(c, {-3, -2}, {19, 17}, "variant " + std::to_string(variant));
    }
}

TEST(Schedule, UpdateStagesAndRDoms) {
    Buffer<int32_t> in = input_2d(20, 20);
    Var x("x"), y("y"), xo("xo"), xi("xi");
    for (int variant = 0; variant < 7; variant++) {
        RDom r(0, 5, 0, 4, "r");
        Func f("f"), g("g");
        f(x, y) = x + y;
        f(x, y) += in(x + r.x, y + r.y) * (r.x + 1);
        f(x, y) = f(x, y) * 2 + f(x, y) / 3;
        g(x, y) = f(x, y) - f(x + 1, y);
        switch (variant) {
        case 0: f.compute_root(); break;
        case 1: f.compute_root().update(0).reorder(x, r.x); break;
        case 2: f.compute_root().update(0).split(r.x, Var("rxo"), Var("rxi"), 2); break;
        case 3: f.compute_at(g, y).update(0).vectorize(x, 4).unroll(r.y); break;
        case 4: f.compute_root().update(1).parallel(y).vectorize(x, 8); break;
        case 5: f.compute_root(); f.update(0).reorder(r.y, r.x); break;  // + on int: reordering is harmless
        case 6: f.compute_root().split(x, xo, xi, 4); f.update(0).split(x, xo, xi, 3); break;
        }
        expect_matches(g, {1, 2}, {9, 7}, "variant " + std::to_string(variant));
    }
}

TEST(Schedule, ScansAndHistogramsAcrossSchedules) {
    Buffer<int32_t> in = input_2d(32, 8);
    Var x("x"), y("y");
    for (int variant = 0; variant < 4; variant++) {
        RDom r(1, 31, "r");
        Func scan("scan");
        scan(x, y) = in(x, y);
        scan(r, y) = scan(r, y) + scan(r - 1, y);
        RDom h(0, 32, 0, 8, "h");
        Func hist("hist");
        hist(x) = 0;
        hist(clamp(in(h.x, h.y) % 16, 0, 15)) += 1;
        Func out("out");
        out(x, y) = scan(x, y) + hist(x % 16);
        switch (variant) {
        case 0: scan.compute_root(); hist.compute_root(); break;
        case 1: scan.compute_root().update().parallel(y); hist.compute_root(); break;
        case 2: scan.compute_at(out, y); hist.compute_root().update().split(h.x, Var("hxo"), Var("hxi"), 5); break;
        case 3: scan.compute_root().update().vectorize(y, 4); hist.compute_root().vectorize(x, 4); break;
        }
        expect_matches(out, {0, 0}, {32, 8}, "variant " + std::to_string(variant));
    }
}

TEST(Schedule, SpecializeChoosesPerRun) {
    Buffer<int32_t> in = input_2d(40, 4);
    Param<int> p("p");
    Param<bool> wide("wide");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * p + x;
    f.specialize(wide).vectorize(x, 8);
    f.specialize(p == 1).split(x, Var("xo"), Var("xi"), 3);
    for (bool w : {false, true})
        for (int pv : {1, 2}) {
            wide.set(w);
            p.set(pv);
            expect_matches(f, {0, 0}, {37, 4}, "wide " + std::to_string(w) + ", p " + std::to_string(pv));
        }
    Func g("g");
    g(x) = x * 2;
    g.specialize(p > 5);
    g.specialize_fail("p must be greater than 5");
    p.set(3);
    try {
        g.realize({4});
        ADD_FAILURE() << "specialize_fail did not fail";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("p must be greater than 5"), std::string::npos) << e.what();
    }
    p.set(6);
    Buffer<int32_t> r = g.realize({4});
    EXPECT_EQ(r(3), 6);
}

TEST(Schedule, BoundsHints) {
    Buffer<int32_t> in = input_2d(40, 40);
    Var x("x"), y("y");
    {
        Func g("g"), f("f");
        g(x, y) = in(clamp(x, 0, 39), clamp(y, 0, 39)) + 1;
        f(x, y) = g(x, y) + g(x + 3, y);
        g.compute_root().bound(x, 0, 32).align_bounds(y, 8, 1);
        expect_matches(f, {0, 0}, {20, 10}, "bound and align_bounds");
        // Needing more than the bound is a run-time error.
        Buffer<int32_t> big(std::vector<int>{31, 4});
        try {
            f.realize(big);
            ADD_FAILURE() << "the bound was not checked";
        } catch (const RuntimeError &e) {
            EXPECT_NE(std::string(e.what()).find("Func \"g\" is bound to [0, 31]"), std::string::npos) << e.what();
        }
    }
    {
        Func g("g2"), f("f2");
        g(x, y) = x * y;
        f(x, y) = g(x, y) + g(x, y + 1);
        g.compute_root().bound_extent(y, 16).vectorize(x, 4);
        f.bound(x, 0, 12);
        expect_matches(f, {0, 0}, {12, 15}, "bound_extent");
    }
}

TEST(Schedule, StorageOrderAndFolds) {
    Buffer<int32_t> in = input_2d(30, 30);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    {
        Func g("g"), f("f");
        g(x, y) = in(x, y) * 3;
        f(x, y) = g(x, y) - g(x, y + 1);
        g.compute_root().reorder_storage(y, x);
        expect_matches(f, {0, 0}, {25, 20}, "reorder_storage");
    }
    {
        Func g("g"), f("f");
        g(x, y) = in(x, y) + y;
        f(x, y) = g(x, y) + g(x, y + 1) + g(x, y + 2);
        g.store_root().compute_at(f, y).fold_storage(y, 4);
        expect_matches(f, {0, 0}, {25, 20}, "fold_storage over a sliding window");
    }
    {
        Func g("g"), f("f");
        g(x, y) = in(x, y) + y;
        f(x, y) = g(x, y) + g(x, y + 3);
        g.compute_at(f, y).fold_storage(y, 2);
        // Each row of f needs rows y and y + 3 of g: they do not fit in a fold of 2.
        try {
            f.realize({4, 4});
            ADD_FAILURE() << "a fold too small was not reported";
        } catch (const RuntimeError &e) {
            EXPECT_NE(std::string(e.what()).find("fold"), std::string::npos) << e.what();
        }
    }
}

TEST(Schedule, Wrappers) {
    Buffer<int32_t> in = input_2d(30, 30);
    Var x("x"), y("y");
    Func g("g"), f("f"), h("h");
    g(x, y) = in(x, y) * 2;
    f(x, y) = g(x, y) + g(x + 1, y);
    h(x, y) = f(x, y) + g(x, y + 1);
    g.compute_root();
    Func gw = g.in(f);
    gw.compute_at(f, y);
    f.compute_root();
    expect_matches(h, {0, 0}, {20, 20}, "g.in(f)");
    Func all = g.in();
    all.compute_root().vectorize(x, 4);
    expect_matches(h, {0, 0}, {20, 20}, "g.in() and g.in(f)");
}

TEST(Schedule, RFactorParallelSum) {
    Buffer<int32_t> in = input_2d(64, 48);
    Var x("x"), u("u"), v("v");
    for (int variant = 0; variant < 3; variant++) {
        RDom r(0, 64, 0, 48, "r");
        Func sum("sum");
        sum() = 0;
        sum() += in(r.x, r.y) * (r.x % 3 + 1);
        Func intm;
        switch (variant) {
        case 0:
            intm = sum.update().rfactor(r.y, u);
            intm.compute_root().update().parallel(u);
            break;
        case 1:
            intm = sum.update().rfactor({{r.x, u}, {r.y, v}});
            intm.compute_root().update().vectorize(u, 8).parallel(v);
            break;
        case 2: {
            RDom w(0, 64, 0, 48, "w");
            w.where(w.x < w.y + 10);
            Func s2("s2");
            s2() = 0;
            s2() += in(w.x, w.y);
            Func i2 = s2.update().rfactor(w.y, u);
            i2.compute_root().update().parallel(u);
            expect_matches(s2, {}, {}, "rfactor with a where predicate");
            continue;
        }
        }
        expect_matches(sum, {}, {}, "rfactor variant " + std::to_string(variant));
    }
    // A float reduction cannot be regrouped without changing its result.
    RDom r(0, 10, "r");
    Func fsum("fsum");
    fsum() = 0.0f;
    fsum() += cast<float>(r) * 0.1f;
    try {
        fsum.update().rfactor(r, u);
        ADD_FAILURE() << "rfactor of a float sum was accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("float"), std::string::npos) << e.what();
    }
}

// rfactor of loops that split and fuse made of the RDom's dimensions, named by free RVars
// (Halide's standard parallel reduction), with extents the factors do not divide. rfactor
// rewrites the algorithm itself, so besides the reference (which then runs the rewritten
// definitions) each result is checked against sums computed here.
TEST(Schedule, RFactorOfSplitAndFusedRVars) {
    Buffer<int32_t> in = input_2d(67, 45);
    // The sums of the original definitions, for x in [0, 4).
    auto expect_sums = [&](Func f, const std::function<int32_t(int, int, int)> &term, const std::function<bool(int, int)> &where,
                           const std::string &what) {
        Buffer<int32_t> got = f.realize({4});
        for (int x = 0; x < 4; x++) {
            int32_t want = 0;
            for (int ry = 0; ry < 45; ry++)
                for (int rx = 0; rx < 67; rx++)
                    if (where(rx, ry)) want += term(x, rx, ry);
            EXPECT_EQ(got(x), want) << what << " at x = " << x;
        }
    };
    auto everywhere = [](int, int) { return true; };
    Var x("x"), u("u"), v("v");
    for (int variant = 0; variant < 6; variant++) {
        SCOPED_TRACE("variant " + std::to_string(variant));
        RDom r(0, 67, 0, 45, "r");
        Func sum("sum");
        sum(x) = 0;
        sum(x) += in(r.x, r.y) * (r.x % 3 + 1) + x;
        RVar ro("ro"), ri("ri"), rf("rf");
        Func intm;
        switch (variant) {
        case 0:  // the inner loop of a split, as vector lanes
            intm = sum.update().split(r.x, ro, ri, 16).rfactor(ri, u);
            intm.compute_root().update().vectorize(u, 8);
            break;
        case 1:  // the outer loop of a split, in parallel
            intm = sum.update().split(r.y, ro, ri, 8).rfactor(ro, u);
            intm.compute_root().update().parallel(u);
            break;
        case 2:  // a fused loop, split again
            intm = sum.update().fuse(r.x, r.y, rf).split(rf, ro, ri, 256).rfactor(ro, u);
            intm.compute_root().update().parallel(u);
            break;
        case 3:  // two preserved loops of one split
            intm = sum.update().split(r.x, ro, ri, 10).rfactor({{ro, u}, {ri, v}});
            intm.compute_root().update().parallel(v);
            break;
        case 4: {  // fresh names, a renamed loop, a 1-D RDom of the whole buffer
            RVar a, b;
            RDom w(0, 67 * 45, "w");
            Func s1("s1");
            s1(x) = 0;
            s1(x) += in(w % 67, w / 67) + x;
            Func i1 = s1.update().rename(w, RVar("whole")).split(RVar("whole"), a, b, 1024).rfactor(b, u);
            i1.compute_root().update().vectorize(u, 16);
            expect_matches(s1, {0}, {3}, "rfactor of a fresh-named RVar");
            expect_sums(s1, [&](int x, int rx, int ry) { return in(rx, ry) + x; }, everywhere, "s1");
            continue;
        }
        case 5: {  // a where predicate over the split RDom
            RDom w(0, 67, 0, 45, "w");
            w.where(w.x < w.y + 10);
            Func s2("s2");
            s2(x) = 0;
            s2(x) += in(w.x, w.y) + x;
            Func i2 = s2.update().split(w.y, ro, ri, 4).rfactor(ri, u);
            i2.compute_root().update().vectorize(u, 4);
            expect_matches(s2, {0}, {3}, "rfactor of a split RVar with a where predicate");
            expect_sums(s2, [&](int x, int rx, int ry) { return in(rx, ry) + x; }, [](int rx, int ry) { return rx < ry + 10; }, "s2");
            continue;
        }
        }
        expect_matches(sum, {0}, {3}, "rfactor of a split RVar, variant " + std::to_string(variant));
        expect_sums(sum, [&](int x, int rx, int ry) { return in(rx, ry) * (rx % 3 + 1) + x; }, everywhere, "sum");
    }
}

// Halide's conv_layer app with its CPU schedule: a register tile of 16-wide vectors of
// channels times 5 pixels, the update's reduction loops inside, staging copies of the
// filter at the RVar loop and of the input at the pixel loop, a fused parallel loop, bounds
// on the output. The filter's staging copy is vectorized over a tile of the channels; the
// bounds of the whole pipeline once related the tile's first and last channel only through
// their separate ranges and asked for 16 (or 48) channels below the filter.
TEST(Schedule, ConvLayerRegisterTiles) {
    const int N = 2, CI = 8, CO = 128, W = 10, H = 2, vec = 16;
    Buffer<float> input(std::vector<int>{CI, W + 2, H + 2, N}, "input"), filter(std::vector<int>{CO, 3, 3, CI}, "filter"),
        bias(std::vector<int>{CO}, "bias");
    for (int n = 0; n < N; n++)
        for (int y = 0; y < H + 2; y++)
            for (int x = 0; x < W + 2; x++)
                for (int c = 0; c < CI; c++) input(c, x, y, n) = float((c * 7 + x * 13 + y * 5 + n * 3) % 17) - 8.0f;
    for (int ci = 0; ci < CI; ci++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++)
                for (int c = 0; c < CO; c++) filter(c, x, y, ci) = float((c * 3 + x * 11 + y * 7 + ci * 5) % 13) * 0.25f - 1.5f;
    for (int c = 0; c < CO; c++) bias(c) = float(c % 5) - 2.0f;
    for (int tile_w : {3, 4}) {
        SCOPED_TRACE("tile of " + std::to_string(tile_w) + " vectors");
        tessera::testing::ConvLayer layer(input, filter, bias, CI);
        auto &[x, y, c, n, staged_input, staged_filter, conv, relu, r] = layer;
        Var co("co"), ci("ci"), xo("xo"), xi("xi"), t("t");
        relu.bound(c, 0, CO).bound(x, 0, W).bound(y, 0, H).bound(n, 0, N);
        relu.split(c, co, ci, vec * tile_w)
            .split(x, xo, xi, 5)
            .reorder(ci, xi, xo, y, n, co)
            .vectorize(ci, vec)
            .unroll(ci)
            .unroll(xi)
            .fuse(n, co, t)
            .parallel(t)
            .parallel(y);
        conv.compute_at(relu, xo).vectorize(c, vec).unroll(c).unroll(x).unroll(y);
        conv.update().reorder(c, x, y, r.x, r.y, r.z, n).vectorize(c, vec).unroll(c).unroll(x).unroll(y).unroll(r.x, 2);
        staged_filter.compute_at(conv, r.x).vectorize(c, vec).unroll(c).unroll(n);
        staged_input.compute_at(conv, x).unroll(c);
        expect_matches(relu, {0, 0, 0, 0}, {CO, W, H, N}, "conv layer");
    }
}

TEST(Schedule, ParallelPrefixScanAndHistogram) {
    Buffer<int32_t> in = input_2d(50, 40);
    Var x("x"), y("y");
    RDom r(1, 39, "r");
    Func scan("scan");
    scan(x, y) = in(x, y);
    scan(x, r) = scan(x, r - 1) + scan(x, r);  // along y, every column independently
    scan.update().parallel(x, 8).vectorize(x, 4);
    expect_matches(scan, {0, 0}, {50, 40}, "parallel prefix scan");

    // Parallel over an RVar whose iterations write distinct points and read only their own.
    RDom s(0, 50, "s");
    Func f("f");
    f(x) = x;
    f(s) = f(s) * 2 + in(s, 3);
    f.update().parallel(s);
    expect_matches(f, {0}, {50}, "parallel RVar writing distinct points");
}

TEST(Schedule, SlidingWindowComputesEachRowOnce) {
    // g stored per strip of 8 rows of f and computed per row: each row of f needs rows
    // y - 1 .. y + 1 of g, and the sliding window computes only the new one. The output is
    // split with GuardWithIf, so the per-row region is min(y, y.max)-bounded (as in
    // Halide's unsharp schedule), which the window must still see moving forward.
    Buffer<int32_t> in = input_2d(20, 40);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func g("g"), f("f");
    g(x, y) = in(x, y + 1) * 3;
    f(x, y) = g(x, y - 1) + g(x, y) + g(x, y + 1);
    f.split(y, yo, yi, 8, TailStrategy::GuardWithIf);
    g.store_at(f, yo).compute_at(f, yi);
    expect_matches(f, {0, 1}, {16, 30}, "sliding window under a GuardWithIf split");

    auto lowered = lower::lower(f.data());
    Buffer<int32_t> out(std::vector<int>{16, 30});
    out.set_min({0, 1});
    semantics::RunOptions options;
    semantics::RunStats stats;
    options.stats = &stats;
    semantics::run(lowered, semantics::default_arguments(lowered, out.data_handle()), options);
    // f: 16 x 30 stores; g: per strip of 8 rows, 8 + 2 rows of 16 (4 strips, the last of
    // 6 rows). Recomputing 3 rows of g per row of f would take 16 x 30 x 3 stores.
    const int64_t f_stores = 16 * 30, g_stores = 16 * (3 * 10 + 8);
    EXPECT_EQ(stats.stores, f_stores + g_stores);
    // Each iteration needs at most 3 rows of g, so its storage is folded to 4 rows (the
    // footprint is min(y + 1, y.max + 1) - (y - 1) + 1, bounded by 3 in every tile).
    const std::string stmt = ir::to_string(lowered.body);
    const size_t alloc = stmt.find("allocate g[int32 * ");
    ASSERT_NE(alloc, std::string::npos) << stmt;
    EXPECT_EQ(stmt.substr(stmt.find(']', alloc) - 11, 12), " * int64(4)]") << stmt;
}

TEST(Schedule, BoundaryConditionsAroundVectorLoops) {
    // A window larger than the input on every side: each vectorized loop runs a prologue
    // and an epilogue of clamped reads around its steady state (one loop for both, in a
    // pure definition), the window's size a multiple of the vector width or not, the image
    // narrower than one vector or not.
    for (int width : {5, 20}) {
        for (int extent : {40, 43}) {
            Buffer<int32_t> in = input_2d(width, 12);
            Var x("x"), y("y"), c("c");
            Func clamped = BoundaryConditions::repeat_edge(in);
            Func g("g"), f("f");
            g(x, y) = clamped(x - 1, y) + clamped(x + 1, y + 1) * 2;
            f(x, y) = g(x, y) - g(x + 2, y - 1);
            f.vectorize(x, 8);
            g.compute_at(f, y).vectorize(x, 8);
            expect_matches(f, {-10, -3}, {extent, 18},
                           "input " + std::to_string(width) + " wide, window " + std::to_string(extent));
        }
    }
}

TEST(Schedule, PartitionBoundsDoNotWrap) {
    // The value min(x, -2147483647) peels like the base of a ShiftInwards split; the steady
    // state's bound, x <= -2147483647 for x = f.min + xo * 8 + 7, is computed from it: in
    // 32 bits, -2147483647 - f.min - 7 wrapped to a large positive bound, the steady state
    // took every iteration and the min was dropped (found by the schedule fuzzer).
    Buffer<int32_t> in = input_2d(20, 1);
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x) = select(x != 0, min(x, Expr(-2147483647)), x + 2) + in(clamp(x, 0, 19), 0);
    f(x) += 1;
    f.compute_root().vectorize(x, 8);
    g(x, y) = f(x % 3) + f(x);
    expect_matches(g, {0, 0}, {9, 2}, "a peeled min whose bound is near INT32_MIN");
}
