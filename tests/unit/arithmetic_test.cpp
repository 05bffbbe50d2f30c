// Integer and float arithmetic exactly as docs/semantics.md §2-§4 and §6 define it, checked
// at two levels: the scalar semantics (ir::binary, cast, intrinsic) and whole
// pipelines through the public API (realize() and realize_reference()).
//
// Expected values come from independent plain C++ written here (wider arithmetic, explicit
// floor/ceil by sign) or from constants in the document.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/IR.h"
#include "ir/Scalar.h"
#include "tessera/tessera.h"

using namespace tessera;
using tessera::ir::ExprKind;
using tessera::ir::Intrinsic;

namespace {

using i128 = __int128;

// --------------------------------------------------------------------------------------
// Helpers

template<typename T>
ir::Scalar scalar_of(T v) {
    if constexpr (std::is_floating_point_v<T>) return ir::make_float(double(v));
    else if constexpr (std::is_signed_v<T>) return ir::make_int(int64_t(v));
    else return ir::make_uint(uint64_t(v));
}

// The value of a Scalar of type T. The representation must be canonical (docs of
// ir::Scalar): signed values sign-extended, unsigned and bool zero-extended, float32
// exactly representable; a non-canonical result would be wrong as the operand of a later
// operation even if it truncates to the right value.
template<typename T>
T value_of(ir::Scalar s) {
    if constexpr (std::is_floating_point_v<T>) {
        if (sizeof(T) == 4 && !std::isnan(s.f)) {
            EXPECT_EQ(s.f, double(float(s.f))) << "float32 not rounded";
        }
        return T(s.f);
    } else if constexpr (std::is_signed_v<T>) {
        EXPECT_EQ(s.i, int64_t(T(s.i))) << "signed result not sign-extended: " << s.i;
        return T(s.i);
    } else {
        EXPECT_EQ(s.u, uint64_t(T(s.u))) << "unsigned result not zero-extended: " << s.u;
        return T(s.u);
    }
}

// The result of `op` on two values of type T, through the scalar semantics.
template<typename T>
T scalar_binary(ExprKind op, T a, T b) {
    return value_of<T>(ir::binary(op, type_of<T>(), scalar_of(a), scalar_of(b)));
}

template<typename T>
bool scalar_compare(ExprKind op, T a, T b) {
    return ir::binary(op, type_of<T>(), scalar_of(a), scalar_of(b)).u != 0;
}

template<typename To, typename From>
To scalar_cast(From v) {
    return value_of<To>(ir::cast(type_of<To>(), type_of<From>(), scalar_of(v)));
}

template<typename R, typename A, typename B>
R scalar_intrinsic(Intrinsic op, A a, B b) {
    Type types[2] = {type_of<A>(), type_of<B>()};
    ir::Scalar args[2] = {scalar_of(a), scalar_of(b)};
    return value_of<R>(ir::intrinsic(op, type_of<R>(), types, args, 2));
}

template<typename R, typename A>
R scalar_intrinsic1(Intrinsic op, A a) {
    Type types[1] = {type_of<A>()};
    ir::Scalar args[1] = {scalar_of(a)};
    return value_of<R>(ir::intrinsic(op, type_of<R>(), types, args, 1));
}

// A zero-dimensional Func equal to e, realized through realize() and realize_reference();
// both must agree bit for bit.
template<typename T>
T eval0(const Expr &e) {
    Func f;
    f() = e;
    Buffer<T> a = f.realize();
    Buffer<T> b = f.realize_reference();
    T x = a(), y = b();
    EXPECT_EQ(std::memcmp(&x, &y, sizeof(T)), 0) << "realize and realize_reference disagree";
    return x;
}

template<typename T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Two's-complement wrap of a mathematical integer to T.
template<typename T>
T wrap(i128 v) {
    constexpr int bits = int(sizeof(T) * 8);
    unsigned __int128 m = (unsigned __int128)v & (((unsigned __int128)1 << bits) - 1);
    using U = std::make_unsigned_t<T>;
    return T(U(m));  // conversion to signed is modular since C++20
}

// --------------------------------------------------------------------------------------
// (a) Euclidean division and modulo

// floor(a / b) for b > 0, written without relying on C's truncating division of negatives.
i128 floor_div_positive(i128 a, i128 b) {
    if (a >= 0) return a / b;
    return -((-a + b - 1) / b);
}

struct QR {
    i128 q, r;
};

// docs/semantics.md §2: q = floor(a/b) for b > 0, ceil(a/b) for b < 0, and x/0 == x%0 == 0.
QR euclid_reference(i128 a, i128 b) {
    if (b == 0) return {0, 0};
    i128 q = b > 0 ? floor_div_positive(a, b) : -floor_div_positive(a, -b);
    return {q, a - b * q};
}

template<typename T>
std::vector<i128> operand_grid() {
    const i128 mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
    std::vector<i128> candidates = {
        mn, mn + 1, mn + 2, mn / 2, mn / 3, -100000, -1000, -129, -128, -127, -13, -8, -7, -6, -5, -4, -3,
        -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 13, 127, 128, 255, 256, 1000, 65535, 100000, mx / 3, mx / 2,
        mx - 2, mx - 1, mx,
    };
    std::vector<i128> grid;
    for (i128 c : candidates) {
        if (c < mn || c > mx) continue;
        bool dup = false;
        for (i128 g : grid) dup = dup || g == c;
        if (!dup) grid.push_back(c);
    }
    return grid;
}

template<typename T>
void check_div_mod_grid(const char *type_name) {
    const std::vector<i128> grid = operand_grid<T>();
    const int n = int(grid.size() * grid.size());
    Buffer<T> A(std::vector<int>{n}, "A"), B(std::vector<int>{n}, "B");
    std::vector<T> want_q(static_cast<size_t>(n)), want_r(static_cast<size_t>(n));
    int k = 0;
    for (i128 a : grid) {
        for (i128 b : grid) {
            QR qr = euclid_reference(a, b);
            // The properties the document promises, checked on the reference itself.
            if (b != 0) {
                EXPECT_TRUE(qr.r >= 0 && qr.r < (b < 0 ? -b : b));
                EXPECT_TRUE(a == b * qr.q + qr.r);
            }
            A(k) = T(a);
            B(k) = T(b);
            want_q[size_t(k)] = wrap<T>(qr.q);
            want_r[size_t(k)] = wrap<T>(qr.r);
            const T sq = scalar_binary<T>(ExprKind::Div, T(a), T(b));
            const T sr = scalar_binary<T>(ExprKind::Mod, T(a), T(b));
            EXPECT_EQ(sq, want_q[size_t(k)]) << type_name << ": " << int64_t(a) << " / " << int64_t(b);
            EXPECT_EQ(sr, want_r[size_t(k)]) << type_name << ": " << int64_t(a) << " % " << int64_t(b);
            // a == b*(a/b) + a%b in wrapping arithmetic, for every b != 0.
            if (b != 0) {
                EXPECT_EQ(T(a), wrap<T>(i128(T(b)) * i128(sq) + i128(sr))) << type_name;
            }
            k++;
        }
    }
    Var x("x");
    Func q("quotient"), r("remainder");
    q(x) = A(x) / B(x);
    r(x) = A(x) % B(x);
    ASSERT_EQ(q.type(), type_of<T>());
    Buffer<T> got_q = q.realize({n}), got_r = r.realize({n});
    Buffer<T> ref_q = q.realize_reference({n}), ref_r = r.realize_reference({n});
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(got_q(i), want_q[size_t(i)]) << type_name << ": " << int64_t(A(i)) << " / " << int64_t(B(i));
        EXPECT_EQ(got_r(i), want_r[size_t(i)]) << type_name << ": " << int64_t(A(i)) << " % " << int64_t(B(i));
        EXPECT_EQ(ref_q(i), want_q[size_t(i)]) << type_name;
        EXPECT_EQ(ref_r(i), want_r[size_t(i)]) << type_name;
    }
}

