// Side-by-side benchmark: the same pipelines and schedules (bench/side_by_side_pipelines.h),
// compiled by Tessera and by Halide 14 in one process, run alternately, checked against
// each other, and reported as medians and the ratio Tessera / Halide.
//
// Usage: tessera_bench_side_by_side [rounds]   (default 15; each round runs each pipeline
//        5 times in each system, one system after the other, the first one alternating
//        from round to round)
//
// Both are given the same target. Halide 14's host detection claims features some CPUs
// lack, so the target is pinned: x86-64-linux-avx2-avx512-avx512_skylake-f16c-fma-sse41
// where the CPU has AVX-512, x86-64-linux-avx2-f16c-fma-sse41 otherwise.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace tessera_side {
struct Timing {
    double compile_ms = 0;
    std::vector<double> run_ms;
};
Timing blur(const std::string &, int, uint16_t *, int, int, uint16_t *, int, int);
Timing unsharp(const std::string &, int, float *, int, int, float *);
Timing matmul(const std::string &, int, float *, float *, int, float *);
Timing harris(const std::string &, int, float *, int, int, float *);
}  // namespace tessera_side
namespace halide_side {
struct Timing {
    double compile_ms = 0;
    std::vector<double> run_ms;
};
Timing blur(const std::string &, int, uint16_t *, int, int, uint16_t *, int, int);
Timing unsharp(const std::string &, int, float *, int, int, float *);
Timing matmul(const std::string &, int, float *, float *, int, float *);
Timing harris(const std::string &, int, float *, int, int, float *);
}  // namespace halide_side

namespace {

std::string pinned_target() {
    std::ifstream cpu("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpu, line))
        if (line.rfind("flags", 0) == 0) {
            if (line.find(" avx512f") != std::string::npos) return "x86-64-linux-avx2-avx512-avx512_skylake-f16c-fma-sse41";
            break;
        }
    return "x86-64-linux-avx2-f16c-fma-sse41";
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Row {
    std::string name;
    std::vector<double> tessera, halide;
    double tessera_compile = 0, halide_compile = 0;
    bool same = true;
};

}  // namespace

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    const int runs = 5;
    const std::string target = pinned_target();
    // A fresh JIT cache, so that Tessera's compile time is a real C compilation.
    const std::string cache = (std::filesystem::temp_directory_path() / ("tessera-side-" + std::to_string(::getpid()))).string();
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    std::printf("target: %s; %d rounds x %d runs per pipeline and system, alternating\n\n", target.c_str(), rounds, runs);

    std::mt19937 rng(42);
    // blur: 2560x1536 uint16 output (12-bit data), input with the 2-pixel apron.
    const int bw = 2560, bh = 1536;
    std::vector<uint16_t> bin(size_t(bw + 2) * (bh + 2));
    for (auto &v : bin) v = uint16_t(rng() & 0xfff);
    std::vector<uint16_t> bt(size_t(bw) * bh), bhl(size_t(bw) * bh);
    // unsharp: 2560x1536x3 float.
    std::vector<float> uin(size_t(bw) * bh * 3);
    for (auto &v : uin) v = float(rng() % 1000) / 1000.0f + 0.01f;
    std::vector<float> ut(uin.size()), uh(uin.size());
    // matmul: 1024 x 1024 float.
    const int n = 1024;
    std::vector<float> ma(size_t(n) * n), mb(size_t(n) * n);
    for (auto &v : ma) v = float(int(rng() % 200) - 100) / 64.0f;
    for (auto &v : mb) v = float(int(rng() % 200) - 100) / 64.0f;
    std::vector<float> mt(size_t(n) * n), mh(size_t(n) * n);

    std::vector<Row> rows = {{"blur u16 2560x1536", {}, {}}, {"unsharp f32 2560x1536x3", {}, {}},
                             {"matmul f32 1024^2", {}, {}}, {"harris f32 2560x1536x3", {}, {}}};
    std::vector<float> ht(size_t(bw) * bh), hh(size_t(bw) * bh);
    for (int r = 0; r < rounds; r++) {
        // Who goes first alternates from round to round: the first system to run after
        // another pipeline refills the caches that pipeline left dirty, which slowed its
        // first three timed runs by up to 50% (blur after unsharp), whichever system it was.
        auto record = [&](Row &row, auto t_run, auto h_run) {
            decltype(t_run()) t;
            decltype(h_run()) h;
            if (r % 2 == 0) {
                t = t_run();
                h = h_run();
            } else {
                h = h_run();
                t = t_run();
            }
            row.tessera.insert(row.tessera.end(), t.run_ms.begin(), t.run_ms.end());
            row.halide.insert(row.halide.end(), h.run_ms.begin(), h.run_ms.end());
            if (r == 0) {
                row.tessera_compile = t.compile_ms;
                row.halide_compile = h.compile_ms;
            }
        };
        record(rows[0], [&] { return tessera_side::blur(target, runs, bin.data(), bw + 2, bh + 2, bt.data(), bw, bh); },
               [&] { return halide_side::blur(target, runs, bin.data(), bw + 2, bh + 2, bhl.data(), bw, bh); });
        rows[0].same = rows[0].same && bt == bhl;
        record(rows[1], [&] { return tessera_side::unsharp(target, runs, uin.data(), bw, bh, ut.data()); },
               [&] { return halide_side::unsharp(target, runs, uin.data(), bw, bh, uh.data()); });
        rows[1].same = rows[1].same && std::memcmp(ut.data(), uh.data(), ut.size() * sizeof(float)) == 0;
        record(rows[2], [&] { return tessera_side::matmul(target, runs, ma.data(), mb.data(), n, mt.data()); },
               [&] { return halide_side::matmul(target, runs, ma.data(), mb.data(), n, mh.data()); });
        rows[2].same = rows[2].same && std::memcmp(mt.data(), mh.data(), mt.size() * sizeof(float)) == 0;
        record(rows[3], [&] { return tessera_side::harris(target, runs, uin.data(), bw, bh, ht.data()); },
               [&] { return halide_side::harris(target, runs, uin.data(), bw, bh, hh.data()); });
        rows[3].same = rows[3].same && std::memcmp(ht.data(), hh.data(), ht.size() * sizeof(float)) == 0;
    }

    std::printf("%-26s %12s %12s %8s %14s %14s  %s\n", "pipeline", "Tessera ms", "Halide ms", "ratio", "Tessera cc ms",
                "Halide cc ms", "outputs");
    for (const Row &row : rows) {
        const double t = median(row.tessera), h = median(row.halide);
        std::printf("%-26s %12.3f %12.3f %8.2f %14.1f %14.1f  %s\n", row.name.c_str(), t, h, t / h, row.tessera_compile,
                    row.halide_compile, row.same ? "identical" : "differ");
    }
    std::printf("\n(medians over %d runs each; compile times are the first round's, with an empty Tessera cache)\n",
                rounds * runs);
    std::error_code ec;
    std::filesystem::remove_all(cache, ec);
    return 0;
}
