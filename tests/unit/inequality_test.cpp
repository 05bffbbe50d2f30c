// Tests of conditions as inequalities (src/analysis/Inequality.h) and of the three users of
// that piece: the facts the simplifier learns inside an if, narrow_by_condition and
// nonnegative_difference (src/analysis/Interval.h).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/Inequality.h"
#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"

using namespace tessera;
using namespace tessera::ir;
using analysis::Comparison;
using analysis::Inequality;

namespace {

Expr var(const std::string &n, Type t = Int(32)) { return Variable::make(t, n); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }

const Expr x = var("x"), y = var("y"), z = var("z");

bool same_inequality(const Inequality &q, const Expr &lesser, const Expr &greater, int gap) {
    return equal(q.lesser, lesser) && equal(q.greater, greater) && q.gap == gap;
}

TEST(Inequality, ConjunctsLeftToRight) {
    const Expr a = LT::make(x, y), b = EQ::make(y, z), c = Or::make(LE::make(x, z), GT::make(x, i32(0)));
    const std::vector<Expr> parts = analysis::conjuncts(And::make(a, And::make(b, c)));
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_TRUE(parts[0].same_as(a));
    EXPECT_TRUE(parts[1].same_as(b));
    EXPECT_TRUE(parts[2].same_as(c));  // an || is one conjunct
    EXPECT_EQ(analysis::conjuncts(a).size(), 1u);
}

TEST(Inequality, EachComparisonInNormalForm) {
    Comparison c;
    ASSERT_TRUE(analysis::as_comparison(LT::make(x, y), c));
    ASSERT_EQ(c.count, 1);
    EXPECT_TRUE(same_inequality(c.inequalities[0], x, y, 1));  // x + 1 <= y
    ASSERT_TRUE(analysis::as_comparison(LE::make(x, y), c));
    EXPECT_TRUE(same_inequality(c.inequalities[0], x, y, 0));
    ASSERT_TRUE(analysis::as_comparison(GT::make(x, y), c));
    EXPECT_TRUE(same_inequality(c.inequalities[0], y, x, 1));  // y + 1 <= x
    ASSERT_TRUE(analysis::as_comparison(GE::make(x, y), c));
    EXPECT_TRUE(same_inequality(c.inequalities[0], y, x, 0));
    ASSERT_TRUE(analysis::as_comparison(EQ::make(x, y), c));
    ASSERT_EQ(c.count, 2);  // x <= y and y <= x
    EXPECT_TRUE(same_inequality(c.inequalities[0], x, y, 0));
    EXPECT_TRUE(same_inequality(c.inequalities[1], y, x, 0));
    EXPECT_TRUE(c.a.same_as(x) && c.b.same_as(y));
    // != states no inequality; a float a < b is not a + 1 <= b.
    EXPECT_FALSE(analysis::as_comparison(NE::make(x, y), c));
    const Expr f = var("f", Float(32)), g = var("g", Float(32));
    EXPECT_FALSE(analysis::as_comparison(LT::make(f, g), c));
    EXPECT_FALSE(analysis::as_comparison(var("p", Bool()), c));
}

TEST(Inequality, ComparisonsOfAConditionSkipTheOtherConjuncts) {
    const Expr cond = And::make(And::make(GE::make(x, i32(0)), var("p", Bool())), NE::make(x, y));
    const std::vector<Comparison> cs = analysis::comparisons_of(And::make(cond, LT::make(x, z)));
    ASSERT_EQ(cs.size(), 2u);
    EXPECT_TRUE(same_inequality(cs[0].inequalities[0], i32(0), x, 0));
    EXPECT_TRUE(same_inequality(cs[1].inequalities[0], x, z, 1));
}

TEST(Inequality, SlackIsTheNonNegativeDifference) {
    Comparison c;
    ASSERT_TRUE(analysis::as_comparison(LT::make(x, y), c));
    EXPECT_TRUE(equal(analysis::slack(c.inequalities[0]), Sub::make(Sub::make(y, x), i32(1))));
    // nonnegative_difference is the slack of an int32 ordering computed in int64, and
    // nothing else: variables are widened, constants become int64 constants.
    const auto wide = [](const Expr &e) { return Cast::make(Int(64), e); };
    EXPECT_TRUE(equal(analysis::nonnegative_difference(GT::make(x, y)),
                      Sub::make(Sub::make(wide(x), wide(y)), IntImm::make(Int(64), 1))));
    EXPECT_TRUE(equal(analysis::nonnegative_difference(LE::make(Add::make(x, i32(1000)), y)),
                      Sub::make(Sub::make(wide(y), Add::make(wide(x), IntImm::make(Int(64), 1000))),
                                IntImm::make(Int(64), 0))));
    // A constant no coordinate reaches makes the algorithm's own arithmetic, which wraps:
    // x + 2^31 - 1 is computed in int32 (x = 1 makes INT32_MIN), then widened.
    EXPECT_TRUE(equal(analysis::nonnegative_difference(LE::make(Add::make(x, i32(2147483647)), y)),
                      Sub::make(Sub::make(wide(y), wide(Add::make(x, i32(2147483647)))), IntImm::make(Int(64), 0))));
    EXPECT_TRUE(equal(analysis::nonnegative_difference(LT::make(Mul::make(x, i32(1 << 30)), i32(1))),
                      Sub::make(Sub::make(IntImm::make(Int(64), 1), wide(Mul::make(x, i32(1 << 30)))),
                                IntImm::make(Int(64), 1))));
    EXPECT_FALSE(analysis::nonnegative_difference(EQ::make(x, y)).defined());
    EXPECT_FALSE(analysis::nonnegative_difference(And::make(LT::make(x, y), LT::make(y, z))).defined());
    const Expr w = var("w", Int(64));
    EXPECT_FALSE(analysis::nonnegative_difference(LT::make(w, w)).defined());
}

TEST(Inequality, NarrowByConditionUsesEveryConjunct) {
    analysis::Scope scope;
    scope.push("x", analysis::Interval(i32(0), i32(100)));
    // 5 <= x && x < 10, the constant on either side.
    auto narrowed = analysis::narrow_by_condition(And::make(LE::make(i32(5), x), LT::make(x, i32(10))), scope);
    ASSERT_EQ(narrowed.size(), 1u);
    EXPECT_EQ(narrowed[0].first, "x");
    int64_t lo = 0, hi = 0;
    ASSERT_TRUE(narrowed[0].second.is_const(lo, hi)) << narrowed[0].second.min << ", " << narrowed[0].second.max;
    EXPECT_EQ(lo, 5);
    EXPECT_EQ(hi, 9);
    // An equality bounds both sides; a variable not in scope is not narrowed, and neither is
    // one compared with an expression that mentions it.
    scope.push("y", analysis::Interval(i32(20), i32(30)));
    narrowed = analysis::narrow_by_condition(And::make(EQ::make(x, y), LT::make(z, i32(3))), scope);
    ASSERT_EQ(narrowed.size(), 1u);
    ASSERT_TRUE(narrowed[0].second.is_const(lo, hi));
    EXPECT_EQ(lo, 20);
    EXPECT_EQ(hi, 30);
    EXPECT_TRUE(analysis::narrow_by_condition(LT::make(x, Add::make(x, i32(1))), scope).empty());
}

TEST(Inequality, TheSimplifierLearnsFromConjunctionsAndEqualities) {
    const Stmt store = Store::make("a", Div::make(x, i32(4)), Cast::make(Int(64), x), nullptr);
    // 8 <= x < 12 inside the if, so x / 4 is 2.
    Stmt s = analysis::simplify(IfThenElse::make(And::make(GE::make(x, i32(8)), LT::make(x, i32(12))), store));
    const auto *then = as<IfThenElse>(s);
    ASSERT_TRUE(then) << s;
    const auto *st = as<Store>(then->then_case);
    ASSERT_TRUE(st) << s;
    EXPECT_TRUE(equal(st->value, i32(2))) << s;
    // x == 5: x / 4 is 1.
    const Stmt div = Store::make("a", Div::make(x, i32(4)), Cast::make(Int(64), y), nullptr);
    s = analysis::simplify(IfThenElse::make(EQ::make(x, i32(5)), div));
    then = as<IfThenElse>(s);
    ASSERT_TRUE(then) << s;
    st = as<Store>(then->then_case);
    ASSERT_TRUE(st) << s;
    EXPECT_TRUE(equal(st->value, i32(1))) << s;
}

}  // namespace
