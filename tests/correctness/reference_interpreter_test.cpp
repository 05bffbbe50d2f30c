// The reference interpreter (the algorithm semantics of docs/semantics.md) checked against
// independent plain C++ loops written here. Nothing in this file compares the interpreter
// with itself or with other Tessera code: every expected value is computed by ordinary C++
// (with explicit wrap-around, Euclidean division and lexicographic RDom order spelled out).

#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <tessera/tessera.h>

#include "support/differential.h"

using namespace tessera;

namespace {

// Euclidean division and modulo for a positive divisor, written out.
int floor_div(int a, int b) {
    int q = a / b;
    if (a % b != 0 && a < 0) q -= 1;
    return q;
}

/** Expects `body` to throw a RuntimeError whose message mentions every string of `parts`. */
void expect_runtime_error(const std::function<void()> &body, std::initializer_list<std::string> parts) {
    try {
        body();
    } catch (const RuntimeError &e) {
        const std::string msg = e.what();
        for (const std::string &p : parts)
            EXPECT_NE(msg.find(p), std::string::npos) << "the RuntimeError message\n  " << msg
                                                      << "\ndoes not mention \"" << p << "\"";
        return;
    } catch (const std::exception &e) {
        ADD_FAILURE() << "expected a RuntimeError, got another exception: " << e.what();
        return;
    }
    ADD_FAILURE() << "expected a RuntimeError, but nothing was thrown";
}

// ---------------------------------------------------------------------------------------
// (1) Separable 3x3 box blur on uint16 with wrap-around, over a window with non-zero mins.

uint16_t hash16(int x, int y) {
    uint32_t h = uint32_t(x) * 73856093u ^ uint32_t(y) * 19349663u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return uint16_t(h);
}

TEST(ReferenceInterpreter, SeparableBoxBlurUint16NonZeroMins) {
    const int in_min_x = -5, in_min_y = 3, in_w = 40, in_h = 30;
    Buffer<uint16_t> in(std::vector<int>{in_w, in_h}, "blur_input");
    in.set_min(in_min_x, in_min_y);
    for (int y = in_min_y; y < in_min_y + in_h; y++)
        for (int x = in_min_x; x < in_min_x + in_w; x++) in(x, y) = hash16(x, y);

    Var x("x"), y("y");
    Func bx("blur_x"), by("blur_y");
    bx(x, y) = (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3;
    by(x, y) = (bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3;
    ASSERT_EQ(by.type(), UInt(16));

    // The largest window whose 3x3 neighbourhood stays inside the input.
    const int out_min_x = in_min_x + 1, out_min_y = in_min_y + 1, out_w = in_w - 2, out_h = in_h - 2;
    Buffer<uint16_t> out(std::vector<int>{out_w, out_h});
    out.set_min(out_min_x, out_min_y);
    by.realize(out);

    // Plain C++: every sum is taken modulo 2^16 before the division, as uint16 arithmetic.
    auto ref_bx = [&](int xx, int yy) -> uint16_t {
        uint16_t s = uint16_t(in(xx - 1, yy) + in(xx, yy) + in(xx + 1, yy));
        return uint16_t(s / 3);
    };
    // The same blur with a wide accumulator (what a wrong implementation might compute).
    auto wide_bx = [&](int xx, int yy) -> uint32_t {
        return (uint32_t(in(xx - 1, yy)) + in(xx, yy) + in(xx + 1, yy)) / 3;
    };
    int mismatches = 0, wrapped = 0;
    for (int yy = out_min_y; yy < out_min_y + out_h; yy++) {
        for (int xx = out_min_x; xx < out_min_x + out_w; xx++) {
            uint16_t s = uint16_t(ref_bx(xx, yy - 1) + ref_bx(xx, yy) + ref_bx(xx, yy + 1));
            uint16_t want = uint16_t(s / 3);
            if (out(xx, yy) != want && mismatches++ < 10)
                ADD_FAILURE() << "blur at (" << xx << ", " << yy << "): got " << out(xx, yy) << ", want " << want;
            uint32_t wide = (wide_bx(xx, yy - 1) + wide_bx(xx, yy) + wide_bx(xx, yy + 1)) / 3;
            if (wide != want) wrapped++;
        }
    }
    EXPECT_EQ(mismatches, 0);
    // The data makes the uint16 wrap-around observable, so a wider accumulator would fail.
    EXPECT_GT(wrapped, 50);

    // One column further left reads the input outside its bounds: a RuntimeError naming it.
    Buffer<uint16_t> too_wide(std::vector<int>{out_w + 1, out_h});
    too_wide.set_min(out_min_x - 1, out_min_y);
    expect_runtime_error([&] { by.realize(too_wide); }, {"blur_input", std::to_string(in_min_x - 1)});
}

// ---------------------------------------------------------------------------------------
// (2) Histogram with a clamped, data-dependent index.

TEST(ReferenceInterpreter, HistogramWithClampedDataDependentIndex) {
    const int w = 23, h = 17;
    Buffer<int16_t> in(std::vector<int>{w, h}, "hist_input");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) in(x, y) = int16_t(int(hash16(x, y) % 1501) - 200);  // [-200, 1300]

    Func hist("hist");
    Var b("b");
    RDom r(0, w, 0, h, "r");
    hist(b) = 0;
    // Euclidean division: -3 / 4 == -1, so bin 9 receives the values -4 .. -1.
    hist(clamp(cast<int>(in(r.x, r.y)) / 4 + 10, 0, 255)) += 1;

    const int lo = -3, n = 265;
    Buffer<int32_t> out(std::vector<int>{n});
    out.set_min(lo);
    hist.realize(out);

    std::vector<int> want(n, 0);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int bin = floor_div(in(x, y), 4) + 10;
            bin = bin < 0 ? 0 : (bin > 255 ? 255 : bin);
            want[bin - lo]++;
        }
    }
    int total = 0;
    for (int i = lo; i < lo + n; i++) {
        EXPECT_EQ(out(i), want[i - lo]) << "bin " << i;
        total += out(i);
    }
    EXPECT_EQ(total, w * h);
    // Both clamps and the negative-value bins are exercised by the data.
    EXPECT_GT(want[0 - lo], 0);
    EXPECT_GT(want[255 - lo], 0);
    EXPECT_GT(want[9 - lo], 0);
}