TEST(Arithmetic, EuclideanDivModGridEveryIntegerType) {
    check_div_mod_grid<int8_t>("int8");
    check_div_mod_grid<int16_t>("int16");
    check_div_mod_grid<int32_t>("int32");
    check_div_mod_grid<int64_t>("int64");
    check_div_mod_grid<uint8_t>("uint8");
    check_div_mod_grid<uint16_t>("uint16");
    check_div_mod_grid<uint32_t>("uint32");
    check_div_mod_grid<uint64_t>("uint64");
}

template<typename T>
void check_doc_table(const char *type_name) {
    // docs/semantics.md §2: a, b, a / b, a % b.
    const int64_t rows[][4] = {
        {7, 2, 3, 1},   {-7, 2, -4, 1}, {7, -2, -3, 1}, {-7, -2, 4, 1}, {-1, 3, -1, 2},
        {1, -3, 0, 1},  {-1, -3, 1, 2}, {6, -3, -2, 0}, {5, 0, 0, 0},   {-5, 0, 0, 0},
        {0, 0, 0, 0},
    };
    Param<T> pa("pa"), pb("pb");
    Func q, r;
    q() = Expr(pa) / Expr(pb);
    r() = Expr(pa) % Expr(pb);
    for (const auto &row : rows) {
        pa.set(T(row[0]));
        pb.set(T(row[1]));
        EXPECT_EQ(int64_t(Buffer<T>(q.realize())()), row[2]) << type_name << ": " << row[0] << " / " << row[1];
        EXPECT_EQ(int64_t(Buffer<T>(r.realize())()), row[3]) << type_name << ": " << row[0] << " % " << row[1];
        EXPECT_EQ(int64_t(Buffer<T>(q.realize_reference())()), row[2]) << type_name;
        EXPECT_EQ(int64_t(Buffer<T>(r.realize_reference())()), row[3]) << type_name;
    }
    // MIN / -1 wraps to MIN with remainder 0.
    const T mn = std::numeric_limits<T>::min();
    pa.set(mn);
    pb.set(T(-1));
    EXPECT_EQ(Buffer<T>(q.realize())(), mn) << type_name;
    EXPECT_EQ(Buffer<T>(r.realize())(), T(0)) << type_name;
    EXPECT_EQ(scalar_binary<T>(ExprKind::Div, mn, T(-1)), mn) << type_name;
    EXPECT_EQ(scalar_binary<T>(ExprKind::Mod, mn, T(-1)), T(0)) << type_name;
}

TEST(Arithmetic, DocumentedDivisionTable) {
    check_doc_table<int8_t>("int8");
    check_doc_table<int16_t>("int16");
    check_doc_table<int32_t>("int32");
    check_doc_table<int64_t>("int64");
    // Unsigned: ordinary division, and x / 0 == 0.
    EXPECT_EQ(scalar_binary<uint8_t>(ExprKind::Div, 7, 2), 3);
    EXPECT_EQ(scalar_binary<uint8_t>(ExprKind::Mod, 7, 2), 1);
    EXPECT_EQ(scalar_binary<uint32_t>(ExprKind::Div, 7, 0), 0u);
    EXPECT_EQ(scalar_binary<uint64_t>(ExprKind::Mod, 7, 0), 0u);
    EXPECT_EQ(scalar_binary<uint8_t>(ExprKind::Div, 255, 2), 127);
}

TEST(Arithmetic, DivisionWithLiteralsInAPipeline) {
    // Literals take the Expr's type, and the division is still Euclidean.
    Var x("x");
    Func f("div_by_literal"), g("mod_by_literal");
    f(x) = (x - 5) / 3;
    g(x) = (x - 5) % -3;
    Buffer<int32_t> fq = f.realize({10}), gr = g.realize({10});
    for (int i = 0; i < 10; i++) {
        QR want_f = euclid_reference(i - 5, 3), want_g = euclid_reference(i - 5, -3);
        EXPECT_EQ(fq(i), int32_t(want_f.q)) << i - 5 << " / 3";
        EXPECT_EQ(gr(i), int32_t(want_g.r)) << i - 5 << " % -3";
    }
}

// --------------------------------------------------------------------------------------
// (b) Wrap-around

