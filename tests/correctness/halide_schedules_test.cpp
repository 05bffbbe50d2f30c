// Halide's published schedules, unchanged, against the reference interpreter: the classic
// and the modern blur, the unsharp app's schedule, a tiled matmul with unrolled
// accumulators; and the regressions R3 and R4 of docs/semantics.md §14 under the splits they
// were found with. Sizes are deliberately not multiples of the tiles.

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <iterator>

#include <cmath>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "support/differential.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

void expect_matches(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents,
                    const std::string &what) {
    EXPECT_EQ(differential_check(f, mins, extents, false), "") << what;
    const std::string p = prophecy_check(f, mins, extents, 3000000);
    EXPECT_TRUE(p.empty() || p == "skipped") << what << ": " << p;
}

/** The C that compile_to_c writes for f (under the test's temporary directory). */
std::string c_of(const Func &f, const std::string &name, const std::vector<Argument> &args) {
    const std::string file = ::testing::TempDir() + "/" + name + ".c";
    f.compile_to_c(file, args);
    std::ifstream in(file);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Buffer<uint16_t> image_u16(int w, int h) {
    Buffer<uint16_t> b(std::vector<int>{w, h}, "input");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = uint16_t((x * 131 + y * 71 + (x * y) % 97) & 0xfff);
    return b;
}

}  // namespace

TEST(HalideSchedules, ClassicAndModernBlur) {
    for (int variant = 0; variant < 2; variant++) {
        const int w = 300, h = 75;
        Buffer<uint16_t> input = image_u16(w + 2, h + 2);
        Var x("x"), y("y"), xi("xi"), yi("yi");
        Func blur_x("blur_x"), blur_y("blur_y");
        blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
        blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
        if (variant == 0) {
            // The 2012 schedule.
            blur_y.tile(x, y, xi, yi, 256, 32).vectorize(xi, 8).parallel(y);
            blur_x.compute_at(blur_y, x).vectorize(x, 8);
        } else {
            // apps/blur today: strips, vectors of 16, a sliding window.
            blur_y.split(y, y, yi, 32).parallel(y).vectorize(x, 16);
            blur_x.store_at(blur_y, y).compute_at(blur_y, yi).vectorize(x, 16);
        }
        expect_matches(blur_y, {0, 0}, {w, h}, variant == 0 ? "classic blur" : "modern blur");
        if (variant == 0) continue;

        // A strip's body is small: its row loops stay in the strip's function (a call per
        // row would cost more than splitting its compilation saves), and the C compiler
        // unrolls the steady state of each stage's rows, not the shifted last vector.
        const std::string c = c_of(blur_y, "modern_blur", {input});
        EXPECT_NE(c.find("TESSERA_OUTLINED int blur_y_par(const void *"), std::string::npos) << c;
        EXPECT_EQ(c.find("TESSERA_OUTLINED int blur_y_blur"), std::string::npos) << c;
        size_t unrolled = 0;
        for (size_t at = c.find("#pragma GCC unroll"); at != std::string::npos; at = c.find("#pragma GCC unroll", at + 1))
            unrolled++;
        EXPECT_EQ(unrolled, 2u) << c;
    }
}

TEST(HalideSchedules, Unsharp) {
    const int w = 70, h = 45;
    Buffer<float> input(std::vector<int>{w, h, 3}, "input");
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) input(x, y, c) = float((x * 7 + y * 13 + c * 29) % 101) / 101.0f + 0.05f;
    Var x("x"), y("y"), c("c"), yo("yo"), yi("yi");
    const float kSigma = 1.5f;
    Func kernel("kernel");
    kernel(x) = exp(-x * x / (2 * kSigma * kSigma)) / (std::sqrt(2 * 3.14159265f) * kSigma);
    Func in_bounded = BoundaryConditions::repeat_edge(input);
    Func gray("gray");
    gray(x, y) = 0.299f * in_bounded(x, y, 0) + 0.587f * in_bounded(x, y, 1) + 0.114f * in_bounded(x, y, 2);
    Func blur_y("blur_y");
    blur_y(x, y) = kernel(0) * gray(x, y) + kernel(1) * (gray(x, y - 1) + gray(x, y + 1)) +
                   kernel(2) * (gray(x, y - 2) + gray(x, y + 2)) + kernel(3) * (gray(x, y - 3) + gray(x, y + 3));
    Func blur_x("blur_x");
    blur_x(x, y) = kernel(0) * blur_y(x, y) + kernel(1) * (blur_y(x - 1, y) + blur_y(x + 1, y)) +
                   kernel(2) * (blur_y(x - 2, y) + blur_y(x + 2, y)) + kernel(3) * (blur_y(x - 3, y) + blur_y(x + 3, y));
    Func sharpen("sharpen");
    sharpen(x, y) = 2 * gray(x, y) - blur_x(x, y);
    Func ratio("ratio");
    ratio(x, y) = sharpen(x, y) / gray(x, y);
    Func unsharp("unsharp");
    unsharp(x, y, c) = ratio(x, y) * input(x, y, c);
    unsharp.split(y, yo, yi, 32).vectorize(x, 8).parallel(yo).reorder(x, c, yi, yo);
    gray.compute_at(unsharp, yi).store_at(unsharp, yo).vectorize(x, 8);
    blur_y.compute_at(unsharp, yi).store_at(unsharp, yo).vectorize(x, 8);
    ratio.compute_at(unsharp, yi).store_at(unsharp, yo).vectorize(x, 8);
    expect_matches(unsharp, {0, 0, 0}, {w, h, 3}, "unsharp");
}

