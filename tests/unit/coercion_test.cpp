// The type-coercion rules of docs/semantics.md §5 (Halide's rules): the result type of every
// mixed binary operation, C++ literals, compound assignment, bools, select, abs, the math
// functions, bitwise operators, shifts and Func/Buffer coordinates.
//
// Every expected type is written out in a table here; nothing is computed by the code under
// test.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "tessera/tessera.h"

using namespace tessera;

namespace tessera {
// Readable types in failure messages.
static void PrintTo(const Type &t, std::ostream *os) { *os << t.to_string(); }
}  // namespace tessera

namespace {

// The ten numeric types, in the order of the tables below.
const char *const kNames[10] = {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"};

Type type_named(const std::string &s) {
    if (s == "i8") return Int(8);
    if (s == "i16") return Int(16);
    if (s == "i32") return Int(32);
    if (s == "i64") return Int(64);
    if (s == "u8") return UInt(8);
    if (s == "u16") return UInt(16);
    if (s == "u32") return UInt(32);
    if (s == "u64") return UInt(64);
    if (s == "f32") return Float(32);
    if (s == "f64") return Float(64);
    if (s == "bool") return Bool();
    ADD_FAILURE() << "bad type name in the test table: " << s;
    return Type();
}

// An Expr of type t that is not a constant (so that no literal rule applies).
Expr expr_of(Type t, const char *var = "x") { return cast(t, Expr(Var(var))); }
Expr expr_of(const std::string &t, const char *var = "x") { return expr_of(type_named(t), var); }

// The common type of a binary operation on (row, column), from docs/semantics.md §5 rules
// 1-5. Rows are the left operand, columns the right operand, both in kNames order.
const char *const kCommon[10][10] = {
    //        i8     i16    i32    i64    u8     u16    u32    u64    f32    f64
    /*i8 */ {"i8",  "i16", "i32", "i64", "i8",  "i16", "i32", "i64", "f32", "f64"},
    /*i16*/ {"i16", "i16", "i32", "i64", "i16", "i16", "i32", "i64", "f32", "f64"},
    /*i32*/ {"i32", "i32", "i32", "i64", "i32", "i32", "i32", "i64", "f32", "f64"},
    /*i64*/ {"i64", "i64", "i64", "i64", "i64", "i64", "i64", "i64", "f32", "f64"},
    /*u8 */ {"i8",  "i16", "i32", "i64", "u8",  "u16", "u32", "u64", "f32", "f64"},
    /*u16*/ {"i16", "i16", "i32", "i64", "u16", "u16", "u32", "u64", "f32", "f64"},
    /*u32*/ {"i32", "i32", "i32", "i64", "u32", "u32", "u32", "u64", "f32", "f64"},
    /*u64*/ {"i64", "i64", "i64", "i64", "u64", "u64", "u64", "u64", "f32", "f64"},
    /*f32*/ {"f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f32", "f64"},
    /*f64*/ {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
};

// Operand types of a binary IR node.
template<typename Node>
void expect_operands(const Expr &e, Type t, const std::string &what) {
    const Node *n = ir::as<Node>(e);
    ASSERT_NE(n, nullptr) << what << ": unexpected node kind";
    EXPECT_EQ(n->a.type(), t) << what << ": left operand";
    EXPECT_EQ(n->b.type(), t) << what << ": right operand";
}

template<typename F>
void expect_compile_error(F &&f, const std::string &substring, const std::string &what) {
    try {
        f();
        ADD_FAILURE() << what << ": expected a CompileError, got none";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find(substring), std::string::npos)
            << what << ": message \"" << e.what() << "\" lacks \"" << substring << "\"";
    } catch (const std::exception &e) {
        ADD_FAILURE() << what << ": expected a CompileError, got another exception: " << e.what();
    }
}

// Evaluates a zero-dimensional Func equal to e, through realize() and realize_reference().
template<typename T>
T eval0(const Expr &e) {
    Func f;
    f() = e;
    Buffer<T> a = f.realize();
    Buffer<T> b = f.realize_reference();
    EXPECT_EQ(a(), b());
    return a();
}

// --------------------------------------------------------------------------------------
// Binary operators on two Exprs

TEST(Coercion, ArithmeticResultTypeForEveryPair) {
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            const Type want = type_named(kCommon[i][j]);
            const std::string what = std::string(kNames[i]) + " op " + kNames[j];
            Expr a = expr_of(kNames[i], "a"), b = expr_of(kNames[j], "b");
            EXPECT_EQ((a + b).type(), want) << what << " (+)";
            EXPECT_EQ((a - b).type(), want) << what << " (-)";
            EXPECT_EQ((a * b).type(), want) << what << " (*)";
            EXPECT_EQ((a / b).type(), want) << what << " (/)";
            EXPECT_EQ((a % b).type(), want) << what << " (%)";
            EXPECT_EQ(min(a, b).type(), want) << what << " (min)";
            EXPECT_EQ(max(a, b).type(), want) << what << " (max)";
            // Both operands are converted to the common type.
            expect_operands<ir::Add>(a + b, want, what + " (+)");
            expect_operands<ir::Mod>(a % b, want, what + " (%)");
            expect_operands<ir::Max>(max(a, b), want, what + " (max)");
        }
    }
}

