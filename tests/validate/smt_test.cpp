// The translation validator's scalar terms (src/validate/Smt.h) against the definition of
// scalar meaning (src/ir/Scalar.h): every operation and conversion of every integer, bool
// and float type, and the float intrinsics Z3's theory has exactly, on constants (the
// edges of each type, the special floats, and random values) evaluates in Z3 to the value
// the definition gives.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

#include "ir/Scalar.h"
#include "validate/Isl.h"
#include "validate/Smt.h"

using namespace tessera;
using ir::ExprKind;
using ir::Scalar;

namespace {

const std::vector<Type> kTypes = {Int(8),   Int(16),  Int(32),  Int(64), UInt(8),   UInt(16),
                                  UInt(32), UInt(64), Bool(),   Float(32), Float(64)};

/** The edges of t's range and random values of it; for floats, the special values (zeros,
 * infinities, NaN, the edges of the integer conversions, halves for the roundings,
 * subnormals) and random ones. */
std::vector<Scalar> values_of(Type t, std::mt19937_64 &rng) {
    std::vector<Scalar> v;
    if (t.is_bool()) return {ir::make_uint(0), ir::make_uint(1)};
    if (t.is_float()) {
        const double inf = std::numeric_limits<double>::infinity();
        std::vector<double> d = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.75, 7.5, -7.5, 2.0, -2.0, 1e-30,
                                 -1e-30, 1e30, -1e30, 255.5, 300.5, -3.7, 16777217.0, 2147483647.0, 2147483648.0,
                                 -2147483648.0, -2147483649.0, 4294967296.0, 9.3e18, -9.3e18, 2e19, inf, -inf,
                                 std::nan(""), double(std::numeric_limits<float>::max()),
                                 double(std::numeric_limits<float>::denorm_min()), std::numeric_limits<double>::denorm_min(),
                                 1e300};
        std::uniform_real_distribution<double> uniform(-1000.0, 1000.0);
        for (int i = 0; i < 12; i++) d.push_back(uniform(rng));
        for (double x : d) v.push_back(ir::make_float(t.bits == 32 ? double(float(x)) : x));
        return v;
    }
    const std::vector<int64_t> edges = {0, 1, -1, 2, -2, 3, -7, 7, 127, -128, 255, 32767, -32768, 65535,
                                        INT32_MAX, INT32_MIN, int64_t(UINT32_MAX), INT64_MAX, INT64_MIN};
    for (int64_t e : edges) v.push_back(ir::normalize(t, t.is_int() ? ir::make_int(e) : ir::make_uint(uint64_t(e))));
    for (int i = 0; i < 24; i++) {
        const uint64_t r = rng() >> (rng() % 64);
        v.push_back(ir::normalize(t, t.is_int() ? ir::make_int(int64_t(r) * ((rng() & 1) ? 1 : -1)) : ir::make_uint(r)));
    }
    return v;
}

/** Equal values: bitwise, except that any two NaNs are one value (Z3 has one NaN; the C
 * operations' results differ in the payload, which the validator does not follow). */
bool same(Type t, Scalar a, Scalar b) {
    if (t.is_float() && std::isnan(a.f) && std::isnan(b.f)) return true;
    return ir::identical(t, a, b);
}

std::string show(Type t, Scalar v) {
    if (t.is_float()) {
        std::ostringstream o;
        o.precision(17);
        o << v.f;
        return o.str();
    }
    return t.is_int() ? std::to_string(v.i) : std::to_string(v.u);
}

}  // namespace