TEST(HalideSchedules, TiledMatmulWithUnrolledAccumulators) {
    const int n = 61;
    Buffer<int32_t> A(std::vector<int>{n, n}, "A"), B(std::vector<int>{n, n}, "B");
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) A(i, j) = (i * 3 + j * 5) % 17 - 8, B(i, j) = (i * 7 + j) % 13 - 6;
    Var x("x"), y("y"), xi("xi"), yi("yi"), yii("yii"), xy("xy");
    RDom k(0, n, "k");
    Func prod("prod"), result("result");
    prod(x, y) = 0;
    prod(x, y) += A(k, y) * B(x, k);
    result(x, y) = prod(x, y);
    result.tile(x, y, xi, yi, 24, 32).fuse(x, y, xy).parallel(xy).split(yi, yi, yii, 4).vectorize(xi, 8).unroll(xi).unroll(yii);
    prod.compute_at(result, yi).vectorize(x, 8).unroll(y);
    prod.update().reorder(x, y, k).vectorize(x, 8).unroll(x).unroll(y);
    expect_matches(result, {0, 0}, {n, n}, "matmul");

    // The parallel loop's iteration is a function, and the loop over the tile's rows of
    // vectors, with the accumulator tile it allocates and the loops that use it, another
    // (outlined together, so that the tile's elements stay in registers, and called once
    // per tile), each compiled in its own translation unit under the JIT.
    const std::string c = c_of(result, "tiled_matmul", {A, B});
    EXPECT_NE(c.find("TESSERA_OUTLINED int result_par(const void *"), std::string::npos) << c;
    const size_t rows = c.find("TESSERA_OUTLINED int result_result_s0_yi_1(const void *_");
    EXPECT_NE(rows, std::string::npos) << c;
    EXPECT_NE(c.find("int32_t prod[", rows), std::string::npos) << "the tile is a C array in that function\n" << c;

    // The functions that only compute coordinates and call (the pipeline's, the parallel
    // iteration's) are compiled with -O1 by GCC; the one with the loops is not.
    const std::string o1 = "__attribute__((optimize(\"O1\")))\n#endif\n";
    EXPECT_NE(c.find(o1 + "TESSERA_OUTLINED int result_par(const void *_"), std::string::npos) << c;
    EXPECT_NE(c.find(o1 + "int result(const tessera_buffer_t"), std::string::npos) << c;
    EXPECT_EQ(c.find(o1 + "TESSERA_OUTLINED int result_result_s0_yi_1(const void *_"), std::string::npos) << c;
    // The tile's coordinates (result.s0.y$1 of the fused loop) are computed once per tile,
    // not once in each of the 12 unrolled copies of the store.
    size_t copies = 0;
    for (size_t at = c.find("/* result.s0.y$1 */"); at != std::string::npos; at = c.find("/* result.s0.y$1 */", at + 1))
        copies++;
    EXPECT_EQ(copies, 1u) << c;
}

