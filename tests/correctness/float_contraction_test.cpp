// Float contraction, opt-in through the target's fp_contract feature (docs/semantics.md):
// a product added at once becomes a fused multiply-add, rounded once. Off by default, the
// compiled code computes what the reference interpreter does, bit for bit.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/tessera.h>


using namespace tessera;

namespace {

// Values whose product is not a float: rounding it before the add differs from fusing.
Buffer<float> operand(int n, float scale, const std::string &name) {
    Buffer<float> b(std::vector<int>{n}, name);
    for (int i = 0; i < n; i++) b(i) = (1.0f + float(i) * 0x1p-12f) * scale;
    return b;
}

}  // namespace

TEST(FloatContraction, FusesOnlyWhereTheTargetAsks) {
    const int n = 40;
    Buffer<float> a = operand(n, 1.0f / 3.0f, "fa"), b = operand(n, 3.0f, "fb"), c = operand(n, -1.0f, "fc");
    Var x("x");
    Func f("muladd");
    f(x) = a(x) * b(x) + c(x);
    f.vectorize(x, 8);
    const Buffer<float> exact = f.realize({n});
    const Buffer<float> reference = f.realize_reference({n});
    const Buffer<float> fused = f.realize({n}, Target("host-fp_contract"));
    int differ = 0;
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(exact(i), reference(i)) << "without fp_contract the code is the reference, at " << i;
        EXPECT_EQ(exact(i), a(i) * b(i) + c(i)) << i;
        EXPECT_EQ(fused(i), std::fmaf(a(i), b(i), c(i))) << "with fp_contract, one rounding, at " << i;
        differ += fused(i) != exact(i);
    }
    EXPECT_GT(differ, 0) << "the operands were chosen so that fusing changes some results";
    // A scalar (unvectorized) product is fused too, and a product that is subtracted is not.
    Func g("mulsub");
    g(x) = a(x) * b(x) + c(x) - a(x) * c(x);
    const Buffer<float> g_fused = g.realize({n}, Target("host-fp_contract"));
    for (int i = 0; i < n; i++) EXPECT_EQ(g_fused(i), std::fmaf(a(i), b(i), c(i)) - a(i) * c(i)) << i;
}

TEST(FloatContraction, TheTargetFeature) {
    EXPECT_EQ(Target("host-fp_contract").to_string(), "host-fp_contract");
    EXPECT_TRUE(Target("host-fp_contract").has_feature("fp_contract"));
    EXPECT_FALSE(Target("host").has_feature("fp_contract"));
    const Target t("x86-64-linux-avx2-fma-fp_contract");
    EXPECT_TRUE(t.has_feature("fp_contract"));
    EXPECT_EQ(t.c_flags(), Target("x86-64-linux-avx2-fma").c_flags()) << "the feature adds no instruction set";
    EXPECT_THROW(Target("host-avx2"), CompileError);  // only Tessera's own features after host
}
