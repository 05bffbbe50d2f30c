// Side-by-side benchmark: the same pipelines and schedules (bench/side_by_side_pipelines.h),
// compiled by Tessera and by Halide 14 in one process, run alternately, checked against
// each other, and reported as medians and the ratio Tessera / Halide; matmul also against
// OpenBLAS's sgemm where it is installed. Each pipeline's limit on this machine is printed
// beside them: the bytes it must move at the measured memory bandwidth, or its arithmetic
// at the measured FMA peak, whichever takes longer.
//
// Usage: [TESSERA_BENCH_KEEP_CACHE=1] [TESSERA_BENCH_FP_CONTRACT=1] [TESSERA_BENCH_HALIDE_STRICT_FLOAT=1]
//        [TESSERA_BENCH_CONTENTION=n]
//        tessera_bench_side_by_side [rounds [name-filter]]   (default 15 rounds; each round
//        runs each pipeline 5 times in each system, one system after the other, the first
//        one alternating from round to round; a filter keeps the pipelines whose name
//        contains it)
//
// With TESSERA_BENCH_CONTENTION=n the rounds are run a second time with n other processes
// busy on the cores (each spinning until the rounds end), and a second table gives each
// system's slowdown against its own quiet time: a parallel pipeline should degrade no
// worse than Halide's.
//
// Both are given the same target. Halide 14's host detection claims features some CPUs
// lack, so the target is pinned: x86-64-linux-avx2-avx512-avx512_skylake-f16c-fma-sse41
// where the CPU has AVX-512, x86-64-linux-avx2-f16c-fma-sse41 otherwise.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <immintrin.h>
#include <csignal>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#ifdef TESSERA_BENCH_OPENBLAS
#include <cblas.h>
#endif

#define DECLARE_PIPELINES                                                                                          \
    struct Timing {                                                                                                \
        double compile_ms = 0;                                                                                     \
        std::vector<double> run_ms;                                                                                \
    };                                                                                                             \
    Timing blur(const std::string &, int, uint16_t *, int, int, uint16_t *, int, int);                             \
    Timing blur_unscheduled(const std::string &, int, float *, int, int, float *, int, int);                       \
    Timing unsharp(const std::string &, int, float *, int, int, float *);                                          \
    Timing matmul(const std::string &, int, float *, float *, int, float *);                                       \
    Timing matmul_packed(const std::string &, int, float *, float *, int, float *);                                \
    Timing harris(const std::string &, int, float *, int, int, float *, int);                                      \
    Timing stencil_chain(const std::string &, int, uint8_t *, int, int, uint8_t *);                                \
    Timing conv_layer(const std::string &, int, float *, float *, float *, int, int, int, int, int, float *);      \
    Timing depthwise_separable_conv(const std::string &, int, float *, float *, float *, float *, int, int, int, int, \
                                    float *);                                                                      \
    Timing bilateral_grid(const std::string &, int, uint8_t *, int, int, uint8_t *);                               \
    Timing iir_blur(const std::string &, int, uint8_t *, int, int, uint8_t *);

namespace tessera_side {
DECLARE_PIPELINES
}
namespace halide_side {
DECLARE_PIPELINES
}

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

double seconds_of(const std::function<void()> &f) {
    auto a = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

/** Runs `work(thread)` on `threads` threads at once. */
void on_threads(int threads, const std::function<void(int)> &work) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) pool.emplace_back(work, t);
    for (std::thread &t : pool) t.join();
}

/** Bytes per second copied by every core at once (each byte read and written counts
 * twice), on arrays far larger than the caches; the best of five. */
double memory_bandwidth(int threads) {
    const size_t bytes = size_t(256) << 20;  // per array
    std::vector<char> from(bytes, 1), to(bytes, 0);
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        const double s = seconds_of([&] {
            on_threads(threads, [&](int t) {
                const size_t chunk = bytes / size_t(threads);
                std::memcpy(to.data() + chunk * size_t(t), from.data() + chunk * size_t(t), chunk);
            });
        });
        best = std::max(best, 2.0 * double(bytes) / s);
    }
    return best + double(to[bytes / 2]) * 0;  // (reads the copy, so it is not optimized out)
}