TEST(HalideSchedules, BilateralGridSplatKeepsItsBlockLoopsInItsRowFunction) {
    // apps/bilateral_grid's splat: per row of the z blur (in parallel), each grid cell adds
    // its 8 x 8 block of pixels to a histogram. The block's loops run 8 iterations each:
    // as functions of their own they were a call, with its closure, per row of 8 pixels;
    // the loop around the loop over the cells (the histogram's row) is the function instead.
    const int w = 77, h = 29;
    Buffer<uint8_t> input(std::vector<int>{w, h, 3}, "input");
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) input(x, y, c) = uint8_t((x * 37 + y * 101 + c * 53 + (x * y) % 23) & 0xff);
    Var x("x"), y("y"), z("z"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func val("val"), histogram("histogram"), blurz("blurz");
    val(x, y) = clamp(0.299f * cast<float>(clamped(x, y, 0)) / 255.0f + 0.587f * cast<float>(clamped(x, y, 1)) / 255.0f +
                          0.114f * cast<float>(clamped(x, y, 2)) / 255.0f,
                      0.0f, 1.0f);
    RDom r(0, 8, 0, 8, "r");
    Expr v = val(x * 8 + r.x - 4, y * 8 + r.y - 4);
    histogram(x, y, z, c) = 0.0f;
    histogram(x, y, clamp(cast<int>(v * 10.0f + 0.5f), 0, 10), c) += select(c == 0, v, 1.0f);
    blurz(x, y, z, c) = histogram(x, y, z - 2, c) + 4.0f * histogram(x, y, z - 1, c) + 6.0f * histogram(x, y, z, c) +
                        4.0f * histogram(x, y, z + 1, c) + histogram(x, y, z + 2, c);
    blurz.bound(c, 0, 2).compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8).unroll(c);
    histogram.compute_at(blurz, y);
    histogram.update().reorder(c, r.x, r.y, x, y).unroll(c);
    expect_matches(blurz, {0, 0, 0, 0}, {w / 8 + 1, h / 8 + 1, 11, 2}, "bilateral splat");

    const std::string code = c_of(blurz, "bilateral_splat", {input});
    EXPECT_NE(code.find("TESSERA_OUTLINED int blurz_histogram_s1_y(const void *"), std::string::npos) << code;
    EXPECT_EQ(code.find("TESSERA_OUTLINED int blurz_histogram_s1_x"), std::string::npos) << code;
    EXPECT_EQ(code.find("TESSERA_OUTLINED int blurz_histogram_s1_r_x"), std::string::npos) << code;
    EXPECT_EQ(code.find("TESSERA_OUTLINED int blurz_histogram_s1_r_y"), std::string::npos) << code;
}

TEST(HalideSchedules, GridLookupsComputeTheirIndicesLaneByLane) {
    // apps/bilateral_grid's slice: each pixel reads grid corners at a bin computed from its
    // value, a gather per corner. The indices' vectors are used only to be taken apart
    // lane by lane, so the C computes them as scalars (src/codegen/CGatherIndices.cpp): no
    // gathered load reads a lane of a native vector.
    const int w = 53, h = 9;
    Buffer<uint8_t> input(std::vector<int>{w, h}, "input");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) input(x, y) = uint8_t((x * 37 + y * 101 + (x * y) % 23) & 0xff);
    Buffer<float> grid(std::vector<int>{w / 8 + 2, h / 8 + 2, 12}, "grid");
    for (int z = 0; z < 12; z++)
        for (int y = 0; y < h / 8 + 2; y++)
            for (int x = 0; x < w / 8 + 2; x++) grid(x, y, z) = float(x * 3 + y * 5 + z * 7 % 11) / 13.0f;
    Var x("x"), y("y");
    Func out("slice");
    Expr zv = cast<float>(input(x, y)) / 25.5f;
    Expr zi = clamp(cast<int>(zv), 0, 10);
    Expr zf = zv - cast<float>(zi);
    Expr gx = x / 8, gy = y / 8, xf = cast<float>(x % 8) / 8.0f;
    out(x, y) = lerp(lerp(grid(gx, gy, zi), grid(gx + 1, gy, zi), xf), lerp(grid(gx, gy + 1, zi + 1), grid(gx + 1, gy + 1, zi + 1), xf), zf);
    out.vectorize(x, 8);
    expect_matches(out, {0, 0}, {w, h}, "grid lookups");

    const std::string code = c_of(out, "grid_lookups", {input, grid});
    const std::regex vector_decl(R"(const tessera_v\w+ (\w+) = )");
    std::set<std::string> vectors;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), vector_decl); it != std::sregex_iterator(); ++it)
        vectors.insert((*it)[1].str());
    const std::regex gathered_lane(R"(grid\w*\[(\w+)\[\d+\]\])");
    int gathers = 0;
    for (auto it = std::sregex_iterator(code.begin(), code.end(), gathered_lane); it != std::sregex_iterator(); ++it) {
        gathers++;
        EXPECT_EQ(vectors.count((*it)[1].str()), 0u) << "a gather reads lane of vector " << (*it)[1].str() << "\n" << code;
    }
    EXPECT_GT(gathers, 0) << code;
}

