// Bounds inference through values a Func computes: a float clamp converted to an index,
// and a shift by a clamped amount, are bounded (as in Halide), so that the tables they
// index need no boundary condition; checked against the reference interpreter, NaNs and
// infinities among the inputs.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <tessera/tessera.h>

#include "support/differential.h"

using namespace tessera;
using tessera::testing::differential::differential_check;

TEST(BoundsOfValues, AFloatClampConvertedToAnIndex) {
    ImageParam g(Float(32), 2, "g"), lut(UInt(8), 1, "lut");
    Var x("x"), y("y");
    Func f("f");
    // A float min or max with a constant second operand is that constant on NaN
    // (docs/semantics.md §3): the index stays in [0, 10] for every input.
    f(x, y) = lut(cast<int32_t>(clamp(g(x, y), 0.0f, 1.0f) * 10.0f));
    Buffer<float> gb(std::vector<int>{6, 4}, "gb");
    const float special[] = {std::nanf(""), std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                             -3.0f, 0.55f, 1.0f, 0.0f, 2.5f};
    gb.for_each_element([&](const std::vector<int> &c) { gb(c) = special[(c[0] + 3 * c[1]) % 8]; });
    Buffer<uint8_t> lb(std::vector<int>{11}, "lb");
    lb.for_each_element([&](const std::vector<int> &c) { lb(c) = uint8_t(c[0] * 7 + 1); });
    g.set(gb);
    lut.set(lb);
    EXPECT_EQ(differential_check(f, {0, 0}, {6, 4}, false), "");
    Buffer<uint8_t> out = f.realize({6, 4});
    EXPECT_TRUE(out(0, 0) == lb(0) || out(0, 0) == lb(10));  // NaN
    EXPECT_EQ(out(1, 0), lb(10));  // +inf
    EXPECT_EQ(out(2, 0), lb(0));   // -inf
    EXPECT_EQ(out(4, 0), lb(5));
}

TEST(BoundsOfValues, AShiftByAClampedAmount) {
    ImageParam in(UInt(8), 1, "in");
    Var x("x");
    Func f("f");
    f(x) = in(1 << clamp(x, 0, 6)) + in(255 >> clamp(x, 1, 7));
    Buffer<uint8_t> b(std::vector<int>{128}, "b");
    b.for_each_element([&](const std::vector<int> &c) { b(c) = uint8_t(c[0] * 3 + 1); });
    in.set(b);
    EXPECT_EQ(differential_check(f, {-2}, {12}, false), "");
    // The input is read at [1, 127] (1 << 0 .. 1 << 6, 255 >> 7 .. 255 >> 1): a smaller one
    // is an error that says so.
    in.set(b.cropped(0, 0, 100));
    EXPECT_THROW(f.realize({12}), RuntimeError);
}