TEST(Coercion, ComparisonsAreBoolWithOperandsCoerced) {
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            const Type want = type_named(kCommon[i][j]);
            const std::string what = std::string(kNames[i]) + " cmp " + kNames[j];
            Expr a = expr_of(kNames[i], "a"), b = expr_of(kNames[j], "b");
            EXPECT_EQ((a < b).type(), Bool()) << what;
            EXPECT_EQ((a <= b).type(), Bool()) << what;
            EXPECT_EQ((a > b).type(), Bool()) << what;
            EXPECT_EQ((a >= b).type(), Bool()) << what;
            EXPECT_EQ((a == b).type(), Bool()) << what;
            EXPECT_EQ((a != b).type(), Bool()) << what;
            expect_operands<ir::LT>(a < b, want, what + " (<)");
            expect_operands<ir::EQ>(a == b, want, what + " (==)");
        }
    }
}

TEST(Coercion, DocumentedExamples) {
    // The table of docs/semantics.md §5.
    struct Row {
        const char *a, *b, *result;
    } rows[] = {
        {"u8", "u16", "u16"}, {"i16", "i32", "i32"}, {"i8", "u16", "i16"}, {"i8", "u8", "i8"},
        {"u32", "i8", "i32"}, {"u64", "i32", "i64"}, {"i32", "f32", "f32"}, {"i64", "f32", "f32"},
        {"f32", "f64", "f64"}, {"bool", "i32", "i32"},
    };
    for (const Row &r : rows) {
        Expr a = r.a == std::string("bool") ? Expr(Var("a")) < 0 : expr_of(r.a, "a");
        Expr b = expr_of(r.b, "b");
        EXPECT_EQ((a + b).type(), type_named(r.result)) << r.a << " + " << r.b;
        EXPECT_EQ((b + a).type(), type_named(r.result)) << r.b << " + " << r.a;
    }
}

TEST(Coercion, MixedSignednessValues) {
    // uint8(200) becomes int8 -56 when combined with an int8.
    Param<uint8_t> u("u", 200);
    Param<int8_t> s("s", 0);
    EXPECT_EQ(eval0<int8_t>(u + s), int8_t(-56));
    EXPECT_EQ(eval0<bool>(u < s), true);
    // uint32 values >= 2^31 wrap to negative int32.
    Param<uint32_t> big("big", 3000000000u);
    EXPECT_EQ(eval0<int32_t>(big + s), int32_t(-1294967296));
    // int16 and uint32: int32.
    Param<int16_t> h("h", -1);
    Param<uint32_t> one("one", 1);
    EXPECT_EQ(eval0<int32_t>(h * one), -1);
    // uint64 and int32: int64.
    Param<uint64_t> u64("u64", 5);
    Param<int32_t> neg("neg", -7);
    EXPECT_EQ(eval0<int64_t>(u64 + neg), int64_t(-2));
    // An integer converted to float32 rounds to nearest even.
    Param<int32_t> i("i", 16777217);
    Param<float> zero("zero", 0.0f);
    EXPECT_EQ(eval0<float>(i + zero), 16777216.0f);
}

// --------------------------------------------------------------------------------------
// C++ literals

