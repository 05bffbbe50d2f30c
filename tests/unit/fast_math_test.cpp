// fast_exp, fast_log, fast_pow, fast_inverse, fast_inverse_sqrt (src/lang/FastMath.cpp):
// their accuracy against the C library (measured: fast_exp within 3 units in the last
// place over [-87, 88.5], fast_log within 1, fast_pow within 8.1e-7 relative; the bounds
// below leave a little room), their edge values as docs/semantics.md states
// them, and compiled vector code equal to the reference interpreter bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <tessera/tessera.h>

#include "support/differential.h"

using namespace tessera;

namespace {

/** The float32 inputs: `n` points spread over [lo, hi] (Param-free, from the coordinate). */
Expr spread(const Var &x, int n, float lo, float hi) { return lo + cast<float>(x) * ((hi - lo) / float(n - 1)); }

/** The distance of a from b in units of b's last place. */
double ulps(float a, float b) {
    if (a == b) return 0;
    const float gap = std::nextafter(std::fabs(b), std::numeric_limits<float>::infinity()) - std::fabs(b);
    return std::fabs(double(a) - double(b)) / double(gap);
}

/** Realizes f over [0, n) with the reference interpreter and compiled (vectorized 8 and 16
 * wide, in parallel), and checks that they agree bit for bit; returns the reference's. */
Buffer<float> reference_and_compiled(Func f, const Var &x, int n) {
    Buffer<float> ref = f.realize_reference({n});
    Var xo("xo"), xi("xi");
    f.split(x, xo, xi, 64, TailStrategy::GuardWithIf).parallel(xo).vectorize(xi, 16);
    Buffer<float> compiled = f.realize({n});
    for (int i = 0; i < n; i++) {
        uint32_t a, b;
        std::memcpy(&a, &ref(i), 4);
        std::memcpy(&b, &compiled(i), 4);
        if (std::isnan(ref(i)) && std::isnan(compiled(i))) continue;
        EXPECT_EQ(a, b) << f.name() << " at " << i << ": reference " << ref(i) << ", compiled " << compiled(i);
    }
    return ref;
}

TEST(FastMath, ExpWithinFewUlpsOfTheLibrary) {
    const int n = 20000;
    Var x("x");
    Func f("fexp");
    f(x) = fast_exp(spread(x, n, -87.0f, 88.5f));
    Buffer<float> got = reference_and_compiled(f, x, n);
    double worst = 0;
    float worst_at = 0;
    for (int i = 0; i < n; i++) {
        const float in = -87.0f + float(i) * (175.5f / float(n - 1));
        const double err = ulps(got(i), std::exp(in));
        if (err > worst) worst = err, worst_at = in;
    }
    EXPECT_LE(worst, 4.0) << "fast_exp's largest error, in units of the last place, at " << worst_at;
}

TEST(FastMath, LogWithinFewUlpsOfTheLibrary) {
    const int n = 20000;
    Var x("x");
    Func f("flog");
    // Normal values from 2^-120 to 2^120, geometric.
    Expr in = pow(2.0f, spread(x, n, -120.0f, 120.0f));
    f(x) = fast_log(in);
    Buffer<float> got = reference_and_compiled(f, x, n);
    Func inputs("inputs");
    inputs(x) = in;
    Buffer<float> ins = inputs.realize_reference({n});
    double worst_abs = 0;
    for (int i = 0; i < n; i++) {
        const float want = std::log(ins(i));
        // Near log(1) = 0 the relative error of any float method grows; measure absolutely there.
        const double err = std::fabs(want) < 1.0f ? std::fabs(double(got(i)) - double(want)) / 1.2e-7 : ulps(got(i), want);
        worst_abs = std::max(worst_abs, err);
    }
    EXPECT_LE(worst_abs, 2.0) << "fast_log's largest error, in units of the last place (of 1 near 0)";
}

TEST(FastMath, PowAndInverses) {
    const int n = 4000;
    Var x("x");
    Func p("fpow"), inv("finv"), isq("fisq");
    Expr base = spread(x, n, 0.01f, 20.0f), e = spread(x, n, -3.0f, 3.0f);
    p(x) = fast_pow(base, e);
    inv(x) = fast_inverse(base);
    isq(x) = fast_inverse_sqrt(base);
    Buffer<float> gp = reference_and_compiled(p, x, n), gi = reference_and_compiled(inv, x, n),
                  gs = reference_and_compiled(isq, x, n);
    Func bases("bases"), exps("exps");
    bases(x) = base;
    exps(x) = e;
    Buffer<float> b = bases.realize_reference({n}), ex = exps.realize_reference({n});
    double worst = 0;
    for (int i = 0; i < n; i++) {
        const float want = std::pow(b(i), ex(i));
        worst = std::max(worst, std::fabs(double(gp(i)) - double(want)) / std::fabs(double(want)));
        EXPECT_EQ(gi(i), 1.0f / b(i)) << "fast_inverse is exact, at " << i;
        EXPECT_EQ(gs(i), 1.0f / std::sqrt(b(i))) << "fast_inverse_sqrt is exact, at " << i;
    }
    EXPECT_LE(worst, 2e-6) << "fast_pow's largest relative error";
}

TEST(FastMath, EdgeValues) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> in = {0.0f, -0.0f, -1.0f, inf, -inf, nan, 100.0f, -100.0f, 88.0f, -87.0f};
    Buffer<float> values({int(in.size())}, "edge_in");
    for (size_t i = 0; i < in.size(); i++) values(int(i)) = in[i];
    Var x("x");
    Func e("edge_exp"), l("edge_log"), p("edge_pow");
    e(x) = fast_exp(values(x));
    l(x) = fast_log(values(x));
    p(x) = fast_pow(values(x), 0.0f) + fast_pow(2.0f, values(x) * 0.0f + 10.0f);
    const int n = int(in.size());
    Buffer<float> ge = reference_and_compiled(e, x, n), gl = reference_and_compiled(l, x, n),
                  gp = reference_and_compiled(p, x, n);
    EXPECT_EQ(ge(0), 1.0f);
    EXPECT_EQ(ge(1), 1.0f);
    EXPECT_EQ(ge(3), inf);
    EXPECT_EQ(ge(4), 0.0f);
    EXPECT_TRUE(std::isnan(ge(5)));
    EXPECT_EQ(ge(6), inf);
    EXPECT_EQ(ge(7), 0.0f);
    EXPECT_LE(ulps(ge(8), std::exp(88.0f)), 8.0);
    EXPECT_LE(ulps(ge(9), std::exp(-87.0f)), 8.0);
    EXPECT_EQ(gl(0), -inf);
    EXPECT_EQ(gl(1), -inf);
    EXPECT_TRUE(std::isnan(gl(2)));
    EXPECT_EQ(gl(3), inf);
    EXPECT_TRUE(std::isnan(gl(4)));
    EXPECT_TRUE(std::isnan(gl(5)));
    EXPECT_LE(ulps(gl(6), std::log(100.0f)), 8.0);
    // x^0 is 1 for every x, and 2^10 about 1024 (but for inf and NaN, whose product with
    // 0 is NaN).
    for (int i = 0; i < n; i++) {
        if (i >= 3 && i <= 5) {
            EXPECT_TRUE(std::isnan(gp(i))) << "at " << i;
            continue;
        }
        EXPECT_NEAR(gp(i), 1.0f + 1024.0f, 0.01f) << "at " << i;
    }
}

TEST(FastMath, OperandTypes) {
    Var x("x");
    Func f("from_int");
    f(x) = fast_exp(x) + fast_log(x + 1) + fast_inverse(x + 1);  // integers become float32
    EXPECT_EQ(f.type(), Float(32));
    EXPECT_THROW(fast_exp(cast<double>(x)), CompileError);
    EXPECT_THROW(fast_pow(1.0f, cast<double>(x)), CompileError);
    EXPECT_THROW(fast_log(x > 1), CompileError);
    try {
        fast_log(cast<double>(x));
        FAIL() << "no error";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("fast_log is defined on float32 values; got float64"), std::string::npos) << e.what();
    }
}

}  // namespace
