// The JIT compiles the shapes of the Buffers a pipeline reads into its code
// (src/lower/SpecializeBufferShapes.cpp): their mins, extents and strides are constants,
// checked on entry; realize compiles again when a Buffer's shape has changed, and the disk
// cache keeps one compilation per shape.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>

#include <tessera/tessera.h>

#include "ir/Function.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"
#include "support/errors.h"
#include "support/scratch.h"

using namespace tessera;

namespace {

/** The buffer-shape variables (`in.min.0`, `in.stride.1`, ...) the code uses outside its
 * assertions. */
std::set<std::string> shape_variables_used(const ir::Stmt &s) {
    struct Walk : ir::IRVisitor {
        std::set<std::string> names;
        using ir::IRVisitor::include;
        void visit(const ir::Variable *op) override {
            for (const char *part : {".min.", ".extent.", ".stride."})
                if (op->name.find(part) != std::string::npos) names.insert(op->name);
        }
        void visit(const ir::AssertStmt *) override {}
    } w;
    w.include(s);
    return w.names;
}

struct Scaled {
    Buffer<int32_t> in{std::vector<int>{7, 5}, "in"};
    Func f{"scaled"};
    Var x{"x"}, y{"y"};
    Scaled() {
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 7; i++) in(i, j) = 100 * j + i;
        f(x, y) = in(x, y) * 3 + in(x + 1, y) - y;
    }
    int32_t expected(int x, int y) const { return in(x, y) * 3 + in(x + 1, y) - y; }
};

TEST(BufferShapes, TheJitsCodeHasTheShapesOfTheBuffersItReadsAsConstants) {
    Scaled p;
    lower::LowerOptions jit;
    jit.fixed_buffer_shapes = true;
    const ir::LoweredPipeline fixed = lower::lower(p.f.data(), jit);
    const std::set<std::string> used = shape_variables_used(fixed.body);
    for (const std::string &n : used) EXPECT_EQ(n.rfind("in.", 0), std::string::npos) << n << " is still read in the code";
    // Ahead of time the same Buffer is a parameter whose shape the code reads.
    const ir::LoweredPipeline free = lower::lower(p.f.data(), {});
    EXPECT_TRUE(shape_variables_used(free.body).count("in.stride.1"));
    EXPECT_TRUE(shape_variables_used(free.body).count("in.min.0"));
}

TEST(BufferShapes, CodeRunOnABufferOfAnotherShapeFailsNamingIt) {
    Scaled p;
    lower::LowerOptions jit;
    jit.fixed_buffer_shapes = true;
    const ir::LoweredPipeline fixed = lower::lower(p.f.data(), jit);
    Buffer<int32_t> out(std::vector<int>{6, 5}, "out");
    // As compiled: runs.
    semantics::run(fixed, semantics::default_arguments(fixed, out.data_handle()));
    EXPECT_EQ(out(2, 3), p.expected(2, 3));
    // The same Buffer moved: the code was compiled for another shape.
    p.in.set_min(1, 0);
    const std::string message = tessera::test::error_message<RuntimeError>(
        [&] { semantics::run(fixed, semantics::default_arguments(fixed, out.data_handle())); });
    EXPECT_NE(message.find("Input buffer \"in\" has the mins [1, 0], extents [7, 5] and strides [1, 7]"), std::string::npos)
        << message;
    EXPECT_NE(message.find("compiled for the mins [0, 0], extents [7, 5] and strides [1, 7]"), std::string::npos) << message;
}

TEST(BufferShapes, RealizeCompilesAgainWhenABufferHasMoved) {
    Scaled p;
    Buffer<int32_t> out(std::vector<int>{6, 5});
    p.f.realize(out);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 6; x++) ASSERT_EQ(out(x, y), p.expected(x, y)) << x << ", " << y;
    // The input now covers [10, 16] x [-2, 2]; the output window follows it.
    p.in.set_min(10, -2);
    Buffer<int32_t> moved(std::vector<int>{6, 5});
    moved.set_min(10, -2);
    p.f.realize(moved);
    for (int y = -2; y < 3; y++)
        for (int x = 10; x < 16; x++) ASSERT_EQ(moved(x, y), p.expected(x, y)) << x << ", " << y;
}

/** Realizes, in turn, three pipelines that differ only in the shape of the Buffer they
 * read: the same names, algorithm and schedule, so the same printed program, whose rows
 * are 7, 9 and 12 wide (7 are read). */
void realize_pipelines_that_differ_in_their_buffers_shape() {
    for (int width : {7, 9, 12}) {
        Buffer<float> in(std::vector<int>{width, 4}, "in");
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < width; i++) in(i, j) = float(i + 10 * j);
        Func f("twice");
        Var x("x"), y("y");
        f(x, y) = in(x, y) * 2.0f + 1.0f;
        Buffer<float> out(std::vector<int>{7, 4});
        f.realize(out);
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 7; i++) ASSERT_EQ(out(i, j), float(i + 10 * j) * 2.0f + 1.0f) << width << ": " << i << ", " << j;
    }
}

TEST(BufferShapes, PipelinesThatDifferOnlyInTheirBuffersShapesAreCompiledApart) {
    realize_pipelines_that_differ_in_their_buffers_shape();
}

TEST(BufferShapes, TheDiskCacheIndexKeepsOneCompilationPerShape) {
    // The JIT finds a pipeline compiled before by its printed program in the disk cache's
    // index, but not while lowering's invariants are checked (as in this test suite): the
    // same pipelines again in a process of their own, without the checks, and with a
    // cache of their own. The index must not hand one pipeline another's code.
    if (std::getenv("TESSERA_TEST_BUFFER_SHAPES_CHILD")) {
        realize_pipelines_that_differ_in_their_buffers_shape();
        return;
    }
    char self[4096];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) GTEST_SKIP() << "this test needs /proc/self/exe";
    self[n] = 0;
    const std::string cache = tessera::testing::scratch_dir() + "/buffer-shapes-cache";
    int status = 0;
    for (int run = 0; run < 2; run++) {  // the second finds all three in the index
        const std::string out = tessera::testing::shell_output(
            "TESSERA_TEST_BUFFER_SHAPES_CHILD=1 TESSERA_CHECK_INVARIANTS=0 XDG_CACHE_HOME='" + cache + "' '" +
                std::string(self) + "' --gtest_filter=BufferShapes.TheDiskCacheIndexKeepsOneCompilationPerShape",
            &status);
        EXPECT_EQ(status, 0) << out;
        EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
    }
}

}  // namespace