TEST(Arithmetic, WrapAround) {
    // Scalar semantics.
    EXPECT_EQ(scalar_binary<int8_t>(ExprKind::Add, 127, 1), -128);
    EXPECT_EQ(scalar_binary<int8_t>(ExprKind::Sub, -128, 1), 127);
    EXPECT_EQ(scalar_binary<int8_t>(ExprKind::Mul, 64, 2), -128);
    EXPECT_EQ(scalar_binary<int32_t>(ExprKind::Add, INT32_MAX, 1), INT32_MIN);
    EXPECT_EQ(scalar_binary<int32_t>(ExprKind::Mul, 65536, 65536), 0);
    EXPECT_EQ(scalar_binary<int32_t>(ExprKind::Mul, 46341, 46341), int32_t(-2147479015));
    EXPECT_EQ(scalar_binary<int64_t>(ExprKind::Add, INT64_MAX, 1), INT64_MIN);
    EXPECT_EQ(scalar_binary<int64_t>(ExprKind::Mul, INT64_MIN, -1), INT64_MIN);
    EXPECT_EQ(scalar_binary<uint8_t>(ExprKind::Sub, 0, 1), 255);
    EXPECT_EQ(scalar_binary<uint8_t>(ExprKind::Add, 250, 10), 4);
    EXPECT_EQ(scalar_binary<uint16_t>(ExprKind::Mul, 65535, 65535), 1);
    EXPECT_EQ(scalar_binary<uint32_t>(ExprKind::Sub, 0, 1), UINT32_MAX);
    EXPECT_EQ(scalar_binary<uint64_t>(ExprKind::Add, UINT64_MAX, 2), 1u);
    // Negation of MIN is 0 - MIN.
    EXPECT_EQ(scalar_binary<int8_t>(ExprKind::Sub, 0, -128), -128);
    EXPECT_EQ(scalar_binary<int32_t>(ExprKind::Sub, 0, INT32_MIN), INT32_MIN);

    // Through pipelines.
    Param<int8_t> i8("i8v", 127);
    EXPECT_EQ(eval0<int8_t>(Expr(i8) + 1), -128);
    i8.set(-128);
    EXPECT_EQ(eval0<int8_t>(-Expr(i8)), -128);
    EXPECT_EQ(eval0<int8_t>(Expr(i8) - 1), 127);
    Param<int32_t> i32("i32v", INT32_MAX);
    EXPECT_EQ(eval0<int32_t>(Expr(i32) + 1), INT32_MIN);
    EXPECT_EQ(eval0<int32_t>(Expr(i32) * 2), -2);
    i32.set(INT32_MIN);
    EXPECT_EQ(eval0<int32_t>(-Expr(i32)), INT32_MIN);
    Param<int64_t> i64("i64v", INT64_MIN);
    EXPECT_EQ(eval0<int64_t>(-Expr(i64)), INT64_MIN);
    EXPECT_EQ(eval0<int64_t>(Expr(i64) - 1), INT64_MAX);
    Param<uint8_t> u8("u8v", 0);
    EXPECT_EQ(eval0<uint8_t>(Expr(u8) - 1), 255);
    u8.set(1);
    EXPECT_EQ(eval0<uint8_t>(-Expr(u8)), 255);
    Param<uint16_t> u16("u16v", 65535);
    EXPECT_EQ(eval0<uint16_t>(Expr(u16) * Expr(u16)), 1);

    // A wrapped result used as an operand: the comparison sees the wrapped value.
    i8.set(127);
    EXPECT_EQ(eval0<bool>(Expr(i8) + 1 < 0), true);
    EXPECT_EQ(eval0<int8_t>((Expr(i8) + 1) / 2), -64);
    u8.set(0);
    EXPECT_EQ(eval0<bool>(Expr(u8) - 1 > 200), true);
    EXPECT_EQ(eval0<uint8_t>((Expr(u8) - 1) / 2), 127);
    i32.set(INT32_MAX);
    EXPECT_EQ(eval0<int32_t>(max(Expr(i32) + 1, 0)), 0);

    // int32 overflow inside a Func over a grid: x * 2^30 wraps.
    Var x("x");
    Func f("wraps");
    f(x) = x * 1073741824;
    Buffer<int32_t> out = f.realize({4});
    for (int i = 0; i < 4; i++) EXPECT_EQ(out(i), wrap<int32_t>(i128(i) * 1073741824)) << i;
}

// docs/semantics.md §7.2: an RDom variable takes the values min + t, t = 0 ... extent-1,
// computed in int32 (wrapping), even when min + extent passes INT32_MAX.
TEST(Arithmetic, RDomValuesWrapInInt32) {
    Var x("x");
    Func count("count"), last("last");
    RDom r(INT32_MAX - 2, 5, "near_max");
    count(x) = 0;
    count(0) = count(0) + 1 + r.x * 0;
    last(x) = 0;
    last(0) = r.x;
    EXPECT_EQ(Buffer<int32_t>(count.realize({1}))(0), 5);
    EXPECT_EQ(Buffer<int32_t>(last.realize({1}))(0), INT32_MIN + 1);
}

// --------------------------------------------------------------------------------------
// (c) Conversions