// ---------------------------------------------------------------------------------------
// (3) Non-commutative updates: the RDom is iterated with r.x innermost.

TEST(ReferenceInterpreter, NonCommutativeUpdateIteratesRxInnermost) {
    Var x("x");
    Func f("f");
    RDom r(0, 3, 0, 4, "r");
    f(x) = x;
    f(x) = f(x) * 3 + r.x + 10 * r.y;
    const int lo = -2, n = 5;
    Buffer<int32_t> out(std::vector<int>{n});
    out.set_min(lo);
    f.realize(out);
    for (int xx = lo; xx < lo + n; xx++) {
        int32_t want = xx, transposed = xx;
        for (int ry = 0; ry < 4; ry++)
            for (int rx = 0; rx < 3; rx++) want = want * 3 + rx + 10 * ry;
        for (int rx = 0; rx < 3; rx++)
            for (int ry = 0; ry < 4; ry++) transposed = transposed * 3 + rx + 10 * ry;
        ASSERT_NE(want, transposed);  // the order is observable
        EXPECT_EQ(out(xx), want) << "at x = " << xx;
    }
}

TEST(ReferenceInterpreter, ThreeDimensionalRDomOrderAsDigits) {
    // Each iteration appends the digit (r.x + 2 r.y + 6 r.z) in base 12: the result spells
    // the iteration order.
    Var x("x");
    Func f("f");
    RDom r(0, 2, 0, 3, 0, 2, "r");
    f(x) = cast<int64_t>(0);
    f(0) = f(0) * 12 + cast<int64_t>(r.x + 2 * r.y + 6 * r.z);
    Buffer<int64_t> out = f.realize({2});
    int64_t want = 0;
    for (int rz = 0; rz < 2; rz++)
        for (int ry = 0; ry < 3; ry++)
            for (int rx = 0; rx < 2; rx++) want = want * 12 + (rx + 2 * ry + 6 * rz);
    int64_t in_order = 0;
    for (int d = 0; d < 12; d++) in_order = in_order * 12 + d;
    EXPECT_EQ(want, in_order);  // r.x innermost, r.z outermost gives 0, 1, ..., 11
    EXPECT_EQ(out(0), want);
    EXPECT_EQ(out(1), 0);
}

TEST(ReferenceInterpreter, LastWriteWinsInLexicographicOrder) {
    // f(r.x + r.y) = 10 r.x + r.y: each point keeps the value of its last write, which is
    // the pair with the largest r.y when r.y is the outer loop.
    Var x("x");
    Func f("f");
    RDom r(0, 3, 0, 3, "r");
    f(x) = -1;
    f(r.x + r.y) = 10 * r.x + r.y;
    Buffer<int32_t> out(std::vector<int>{7});
    out.set_min(-1);
    f.realize(out);
    std::vector<int32_t> want(7, -1), transposed(7, -1);
    for (int ry = 0; ry < 3; ry++)
        for (int rx = 0; rx < 3; rx++) want[rx + ry + 1] = 10 * rx + ry;
    for (int rx = 0; rx < 3; rx++)
        for (int ry = 0; ry < 3; ry++) transposed[rx + ry + 1] = 10 * rx + ry;
    ASSERT_NE(want, transposed);
    for (int i = -1; i < 6; i++) EXPECT_EQ(out(i), want[i + 1]) << "at " << i;
}

// ---------------------------------------------------------------------------------------
// (4) Scans.

TEST(ReferenceInterpreter, PrefixSum) {
    const int n = 20;
    Buffer<int32_t> in(std::vector<int>{n}, "scan_input");
    for (int i = 0; i < n; i++) in(i) = int32_t(hash16(i, 7) % 1000) - 300;
    Var x("x");
    Func f("prefix");
    RDom r(0, n, "r");
    f(x) = 0;
    f(r) = f(r - 1) + in(r);
    const int lo = -3, ext = n + 6;
    Buffer<int32_t> out(std::vector<int>{ext});
    out.set_min(lo);
    f.realize(out);
    int32_t running = 0;
    for (int i = lo; i < lo + ext; i++) {
        int32_t want = 0;
        if (i >= 0 && i < n) {
            running += in(i);
            want = running;
        }
        EXPECT_EQ(out(i), want) << "at " << i;
    }
}

TEST(ReferenceInterpreter, SuffixSumDependsOnIterationDirection) {
    const int n = 12;
    Buffer<int32_t> in(std::vector<int>{n}, "scan_input");
    for (int i = 0; i < n; i++) in(i) = i * i - 20;
    Var x("x");
    Func f("suffix");
    RDom r(0, n, "r");
    f(x) = 0;
    // Iteration r writes point n-1-r from point n-r, written by iteration r-1.
    f(n - 1 - r) = f(n - r) + in(n - 1 - r);
    Buffer<int32_t> out = f.realize({n + 1});
    int32_t running = 0;
    std::vector<int32_t> want(n + 1, 0);
    for (int i = n - 1; i >= 0; i--) want[i] = running += in(i);
    for (int i = 0; i <= n; i++) EXPECT_EQ(out(i), want[i]) << "at " << i;
}

