#pragma once
// Scalar operations of lowered code as Z3 terms, with Tessera's semantics (docs/semantics.md
// §2, §3): an integer of n bits is a bit-vector of n bits; + - * wrap; / and % are Euclidean,
// with x / 0 = x % 0 = 0 and MIN / -1 = MIN; min, max and the comparisons follow the type's
// signedness; a bool is a Z3 Boolean. A float32 or float64 is an IEEE-754 binary32 or
// binary64 term of Z3's floating-point theory, each operation rounded to nearest even, as
// written: min and max as the selects that define them, the conversions to integers
// truncating and saturating (NaN to 0), float % in its three rounded steps. The value
// equalities of the translation validator are built from these terms, and
// tests/validate/smt_test.cpp checks each operation against the definition of scalar
// meaning (src/ir/Scalar.h) on constants.

#include <z3++.h>

#include "ir/IR.h"
#include "ir/Scalar.h"

namespace tessera::validator {

class SmtScalars {
public:
    explicit SmtScalars(z3::context &c) : c_(c) {}

    /** The sort of values of type t: a bit-vector of its width, a Boolean, or an IEEE
     * format (float32, float64). */
    z3::sort sort(Type t) const;
    /** The constant v of type t. */
    z3::expr constant(Type t, ir::Scalar v) const;
    /** op(a, b) on operands of type t, for + - * / % min max, the comparisons, && and ||.
     * Throws Unsupported (src/validate/Isl.h) for other operators. */
    z3::expr binary(ir::ExprKind op, Type t, const z3::expr &a, const z3::expr &b) const;
    /** The conversion of v from type `from` to type `to`. */
    z3::expr cast(Type to, Type from, const z3::expr &v) const;
    /** The intrinsic `op` with result type t on `args` of types `arg_types`, where the
     * theory has its exact value: floor, ceil, round, trunc, sqrt (correctly rounded, as
     * IEEE requires of the C library), fma, abs, absd, is_nan, is_inf, is_finite. Throws
     * Unsupported for the others (exp, sin, ...: the C library's own approximations) and
     * for integer intrinsics. */
    z3::expr intrinsic(ir::Intrinsic op, Type t, const std::vector<Type> &arg_types, const std::vector<z3::expr> &args) const;
    /** The value of a constant term of type t, as a Scalar (after simplification). */
    ir::Scalar value(Type t, const z3::expr &e) const;

private:
    /** IEEE operations, rounded to nearest even. */
    z3::expr float_binary(ir::ExprKind op, Type t, const z3::expr &a, const z3::expr &b) const;
    /** The float constant v of float type t (of the value's own sort). */
    z3::expr float_constant(Type t, double v) const;
    /** The rounding modes used: to nearest even, toward zero, toward -inf and +inf. */
    z3::expr rounding(Z3_ast (*mode)(Z3_context)) const;
    /** A term the C API made (its error, if any, thrown as z3::exception). */
    z3::expr term(Z3_ast r) const;

    z3::context &c_;
};

}  // namespace tessera::validator
