// In-range conversions: a float converted to an integer type is marked (Cast::in_range)
// where its value is known to be a number the type holds, so that the C converts it
// without saturating (src/lower/MarkInRangeConversions.cpp); the results stay the
// reference interpreter's; the IR interpreter checks the marks.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

#include <tessera/tessera.h>

#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "lower/Pipeline.h"
#include "semantics/IRInterpreter.h"
#include "support/differential.h"
#include "support/hand_lowered.h"

using namespace tessera;
using namespace tessera::ir;
using namespace tessera::testing::differential;
using ::testing::HasSubstr;

namespace {

/** The float-to-integer conversions of a statement, marked and not. */
struct Conversions : IRVisitor {
    int marked = 0, unmarked = 0;
    using IRVisitor::include;
    void visit(const Cast *op) override {
        if (op->value.type().is_float() && !op->type.is_float()) (op->in_range ? marked : unmarked)++;
        IRVisitor::visit(op);
    }
};

Conversions conversions_of(const Func &f) {
    Conversions c;
    c.include(lower::lower(f.data()).body);
    return c;
}

/** A float input with NaN, infinities, huge and ordinary values. */
Buffer<float> awkward_floats(int n) {
    Buffer<float> b(std::vector<int>{n}, "v");
    const float special[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity(), 3e9f, -3e9f, -0.0f, 255.49f, 255.5f, -0.99f};
    for (int i = 0; i < n; i++) b(i) = i < 9 ? special[i] : float(i * 37 % 300) - 20.0f + 0.25f * float(i % 4);
    return b;
}

}  // namespace

TEST(InRangeConversions, AClampedValueIsMarkedAndComputesTheSame) {
    const int n = 64;
    Buffer<float> v = awkward_floats(n);
    Var x("x");
    // uint8(clamp(v * 0.5 + 0.5, 0, 255)): [0, 255] whatever v is, NaN included (max(NaN, 0)
    // is 0); int32 of a clamp times 10 plus a half; both as vectors and as scalars.
    Func a("a"), b("b"), c("c");
    a(x) = cast<uint8_t>(clamp(v(x) * 0.5f + 0.5f, 0.0f, 255.0f));
    b(x) = cast<int32_t>(clamp(v(x), 0.0f, 1.0f) * 10.0f + 0.5f);
    c(x) = cast<int16_t>(floor(clamp(v(x), -100.0f, 100.0f) / 3.0f));
    a.vectorize(x, 8);
    b.vectorize(x, 8);
    for (Func f : {a, b, c}) {
        const Conversions k = conversions_of(f);
        EXPECT_EQ(k.unmarked, 0) << f.name();
        EXPECT_GE(k.marked, 1) << f.name();
        EXPECT_EQ(differential_check(f, {0}, {n}, false), "") << f.name();
    }
    // The C converts directly: no saturating helper, no saturating blends.
    const std::string file = ::testing::TempDir() + "/in_range_a.c";
    a.compile_to_c(file, {v});
    std::ifstream in(file);
    const std::string code((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(code.find("tessera_sat_"), std::string::npos) << code;
    EXPECT_NE(code.find("__builtin_convertvector("), std::string::npos) << code;
}

TEST(InRangeConversions, ValuesThatMaySaturateAreNotMarked) {
    const int n = 64;
    Buffer<float> v = awkward_floats(n);
    Var x("x");
    std::vector<Func> funcs;
    auto add = [&](const std::string &name, Expr e) {
        Func f(name);
        f(x) = e;
        f.vectorize(x, 8);
        funcs.push_back(f);
    };
    add("unclamped", cast<int32_t>(v(x)));                                       // anything, NaN too
    add("past_the_top", cast<uint8_t>(clamp(v(x), 0.0f, 256.0f)));               // 256 does not fit
    add("below_zero", cast<uint8_t>(clamp(v(x), -1.0f, 255.0f)));                // -1 does not fit
    add("one_side", cast<int32_t>(min(v(x), 100.0f)));                           // down to -inf
    add("nan_first", cast<int32_t>(max(0.0f, min(1.0f, v(x)))));                 // min(1, NaN) is NaN
    add("zero_times_inf", cast<int32_t>(clamp(max(v(x), 0.0f) * 0.0f, -1.0f, 1.0f) + max(v(x), 0.0f) * 0.0f));
    add("divisor_with_zero", cast<int32_t>(clamp(v(x), 1.0f, 2.0f) / clamp(v(x), -1.0f, 1.0f)));
    // An int32 as a float32 reaches 2^31 (2^31 - 1 rounds up), past int32: found by the
    // schedule fuzzer (seed 14100332).
    Buffer<int32_t> big(std::vector<int>{n}, "big");
    for (int i = 0; i < n; i++) big(i) = i % 2 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int32_t>::min() + i;
    add("int32_as_float", cast<int32_t>(max(Expr(-7.0f), cast<float>(big(x)))));
    for (const Func &f : funcs) {
        const Conversions k = conversions_of(f);
        EXPECT_EQ(k.marked, 0) << f.name();
        EXPECT_EQ(differential_check(f, {0}, {n}, false), "") << f.name();
    }
    // The ends just inside the type are marked: [-0.99, 255.99] truncates into uint8.
    Func edge("edge");
    edge(x) = cast<uint8_t>(clamp(v(x), -0.99f, 255.99f));
    EXPECT_EQ(conversions_of(edge).unmarked, 0);
    EXPECT_EQ(differential_check(edge, {0}, {n}, false), "");
}

TEST(InRangeConversions, TheInterpreterChecksTheMarks) {
    // out[x] = int32(1e10f), marked in range by hand: the IR interpreter reports it.
    Func f("f");
    Var x("x");
    f(x) = 0;
    const Expr wrong = Cast::make(Int(32), FloatImm::make(Float(32), 1e10), true);
    const ir::LoweredPipeline p =
        test::store_loop_pipeline(f.data(), wrong, Cast::make(Int(64), Variable::make(Int(32), "x")), 4);
    Buffer<int32_t> b(std::vector<int>{4});
    try {
        semantics::run(p, semantics::default_arguments(p, b.data_handle()));
        FAIL() << "no error";
    } catch (const InternalError &e) {
        EXPECT_THAT(e.what(), HasSubstr("(marked as in range) converts 10000000000"));
    }
}