// ---------------------------------------------------------------------------------------
// (5) Negative RDom extents (regression R1, docs/semantics.md §14).

TEST(ReferenceInterpreter, NegativeRDomExtentIsARuntimeErrorBeforeAnyValue) {
    Param<int32_t> n("n");
    Var x("x");
    Func out("out");
    RDom r(0, n, "rn");
    out(x) = 0;
    out(x) = out(x) + r;

    Buffer<int32_t> dst(std::vector<int>{4});
    dst.fill(777);
    n.set(-3);
    expect_runtime_error([&] { out.realize(dst); }, {"out", "update 0", "rn", "-3"});
    for (int i = 0; i < 4; i++) EXPECT_EQ(dst(i), 777) << "a value was written at " << i;
    // Even an empty window fails: the check does not depend on which points are needed.
    expect_runtime_error([&] { (void)out.realize(std::vector<int>{0}); }, {"rn", "-3"});

    n.set(0);  // an empty RDom: the update is a no-op
    out.realize(dst);
    for (int i = 0; i < 4; i++) EXPECT_EQ(dst(i), 0);

    n.set(4);
    out.realize(dst);
    for (int i = 0; i < 4; i++) EXPECT_EQ(dst(i), 0 + 1 + 2 + 3);
}

TEST(ReferenceInterpreter, NegativeRDomExtentInAnIntermediateFunc) {
    Param<int32_t> n("n");
    Var x("x");
    Func g("inner"), out("outer");
    RDom r(0, n, "rn");
    g(x) = x;
    g(x) = g(x) + r;
    out(x) = g(x) * 2;

    n.set(-1);
    Buffer<int32_t> dst(std::vector<int>{3});
    dst.fill(777);
    expect_runtime_error([&] { out.realize(dst); }, {"inner", "update 0", "rn", "-1"});
    for (int i = 0; i < 3; i++) EXPECT_EQ(dst(i), 777);

    n.set(0);
    out.realize(dst);
    for (int i = 0; i < 3; i++) EXPECT_EQ(dst(i), 2 * i);
    n.set(3);
    out.realize(dst);
    for (int i = 0; i < 3; i++) EXPECT_EQ(dst(i), 2 * (i + 3));
}

TEST(ReferenceInterpreter, NegativeExtentIsReportedBeforeOtherErrors) {
    // Computing any value would read the buffer out of bounds; the start-up check must
    // report the negative extent instead.
    Param<int32_t> n("n", -2);
    Buffer<int32_t> small(std::vector<int>{2}, "small_buf");
    Var x("x");
    Func out("out");
    RDom r(0, 2, 0, n, "rn");  // extent 2 in r.x, negative in r.y
    out(x) = small(x + 100);
    out(x) = out(x) + r.x + r.y;
    try {
        (void)out.realize({4});
        ADD_FAILURE() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("rn"), std::string::npos) << msg;
        EXPECT_NE(msg.find("-2"), std::string::npos) << msg;
        EXPECT_EQ(msg.find("small_buf"), std::string::npos) << msg;
    }
    // With a zero extent in r.x the RDom is empty; the negative r.y is still an error.
    Param<int32_t> m("m", -2);
    Func out2("out2");
    RDom q(0, 0, 0, m, "rq");
    out2(x) = 0;
    out2(x) = out2(x) + q.x + q.y;
    expect_runtime_error([&] { (void)out2.realize({4}); }, {"rq", "-2"});
}

// ---------------------------------------------------------------------------------------
// (6) Outputs whose updates write outside the window ("impure identity", regression R2).

TEST(ReferenceInterpreter, UpdateWritingOutsideTheWindow) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h");
    f(x, y) = 1;
    g(x, y) = 1 + f(x, y);
    RDom r(-10, 15, -10, 15, "r");
    g(r.x, r.y) = g(r.x, r.y) + 1;
    h(x, y) = g(x, y);

    for (Func *out : {&g, &h}) {
        Buffer<int32_t> res = out->realize({3, 3});
        for (int yy = 0; yy < 3; yy++)
            for (int xx = 0; xx < 3; xx++) EXPECT_EQ(res(xx, yy), 3) << out->name() << " at " << xx << ", " << yy;
    }
    // A window straddling the RDom's edge (the RDom covers [-10, 4] in each dimension).
    Buffer<int32_t> res(std::vector<int>{4, 4});
    res.set_min(3, 2);
    g.realize(res);
    for (int yy = 2; yy < 6; yy++)
        for (int xx = 3; xx < 7; xx++) EXPECT_EQ(res(xx, yy), (xx <= 4 && yy <= 4) ? 3 : 2) << xx << ", " << yy;
}

// ---------------------------------------------------------------------------------------
// (7) Boundary conditions at negative coordinates.

