#pragma once
// Push-pull interpolation (after Halide's apps/interpolate): fills the transparent parts of
// an RGBA image. The colors, premultiplied by alpha, are downsampled into a pyramid
// ("push"), then each level, from the coarsest, fills what its own alpha leaves uncovered
// with the upsampled coarser level ("pull"); dividing by the result's alpha gives the
// interpolated colors.
//
// The schedule is in the style of Halide's CPU schedule for the app: every level computed
// at the root, in parallel strips of rows and vectorized, the output tiled 2x2 with its
// channels unrolled. Header-only, so that tests/ and bench/ build the same pipeline.

#include <string>
#include <vector>

#include <tessera/tessera.h>

namespace tessera::apps {

struct Interpolate {
    ImageParam input{Float(32), 3, "input"};  // RGBA, alpha in channel 3
    Func output{"interpolate"};
};

/** The interpolation with `levels` pyramid levels (Halide's app uses 10). */
inline Interpolate make_interpolate(int levels) {
    Interpolate app;
    Var x("x"), y("y"), c("c");
    auto level_name = [](const char *what, int l) { return std::string(what) + "_" + std::to_string(l); };
    Func clamped = BoundaryConditions::repeat_edge(app.input);
    std::vector<Func> downsampled, interpolated(static_cast<size_t>(levels));
    downsampled.emplace_back("downsampled_0");
    downsampled[0](x, y, c) = select(c < 3, clamped(x, y, c) * clamped(x, y, 3), clamped(x, y, 3));
    for (int l = 1; l < levels; l++) {
        Func prev = downsampled[size_t(l - 1)];
        if (l == 4) {
            // A boundary condition at a middle level keeps the footprint of the coarse
            // levels from reaching far past the image (as Halide's app does).
            Func bounded(level_name("bounded", l));
            Expr w = app.input.width() / (1 << (l - 1)), h = app.input.height() / (1 << (l - 1));
            bounded(x, y, c) = prev(clamp(x, 0, max(w - 1, 0)), clamp(y, 0, max(h - 1, 0)), c);
            prev = bounded;
        }
        Func downx(level_name("downx", l)), down(level_name("downsampled", l));
        downx(x, y, c) = (prev(x * 2 - 1, y, c) + 2.0f * prev(x * 2, y, c) + prev(x * 2 + 1, y, c)) * 0.25f;
        down(x, y, c) = (downx(x, y * 2 - 1, c) + 2.0f * downx(x, y * 2, c) + downx(x, y * 2 + 1, c)) * 0.25f;
        downsampled.push_back(down);
    }
    interpolated[size_t(levels - 1)] = downsampled[size_t(levels - 1)];
    for (int l = levels - 2; l >= 0; l--) {
        Func upx(level_name("upsampledx", l)), up(level_name("upsampled", l)), in(level_name("interpolated", l));
        upx(x, y, c) = (interpolated[size_t(l + 1)](x / 2, y, c) + interpolated[size_t(l + 1)]((x + 1) / 2, y, c)) / 2.0f;
        up(x, y, c) = (upx(x, y / 2, c) + upx(x, (y + 1) / 2, c)) / 2.0f;
        Expr alpha = 1.0f - downsampled[size_t(l)](x, y, 3);
        in(x, y, c) = downsampled[size_t(l)](x, y, c) + alpha * up(x, y, c);
        interpolated[size_t(l)] = in;
    }
    app.output(x, y, c) = interpolated[0](x, y, c) / interpolated[0](x, y, 3);

    // The schedule.
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    for (int l = 1; l < levels; l++) {
        downsampled[size_t(l)].compute_root().parallel(y, 8).vectorize(x, 4);
        interpolated[size_t(l)].compute_root().parallel(y, 8).vectorize(x, 4);
    }
    app.output.reorder(c, x, y).bound(c, 0, 3).unroll(c).tile(x, y, xo, yo, xi, yi, 2, 2).unroll(xi).unroll(yi).parallel(yo);
    return app;
}

}  // namespace tessera::apps