TEST(HalideSchedules, DivisionByZeroUnderARoundUpSplit) {
    // Regression R3 (docs/semantics.md §14): out(x) = 100 / (27 - x), split by 8 with RoundUp, computes
    // x = 27 past the window; total division keeps that harmless.
    Var x("x"), xo("xo"), xi("xi");
    Func out("out"), h("h");
    out(x) = 100 / (27 - x);
    h(x) = out(x);
    out.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    expect_matches(h, {0}, {25}, "100 / (27 - x)");
    // g read outside its computed region by a RoundUp split of f must not trap either.
    Func g("g5"), f("f5"), o("o5");
    g(x) = 5;
    f(x) = 100 / g(x);
    o(x) = f(x);
    g.compute_root();
    f.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    expect_matches(o, {0}, {25}, "100 / g(x)");
}

TEST(HalideSchedules, IndexDataIsComputedUnderASplit) {
    // Regression R4 (docs/semantics.md §14): the Func used as an index is computed wherever it is read,
    // even past the compute bounds of its reader.
    Var x("x"), xo("xo"), xi("xi");
    Func h("h"), g("g"), f("f"), out("out");
    h(x) = 10;
    g(x) = x * x;
    f(x) = g(clamp(h(x), 0, 100));
    out(x) = f(x);
    h.compute_root();
    g.compute_root();
    f.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    expect_matches(out, {0}, {10}, "g(clamp(h(x), 0, 100))");
    // The crash of Halide issue #6131: an index far from the window, vectorized by 64.
    Func hh("hh"), gg("gg"), ff("ff");
    const int lo = -10000000;
    hh(x) = clamp(x, lo, lo + 20);
    gg(x) = sin(cast<float>(x));
    ff(x) = gg(hh(x));
    gg.compute_root();
    ff.vectorize(x, 64, TailStrategy::RoundUp);
    expect_matches(ff, {0}, {128}, "sin at clamped far indices");
}

TEST(HalideSchedules, StencilChainStagesAreAFunctionPerTileNotPerRow) {
    // apps/stencil_chain: stages computed per tile of the output, each vectorized, so each
    // stage's row is a steady loop and a shifted tail vector. The function of its own is
    // the stage's loop over rows, called once per tile; its loops over a row were a call
    // each, per row, whose closure cost as much as a short row's work.
    const int w = 70, h = 45;
    Buffer<uint8_t> input(std::vector<int>{w, h}, "input");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) input(x, y) = uint8_t((x * 37 + y * 101 + (x * y) % 23) & 0xff);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func s0("s0"), s1("s1"), s2("s2"), out("out");
    s0(x, y) = cast<uint16_t>(clamped(x, y)) * cast<uint16_t>(257);
    s1(x, y) = cast<uint16_t>((cast<uint32_t>(s0(x - 1, y)) + 2 * cast<uint32_t>(s0(x, y)) + s0(x + 1, y) +
                               s0(x, y - 1) + s0(x, y + 1) + 3) / 6);
    s2(x, y) = cast<uint16_t>((cast<uint32_t>(s1(x - 1, y)) + 2 * cast<uint32_t>(s1(x, y)) + s1(x + 1, y) +
                               s1(x, y - 1) + s1(x, y + 1) + 3) / 6);
    out(x, y) = cast<uint8_t>(s2(x, y) >> 8);
    out.tile(x, y, xo, yo, xi, yi, 32, 16, TailStrategy::GuardWithIf).fuse(xo, yo, t).parallel(t).vectorize(xi, 16);
    for (Func f : {s0, s1, s2}) f.compute_at(out, t).vectorize(x, 16);
    expect_matches(out, {0, 0}, {w, h}, "stencil chain");

    const std::string code = c_of(out, "stencil_chain", {input});
    for (const std::string stage : {"s1", "s2"}) {
        EXPECT_NE(code.find("TESSERA_OUTLINED int out_" + stage + "_s0_y"), std::string::npos) << code;
        EXPECT_EQ(code.find("TESSERA_OUTLINED int out_" + stage + "_s0_x"), std::string::npos) << code;
    }
}
