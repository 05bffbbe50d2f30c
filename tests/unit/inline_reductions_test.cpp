// Inline reductions (sum, product, maximum, minimum; include/tessera/InlineReductions.h):
// values against sums computed here, schedules against the reference interpreter, the
// printed program, and the errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include <cmath>
#include <limits>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "support/differential.h"

using namespace tessera;
using ::testing::HasSubstr;
using tessera::testing::differential::differential_check;

namespace {

Buffer<int32_t> numbers(int w, int h) {
    Buffer<int32_t> b(std::vector<int>{w, h}, "numbers");
    b.for_each_element([&](const std::vector<int> &c) { b(c) = (c[0] * 37 + c[1] * 11) % 23 - 9; });
    return b;
}

}  // namespace

TEST(InlineReductions, ValuesAreTheReductionsOverTheRDom) {
    Buffer<int32_t> in = numbers(12, 9);
    Var x("x"), y("y");
    RDom r(0, 3, 0, 2, "r");
    Func f("f");
    // Four reductions in one definition: each is its own Func, over (x, y).
    f(x, y) = sum(in(x + r.x, y + r.y)) * 1000000 + product(in(x + r.x, y + r.y) % 3 + 2) * 1000 +
              (maximum(in(x + r.x, y + r.y)) - minimum(in(x + r.x, y + r.y))) + sum(r, 1) * 100;
    Buffer<int32_t> out = f.realize({10, 8});
    for (int yy = 0; yy < 8; yy++)
        for (int xx = 0; xx < 10; xx++) {
            int s = 0, p = 1, hi = std::numeric_limits<int>::min(), lo = std::numeric_limits<int>::max();
            for (int ry = 0; ry < 2; ry++)
                for (int rx = 0; rx < 3; rx++) {
                    const int v = in(xx + rx, yy + ry);
                    s += v;
                    p *= ((v % 3) + 3) % 3 + 2;  // Euclidean %
                    hi = std::max(hi, v);
                    lo = std::min(lo, v);
                }
            EXPECT_EQ(out(xx, yy), s * 1000000 + p * 1000 + (hi - lo) + 6 * 100) << xx << ", " << yy;
        }
}

TEST(InlineReductions, IdentitiesOfEmptyDomainsAndFloats) {
    // An empty RDom leaves the identity: 0, 1, -inf and +inf for floats, the type's limits
    // for integers.
    Param<int> n("n", 0);
    RDom r(0, n, "r");
    Var x("x");
    Func f("f"), g("g"), h("h");
    f(x) = maximum(cast<float>(x + r)) + 0.0f * sum(cast<float>(r));
    g(x) = minimum(cast<float>(x + r));
    h(x) = cast<int32_t>(maximum(cast<uint8_t>(x + r))) + cast<int32_t>(minimum(cast<int16_t>(x + r))) +
           product(x + r);
    Buffer<float> fo = f.realize({2}), go = g.realize({2});
    Buffer<int32_t> ho = h.realize({2});
    EXPECT_TRUE(std::isinf(fo(0)) && fo(0) < 0);
    EXPECT_TRUE(std::isinf(go(1)) && go(1) > 0);
    EXPECT_EQ(ho(0), 0 + 32767 + 1);
    n.set(4);
    fo = f.realize({2});
    go = g.realize({2});
    ho = h.realize({2});
    EXPECT_EQ(fo(1), 4.0f);
    EXPECT_EQ(go(1), 1.0f);
    EXPECT_EQ(ho(1), 4 + 1 + 1 * 2 * 3 * 4);
}

