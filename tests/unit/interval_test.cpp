// Tests of the interval analysis (bounds_of_expr, unions, const_bounds): specific cases,
// tightness on the affine patterns of tiled loops, and a randomized soundness property:
// for random expressions and random constant intervals of their variables, every value
// the expression takes at random points inside the intervals lies inside the computed
// bounds.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <tessera/Param.h>

#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/Function.h"
#include "ir/Scalar.h"

using namespace tessera;
using namespace tessera::ir;
using analysis::bounds_of_expr;
using analysis::Interval;
using analysis::Scope;
using ir::Scalar;

namespace {

// Longer runs: TESSERA_PROPERTY_SCALE=N multiplies the number of cases and
// TESSERA_PROPERTY_SEED=S changes the random seeds, e.g.
//   TESSERA_PROPERTY_SCALE=50 TESSERA_PROPERTY_SEED=7 tessera_tests --gtest_filter='Interval.Randomized*'
int property_scale() {
    const char *s = std::getenv("TESSERA_PROPERTY_SCALE");
    return s ? std::max(1, std::atoi(s)) : 1;
}
uint64_t property_seed(uint64_t base) {
    const char *s = std::getenv("TESSERA_PROPERTY_SEED");
    return s ? base ^ (uint64_t(std::strtoull(s, nullptr, 10)) * 0x9e3779b97f4a7c15ull) : base;
}

Expr var(const std::string &n, Type t = Int(32)) { return Variable::make(t, n); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }
Expr u8(uint64_t v) { return UIntImm::make(UInt(8), v); }
Expr add(Expr a, Expr b) { return Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return Mul::make(std::move(a), std::move(b)); }
Expr div(Expr a, Expr b) { return Div::make(std::move(a), std::move(b)); }
Expr mod(Expr a, Expr b) { return Mod::make(std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return Min::make(std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return Max::make(std::move(a), std::move(b)); }

Interval range(int64_t lo, int64_t hi, Type t = Int(32)) {
    auto c = [&](int64_t v) -> Expr {
        if (t.is_int()) return IntImm::make(t, v);
        return UIntImm::make(t, uint64_t(v));
    };
    return Interval(c(lo), c(hi));
}

void expect_const(const Interval &i, int64_t lo, int64_t hi, const std::string &what) {
    int64_t l, h;
    ASSERT_TRUE(i.is_const(l, h)) << what << ": [" << i.min << ", " << i.max << "]";
    EXPECT_EQ(l, lo) << what;
    EXPECT_EQ(h, hi) << what;
}

#define EXPECT_BOUNDS(e, scope, lo, hi)                                              \
    do {                                                                             \
        Expr e_ = (e);                                                               \
        expect_const(bounds_of_expr(e_, scope), lo, hi, ir::to_string(e_));          \
    } while (0)

void expect_interval(const Interval &i, const Expr &lo, const Expr &hi, const std::string &what) {
    EXPECT_TRUE(equal(i.min, lo)) << what << ": min " << i.min << ", expected " << lo;
    EXPECT_TRUE(equal(i.max, hi)) << what << ": max " << i.max << ", expected " << hi;
}

const Expr x = var("x"), y = var("y");

TEST(Interval, Affine) {
    Scope s;
    s.push("x", range(0, 9));
    EXPECT_BOUNDS(add(x, i32(3)), s, 3, 12);
    EXPECT_BOUNDS(sub(x, i32(3)), s, -3, 6);
    EXPECT_BOUNDS(add(mul(x, i32(4)), i32(1)), s, 1, 37);
    EXPECT_BOUNDS(mul(x, i32(-2)), s, -18, 0);
    EXPECT_BOUNDS(sub(i32(10), x), s, 1, 10);
    EXPECT_BOUNDS(sub(x, x), s, 0, 0);  // the same value on both sides
    EXPECT_BOUNDS(sub(x, add(x, i32(0))), s, -9, 9);  // not recognized: sound, not tight
    // Variables not in scope stand for themselves.
    Expr xo = var("xo");
    Scope t;
    t.push("xi", range(0, 7));
    Interval i = bounds_of_expr(add(mul(xo, i32(8)), var("xi")), t);
    expect_interval(i, mul(xo, i32(8)), add(mul(xo, i32(8)), i32(7)), "tile");
    // A stencil over the tile.
    Interval j = bounds_of_expr(add(add(mul(xo, i32(8)), var("xi")), i32(-1)), t);
    expect_interval(j, add(mul(xo, i32(8)), i32(-1)), add(mul(xo, i32(8)), i32(6)), "stencil");
    // Symbolic interval endpoints.
    Scope u;
    u.push("x", Interval(var("a"), var("b")));
    expect_interval(bounds_of_expr(add(x, i32(1)), u), add(var("a"), i32(1)), add(var("b"), i32(1)), "x + 1");
    expect_interval(bounds_of_expr(mul(x, i32(3)), u), mul(var("a"), i32(3)), mul(var("b"), i32(3)), "x * 3");
    expect_interval(bounds_of_expr(div(x, i32(2)), u), div(var("a"), i32(2)), div(var("b"), i32(2)), "x / 2");
    expect_interval(bounds_of_expr(mul(x, i32(-1)), u), mul(var("b"), i32(-1)), mul(var("a"), i32(-1)), "-x");
}

TEST(Interval, ClampsAndMinMax) {
    Scope s;
    s.push("x", range(0, 200));
    s.push("y", range(5, 20));
    EXPECT_BOUNDS(min(max(add(x, i32(1)), i32(0)), i32(99)), s, 1, 99);
    EXPECT_BOUNDS(min(x, y), s, 0, 20);
    EXPECT_BOUNDS(max(x, y), s, 5, 200);
    EXPECT_BOUNDS(min(max(sub(x, i32(500)), i32(0)), i32(99)), s, 0, 0);
    // Clamp of an unbounded value: exactly [min(lo, hi), hi] (clamp with lo > hi is hi).
    Scope u;
    u.push("x", Interval::everything());
    Expr w = var("w");
    Interval c = bounds_of_expr(min(max(x, i32(0)), sub(w, i32(1))), u);
    expect_interval(c, min(add(w, i32(-1)), i32(0)), add(w, i32(-1)), "clamp");
    // Clamp with constant bounds of an unbounded value.
    EXPECT_BOUNDS(min(max(x, i32(-3)), i32(17)), u, -3, 17);
    // min/max of affine terms over a tile.
    Scope t;
    t.push("xi", range(0, 7));
    Expr xo = var("xo"), xi = var("xi");
    Interval m = bounds_of_expr(min(add(mul(xo, i32(8)), xi), i32(100)), t);
    expect_interval(m, min(mul(xo, i32(8)), i32(100)), min(add(mul(xo, i32(8)), i32(7)), i32(100)), "min");
}

TEST(Interval, DivisionAndModulo) {
    Scope s;
    s.push("x", range(-5, 17));
    s.push("y", range(1, 4));
    EXPECT_BOUNDS(div(x, i32(4)), s, -2, 4);
    EXPECT_BOUNDS(div(x, i32(-4)), s, -4, 2);
    EXPECT_BOUNDS(div(x, i32(0)), s, 0, 0);
    EXPECT_BOUNDS(div(x, y), s, -5, 17);
    EXPECT_BOUNDS(mod(x, i32(8)), s, 0, 7);
    EXPECT_BOUNDS(mod(x, i32(-8)), s, 0, 7);
    EXPECT_BOUNDS(mod(x, y), s, 0, 3);
    Scope t;
    t.push("x", range(10, 13));
    EXPECT_BOUNDS(mod(x, i32(8)), t, 2, 5);
    EXPECT_BOUNDS(div(x, i32(8)), t, 1, 1);
    // A divisor not in scope: |x / z| <= |x|.
    EXPECT_BOUNDS(div(x, var("z")), s, -17, 17);
    // Modulo by a positive symbolic range.
    Scope v;
    v.push("y", Interval(i32(1), var("n")));
    Interval m = bounds_of_expr(mod(var("q"), y), v);
    expect_interval(m, i32(0), add(var("n"), i32(-1)), "q % y");
}

TEST(Interval, DivisionByAParamWithAPositiveRange) {
    // The range is asserted at entry, so x / s is non-decreasing in x: the region of
    // f(x / s) is [x.min / s, x.max / s], not [-|x|, |x|] (a bilateral grid's cells).
    Param<int> s("s", 8), free_s("free_s", 8);
    s.set_range(2, 64);
    Scope sc;
    sc.push("x", Interval(var("lo"), var("hi")));
    const Expr ps = s, pf = free_s;
    expect_interval(bounds_of_expr(div(x, ps), sc), div(var("lo"), ps), div(var("hi"), ps), "x / s");
    // Without a range (or with one that reaches 0) the divisor may be anything.
    const Interval loose = bounds_of_expr(div(x, pf), sc);
    EXPECT_FALSE(loose.min.defined() && equal(loose.min, div(var("lo"), pf)));
    Param<int> z("z", 1);
    z.set_range(0, 4);
    const Expr pz = z;
    EXPECT_FALSE(equal(bounds_of_expr(div(x, pz), sc).min, div(var("lo"), pz)));
}

TEST(Interval, AShiftLeftByTheWidthOrMoreIsZero) {
    // docs/semantics.md §2: `a << k` is 0 for k >= the type's bits, whatever a is. The
    // simplifier knows it and drops a clamp of such a value, so the interval must too
    // (a fuzzed pipeline's input check once demanded rows [-5, 255] of a 10-row image).
    Scope any_x;
    any_x.push("x", Interval::everything());
    const Expr shifted = Call::make_intrinsic(UInt(8), Intrinsic::ShiftLeft, {Cast::make(UInt(8), x), u8(49)});
    EXPECT_BOUNDS(shifted, any_x, 0, 0);
    EXPECT_BOUNDS(Cast::make(Int(32), shifted), any_x, 0, 0);
    const Expr by8 = Call::make_intrinsic(UInt(8), Intrinsic::ShiftLeft, {Cast::make(UInt(8), x), u8(8)});
    EXPECT_BOUNDS(by8, any_x, 0, 0);
    const Expr by7 = Call::make_intrinsic(UInt(8), Intrinsic::ShiftLeft, {Cast::make(UInt(8), x), u8(7)});
    EXPECT_BOUNDS(by7, any_x, 0, 255);  // wraps: the type's range
}

TEST(Interval, Select) {
    Scope s;
    s.push("x", range(0, 5));
    Expr c = var("c", Bool());
    EXPECT_BOUNDS(Select::make(c, x, add(x, i32(10))), s, 0, 15);
    EXPECT_BOUNDS(Select::make(LT::make(x, i32(10)), x, i32(1000)), s, 0, 5);  // the condition is decided
}

TEST(Interval, Casts) {
    Scope s;
    s.push("x", range(0, 300));
    s.push("y", range(0, 200));
    EXPECT_BOUNDS(Cast::make(UInt(8), x), s, 0, 255);
    EXPECT_BOUNDS(Cast::make(UInt(8), y), s, 0, 200);
    Scope any_b;
    any_b.push("b", Interval::everything());
    EXPECT_BOUNDS(Cast::make(Int(32), var("b", UInt(8))), any_b, 0, 255);
    // Not in scope: the point [int32(b), int32(b)], which is exact.
    EXPECT_TRUE(bounds_of_expr(Cast::make(Int(32), var("b", UInt(8))), Scope()).is_single_point());
    EXPECT_BOUNDS(Cast::make(Int(8), y), s, -128, 127);  // 200 does not fit int8
    EXPECT_BOUNDS(Cast::make(Int(32), Cast::make(Float(32), y)), s, 0, 200);
    // A narrow cast of a symbolic int32: the type's range.
    Scope q;
    q.push("q", Interval(var("a"), var("b")));
    EXPECT_BOUNDS(Cast::make(Int(16), add(var("q"), i32(1))), q, -32768, 32767);
    // Widening keeps symbolic endpoints.
    Scope t;
    t.push("x", Interval(var("a"), var("b")));
    expect_interval(bounds_of_expr(Cast::make(Int(64), x), t), Cast::make(Int(64), var("a")),
                    Cast::make(Int(64), var("b")), "widen");
    // float -> int saturates.
    Expr f = var("f", Float(32));
    EXPECT_BOUNDS(Cast::make(UInt(8), Select::make(var("c", Bool()), f, FloatImm::make(Float(32), 1.0))), Scope(), 0,
                  255);
}

TEST(Interval, NarrowTypesWrap) {
    Expr b = var("b", UInt(8));
    Scope s;
    s.push("b", range(0, 255, UInt(8)));
    EXPECT_BOUNDS(add(b, u8(1)), s, 0, 255);  // 255 + 1 wraps to 0
    Scope t;
    t.push("b", range(0, 100, UInt(8)));
    EXPECT_BOUNDS(add(b, u8(1)), t, 1, 101);
    EXPECT_BOUNDS(mul(b, u8(3)), t, 0, 255);  // 300 wraps
    EXPECT_BOUNDS(sub(b, u8(1)), t, 0, 255);  // 0 - 1 wraps
    // A point stays a point, even when it could wrap: [b + 1, b + 1] is exact.
    Interval p = bounds_of_expr(add(b, u8(1)), Scope());
    EXPECT_TRUE(p.is_single_point());
    // A non-point symbolic uint8 interval + 1 could wrap: the full range.
    Scope u;
    u.push("b", Interval(var("lo", UInt(8)), var("hi", UInt(8))));
    EXPECT_BOUNDS(add(b, u8(1)), u, 0, 255);
    // int16 products.
    Expr h = var("h", Int(16));
    Scope w;
    w.push("h", range(-200, 200, Int(16)));
    EXPECT_BOUNDS(mul(h, h), w, -32768, 32767);  // 40000 does not fit
    Scope w2;
    w2.push("h", range(-100, 100, Int(16)));
    EXPECT_BOUNDS(mul(h, h), w2, 0, 10000);
}

TEST(Interval, Int32OverflowOfConstantsIsDetected) {
    Scope s;
    s.push("x", range(0, INT32_MAX));
    Interval i = bounds_of_expr(add(x, i32(1)), s);
    EXPECT_TRUE(i.is_everything()) << i.min << " " << i.max;
    s.push("x", range(INT32_MIN, 0));
    EXPECT_TRUE(bounds_of_expr(mul(x, i32(-1)), s).is_everything());  // -INT32_MIN wraps
    EXPECT_TRUE(bounds_of_expr(div(x, i32(-1)), s).is_everything());
}

TEST(Interval, SymbolicArithmeticBeyondTheCoordinatesIsUnbounded) {
    // Symbolic endpoints are taken for integers only in coordinate arithmetic. A constant
    // endpoint no coordinate reaches (2^30 or more in magnitude) makes the symbolic result
    // one that could wrap where it is evaluated: int32(f(r)) saturated to [INT32_MIN, -1]
    // times a parameter p has the "bounds" p * INT32_MIN and p * INT32_MAX, which wrap to
    // 0 and -2 for p = 2 while the product is anywhere.
    const Expr p = var("p");
    Scope s;
    s.push("z", range(INT32_MIN, -1));
    s.push("y", Interval(i32(0), p));
    EXPECT_TRUE(bounds_of_expr(mul(var("z"), p), s).is_everything());
    EXPECT_TRUE(bounds_of_expr(add(var("z"), p), s).is_everything());
    EXPECT_TRUE(bounds_of_expr(sub(p, var("z")), s).is_everything());
    EXPECT_TRUE(bounds_of_expr(mul(y, i32(1 << 30)), s).is_everything());
    EXPECT_TRUE(bounds_of_expr(add(y, i32(-(1 << 30))), s).is_everything());
    // Clamped, the index is bounded by its clamp, as the algorithm must bound it.
    EXPECT_BOUNDS(min(max(mul(var("z"), p), i32(-1)), i32(4)), s, -1, 4);
    // Coordinate arithmetic keeps its symbolic bounds; constant results are exact.
    expect_interval(bounds_of_expr(mul(y, i32((1 << 30) - 1)), s), i32(0), mul(p, i32((1 << 30) - 1)), "y * (2^30 - 1)");
    EXPECT_BOUNDS(add(var("z"), i32(1 << 30)), s, INT32_MIN + (1 << 30), (1 << 30) - 1);
    // int64: the same beyond 2^62.
    Scope w;
    w.push("v", Interval(IntImm::make(Int(64), 0), var("q", Int(64))));
    EXPECT_TRUE(bounds_of_expr(add(var("v", Int(64)), IntImm::make(Int(64), INT64_MIN + 1)), w).is_everything());
    expect_interval(bounds_of_expr(add(var("v", Int(64)), IntImm::make(Int(64), int64_t(1) << 40)), w),
                    IntImm::make(Int(64), int64_t(1) << 40), add(var("q", Int(64)), IntImm::make(Int(64), int64_t(1) << 40)),
                    "v + 2^40");
}

TEST(Interval, TruncatingAValueMovedByACoordinateIsUnbounded) {
    // int32(int64(v) - int64(x)) with v any int32 (a Func's value) and x in [0, p]: the
    // int64 endpoints INT32_MIN - p and INT32_MAX lie outside int32, and truncation wraps
    // them; a coordinate's int64 -> int32 keeps its endpoints.
    const Expr p = var("p");
    Scope s;
    s.push("v", range(INT32_MIN, INT32_MAX));
    s.push("x", Interval(i32(0), p));
    const Expr moved = Cast::make(Int(32), Sub::make(Cast::make(Int(64), var("v")), Cast::make(Int(64), var("x"))));
    EXPECT_TRUE(bounds_of_expr(moved, s).is_everything()) << to_string(moved);
    const Expr coordinate = Cast::make(Int(32), Add::make(Cast::make(Int(64), var("x")), IntImm::make(Int(64), 3)));
    expect_interval(bounds_of_expr(coordinate, s), i32(3),
                    Cast::make(Int(32), Add::make(Cast::make(Int(64), p), IntImm::make(Int(64), 3))), "int32(int64(x) + 3)");
}

TEST(Interval, TruncatingAConvertedValueIsUnbounded) {
    // int32(select(c, int64(p), 0)) with p a Param<double>: int64(p) is a point, so the
    // select's int64 endpoints are min(int64(p), 0) and max(int64(p), 0); p = 1e300
    // converts to INT64_MAX, which truncates to -1, below the "upper bound" int32(max(..)).
    // The same from a float, a uint32 or a uint64 value; int64 of an int32 coordinate
    // keeps its bounds.
    const Expr c = Variable::make(Bool(), "c");
    auto truncated_select = [&](const Expr &value) {
        return Cast::make(Int(32), Select::make(c, Cast::make(Int(64), value), IntImm::make(Int(64), 0)));
    };
    Scope s;
    for (Type t : {Float(64), Float(32), UInt(32), UInt(64)}) {
        const Expr e = truncated_select(Variable::make(t, "p"));
        EXPECT_TRUE(bounds_of_expr(e, s).is_everything()) << to_string(e);
    }
    const Expr coordinate = truncated_select(Variable::make(Int(32), "q"));
    const Interval i = bounds_of_expr(coordinate, s);
    EXPECT_TRUE(i.is_bounded()) << to_string(coordinate);
}

TEST(Interval, DependencyProblem) {
    // x*x + x on [-1, 1] takes values in [-1/4, 2] over the reals and {0, 2} over the
    // integers; interval arithmetic cannot see that both x are the same value, so it
    // returns a sound superset.
    Scope s;
    s.push("x", range(-1, 1));
    Interval i = bounds_of_expr(add(mul(x, x), x), s);
    int64_t lo, hi;
    ASSERT_TRUE(i.is_const(lo, hi));
    EXPECT_LE(lo, -1);  // contains [-1/4, 2]
    EXPECT_GE(hi, 2);
    EXPECT_EQ(lo, -1);  // x*x is known to be a square: [0, 1], so exactly [-1, 2]
    EXPECT_EQ(hi, 2);
    // The general product of two different variables uses the four corners.
    Scope t;
    t.push("x", range(-3, 2));
    t.push("y", range(-5, 4));
    EXPECT_BOUNDS(mul(x, y), t, -12, 15);
}

TEST(Interval, FuncCallsAndLoads) {
    auto f8 = std::make_shared<FunctionData>();
    f8->name = "f8";
    f8->type = UInt(8);
    auto f32 = std::make_shared<FunctionData>();
    f32->name = "f32";
    f32->type = Int(32);
    auto fb = std::make_shared<FunctionData>();
    fb->name = "fb";
    fb->type = Bool();
    auto call = [](const std::shared_ptr<FunctionData> &f) {
        auto c = std::make_shared<Call>(f->type, f->name, std::vector<Expr>{i32(0)}, CallKind::Func);
        c->func = f;
        return Expr(std::shared_ptr<const ExprNode>(std::move(c)));
    };
    EXPECT_BOUNDS(call(f8), Scope(), 0, 255);
    EXPECT_BOUNDS(call(fb), Scope(), 0, 1);
    EXPECT_TRUE(bounds_of_expr(call(f32), Scope()).is_everything());
    EXPECT_BOUNDS(min(max(call(f32), i32(0)), i32(255)), Scope(), 0, 255);  // a clamped index
    EXPECT_BOUNDS(Load::make(Int(16), "buf", IntImm::make(Int(64), 0)), Scope(), -32768, 32767);
    EXPECT_BOUNDS(add(Cast::make(Int(32), call(f8)), i32(1)), Scope(), 1, 256);
}

TEST(Interval, LetsAndVectors) {
    Scope s;
    s.push("x", range(0, 10));
    Expr t = var("t");
    EXPECT_BOUNDS(Let::make("t", mul(x, i32(2)), add(t, i32(1))), s, 1, 21);
    // A symbolic let value is kept as a let in the endpoints, not copied.
    Scope u;
    u.push("x", Interval(var("a"), var("b")));
    Interval li = bounds_of_expr(Let::make("t", mul(x, i32(2)), add(mul(t, i32(3)), t)), u);
    ASSERT_TRUE(li.is_bounded());
    // Ramps and broadcasts cover every lane.
    EXPECT_BOUNDS(Ramp::make(x, i32(2), 4), s, 0, 16);
    EXPECT_BOUNDS(Ramp::make(x, i32(-1), 4), s, -3, 10);
    EXPECT_BOUNDS(Broadcast::make(x, 8), s, 0, 10);
    EXPECT_BOUNDS(add(Ramp::make(x, i32(1), 4), Broadcast::make(i32(5), 4)), s, 5, 18);
}

TEST(Interval, UnionIntersectBox) {
    Interval a = range(0, 10), b = range(5, 20);
    expect_const(analysis::interval_union(a, b), 0, 20, "union");
    expect_const(analysis::intersect(a, b), 5, 10, "intersect");
    Interval half(i32(3), Expr());
    Interval u = analysis::interval_union(a, half);
    EXPECT_TRUE(u.has_lower_bound() && !u.has_upper_bound());
    Interval n = analysis::intersect(a, half);
    expect_const(n, 3, 10, "intersect half");
    analysis::Box b1 = {range(0, 1), range(10, 20)}, b2 = {range(-5, 0), range(15, 30)};
    analysis::Box bu = analysis::box_union(b1, b2);
    ASSERT_EQ(bu.size(), 2u);
    expect_const(bu[0], -5, 1, "box 0");
    expect_const(bu[1], 10, 30, "box 1");
    EXPECT_EQ(analysis::box_union(analysis::Box(), b1).size(), 2u);
    // Symbolic union simplifies.
    Interval s1(var("a"), var("b")), s2(var("a"), add(var("b"), i32(1)));
    Interval su = analysis::interval_union(s1, s2);
    EXPECT_TRUE(equal(su.min, var("a")));
}

TEST(Interval, ConstBounds) {
    int64_t lo, hi;
    ASSERT_TRUE(analysis::const_bounds(mod(x, i32(8)), lo, hi));
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 7);
    ASSERT_TRUE(analysis::const_bounds(add(x, i32(1)), lo, hi));
    EXPECT_EQ(lo, INT32_MIN);  // may wrap: the type's range
    EXPECT_EQ(hi, INT32_MAX);
    analysis::ConstBoundsScope sc;
    sc["x"] = {0, 100};
    ASSERT_TRUE(analysis::const_bounds(add(mul(x, i32(2)), i32(1)), sc, lo, hi));
    EXPECT_EQ(lo, 1);
    EXPECT_EQ(hi, 201);
    ASSERT_TRUE(analysis::const_bounds(Cast::make(UInt(8), add(x, i32(200))), sc, lo, hi));
    EXPECT_EQ(lo, 0);
    EXPECT_EQ(hi, 255);
    EXPECT_FALSE(analysis::const_bounds(var("f", Float(32)), lo, hi));
    EXPECT_FALSE(analysis::const_bounds(var("u", UInt(64)), lo, hi));  // 2^64 - 1 is not an int64
}

// =======================================================================================
// Randomized soundness

Scalar eval(const Expr &e, std::vector<std::pair<std::string, Scalar>> &env) {
    auto bin = [&](ExprKind k, const Expr &a, const Expr &b) {
        Scalar p = eval(a, env), q = eval(b, env);
        return ir::binary(k, a.type(), p, q);
    };
    switch (e->kind) {
    case ExprKind::IntImm: return ir::make_int(as<IntImm>(e)->value);
    case ExprKind::UIntImm: return ir::make_uint(as<UIntImm>(e)->value);
    case ExprKind::FloatImm: return ir::make_float(as<FloatImm>(e)->value);
    case ExprKind::Variable:
        for (auto it = env.rbegin(); it != env.rend(); ++it)
            if (it->first == as<Variable>(e)->name) return it->second;
        ADD_FAILURE() << "unbound " << as<Variable>(e)->name;
        return ir::make_int(0);
    case ExprKind::Cast:
        return ir::cast(e.type(), as<Cast>(e)->value.type(), eval(as<Cast>(e)->value, env));
#define BIN(N) \
    case ExprKind::N: return bin(ExprKind::N, as<N>(e)->a, as<N>(e)->b);
        BIN(Add) BIN(Sub) BIN(Mul) BIN(Div) BIN(Mod) BIN(Min) BIN(Max) BIN(EQ) BIN(NE) BIN(LT) BIN(LE) BIN(GT)
        BIN(GE) BIN(And) BIN(Or)
#undef BIN
    case ExprKind::Not: return ir::make_uint(eval(as<Not>(e)->a, env).u ? 0 : 1);
    case ExprKind::Select: {
        const auto *s = as<Select>(e);
        Scalar c = eval(s->condition, env), a = eval(s->true_value, env), b = eval(s->false_value, env);
        return c.u ? a : b;
    }
    case ExprKind::Let: {
        const auto *l = as<Let>(e);
        env.emplace_back(l->name, eval(l->value, env));
        Scalar r = eval(l->body, env);
        env.pop_back();
        return r;
    }
    case ExprKind::Call: {
        const auto *c = as<Call>(e);
        std::vector<Type> types;
        std::vector<Scalar> vals;
        for (const Expr &a : c->args) {
            types.push_back(a.type());
            vals.push_back(eval(a, env));
        }
        return ir::normalize(c->type, ir::intrinsic(c->op, c->type, types.data(), vals.data(),
                                                                   int(vals.size())));
    }
    default: ADD_FAILURE() << "cannot evaluate " << e; return ir::make_int(0);
    }
}

const std::vector<Type> kIntTypes = {Int(8), Int(16), Int(32), Int(32), Int(32), Int(64),
                                     UInt(8), UInt(16), UInt(32), UInt(64)};

__extension__ typedef __int128 i128;

i128 tmin(Type t) { return t.is_int() ? -(i128(1) << (t.bits - 1)) : 0; }
i128 tmax(Type t) { return t.is_int() ? (i128(1) << (t.bits - 1)) - 1 : t.is_bool() ? 1 : (i128(1) << t.bits) - 1; }

i128 as128(Type t, Scalar v) { return t.is_int() ? i128(v.i) : i128(v.u); }

Scalar from128(Type t, i128 v) {
    return t.is_int() ? ir::make_int(int64_t(v)) : ir::make_uint(uint64_t(v));
}

class RandomBounds {
public:
    explicit RandomBounds(uint64_t seed) : rng_(seed) {}
    std::mt19937_64 rng_;
    int pick(int n) { return int(rng_() % uint64_t(n)); }
    bool chance(int p) { return pick(100) < p; }

    struct VarRange {
        std::string name;
        Type type;
        i128 lo, hi;
    };
    std::vector<VarRange> vars;
    std::vector<std::pair<std::string, Type>> lets;
    int counter = 0;

    i128 random_in(i128 lo, i128 hi) {
        if (lo == hi) return lo;
        unsigned __int128 span = static_cast<unsigned __int128>(hi - lo) + 1;
        unsigned __int128 r = (static_cast<unsigned __int128>(rng_()) << 64) | rng_();
        return lo + i128(r % span);
    }

    /** A random constant interval inside the type: small, near an edge, or wide. */
    void make_vars() {
        vars.clear();
        for (Type t : {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)}) {
            for (char c : {'x', 'y'}) {
                i128 lo, hi;
                switch (pick(5)) {
                case 0: lo = hi = random_in(std::max<i128>(tmin(t), -20), std::min<i128>(tmax(t), 20)); break;
                case 1:
                    lo = random_in(std::max<i128>(tmin(t), -50), std::min<i128>(tmax(t), 50));
                    hi = lo + pick(40);
                    break;
                case 2:
                    hi = tmax(t) - pick(3);
                    lo = hi - pick(50);
                    break;
                case 3:
                    lo = tmin(t) + pick(3);
                    hi = lo + pick(50);
                    break;
                default:
                    lo = random_in(tmin(t), tmax(t));
                    hi = random_in(tmin(t), tmax(t));
                    if (lo > hi) std::swap(lo, hi);
                    break;
                }
                hi = std::min(hi, tmax(t));
                lo = std::max(lo, tmin(t));
                vars.push_back({std::string(1, c) + "_" + t.to_string(), t, lo, hi});
            }
        }
    }

    Expr constant(Type t) {
        if (t.is_float()) {
            static const double fs[] = {0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 100.0, 1e9};
            return FloatImm::make(t, fs[pick(8)]);
        }
        if (t.is_bool()) return UIntImm::make(t, rng_() & 1);
        i128 v;
        switch (pick(6)) {
        case 0: v = tmin(t); break;
        case 1: v = tmax(t); break;
        case 2: v = i128(1) << pick(t.bits - (t.is_int() ? 1 : 0)); break;
        case 3: v = random_in(tmin(t), tmax(t)); break;
        default: v = pick(33) - 16; break;
        }
        v = std::max(std::min(v, tmax(t)), tmin(t));
        if (t.is_int()) return IntImm::make(t, int64_t(v));
        return UIntImm::make(t, uint64_t(v));
    }

    Expr leaf(Type t) {
        if (t.is_integer() && chance(70)) {
            std::vector<std::string> names;
            for (const auto &v : vars)
                if (v.type == t) names.push_back(v.name);
            for (const auto &l : lets)
                if (l.second == t) names.push_back(l.first);
            if (!names.empty()) return Variable::make(t, names[pick(int(names.size()))]);
        }
        return constant(t);
    }

    Type int_type() { return kIntTypes[pick(int(kIntTypes.size()))]; }

    Expr gen(Type t, int depth) {
        if (depth <= 0 || chance(20)) return leaf(t);
        if (t.is_bool()) {
            Type s = int_type();
            Expr a = gen(s, depth - 1), b = gen(s, depth - 1);
            switch (pick(5)) {
            case 0: return LT::make(a, b);
            case 1: return LE::make(a, b);
            case 2: return EQ::make(a, b);
            case 3: return And::make(gen(t, depth - 1), Not::make(gen(t, depth - 1)));
            default: return Or::make(gen(t, depth - 1), GT::make(a, b));
            }
        }
        if (t.is_float()) {
            switch (pick(4)) {
            case 0: return Cast::make(t, gen(int_type(), depth - 1));
            case 1: return Add::make(gen(t, depth - 1), gen(t, depth - 1));
            case 2: return Mul::make(gen(t, depth - 1), constant(t));
            default: return Select::make(gen(Bool(), depth - 1), gen(t, depth - 1), gen(t, depth - 1));
            }
        }
        auto sub = [&] { return gen(t, depth - 1); };
        auto small = [&] {
            static const int64_t ks[] = {1, 2, 3, 4, 7, 8, 16, -1, -2, -8, 0};
            int64_t k = ks[pick(11)];
            if (t.is_uint() && k < 0) k = -k;
            return t.is_int() ? IntImm::make(t, k) : UIntImm::make(t, uint64_t(k));
        };
        switch (pick(20)) {
        case 0: case 1: return Add::make(sub(), chance(50) ? small() : sub());
        case 2: return Sub::make(sub(), chance(50) ? small() : sub());
        case 3: return Mul::make(sub(), chance(60) ? small() : sub());
        case 4: {
            Expr e = sub();
            return Mul::make(e, e);
        }
        case 5: return Div::make(sub(), chance(60) ? small() : sub());
        case 6: return Mod::make(sub(), chance(60) ? small() : sub());
        case 7: return Min::make(sub(), sub());
        case 8: return Max::make(sub(), sub());
        case 9: return Min::make(Max::make(sub(), small()), sub());
        case 10: return Select::make(gen(Bool(), depth - 1), sub(), sub());
        case 11: case 12: return Cast::make(t, gen(chance(15) ? Float(32) : int_type(), depth - 1));
        case 13: {
            std::string name = "t" + std::to_string(counter++);
            Type vt = int_type();
            Expr v = gen(vt, depth - 1);
            lets.emplace_back(name, vt);
            Expr body = sub();
            lets.pop_back();
            return Let::make(name, v, body);
        }
        case 14: return Call::make_intrinsic(t, Intrinsic::BitAnd, {sub(), chance(50) ? small() : sub()});
        case 15: return Call::make_intrinsic(t, pick(2) ? Intrinsic::BitOr : Intrinsic::BitXor, {sub(), sub()});
        case 16: return Call::make_intrinsic(t, pick(2) ? Intrinsic::ShiftLeft : Intrinsic::ShiftRight,
                                             {sub(), chance(70) ? small() : sub()});
        case 17:
            if (t.is_uint()) return Call::make_intrinsic(t, Intrinsic::Abs, {gen(Int(t.bits), depth - 1)});
            return Call::make_intrinsic(t, Intrinsic::BitNot, {sub()});
        case 18:
            if (t.is_uint())
                return Call::make_intrinsic(t, Intrinsic::Absd, {gen(Int(t.bits), depth - 1), gen(Int(t.bits), depth - 1)});
            return Sub::make(small(), sub());
        case 19: {
            const Intrinsic counts[] = {Intrinsic::PopCount, Intrinsic::CountLeadingZeros, Intrinsic::CountTrailingZeros};
            return Call::make_intrinsic(t, counts[pick(3)], {sub()});
        }
        default: return Add::make(Mul::make(sub(), small()), small());
        }
    }
};

bool inside(Type t, Scalar v, const Interval &i) {
    if (t.is_float()) {
        if ((i.min.defined() || i.max.defined()) && std::isnan(v.f)) return false;
        if (i.min.defined() && !(as<FloatImm>(i.min) && v.f >= as<FloatImm>(i.min)->value)) return false;
        if (i.max.defined() && !(as<FloatImm>(i.max) && v.f <= as<FloatImm>(i.max)->value)) return false;
        return true;
    }
    i128 x = as128(t, v);
    auto endpoint = [&](const Expr &e, i128 &out) {
        if (const auto *a = as<IntImm>(e)) return out = a->value, true;
        if (const auto *b = as<UIntImm>(e)) return out = b->value, true;
        return false;
    };
    i128 lo, hi;
    if (i.min.defined()) {
        if (!endpoint(i.min, lo)) return false;  // must be constant here
        if (x < lo) return false;
    }
    if (i.max.defined()) {
        if (!endpoint(i.max, hi)) return false;
        if (x > hi) return false;
    }
    return true;
}

TEST(Interval, RandomizedSoundness) {
    RandomBounds g(property_seed(0x1badb002u));
    const int kExprs = 6000 * property_scale(), kSamples = 12;
    int64_t samples = 0, bounded = 0, failures = 0;
    for (int i = 0; i < kExprs && failures < 5; i++) {
        g.make_vars();
        Type t;
        int k = g.pick(20);
        if (k == 0) t = Bool();
        else if (k == 1) t = Float(32);
        else t = g.int_type();
        Expr e = g.gen(t, 1 + g.pick(5));
        Scope scope;
        for (const auto &v : g.vars) {
            auto c = [&](i128 x) -> Expr {
                return v.type.is_int() ? IntImm::make(v.type, int64_t(x)) : UIntImm::make(v.type, uint64_t(x));
            };
            scope.push(v.name, Interval(c(v.lo), c(v.hi)));
        }
        Interval b = bounds_of_expr(e, scope);
        if (b.is_bounded()) bounded++;
        // With constant intervals for every variable, the endpoints are constants.
        if (!t.is_float()) {
            if (b.min.defined()) {
                ASSERT_TRUE(as<IntImm>(b.min) || as<UIntImm>(b.min)) << e << " -> " << b.min;
            }
            if (b.max.defined()) {
                ASSERT_TRUE(as<IntImm>(b.max) || as<UIntImm>(b.max)) << e << " -> " << b.max;
            }
        }
        if (t.is_bool() || (t.is_integer() && t.bits <= 16) || t.is_uint()) {
            EXPECT_TRUE(b.is_bounded()) << e;
        }
        for (int s = 0; s < kSamples; s++) {
            std::vector<std::pair<std::string, Scalar>> env;
            for (const auto &v : g.vars) {
                i128 x;
                switch (g.pick(4)) {
                case 0: x = v.lo; break;
                case 1: x = v.hi; break;
                default: x = g.random_in(v.lo, v.hi); break;
                }
                env.emplace_back(v.name, from128(v.type, x));
            }
            Scalar val = eval(e, env);
            samples++;
            if (!inside(t, val, b)) {
                failures++;
                std::string inputs;
                for (const auto &[n, sv] : env) inputs += n + "=" + std::to_string(int64_t(sv.i)) + " ";
                ADD_FAILURE() << "expression: " << e << "\nbounds: [" << b.min << ", " << b.max << "]\nvalue: "
                              << (t.is_float() ? std::to_string(val.f)
                                               : std::to_string(int64_t(as128(t, val))))
                              << "\ninputs: " << inputs;
                break;
            }
        }
    }
    EXPECT_GE(samples, 20000);
    EXPECT_GT(bounded, kExprs / 2);
    std::printf("[ interval soundness ] %lld samples, %lld of %d results bounded\n", (long long)samples,
                (long long)bounded, kExprs);
}

// Symbolic intervals: x in [ax, bx], y in [ay, by] with ax, bx, ay, by free variables,
// and w a free variable not in scope. The endpoints are expressions over those; evaluated
// at concrete values, they must bound the expression. Values stay small (int64, small
// constants), inside the regime where index arithmetic is mathematical.
class SymbolicGen {
public:
    explicit SymbolicGen(uint64_t seed) : rng_(seed) {}
    std::mt19937_64 rng_;
    int pick(int n) { return int(rng_() % uint64_t(n)); }
    std::vector<std::string> lets;
    int counter = 0;
    const Type t = Int(64);