TEST(Coercion, IntegerLiteralTakesTheExprType) {
    for (const char *n : kNames) {
        const Type t = type_named(n);
        Expr e = expr_of(t);
        EXPECT_EQ((e + 3).type(), t) << n;
        EXPECT_EQ((3 + e).type(), t) << n;
        EXPECT_EQ((e * 2).type(), t) << n;
        EXPECT_EQ((e < 3).type(), Bool()) << n;
        EXPECT_EQ(min(e, 3).type(), t) << n;
        EXPECT_EQ(max(3, e).type(), t) << n;
        // The literal itself has the Expr's type.
        const ir::Add *add = ir::as<ir::Add>(e + 3);
        ASSERT_NE(add, nullptr) << n;
        EXPECT_EQ(add->b.type(), t) << n;
        expect_operands<ir::LT>(e < 3, t, std::string(n) + " < 3");
    }
    // The literal's value.
    const ir::UIntImm *u = ir::as<ir::UIntImm>(ir::as<ir::Add>(expr_of("u8") + 3)->b);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->value, 3u);
    const ir::FloatImm *f = ir::as<ir::FloatImm>(ir::as<ir::Add>(expr_of("f32") + 1)->b);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->value, 1.0);
}

TEST(Coercion, IntegerLiteralRepresentability) {
    // Per type: is the literal representable (Y) or a CompileError (n)?
    // Literals: 3, 300, -1, -129, 70000, int64 2^40, uint64 max.
    struct Row {
        const char *type;
        const char *ok;  // one character per literal
    } rows[] = {
        {"i8", "YnYnnnn"},  {"i16", "YYYYnnn"}, {"i32", "YYYYYnn"}, {"i64", "YYYYYYn"},
        {"u8", "Ynnnnnn"},  {"u16", "YYnnnnn"}, {"u32", "YYnnYnn"}, {"u64", "YYnnYYY"},
        {"f32", "YYYYYYY"}, {"f64", "YYYYYYY"},
    };
    const int64_t two40 = int64_t(1) << 40;
    const uint64_t umax = std::numeric_limits<uint64_t>::max();
    std::vector<std::pair<std::string, std::function<Expr(const Expr &)>>> literals = {
        {"3", [](const Expr &e) { return e + 3; }},
        {"300", [](const Expr &e) { return e + 300; }},
        {"-1", [](const Expr &e) { return e + (-1); }},
        {"-129", [](const Expr &e) { return e + (-129); }},
        {"70000", [](const Expr &e) { return e + 70000; }},
        {"2^40", [&](const Expr &e) { return e + two40; }},
        {"uint64 max", [&](const Expr &e) { return e + umax; }},
    };
    for (const Row &r : rows) {
        for (size_t k = 0; k < literals.size(); k++) {
            Expr e = expr_of(r.type);
            const std::string what = std::string(r.type) + " + " + literals[k].first;
            if (r.ok[k] == 'Y') {
                Expr sum;
                EXPECT_NO_THROW(sum = literals[k].second(e)) << what;
                if (sum.defined()) {
                    EXPECT_EQ(sum.type(), type_named(r.type)) << what;
                }
            } else {
                expect_compile_error([&] { (void)literals[k].second(e); }, "cannot be represented", what);
            }
        }
    }
    // The brief's examples, and the literal on either side of every operator.
    expect_compile_error([] { (void)(expr_of("u8") + 300); }, "cannot be represented", "u8 + 300");
    expect_compile_error([] { (void)(300 + expr_of("u8")); }, "cannot be represented", "300 + u8");
    expect_compile_error([] { (void)(expr_of("i8") + (-129)); }, "cannot be represented", "i8 + -129");
    expect_compile_error([] { (void)(expr_of("u8") < 256); }, "cannot be represented", "u8 < 256");
    expect_compile_error([] { (void)min(expr_of("u16"), -1); }, "cannot be represented", "min(u16, -1)");
    expect_compile_error([] { (void)(expr_of("u8") & 256); }, "cannot be represented", "u8 & 256");
    // u8 - 1 is fine (the literal is 1), and so is i8 + (-128).
    EXPECT_EQ((expr_of("u8") - 1).type(), UInt(8));
    EXPECT_EQ((expr_of("i8") + (-128)).type(), Int(8));
    EXPECT_EQ((expr_of("i8") + 127).type(), Int(8));
}

