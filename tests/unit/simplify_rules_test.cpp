// Unit tests of specific simplifier rules, and of rules that must NOT fire because they
// are false under wrap-around integers or IEEE floats.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include "analysis/Simplify.h"
#include "ir/IR.h"
#include "support/hand_lowered.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"

using namespace tessera;
using namespace tessera::ir;
using tessera::analysis::simplify;

namespace {

Expr var(const std::string &n, Type t = Int(32)) { return Variable::make(t, n); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }
Expr i64(int64_t v) { return IntImm::make(Int(64), v); }
Expr i8(int64_t v) { return IntImm::make(Int(8), v); }
Expr u8(uint64_t v) { return UIntImm::make(UInt(8), v); }
Expr u32(uint64_t v) { return UIntImm::make(UInt(32), v); }
Expr f32(double v) { return FloatImm::make(Float(32), v); }
Expr tru() { return UIntImm::make(Bool(), 1); }
Expr fls() { return UIntImm::make(Bool(), 0); }
Expr add(Expr a, Expr b) { return Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return Mul::make(std::move(a), std::move(b)); }
Expr div(Expr a, Expr b) { return Div::make(std::move(a), std::move(b)); }
Expr mod(Expr a, Expr b) { return Mod::make(std::move(a), std::move(b)); }
Expr min(Expr a, Expr b) { return Min::make(std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return Max::make(std::move(a), std::move(b)); }
Expr lt(Expr a, Expr b) { return LT::make(std::move(a), std::move(b)); }
Expr gt(Expr a, Expr b) { return GT::make(std::move(a), std::move(b)); }
Expr eq(Expr a, Expr b) { return EQ::make(std::move(a), std::move(b)); }

#define EXPECT_SIMPLIFIES(e, expected)                                                  \
    do {                                                                                \
        Expr in_ = (e), out_ = simplify(in_), want_ = (expected);                       \
        EXPECT_TRUE(equal(out_, want_)) << "simplify(" << in_ << ") = " << out_         \
                                        << ", expected " << want_;                      \
    } while (0)

#define EXPECT_UNCHANGED(e)                                                             \
    do {                                                                                \
        Expr in_ = (e), out_ = simplify(in_);                                           \
        EXPECT_TRUE(equal(out_, in_)) << "simplify(" << in_ << ") = " << out_           \
                                      << ", expected no change";                        \
    } while (0)

const Expr x = var("x"), y = var("y"), z = var("z");

TEST(SimplifyRules, ConstantFoldingFollowsTheSemantics) {
    EXPECT_SIMPLIFIES(add(i32(INT32_MAX), i32(1)), i32(INT32_MIN));  // wraps
    EXPECT_SIMPLIFIES(sub(u8(3), u8(5)), u8(254));
    EXPECT_SIMPLIFIES(mul(i8(64), i8(2)), i8(-128));
    EXPECT_SIMPLIFIES(div(i32(-7), i32(2)), i32(-4));  // Euclidean
    EXPECT_SIMPLIFIES(div(i32(7), i32(-2)), i32(-3));
    EXPECT_SIMPLIFIES(mod(i32(-7), i32(2)), i32(1));
    EXPECT_SIMPLIFIES(mod(i32(7), i32(-2)), i32(1));
    EXPECT_SIMPLIFIES(div(i32(5), i32(0)), i32(0));
    EXPECT_SIMPLIFIES(mod(i32(5), i32(0)), i32(0));
    EXPECT_SIMPLIFIES(div(i8(-128), i8(-1)), i8(-128));
    EXPECT_SIMPLIFIES(Cast::make(UInt(8), i32(300)), u8(44));
    EXPECT_SIMPLIFIES(Cast::make(UInt(8), f32(-3.7)), u8(0));
    EXPECT_SIMPLIFIES(Cast::make(Int(32), f32(2.5e9)), i32(INT32_MAX));
    EXPECT_SIMPLIFIES(Cast::make(Int(32), f32(std::nan(""))), i32(0));
    EXPECT_SIMPLIFIES(lt(f32(std::nan("")), f32(1)), fls());
    EXPECT_SIMPLIFIES(min(f32(std::nan("")), f32(1)), f32(1));
    // min(1, NaN) is NaN.
    Expr m = simplify(min(f32(1), f32(std::nan(""))));
    ASSERT_TRUE(as<FloatImm>(m));
    EXPECT_TRUE(std::isnan(as<FloatImm>(m)->value));
    // -0.0 + 0.0 == +0.0 (folding is the IEEE operation)
    Expr z0 = simplify(add(f32(-0.0), f32(0.0)));
    ASSERT_TRUE(as<FloatImm>(z0));
    EXPECT_FALSE(std::signbit(as<FloatImm>(z0)->value));
    // Shifts, bit operations.
    EXPECT_SIMPLIFIES(Call::make_intrinsic(Int(8), Intrinsic::ShiftLeft, {i8(1), i8(7)}), i8(-128));
    EXPECT_SIMPLIFIES(Call::make_intrinsic(Int(8), Intrinsic::ShiftRight, {i8(-1), i8(10)}), i8(-1));
    EXPECT_SIMPLIFIES(Call::make_intrinsic(UInt(8), Intrinsic::Abs, {i8(-128)}), u8(128));
}

TEST(SimplifyRules, MathLibraryCallsAreNotFolded) {
    EXPECT_UNCHANGED(Call::make_intrinsic(Float(32), Intrinsic::Sin, {f32(1)}));
    EXPECT_UNCHANGED(Call::make_intrinsic(Float(32), Intrinsic::Exp, {f32(1)}));
    // sqrt is correctly rounded everywhere: folded.
    EXPECT_SIMPLIFIES(Call::make_intrinsic(Float(32), Intrinsic::Sqrt, {f32(4)}), f32(2));
}

TEST(SimplifyRules, IntegerIdentities) {
    EXPECT_SIMPLIFIES(add(x, i32(0)), x);
    EXPECT_SIMPLIFIES(add(i32(0), x), x);
    EXPECT_SIMPLIFIES(mul(x, i32(1)), x);
    EXPECT_SIMPLIFIES(mul(x, i32(0)), i32(0));
    EXPECT_SIMPLIFIES(sub(x, x), i32(0));
    EXPECT_SIMPLIFIES(sub(x, i32(0)), x);
    EXPECT_SIMPLIFIES(add(add(x, i32(3)), i32(4)), add(x, i32(7)));
    EXPECT_SIMPLIFIES(add(add(x, i32(INT32_MAX)), i32(1)), add(x, i32(INT32_MIN)));
    EXPECT_SIMPLIFIES(sub(add(x, i32(1)), add(x, i32(3))), i32(-2));
    EXPECT_SIMPLIFIES(sub(add(x, y), x), y);
    EXPECT_SIMPLIFIES(add(x, sub(y, x)), y);
    EXPECT_SIMPLIFIES(sub(x, i32(5)), add(x, i32(-5)));
    EXPECT_SIMPLIFIES(add(i32(3), x), add(x, i32(3)));
    EXPECT_SIMPLIFIES(mul(mul(x, i32(3)), i32(4)), mul(x, i32(12)));
    EXPECT_SIMPLIFIES(mul(add(x, i32(1)), i32(4)), add(mul(x, i32(4)), i32(4)));
    EXPECT_SIMPLIFIES(add(mul(x, i32(3)), mul(x, i32(5))), mul(x, i32(8)));
    // Tile index arithmetic: (xo*8 + 3) - (xo*8) -> 3
    Expr xo = var("xo");
    EXPECT_SIMPLIFIES(sub(add(mul(xo, i32(8)), i32(3)), mul(xo, i32(8))), i32(3));
    // Unsigned: x - 1 stays readable.
    Expr ux = var("ux", UInt(32));
    EXPECT_SIMPLIFIES(add(sub(ux, u32(3)), u32(1)), sub(ux, u32(2)));
}

TEST(SimplifyRules, DivisionAndModulo) {
    EXPECT_SIMPLIFIES(div(x, i32(1)), x);
    EXPECT_SIMPLIFIES(mod(x, i32(1)), i32(0));
    EXPECT_SIMPLIFIES(mod(x, i32(-1)), i32(0));
    EXPECT_SIMPLIFIES(div(x, i32(0)), i32(0));
    EXPECT_SIMPLIFIES(mod(x, i32(0)), i32(0));
    EXPECT_SIMPLIFIES(div(i32(0), x), i32(0));
    EXPECT_SIMPLIFIES(div(x, i32(-1)), sub(i32(0), x));
    EXPECT_SIMPLIFIES(mod(x, x), i32(0));
    EXPECT_SIMPLIFIES(div(div(x, i32(4)), i32(2)), div(x, i32(8)));
    EXPECT_SIMPLIFIES(mod(mod(x, i32(8)), i32(4)), mod(x, i32(4)));
    // Multiples of a power of two vanish modulo it, even with wrap-around.
    EXPECT_SIMPLIFIES(mod(mul(x, i32(8)), i32(8)), i32(0));
    EXPECT_SIMPLIFIES(mod(add(mul(x, i32(16)), y), i32(8)), mod(y, i32(8)));
    EXPECT_SIMPLIFIES(mod(add(x, i32(8)), i32(4)), mod(x, i32(4)));
    EXPECT_SIMPLIFIES(mod(mod(x, i32(8)), i32(16)), mod(x, i32(8)));  // bounds: x % 8 in [0, 7]
    EXPECT_SIMPLIFIES(div(mod(x, i32(8)), i32(8)), i32(0));
}

TEST(SimplifyRules, WrapAroundBlocksOrderRules) {
    // x + 1 > x is false for x = INT32_MAX.
    EXPECT_UNCHANGED(gt(add(x, i32(1)), x));
    EXPECT_UNCHANGED(lt(x, add(x, i32(1))));
    // min(x + 1, x + 2) is not x + 1 when x + 2 wraps.
    EXPECT_UNCHANGED(min(add(x, i32(1)), add(x, i32(2))));
    EXPECT_UNCHANGED(max(x, add(x, i32(1))));
    // (x * c) / c is not x when x * c wraps.
    EXPECT_UNCHANGED(div(mul(x, i32(4)), i32(4)));
    EXPECT_UNCHANGED(div(add(mul(x, i32(4)), y), i32(4)));
    // Not a power of two: x * 6 wraps to a value that is not a multiple of 6.
    EXPECT_UNCHANGED(mod(mul(x, i32(6)), i32(6)));
    EXPECT_UNCHANGED(mod(add(x, i32(6)), i32(3)));
    // uint8 arithmetic wraps too.
    Expr b = var("b", UInt(8));
    EXPECT_UNCHANGED(gt(add(b, u8(1)), b));
}

TEST(SimplifyRules, BoundsEnableOrderRules) {
    analysis::ConstBoundsScope bounds;
    bounds["x"] = {0, 100};
    bounds["y"] = {0, 7};
    auto s = [&](const Expr &e) { return simplify(e, bounds); };
    EXPECT_TRUE(equal(s(gt(add(x, i32(1)), x)), tru())) << s(gt(add(x, i32(1)), x));
    EXPECT_TRUE(equal(s(min(add(x, i32(1)), add(x, i32(2)))), add(x, i32(1))));
    EXPECT_TRUE(equal(s(max(x, add(x, i32(1)))), add(x, i32(1))));
    EXPECT_TRUE(equal(s(div(mul(x, i32(4)), i32(4))), x));
    EXPECT_TRUE(equal(s(div(add(mul(x, i32(8)), y), i32(8))), x)) << s(div(add(mul(x, i32(8)), y), i32(8)));
    EXPECT_TRUE(equal(s(mod(add(mul(x, i32(6)), y), i32(6))), mod(y, i32(6))));
    EXPECT_TRUE(equal(s(min(x, i32(200))), x));
    EXPECT_TRUE(equal(s(lt(x, i32(0))), fls()));
    EXPECT_TRUE(equal(s(lt(add(x, i32(5)), i32(10))), lt(x, i32(5))));
    // Near the top of the type the offset could wrap: no rewrite.
    analysis::ConstBoundsScope top;
    top["x"] = {INT32_MAX - 1, INT32_MAX};
    EXPECT_TRUE(equal(simplify(gt(add(x, i32(1)), x), top), gt(add(x, i32(1)), x)));
}

TEST(SimplifyRules, FloatsAreLeftAlone) {
    Expr f = var("f", Float(32));
    EXPECT_UNCHANGED(mul(f, f32(0)));   // NaN * 0 is NaN, -1 * 0 is -0
    EXPECT_UNCHANGED(add(f, f32(0)));   // -0 + 0 is +0
    EXPECT_UNCHANGED(sub(f, f));        // inf - inf is NaN
    EXPECT_UNCHANGED(lt(f, f));         // false, but...
    EXPECT_UNCHANGED(eq(f, f));         // ... NaN == NaN is false
    EXPECT_UNCHANGED(div(f, f));
    EXPECT_UNCHANGED(min(f32(1), f));   // operands of float min are not swapped
    EXPECT_UNCHANGED(Not::make(lt(f, f32(1))));  // !(f < 1) is not f >= 1 for NaN
    EXPECT_SIMPLIFIES(min(f, f), f);
    EXPECT_SIMPLIFIES(Select::make(var("c", Bool()), f, f), f);
    EXPECT_SIMPLIFIES(Not::make(eq(f, f32(1))), NE::make(f, f32(1)));
}

TEST(SimplifyRules, MinMax) {
    EXPECT_SIMPLIFIES(min(x, x), x);
    EXPECT_SIMPLIFIES(min(i32(3), i32(5)), i32(3));
    EXPECT_SIMPLIFIES(max(i32(3), x), max(x, i32(3)));
    EXPECT_SIMPLIFIES(min(x, i32(INT32_MAX)), x);
    EXPECT_SIMPLIFIES(max(x, i32(INT32_MAX)), i32(INT32_MAX));
    EXPECT_SIMPLIFIES(min(min(x, i32(3)), i32(5)), min(x, i32(3)));
    EXPECT_SIMPLIFIES(min(max(x, i32(10)), i32(5)), i32(5));  // clamp with hi < lo is hi
    EXPECT_SIMPLIFIES(min(x, max(x, y)), x);
    EXPECT_SIMPLIFIES(max(min(x, y), x), x);
    EXPECT_SIMPLIFIES(min(min(x, y), y), min(x, y));
    EXPECT_SIMPLIFIES(min(min(min(x, y), z), y), min(min(x, y), z));
    EXPECT_SIMPLIFIES(max(x, max(z, max(y, x))), max(z, max(y, x)));
    Expr f = var("f", Float(32)), g = var("g", Float(32));
    EXPECT_UNCHANGED(min(min(f, g), f));  // float min is not associative with NaN
    EXPECT_SIMPLIFIES(max(mod(x, i32(8)), i32(7)), i32(7));
    EXPECT_SIMPLIFIES(min(mod(x, i32(8)), i32(-1)), i32(-1));
}

TEST(SimplifyRules, ComparisonsAndLogic) {
    Expr b = var("b", Bool()), c = var("c", Bool());
    EXPECT_SIMPLIFIES(lt(x, x), fls());
    EXPECT_SIMPLIFIES(eq(x, x), tru());
    EXPECT_SIMPLIFIES(LE::make(x, x), tru());
    EXPECT_SIMPLIFIES(eq(add(x, i32(3)), i32(10)), eq(x, i32(7)));
    EXPECT_SIMPLIFIES(eq(add(x, i32(INT32_MAX)), i32(INT32_MIN)), eq(x, i32(1)));
    EXPECT_SIMPLIFIES(NE::make(sub(x, y), i32(0)), NE::make(x, y));
    EXPECT_SIMPLIFIES(lt(i32(3), x), gt(x, i32(3)));
    EXPECT_SIMPLIFIES(lt(mod(x, i32(8)), i32(8)), tru());
    EXPECT_SIMPLIFIES(Not::make(Not::make(b)), b);
    EXPECT_SIMPLIFIES(Not::make(lt(x, y)), GE::make(x, y));
    EXPECT_SIMPLIFIES(And::make(b, tru()), b);
    EXPECT_SIMPLIFIES(And::make(fls(), b), fls());
    EXPECT_SIMPLIFIES(Or::make(b, tru()), tru());
    EXPECT_SIMPLIFIES(Or::make(b, fls()), b);
    EXPECT_SIMPLIFIES(And::make(b, b), b);
    EXPECT_SIMPLIFIES(And::make(b, Not::make(b)), fls());
    EXPECT_SIMPLIFIES(Or::make(Not::make(b), b), tru());
    EXPECT_SIMPLIFIES(Select::make(tru(), x, y), x);
    EXPECT_SIMPLIFIES(Select::make(fls(), x, y), y);
    EXPECT_SIMPLIFIES(Select::make(b, x, x), x);
    EXPECT_SIMPLIFIES(Select::make(Not::make(b), x, y), Select::make(b, y, x));
    EXPECT_SIMPLIFIES(Select::make(b, tru(), fls()), b);
    EXPECT_SIMPLIFIES(Select::make(b, Select::make(b, x, z), y), Select::make(b, x, y));
    EXPECT_SIMPLIFIES(Select::make(c, x, Select::make(c, y, z)), Select::make(c, x, z));
}

TEST(SimplifyRules, Casts) {
    Expr a = var("a", Int(32)), s8 = var("s8", Int(8)), w = var("w", UInt(8));
    EXPECT_SIMPLIFIES(Cast::make(Int(32), Cast::make(Int(64), a)), a);
    EXPECT_SIMPLIFIES(Cast::make(UInt(8), Cast::make(Int(16), a)), Cast::make(UInt(8), a));
    EXPECT_SIMPLIFIES(Cast::make(Int(64), Cast::make(Int(32), s8)), Cast::make(Int(64), s8));
    EXPECT_SIMPLIFIES(Cast::make(Float(64), Cast::make(Float(32), w)), Cast::make(Float(64), w));
    EXPECT_SIMPLIFIES(Cast::make(Int(16), Cast::make(Float(32), w)), Cast::make(Int(16), w));
    // Not composable: the inner cast loses information or saturates.
    EXPECT_UNCHANGED(Cast::make(Int(32), Cast::make(Int(8), a)));             // truncation, then widening
    EXPECT_UNCHANGED(Cast::make(UInt(8), Cast::make(Float(64), a)));          // saturates, not wraps
    EXPECT_UNCHANGED(Cast::make(Float(64), Cast::make(Float(32), a)));        // int32 -> float32 rounds
    EXPECT_SIMPLIFIES(Cast::make(Int(32), Cast::make(UInt(32), s8)), Cast::make(Int(32), s8));  // both mod 2^32
    EXPECT_UNCHANGED(Cast::make(Int(64), Cast::make(UInt(32), s8)));          // -1 -> 4294967295 (not -1)
    EXPECT_UNCHANGED(Cast::make(Int(32), Cast::make(Bool(), a)));             // 5 -> true -> 1
}

TEST(SimplifyRules, Lets) {
    Expr t = var("t");
    EXPECT_SIMPLIFIES(Let::make("t", i32(3), add(t, x)), add(x, i32(3)));
    EXPECT_SIMPLIFIES(Let::make("t", y, add(t, x)), add(y, x));
    EXPECT_SIMPLIFIES(Let::make("t", add(x, y), x), x);  // dead let
    Expr kept = Let::make("t", add(x, y), mul(t, t));
    EXPECT_UNCHANGED(kept);
    // The let value's bounds are used: t in [0, 7].
    EXPECT_SIMPLIFIES(Let::make("t", mod(x, i32(8)), lt(t, i32(8))), tru());
    // No capture: inlining `a = y` into a body that rebinds y would change its meaning.
    Expr a = var("a");
    Expr e = Let::make("a", y, Let::make("y", mul(x, x), add(a, y)));
    Expr s = simplify(e);
    EXPECT_TRUE(equal(s, e)) << s;
    // Shadowing: the inner binding of t hides the outer constant.
    Expr sh = Let::make("t", i32(1), add(t, Let::make("t", mul(x, x), add(t, t))));
    EXPECT_SIMPLIFIES(sh, add(Let::make("t", mul(x, x), mul(t, i32(2))), i32(1)));
}

TEST(SimplifyRules, Vectors) {
    Expr r = Ramp::make(x, i32(1), 4);
    EXPECT_SIMPLIFIES(add(r, Broadcast::make(i32(2), 4)), Ramp::make(add(x, i32(2)), i32(1), 4));
    EXPECT_SIMPLIFIES(mul(r, Broadcast::make(i32(2), 4)), Ramp::make(mul(x, i32(2)), i32(2), 4));
    EXPECT_SIMPLIFIES(add(Broadcast::make(i32(2), 4), Broadcast::make(i32(3), 4)), Broadcast::make(i32(5), 4));
    EXPECT_SIMPLIFIES(sub(r, r), Broadcast::make(i32(0), 4));
}

// -----------------------------------------------------------------------------------------
// Statements

std::shared_ptr<const Provenance> prov(std::vector<Expr> coords) {
    auto p = std::make_shared<Provenance>();
    p->func = tessera::test::named_func("f");
    p->coords = std::move(coords);
    return p;
}

TEST(SimplifyRules, Statements) {
    Stmt st = Store::make("out", x, Cast::make(Int(64), x), prov({x}));
    // Loops of extent 0 disappear; a whole program that disappears is a no-op.
    Stmt empty = simplify(For::make("x", i32(0), i32(0), ForType::Serial, st));
    EXPECT_TRUE(analysis::is_no_op(empty));
    EXPECT_TRUE(analysis::is_no_op(simplify(IfThenElse::make(fls(), st))));
    EXPECT_TRUE(equal(simplify(IfThenElse::make(tru(), st, Evaluate::make(y))), st));
    EXPECT_TRUE(equal(simplify(Block::make({AssertStmt::make(tru(), {}), st, Evaluate::make(i32(0))})), st));
    // A loop whose body vanishes vanishes.
    EXPECT_TRUE(analysis::is_no_op(simplify(For::make("x", i32(0), y, ForType::Serial, IfThenElse::make(lt(x, x), st)))));
    // An assert(false) stays.
    Stmt af = AssertStmt::make(fls(), {StringImm::make("no")});
    EXPECT_TRUE(equal(simplify(af), af));
}

TEST(SimplifyRules, LetStmtSubstitutionReachesProvenance) {
    Expr v = var("v");
    Stmt body = Store::make("out", add(v, i32(1)), i64(0), prov({v, add(v, x)}));
    Stmt s = simplify(LetStmt::make("v", i32(5), body));
    const auto *store = as<Store>(s);
    ASSERT_TRUE(store) << s;
    EXPECT_TRUE(equal(store->value, i32(6)));
    ASSERT_EQ(store->provenance->coords.size(), 2u);
    EXPECT_TRUE(equal(store->provenance->coords[0], i32(5)));
    EXPECT_TRUE(equal(store->provenance->coords[1], add(x, i32(5))));
    // A let used only by the annotation is kept.
    Stmt only_prov = Store::make("out", i32(0), i64(0), prov({v}));
    Stmt k = simplify(LetStmt::make("v", mul(x, y), only_prov));
    EXPECT_TRUE(as<LetStmt>(k)) << k;
}

TEST(SimplifyRules, AMinWithTheValueOfALetIsTheLet) {
    // let v = x * y in out[0] = min(v, x * y) + max(x * y, v) + select(x < y, v, x * y): each
    // is v (a region at one point, its min and max the same expression, unioned with a read
    // there; a sliding window's first row's bound and the other rows', the same).
    Expr v = var("v");
    Stmt body = Store::make("out", add(min(v, mul(x, y)), max(mul(x, y), v)), i64(0), nullptr);
    Stmt chosen = simplify(LetStmt::make("v", mul(x, y), Store::make("out", Select::make(lt(x, y), v, mul(x, y)), i64(0), nullptr)));
    const auto *chosen_store = as<Store>(as<LetStmt>(chosen)->body);
    ASSERT_TRUE(chosen_store) << chosen;
    EXPECT_TRUE(equal(chosen_store->value, v)) << chosen;
    Stmt s = simplify(LetStmt::make("v", mul(x, y), body));
    const auto *let = as<LetStmt>(s);
    ASSERT_TRUE(let) << s;
    const auto *store = as<Store>(let->body);
    ASSERT_TRUE(store) << s;
    EXPECT_TRUE(equal(store->value, add(v, v)) || equal(store->value, mul(v, i32(2)))) << s;
    // Not once a variable of the value is bound again in between.
    Stmt rebound = LetStmt::make("v", mul(x, y),
                                 For::make("x", i32(0), i32(4), ForType::Serial,
                                           Store::make("out", min(v, mul(x, y)), i64(0), nullptr)));
    Stmt r = simplify(rebound);
    EXPECT_NE(to_string(r).find("min("), std::string::npos) << r;
}

TEST(SimplifyRules, TwoLetsOfOneValueCancel) {
    // let u = x * y in let w = x * y in out[(int64(u) - int64(w)) * 8] = 1: the index is 0
    // (a consumer's row and the row its per-point reduction is stored at), and both lets
    // stay, for the passes that read them by name.
    Expr u = var("u"), w = var("w");
    Expr index = mul(sub(Cast::make(Int(64), u), Cast::make(Int(64), w)), i64(8));
    Stmt s = simplify(LetStmt::make("u", mul(x, y), LetStmt::make("w", mul(x, y), Store::make("out", i32(1), index, nullptr))));
    const std::string text = to_string(s);
    EXPECT_NE(text.find("out[int64(0)]"), std::string::npos) << s;
    // Not once a variable of one value is bound again in between.
    Stmt rebound = LetStmt::make(
        "u", mul(x, y),
        For::make("x", i32(0), i32(4), ForType::Serial,
                  LetStmt::make("w", mul(x, y), Store::make("out", var("u"), sub(u, w), nullptr))));
    EXPECT_NE(to_string(simplify(rebound)).find("u - w"), std::string::npos) << simplify(rebound);
}

TEST(SimplifyRules, LoopBoundsAreUsed) {
    // for x in [0, 10): out[x] = min(x, 100); x + 1 > x; (x * 4) / 4
    Stmt body = Block::make({Store::make("a", min(x, i32(100)), Cast::make(Int(64), x), nullptr),
                             Store::make("b", Select::make(gt(add(x, i32(1)), x), i32(1), i32(2)), i64(0), nullptr),
                             Store::make("c", div(mul(x, i32(4)), i32(4)), i64(0), nullptr)});
    Stmt s = simplify(For::make("x", i32(0), i32(10), ForType::Serial, body));
    Stmt want = For::make("x", i32(0), i32(10), ForType::Serial,
                          Block::make({Store::make("a", x, Cast::make(Int(64), x), nullptr),
                                       Store::make("b", i32(1), i64(0), nullptr),
                                       Store::make("c", x, i64(0), nullptr)}));
    EXPECT_TRUE(equal(s, want)) << s;
    // Without bounds (symbolic min and extent), nothing that needs them fires.
    Stmt u = simplify(For::make("x", y, z, ForType::Serial, body));
    EXPECT_TRUE(equal(u, For::make("x", y, z, ForType::Serial, body))) << u;
    // With min 0 and any extent, x <= INT32_MAX - 1, so x + 1 cannot wrap, but x * 4 can.
    Stmt v = simplify(For::make("x", i32(0), y, ForType::Serial, body));
    Stmt want_v = For::make("x", i32(0), y, ForType::Serial,
                            Block::make({Store::make("a", min(x, i32(100)), Cast::make(Int(64), x), nullptr),
                                         Store::make("b", i32(1), i64(0), nullptr),
                                         Store::make("c", div(mul(x, i32(4)), i32(4)), i64(0), nullptr)}));
    EXPECT_TRUE(equal(v, want_v)) << v;
    // Facts from an if condition.
    Stmt guarded = IfThenElse::make(lt(x, i32(10)), Store::make("a", min(x, i32(20)), i64(0), nullptr));
    Stmt g = simplify(For::make("x", i32(0), y, ForType::Serial, guarded));
    EXPECT_TRUE(equal(g, For::make("x", i32(0), y, ForType::Serial,
                                   IfThenElse::make(lt(x, i32(10)), Store::make("a", x, i64(0), nullptr)))))
        << g;
}

TEST(SimplifyRules, FastOnDeepExpressions) {
    // A long affine chain and a deep min/max nest: must be quick.
    Expr e = x;
    for (int i = 0; i < 300; i++) e = add(mul(e, i32(3)), add(y, i32(i)));
    Expr m = x;
    for (int i = 0; i < 200; i++) m = (i % 2) ? min(m, add(y, i32(i))) : max(m, sub(z, i32(i)));
    auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < 5; k++) {
        simplify(e);
        simplify(m);
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(ms, 2000.0);
}

}  // namespace