TEST(Arithmetic, FloatToIntSaturates) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    // Scalar semantics.
    EXPECT_EQ((scalar_cast<int32_t, float>(nan)), 0);
    EXPECT_EQ((scalar_cast<uint8_t, double>(std::nan(""))), 0);
    EXPECT_EQ((scalar_cast<int32_t, float>(inf)), INT32_MAX);
    EXPECT_EQ((scalar_cast<int32_t, float>(-inf)), INT32_MIN);
    EXPECT_EQ((scalar_cast<uint8_t, float>(-3.7f)), 0);
    EXPECT_EQ((scalar_cast<int8_t, float>(-3.7f)), -3);
    EXPECT_EQ((scalar_cast<uint8_t, float>(300.5f)), 255);
    EXPECT_EQ((scalar_cast<uint8_t, float>(255.9f)), 255);
    EXPECT_EQ((scalar_cast<int32_t, double>(3e9)), INT32_MAX);
    EXPECT_EQ((scalar_cast<int32_t, float>(2.5e9f)), INT32_MAX);
    EXPECT_EQ((scalar_cast<int32_t, double>(-3e9)), INT32_MIN);
    EXPECT_EQ((scalar_cast<int32_t, double>(-2.5)), -2);
    EXPECT_EQ((scalar_cast<int32_t, double>(2.5)), 2);
    EXPECT_EQ((scalar_cast<int8_t, double>(-128.9)), -128);
    EXPECT_EQ((scalar_cast<int8_t, double>(-129.0)), -128);
    EXPECT_EQ((scalar_cast<int8_t, double>(127.9)), 127);
    EXPECT_EQ((scalar_cast<int64_t, double>(9.3e18)), INT64_MAX);
    EXPECT_EQ((scalar_cast<int64_t, double>(-9.3e18)), INT64_MIN);
    EXPECT_EQ((scalar_cast<int64_t, double>(-9223372036854775808.0)), INT64_MIN);
    EXPECT_EQ((scalar_cast<uint64_t, double>(1e30)), UINT64_MAX);
    EXPECT_EQ((scalar_cast<uint64_t, double>(-1.0)), 0u);
    EXPECT_EQ((scalar_cast<uint32_t, double>(4294967295.5)), UINT32_MAX);
    EXPECT_EQ((scalar_cast<uint16_t, float>(-inf)), 0);
    EXPECT_EQ((scalar_cast<uint16_t, float>(inf)), 65535);
    EXPECT_EQ((scalar_cast<bool, float>(nan)), true);
    EXPECT_EQ((scalar_cast<bool, float>(-0.0f)), false);
    EXPECT_EQ((scalar_cast<bool, float>(0.5f)), true);

    // Through pipelines.
    Param<float> pf("pf");
    Param<double> pd("pd");
    pf.set(nan);
    EXPECT_EQ(eval0<int32_t>(cast<int32_t>(pf)), 0);
    EXPECT_EQ(eval0<uint64_t>(cast<uint64_t>(pf)), 0u);
    pf.set(inf);
    EXPECT_EQ(eval0<int32_t>(cast<int32_t>(pf)), INT32_MAX);
    EXPECT_EQ(eval0<int64_t>(cast<int64_t>(pf)), INT64_MAX);
    pf.set(-inf);
    EXPECT_EQ(eval0<int16_t>(cast<int16_t>(pf)), INT16_MIN);
    pf.set(-3.7f);
    EXPECT_EQ(eval0<uint8_t>(cast<uint8_t>(pf)), 0);
    EXPECT_EQ(eval0<int8_t>(cast<int8_t>(pf)), -3);
    pf.set(300.5f);
    EXPECT_EQ(eval0<uint8_t>(cast<uint8_t>(pf)), 255);
    pd.set(3e9);
    EXPECT_EQ(eval0<int32_t>(cast<int32_t>(pd)), INT32_MAX);
    EXPECT_EQ(eval0<uint32_t>(cast<uint32_t>(pd)), 3000000000u);
    pd.set(-2.5);
    EXPECT_EQ(eval0<int32_t>(cast<int32_t>(pd)), -2);
    EXPECT_EQ(eval0<uint32_t>(cast<uint32_t>(pd)), 0u);
    pd.set(0.5);
    EXPECT_EQ(eval0<bool>(cast<bool>(pd)), true);
    pd.set(1e300);
    EXPECT_EQ(eval0<float>(cast<float>(pd)), std::numeric_limits<float>::infinity());

    // A float32 at and next to each integer type's bounds: the compiled code converts as
    // the scalar semantics says.
    for (float v : {2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 4294967040.0f, 4294967296.0f,
                    9223371487098961920.0f, 9223372036854775808.0f, -9223372036854775808.0f,
                    18446742974197923840.0f, 18446744073709551616.0f, 32767.99f, 32768.0f, -32768.0f, -32768.5f,
                    65535.99f, 65536.0f, 127.99f, 128.0f, -128.0f, -128.99f, 255.99f, 256.0f, -0.99f, -0.0f}) {
        SCOPED_TRACE(v);
        pf.set(v);
        EXPECT_EQ(eval0<int8_t>(cast<int8_t>(pf)), (scalar_cast<int8_t, float>(v)));
        EXPECT_EQ(eval0<int16_t>(cast<int16_t>(pf)), (scalar_cast<int16_t, float>(v)));
        EXPECT_EQ(eval0<int32_t>(cast<int32_t>(pf)), (scalar_cast<int32_t, float>(v)));
        EXPECT_EQ(eval0<int64_t>(cast<int64_t>(pf)), (scalar_cast<int64_t, float>(v)));
        EXPECT_EQ(eval0<uint8_t>(cast<uint8_t>(pf)), (scalar_cast<uint8_t, float>(v)));
        EXPECT_EQ(eval0<uint16_t>(cast<uint16_t>(pf)), (scalar_cast<uint16_t, float>(v)));
        EXPECT_EQ(eval0<uint32_t>(cast<uint32_t>(pf)), (scalar_cast<uint32_t, float>(v)));
        EXPECT_EQ(eval0<uint64_t>(cast<uint64_t>(pf)), (scalar_cast<uint64_t, float>(v)));
    }
}

TEST(Arithmetic, IntToFloatRoundsToNearestEven) {
    const int64_t two53 = int64_t(1) << 53;
    EXPECT_EQ((scalar_cast<double, int64_t>(two53 + 1)), 9007199254740992.0);  // tie -> even (2^53)
    EXPECT_EQ((scalar_cast<double, int64_t>(two53 + 3)), 9007199254740996.0);  // tie -> even (2^53 + 4)
    EXPECT_EQ((scalar_cast<float, int32_t>(16777217)), 16777216.0f);
    EXPECT_EQ((scalar_cast<float, int32_t>(16777219)), 16777220.0f);
    EXPECT_EQ((scalar_cast<float, uint64_t>(UINT64_MAX)), 18446744073709551616.0f);
    EXPECT_EQ((scalar_cast<double, uint64_t>(UINT64_MAX)), 18446744073709551616.0);
    EXPECT_EQ((scalar_cast<float, int64_t>(INT64_MIN)), -9223372036854775808.0f);
    EXPECT_EQ((scalar_cast<float, bool>(true)), 1.0f);
    // 2^60 + 2^36 + 1 is just above a float32 midpoint: it rounds up in one step.
    EXPECT_EQ((scalar_cast<float, int64_t>((int64_t(1) << 60) + (int64_t(1) << 36) + 1)),
              1152921642045800448.0f);

    Param<int64_t> p("p64", two53 + 1);
    EXPECT_EQ(eval0<double>(cast<double>(p)), 9007199254740992.0);
    p.set(two53 + 3);
    EXPECT_EQ(eval0<double>(cast<double>(p)), 9007199254740996.0);
    Param<int32_t> q("p32", 16777217);
    EXPECT_EQ(eval0<float>(cast<float>(q)), 16777216.0f);
    Param<double> d("pd", 16777217.0);
    EXPECT_EQ(eval0<float>(cast<float>(d)), 16777216.0f);
}

