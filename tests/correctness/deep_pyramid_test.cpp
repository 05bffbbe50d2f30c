// Deep pyramids (Halide's local Laplacian, apps/local_laplacian/local_laplacian.h) lower in
// time and memory linear in the number of levels. Each level's bounds are written in terms
// of the level before, often twice (a stencil's lowest and highest tap): substituting them
// into one another, as the checks of the input's region and the searches for constant
// extents once did, made expressions of size 2^levels (8 levels did not finish in 19 GB).

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "interpolate/interpolate.h"
#include "local_laplacian/local_laplacian.h"
#include "lower/Lower.h"
#include "support/differential.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

/** The nodes of a statement, as a tree (a shared subexpression counted at each use). */
int64_t tree_nodes(const ir::Stmt &s) {
    struct Count : ir::IRVisitor {
        int64_t n = 0;
        using IRVisitor::include;
#define TESSERA_COUNT(N)                      \
    void visit(const ir::N *op) override {    \
        n++;                                  \
        IRVisitor::visit(op);                 \
    }
        TESSERA_FOR_EACH_EXPR(TESSERA_COUNT)
        TESSERA_FOR_EACH_STMT(TESSERA_COUNT)
#undef TESSERA_COUNT
    } c;
    c.include(s);
    return c.n;
}

void bind_image(apps::LocalLaplacian &app, int w, int h) {
    Buffer<uint16_t> in(std::vector<int>{w, h, 3}, "input");
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) in(x, y, c) = uint16_t((x * 2311 + y * 997 + c * 15013) % 65536);
    app.input.set(in);
}

}  // namespace

TEST(DeepPyramid, LoweredSizeGrowsLinearlyWithTheLevels) {
    // Levels 4, 8 and 12: each four more levels add about as much code as the four before
    // (about 4 * 2^4 = 64 times more would be exponential growth), and the checks of the
    // lowered code's contract after every pass (on in the tests) walk every intermediate
    // statement as a tree, so an intermediate of exponential size would not finish either.
    int64_t nodes[3];
    for (int i = 0; i < 3; i++) {
        apps::LocalLaplacian app = apps::make_local_laplacian(4 * (i + 1));
        nodes[i] = tree_nodes(lower::lower(app.output.data()).body);
    }
    const int64_t first = nodes[1] - nodes[0], second = nodes[2] - nodes[1];
    EXPECT_GT(first, 0);
    EXPECT_LT(second, first * 3 / 2) << nodes[0] << " " << nodes[1] << " " << nodes[2];
    EXPECT_LT(nodes[2], 4 * nodes[0]) << nodes[0] << " " << nodes[2];
}

TEST(DeepPyramid, InterpolateLowersLinearlyAndMatchesTheReference) {
    // Push-pull interpolation: 5, 10 and 15 levels, then 6 levels run on a small image.
    int64_t nodes[3];
    for (int i = 0; i < 3; i++) nodes[i] = tree_nodes(lower::lower(apps::make_interpolate(5 * (i + 1)).output.data()).body);
    const int64_t first = nodes[1] - nodes[0], second = nodes[2] - nodes[1];
    EXPECT_GT(first, 0);
    EXPECT_LT(second, first * 3 / 2) << nodes[0] << " " << nodes[1] << " " << nodes[2];
    apps::Interpolate app = apps::make_interpolate(6);
    Buffer<float> in(std::vector<int>{45, 38, 4}, "input");
    for (int y = 0; y < 38; y++)
        for (int x = 0; x < 45; x++) {
            const bool opaque = (x * 7 + y * 3) % 11 == 0;
            for (int c = 0; c < 3; c++) in(x, y, c) = float((x * 13 + y * 29 + c * 71) % 97) / 97.0f;
            in(x, y, 3) = opaque ? 1.0f : 0.0f;
        }
    app.input.set(in);
    EXPECT_EQ(differential_check(app.output, {0, 0, 0}, {44, 38, 3}, false), "");
}

TEST(DeepPyramid, LocalLaplacianMatchesTheReference) {
    // Five levels, with the schedule's fine levels per row of a strip and the coarse one at
    // the root, on an image of one strip and one with a partial strip (ShiftInwards: the image needs at least 64 rows, as in Halide).
    for (auto [w, h] : {std::pair{37, 64}, std::pair{70, 75}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        // Folds of 8 rows (Halide's 4 needs its warm-up of the sliding window; see the header).
        apps::LocalLaplacian app = apps::make_local_laplacian(5, 8, 8);
        bind_image(app, w, h);
        EXPECT_EQ(differential_check(app.output, {0, 0, 0}, {w, h, 3}, false), "");
    }
}