TEST(ValidateSmt, BinaryOperationsAgreeWithTheScalarDefinition) {
    z3::context c;
    validator::SmtScalars smt(c);
    std::mt19937_64 rng(20261124);
    const std::vector<ExprKind> number_ops = {ExprKind::Add, ExprKind::Sub, ExprKind::Mul, ExprKind::Div, ExprKind::Mod,
                                              ExprKind::Min, ExprKind::Max, ExprKind::EQ,  ExprKind::NE,  ExprKind::LT,
                                              ExprKind::LE,  ExprKind::GT,  ExprKind::GE};
    const std::vector<ExprKind> bool_ops = {ExprKind::And, ExprKind::Or, ExprKind::Min, ExprKind::Max, ExprKind::EQ,
                                            ExprKind::NE,  ExprKind::LT, ExprKind::LE,  ExprKind::GT,  ExprKind::GE};
    int compared = 0;
    for (Type t : kTypes) {
        const std::vector<Scalar> vs = values_of(t, rng);
        for (ExprKind op : t.is_bool() ? bool_ops : number_ops) {
            const Type result = ir::is_comparison(op) ? Bool() : t;
            for (const Scalar &a : vs)
                for (const Scalar &b : vs) {
                    const Scalar expected = ir::binary(op, t, a, b);
                    const Scalar got = smt.value(result, smt.binary(op, t, smt.constant(t, a), smt.constant(t, b)));
                    ASSERT_TRUE(same(result, got, expected))
                        << t.to_string() << " op " << int(op) << " of " << show(t, a) << " and " << show(t, b) << ": Z3 "
                        << show(result, got) << ", definition " << show(result, expected);
                    compared++;
                }
        }
    }
    EXPECT_GT(compared, 90000);
}

TEST(ValidateSmt, ConversionsAgreeWithTheScalarDefinition) {
    z3::context c;
    validator::SmtScalars smt(c);
    std::mt19937_64 rng(7);
    int compared = 0;
    for (Type from : kTypes)
        for (Type to : kTypes)
            for (const Scalar &v : values_of(from, rng)) {
                const Scalar expected = ir::cast(to, from, v);
                const Scalar got = smt.value(to, smt.cast(to, from, smt.constant(from, v)));
                ASSERT_TRUE(same(to, got, expected)) << from.to_string() << " " << show(from, v) << " to " << to.to_string()
                                                     << ": Z3 " << show(to, got) << ", definition " << show(to, expected);
                compared++;
            }
    EXPECT_GT(compared, 3000);
}

TEST(ValidateSmt, ExactFloatIntrinsicsAgreeWithTheScalarDefinition) {
    z3::context c;
    validator::SmtScalars smt(c);
    std::mt19937_64 rng(5);
    using ir::Intrinsic;
    int compared = 0;
    for (Type t : {Float(32), Float(64)}) {
        const std::vector<Scalar> vs = values_of(t, rng);
        for (Intrinsic op : {Intrinsic::Floor, Intrinsic::Ceil, Intrinsic::Round, Intrinsic::Trunc, Intrinsic::Sqrt,
                             Intrinsic::Abs, Intrinsic::IsNan, Intrinsic::IsInf, Intrinsic::IsFinite}) {
            const bool predicate = op == Intrinsic::IsNan || op == Intrinsic::IsInf || op == Intrinsic::IsFinite;
            const Type result = predicate ? Bool() : t;
            for (const Scalar &a : vs) {
                const Scalar expected = ir::intrinsic(op, result, &t, &a, 1);
                const Scalar got = smt.value(result, smt.intrinsic(op, result, {t}, {smt.constant(t, a)}));
                ASSERT_TRUE(same(result, got, expected)) << ir::intrinsic_name(op) << " of " << t.to_string() << " "
                                                         << show(t, a) << ": Z3 " << show(result, got) << ", definition "
                                                         << show(result, expected);
                compared++;
            }
        }
        for (const Scalar &a : vs)
            for (const Scalar &b : vs) {
                const Type args[2] = {t, t};
                const Scalar ab[2] = {a, b};
                const Scalar expected = ir::intrinsic(Intrinsic::Absd, t, args, ab, 2);
                const Scalar got = smt.value(t, smt.intrinsic(Intrinsic::Absd, t, {t, t}, {smt.constant(t, a), smt.constant(t, b)}));
                ASSERT_TRUE(same(t, got, expected)) << "absd of " << show(t, a) << " and " << show(t, b) << ": Z3 "
                                                    << show(t, got) << ", definition " << show(t, expected);
                compared++;
            }
    }
    EXPECT_GT(compared, 4000);
    // The C library's own functions have no exact term.
    const Type f32 = Float(32);
    EXPECT_THROW(smt.intrinsic(Intrinsic::Exp, f32, {f32}, {smt.constant(f32, ir::make_float(1.0))}), validator::Unsupported);
}