TEST(Coercion, IntegerLiteralWithFloatExprRoundsToNearestEven) {
    Param<float> z("zf", 0.0f);
    // 2^60 + 2^36 + 1 is just above the midpoint between two float32 values: it must round
    // up (rounding first to double and then to float would land on the midpoint and round
    // down to even).
    const int64_t v = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
    const float want = 1152921642045800448.0f;  // 2^60 + 2^37
    EXPECT_EQ(eval0<float>(z + v), want);
    Param<double> zd("zd", 0.0);
    EXPECT_EQ(eval0<double>(zd + 16777217), 16777217.0);
    EXPECT_EQ(eval0<float>(z + 16777217), 16777216.0f);
}

TEST(Coercion, FloatLiterals) {
    struct Row {
        const char *type;
        const char *with_float, *with_double;
    } rows[] = {
        {"i8", "f32", "f64"},  {"i16", "f32", "f64"}, {"i32", "f32", "f64"}, {"i64", "f32", "f64"},
        {"u8", "f32", "f64"},  {"u16", "f32", "f64"}, {"u32", "f32", "f64"}, {"u64", "f32", "f64"},
        {"f32", "f32", "f64"}, {"f64", "f64", "f64"},
    };
    for (const Row &r : rows) {
        Expr e = expr_of(r.type);
        EXPECT_EQ((e + 1.5f).type(), type_named(r.with_float)) << r.type << " + 1.5f";
        EXPECT_EQ((1.5f * e).type(), type_named(r.with_float)) << "1.5f * " << r.type;
        EXPECT_EQ((e + 1.5).type(), type_named(r.with_double)) << r.type << " + 1.5";
        EXPECT_EQ((e < 1.5).type(), Bool()) << r.type << " < 1.5";
    }
    // An int literal with a float32 Expr stays float32.
    EXPECT_EQ((expr_of("f32") + 1).type(), Float(32));
    EXPECT_EQ((expr_of("f32") * 0.5).type(), Float(64));
    // Values: the int32 operand is converted, not the literal truncated.
    Param<int32_t> i("i7", 7);
    EXPECT_EQ(eval0<float>(i + 0.5f), 7.5f);
    EXPECT_EQ(eval0<double>(i / 2.0), 3.5);
}

// --------------------------------------------------------------------------------------
// Compound assignment

TEST(Coercion, CompoundAssignmentKeepsTheLeftType) {
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            const Type t = type_named(kNames[i]);
            const std::string what = std::string(kNames[i]) + " op= " + kNames[j];
            Expr e = expr_of(t, "a");
            e += expr_of(kNames[j], "b");
            EXPECT_EQ(e.type(), t) << what << " (+=)";
            e -= expr_of(kNames[j], "b");
            EXPECT_EQ(e.type(), t) << what << " (-=)";
            e *= expr_of(kNames[j], "b");
            EXPECT_EQ(e.type(), t) << what << " (*=)";
            e /= expr_of(kNames[j], "b");
            EXPECT_EQ(e.type(), t) << what << " (/=)";
        }
    }
    Expr u = expr_of("u8");
    u += 1.5;
    EXPECT_EQ(u.type(), UInt(8));
}

TEST(Coercion, CompoundAssignmentCastsTheRightOperand) {
    // docs/semantics.md §5: e op= v means e = e op cast(e.type(), v), as in Halide.
    Param<int32_t> seven("seven", 7);
    {
        Expr e = seven;
        e += -0.5f;  // 7 + int32(-0.5f) = 7 + 0
        EXPECT_EQ(eval0<int32_t>(e), 7);
    }
    {
        Expr e = seven;
        e /= 2.5f;  // 7 / int32(2.5f) = 7 / 2
        EXPECT_EQ(eval0<int32_t>(e), 3);
    }
    {
        Expr e = seven;
        e *= 0.5f;  // 7 * int32(0.5f) = 0
        EXPECT_EQ(eval0<int32_t>(e), 0);
    }
    {
        // The addition is done in int32, not in float32 (which would lose the low bit).
        Param<int32_t> big("big", 16777217);
        Expr e = big;
        e += 1.0f;
        EXPECT_EQ(eval0<int32_t>(e), 16777218);
    }
    {
        // uint8: 300 is cast to uint8 (44) first; no error.
        Param<uint8_t> ten("ten", 10);
        Expr e = ten;
        e += 300;
        EXPECT_EQ(e.type(), UInt(8));
        EXPECT_EQ(eval0<uint8_t>(e), uint8_t(54));
    }
    {
        Param<float> half("half", 0.5f);
        Expr e = half;
        e -= 1;  // float32 stays float32
        EXPECT_EQ(e.type(), Float(32));
        EXPECT_EQ(eval0<float>(e), -0.5f);
    }
}