// Independent definitions: reflect or shift until the coordinate is inside [mn, mn + n).
int ref_repeat_edge(int x, int mn, int n) { return x < mn ? mn : (x > mn + n - 1 ? mn + n - 1 : x); }
int ref_mirror_image(int x, int mn, int n) {
    const int mx = mn + n - 1;
    while (x < mn || x > mx) x = x < mn ? 2 * mn - 1 - x : 2 * mx + 1 - x;
    return x;
}
int ref_mirror_interior(int x, int mn, int n) {
    if (n == 1) return mn;
    const int mx = mn + n - 1;
    while (x < mn || x > mx) x = x < mn ? 2 * mn - x : 2 * mx - x;
    return x;
}
int ref_repeat_image(int x, int mn, int n) {
    while (x < mn) x += n;
    while (x > mn + n - 1) x -= n;
    return x;
}

TEST(ReferenceInterpreter, BoundaryConditions1DHandWritten) {
    Buffer<int32_t> src(std::vector<int>{4}, "src1");
    for (int i = 0; i < 4; i++) src(i) = 10 + i;
    const int lo = -7, n = 18;  // x = -7 .. 10
    auto run = [&](const Func &f) {
        Buffer<int32_t> out(std::vector<int>{n});
        out.set_min(lo);
        f.realize(out);
        std::vector<int32_t> v;
        for (int i = lo; i < lo + n; i++) v.push_back(out(i));
        return v;
    };
    using V = std::vector<int32_t>;
    //                 x = -7  -6  -5  -4  -3  -2  -1 | 0   1   2   3 | 4   5   6   7   8   9  10
    EXPECT_EQ(run(BoundaryConditions::repeat_edge(src)),
              (V{10, 10, 10, 10, 10, 10, 10, 10, 11, 12, 13, 13, 13, 13, 13, 13, 13, 13}));
    EXPECT_EQ(run(BoundaryConditions::constant_exterior(src, -1)),
              (V{-1, -1, -1, -1, -1, -1, -1, 10, 11, 12, 13, -1, -1, -1, -1, -1, -1, -1}));
    EXPECT_EQ(run(BoundaryConditions::mirror_image(src)),
              (V{11, 12, 13, 13, 12, 11, 10, 10, 11, 12, 13, 13, 12, 11, 10, 10, 11, 12}));
    EXPECT_EQ(run(BoundaryConditions::mirror_interior(src)),
              (V{11, 10, 11, 12, 13, 12, 11, 10, 11, 12, 13, 12, 11, 10, 11, 12, 13, 12}));
    EXPECT_EQ(run(BoundaryConditions::repeat_image(src)),
              (V{11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12, 13, 10, 11, 12}));

    // The reference functions agree with the hand-written rows above.
    for (int x = lo; x < lo + n; x++) {
        EXPECT_EQ(run(BoundaryConditions::mirror_image(src))[x - lo], 10 + ref_mirror_image(x, 0, 4));
        EXPECT_EQ(run(BoundaryConditions::mirror_interior(src))[x - lo], 10 + ref_mirror_interior(x, 0, 4));
    }
}

TEST(ReferenceInterpreter, BoundaryConditionsDegenerateExtents) {
    for (int extent : {1, 2}) {
        Buffer<int32_t> src(std::vector<int>{extent}, "tiny");
        src.set_min(-3);
        for (int i = 0; i < extent; i++) src(-3 + i) = 50 + i;
        const int lo = -9, n = 14;
        std::vector<std::pair<Func, std::function<int(int)>>> cases = {
            {BoundaryConditions::repeat_edge(src), [&](int x) { return ref_repeat_edge(x, -3, extent); }},
            {BoundaryConditions::mirror_image(src), [&](int x) { return ref_mirror_image(x, -3, extent); }},
            {BoundaryConditions::mirror_interior(src), [&](int x) { return ref_mirror_interior(x, -3, extent); }},
            {BoundaryConditions::repeat_image(src), [&](int x) { return ref_repeat_image(x, -3, extent); }},
        };
        for (auto &[f, ref] : cases) {
            Buffer<int32_t> out(std::vector<int>{n});
            out.set_min(lo);
            f.realize(out);
            for (int x = lo; x < lo + n; x++)
                EXPECT_EQ(out(x), 50 + (ref(x) + 3)) << f.name() << " extent " << extent << " at " << x;
        }
    }
}

void check_2d_boundary(const Func &f, const std::string &kind, int mnx, int nx, int mny, int ny,
                       const std::function<int32_t(int, int)> &src_value) {
    const int lox = -7, wx = 17, loy = -7, wy = 15;
    Buffer<int32_t> out(std::vector<int>{wx, wy});
    out.set_min(lox, loy);
    f.realize(out);
    for (int y = loy; y < loy + wy; y++) {
        for (int x = lox; x < lox + wx; x++) {
            int32_t want;
            if (kind == "constant_exterior") {
                bool inside = x >= mnx && x < mnx + nx && y >= mny && y < mny + ny;
                want = inside ? src_value(x, y) : -99;
            } else if (kind == "repeat_edge") {
                want = src_value(ref_repeat_edge(x, mnx, nx), ref_repeat_edge(y, mny, ny));
            } else if (kind == "mirror_image") {
                want = src_value(ref_mirror_image(x, mnx, nx), ref_mirror_image(y, mny, ny));
            } else if (kind == "mirror_interior") {
                want = src_value(ref_mirror_interior(x, mnx, nx), ref_mirror_interior(y, mny, ny));
            } else {
                want = src_value(ref_repeat_image(x, mnx, nx), ref_repeat_image(y, mny, ny));
            }
            ASSERT_EQ(out(x, y), want) << kind << " at (" << x << ", " << y << ")";
        }
    }
}