TEST(Arithmetic, IntNarrowingWraps) {
    EXPECT_EQ((scalar_cast<uint8_t, int32_t>(300)), 44);
    EXPECT_EQ((scalar_cast<int8_t, uint8_t>(200)), -56);
    EXPECT_EQ((scalar_cast<uint16_t, int8_t>(-1)), 65535);
    EXPECT_EQ((scalar_cast<int32_t, uint8_t>(255)), 255);
    EXPECT_EQ((scalar_cast<int16_t, int32_t>(40000)), -25536);
    EXPECT_EQ((scalar_cast<int32_t, int64_t>(int64_t(1) << 32 | 5)), 5);
    EXPECT_EQ((scalar_cast<uint64_t, int32_t>(-1)), UINT64_MAX);
    EXPECT_EQ((scalar_cast<int64_t, uint32_t>(UINT32_MAX)), int64_t(UINT32_MAX));
    EXPECT_EQ((scalar_cast<bool, int32_t>(256)), true);

    Param<int32_t> p("n300", 300);
    EXPECT_EQ(eval0<uint8_t>(cast<uint8_t>(p)), 44);
    Param<uint8_t> u("u200", 200);
    EXPECT_EQ(eval0<int8_t>(cast<int8_t>(u)), -56);
    Param<int8_t> m("m1", -1);
    EXPECT_EQ(eval0<uint16_t>(cast<uint16_t>(m)), 65535);
    EXPECT_EQ(eval0<uint64_t>(cast<uint64_t>(m)), UINT64_MAX);
    Param<int32_t> big("n40000", 40000);
    EXPECT_EQ(eval0<int16_t>(cast<int16_t>(big)), -25536);
}

// --------------------------------------------------------------------------------------
// (d) Shifts, bitwise operators, float %, float min/max, round

TEST(Arithmetic, ShiftsAsDocumented) {
    using I = Intrinsic;
    // Examples of docs/semantics.md §2.
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int8_t>(I::ShiftLeft, 1, 7)), -128);
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int8_t>(I::ShiftLeft, 1, 8)), 0);
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int32_t>(I::ShiftRight, -5, 1)), -3);
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int32_t>(I::ShiftRight, -1, 10)), -1);
    EXPECT_EQ((scalar_intrinsic<uint8_t, uint8_t, int32_t>(I::ShiftRight, 255, 10)), 0);
    // Negative amounts shift the other way.
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int32_t>(I::ShiftLeft, 100, -2)), 25);
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int32_t>(I::ShiftRight, 3, -2)), 12);
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int8_t>(I::ShiftLeft, -100, -2)), -25);
    EXPECT_EQ((scalar_intrinsic<uint8_t, uint8_t, int8_t>(I::ShiftRight, 3, -7)), 128);
    EXPECT_EQ((scalar_intrinsic<uint8_t, uint8_t, int8_t>(I::ShiftRight, 3, -8)), 0);
    // -k is computed exactly: INT64_MIN means a shift by 2^63 the other way.
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int64_t>(I::ShiftLeft, -8, INT64_MIN)), -1);
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int64_t>(I::ShiftLeft, 8, INT64_MIN)), 0);
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, int64_t>(I::ShiftRight, 8, INT64_MIN)), 0);
    // Oversized amounts, including unsigned amounts >= 2^63.
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, uint64_t>(I::ShiftLeft, 1, (uint64_t(1) << 63) + 5)), 0);
    EXPECT_EQ((scalar_intrinsic<int32_t, int32_t, uint64_t>(I::ShiftRight, -1, UINT64_MAX)), -1);
    EXPECT_EQ((scalar_intrinsic<int64_t, int64_t, int32_t>(I::ShiftLeft, 1, 63)), INT64_MIN);
    EXPECT_EQ((scalar_intrinsic<int64_t, int64_t, int32_t>(I::ShiftLeft, 1, 64)), 0);
    EXPECT_EQ((scalar_intrinsic<int64_t, int64_t, int32_t>(I::ShiftRight, INT64_MIN, 63)), -1);
    EXPECT_EQ((scalar_intrinsic<uint64_t, uint64_t, int32_t>(I::ShiftRight, UINT64_MAX, 63)), 1u);
    EXPECT_EQ((scalar_intrinsic<uint64_t, uint64_t, int32_t>(I::ShiftLeft, UINT64_MAX, 64)), 0u);
    // Logical vs arithmetic right shift; left shifts wrap.
    EXPECT_EQ((scalar_intrinsic<uint8_t, uint8_t, int32_t>(I::ShiftRight, 0x80, 7)), 1);
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int32_t>(I::ShiftRight, -128, 7)), -1);
    EXPECT_EQ((scalar_intrinsic<uint8_t, uint8_t, int32_t>(I::ShiftLeft, 0x81, 1)), 0x02);
    EXPECT_EQ((scalar_intrinsic<int16_t, int16_t, uint8_t>(I::ShiftLeft, 0x4001, 1)), int16_t(0x8002 - 0x10000));

    // Through pipelines, with Param amounts of various types.
    Param<int8_t> one8("one8", 1);
    Param<int32_t> amount("amount", 7);
    EXPECT_EQ(eval0<int8_t>(Expr(one8) << Expr(amount)), -128);
    amount.set(8);
    EXPECT_EQ(eval0<int8_t>(Expr(one8) << Expr(amount)), 0);
    amount.set(-2);
    Param<int32_t> x("xv", 100);
    EXPECT_EQ(eval0<int32_t>(Expr(x) << Expr(amount)), 25);  // x << -2 == x >> 2
    EXPECT_EQ(eval0<int32_t>(Expr(x) >> Expr(amount)), 400);
    EXPECT_EQ(eval0<int32_t>(Expr(x) << -2), 25);
    Param<int8_t> m1("m1", -1);
    Param<uint64_t> huge("huge", UINT64_MAX);
    EXPECT_EQ(eval0<int8_t>(Expr(m1) >> Expr(huge)), -1);
    EXPECT_EQ(eval0<int8_t>(Expr(m1) << Expr(huge)), 0);
    Param<uint8_t> u255("u255", 255);
    EXPECT_EQ(eval0<uint8_t>(Expr(u255) >> 10), 0);
    Param<int32_t> m5("m5", -5);
    EXPECT_EQ(eval0<int32_t>(Expr(m5) >> 1), -3);
}

