// The pipelines of the side-by-side benchmark, written once against Halide's API. This
// file is compiled twice (bench/side_by_side_tessera.cpp, bench/side_by_side_halide.cpp):
// `lang` is either namespace tessera or namespace Halide, and BENCH_NS names the namespace
// the functions land in. Each function compiles its pipeline for `target`, realizes it once
// untimed (the first run after a compilation pays page faults and caches the compiler left
// cold, for both systems), then `runs` times into the caller's output, and returns the
// time of each run.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace BENCH_NS {

struct Timing {
    double compile_ms = 0;
    std::vector<double> run_ms;
};

template<typename F>
double time_ms(F &&f) {
    auto a = std::chrono::steady_clock::now();
    f();
    auto b = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(b - a).count();
}

/** Compiles `f` for `target`, realizes it once untimed into `output` (the first run
 * after a compilation pays page faults and caches the compiler left cold, for both
 * systems), then `runs` times, each timed. */
template<typename F, typename Out>
Timing compile_and_run(F &f, Out &output, const std::string &target, int runs) {
    Timing t;
    lang::Target tgt(target);
    t.compile_ms = time_ms([&] { f.compile_jit(tgt); });
    f.realize(output, tgt);
    for (int i = 0; i < runs; i++) t.run_ms.push_back(time_ms([&] { f.realize(output, tgt); }));
    return t;
}

// Halide's apps/blur: a 3x3 box blur of uint16 data, separable, with the app's CPU
// schedule: strips of 32 rows in parallel, 16-lane vectors, blur_x stored per strip and
// computed per row (a sliding window over a circular buffer).
Timing blur(const std::string &target, int runs, uint16_t *in, int in_w, int in_h, uint16_t *out, int w, int h) {
    using namespace lang;
    Buffer<uint16_t> input(in, std::vector<int>{in_w, in_h});
    Buffer<uint16_t> output(out, std::vector<int>{w, h});
    Var x("x"), y("y"), yi("yi");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
    blur_y.split(y, y, yi, 32).parallel(y).vectorize(x, 16);
    blur_x.store_at(blur_y, y).compute_at(blur_y, yi).vectorize(x, 16);
    return compile_and_run(blur_y, output, target, runs);
}

// The same blur of floats as a new user writes it first: blur_x computed at the root,
// no other schedule (no vector, no thread): what the C compiler and LLVM make of scalar
// loops.
Timing blur_unscheduled(const std::string &target, int runs, float *in, int in_w, int in_h, float *out, int w, int h) {
    using namespace lang;
    Buffer<float> input(in, std::vector<int>{in_w, in_h});
    Buffer<float> output(out, std::vector<int>{w, h});
    Var x("x"), y("y");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3.0f;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3.0f;
    blur_x.compute_root();
    return compile_and_run(blur_y, output, target, runs);
}

// Halide's apps/unsharp with its CPU schedule (8 float lanes).
Timing unsharp(const std::string &target, int runs, float *in, int w, int h, float *out) {
    using namespace lang;
    Buffer<float> input(in, std::vector<int>{w, h, 3});
    Buffer<float> output(out, std::vector<int>{w, h, 3});
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
    const int vec = 8;
    unsharp.split(y, yo, yi, 32).vectorize(x, vec).parallel(yo).reorder(x, c, yi, yo);
    gray.compute_at(unsharp, yi).store_at(unsharp, yo).vectorize(x, vec);
    blur_y.compute_at(unsharp, yi).store_at(unsharp, yo).vectorize(x, vec);
    ratio.compute_at(unsharp, yi).store_at(unsharp, yo).vectorize(x, vec);
    return compile_and_run(unsharp, output, target, runs);
}

// A float matrix product with a tiled, vectorized schedule whose accumulators are
// unrolled into registers (after Halide's test/performance/matrix_multiplication).
Timing matmul(const std::string &target, int runs, float *a, float *b, int n, float *out) {
    using namespace lang;
    Buffer<float> A(a, std::vector<int>{n, n}), B(b, std::vector<int>{n, n});
    Buffer<float> C(out, std::vector<int>{n, n});
    Var x("x"), y("y"), xi("xi"), yi("yi"), yii("yii"), xy("xy");
    RDom k(0, n, "k");
    Func prod("prod"), result("result");
    prod(x, y) = 0.0f;
    prod(x, y) += A(k, y) * B(x, k);
    result(x, y) = prod(x, y);
    result.tile(x, y, xi, yi, 24, 32).fuse(x, y, xy).parallel(xy).split(yi, yi, yii, 4).vectorize(xi, 8).unroll(xi).unroll(yii);
    prod.compute_at(result, yi).vectorize(x, 8).unroll(y);
    prod.update().reorder(x, y, k).vectorize(x, 8).unroll(x).unroll(y);
    return compile_and_run(result, C, target, runs);
}