TEST(ReferenceInterpreter, BoundaryConditions2DBufferWithNonZeroMins) {
    const int mnx = 1, nx = 4, mny = -2, ny = 3;
    Buffer<int32_t> src(std::vector<int>{nx, ny}, "src2");
    src.set_min(mnx, mny);
    auto value = [](int x, int y) { return int32_t(1000 + 100 * y + x); };
    for (int y = mny; y < mny + ny; y++)
        for (int x = mnx; x < mnx + nx; x++) src(x, y) = value(x, y);
    check_2d_boundary(BoundaryConditions::repeat_edge(src), "repeat_edge", mnx, nx, mny, ny, value);
    check_2d_boundary(BoundaryConditions::constant_exterior(src, -99), "constant_exterior", mnx, nx, mny, ny, value);
    check_2d_boundary(BoundaryConditions::mirror_image(src), "mirror_image", mnx, nx, mny, ny, value);
    check_2d_boundary(BoundaryConditions::mirror_interior(src), "mirror_interior", mnx, nx, mny, ny, value);
    check_2d_boundary(BoundaryConditions::repeat_image(src), "repeat_image", mnx, nx, mny, ny, value);
}

TEST(ReferenceInterpreter, BoundaryConditions2DImageParamRebound) {
    ImageParam ip(Int(32), 2, "ip");
    Func re = BoundaryConditions::repeat_edge(ip);
    Func ce = BoundaryConditions::constant_exterior(ip, -99);
    Func mi = BoundaryConditions::mirror_image(ip);
    Func mt = BoundaryConditions::mirror_interior(ip);
    Func ri = BoundaryConditions::repeat_image(ip);
    // The bounds are symbolic: the same Funcs work for every buffer bound later.
    struct Shape {
        int mnx, nx, mny, ny;
    };
    for (Shape s : {Shape{0, 3, 0, 2}, Shape{-2, 5, 3, 4}}) {
        Buffer<int32_t> b(std::vector<int>{s.nx, s.ny});
        b.set_min(s.mnx, s.mny);
        auto value = [](int x, int y) { return int32_t(7 * x - 31 * y); };
        for (int y = s.mny; y < s.mny + s.ny; y++)
            for (int x = s.mnx; x < s.mnx + s.nx; x++) b(x, y) = value(x, y);
        ip.set(b);
        check_2d_boundary(re, "repeat_edge", s.mnx, s.nx, s.mny, s.ny, value);
        check_2d_boundary(ce, "constant_exterior", s.mnx, s.nx, s.mny, s.ny, value);
        check_2d_boundary(mi, "mirror_image", s.mnx, s.nx, s.mny, s.ny, value);
        check_2d_boundary(mt, "mirror_interior", s.mnx, s.nx, s.mny, s.ny, value);
        check_2d_boundary(ri, "repeat_image", s.mnx, s.nx, s.mny, s.ny, value);
    }
}

TEST(ReferenceInterpreter, BoundaryConditionOnAFuncWithOneUnboundedDimension) {
    Var x("x"), y("y");
    Func src("fsrc");
    src(x, y) = x * 10 + y;
    Func f = BoundaryConditions::mirror_interior(src, {Range(0, 4), Range()});
    Buffer<int32_t> out(std::vector<int>{12, 5});
    out.set_min(-6, -9);
    f.realize(out);
    for (int yy = -9; yy < -4; yy++)
        for (int xx = -6; xx < 6; xx++) EXPECT_EQ(out(xx, yy), ref_mirror_interior(xx, 0, 4) * 10 + yy);
}

// ---------------------------------------------------------------------------------------
// (8) RDom predicates.

TEST(ReferenceInterpreter, TriangularRDomWithWhere) {
    Var x("x");
    Func rows("rows"), count("count");
    RDom r(0, 8, 0, 8, "tri");
    r.where(r.x <= r.y);
    rows(x) = 0;
    rows(r.y) = rows(r.y) + r.x + 1;
    RDom q(0, 8, 0, 8, "tri2");
    q.where(q.x <= q.y);
    q.where((q.x + q.y) % 3 != 1);
    count(x) = 0;
    count(0) = count(0) + 1;
    count(1) = count(1) * 7 + q.x + 8 * q.y;  // order-sensitive and predicated

    Buffer<int32_t> out = rows.realize({9});
    for (int y = 0; y < 8; y++) {
        int32_t want = 0;
        for (int xx = 0; xx <= y; xx++) want += xx + 1;
        EXPECT_EQ(out(y), want);
    }
    EXPECT_EQ(out(8), 0);

    Buffer<int32_t> c = count.realize({3});
    // count(0) uses no RDom: a single unconditional increment.
    EXPECT_EQ(c(0), 1);
    int32_t want = 0;
    for (int qy = 0; qy < 8; qy++)
        for (int qx = 0; qx < 8; qx++)
            if (qx <= qy && (qx + qy) % 3 != 1) want = int32_t(uint32_t(want) * 7u + uint32_t(qx + 8 * qy));
    EXPECT_EQ(c(1), want);
    EXPECT_EQ(c(2), 0);
}

TEST(ReferenceInterpreter, WherePredicateCountsPoints) {
    Var x("x");
    Func f("f");
    RDom r(0, 8, 0, 8, "tri");
    r.where(r.x <= r.y);
    f(x) = 0;
    f(0) = f(0) + r.x * 0 + 1;
    Buffer<int32_t> out = f.realize({1});
    EXPECT_EQ(out(0), 36);
}