/** Floating-point operations per second of independent fused multiply-adds on every core
 * (each FMA counts two), with 8-lane vectors and, where the target has them, 16-lane ones;
 * the best of five of each. (The chains are unrolled so that the accumulators stay in
 * registers: rolled, gcc keeps them in memory and measures a third of the peak.) */
__attribute__((target("avx512f"))) float fma_chains_512(long iterations) {
    __m512 acc[12];
    for (int i = 0; i < 12; i++) acc[i] = _mm512_set1_ps(float(i));
    const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
    for (long k = 0; k < iterations; k++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    float sum = 0;
    for (int i = 0; i < 12; i++) sum += _mm512_reduce_add_ps(acc[i]);
    return sum;
}
__attribute__((target("avx2,fma"))) float fma_chains_256(long iterations) {
    __m256 acc[12];
    for (int i = 0; i < 12; i++) acc[i] = _mm256_set1_ps(float(i));
    const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
    for (long k = 0; k < iterations; k++)
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    float lanes[8], sum = 0;
    for (int i = 0; i < 12; i++) {
        _mm256_storeu_ps(lanes, acc[i]);
        for (float l : lanes) sum += l;
    }
    return sum;
}
double fma_peak(int threads, bool avx512) {
    const long iterations = 20000000;
    std::vector<float> sink(static_cast<size_t>(threads));
    double best = 0;
    for (int lanes : {8, 16}) {
        if (lanes == 16 && !avx512) continue;
        for (int rep = 0; rep < 5; rep++) {
            const double s = seconds_of([&] {
                on_threads(threads, [&](int t) { sink[size_t(t)] = lanes == 16 ? fma_chains_512(iterations) : fma_chains_256(iterations); });
            });
            best = std::max(best, double(threads) * double(iterations) * 12 * lanes * 2 / s);
        }
    }
    return best + double(sink[0]) * 0;
}

struct Run {
    double compile_ms = -1;  // negative: not compiled (a library)
    std::vector<double> run_ms;
};
template<typename T>
Run run_of(const T &t) {
    return Run{t.compile_ms, t.run_ms};
}

/** One row: a pipeline in Tessera against one peer. */
struct Case {
    std::string name, peer;
    double bytes = 0, flops = 0;  // moved and computed per run: the limit's inputs
    std::function<Run()> tessera, other;
    std::function<std::string()> compare;  // "identical", or how the outputs differ
    std::vector<double> tessera_ms, other_ms;            // quiet
    std::vector<double> busy_tessera_ms, busy_other_ms;  // with other processes busy
    double tessera_compile = 0, other_compile = 0;
    std::string outputs = "identical";
};

/** Processes that keep the cores busy while they live: children spinning until killed.
 * (A child of this multi-threaded process only spins, so forking it is safe.) */
class BusyProcesses {
public:
    explicit BusyProcesses(int n) {
        for (int i = 0; i < n; i++) {
            const pid_t pid = ::fork();
            if (pid == 0) {
                volatile unsigned long spin = 0;
                for (;;) spin = spin + 1;
            }
            if (pid > 0) pids_.push_back(pid);
        }
    }
    ~BusyProcesses() {
        for (pid_t pid : pids_) ::kill(pid, SIGKILL);
        for (pid_t pid : pids_) ::waitpid(pid, nullptr, 0);
    }
    BusyProcesses(const BusyProcesses &) = delete;
    BusyProcesses &operator=(const BusyProcesses &) = delete;

private:
    std::vector<pid_t> pids_;
};

/** Runs every case `rounds` times in both systems, the first alternating from round to
 * round, appending the run times to (tessera_ms, other_ms) or, when busy, to the busy
 * lists; the first quiet round also keeps the compile times and compares the outputs. */
void measure(std::vector<Case> &cases, int rounds, bool busy) {
    for (int r = 0; r < rounds; r++) {
        for (Case &c : cases) {
            // Who goes first alternates from round to round: the first system to run after
            // another pipeline refills the caches that pipeline left dirty, which slowed its
            // first three timed runs by up to 50% (blur after unsharp), whichever system it was.
            Run t, o;
            if (r % 2 == 0) {
                t = c.tessera();
                o = c.other();
            } else {
                o = c.other();
                t = c.tessera();
            }
            std::vector<double> &tms = busy ? c.busy_tessera_ms : c.tessera_ms;
            std::vector<double> &oms = busy ? c.busy_other_ms : c.other_ms;
            tms.insert(tms.end(), t.run_ms.begin(), t.run_ms.end());
            oms.insert(oms.end(), o.run_ms.begin(), o.run_ms.end());
            if (r == 0 && !busy) {
                c.tessera_compile = t.compile_ms;
                c.other_compile = o.compile_ms;
                c.outputs = c.compare();
            }
        }
    }
}

template<typename T>
std::string compare_outputs(const std::vector<T> &a, const std::vector<T> &b) {
    if (a == b) return "identical";
    double worst = 0;
    size_t differ = 0;
    for (size_t i = 0; i < a.size(); i++) {
        const double d = std::fabs(double(a[i]) - double(b[i]));
        if (d > 0) differ++;
        worst = std::max(worst, d);
    }
    char text[96];
    std::snprintf(text, sizeof(text), "%.2g%% differ, by at most %.3g", 100.0 * double(differ) / double(a.size()), worst);
    return text;
}

template<typename T, typename Fill>
std::vector<T> filled(size_t n, Fill fill) {
    std::vector<T> v(n);
    for (auto &e : v) e = fill();
    return v;
}

}  // namespace