TEST(Arithmetic, BitwiseOperators) {
    using I = Intrinsic;
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int8_t>(I::BitAnd, -1, 15)), 15);
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int8_t>(I::BitOr, -128, 1)), -127);
    EXPECT_EQ((scalar_intrinsic<int8_t, int8_t, int8_t>(I::BitXor, -1, 1)), -2);
    EXPECT_EQ((scalar_intrinsic<uint8_t, uint8_t, uint8_t>(I::BitXor, 0xF0, 0xFF)), 0x0F);
    EXPECT_EQ((scalar_intrinsic<uint64_t, uint64_t, uint64_t>(I::BitAnd, UINT64_MAX, 0x1234)), 0x1234u);
    EXPECT_EQ((scalar_intrinsic1<uint8_t, uint8_t>(I::BitNot, 0)), 255);
    EXPECT_EQ((scalar_intrinsic1<int8_t, int8_t>(I::BitNot, 0)), -1);
    EXPECT_EQ((scalar_intrinsic1<uint16_t, uint16_t>(I::BitNot, 0x00FF)), 0xFF00);
    EXPECT_EQ((scalar_intrinsic1<int32_t, int32_t>(I::BitNot, 5)), -6);

    Param<uint8_t> a("a8", 0xF0), b("b8", 0x3C);
    EXPECT_EQ(eval0<uint8_t>(Expr(a) & Expr(b)), 0x30);
    EXPECT_EQ(eval0<uint8_t>(Expr(a) | Expr(b)), 0xFC);
    EXPECT_EQ(eval0<uint8_t>(Expr(a) ^ Expr(b)), 0xCC);
    EXPECT_EQ(eval0<uint8_t>(~Expr(a)), 0x0F);
    // Mixed signedness: int8(-1) with uint16(0x1234) is int16 0x1234 (sign-extended -1).
    Param<int8_t> m1("m1", -1);
    Param<uint16_t> w("w16", 0x1234);
    EXPECT_EQ(eval0<int16_t>(Expr(m1) & Expr(w)), 0x1234);
    EXPECT_EQ(eval0<int16_t>(Expr(m1) ^ Expr(w)), int16_t(~0x1234));
    // uint8(0x80) with int8: int8, bit pattern kept.
    Param<uint8_t> hi("hi", 0x80);
    Param<int8_t> zero("z8", 0);
    EXPECT_EQ(eval0<int8_t>(Expr(hi) | Expr(zero)), -128);
    // On bools, logical.
    Param<int32_t> v("v", 3);
    EXPECT_EQ(eval0<bool>((Expr(v) > 1) & (Expr(v) < 5)), true);
    EXPECT_EQ(eval0<bool>((Expr(v) > 1) ^ (Expr(v) < 5)), false);
    EXPECT_EQ(eval0<bool>((Expr(v) > 4) | (Expr(v) < 2)), false);
    EXPECT_EQ(eval0<bool>(~(Expr(v) > 4)), true);
}

// The float remainder as docs/semantics.md §3 defines it, written out step by step.
template<typename T>
T float_mod_reference(T a, T b) {
    T q = std::floor(a / b);
    T p = b * q;
    return a - p;
}

TEST(Arithmetic, FloatModulo) {
    // Documented examples.
    EXPECT_EQ(scalar_binary<float>(ExprKind::Mod, 7.5f, 2.0f), 1.5f);
    EXPECT_EQ(scalar_binary<float>(ExprKind::Mod, -7.5f, 2.0f), 0.5f);
    EXPECT_EQ(scalar_binary<float>(ExprKind::Mod, 7.5f, -2.0f), -0.5f);
    EXPECT_EQ(scalar_binary<float>(ExprKind::Mod, -1e-30f, 1.0f), 1.0f);
    EXPECT_TRUE(std::isnan(scalar_binary<float>(ExprKind::Mod, 3.0f, 0.0f)));
    EXPECT_EQ(scalar_binary<double>(ExprKind::Mod, -7.5, 2.0), 0.5);
    EXPECT_EQ(scalar_binary<double>(ExprKind::Mod, 7.5, -2.0), -0.5);
    // A grid against the step-by-step reference (bit for bit).
    const float fs[] = {7.5f, -7.5f, 0.1f, -0.1f, 1e-30f, -1e-30f, 3.0f, 1e10f, -1e10f, 0.0f, 2.0f};
    for (float a : fs)
        for (float b : fs) {
            if (b == 0.0f) continue;
            float want = float_mod_reference(a, b), got = scalar_binary<float>(ExprKind::Mod, a, b);
            EXPECT_TRUE(same_bits(want, got)) << a << " % " << b << ": " << got << " vs " << want;
        }
    // float32 % is computed in float32, not in double.
    EXPECT_TRUE(same_bits(scalar_binary<float>(ExprKind::Mod, 1e10f, 0.1f), float_mod_reference(1e10f, 0.1f)));

    Param<float> pa("fa", -7.5f), pb("fb", 2.0f);
    EXPECT_EQ(eval0<float>(Expr(pa) % Expr(pb)), 0.5f);
    pa.set(-1e-30f);
    pb.set(1.0f);
    EXPECT_EQ(eval0<float>(Expr(pa) % Expr(pb)), 1.0f);
    pb.set(0.0f);
    EXPECT_TRUE(std::isnan(eval0<float>(Expr(pa) % Expr(pb))));
    Param<double> da("da", 7.5);
    EXPECT_EQ(eval0<double>(Expr(da) % -2.0), -0.5);
}