TEST(ReferenceInterpreter, PredicateReadsTheValueBeingUpdated) {
    // Regression R5: after r = 0 writes f(0) = 2 the predicate is false.
    Var x("x");
    Func f("f");
    f(x) = 1;
    RDom r(0, 10, "r");
    r.where(f(0) == 1);
    f(r) = 2;
    Buffer<int32_t> out = f.realize({10});
    std::vector<int32_t> got;
    for (int i = 0; i < 10; i++) got.push_back(out(i));
    EXPECT_EQ(got, (std::vector<int32_t>{2, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
}

TEST(ReferenceInterpreter, PredicateOnAPureVarAndAnotherFunc) {
    Buffer<uint8_t> mask(std::vector<int>{6}, "mask");
    for (int i = 0; i < 6; i++) mask(i) = uint8_t(i % 2 == 0 ? 1 : 0);
    Var x("x");
    Func f("f");
    RDom r(0, 6, "r");
    r.where(mask(r) == 1 && r < x);
    f(x) = 100;
    f(x) = f(x) - r;
    Buffer<int32_t> out(std::vector<int>{10});
    out.set_min(-2);
    f.realize(out);
    for (int xx = -2; xx < 8; xx++) {
        int32_t want = 100;
        for (int i = 0; i < 6; i++)
            if (i % 2 == 0 && i < xx) want -= i;
        EXPECT_EQ(out(xx), want) << "at " << xx;
    }
}

// ---------------------------------------------------------------------------------------
// (9) Updates with pure and reduction dimensions, and updates at constant points.

TEST(ReferenceInterpreter, PureAndReductionDimensionsMixed) {
    Var x("x"), y("y");
    Func f("f");
    RDom r(1, 4, "r");
    f(x, y) = x + 10 * y;
    f(x, r) = f(x, r) + f(x, r - 1) * 2;  // a column recurrence in each column x
    const int lox = -2, wx = 5, loy = -1, wy = 8;
    Buffer<int32_t> out(std::vector<int>{wx, wy});
    out.set_min(lox, loy);
    f.realize(out);
    for (int xx = lox; xx < lox + wx; xx++) {
        std::vector<int32_t> col(wy);
        for (int yy = loy; yy < loy + wy; yy++) col[yy - loy] = xx + 10 * yy;
        for (int ry = 1; ry < 5; ry++) col[ry - loy] += col[ry - 1 - loy] * 2;
        for (int yy = loy; yy < loy + wy; yy++) EXPECT_EQ(out(xx, yy), col[yy - loy]) << xx << ", " << yy;
    }
}

TEST(ReferenceInterpreter, TwoDimensionalRDomWritingOneRowPerColumn) {
    // f(x, r.x) with x pure and a 2-D RDom: each column x accumulates in its own slice.
    Var x("x"), y("y");
    Func f("f");
    RDom r(0, 3, 0, 2, "r");
    f(x, y) = 0;
    f(x, r.x) = f(x, r.x) * 5 + x + r.y + 1;
    Buffer<int32_t> out(std::vector<int>{4, 5});
    out.set_min(-1, -1);
    f.realize(out);
    for (int xx = -1; xx < 3; xx++) {
        int32_t want[5] = {0, 0, 0, 0, 0};  // y = -1 .. 3
        for (int ry = 0; ry < 2; ry++)
            for (int rx = 0; rx < 3; rx++) want[rx + 1] = want[rx + 1] * 5 + xx + ry + 1;
        for (int yy = -1; yy < 4; yy++) EXPECT_EQ(out(xx, yy), want[yy + 1]) << xx << ", " << yy;
    }
}

TEST(ReferenceInterpreter, UpdatesAtConstantPoints) {
    Var x("x"), y("y");
    Func f("f");
    f(x) = x;
    f(0) = 5;
    f(3) = f(3) + f(0);  // sees update 0: 3 + 5
    f(-2) = f(-2) * f(3);
    Buffer<int32_t> out(std::vector<int>{8});
    out.set_min(-3);
    f.realize(out);
    std::vector<int32_t> want = {-3, -16, -1, 5, 1, 2, 8, 4};  // x = -3 .. 4
    for (int i = -3; i < 5; i++) EXPECT_EQ(out(i), want[i + 3]) << "at " << i;

    Func g("g");
    g(x, y) = x * y;
    g(x, 0) = g(x, 0) * 2 + g(x, 1);
    Buffer<int32_t> o2 = g.realize({3, 3});
    for (int xx = 0; xx < 3; xx++) {
        EXPECT_EQ(o2(xx, 0), xx);
        EXPECT_EQ(o2(xx, 1), xx);
        EXPECT_EQ(o2(xx, 2), 2 * xx);
    }
}

// ---------------------------------------------------------------------------------------
// (10) Every element type.

template<typename T>
std::vector<T> interesting_values() {
    if constexpr (std::is_floating_point_v<T>) {
        using L = std::numeric_limits<T>;
        return {T(0), -T(0), T(1.5), T(-2.25), T(1e30), L::max(), L::lowest(), L::denorm_min(),
                L::quiet_NaN(), L::infinity(), -L::infinity(), T(0.1)};
    } else {
        using L = std::numeric_limits<T>;
        return {L::min(), T(L::min() + 1), T(0), T(1), T(2), T(42), T(L::max() - 1), L::max(), T(L::max() / 3), T(L::max() / 3 + 1)};
    }
}

template<typename T>
bool same_value(T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
        return std::memcmp(&a, &b, sizeof(T)) == 0;  // distinguishes -0.0 from 0.0
    } else {
        return a == b;
    }
}

template<typename T>
void check_element_type() {
    SCOPED_TRACE(type_of<T>().to_string());
    const std::vector<T> vals = interesting_values<T>();
    const int n = int(vals.size());
    Buffer<T> in(std::vector<int>{n});
    for (int i = 0; i < n; i++) in(i) = vals[size_t(i)];

    Var x("x");
    Func copy("copy"), arith("arith"), conv("conv"), big("big"), sel("sel");
    copy(x) = in(x);
    arith(x) = in(x) * 3 + 1;
    conv(x) = cast<T>(x * 37 - 100);
    big(x) = in(x) > 1;
    sel(x) = select(big(x), in(x), cast<T>(Expr(7)));
    ASSERT_EQ(copy.type(), type_of<T>());
    ASSERT_EQ(arith.type(), type_of<T>());
    ASSERT_EQ(big.type(), Bool());

    Buffer<T> o_copy = copy.realize({n});
    Buffer<T> o_arith = arith.realize({n});
    Buffer<bool> o_big = big.realize({n});
    Buffer<T> o_sel = sel.realize({n});
    for (int i = 0; i < n; i++) {
        const T v = vals[size_t(i)];
        EXPECT_TRUE(same_value(o_copy(i), v)) << "copy at " << i;
        T want_arith;
        if constexpr (std::is_floating_point_v<T>) {
            volatile T prod = v * T(3);
            volatile T sum = prod + T(1);
            want_arith = sum;
        } else {
            want_arith = static_cast<T>(static_cast<uint64_t>(v) * 3u + 1u);  // wraps
        }
        EXPECT_TRUE(same_value(o_arith(i), want_arith))
            << "arith at " << i << ": got " << +o_arith(i) << ", want " << +want_arith;
        const bool want_big = v > T(1);
        EXPECT_EQ(o_big(i), want_big) << "big at " << i;
        EXPECT_TRUE(same_value(o_sel(i), want_big ? v : T(7))) << "sel at " << i;
    }

    const int lo = -20, m = 40;
    Buffer<T> o_conv(std::vector<int>{m});
    o_conv.set_min(lo);
    conv.realize(o_conv);
    for (int xx = lo; xx < lo + m; xx++) {
        const int wide = xx * 37 - 100;
        const T want = static_cast<T>(wide);  // modular for integers (C++20), exact for floats
        EXPECT_TRUE(same_value(o_conv(xx), want)) << "conv at " << xx;
    }
}

TEST(ReferenceInterpreter, EveryElementTypeRoundTrips) {
    check_element_type<int8_t>();
    check_element_type<int16_t>();
    check_element_type<int32_t>();
    check_element_type<int64_t>();
    check_element_type<uint8_t>();
    check_element_type<uint16_t>();
    check_element_type<uint32_t>();
    check_element_type<uint64_t>();
    check_element_type<float>();
    check_element_type<double>();
}

TEST(ReferenceInterpreter, BoolFuncFeedsAnotherFunc) {
    Var x("x");
    Func odd("odd"), f("f");
    odd(x) = x % 2 == 1;
    f(x) = select(odd(x) && x > 0, x, -x);
    Buffer<int32_t> out(std::vector<int>{9});
    out.set_min(-4);
    f.realize(out);
    for (int xx = -4; xx < 5; xx++) {
        const bool o = ((xx % 2) + 2) % 2 == 1;  // Euclidean: -3 % 2 == 1
        EXPECT_EQ(out(xx), (o && xx > 0) ? xx : -xx) << "at " << xx;
    }
}

// ---------------------------------------------------------------------------------------
// (11) ImageParam and Param.

TEST(ReferenceInterpreter, ImageParamAndParams) {
    ImageParam in(UInt(8), 2, "img");
    Param<int32_t> bias("bias");
    Param<float> gain("gain");
    Param<uint8_t> add8("add8");
    Var x("x"), y("y");
    Func scaled("scaled"), wrapped("wrapped"), rowsum("rowsum");
    scaled(x, y) = cast<float>(in(x, y)) * gain + cast<float>(bias);
    wrapped(x, y) = in(x, y) + add8;  // uint8 arithmetic wraps
    RDom r(in.dim(0).min(), in.width(), "rw");
    rowsum(y) = bias;
    rowsum(y) = rowsum(y) + cast<int32_t>(in(r, y));

    bias.set_range(-100, 100);
    auto check = [&](const Buffer<uint8_t> &b, int32_t bias_v, float gain_v, uint8_t add_v) {
        in.set(b);
        bias.set(bias_v);
        gain.set(gain_v);
        add8.set(add_v);
        const int mnx = b.min(0), nx = b.extent(0), mny = b.min(1), ny = b.extent(1);
        Buffer<float> o1(std::vector<int>{nx, ny});
        o1.set_min(mnx, mny);
        scaled.realize(o1);
        Buffer<uint8_t> o2(std::vector<int>{nx, ny});
        o2.set_min(mnx, mny);
        wrapped.realize(o2);
        Buffer<int32_t> o3(std::vector<int>{ny});
        o3.set_min(mny);
        rowsum.realize(o3);
        for (int yy = mny; yy < mny + ny; yy++) {
            int32_t s = bias_v;
            for (int xx = mnx; xx < mnx + nx; xx++) {
                volatile float prod = float(b(xx, yy)) * gain_v;
                volatile float want = prod + float(bias_v);
                EXPECT_EQ(o1(xx, yy), float(want)) << xx << ", " << yy;
                EXPECT_EQ(o2(xx, yy), uint8_t(b(xx, yy) + add_v)) << xx << ", " << yy;
                s += b(xx, yy);
            }
            EXPECT_EQ(o3(yy), s) << "row " << yy;
        }
    };

    Buffer<uint8_t> a(std::vector<int>{5, 3});
    for (int yy = 0; yy < 3; yy++)
        for (int xx = 0; xx < 5; xx++) a(xx, yy) = uint8_t(hash16(xx, yy));
    check(a, 7, 0.3f, 200);
    check(a, -100, 1.7f, 0);
    Buffer<uint8_t> b(std::vector<int>{7, 4});
    b.set_min(-3, 10);
    for (int yy = 10; yy < 14; yy++)
        for (int xx = -3; xx < 4; xx++) b(xx, yy) = uint8_t(hash16(xx, yy) >> 3);
    check(b, 100, -2.5f, 255);

    // A Param outside its range, and an ImageParam with no buffer, are RuntimeErrors.
    bias.set(101);
    expect_runtime_error([&] { (void)rowsum.realize({1}); }, {"bias", "101", "100"});
    bias.set(0);
    ImageParam unbound(UInt(8), 1, "unbound_img");
    Func u("u");
    u(x) = unbound(x);
    expect_runtime_error([&] { (void)u.realize({2}); }, {"unbound_img"});
}

// ---------------------------------------------------------------------------------------
// Which reads happen: lazily per needed point, but every operand of a select.

TEST(ReferenceInterpreter, OnlyNeededPointsAreReadButEverySelectOperandIs) {
    Buffer<int32_t> in(std::vector<int>{10}, "lazy_input");
    for (int i = 0; i < 10; i++) in(i) = i * i;
    Var x("x");
    Func g("g"), f("f"), s("s");
    g(x) = in(x);
    f(x) = g(x) + 1;
    Buffer<int32_t> ok = f.realize({10});
    for (int i = 0; i < 10; i++) EXPECT_EQ(ok(i), i * i + 1);
    expect_runtime_error([&] { (void)f.realize({11}); }, {"lazy_input", "10"});

    s(x) = select(x > 0, in(x - 1), 0);
    Buffer<int32_t> o(std::vector<int>{9});
    o.set_min(1);
    s.realize(o);
    for (int i = 1; i < 10; i++) EXPECT_EQ(o(i), (i - 1) * (i - 1));
    expect_runtime_error([&] { (void)s.realize({3}); }, {"lazy_input", "-1"});
}

// ---------------------------------------------------------------------------------------
// RDom values near the ends of int32 (docs/semantics.md §7.2: r takes the values min + t,
// t = 0 .. extent - 1, computed in int32 with wrap-around). The reference, the compiled
// code and the IR interpreter (whose reduction loop wraps as the RDom does) agree.

TEST(ReferenceInterpreter, RDomRangeWrappingPastInt32Max) {
    Var x("x");
    Func f("f");
    RDom r(INT32_MAX - 1, 4, "rbig");
    f(x) = cast<int64_t>(0);
    f(0) = f(0) * 3 + cast<int64_t>(r);
    Buffer<int64_t> out = f.realize({1});
    int64_t want = 0;
    for (int t = 0; t < 4; t++) {
        const int32_t rv = int32_t(uint32_t(INT32_MAX - 1) + uint32_t(t));  // wraps
        want = want * 3 + rv;
    }
    EXPECT_EQ(out(0), want);
    Buffer<int64_t> reference = f.realize_reference({1});
    EXPECT_EQ(reference(0), want);
    EXPECT_EQ(tessera::testing::differential::prophecy_check(f, {0}, {1}), "");
}

// ---------------------------------------------------------------------------------------
// (12) Performance sanity: a three-stage 1024x1024 pipeline realizes (time is printed, not
// asserted), with every value checked.

TEST(ReferenceInterpreter, ThreeStage1024x1024Pipeline) {
    const int n = 1024;
    Var x("x"), y("y");
    Func a("stage_a"), b("stage_b"), c("stage_c");
    a(x, y) = (x * 3 + y * 5) % 256;
    b(x, y) = a(x - 1, y) + a(x, y) * 2 + a(x + 1, y);
    c(x, y) = b(x, y - 1) + b(x, y) * 2 + b(x, y + 1);

    const auto t0 = std::chrono::steady_clock::now();
    Buffer<int32_t> out = c.realize({n, n});
    const auto t1 = std::chrono::steady_clock::now();
    std::cout << "[ reference interpreter ] 3-stage " << n << "x" << n << " pipeline: "
              << std::chrono::duration<double, std::milli>(t1 - t0).count() << " ms\n";

    auto av = [](int xx, int yy) { return ((xx * 3 + yy * 5) % 256 + 256) % 256; };
    std::vector<int32_t> bv(size_t(n) * (n + 2));
    for (int yy = -1; yy <= n; yy++)
        for (int xx = 0; xx < n; xx++) bv[size_t(yy + 1) * n + xx] = av(xx - 1, yy) + av(xx, yy) * 2 + av(xx + 1, yy);
    int mismatches = 0;
    for (int yy = 0; yy < n; yy++)
        for (int xx = 0; xx < n; xx++) {
            int32_t want = bv[size_t(yy) * n + xx] + bv[size_t(yy + 1) * n + xx] * 2 + bv[size_t(yy + 2) * n + xx];
            if (out(xx, yy) != want && mismatches++ < 10)
                ADD_FAILURE() << "at (" << xx << ", " << yy << "): got " << out(xx, yy) << ", want " << want;
        }
    EXPECT_EQ(mismatches, 0);
}

}  // namespace