int main(int argc, char **argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
    const std::string filter = argc > 2 ? argv[2] : "";
    const int runs = 5;
    const std::string target = pinned_target();
    // $TESSERA_BENCH_FP_CONTRACT: every Tessera pipeline with fused multiply-adds (the
    // opt-in fp_contract target feature), as Halide contracts by default.
    const std::string tessera_target = target + (std::getenv("TESSERA_BENCH_FP_CONTRACT") ? "-fp_contract" : "");
    // $TESSERA_BENCH_HALIDE_STRICT_FLOAT: Halide with its strict_float target feature, which
    // computes floats as written (no contraction, no float rewrites in its simplifier), as
    // Tessera does by default: the same arithmetic on both sides.
    const std::string halide_target = target + (std::getenv("TESSERA_BENCH_HALIDE_STRICT_FLOAT") ? "-strict_float" : "");
    // $TESSERA_BENCH_CONTENTION=n: the rounds again with n other processes busy.
    const char *contention = std::getenv("TESSERA_BENCH_CONTENTION");
    const int busy_processes = contention ? std::max(0, std::atoi(contention)) : 0;
    const bool avx512 = target.find("avx512") != std::string::npos;
    const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    // A fresh JIT cache, so that Tessera's compile time is a real C compilation.
    const std::string cache = (std::filesystem::temp_directory_path() / ("tessera-side-" + std::to_string(::getpid()))).string();
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);

    const double bandwidth = memory_bandwidth(threads);
    const double peak = fma_peak(threads, avx512);
    std::printf("targets: Tessera %s, Halide %s; %d rounds x %d runs per pipeline and system, alternating\n",
                tessera_target.c_str(), halide_target.c_str(), rounds, runs);
    std::printf("this machine, %d threads: memory %.1f GB/s (copy, read + write), FMA peak %.1f GFLOP/s\n\n", threads,
                bandwidth / 1e9, peak / 1e9);

    std::mt19937 rng(42);
    auto unit = [&] { return float(rng() % 1000) / 1000.0f + 0.01f; };
    auto small = [&] { return float(int(rng() % 200) - 100) / 64.0f; };
    auto byte = [&] { return uint8_t(rng() & 0xff); };
    const int w = 2560, h = 1536;
    const double px = double(w) * h;

    // blur: uint16 output (12-bit data), input with the 2-pixel apron.
    const std::vector<uint16_t> bin = filled<uint16_t>(size_t(w + 2) * (h + 2), [&] { return uint16_t(rng() & 0xfff); });
    std::vector<uint16_t> bt(size_t(w) * h), bh(size_t(w) * h);
    // blur as first written, of floats.
    const std::vector<float> fbin = filled<float>(size_t(w + 2) * (h + 2), unit);
    std::vector<float> ft(size_t(w) * h), fh(size_t(w) * h);
    // unsharp and harris: float RGB.
    std::vector<float> rgb = filled<float>(size_t(w) * h * 3, unit);
    std::vector<float> ut(rgb.size()), uh(rgb.size()), ht(size_t(w) * h), hh(size_t(w) * h);
    // matmul: 1024 x 1024 float.
    const int n = 1024;
    std::vector<float> ma = filled<float>(size_t(n) * n, small), mb = filled<float>(size_t(n) * n, small);
    std::vector<float> mt(size_t(n) * n), mh(size_t(n) * n), mo(size_t(n) * n);
    // uint8 images: one plane, and RGB.
    std::vector<uint8_t> plane = filled<uint8_t>(size_t(w) * h, byte), rgb8 = filled<uint8_t>(size_t(w) * h * 3, byte);
    std::vector<uint8_t> st(plane.size()), sh(plane.size()), gt(plane.size()), gh(plane.size()), it(rgb8.size()), ih(rgb8.size());
    // conv_layer: 32 -> 32 channels, 64 x 64 pixels, a batch of 4.
    const int cc = 32, cw = 64, chh = 64, cn = 4;
    std::vector<float> cin = filled<float>(size_t(cc) * (cw + 2) * (chh + 2) * cn, small);
    std::vector<float> cfilter = filled<float>(size_t(cc) * cc * 9, small), cbias = filled<float>(size_t(cc), small);
    std::vector<float> ct(size_t(cc) * cw * chh * cn), ch(ct.size());
    // depthwise-separable conv: 32 -> 32 channels, 128 x 128 pixels.
    const int dc = 32, dw = 128, dh = 128;
    std::vector<float> din = filled<float>(size_t(dc) * dw * dh, small), ddw = filled<float>(size_t(dc) * 9, small);
    std::vector<float> dpw = filled<float>(size_t(dc) * dc, small), dbias = filled<float>(size_t(dc), small);
    std::vector<float> dt(size_t(dc) * dw * dh), dhl(dt.size());

    std::vector<Case> cases;
    cases.push_back({"blur u16 2560x1536", "Halide", double(w + 2) * (h + 2) * 2 + px * 2, 0,
                     [&] { return run_of(tessera_side::blur(tessera_target, runs, (uint16_t *)bin.data(), w + 2, h + 2, bt.data(), w, h)); },
                     [&] { return run_of(halide_side::blur(halide_target, runs, (uint16_t *)bin.data(), w + 2, h + 2, bh.data(), w, h)); },
                     [&] { return compare_outputs(bt, bh); }});
    cases.push_back({"blur f32 2560x1536 unscheduled", "Halide", double(w + 2) * (h + 2) * 4 + px * 4, px * 6,
                     [&] { return run_of(tessera_side::blur_unscheduled(tessera_target, runs, (float *)fbin.data(), w + 2, h + 2, ft.data(), w, h)); },
                     [&] { return run_of(halide_side::blur_unscheduled(halide_target, runs, (float *)fbin.data(), w + 2, h + 2, fh.data(), w, h)); },
                     [&] { return compare_outputs(ft, fh); }});
    cases.push_back({"unsharp f32 2560x1536x3", "Halide", px * 24, px * 31,
                     [&] { return run_of(tessera_side::unsharp(tessera_target, runs, rgb.data(), w, h, ut.data())); },
                     [&] { return run_of(halide_side::unsharp(halide_target, runs, rgb.data(), w, h, uh.data())); },
                     [&] { return compare_outputs(ut, uh); }});
    cases.push_back({"matmul f32 1024^2", "Halide", 3.0 * n * n * 4, 2.0 * n * n * n,
                     [&] { return run_of(tessera_side::matmul(tessera_target, runs, ma.data(), mb.data(), n, mt.data())); },
                     [&] { return run_of(halide_side::matmul(halide_target, runs, ma.data(), mb.data(), n, mh.data())); },
                     [&] { return compare_outputs(mt, mh); }});
    // Tessera with fused multiply-adds (the opt-in fp_contract feature; Halide contracts
    // them by default).
    cases.push_back({"matmul f32 1024^2 fp_contract", "Halide", 3.0 * n * n * 4, 2.0 * n * n * n,
                     [&] { return run_of(tessera_side::matmul(target + "-fp_contract", runs, ma.data(), mb.data(), n, mt.data())); },
                     [&] { return run_of(halide_side::matmul(halide_target, runs, ma.data(), mb.data(), n, mh.data())); },
                     [&] { return compare_outputs(mt, mh); }});
    // A register-blocked schedule with a packed panel of B, for 16-lane vectors, both
    // systems contracting multiply-adds (Tessera by fp_contract).
    cases.push_back({"matmul f32 1024^2 packed", "Halide", 3.0 * n * n * 4, 2.0 * n * n * n,
                     [&] { return run_of(tessera_side::matmul_packed(target + "-fp_contract", runs, ma.data(), mb.data(), n, mt.data())); },
                     [&] { return run_of(halide_side::matmul_packed(halide_target, runs, ma.data(), mb.data(), n, mh.data())); },
                     [&] { return compare_outputs(mt, mh); }});
