#pragma once
// Scalar operations of lowered code as Z3 terms, with Tessera's semantics (docs/semantics.md
// §2): an integer of n bits is a bit-vector of n bits; + - * wrap; / and % are Euclidean,
// with x / 0 = x % 0 = 0 and MIN / -1 = MIN; min, max and the comparisons follow the type's
// signedness; a bool is a Z3 Boolean. The value equalities of the translation validator
// are built from these terms, and tests/validate/smt_test.cpp checks each operation against
// the definition of scalar meaning (src/ir/Scalar.h) on constants.

#include <z3++.h>

#include "ir/IR.h"
#include "ir/Scalar.h"

namespace tessera::validator {

class SmtScalars {
public:
    explicit SmtScalars(z3::context &c) : c_(c) {}

    /** The constant v of type t (an integer or bool type). */
    z3::expr constant(Type t, ir::Scalar v) const;
    /** op(a, b) on operands of type t, for + - * / % min max, the comparisons, && and ||.
     * Throws Unsupported (src/validate/Isl.h) for other operators and for floats. */
    z3::expr binary(ir::ExprKind op, Type t, const z3::expr &a, const z3::expr &b) const;
    /** The conversion of v from integer or bool type `from` to integer or bool type `to`. */
    z3::expr cast(Type to, Type from, const z3::expr &v) const;
    /** The value of a constant term of type t, as a Scalar (after simplification). */
    ir::Scalar value(Type t, const z3::expr &e) const;

private:
    z3::context &c_;
};

}  // namespace tessera::validator