TEST(InlineReductions, ScheduledLikeHalidesHarrisAgreeWithTheReference) {
    // Halide's harris sums 3x3 windows of gradient products with sum(); the sums are
    // computed at the innermost loop of their consumer, inside strips of rows.
    Buffer<float> in(std::vector<int>{40, 30}, "in");
    in.for_each_element([&](const std::vector<int> &c) { in(c) = float((c[0] * 7 + c[1] * 13) % 17) / 17.0f; });
    Var x("x"), y("y"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func ix("ix"), iy("iy"), out("out");
    ix(x, y) = clamped(x + 1, y) - clamped(x - 1, y);
    iy(x, y) = clamped(x, y + 1) - clamped(x, y - 1);
    RDom r(-1, 3, -1, 3, "r");
    Expr sxx = sum(ix(x + r.x, y + r.y) * ix(x + r.x, y + r.y));
    Expr syy = sum(iy(x + r.x, y + r.y) * iy(x + r.x, y + r.y));
    Expr sxy = sum(ix(x + r.x, y + r.y) * iy(x + r.x, y + r.y));
    out(x, y) = sxx * syy - sxy * sxy - 0.04f * (sxx + syy) * (sxx + syy);
    out.split(y, y, yi, 8).parallel(y).vectorize(x, 8);
    ix.store_at(out, y).compute_at(out, yi).vectorize(x, 8);
    iy.store_at(out, y).compute_at(out, yi).vectorize(x, 8);
    EXPECT_EQ(differential_check(out, {0, 0}, {40, 30}, false), "");

    // The three nests over the window are one (src/lower/FuseSmallLoopNests.cpp), so that
    // each gradient is loaded once per window point instead of twice: each part of the x
    // loop (steady state and tail) has one loop over r.x, storing the three sums.
    const std::string file = ::testing::TempDir() + "/harris_sums.stmt";
    out.compile_to_lowered_stmt(file, {in});
    std::ifstream text(file);
    const std::string stmt((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
    size_t window_loops = 0, fused = 0;
    for (size_t at = stmt.find("for (sum_"); at != std::string::npos; at = stmt.find("for (sum_", at + 1)) {
        const size_t line_end = stmt.find('\n', at);
        if (stmt.substr(at, line_end - at).find(".r.x") == std::string::npos) continue;
        window_loops++;
        const std::string body = stmt.substr(line_end, stmt.find('}', line_end) - line_end);
        int stores = 0;
        for (size_t k = body.find("] = "); k != std::string::npos; k = body.find("] = ", k + 1)) stores++;
        fused += stores == 3;
    }
    EXPECT_GE(window_loops, 1u) << stmt;
    EXPECT_EQ(fused, window_loops) << stmt;
}

TEST(InlineReductions, InsideAVectorizedLoopTheyRunOnLanes) {
    // A reduction computed at the innermost loop of a vectorized consumer (Halide's
    // default for inline reductions) runs on the vector's lanes, each with its own
    // accumulator, stored densely: no loop is left serial for it.
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    RDom r(-1, 3, -1, 3, "r");
    Func out("out");
    out(x, y) = sum(in(x + r.x + 1, y + r.y + 1) * 2.0f, "window") + 1.0f;
    out.vectorize(x, 8);
    struct Stores : ir::IRVisitor {
        int vector = 0, scalar = 0, serial_vector_loops = 0;
        using IRVisitor::include;
        void visit(const ir::Store *op) override {
            if (op->buffer.rfind("window_", 0) == 0) (op->value.type().lanes == 8 ? vector : scalar)++;
            IRVisitor::visit(op);
        }
        void visit(const ir::For *op) override {
            serial_vector_loops += op->name.find(".v") != std::string::npos;
            IRVisitor::visit(op);
        }
    } stores;
    stores.include(lower::lower(out.data()).body);
    EXPECT_GT(stores.vector, 0);
    EXPECT_EQ(stores.scalar, 0);
    EXPECT_EQ(stores.serial_vector_loops, 0);
    Buffer<float> b(std::vector<int>{21, 12}, "b");
    b.for_each_element([&](const std::vector<int> &c) { b(c) = float(c[0] * 3 + c[1] * 5 % 7); });
    in.set(b);
    EXPECT_EQ(differential_check(out, {0, 0}, {19, 10}, false), "");
}

TEST(InlineReductions, PrintedProgramsParseToTheSamePipeline) {
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    RDom r(-2, 5, "r");
    Func f("f");
    f(x, y) = maximum(in(x + r, y)) - minimum(in(x, y + r));
    const std::string text = print_program(f);
    EXPECT_THAT(text, HasSubstr("maximum_"));
    EXPECT_THAT(text, HasSubstr("minimum_"));
    Program p = parse_program(text);
    EXPECT_EQ(print_program(p), text);
}

TEST(InlineReductions, TsrHasTheInlineReductions) {
    Program p = parse_program("input int32 in[2]\n"
                              "rdom r(0, 3)\n"
                              "func f(x, y) = sum(in(x + r, y)) + 10 * maximum(in(x, y + r)) + sum(r, 1)\n"
                              "output f\n");
    Buffer<int32_t> in = numbers(8, 8);
    detail::bind_input(*p.argument("in")->input, in.data_handle());
    Buffer<int32_t> out = p.output.realize({5, 5});
    for (int yy = 0; yy < 5; yy++)
        for (int xx = 0; xx < 5; xx++) {
            int s = 0, m = std::numeric_limits<int>::min();
            for (int k = 0; k < 3; k++) {
                s += in(xx + k, yy);
                m = std::max(m, in(xx, yy + k));
            }
            EXPECT_EQ(out(xx, yy), s + 10 * m + 3);
        }
}

TEST(InlineReductions, ErrorsNameTheReduction) {
    Var x("x");
    RDom r(0, 3, "r"), s(0, 4, "s");
    auto message = [](auto &&f) {
        try {
            f();
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_THAT(message([&] { sum(x * 2); }), HasSubstr("sum(e): e uses no RVar"));
    EXPECT_THAT(message([&] { maximum(x + r + s); }), HasSubstr("two RDoms (r and s)"));
    EXPECT_THAT(message([&] { product(s, x + r); }), HasSubstr("e uses RVars of RDom r, not of s"));
    EXPECT_THAT(message([&] { sum(r < 2); }), HasSubstr("e is a bool"));
    EXPECT_THAT(message([&] { sum(Expr()); }), HasSubstr("undefined Expr"));
}
