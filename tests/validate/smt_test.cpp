// The translation validator's scalar terms (src/validate/Smt.h) against the definition of
// scalar meaning (src/ir/Scalar.h): every operation of every integer and bool type on
// constants (the edges of each type and random values) evaluates in Z3 to the value the
// definition gives.

#include <gtest/gtest.h>

#include <random>

#include "ir/Scalar.h"
#include "validate/Isl.h"
#include "validate/Smt.h"

using namespace tessera;
using ir::ExprKind;
using ir::Scalar;

namespace {

const std::vector<Type> kTypes = {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64), Bool()};

/** The edges of t's range and random values of it. */
std::vector<Scalar> values_of(Type t, std::mt19937_64 &rng) {
    std::vector<Scalar> v;
    if (t.is_bool()) return {ir::make_uint(0), ir::make_uint(1)};
    const std::vector<int64_t> edges = {0, 1, -1, 2, -2, 3, -7, 7, 127, -128, 255, 32767, -32768, 65535,
                                        INT32_MAX, INT32_MIN, int64_t(UINT32_MAX), INT64_MAX, INT64_MIN};
    for (int64_t e : edges) v.push_back(ir::normalize(t, t.is_int() ? ir::make_int(e) : ir::make_uint(uint64_t(e))));
    for (int i = 0; i < 24; i++) {
        const uint64_t r = rng() >> (rng() % 64);
        v.push_back(ir::normalize(t, t.is_int() ? ir::make_int(int64_t(r) * ((rng() & 1) ? 1 : -1)) : ir::make_uint(r)));
    }
    return v;
}

std::string show(Type t, Scalar v) {
    return t.is_int() ? std::to_string(v.i) : std::to_string(v.u);
}

}  // namespace

TEST(ValidateSmt, BinaryOperationsAgreeWithTheScalarDefinition) {
    z3::context c;
    validator::SmtScalars smt(c);
    std::mt19937_64 rng(20261124);
    const std::vector<ExprKind> int_ops = {ExprKind::Add, ExprKind::Sub, ExprKind::Mul, ExprKind::Div, ExprKind::Mod,
                                           ExprKind::Min, ExprKind::Max, ExprKind::EQ,  ExprKind::NE,  ExprKind::LT,
                                           ExprKind::LE,  ExprKind::GT,  ExprKind::GE};
    const std::vector<ExprKind> bool_ops = {ExprKind::And, ExprKind::Or, ExprKind::Min, ExprKind::Max, ExprKind::EQ,
                                            ExprKind::NE,  ExprKind::LT, ExprKind::LE,  ExprKind::GT,  ExprKind::GE};
    int compared = 0;
    for (Type t : kTypes) {
        const std::vector<Scalar> vs = values_of(t, rng);
        for (ExprKind op : t.is_bool() ? bool_ops : int_ops) {
            const Type result = ir::is_comparison(op) ? Bool() : t;
            for (const Scalar &a : vs)
                for (const Scalar &b : vs) {
                    const Scalar expected = ir::binary(op, t, a, b);
                    const Scalar got = smt.value(result, smt.binary(op, t, smt.constant(t, a), smt.constant(t, b)));
                    ASSERT_TRUE(ir::identical(result, got, expected))
                        << t.to_string() << " op " << int(op) << " of " << show(t, a) << " and " << show(t, b) << ": Z3 "
                        << show(result, got) << ", definition " << show(result, expected);
                    compared++;
                }
        }
    }
    EXPECT_GT(compared, 50000);
}

TEST(ValidateSmt, ConversionsAgreeWithTheScalarDefinition) {
    z3::context c;
    validator::SmtScalars smt(c);
    std::mt19937_64 rng(7);
    for (Type from : kTypes)
        for (Type to : kTypes)
            for (const Scalar &v : values_of(from, rng)) {
                const Scalar expected = ir::cast(to, from, v);
                const Scalar got = smt.value(to, smt.cast(to, from, smt.constant(from, v)));
                ASSERT_TRUE(ir::identical(to, got, expected)) << from.to_string() << " " << show(from, v) << " to "
                                                              << to.to_string() << ": Z3 " << show(to, got)
                                                              << ", definition " << show(to, expected);
            }
}

TEST(ValidateSmt, FloatsAreNotBitVectors) {
    z3::context c;
    validator::SmtScalars smt(c);
    EXPECT_THROW(smt.constant(Float(32), ir::make_float(1.5)), validator::Unsupported);
}