// --------------------------------------------------------------------------------------
// Bools

TEST(Coercion, Bools) {
    Expr b = Expr(Var("x")) < 3, c = Expr(Var("y")) > 1;
    struct Row {
        const char *other, *result;
    } rows[] = {
        {"i8", "i8"},   {"i16", "i16"}, {"i32", "i32"}, {"i64", "i64"}, {"u8", "u8"},
        {"u16", "u16"}, {"u32", "u32"}, {"u64", "u64"}, {"f32", "f32"}, {"f64", "f64"},
    };
    for (const Row &r : rows) {
        EXPECT_EQ((b + expr_of(r.other)).type(), type_named(r.result)) << "bool + " << r.other;
        EXPECT_EQ((expr_of(r.other) * b).type(), type_named(r.result)) << r.other << " * bool";
        EXPECT_EQ((b < expr_of(r.other)).type(), Bool()) << "bool < " << r.other;
    }
    // Arithmetic on two bools is an error; comparisons, min and max are not.
    expect_compile_error([&] { (void)(b + c); }, "boolean", "bool + bool");
    expect_compile_error([&] { (void)(b * c); }, "boolean", "bool * bool");
    expect_compile_error([&] { (void)(-b); }, "boolean", "-bool");
    expect_compile_error([&] { (void)abs(b); }, "abs", "abs(bool)");
    EXPECT_EQ((b == c).type(), Bool());
    EXPECT_EQ((b < c).type(), Bool());
    EXPECT_EQ(min(b, c).type(), Bool());
    EXPECT_EQ(max(b, c).type(), Bool());
    // The logical operators need bools.
    EXPECT_EQ((b && c).type(), Bool());
    EXPECT_EQ((b || true).type(), Bool());
    EXPECT_EQ((!b).type(), Bool());
    expect_compile_error([&] { (void)(b && expr_of("i32")); }, "boolean", "bool && int32");
    expect_compile_error([&] { (void)(expr_of("u8") || c); }, "boolean", "uint8 || bool");
    expect_compile_error([&] { (void)(!expr_of("i32")); }, "boolean", "!int32");
    // cast<bool> and bool -> number.
    EXPECT_EQ(cast<bool>(expr_of("f32")).type(), Bool());
    // A C++ integer literal takes the bool's type, where only 0 and 1 are representable.
    expect_compile_error([&] { (void)(b + 10); }, "cannot be represented", "bool + 10");
    expect_compile_error([&] { (void)(b * 1); }, "boolean", "bool * 1");
    Var x("x");
    Func f("bool_plus_int");
    f(x) = (x > 1) + Expr(10);
    Buffer<int32_t> out = f.realize({3});
    EXPECT_EQ(out(0), 10);
    EXPECT_EQ(out(1), 10);
    EXPECT_EQ(out(2), 11);
}

// --------------------------------------------------------------------------------------
// select