// matmul with a register-blocked schedule for 16-lane vectors: each parallel task takes
// 64 columns of C and first packs the 64-column panel of B it reads (a Func computed per
// task, its rows contiguous: 256 KB, in the L2 cache); each 6 x 64 tile of C is then 24
// vector accumulators over the whole k loop: per k, 4 loads of B, 6 broadcasts of A and
// 24 multiply-adds.
Timing matmul_packed(const std::string &target, int runs, float *a, float *b, int n, float *out) {
    using namespace lang;
    Buffer<float> A(a, std::vector<int>{n, n}), B(b, std::vector<int>{n, n});
    Buffer<float> C(out, std::vector<int>{n, n});
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    RDom k(0, n, "k");
    Func panel("panel"), prod("prod"), result("result");
    panel(x, y) = B(x, y);
    prod(x, y) = 0.0f;
    prod(x, y) += A(k, y) * panel(x, k);
    result(x, y) = prod(x, y);
    result.split(x, xo, xi, 64).split(y, yo, yi, 6, TailStrategy::ShiftInwards).reorder(xi, yi, yo, xo).parallel(xo);
    result.vectorize(xi, 16).unroll(xi).unroll(yi);
    prod.compute_at(result, yo).vectorize(x, 16).unroll(x).unroll(y);
    prod.update().reorder(x, y, k).vectorize(x, 16).unroll(x).unroll(y);
    panel.compute_at(result, xo).vectorize(x, 16);
    return compile_and_run(result, C, target, runs);
}

