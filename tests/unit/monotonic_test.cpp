// analysis::monotonic_in: how an index expression moves with one variable.

#include <gtest/gtest.h>

#include "analysis/Monotonic.h"
#include "ir/IR.h"
#include "tessera/IROperator.h"

using namespace tessera;
using namespace tessera::ir;
using analysis::Monotonic;
using analysis::monotonic_in;

namespace {

Expr v(const char *n) { return Variable::make(Int(32), n); }
Expr c(int k) { return IntImm::make(Int(32), k); }

TEST(Monotonic, LinearAndClampedForms) {
    const Expr L = v("L"), a = v("a"), b = v("b");
    EXPECT_EQ(monotonic_in(a + c(3), "L"), Monotonic::Constant);
    EXPECT_EQ(monotonic_in(L, "L"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(a + L * c(32) + c(-3), "L"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(Min::make(a + L, b), "L"), Monotonic::Increasing);  // min(y0 + yi, y.max)
    EXPECT_EQ(monotonic_in(Max::make(Min::make(a + L, b) + c(3), a), "L"), Monotonic::Increasing);
    EXPECT_EQ(monotonic_in(a - L, "L"), Monotonic::Decreasing);
    EXPECT_EQ(monotonic_in(L * c(-2), "L"), Monotonic::Decreasing);
    EXPECT_EQ(monotonic_in(L * c(0), "L"), Monotonic::Constant);
    EXPECT_EQ(monotonic_in((L + a) / c(8), "L"), Monotonic::Increasing);
}

TEST(Monotonic, UnknownWhereTheDirectionCannotBeShown) {
    const Expr L = v("L"), a = v("a");
    EXPECT_EQ(monotonic_in(L - L * c(2) + L, "L"), Monotonic::Unknown);  // not simplified: mixed directions
    EXPECT_EQ(monotonic_in(L * a, "L"), Monotonic::Unknown);              // a's sign unknown
    EXPECT_EQ(monotonic_in(L % c(4), "L"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(a / L, "L"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(Select::make(LT::make(L, c(3)), L, c(0)), "L"), Monotonic::Unknown);
    EXPECT_EQ(monotonic_in(Select::make(LT::make(a, c(3)), L, L + c(1)), "L"), Monotonic::Increasing);
}

}  // namespace
