#pragma once
// Exact constant arithmetic shared by the simplifier and the interval analysis.
//
// Constants of every integer type (int8 ... uint64) fit in a 128-bit signed integer, and
// so do sums, differences and quotients of two of them; products are computed with
// overflow checks. The analyses compute the mathematical result of an operation on
// constants here and then ask whether it `fits` the operand type, which is how they
// decide that wrap-around cannot happen.

#include <cstdint>

#include "ir/IR.h"
#include "ir/Scalar.h"

namespace tessera::analysis::detail {

__extension__ typedef __int128 i128;

/** Smallest / largest value of an integer or bool element type. */
i128 type_min(Type t);
i128 type_max(Type t);
/** Is v a value of the integer or bool element type t? */
inline bool fits(Type t, i128 v) { return v >= type_min(t) && v <= type_max(t); }

/** Whether v, a value of the index type t (int32 or int64), lies beyond the coordinates:
 * 2^30 or more in magnitude for int32 (compiled code addresses coordinates in
 * [-2^30, 2^30), docs/semantics.md §11), 2^62 for int64. Coordinate arithmetic does not
 * reach such a constant; arithmetic with one is the algorithm's own, which wraps, and the
 * analyses do not take it for arithmetic on integers. */
inline bool beyond_coordinates(Type t, i128 v) {
    const i128 limit = i128(1) << (t.element_of().bits - 2);
    return v >= limit || v <= -limit;
}

/** The value of an integer or bool constant (IntImm / UIntImm, or a Broadcast of one). */
bool const_int(const Expr &e, i128 &v);
inline bool is_const_int(const Expr &e) { i128 v; return const_int(e, v); }
/** The value of a scalar constant of any type (IntImm, UIntImm, FloatImm). */
bool const_scalar(const Expr &e, ir::Scalar &v);
/** A constant, a Broadcast of a constant, or a FloatImm. */
bool is_const(const Expr &e);
bool is_const_true(const Expr &e);
bool is_const_false(const Expr &e);

/** The constant of type t (element type, or a Broadcast for a vector type) whose value is
 * v reduced modulo 2^bits (for bool: v != 0). */
Expr make_const(Type t, i128 v);
/** A constant of type t from a Scalar of that type. */
Expr make_scalar(Type t, ir::Scalar v);
Expr make_bool_const(bool b, int lanes = 1);

/** Wrap v into the integer type t (two's complement reduction). */
i128 wrap(Type t, i128 v);

/** Euclidean quotient and remainder (remainder in [0, |b|)); b == 0 gives 0. */
i128 div_euclid(i128 a, i128 b);
i128 mod_euclid(i128 a, i128 b);
inline i128 abs128(i128 a) { return a < 0 ? -a : a; }
/** Is v a positive power of two? */
inline bool is_pow2(i128 v) { return v > 0 && (v & (v - 1)) == 0; }
/** Checked multiplication; false on 128-bit overflow. */
bool mul_checked(i128 a, i128 b, i128 &r);

/** The operands of a binary operator node (+ - * / % min max, the comparisons, && ||);
 * false for any other node. (Inline: the rule matcher asks for every node it looks into.) */
inline bool binary_operands(const Expr &e, const Expr *&a, const Expr *&b) {
    switch (e->kind) {
#define TESSERA_OPERANDS(N)                        \
    case ir::ExprKind::N:                          \
        a = &static_cast<const ir::N *>(e.get())->a; \
        b = &static_cast<const ir::N *>(e.get())->b; \
        return true;
        TESSERA_OPERANDS(Add)
        TESSERA_OPERANDS(Sub)
        TESSERA_OPERANDS(Mul)
        TESSERA_OPERANDS(Div)
        TESSERA_OPERANDS(Mod)
        TESSERA_OPERANDS(Min)
        TESSERA_OPERANDS(Max)
        TESSERA_OPERANDS(EQ)
        TESSERA_OPERANDS(NE)
        TESSERA_OPERANDS(LT)
        TESSERA_OPERANDS(LE)
        TESSERA_OPERANDS(GT)
        TESSERA_OPERANDS(GE)
        TESSERA_OPERANDS(And)
        TESSERA_OPERANDS(Or)
#undef TESSERA_OPERANDS
    default: return false;
    }
}

/** The binary operator node op(a, b), for the kinds binary_operands takes apart (built as
 * is, not simplified). */
Expr make_binary(ir::ExprKind op, const Expr &a, const Expr &b);

/** Number of nodes of an expression, counting at most up to `limit`. */
int expr_size(const Expr &e, int limit);

}  // namespace tessera::analysis::detail
