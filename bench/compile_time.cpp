// Compile-time benchmark: for each pipeline, the median time of
//   lower      algorithm + schedule -> lowered statement (src/lower)
//   emit       lowered statement -> C source (src/codegen/CodeGenC)
//   cc cold    JIT compilation with an empty disk cache (C compiler + dlopen)
//   jit warm   JIT compilation served by the disk cache's object (lower + emit + hash +
//              dlopen)
//   compile_jit warm   Func::compile_jit in a process after the first run: the pipeline's
//              printed form found in the cache's index (print + hash + dlopen; no lowering)
// for Halide's blur, unsharp, histogram and matmul, and for deep pyramids (the local
// Laplacian with 8 and 12 levels, push-pull interpolation with 10: apps/).
// Usage: tessera_bench_compile_time [runs]   (default 15; cc cold runs a third as often)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include <tessera/tessera.h>

#include "lang/Scheduling.h"

#include "interpolate/interpolate.h"
#include "local_laplacian/local_laplacian.h"

#include "codegen/CodeGenC.h"
#include "driver/AOT.h"
#include "driver/JIT.h"
#include "lower/Lower.h"

using namespace tessera;
namespace fs = std::filesystem;

namespace {

double median_ms(int runs, const std::function<void()> &f) {
    std::vector<double> t;
    for (int i = 0; i < runs; i++) {
        auto a = std::chrono::steady_clock::now();
        f();
        auto b = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

struct TimedPipeline {
    std::string name;
    Func output;
};

// Halide's blur app: a 3x3 box blur of a uint16 image, separable.
TimedPipeline blur() {
    ImageParam input(UInt(16), 2, "input");
    Var x("x"), y("y");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
    return {"blur", blur_y};
}

// Halide's unsharp app: a Gaussian blur of the luminance, then a sharpening ratio.
TimedPipeline unsharp() {
    ImageParam input(Float(32), 3, "input");
    Var x("x"), y("y"), c("c");
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
    Func output("unsharp");
    output(x, y, c) = ratio(x, y) * input(x, y, c);
    return {"unsharp", output};
}

TimedPipeline histogram() {
    ImageParam input(UInt(8), 2, "input");
    RDom r(0, input.width(), 0, input.height(), "r");
    Var x("x");
    Func hist("histogram");
    hist(x) = 0;
    hist(input(r.x, r.y)) += 1;
    return {"histogram", hist};
}

TimedPipeline matmul() {
    ImageParam a(Float(32), 2, "A"), b(Float(32), 2, "B");
    Var x("x"), y("y");
    RDom k(0, a.width(), "k");
    Func prod("matmul");
    prod(x, y) = 0.0f;
    prod(x, y) += a(k, y) * b(x, k);
    return {"matmul", prod};
}

// Deep pyramids, whose lowering must grow linearly with their levels: Halide's local
// Laplacian (8 levels as in its app, and 12) and push-pull interpolation (10 levels).
TimedPipeline local_laplacian_8() { return {"llap8", apps::make_local_laplacian(8).output}; }
TimedPipeline local_laplacian_12() { return {"llap12", apps::make_local_laplacian(12).output}; }
TimedPipeline interpolate_10() { return {"interp10", apps::make_interpolate(10).output}; }

}  // namespace

int main(int argc, char **argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    const std::string cache = (fs::temp_directory_path() / ("tessera-bench-" + std::to_string(::getpid()))).string();
    std::printf("C compiler: %s %s\n", driver::default_c_compiler().c_str(), driver::kDefaultCFlags);
    std::printf("medians of %d runs (cc cold: %d runs)\n\n", runs, std::max(1, runs / 3));
    // compile_jit uses the default cache directory: point it at the benchmark's own.
    ::setenv("XDG_CACHE_HOME", (cache + "/xdg").c_str(), 1);
    std::printf("%-10s %10s %10s %10s %12s %18s %8s\n", "pipeline", "lower ms", "emit ms", "cc cold ms", "jit warm ms",
                "compile_jit warm", "C lines");
    for (auto make : {blur, unsharp, histogram, matmul, local_laplacian_8, local_laplacian_12, interpolate_10}) {
        TimedPipeline p = make();
        const double lower_ms = median_ms(runs, [&] { lower::lower(p.output.data()); });
        const ir::LoweredPipeline lowered = lower::lower(p.output.data());
        std::string source;
        const double emit_ms = median_ms(runs, [&] { source = codegen::emit_c(lowered); });
        int cold_run = 0;
        const double cold_ms = median_ms(std::max(1, runs / 3), [&] {
            driver::CCompilerOptions o;
            o.cache_dir = cache + "/cold" + std::to_string(cold_run++);
            driver::JITModule m(lower::lower(p.output.data()), o);
        });
        driver::CCompilerOptions warm;
        warm.cache_dir = cache + "/warm";
        { driver::JITModule fill(lowered, warm); }
        const double warm_ms = median_ms(runs, [&] { driver::JITModule m(lower::lower(p.output.data()), warm); });
        p.output.compile_jit();  // fills the index
        const uint64_t hits_before = driver::jit_cache_stats().hits;
        const double index_ms = median_ms(runs, [&] {
            lang::schedule_changed();  // forget the Func's in-memory module
            p.output.compile_jit();
        });
        if (driver::jit_cache_stats().hits - hits_before != uint64_t(runs))
            std::printf("(compile_jit was not served by the cache every time)\n");
        const long lines = long(std::count(source.begin(), source.end(), '\n'));
        std::printf("%-10s %10.2f %10.2f %10.1f %12.2f %18.2f %8ld\n", p.name.c_str(), lower_ms, emit_ms, cold_ms,
                    warm_ms, index_ms, lines);
    }
    std::error_code ec;
    fs::remove_all(cache, ec);
    return 0;
}
