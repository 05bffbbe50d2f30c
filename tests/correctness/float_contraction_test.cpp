// Float contraction, opt-in through the target's fp_contract feature (docs/semantics.md):
// a product added at once becomes a fused multiply-add, rounded once. Off by default, the
// compiled code computes what the reference interpreter does, bit for bit.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
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

TEST(FloatContraction, VectorsOfEveryWidthFuseExactly) {
    // A vector multiply-add is the target's fused instruction where it has one (128, 256
    // and 512 bits) and the lanes' fmaf otherwise; each lane is rounded once either way.
    // Compiled for this machine and for a target without FMA (the fallback).
    const int n = 64;
    Buffer<float> a = operand(n, 1.0f / 3.0f, "va"), b = operand(n, 3.0f, "vb"), c = operand(n, -1.0f, "vc");
    Buffer<double> ad(std::vector<int>{n}, "vad"), bd(std::vector<int>{n}, "vbd"), cd(std::vector<int>{n}, "vcd");
    for (int i = 0; i < n; i++) {
        ad(i) = (1.0 + double(i) * 0x1p-40) / 3.0;
        bd(i) = 3.0 + double(i) * 0x1p-45;
        cd(i) = -1.0;
    }
    int differ_f = 0, differ_d = 0;
    for (int i = 0; i < n; i++) {
        differ_f += std::fmaf(a(i), b(i), c(i)) != a(i) * b(i) + c(i);
        differ_d += std::fma(ad(i), bd(i), cd(i)) != ad(i) * bd(i) + cd(i);
    }
    ASSERT_GT(differ_f, 0) << "the operands were chosen so that fusing changes some results";
    ASSERT_GT(differ_d, 0) << "the operands were chosen so that fusing changes some results";
    for (const char *target : {"host-fp_contract", "x86-64-linux-sse41-fp_contract"}) {
        for (int lanes : {2, 4, 8, 16, 32}) {
            Var x("x");
            Func f("muladd_f32x" + std::to_string(lanes)), g("muladd_f64x" + std::to_string(lanes));
            f(x) = a(x) * b(x) + c(x);
            g(x) = ad(x) * bd(x) + cd(x);
            f.vectorize(x, lanes);
            g.vectorize(x, lanes);
            const Buffer<float> fused = f.realize({n}, Target(target));
            const Buffer<double> fused_d = g.realize({n}, Target(target));
            for (int i = 0; i < n; i++) {
                EXPECT_EQ(fused(i), std::fmaf(a(i), b(i), c(i))) << target << ", float x" << lanes << ", at " << i;
                EXPECT_EQ(fused_d(i), std::fma(ad(i), bd(i), cd(i))) << target << ", double x" << lanes << ", at " << i;
            }
        }
    }
    // The C names the instruction for the widths that have one, behind its feature test
    // (the JIT's C, in a cache of the test's own).
    const std::string cache = ::testing::TempDir() + "/fma-cache-" + std::to_string(::getpid());
    const char *previous = std::getenv("XDG_CACHE_HOME");
    const std::string saved = previous ? previous : "";
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    Var x("x");
    Func f("muladd_c");
    f(x) = a(x) * b(x) + c(x);
    f.vectorize(x, 16);
    f.realize({n}, Target("host-fp_contract"));
    std::stringstream code;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(cache))
        if (entry.path().extension() == ".c" && entry.path().filename().string().rfind("muladd_c", 0) == 0) {
            std::ifstream in(entry.path());
            code << in.rdbuf();
        }
    if (previous) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
    else ::unsetenv("XDG_CACHE_HOME");
    std::filesystem::remove_all(cache);
    ASSERT_NE(code.str().find("muladd_c"), std::string::npos) << "the JIT's C was not found in " << cache;
    EXPECT_NE(code.str().find("#if defined(__AVX512F__)"), std::string::npos) << code.str();
    EXPECT_NE(code.str().find("__builtin_ia32_vfmaddps512_mask(a, b, c, (unsigned short)-1, 4)"), std::string::npos);
    EXPECT_NE(code.str().find("__builtin_fmaf(a[15], b[15], c[15])"), std::string::npos) << "the fallback";
}