    Expr c(int64_t v) { return IntImm::make(t, v); }
    Expr small() { return c(pick(33) - 16); }
    Expr leaf() {
        int r = pick(10);
        if (r < 3) return Variable::make(t, "x");
        if (r < 5) return Variable::make(t, "y");
        if (r < 6) return Variable::make(t, "w");
        if (r < 8 && !lets.empty()) return Variable::make(t, lets[size_t(pick(int(lets.size())))]);
        return small();
    }
    Expr gen(int depth) {
        if (depth <= 0 || pick(100) < 15) return leaf();
        auto sub = [&] { return gen(depth - 1); };
        switch (pick(16)) {
        case 0: case 1: return Add::make(sub(), sub());
        case 2: return Sub::make(sub(), sub());
        case 3: case 4: return Mul::make(sub(), small());
        case 5: return Mul::make(sub(), sub());
        case 6: return Div::make(sub(), small());
        case 7: return Div::make(sub(), sub());
        case 8: return Mod::make(sub(), small());
        case 9: return Mod::make(sub(), sub());
        case 10: return Min::make(sub(), sub());
        case 11: return Max::make(sub(), sub());
        case 12: return Min::make(Max::make(sub(), sub()), sub());
        case 13: return Select::make(LT::make(sub(), sub()), sub(), sub());
        case 14: {
            std::string name = "l" + std::to_string(counter++);
            Expr v = sub();
            lets.push_back(name);
            Expr body = sub();
            lets.pop_back();
            return Let::make(name, v, body);
        }
        default: return Add::make(Mul::make(sub(), small()), small());
        }
    }
};

TEST(Interval, RandomizedSoundnessSymbolic) {
    SymbolicGen g(property_seed(0x5107u));
    const Type t = Int(64);
    const int kExprs = 3000 * property_scale(), kSamples = 10;
    int64_t samples = 0, bounded = 0, failures = 0;
    for (int i = 0; i < kExprs && failures < 5; i++) {
        Expr e = g.gen(1 + g.pick(4));
        Scope scope;
        scope.push("x", Interval(Variable::make(t, "ax"), Variable::make(t, "bx")));
        scope.push("y", Interval(Variable::make(t, "ay"), Variable::make(t, "by")));
        Interval b = bounds_of_expr(e, scope);
        if (b.is_bounded()) bounded++;
        for (int s = 0; s < kSamples; s++) {
            int64_t ax = g.pick(41) - 20, bx = ax + g.pick(12), ay = g.pick(41) - 20, by = ay + g.pick(12);
            int64_t w = g.pick(41) - 20;
            std::vector<std::pair<std::string, Scalar>> outer = {
                {"ax", ir::make_int(ax)}, {"bx", ir::make_int(bx)}, {"ay", ir::make_int(ay)},
                {"by", ir::make_int(by)}, {"w", ir::make_int(w)}};
            std::vector<std::pair<std::string, Scalar>> env = outer;
            env.emplace_back("x", ir::make_int(ax + g.pick(int(bx - ax + 1))));
            env.emplace_back("y", ir::make_int(ay + g.pick(int(by - ay + 1))));
            int64_t v = eval(e, env).i;
            samples++;
            bool ok = true;
            int64_t lo = 0, hi = 0;
            if (b.min.defined()) {
                lo = eval(b.min, outer).i;
                ok = ok && lo <= v;
            }
            if (b.max.defined()) {
                hi = eval(b.max, outer).i;
                ok = ok && v <= hi;
            }
            if (!ok) {
                failures++;
                std::string inputs;
                for (const auto &[n, sv] : env) inputs += n + "=" + std::to_string(sv.i) + " ";
                ADD_FAILURE() << "expression: " << e << "\nbounds: [" << b.min << ", " << b.max << "] = [" << lo
                              << ", " << hi << "]\nvalue: " << v << "\ninputs: " << inputs;
                break;
            }
        }
    }
    EXPECT_GE(samples, 20000);
    EXPECT_GT(bounded, kExprs / 3);
    std::printf("[ interval symbolic soundness ] %lld samples, %lld of %d results bounded\n", (long long)samples,
                (long long)bounded, kExprs);
}

}  // namespace