TEST(Coercion, SelectTypeRules) {
    Expr c = Expr(Var("x")) > 0;
    Expr u8 = expr_of("u8"), i16 = expr_of("i16"), f32 = expr_of("f32");
    EXPECT_EQ(select(c, u8, 0).type(), UInt(8));
    EXPECT_EQ(select(c, 0, u8).type(), UInt(8));
    EXPECT_EQ(select(c, u8, 255).type(), UInt(8));
    EXPECT_EQ(select(c, f32, 1).type(), Float(32));
    EXPECT_EQ(select(c, f32, 1.5f).type(), Float(32));
    EXPECT_EQ(select(c, i16, -5).type(), Int(16));
    EXPECT_EQ(select(c, 1, 2).type(), Int(32));
    EXPECT_EQ(select(c, u8, c, u8 + 1, 7).type(), UInt(8));
    // The int32 literal became a uint8 constant.
    const ir::Select *s = ir::as<ir::Select>(select(c, u8, 0));
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->false_value.type(), UInt(8));

    expect_compile_error([&] { (void)select(c, u8, 300); }, "cannot be represented", "select(c, u8, 300)");
    expect_compile_error([&] { (void)select(c, -1, u8); }, "cannot be represented", "select(c, -1, u8)");
    expect_compile_error([&] { (void)select(c, u8, i16); }, "different types", "select(c, u8, i16)");
    expect_compile_error([&] { (void)select(c, expr_of("i32"), expr_of("u32")); }, "different types",
                         "select(c, i32, u32)");
    expect_compile_error([&] { (void)select(c, f32, 1.0); }, "different types", "select(c, f32, 1.0)");
    expect_compile_error([&] { (void)select(c, expr_of("i32"), 1.5f); }, "different types",
                         "select(c, i32, 1.5f)");
    expect_compile_error([&] { (void)select(expr_of("i32"), 1, 2); }, "boolean", "select(int32, ...)");
}

// --------------------------------------------------------------------------------------
// abs, absd, clamp, math functions

TEST(Coercion, AbsAndAbsd) {
    struct Row {
        const char *arg, *result;
    } abs_rows[] = {
        {"i8", "u8"},   {"i16", "u16"}, {"i32", "u32"}, {"i64", "u64"}, {"u8", "u8"},
        {"u16", "u16"}, {"u32", "u32"}, {"u64", "u64"}, {"f32", "f32"}, {"f64", "f64"},
    };
    for (const Row &r : abs_rows) EXPECT_EQ(abs(expr_of(r.arg)).type(), type_named(r.result)) << "abs " << r.arg;
    struct Row2 {
        const char *a, *b, *result;
    } absd_rows[] = {
        {"i8", "i8", "u8"},    {"u8", "i8", "u8"},    {"i16", "i32", "u32"}, {"u16", "u8", "u16"},
        {"i64", "u8", "u64"},  {"f32", "i32", "f32"}, {"f64", "f32", "f64"},
    };
    for (const Row2 &r : absd_rows)
        EXPECT_EQ(absd(expr_of(r.a, "a"), expr_of(r.b, "b")).type(), type_named(r.result))
            << "absd " << r.a << ", " << r.b;
    Param<int8_t> m("m", -128);
    EXPECT_EQ(eval0<uint8_t>(abs(m)), uint8_t(128));
}

TEST(Coercion, Clamp) {
    Expr u8 = expr_of("u8");
    EXPECT_EQ(clamp(u8, 0, 255).type(), UInt(8));
    EXPECT_EQ(clamp(u8, expr_of("i32", "lo"), expr_of("i32", "hi")).type(), UInt(8));
    EXPECT_EQ(clamp(expr_of("f32"), 0, 1).type(), Float(32));
    expect_compile_error([&] { (void)clamp(u8, 0, 300); }, "cannot be represented", "clamp(u8, 0, 300)");
}