#ifdef TESSERA_BENCH_OPENBLAS
    // OpenBLAS's sgemm as the peer: result(x, y) = sum_k A(k, y) B(x, k) is row-major C = A B.
    auto openblas_sgemm = [&] {
        auto sgemm = [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, ma.data(), n, mb.data(), n, 0.0f, mo.data(), n);
        };
        sgemm();
        Run r;
        for (int i = 0; i < runs; i++) r.run_ms.push_back(1e3 * seconds_of(sgemm));
        return r;
    };
    cases.push_back({"matmul f32 1024^2 packed", "OpenBLAS", 3.0 * n * n * 4, 2.0 * n * n * n,
                     [&] { return run_of(tessera_side::matmul_packed(target + "-fp_contract", runs, ma.data(), mb.data(), n, mt.data())); },
                     openblas_sgemm, [&] { return compare_outputs(mt, mo); }});
    cases.push_back({"matmul f32 1024^2", "OpenBLAS", 3.0 * n * n * 4, 2.0 * n * n * n,
                     [&] { return run_of(tessera_side::matmul(tessera_target, runs, ma.data(), mb.data(), n, mt.data())); },
                     openblas_sgemm, [&] { return compare_outputs(mt, mo); }});
#endif
    cases.push_back({"harris f32 2560x1536x3", "Halide", px * 16, px * 61,
                     [&] { return run_of(tessera_side::harris(tessera_target, runs, rgb.data(), w, h, ht.data(), 3)); },
                     [&] { return run_of(halide_side::harris(halide_target, runs, rgb.data(), w, h, hh.data(), 3)); },
                     [&] { return compare_outputs(ht, hh); }});
    // harris's stages apart (the same schedule, the output taken early): gray alone, then
    // with the gradients; the full row's time minus these is the window sums' and the
    // response's.
    cases.push_back({"harris stage 1: gray", "Halide", px * 16, px * 5,
                     [&] { return run_of(tessera_side::harris(tessera_target, runs, rgb.data(), w, h, ht.data(), 1)); },
                     [&] { return run_of(halide_side::harris(halide_target, runs, rgb.data(), w, h, hh.data(), 1)); },
                     [&] { return compare_outputs(ht, hh); }});
    cases.push_back({"harris stage 2: gradients", "Halide", px * 16, px * 28,
                     [&] { return run_of(tessera_side::harris(tessera_target, runs, rgb.data(), w, h, ht.data(), 2)); },
                     [&] { return run_of(halide_side::harris(halide_target, runs, rgb.data(), w, h, hh.data(), 2)); },
                     [&] { return compare_outputs(ht, hh); }});
    cases.push_back({"stencil_chain u8 2560x1536", "Halide", px * 2, 0,
                     [&] { return run_of(tessera_side::stencil_chain(tessera_target, runs, plane.data(), w, h, st.data())); },
                     [&] { return run_of(halide_side::stencil_chain(halide_target, runs, plane.data(), w, h, sh.data())); },
                     [&] { return compare_outputs(st, sh); }});
    cases.push_back({"conv_layer f32 32x64x64x4", "Halide", double(cin.size() + cfilter.size() + ct.size()) * 4,
                     2.0 * cc * cc * 9 * cw * chh * cn,
                     [&] {
                         return run_of(tessera_side::conv_layer(tessera_target, runs, cin.data(), cfilter.data(), cbias.data(), cc, cc, cw, chh,
                                                                cn, ct.data()));
                     },
                     [&] {
                         return run_of(halide_side::conv_layer(halide_target, runs, cin.data(), cfilter.data(), cbias.data(), cc, cc, cw, chh,
                                                               cn, ch.data()));
                     },
                     [&] { return compare_outputs(ct, ch); }});
    // conv_layer is FLOP-bound, in multiply-adds that Halide contracts: Tessera with them
    // fused too (fp_contract), as for matmul above.
    cases.push_back({"conv_layer f32 32x64x64x4 fp_contract", "Halide", double(cin.size() + cfilter.size() + ct.size()) * 4,
                     2.0 * cc * cc * 9 * cw * chh * cn,
                     [&] {
                         return run_of(tessera_side::conv_layer(target + "-fp_contract", runs, cin.data(), cfilter.data(), cbias.data(),
                                                                cc, cc, cw, chh, cn, ct.data()));
                     },
                     [&] {
                         return run_of(halide_side::conv_layer(halide_target, runs, cin.data(), cfilter.data(), cbias.data(), cc, cc, cw, chh,
                                                               cn, ch.data()));
                     },
                     [&] { return compare_outputs(ct, ch); }});
    cases.push_back({"depthwise_sep_conv f32 32x128x128", "Halide", double(din.size() + dt.size()) * 4,
                     (18.0 * dc + 2.0 * dc * dc) * dw * dh,
                     [&] {
                         return run_of(tessera_side::depthwise_separable_conv(tessera_target, runs, din.data(), ddw.data(), dpw.data(),
                                                                              dbias.data(), dc, dc, dw, dh, dt.data()));
                     },
                     [&] {
                         return run_of(halide_side::depthwise_separable_conv(halide_target, runs, din.data(), ddw.data(), dpw.data(),
                                                                             dbias.data(), dc, dc, dw, dh, dhl.data()));
                     },
                     [&] { return compare_outputs(dt, dhl); }});
    cases.push_back({"depthwise_sep_conv f32 32x128x128 fp_contract", "Halide", double(din.size() + dt.size()) * 4,
                     (18.0 * dc + 2.0 * dc * dc) * dw * dh,
                     [&] {
                         return run_of(tessera_side::depthwise_separable_conv(target + "-fp_contract", runs, din.data(), ddw.data(),
                                                                              dpw.data(), dbias.data(), dc, dc, dw, dh, dt.data()));
                     },
                     [&] {
                         return run_of(halide_side::depthwise_separable_conv(halide_target, runs, din.data(), ddw.data(), dpw.data(),
                                                                             dbias.data(), dc, dc, dw, dh, dhl.data()));
                     },
                     [&] { return compare_outputs(dt, dhl); }});
    cases.push_back({"bilateral_grid u8 2560x1536x3", "Halide", px * 4, px * 62,
                     [&] { return run_of(tessera_side::bilateral_grid(tessera_target, runs, rgb8.data(), w, h, gt.data())); },
                     [&] { return run_of(halide_side::bilateral_grid(halide_target, runs, rgb8.data(), w, h, gh.data())); },
                     [&] { return compare_outputs(gt, gh); }});
    cases.push_back({"iir_blur u8 2560x1536x3", "Halide", px * 6, px * 36,
                     [&] { return run_of(tessera_side::iir_blur(tessera_target, runs, rgb8.data(), w, h, it.data())); },
                     [&] { return run_of(halide_side::iir_blur(halide_target, runs, rgb8.data(), w, h, ih.data())); },
                     [&] { return compare_outputs(it, ih); }});
    if (!filter.empty())
        cases.erase(std::remove_if(cases.begin(), cases.end(), [&](const Case &c) { return c.name.find(filter) == std::string::npos; }),
                    cases.end());

    measure(cases, rounds, false);

    std::printf("%-46s %-9s %11s %11s %7s %9s %6s %10s %10s  %s\n", "pipeline", "peer", "Tessera ms", "peer ms", "ratio",
                "limit ms", "bound", "Tess cc ms", "peer cc ms", "outputs");
    for (const Case &c : cases) {
        const double t = median(c.tessera_ms), o = median(c.other_ms);
        const double memory_ms = 1e3 * c.bytes / bandwidth, compute_ms = 1e3 * c.flops / peak;
        char peer_cc[32] = "-";
        if (c.other_compile >= 0) std::snprintf(peer_cc, sizeof(peer_cc), "%.1f", c.other_compile);
        std::printf("%-46s %-9s %11.3f %11.3f %7.2f %9.3f %6s %10.1f %10s  %s\n", c.name.c_str(), c.peer.c_str(), t, o, t / o,
                    std::max(memory_ms, compute_ms), memory_ms >= compute_ms ? "memory" : "FLOPs", c.tessera_compile, peer_cc,
                    c.outputs.c_str());
    }
    std::printf("\n(medians over %d runs each; compile times are the first round's, with an empty Tessera cache; the limit is\n"
                "the pipeline's input and output bytes at the memory bandwidth or its arithmetic at the FMA peak, whichever\n"
                "is longer, counting every multiply and add as one operation)\n",
                rounds * runs);
    if (busy_processes > 0) {
        {
            BusyProcesses busy(busy_processes);
            measure(cases, rounds, true);
        }
        std::printf("\nwith %d other process%s busy on the cores (spinning), the same rounds:\n", busy_processes,
                    busy_processes == 1 ? "" : "es");
        std::printf("%-46s %-9s %11s %11s %7s %14s %14s\n", "pipeline", "peer", "Tessera ms", "peer ms", "ratio",
                    "Tess slowdown", "peer slowdown");
        for (const Case &c : cases) {
            const double t = median(c.busy_tessera_ms), o = median(c.busy_other_ms);
            std::printf("%-46s %-9s %11.3f %11.3f %7.2f %13.2fx %13.2fx\n", c.name.c_str(), c.peer.c_str(), t, o, t / o,
                        t / median(c.tessera_ms), o / median(c.other_ms));
        }
        std::printf("(slowdown: the median with the busy processes over the quiet median of the same system)\n");
    }
    // $TESSERA_BENCH_KEEP_CACHE keeps the compiled pipelines, so that a profiler run on
    // this benchmark can name their functions afterwards.
    if (std::getenv("TESSERA_BENCH_KEEP_CACHE")) {
        std::printf("compiled pipelines kept in %s\n", cache.c_str());
    } else {
        std::error_code ec;
        std::filesystem::remove_all(cache, ec);
    }
    return 0;
}