// Halide's apps/harris with its CPU schedule: gray and the Sobel gradients per row of strips
// of 32 rows (stored per strip), the 3x3 sums of gradient products as inline reductions.
// `stages` < 3 stops early, with the same schedule, to time the stages apart: 1, the output
// is gray; 2, it is ix + iy.
Timing harris(const std::string &target, int runs, float *in, int w, int h, float *out, int stages = 3) {
    using namespace lang;
    Buffer<float> input(in, std::vector<int>{w, h, 3});
    Buffer<float> output(out, std::vector<int>{w, h});
    Var x("x"), y("y"), yi("yi");
    Func in_b = BoundaryConditions::repeat_edge(input);
    Func gray("gray");
    gray(x, y) = 0.299f * in_b(x, y, 0) + 0.587f * in_b(x, y, 1) + 0.114f * in_b(x, y, 2);
    Func iy("iy"), ix("ix");
    iy(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x - 1, y + 1) * (1.0f / 12) + gray(x, y - 1) * (-2.0f / 12) +
               gray(x, y + 1) * (2.0f / 12) + gray(x + 1, y - 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    ix(x, y) = gray(x - 1, y - 1) * (-1.0f / 12) + gray(x + 1, y - 1) * (1.0f / 12) + gray(x - 1, y) * (-2.0f / 12) +
               gray(x + 1, y) * (2.0f / 12) + gray(x - 1, y + 1) * (-1.0f / 12) + gray(x + 1, y + 1) * (1.0f / 12);
    Func ixx("ixx"), iyy("iyy"), ixy("ixy");
    ixx(x, y) = ix(x, y) * ix(x, y);
    iyy(x, y) = iy(x, y) * iy(x, y);
    ixy(x, y) = ix(x, y) * iy(x, y);
    RDom box(-1, 3, -1, 3, "box");
    Expr sxx = sum(ixx(x + box.x, y + box.y));
    Expr syy = sum(iyy(x + box.x, y + box.y));
    Expr sxy = sum(ixy(x + box.x, y + box.y));
    Expr det = sxx * syy - sxy * sxy;
    Expr trace = sxx + syy;
    Func harris("harris");
    if (stages == 1) harris(x, y) = gray(x, y);
    else if (stages == 2) harris(x, y) = ix(x, y) + iy(x, y);
    else harris(x, y) = det - 0.04f * trace * trace;
    const int vec = 8;
    harris.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
    gray.store_at(harris, y).compute_at(harris, yi).vectorize(x, vec);
    if (stages >= 2) {
        iy.store_at(harris, y).compute_at(harris, yi).vectorize(x, vec);
        ix.store_at(harris, y).compute_at(harris, yi).vectorize(x, vec);
    }
    return compile_and_run(harris, output, target, runs);
}

// Halide's apps/stencil_chain: eight 5x5 binomial stencils of 16-bit data in a chain (the
// app's default depth), each computed per tile of the output, tiles of 128 x 64 fused
// into one parallel loop, vectors of 16.
Timing stencil_chain(const std::string &target, int runs, uint8_t *in, int w, int h, uint8_t *out) {
    using namespace lang;
    Buffer<uint8_t> input(in, std::vector<int>{w, h});
    Buffer<uint8_t> output(out, std::vector<int>{w, h});
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");
    Func clamped = BoundaryConditions::repeat_edge(input);
    std::vector<Func> stages;
    Func s0("s0");
    s0(x, y) = cast<uint16_t>(clamped(x, y)) * cast<uint16_t>(257);
    stages.push_back(s0);
    const int weights[5] = {1, 4, 6, 4, 1};
    for (int k = 1; k <= 8; k++) {
        Func prev = stages.back(), next("s" + std::to_string(k));
        Expr total = cast<uint32_t>(128);
        for (int j = -2; j <= 2; j++)
            for (int i = -2; i <= 2; i++)
                total = total + cast<uint32_t>(weights[i + 2] * weights[j + 2]) * cast<uint32_t>(prev(x + i, y + j));
        next(x, y) = cast<uint16_t>(total >> 8);
        stages.push_back(next);
    }
    Func result("stencil_chain");
    result(x, y) = cast<uint8_t>(stages.back()(x, y) >> 8);
    result.tile(x, y, xo, yo, xi, yi, 128, 64, TailStrategy::GuardWithIf).fuse(xo, yo, t).parallel(t).vectorize(xi, 16);
    for (Func &f : stages) f.compute_at(result, t).vectorize(x, 16);
    return compile_and_run(result, output, target, runs);
}

// Halide's apps/conv_layer: a 3x3 convolution layer with bias and ReLU over channels x
// width x height x batch, a 16-wide vector of output channels by 8 unrolled pixels as the
// register tile, the sums computed per tile, rows of the output in parallel.
Timing conv_layer(const std::string &target, int runs, float *in, float *filt, float *b, int ci, int co, int w, int h, int n,
                  float *out) {
    using namespace lang;
    Buffer<float> input(in, std::vector<int>{ci, w + 2, h + 2, n});
    Buffer<float> filter(filt, std::vector<int>{co, ci, 3, 3});
    Buffer<float> bias(b, std::vector<int>{co});
    Buffer<float> output(out, std::vector<int>{co, w, h, n});
    Var c("c"), x("x"), y("y"), nn("n"), coo("coo"), coi("coi"), xo("xo"), xi("xi");
    RDom r(0, ci, 0, 3, 0, 3, "r");
    Func conv("conv"), relu("relu");
    conv(c, x, y, nn) = bias(c);
    conv(c, x, y, nn) = conv(c, x, y, nn) + filter(c, r.x, r.y, r.z) * input(r.x, x + r.y, y + r.z, nn);
    relu(c, x, y, nn) = max(conv(c, x, y, nn), 0.0f);
    relu.split(c, coo, coi, 16).split(x, xo, xi, 8).reorder(coi, xi, coo, xo, y, nn).vectorize(coi).unroll(xi).parallel(y);
    conv.compute_at(relu, coo).vectorize(c, 16).unroll(x);
    conv.update().reorder(c, x, r.x, r.y, r.z).vectorize(c, 16).unroll(x);
    return compile_and_run(relu, output, target, runs);
}

// Halide's apps/depthwise_separable_conv: a depthwise 3x3 convolution (zero padding) then
// a pointwise one with bias and ReLU, per strip of 8 rows in parallel, the pointwise sums
// per tile of 16 channels x 8 pixels.
Timing depthwise_separable_conv(const std::string &target, int runs, float *in, float *dw, float *pw, float *b, int ci, int co,
                                int w, int h, float *out) {
    using namespace lang;
    Buffer<float> input(in, std::vector<int>{ci, w, h});
    Buffer<float> dw_filter(dw, std::vector<int>{ci, 3, 3});
    Buffer<float> pw_filter(pw, std::vector<int>{co, ci});
    Buffer<float> bias(b, std::vector<int>{co});
    Buffer<float> output(out, std::vector<int>{co, w, h});
    Var c("c"), x("x"), y("y"), coo("coo"), coi("coi"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    Func padded = BoundaryConditions::constant_exterior(input, 0.0f);
    Func depthwise("depthwise"), pointwise("pointwise"), result("dsc");
    Expr dws = 0.0f;
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) dws = dws + dw_filter(c, i, j) * padded(c, x + i - 1, y + j - 1);
    depthwise(c, x, y) = dws;
    RDom rc(0, ci, "rc");
    pointwise(c, x, y) = bias(c);
    pointwise(c, x, y) = pointwise(c, x, y) + pw_filter(c, rc) * depthwise(rc, x, y);
    result(c, x, y) = max(pointwise(c, x, y), 0.0f);
    result.split(c, coo, coi, 16).split(x, xo, xi, 8).reorder(coi, xi, coo, xo, y).vectorize(coi).unroll(xi);
    result.split(y, yo, yi, 8).parallel(yo);
    padded.compute_at(result, yo).vectorize(padded.args()[0], 16);
    depthwise.compute_at(result, xo).vectorize(c, 16, TailStrategy::RoundUp);
    pointwise.compute_at(result, coo).vectorize(c, 16).unroll(x);
    pointwise.update().reorder(c, x, rc).vectorize(c, 16).unroll(x);
    return compile_and_run(result, output, target, runs);
}

// Halide's apps/bilateral_grid with its CPU schedule: the grid's histogram per row of the
// z blur, the three blurs of the grid in parallel, vectors of 8, the output trilinearly
// interpolated per strip of 16 rows.
Timing bilateral_grid(const std::string &target, int runs, uint8_t *in, int w, int h, uint8_t *out) {
    using namespace lang;
    Buffer<uint8_t> input(in, std::vector<int>{w, h, 3});
    Buffer<uint8_t> output(out, std::vector<int>{w, h});
    Var x("x"), y("y"), z("z"), c("c"), yo("yo"), yi("yi");
    const int s_sigma = 8;
    const float r_sigma = 0.1f;
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func gray("gray"), val("val");
    gray(x, y) = 0.299f * cast<float>(clamped(x, y, 0)) / 255.0f + 0.587f * cast<float>(clamped(x, y, 1)) / 255.0f +
                 0.114f * cast<float>(clamped(x, y, 2)) / 255.0f;
    val(x, y) = clamp(gray(x, y), 0.0f, 1.0f);
    RDom r(0, s_sigma, 0, s_sigma, "r");
    const int zmax = int(1.0f / r_sigma + 0.5f);
    Expr v = val(x * s_sigma + r.x - s_sigma / 2, y * s_sigma + r.y - s_sigma / 2);
    Func histogram("histogram");
    histogram(x, y, z, c) = 0.0f;
    histogram(x, y, clamp(cast<int>(v * (1.0f / r_sigma) + 0.5f), 0, zmax), c) += select(c == 0, v, 1.0f);
    Func blurz("blurz"), blurx("blurx"), blury("blury");
    blurz(x, y, z, c) = histogram(x, y, z - 2, c) + 4.0f * histogram(x, y, z - 1, c) + 6.0f * histogram(x, y, z, c) +
                        4.0f * histogram(x, y, z + 1, c) + histogram(x, y, z + 2, c);
    blurx(x, y, z, c) = blurz(x - 2, y, z, c) + 4.0f * blurz(x - 1, y, z, c) + 6.0f * blurz(x, y, z, c) +
                        4.0f * blurz(x + 1, y, z, c) + blurz(x + 2, y, z, c);
    blury(x, y, z, c) = blurx(x, y - 2, z, c) + 4.0f * blurx(x, y - 1, z, c) + 6.0f * blurx(x, y, z, c) +
                        4.0f * blurx(x, y + 1, z, c) + blurx(x, y + 2, z, c);
    Expr zv = val(x, y) * (1.0f / r_sigma);
    Expr zi = clamp(cast<int>(zv), 0, zmax);
    Expr zf = zv - cast<float>(zi);
    Expr xf = cast<float>(x % s_sigma) / float(s_sigma);
    Expr yf = cast<float>(y % s_sigma) / float(s_sigma);
    Expr gx = x / s_sigma, gy = y / s_sigma;  // the grid cell
    Func interpolated("interpolated");
    interpolated(x, y, c) = lerp(lerp(lerp(blury(gx, gy, zi, c), blury(gx + 1, gy, zi, c), xf),
                                      lerp(blury(gx, gy + 1, zi, c), blury(gx + 1, gy + 1, zi, c), xf), yf),
                                 lerp(lerp(blury(gx, gy, zi + 1, c), blury(gx + 1, gy, zi + 1, c), xf),
                                      lerp(blury(gx, gy + 1, zi + 1, c), blury(gx + 1, gy + 1, zi + 1, c), xf), yf),
                                 zf);
    Func result("bilateral_grid");
    result(x, y) = cast<uint8_t>(clamp(interpolated(x, y, 0) / interpolated(x, y, 1) * 255.0f + 0.5f, 0.0f, 255.0f));
    result.compute_root().split(y, yo, yi, 16).parallel(yo).vectorize(x, 8);
    histogram.compute_at(blurz, y);
    histogram.update().reorder(c, r.x, r.y, x, y).unroll(c);
    blurz.compute_root().reorder(c, z, x, y).parallel(y).vectorize(x, 8).unroll(c);
    blurx.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c);
    blury.compute_root().reorder(c, x, y, z).parallel(z).vectorize(x, 8).unroll(c);
    return compile_and_run(result, output, target, runs);
}