TEST(Arithmetic, FloatMinMaxFollowTheComparison) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // min(a, b) = a < b ? a : b; max(a, b) = a > b ? a : b.
    EXPECT_EQ(scalar_binary<float>(ExprKind::Min, nan, 1.0f), 1.0f);
    EXPECT_TRUE(std::isnan(scalar_binary<float>(ExprKind::Min, 1.0f, nan)));
    EXPECT_EQ(scalar_binary<float>(ExprKind::Max, nan, 1.0f), 1.0f);
    EXPECT_TRUE(std::isnan(scalar_binary<float>(ExprKind::Max, 1.0f, nan)));
    EXPECT_TRUE(same_bits(scalar_binary<float>(ExprKind::Min, -0.0f, 0.0f), 0.0f));
    EXPECT_TRUE(same_bits(scalar_binary<float>(ExprKind::Min, 0.0f, -0.0f), -0.0f));
    EXPECT_TRUE(same_bits(scalar_binary<float>(ExprKind::Max, -0.0f, 0.0f), 0.0f));
    EXPECT_TRUE(same_bits(scalar_binary<float>(ExprKind::Max, 0.0f, -0.0f), -0.0f));
    EXPECT_TRUE(same_bits(scalar_binary<double>(ExprKind::Min, -0.0, 0.0), 0.0));
    EXPECT_EQ(scalar_binary<double>(ExprKind::Min, std::nan(""), 2.0), 2.0);

    Param<float> a("mina"), b("minb");
    a.set(nan);
    b.set(1.0f);
    EXPECT_EQ(eval0<float>(min(a, b)), 1.0f);
    EXPECT_TRUE(std::isnan(eval0<float>(min(b, a))));
    EXPECT_EQ(eval0<float>(max(a, b)), 1.0f);
    EXPECT_TRUE(std::isnan(eval0<float>(max(b, a))));
    a.set(-0.0f);
    b.set(0.0f);
    EXPECT_TRUE(same_bits(eval0<float>(min(a, b)), 0.0f));
    EXPECT_TRUE(same_bits(eval0<float>(min(b, a)), -0.0f));
    // clamp is min(max(a, lo), hi): max(NaN, 0) is 0, then min(0, 1) is 0.
    a.set(nan);
    EXPECT_EQ(eval0<float>(clamp(a, 0.0f, 1.0f)), 0.0f);
}

TEST(Arithmetic, RoundHalfToEven) {
    struct Row {
        float in, out;
    } rows[] = {{2.5f, 2.0f}, {3.5f, 4.0f}, {-2.5f, -2.0f}, {0.5f, 0.0f}, {1.5f, 2.0f},
                {-0.5f, -0.0f}, {2.4f, 2.0f}, {2.6f, 3.0f}, {-3.5f, -4.0f}, {8388609.0f, 8388609.0f}};
    Param<float> p("rp");
    for (const Row &r : rows) {
        EXPECT_TRUE(same_bits(scalar_intrinsic1<float, float>(Intrinsic::Round, r.in), r.out)) << "round(" << r.in << ")";
        p.set(r.in);
        EXPECT_TRUE(same_bits(eval0<float>(round(p)), r.out)) << "round(" << r.in << ") in a pipeline";
    }
    EXPECT_EQ((scalar_intrinsic1<double, double>(Intrinsic::Round, 2.5)), 2.0);
    EXPECT_EQ((scalar_intrinsic1<double, double>(Intrinsic::Round, -3.5)), -4.0);
    // round of an integer is float32.
    Param<int32_t> i("ri", 7);
    EXPECT_EQ(eval0<float>(round(i)), 7.0f);
    // floor, ceil, trunc for comparison.
    p.set(-2.5f);
    EXPECT_EQ(eval0<float>(floor(p)), -3.0f);
    EXPECT_EQ(eval0<float>(ceil(p)), -2.0f);
    EXPECT_EQ(eval0<float>(trunc(p)), -2.0f);
    EXPECT_EQ(eval0<float>(fract(p)), -0.5f);
}

TEST(Arithmetic, FloatClassification) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    struct Row {
        float v;
        bool nan, inf, finite;
    } rows[] = {{nan, true, false, false},   {inf, false, true, false}, {-inf, false, true, false},
                {0.0f, false, false, true},  {-0.0f, false, false, true}, {1e-45f, false, false, true},
                {3.4e38f, false, false, true}};
    Param<float> p("cls");
    for (const Row &r : rows) {
        p.set(r.v);
        EXPECT_EQ(eval0<bool>(is_nan(p)), r.nan) << r.v;
        EXPECT_EQ(eval0<bool>(is_inf(p)), r.inf) << r.v;
        EXPECT_EQ(eval0<bool>(is_finite(p)), r.finite) << r.v;
    }
    Param<double> d("cls64", std::numeric_limits<double>::infinity());
    EXPECT_EQ(eval0<bool>(is_inf(d)), true);
    EXPECT_EQ(eval0<bool>(is_nan(d - d)), true);
}

TEST(Arithmetic, AbsAndAbsdAreExact) {
    Param<int8_t> m("am", -128), M("aM", 127);
    EXPECT_EQ(eval0<uint8_t>(abs(m)), 128);
    EXPECT_EQ(eval0<uint8_t>(absd(m, M)), 255);
    Param<int64_t> lo("lo64", INT64_MIN), hi("hi64", INT64_MAX);
    EXPECT_EQ(eval0<uint64_t>(abs(lo)), uint64_t(1) << 63);
    EXPECT_EQ(eval0<uint64_t>(absd(lo, hi)), UINT64_MAX);
    Param<float> nz("nz", -0.0f);
    EXPECT_TRUE(same_bits(eval0<float>(abs(nz)), 0.0f));
}

