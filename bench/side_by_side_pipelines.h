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

// Halide's apps/harris with its CPU schedule: gray and the Sobel gradients per row of strips
// of 32 rows (stored per strip), the 3x3 sums of gradient products as inline reductions.
Timing harris(const std::string &target, int runs, float *in, int w, int h, float *out) {
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
    harris(x, y) = det - 0.04f * trace * trace;
    const int vec = 8;
    harris.split(y, y, yi, 32).parallel(y).vectorize(x, vec);
    gray.store_at(harris, y).compute_at(harris, yi).vectorize(x, vec);
    iy.store_at(harris, y).compute_at(harris, yi).vectorize(x, vec);
    ix.store_at(harris, y).compute_at(harris, yi).vectorize(x, vec);
    return compile_and_run(harris, output, target, runs);
}

}  // namespace BENCH_NS
