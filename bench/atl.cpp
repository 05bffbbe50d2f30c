// ATL against Tessera Funcs (docs/atl.md, "Performance"): ATL's two-stage blur, its tiled
// blur and a tiled matrix product, each derived by ATL's rewrites, lowered by reindexers
// and given a schedule by loop name, timed beside the same computation written as Tessera
// Funcs with a Halide-style schedule, alternately in one process.
//
//     tessera_bench_atl [runs]        (default 11 runs per figure; medians and ratios)
//
// Every variant's result is compared with the Funcs' before timing (ATL sums in the same
// order as the Funcs' reductions here, so the results agree exactly).

#include <tessera/tessera.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace tessera;

namespace {

double seconds_of(const std::function<void()> &f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

Buffer<float> filled(const std::vector<int> &sizes, int seed) {
    Buffer<float> b(sizes);
    float *p = b.data();
    const size_t n = size_t(b.number_of_elements());
    for (size_t i = 0; i < n; i++) p[i] = float(int((i * 2654435761u + unsigned(seed)) % 1000u)) / 1000.0f;
    return b;
}

double max_difference(const Buffer<float> &a, const Buffer<float> &b) {
    double worst = 0;
    const size_t n = size_t(a.number_of_elements());
    for (size_t i = 0; i < n; i++) worst = std::max(worst, double(std::abs(a.data()[i] - b.data()[i])));
    return worst;
}

struct Variant {
    std::string name;
    Func output;
};

/** Runs each variant `runs` times, in turn, into its own output; prints medians and the
 * ratio to the last variant (the Funcs with a Halide-style schedule). */
void compare(const std::string &title, const std::vector<Variant> &variants, const std::vector<int> &sizes, int runs,
             double flops) {
    std::vector<Buffer<float>> outs;
    for (const Variant &v : variants) {
        outs.emplace_back(sizes);
        v.output.compile_jit();
        v.output.realize(outs.back());  // warm up, and the result checked below
    }
    std::vector<std::vector<double>> times(variants.size());
    for (int r = 0; r < runs; r++)
        for (size_t i = 0; i < variants.size(); i++) {
            const size_t k = (size_t(r) + i) % variants.size();  // alternate the order
            times[k].push_back(seconds_of([&] { variants[k].output.realize(outs[k]); }));
        }
    const double reference = median(times.back());
    std::printf("\n%s\n", title.c_str());
    std::printf("| variant | median ms | ratio to the Funcs | GFLOP/s | largest difference |\n|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < variants.size(); i++) {
        const double m = median(times[i]);
        std::printf("| %s | %.2f | %.2f | %.1f | %g |\n", variants[i].name.c_str(), m * 1e3, m / reference,
                    flops / m * 1e-9, max_difference(outs[i], outs.back()));
    }
}

// ---- blur -----------------------------------------------------------------------------

/** The ATL blur of an (H + 2) x (W + 2) image: bx sums three columns, the result three rows
 * of bx. */
atl::Tensor atl_blur(const atl::Array &in, int64_t H, int64_t W) {
    using namespace atl;
    Index y("y"), x("x"), i("i"), j("j");
    return let("bx", gen(y, H + 2, gen(x, W, in(y, x) + in(y, x + 1) + in(y, x + 2))), [&](const Array &bx) {
        return gen(i, H, gen(j, W, bx(i, j) + bx(i + 1, j) + bx(i + 2, j)));
    });
}

/** f's pure definition (the pad value's zeros, or the value of a Func lowered as one pure
 * definition) vectorized and parallel by rows, and each update: its loop over `outer`
 * parallel and over `inner` vectorized, where the update has them. */
void schedule_updates(const atl::Program &p, const Func &f, const std::string &outer, const std::string &inner) {
    Func g = f;
    const std::vector<Var> vars = g.args();
    g.vectorize(vars.front(), 8);
    if (vars.size() > 1) g.parallel(vars.back());
    for (int u = 0; u < p.updates(f); u++) {
        try {
            g.update(u).vectorize(p.loop(f, u, inner), 8);
        } catch (const CompileError &) {
        }
        try {
            g.update(u).parallel(p.loop(f, u, outer));
        } catch (const CompileError &) {
        }
    }
}

void blur(int runs) {
    const int H = 1500, W = 1500;  // not multiples of the tiles: the tiled loops have tails
    Buffer<float> image = filled({W + 2, H + 2}, 1);
    atl::Array in("I", {H + 2, W + 2});
    const atl::Tensor two_stage = atl_blur(in, H, W);

    atl::Program plain(two_stage, "atl_blur");
    plain.input_param("I").set(image);

    atl::Program scheduled(two_stage, "atl_blur_scheduled");
    scheduled.input_param("I").set(image);
    schedule_updates(scheduled, scheduled.output(), "i", "j");
    schedule_updates(scheduled, scheduled.let_func("bx"), "y", "x");

    // Tiled by one rewrite (one update, its tails guarded), with bx computed per tile at
    // the update's loop over jo: ATL's staged tiled blur, by schedule.
    atl::Derivation staged_d(two_stage);
    staged_d.tile("i", "j", 32, 256);
    atl::Program staged(staged_d.program(), "atl_blur_staged");
    staged.input_param("I").set(image);
    schedule_updates(staged, staged.output(), "io", "ji");
    {
        Func bx = staged.let_func("bx");
        bx.compute_at(staged.output(), staged.loop(staged.output(), 0, "jo")).vectorize(Var("x"), 8);
    }

    // Both stages are gens around a scalar, lowered as pure definitions over Vars named
    // after their variables: Halide's blur schedule attaches to them by name.
    atl::Program halide_style(two_stage, "atl_blur_halide_schedule");
    halide_style.input_param("I").set(image);
    {
        Var i("i"), j("j"), x("x"), ji("ji"), ii("ii");
        Func out = halide_style.output(), bx = halide_style.let_func("bx");
        out.tile(j, i, ji, ii, 256, 32).vectorize(ji, 8).parallel(i);
        bx.compute_at(out, j).vectorize(x, 8);
    }

    // The tiled blur: the result in tiles of 32 x 256, each tile loop's steady state apart
    // from its tail (ATL's loop separation), then scheduled by loop name.
    atl::Derivation tiled_d(two_stage);
    tiled_d.tile("i", "j", 32, 256).separate("io").separate("jo");
    atl::Program tiled(tiled_d.program(), "atl_blur_tiled");
    tiled.input_param("I").set(image);
    schedule_updates(tiled, tiled.output(), "io", "ji");
    schedule_updates(tiled, tiled.let_func("bx"), "y", "x");

    // Halide's blur app: the result in 256 x 32 tiles, bx computed per tile.
    ImageParam img(Float(32), 2, "img");
    img.set(image);
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func bx("bx"), by("by");
    bx(x, y) = img(x, y) + img(x + 1, y) + img(x + 2, y);
    by(x, y) = bx(x, y) + bx(x, y + 1) + bx(x, y + 2);
    by.tile(x, y, xi, yi, 256, 32).vectorize(xi, 8).parallel(y);
    bx.compute_at(by, x).vectorize(x, 8);

    compare("two-stage blur, " + std::to_string(W) + " x " + std::to_string(H) + " float",
            {{"ATL, lowered as is", plain.output()},
             {"ATL, loops vectorized and parallel by name", scheduled.output()},
             {"ATL tiled 32 x 256 by rewrites (tile, separate), scheduled", tiled.output()},
             {"ATL tiled 32 x 256 by rewrites (tile), bx per tile, scheduled", staged.output()},
             {"ATL with Halide's blur schedule attached by variable name", halide_style.output()},
             {"Funcs, Halide's blur schedule", by}},
            {W, H}, runs, 6.0 * H * W);
}

// ---- matmul ---------------------------------------------------------------------------

void matmul(int runs) {
    const int N = 512;
    Buffer<float> a = filled({N, N}, 2), b = filled({N, N}, 3);
    using atl::Index;
    atl::Array A("A", {N, N}), B("B", {N, N});
    Index i("i"), j("j"), k("k");
    const atl::Tensor naive = atl::gen(i, N, atl::gen(j, N, atl::sum(k, N, A(i, k) * B(k, j))));

    // Tiles of 32 x 32 with the column loop innermost (inside the sum), as ATL derives it.
    atl::Derivation d(naive);
    d.tile("i", "j", 32, 32).interchange("ji");
    atl::Program tiled(d.program(), "atl_matmul_tiled");
    tiled.input_param("A").set(a);
    tiled.input_param("B").set(b);
    schedule_updates(tiled, tiled.output(), "io", "ji");

    atl::Program plain(naive, "atl_matmul");
    plain.input_param("A").set(a);
    plain.input_param("B").set(b);

    ImageParam pa(Float(32), 2, "pa"), pb(Float(32), 2, "pb");
    pa.set(a);
    pb.set(b);
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    RDom r(0, N, "r");
    Func c("c");
    c(x, y) = 0.0f;
    c(x, y) += pa(r.x, y) * pb(x, r.x);
    c.update().split(x, xo, xi, 32).split(y, yo, yi, 32).reorder(xi, r.x, yi, xo, yo).vectorize(xi, 8).parallel(yo);

    compare("matrix product, " + std::to_string(N) + " x " + std::to_string(N) + " float",
            {{"ATL naive, lowered as is", plain.output()},
             {"ATL tiled 32 x 32 by rewrites (tile, interchange), scheduled", tiled.output()},
             {"Funcs, tiled 32 x 32, vectorized, parallel", c}},
            {N, N}, runs, 2.0 * N * N * N);
}

}  // namespace

int main(int argc, char **argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 11;
    std::printf("ATL against Tessera Funcs: medians of %d runs, alternating (bench/atl.cpp)\n", runs);
    blur(runs);
    matmul(runs);
    return 0;
}
