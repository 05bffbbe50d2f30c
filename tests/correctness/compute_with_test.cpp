// compute_with (Func::compute_with, src/lower/FuseComputeWith.cpp): two Funcs computed at
// one place share their outer loops. Results equal the reference interpreter's (compiled
// and through the IR interpreter's prophecy check); the lowered code has one loop nest
// where there were two; what cannot be fused is a CompileError that says why.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "ir/IRPrinter.h"
#include "lower/Lower.h"
#include "support/differential.h"
#include "support/errors.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

void expect_matches_reference(const Func &out, const std::vector<int> &mins, const std::vector<int> &extents) {
    EXPECT_EQ(differential_check(out, mins, extents, false), "");
    EXPECT_EQ(prophecy_check(out, mins, extents), "");
}

/** How many loops of the lowered code are over a variable of Func `func`'s stage 0
 * ("<func>.s0.<var>"). */
int loops_of(const Func &out, const std::string &func, const std::string &var) {
    const std::string text = ir::to_string(lower::lower(out.data()).body);
    const std::string needle = "for (" + func + ".s0." + var + ",";
    int n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) n++;
    return n;
}

}  // namespace

TEST(ComputeWith, TwoRootFuncsShareTheirRows) {
    Func f("cw_f"), g("cw_g"), out("cw_out");
    Var x("x"), y("y");
    f(x, y) = x * 3 + y;
    g(x, y) = x - y * 5;
    // g is read one row above and two columns right of f: their ranges differ.
    out(x, y) = f(x, y) + g(x + 2, y - 1) * 7;
    f.compute_root();
    g.compute_root();
    f.compute_with(g, y);
    EXPECT_EQ(loops_of(out, "cw_f", "y"), 0);  // f's rows are g's loop now
    EXPECT_EQ(loops_of(out, "cw_g", "y"), 1);
    expect_matches_reference(out, {0, 0}, {13, 7});
    expect_matches_reference(out, {-4, 3}, {9, 5});
}

TEST(ComputeWith, FusedDownToTheInnerLoopAndInParallel) {
    Func f("cw2_f"), g("cw2_g"), out("cw2_out");
    Var x("x"), y("y");
    f(x, y) = cast<float>(x + y) * 0.5f;
    g(x, y) = cast<float>(x * y) - 1.0f;
    out(x, y) = f(x - 1, y) + g(x + 1, y + 2);
    f.compute_root().parallel(y);
    g.compute_root().parallel(y);
    f.compute_with(g, x);
    EXPECT_EQ(loops_of(out, "cw2_f", "x"), 0);
    expect_matches_reference(out, {0, 0}, {10, 6});
}

TEST(ComputeWith, VectorizedInnerLoopsUnderFusedRows) {
    Func f("cw4_f"), g("cw4_g"), out("cw4_out");
    Var x("x"), y("y");
    f(x, y) = cast<uint8_t>(x * 7 + y);
    g(x, y) = cast<uint16_t>(x) * cast<uint16_t>(y + 3);
    out(x, y) = cast<uint16_t>(f(x + 3, y)) + g(x, y + 1);
    f.compute_root().vectorize(x, 8);
    g.compute_root().vectorize(x, 8);
    g.compute_with(f, y);
    expect_matches_reference(out, {0, 0}, {21, 6});
}

TEST(ComputeWith, SplitLoopsFusedDownToTheInnerOne) {
    // Both split alike; fused through yo and yi (the ShiftInwards tails of the two splits
    // differ where the ranges do: each body keeps its own).
    Func f("cw5_f"), g("cw5_g"), out("cw5_out");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    f(x, y) = x + 4 * y;
    g(x, y) = x * y + 1;
    out(x, y) = f(x, y) - g(x + 1, y - 3);
    f.compute_root().split(y, yo, yi, 3);
    g.compute_root().split(y, yo, yi, 3);
    f.compute_with(g, yi);
    EXPECT_EQ(loops_of(out, "cw5_f", "yi"), 0) << ir::to_string(lower::lower(out.data()).body);
    EXPECT_EQ(loops_of(out, "cw5_g", "yi"), 1) << ir::to_string(lower::lower(out.data()).body);
    expect_matches_reference(out, {0, 0}, {8, 11});
}

