#pragma once
// The local Laplacian filter (after Halide's apps/local_laplacian; Paris, Hasinoff and
// Kautz, "Local Laplacian Filters", 2011): an edge-aware detail and tone adjustment.
// `levels` intensity levels are each remapped around their value and given a Laplacian
// pyramid; the output's pyramid takes, at each pixel and scale, the interpolation of the
// two levels nearest the input's own Gaussian pyramid there; collapsing it gives the
// result, with the input's color reintroduced.
//
// The schedule is Halide's CPU schedule for the app: strips of 64 rows in parallel, the
// fine levels of the output's pyramid computed per row of the strip (folded storage), the
// coarse ones and the processed pyramids at the root.
//
// Header-only, so that tests/ and bench/ build the same pipeline.

#include <vector>

#include <tessera/tessera.h>

namespace tessera::apps {

struct LocalLaplacian {
    ImageParam input{UInt(16), 3, "input"};
    Param<float> alpha{"alpha", 1.0f};  // detail: > 1 enhances, < 1 smooths
    Param<float> beta{"beta", 1.0f};    // tone: < 1 compresses the range
    Func output{"local_laplacian"};
};

namespace local_laplacian_detail {

inline Var x{"x"}, y{"y"}, c{"c"}, k{"k"};

/** A 4-tap [1 3 3 1] / 8 downsampling by two in x then y, of a Func of (x, y, k). */
inline Func downsample(const Func &f, const std::string &name) {
    Func dx(name + "_dx"), dy(name);
    dx(x, y, k) = (f(2 * x - 1, y, k) + 3.0f * (f(2 * x, y, k) + f(2 * x + 1, y, k)) + f(2 * x + 2, y, k)) / 8.0f;
    dy(x, y, k) = (dx(x, 2 * y - 1, k) + 3.0f * (dx(x, 2 * y, k) + dx(x, 2 * y + 1, k)) + dx(x, 2 * y + 2, k)) / 8.0f;
    return dy;
}

/** Linear upsampling by two in x then y (weights 1/4 and 3/4), of a Func of (x, y, k). */
inline Func upsample(const Func &f, const std::string &name) {
    Func ux(name + "_ux"), uy(name);
    ux(x, y, k) = 0.25f * f(x / 2 - 1 + 2 * (x % 2), y, k) + 0.75f * f(x / 2, y, k);
    uy(x, y, k) = 0.25f * ux(x, y / 2 - 1 + 2 * (y % 2), k) + 0.75f * ux(x, y / 2, k);
    return uy;
}

/** The same for Funcs of (x, y). */
inline Func downsample2(const Func &f, const std::string &name) {
    Func dx(name + "_dx"), dy(name);
    dx(x, y) = (f(2 * x - 1, y) + 3.0f * (f(2 * x, y) + f(2 * x + 1, y)) + f(2 * x + 2, y)) / 8.0f;
    dy(x, y) = (dx(x, 2 * y - 1) + 3.0f * (dx(x, 2 * y) + dx(x, 2 * y + 1)) + dx(x, 2 * y + 2)) / 8.0f;
    return dy;
}
inline Func upsample2(const Func &f, const std::string &name) {
    Func ux(name + "_ux"), uy(name);
    ux(x, y) = 0.25f * f(x / 2 - 1 + 2 * (x % 2), y) + 0.75f * f(x / 2, y);
    uy(x, y) = 0.25f * ux(x, y / 2 - 1 + 2 * (y % 2)) + 0.75f * ux(x, y / 2);
    return uy;
}

}  // namespace local_laplacian_detail

/** The filter with `pyramid_levels` levels (Halide's app uses 8) and `intensity_levels`
 * processed intensities, scheduled as Halide's CPU schedule, whose fold of the output's
 * fine pyramid levels is 4 rows. That fold runs in Halide, whose sliding window starts the
 * strip's loop a few rows early so that even its first row computes only new rows of each
 * level; Tessera's first row of a strip computes every row it needs, 5 at level 3, so it
 * needs `fold` = 8 to run (with 4 the pipeline stops with a message saying so). */
inline LocalLaplacian make_local_laplacian(int pyramid_levels, int intensity_levels = 8, int fold = 4) {
    using namespace local_laplacian_detail;
    const int J = pyramid_levels, levels = intensity_levels;
    LocalLaplacian app;
    auto level_name = [](const char *what, int j) { return std::string(what) + "_" + std::to_string(j); };

    // The remapping of an intensity difference (a lookup table of 256 entries per level).
    Func remap("remap");
    Expr fx = cast<float>(x) / 256.0f;
    remap(x) = app.alpha * fx * exp(-fx * fx / 2.0f);

    Func clamped = BoundaryConditions::repeat_edge(app.input);
    Func floating("floating");
    floating(x, y, c) = clamped(x, y, c) / 65535.0f;
    Func gray("gray");
    gray(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);

    // The processed Gaussian pyramids, one per intensity level k, and their Laplacians.
    std::vector<Func> g_pyramid, in_g_pyramid, out_l_pyramid;
    std::vector<Func> l_pyramid(static_cast<size_t>(J)), out_g_pyramid(static_cast<size_t>(J));
    Expr level = cast<float>(k) * (1.0f / float(levels - 1));
    Expr idx = clamp(cast<int>(gray(x, y) * float(levels - 1) * 256.0f), 0, (levels - 1) * 256);
    g_pyramid.emplace_back("g_pyramid_0");
    g_pyramid[0](x, y, k) = app.beta * (gray(x, y) - level) + level + remap(idx - 256 * k);
    for (int j = 1; j < J; j++) g_pyramid.push_back(downsample(g_pyramid[size_t(j - 1)], level_name("g_pyramid", j)));
    l_pyramid[size_t(J - 1)] = g_pyramid[size_t(J - 1)];
    for (int j = J - 2; j >= 0; j--) {
        Func up = upsample(g_pyramid[size_t(j + 1)], level_name("g_up", j));
        l_pyramid[size_t(j)] = Func(level_name("l_pyramid", j));
        l_pyramid[size_t(j)](x, y, k) = g_pyramid[size_t(j)](x, y, k) - up(x, y, k);
    }

    // The input's Gaussian pyramid.
    in_g_pyramid.emplace_back("in_g_pyramid_0");
    in_g_pyramid[0](x, y) = gray(x, y);
    for (int j = 1; j < J; j++) in_g_pyramid.push_back(downsample2(in_g_pyramid[size_t(j - 1)], level_name("in_g_pyramid", j)));

    // The output's Laplacian pyramid: at each pixel, the two processed levels nearest the
    // input's intensity, interpolated.
    for (int j = 0; j < J; j++) {
        Expr lv = in_g_pyramid[size_t(j)](x, y) * float(levels - 1);
        Expr li = clamp(cast<int>(lv), 0, levels - 2);
        Expr lf = lv - cast<float>(li);
        out_l_pyramid.emplace_back(level_name("out_l_pyramid", j));
        out_l_pyramid[size_t(j)](x, y) = (1.0f - lf) * l_pyramid[size_t(j)](x, y, li) + lf * l_pyramid[size_t(j)](x, y, li + 1);
    }

    // Collapsed into the output's Gaussian pyramid.
    out_g_pyramid[size_t(J - 1)] = out_l_pyramid[size_t(J - 1)];
    for (int j = J - 2; j >= 0; j--) {
        Func up = upsample2(out_g_pyramid[size_t(j + 1)], level_name("out_up", j));
        out_g_pyramid[size_t(j)] = Func(level_name("out_g_pyramid", j));
        out_g_pyramid[size_t(j)](x, y) = up(x, y) + out_l_pyramid[size_t(j)](x, y);
    }

    // The color of the input, and back to 16 bits.
    Func color("color");
    color(x, y, c) = out_g_pyramid[0](x, y) * (floating(x, y, c) + 0.01f) / (gray(x, y) + 0.01f);
    app.output(x, y, c) = cast<uint16_t>(clamp(color(x, y, c), 0.0f, 1.0f) * 65535.0f);

    // Halide's CPU schedule.
    Var yo("yo"), yi("yi");
    remap.compute_root();
    app.output.reorder(c, x, y).split(y, yo, yi, 64).parallel(yo).vectorize(x, 8);
    gray.compute_root().parallel(y, 32).vectorize(x, 8);
    for (int j = 1; j < 5 && j < J; j++) {
        in_g_pyramid[size_t(j)].compute_root().parallel(y, 32).vectorize(x, 8);
        g_pyramid[size_t(j)].compute_root().reorder_storage(x, k, y).reorder(k, y).parallel(y, 8).vectorize(x, 8);
        out_g_pyramid[size_t(j)].store_at(app.output, yo).compute_at(app.output, yi).fold_storage(y, fold).vectorize(x, 8);
    }
    out_g_pyramid[0].compute_at(app.output, yi).vectorize(x, 8);
    for (int j = 5; j < J; j++) {
        in_g_pyramid[size_t(j)].compute_root();
        g_pyramid[size_t(j)].compute_root().parallel(k);
        out_g_pyramid[size_t(j)].compute_root();
    }
    return app;
}

}  // namespace tessera::apps