// Halide's bit counts: the result has the operand's type, an int is counted in two's
// complement, and zero has as many leading and trailing zeros as the type has bits
// (values checked against Halide 14).
TEST(Arithmetic, BitCountsAreHalides) {
    Param<int8_t> m4("m4", -4), z8("z8", 0), one8("one8", 1), min8("min8", -128);
    EXPECT_EQ(eval0<int8_t>(popcount(m4)), 6);
    EXPECT_EQ(eval0<int8_t>(count_leading_zeros(z8)), 8);
    EXPECT_EQ(eval0<int8_t>(count_leading_zeros(one8)), 7);
    EXPECT_EQ(eval0<int8_t>(count_leading_zeros(min8)), 0);
    EXPECT_EQ(eval0<int8_t>(count_trailing_zeros(min8)), 7);
    EXPECT_EQ(eval0<int8_t>(count_trailing_zeros(z8)), 8);
    Param<uint16_t> z16("z16", 0), two16("two16", 2), all16("all16", 0xffff);
    EXPECT_EQ(eval0<uint16_t>(count_trailing_zeros(z16)), 16);
    EXPECT_EQ(eval0<uint16_t>(count_trailing_zeros(two16)), 1);
    EXPECT_EQ(eval0<uint16_t>(popcount(all16)), 16);
    EXPECT_EQ(eval0<uint16_t>(count_leading_zeros(two16)), 14);
    Param<int32_t> m1("m1", -1), big("big", 0x00f00000);
    EXPECT_EQ(eval0<int32_t>(popcount(m1)), 32);
    EXPECT_EQ(eval0<int32_t>(count_leading_zeros(big)), 8);
    EXPECT_EQ(eval0<int32_t>(count_trailing_zeros(big)), 20);
    Param<uint64_t> z64("z64", 0), top64("top64", uint64_t(1) << 63);
    EXPECT_EQ(eval0<uint64_t>(count_leading_zeros(z64)), 64u);
    EXPECT_EQ(eval0<uint64_t>(count_trailing_zeros(top64)), 63u);
    EXPECT_EQ(eval0<uint64_t>(count_leading_zeros(top64)), 0u);
    Param<int64_t> m64("m64", -2);
    EXPECT_EQ(eval0<int64_t>(popcount(m64)), 63);
    EXPECT_EQ(popcount(Expr(m4)).type(), Int(8));
    EXPECT_EQ(count_leading_zeros(Expr(z16)).type(), UInt(16));
    // Of a float or a bool: a CompileError that names the operation.
    Param<float> f("bits_f", 1.0f);
    for (auto count : {popcount, count_leading_zeros, count_trailing_zeros}) {
        try {
            (void)count(f);
            ADD_FAILURE() << "a bit count of a float was accepted";
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
        }
    }
    EXPECT_THROW((void)popcount(Expr(f) > 0.0f), CompileError);
}

// --------------------------------------------------------------------------------------
// (e) select, && and || evaluate every operand

template<typename F>
void expect_runtime_error_naming(F &&f, const std::string &name, const std::string &what) {
    try {
        f();
        ADD_FAILURE() << what << ": expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos)
            << what << ": message \"" << e.what() << "\" does not name " << name;
    } catch (const std::exception &e) {
        ADD_FAILURE() << what << ": expected a RuntimeError, got: " << e.what();
    }
}

TEST(Arithmetic, SelectEvaluatesTheUnselectedBranch) {
    Buffer<int32_t> in(std::vector<int>{10}, "guarded_input");
    Var x("x");
    Func f("sel");
    // The condition is false everywhere on the window, yet in(x + 20) is read.
    f(x) = select(x > 100, in(x + 20), 0);
    expect_runtime_error_naming([&] { f.realize({5}); }, "guarded_input", "select, realize");
    expect_runtime_error_naming([&] { f.realize_reference({5}); }, "guarded_input", "select, realize_reference");

    // The chosen value is in range and the other one is not.
    Func g("sel2");
    g(x) = select(x < 100, in(x), in(x - 1));
    expect_runtime_error_naming([&] { g.realize({3}); }, "guarded_input", "select, other branch");

    // The safe form works.
    Func h("sel3");
    h(x) = select(x > 0, in(max(x - 1, 0)), 0);
    EXPECT_NO_THROW(h.realize({10}));
}

TEST(Arithmetic, LogicalOperatorsEvaluateBothOperands) {
    Buffer<int32_t> in(std::vector<int>{10}, "logic_input");
    Var x("x");
    Func f("and_op");
    f(x) = select((x > 100) && (in(x + 20) > 0), 1, 2);
    expect_runtime_error_naming([&] { f.realize({5}); }, "logic_input", "&&, realize");
    expect_runtime_error_naming([&] { f.realize_reference({5}); }, "logic_input", "&&, realize_reference");
    Func g("or_op");
    g(x) = select((x < 100) || (in(x - 50) > 0), 1, 2);
    expect_runtime_error_naming([&] { g.realize({5}); }, "logic_input", "||, realize");
    expect_runtime_error_naming([&] { g.realize_reference({5}); }, "logic_input", "||, realize_reference");
    Func h("and_bool_first");
    h(x) = cast<int32_t>(make_bool(false) && (in(x + 10) > 0));
    expect_runtime_error_naming([&] { h.realize({1}); }, "logic_input", "false && read");
}

TEST(Arithmetic, WherePredicateGuardsTheIteration) {
    // Unlike select, a `where` predicate guards its iteration: the value (and left-hand
    // side) of an iteration whose predicate is false are not evaluated.
    Buffer<int32_t> in(std::vector<int>{3}, "where_input");
    in(0) = 1;
    in(1) = 10;
    in(2) = 100;
    Var x("x");
    Func f("where_sum");
    f(x) = 0;
    RDom r(0, 10, "wr");
    r.where(r.x < 3);
    f(0) = f(0) + in(r.x);
    Buffer<int32_t> out = f.realize({1});
    EXPECT_EQ(out(0), 111);
    // The predicate's own operands are evaluated for every iteration.
    RDom s(0, 10, "ws");
    s.where(in(s.x) > 0);
    Func h("where_reads");
    h(x) = 0;
    h(0) = h(0) + s.x;
    expect_runtime_error_naming([&] { h.realize({1}); }, "where_input", "predicate reads out of bounds");
}

}  // namespace