TEST(Coercion, MathFunctionsOnIntegersAreFloat32) {
    using F1 = Expr (*)(Expr);
    const std::vector<std::pair<const char *, F1>> unary = {
        {"sqrt", &sqrt},   {"exp", &exp},     {"log", &log},     {"sin", &sin},     {"cos", &cos},
        {"tan", &tan},     {"asin", &asin},   {"acos", &acos},   {"atan", &atan},   {"sinh", &sinh},
        {"cosh", &cosh},   {"tanh", &tanh},   {"asinh", &asinh}, {"acosh", &acosh}, {"atanh", &atanh},
        {"floor", &floor}, {"ceil", &ceil},   {"round", &round}, {"trunc", &trunc}, {"fract", &fract},
    };
    // Argument type -> result type.
    const std::vector<std::pair<const char *, const char *>> args = {
        {"i8", "f32"},  {"i16", "f32"}, {"i32", "f32"}, {"i64", "f32"}, {"u8", "f32"}, {"u16", "f32"},
        {"u32", "f32"}, {"u64", "f32"}, {"f32", "f32"}, {"f64", "f64"},
    };
    for (const auto &[name, fn] : unary) {
        for (const auto &[arg, result] : args)
            EXPECT_EQ(fn(expr_of(arg)).type(), type_named(result)) << name << "(" << arg << ")";
        EXPECT_EQ(fn(Expr(Var("x")) > 0).type(), Float(32)) << name << "(bool)";
    }
    // pow and atan2: a non-float first argument becomes float32, and the second argument
    // takes the type of the first.
    struct Row {
        const char *a, *b, *result;
    } two[] = {
        {"i32", "i32", "f32"}, {"i32", "f64", "f32"}, {"u8", "f32", "f32"}, {"f32", "f64", "f32"},
        {"f64", "i32", "f64"}, {"f64", "f32", "f64"}, {"f32", "i64", "f32"},
    };
    for (const Row &r : two) {
        EXPECT_EQ(pow(expr_of(r.a, "a"), expr_of(r.b, "b")).type(), type_named(r.result))
            << "pow(" << r.a << ", " << r.b << ")";
        EXPECT_EQ(atan2(expr_of(r.a, "a"), expr_of(r.b, "b")).type(), type_named(r.result))
            << "atan2(" << r.a << ", " << r.b << ")";
    }
    // Value: sqrt of an int32 is computed in float32.
    Param<int32_t> n("n", 2);
    EXPECT_EQ(eval0<float>(sqrt(n)), std::sqrt(2.0f));
    // Float-only functions.
    expect_compile_error([] { (void)is_nan(expr_of("i32")); }, "float", "is_nan(int32)");
    expect_compile_error([] { (void)lerp(expr_of("i32", "a"), expr_of("i32", "b"), 0.5f); }, "float",
                         "lerp(int32, int32, w)");
    EXPECT_EQ(is_nan(expr_of("f32")).type(), Bool());
    EXPECT_EQ(is_inf(expr_of("f64")).type(), Bool());
    EXPECT_EQ(is_finite(expr_of("f32")).type(), Bool());
    EXPECT_EQ(lerp(expr_of("f32", "a"), expr_of("f32", "b"), 0.5).type(), Float(32));
}

// --------------------------------------------------------------------------------------
// Bitwise operators and shifts

TEST(Coercion, BitwiseOperatorsUseTheOrdinaryRules) {
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            const Type want = type_named(kCommon[i][j]);
            const std::string what = std::string(kNames[i]) + " bitop " + kNames[j];
            Expr a = expr_of(kNames[i], "a"), b = expr_of(kNames[j], "b");
            EXPECT_EQ((a & b).type(), want) << what << " (&)";
            EXPECT_EQ((a | b).type(), want) << what << " (|)";
            EXPECT_EQ((a ^ b).type(), want) << what << " (^)";
        }
        EXPECT_EQ((~expr_of(kNames[i])).type(), type_named(kNames[i])) << "~" << kNames[i];
    }
    // Values: int8(-1) & uint8(15) is int8 15; int8(-2) | uint16(1) is int16 -1.
    Param<int8_t> m1("m1", -1), m2("m2", -2);
    Param<uint8_t> f15("f15", 15);
    Param<uint16_t> one("one16", 1);
    EXPECT_EQ(eval0<int8_t>(m1 & f15), int8_t(15));
    EXPECT_EQ(eval0<int16_t>(m2 | one), int16_t(-1));
    // Bools: logical, bool result; a bool with an integer is coerced like any integer.
    Expr b = Expr(Var("x")) < 3, c = Expr(Var("y")) > 1;
    EXPECT_EQ((b & c).type(), Bool());
    EXPECT_EQ((b | c).type(), Bool());
    EXPECT_EQ((b ^ c).type(), Bool());
    EXPECT_EQ((~b).type(), Bool());
    EXPECT_EQ((b & expr_of("i32")).type(), Int(32));
    EXPECT_EQ((expr_of("u8") | b).type(), UInt(8));
    // A literal takes the other operand's type.
    EXPECT_EQ((expr_of("u8") & 0xF0).type(), UInt(8));
    EXPECT_EQ((expr_of("i16") ^ -1).type(), Int(16));
    // Floats are rejected.
    expect_compile_error([] { (void)(expr_of("f32") & expr_of("i32")); }, "integer", "f32 & i32");
    expect_compile_error([] { (void)(expr_of("i32") | expr_of("f64")); }, "integer", "i32 | f64");
    expect_compile_error([] { (void)(~expr_of("f32")); }, "integer", "~f32");
}