TEST(ComputeWith, FuncsComputedAtAConsumersLoop) {
    Func f("cw3_f"), g("cw3_g"), out("cw3_out");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    f(x, y) = x + 2 * y;
    g(x, y) = 3 * x - y;
    out(x, y) = f(x, y) * g(x + 1, y) + f(x + 2, y);
    out.split(x, xo, xi, 4);
    f.compute_at(out, y);
    g.compute_at(out, y);
    g.compute_with(f, x);  // f's body first, then g's, in each x
    EXPECT_EQ(loops_of(out, "cw3_g", "x"), 0);
    expect_matches_reference(out, {0, 0}, {12, 5});
}

TEST(ComputeWith, ThroughTheTsrLanguage) {
    const std::string src = R"(func f(x, y) = x + y
func g(x, y) = x * y
func out(x, y) = f(x, y) - g(x, y + 1)
output out
f.compute_root()
g.compute_root()
g.compute_with(f, y)
)";
    Program p = parse_program(src, "cw.tsr");
    const std::string printed = print_program(p);
    EXPECT_NE(printed.find("g.compute_with(f, y)"), std::string::npos) << printed;
    EXPECT_EQ(print_program(parse_program(printed, "again.tsr")), printed);
    Buffer<int32_t> r = p.output.realize({6, 4});
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 6; xx++) EXPECT_EQ(r(xx, yy), xx + yy - xx * (yy + 1));
}

TEST(ComputeWith, WhatCannotBeFusedIsACompileError) {
    Var x("x"), y("y");
    auto message = [&](const std::function<void(Func &, Func &, Func &)> &schedule) {
        Func f("e_f"), g("e_g"), out("e_out");
        f(x, y) = x + y;
        g(x, y) = f(x, y) * 2;  // g reads f
        out(x, y) = f(x, y) + g(x, y);
        schedule(f, g, out);
        return test::error_message<CompileError>([&] { out.realize({4, 4}); });
    };
    std::string m = message([&](Func &f, Func &g, Func &) {
        f.compute_root();
        g.compute_root();
        g.compute_with(f, y);
    });
    EXPECT_NE(m.find("reads the other"), std::string::npos) << m;
    EXPECT_NE(m.find("e_g"), std::string::npos) << m;

    auto independent = [&](const std::function<void(Func &, Func &, Func &)> &schedule) {
        Func f("i_f"), g("i_g"), out("i_out");
        f(x, y) = x + y;
        g(x, y) = x - y;
        out(x, y) = f(x, y) + g(x, y);
        return test::error_message<CompileError>([&] {
            schedule(f, g, out);
            out.realize({8, 4});
        });
    };
    m = independent([&](Func &f, Func &g, Func &out) {
        f.compute_root();
        g.compute_at(out, y);
        g.compute_with(f, y);
    });
    EXPECT_NE(m.find("different places"), std::string::npos) << m;
    m = independent([&](Func &f, Func &g, Func &) {
        f.compute_root().parallel(y);
        g.compute_root();
        g.compute_with(f, y);
    });
    EXPECT_NE(m.find("not both serial or both parallel"), std::string::npos) << m;
    m = independent([&](Func &f, Func &g, Func &) {
        f.compute_root();
        g.compute_root();
        g.compute_with(f, Var("z"));
    });
    EXPECT_NE(m.find("z is not a loop"), std::string::npos) << m;
    m = independent([&](Func &f, Func &g, Func &) {
        f.compute_root();
        g.compute_root();
        g.compute_with(f, y);
        f.compute_with(g, y);
    });
    EXPECT_NE(m.find("already computed with"), std::string::npos) << m;
}
