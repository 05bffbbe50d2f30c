#pragma once
// Scalar arithmetic exactly as docs/semantics.md defines it.
//
// This is the single definition of what every operator computes on concrete values. The
// reference interpreter, the IR interpreter and the simplifier's constant folding all call
// these functions, and the C emitter generates code with the same meaning; a property test
// checks each against the others.

#include <cstdint>
#include <string>

#include "ir/IR.h"
#include "tessera/Type.h"

namespace tessera::ir {

/** A concrete scalar value; its Type is carried alongside. Signed integers are stored
 * sign-extended in `i`, unsigned integers and bools zero-extended in `u`, floats in `f`
 * (a float32 value is stored as the exactly equal double). */
union Scalar {
    int64_t i;
    uint64_t u;
    double f;
};

inline Scalar make_int(int64_t v) { Scalar s; s.i = v; return s; }
inline Scalar make_uint(uint64_t v) { Scalar s; s.u = v; return s; }
inline Scalar make_float(double v) { Scalar s; s.f = v; return s; }

/** Wrap an integer to the width of t (two's complement); round a double to t for floats. */
int64_t wrap_int(int bits, int64_t v);
uint64_t wrap_uint(int bits, uint64_t v);
Scalar normalize(Type t, Scalar v);

/** Conversion from type `from` to type `to` (wrapping, saturating float->int, NaN -> 0). */
Scalar cast(Type to, Type from, Scalar v);

/** Whether the float f, truncated toward zero, is a value of the integer type t (a
 * conversion of f to t then saturates nothing). */
bool truncates_into(Type t, double f);

/** The comparison op (is_comparison) of x and y, in the order of the values of T. */
template <typename T>
bool compare(ExprKind op, T x, T y) {
    switch (op) {
    case ExprKind::EQ: return x == y;
    case ExprKind::NE: return x != y;
    case ExprKind::LT: return x < y;
    case ExprKind::LE: return x <= y;
    case ExprKind::GT: return x > y;
    default: return x >= y;
    }
}

/** Binary operators on two values of type t. Comparisons return a bool (0/1 in `u`). */
Scalar binary(ExprKind op, Type t, Scalar a, Scalar b);

/** The most operands an intrinsic has (random_hash: seed, call site, count and the
 * coordinates of a definition, its RVars included). */
constexpr int kMaxIntrinsicArgs = 32;

/** Intrinsic calls; `arg_types` are the operand types, `t` the result type. */
Scalar intrinsic(Intrinsic op, Type t, const Type *arg_types, const Scalar *args, int nargs);

/** A value as print writes it (docs/semantics.md §6): integers in decimal, floats with
 * printf's %.9g (float32) or %.17g (float64), which read back to the same value. The C
 * emitter's print uses the same formats. */
std::string print_part(Type t, Scalar v);
/** The printf format of one value of type t, as print_part writes it. */
const char *print_format(Type t);

/** Truth value of a bool (or any) scalar. */
inline bool truthy(Type t, Scalar v) { return t.is_float() ? v.f != 0 : v.u != 0; }

/** Integer value of an index-like scalar (int or uint types) as int64. */
inline int64_t as_int64(Type t, Scalar v) { return t.is_int() ? v.i : int64_t(v.u); }

/** Exact equality of two values of type t (bitwise for floats, so NaN == NaN and
 * -0.0 != +0.0): the notion used when checking compiled results against the oracle. */
bool identical(Type t, Scalar a, Scalar b);

}  // namespace tessera::ir

namespace tessera::ir {

/** Read or write one element of type t in memory. */
Scalar load_scalar(Type t, const void *p);
void store_scalar(Type t, void *p, Scalar v);

}  // namespace tessera::ir