TEST(Coercion, ShiftsKeepTheLeftType) {
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            const Type want = type_named(kNames[i]);
            const std::string what = std::string(kNames[i]) + " shift " + kNames[j];
            Expr a = expr_of(kNames[i], "a"), b = expr_of(kNames[j], "b");
            EXPECT_EQ((a << b).type(), want) << what << " (<<)";
            EXPECT_EQ((a >> b).type(), want) << what << " (>>)";
            // The shift amount is not coerced.
            const ir::Call *call = ir::as<ir::Call>(a << b);
            ASSERT_NE(call, nullptr) << what;
            ASSERT_EQ(call->args.size(), 2u) << what;
            EXPECT_EQ(call->args[1].type(), type_named(kNames[j])) << what;
        }
    }
    // A literal amount takes the left operand's type.
    EXPECT_EQ((expr_of("u8") << 3).type(), UInt(8));
    EXPECT_EQ((expr_of("i32") >> -2).type(), Int(32));
    expect_compile_error([] { (void)(expr_of("u8") << -2); }, "cannot be represented", "u8 << -2");
    expect_compile_error([] { (void)(expr_of("f32") << expr_of("i32")); }, "integer", "f32 << i32");
    expect_compile_error([] { (void)(expr_of("i32") >> expr_of("f32")); }, "integer", "i32 >> f32");
    expect_compile_error([] { (void)(expr_of("i32") << (Expr(Var("x")) > 0)); }, "integer", "i32 << bool");
}

// --------------------------------------------------------------------------------------
// Coordinates

TEST(Coercion, CoordinatesNarrowerThan64BitsBecomeInt32) {
    Var x("x");
    Func f("coord_target");
    f(x) = x;
    Buffer<int32_t> buf(std::vector<int>{4}, "coord_buf");
    for (const char *t : {"i8", "i16", "i32", "u8", "u16", "u32"}) {
        Expr arg = expr_of(t);
        Expr call = f(arg);
        const ir::Call *c = ir::as<ir::Call>(call);
        ASSERT_NE(c, nullptr) << t;
        EXPECT_EQ(c->args[0].type(), Int(32)) << "f(" << t << ")";
        Expr read = buf(arg);
        const ir::Call *r = ir::as<ir::Call>(read);
        ASSERT_NE(r, nullptr) << t;
        EXPECT_EQ(r->args[0].type(), Int(32)) << "buf(" << t << ")";
    }
    for (const char *t : {"i64", "u64"}) {
        expect_compile_error([&] { (void)Expr(f(expr_of(t))); }, "coordinates", std::string("f(") + t + ")");
        expect_compile_error([&] { (void)buf(expr_of(t)); }, "coordinates", std::string("buf(") + t + ")");
    }
    for (const char *t : {"f32", "f64"}) {
        expect_compile_error([&] { (void)Expr(f(expr_of(t))); }, "coordinates must be integers",
                             std::string("f(") + t + ")");
        expect_compile_error([&] { (void)buf(expr_of(t)); }, "coordinates must be integers",
                             std::string("buf(") + t + ")");
    }
    expect_compile_error([&] { (void)Expr(f(Expr(x) > 0)); }, "coordinates must be integers", "f(bool)");

    // A uint8 left-hand side of an update is an int32 coordinate (the histogram idiom).
    Buffer<uint8_t> in(std::vector<int>{3}, "hist_in");
    in(0) = 2;
    in(1) = 2;
    in(2) = 0;
    Func hist("hist");
    hist(x) = 0;
    RDom r(0, 3, "hr");
    hist(in(r)) += 1;
    Buffer<int32_t> h = hist.realize({4});
    EXPECT_EQ(h(0), 1);
    EXPECT_EQ(h(1), 0);
    EXPECT_EQ(h(2), 2);
    EXPECT_EQ(h(3), 0);
}

}  // namespace