// Halide's apps/iir_blur: a first-order recursive filter down and up the columns, then
// (through a transpose) down and up the rows, with the app's CPU schedule: tiles of 8 x
// 32 in parallel strips, the scans vectorized across the columns.
Timing iir_blur(const std::string &target, int runs, uint8_t *in, int w, int h, uint8_t *out) {
    using namespace lang;
    Buffer<uint8_t> input(in, std::vector<int>{w, h, 3});
    Buffer<uint8_t> output(out, std::vector<int>{w, h, 3});
    Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    const float alpha = 0.1f;
    Func input_f("input_f");
    input_f(x, y, c) = cast<float>(input(x, y, c)) / 255.0f;
    // One pass, as in Halide's app: the filter down and then up the columns of `in`
    // (`extent` rows), and the result transposed, so that the second pass filters rows.
    auto blur_then_transpose = [&](const Func &in, int extent, const std::string &pass, RDom &down, RDom &up, Func &blur) {
        down = RDom(1, extent - 1, "r" + pass);
        up = RDom(0, extent - 1, "r" + pass + "_up");
        blur = Func("blur_" + pass);
        blur(x, y, c) = in(x, y, c);
        blur(x, down, c) = (1.0f - alpha) * blur(x, down - 1, c) + alpha * in(x, down, c);
        blur(x, extent - 2 - up, c) = (1.0f - alpha) * blur(x, extent - 1 - up, c) + alpha * blur(x, extent - 2 - up, c);
        Func transposed("transpose_" + pass);
        transposed(x, y, c) = blur(y, x, c);
        return transposed;
    };
    RDom ry, ry_up, rx, rx_up;
    Func blur_cols, blur_rows;
    Func transpose_cols = blur_then_transpose(input_f, h, "cols", ry, ry_up, blur_cols);
    Func transpose_rows = blur_then_transpose(transpose_cols, w, "rows", rx, rx_up, blur_rows);
    Func result("iir_blur");
    result(x, y, c) = cast<uint8_t>(clamp(transpose_rows(x, y, c) * 255.0f + 0.5f, 0.0f, 255.0f));
    transpose_cols.compute_root().tile(x, y, xo, yo, xi, yi, 8, 32).vectorize(xi).reorder(xi, yi, xo, yo, c).parallel(yo);
    blur_cols.compute_at(transpose_cols, yo).vectorize(x, 8);
    blur_cols.update(0).reorder(x, ry).vectorize(x, 8).unroll(x);
    blur_cols.update(1).reorder(x, ry_up).vectorize(x, 8).unroll(x);
    result.tile(x, y, xo, yo, xi, yi, 8, 32).vectorize(xi).reorder(xi, yi, xo, yo, c).parallel(yo);
    transpose_rows.compute_at(result, xo).vectorize(x, 8);
    blur_rows.compute_at(result, yo).vectorize(x, 8);
    blur_rows.update(0).reorder(x, rx).vectorize(x, 8).unroll(x);
    blur_rows.update(1).reorder(x, rx_up).vectorize(x, 8).unroll(x);
    return compile_and_run(result, output, target, runs);
}

}  // namespace BENCH_NS
