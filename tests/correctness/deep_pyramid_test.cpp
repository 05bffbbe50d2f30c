// Deep pyramids (Halide's local Laplacian, apps/local_laplacian/local_laplacian.h) lower in
// time and memory linear in the number of levels. Each level's bounds are written in terms
// of the level before, often twice (a stencil's lowest and highest tap): substituting them
// into one another, as the checks of the input's region and the searches for constant
// extents once did, made expressions of size 2^levels (8 levels did not finish in 19 GB).

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
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

TEST(DeepPyramid, LetsAreWrittenInOnlyWithinABudget) {
    // A chain of lets each using the one before twice: written in whole, the innermost
    // would have 2^40 nodes. Substitution writes in only what is used and gives up past
    // its budget; the passes that compare bounds (eliminating guards, partitioning loops)
    // then keep the code as it is.
    std::vector<std::pair<std::string, Expr>> lets;
    lets.emplace_back("v0", ir::Variable::make(Int(32), "x"));
    for (int i = 1; i <= 40; i++) {
        const Expr prev = ir::Variable::make(Int(32), "v" + std::to_string(i - 1));
        lets.emplace_back("v" + std::to_string(i), ir::Min::make(prev, ir::Add::make(prev, ir::IntImm::make(Int(32), 1))));
    }
    EXPECT_FALSE(ir::substitute_lets(lets, ir::Variable::make(Int(32), "v40")).defined());
    const Expr shallow = ir::substitute_lets(lets, ir::Variable::make(Int(32), "v3"));
    ASSERT_TRUE(shallow.defined());
    EXPECT_FALSE(ir::uses_var(shallow, "v0"));
    EXPECT_TRUE(ir::uses_var(shallow, "x"));
    // Unused lets are not written in.
    const Expr unused = ir::Add::make(ir::Variable::make(Int(32), "y"), ir::IntImm::make(Int(32), 2));
    EXPECT_TRUE(ir::substitute_lets(lets, unused).same_as(unused));
}

TEST(DeepPyramid, ChainsOfUnrolledReductionsMatchTheReference) {
    // Twelve 5x5 sums, each computed per vector of its consumer with its RDom unrolled,
    // all per tile: each stage's bounds use the stage before's twice. Substituting every
    // enclosing let into the guards and loop bounds took 13 s for 8 stages (doubling per
    // stage); it now lowers in about a second. Checked against the reference.
    ImageParam in(UInt(8), 2, "in");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RDom r(-2, 5, -2, 5, "r");
    Func clamped = BoundaryConditions::repeat_edge(in);
    std::vector<Func> stage{Func("s0")}, sums;
    stage[0](x, y) = cast<uint16_t>(clamped(x, y));
    const int n = 12;
    for (int i = 1; i <= n; i++) {
        Func sum("sum" + std::to_string(i)), s("s" + std::to_string(i));
        sum(x, y) = cast<uint32_t>(0);
        sum(x, y) += cast<uint32_t>(stage.back()(x + r.x, y + r.y));
        s(x, y) = cast<uint16_t>(sum(x, y) >> 5);
        sums.push_back(sum);
        stage.push_back(s);
    }
    Func out = stage.back();
    out.tile(x, y, xo, yo, xi, yi, 32, 16).parallel(yo).vectorize(xi, 16);
    for (int i = 1; i < n; i++) stage[size_t(i)].compute_at(out, xo).vectorize(x, 16);
    for (int i = 0; i < n; i++) {
        Func consumer = stage[size_t(i + 1)];
        sums[size_t(i)].compute_at(consumer, i + 1 == n ? xi : x).vectorize(x, 16);
        sums[size_t(i)].update().vectorize(x, 16).unroll(r.x).unroll(r.y);
    }
    Buffer<uint8_t> b(std::vector<int>{40, 30}, "b");
    b.for_each_element([&](const std::vector<int> &c) { b(c) = uint8_t((c[0] * 37 + c[1] * 91) % 251); });
    in.set(b);
    EXPECT_EQ(differential_check(out, {0, 0}, {64, 32}, false), "");
}
