#pragma once
// Operators and functions on Exprs, with Halide's names, signatures and coercion rules
// (docs/semantics.md "Types and coercion").

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/Expr.h"

namespace tessera {

namespace detail {
enum class BinOp { Add, Sub, Mul, Div, Mod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or };
/** Applies the coercion rules (match_types) and builds the operation. */
Expr binary(BinOp op, Expr a, Expr b);
/** A C++ integer literal used with `other`: takes other's type (CompileError if not
 * representable there). */
Expr int_literal_like(const Expr &other, int64_t v, bool is_unsigned_64, uint64_t uv);

template<typename T>
Expr literal_like(const Expr &other, T v) {
    static_assert(std::is_arithmetic_v<T>);
    if constexpr (std::is_same_v<T, bool>) {
        static_assert(sizeof(T) == 0, "use make_bool() to combine a C++ bool with an Expr");
    } else if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8)
            return int_literal_like(other, 0, true, v);
        else
            return int_literal_like(other, static_cast<int64_t>(v), false, 0);
    } else {
        return Expr(v);
    }
}

template<typename T>
constexpr bool is_literal_v = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
}  // namespace detail

/** Applies the coercion rules to a pair of expressions in place. */
void match_types(Expr &a, Expr &b);

// Binary operators: Expr with Expr, and Expr with a C++ number (an integer literal takes
// the type of the Expr; a float literal is float32 and a double float64).
#define TESSERA_DECLARE_BINARY_OPERATOR(OP, NAME)                                          \
    Expr operator OP(Expr a, Expr b);                                                      \
    template<typename T, std::enable_if_t<detail::is_literal_v<T>, int> = 0>               \
    Expr operator OP(const Expr &a, T b) {                                                 \
        return detail::binary(detail::BinOp::NAME, a, detail::literal_like(a, b));         \
    }                                                                                      \
    template<typename T, std::enable_if_t<detail::is_literal_v<T>, int> = 0>               \
    Expr operator OP(T a, const Expr &b) {                                                 \
        return detail::binary(detail::BinOp::NAME, detail::literal_like(b, a), b);         \
    }
TESSERA_DECLARE_BINARY_OPERATOR(+, Add)
TESSERA_DECLARE_BINARY_OPERATOR(-, Sub)
TESSERA_DECLARE_BINARY_OPERATOR(*, Mul)
TESSERA_DECLARE_BINARY_OPERATOR(/, Div)
TESSERA_DECLARE_BINARY_OPERATOR(%, Mod)
TESSERA_DECLARE_BINARY_OPERATOR(==, EQ)
TESSERA_DECLARE_BINARY_OPERATOR(!=, NE)
TESSERA_DECLARE_BINARY_OPERATOR(<, LT)
TESSERA_DECLARE_BINARY_OPERATOR(<=, LE)
TESSERA_DECLARE_BINARY_OPERATOR(>, GT)
TESSERA_DECLARE_BINARY_OPERATOR(>=, GE)
#undef TESSERA_DECLARE_BINARY_OPERATOR

/** Negation (wraps for integers; for unsigned types 0 - a). */
Expr operator-(Expr a);

/** Compound assignment keeps the type of the left-hand side (the right side is cast). */
Expr &operator+=(Expr &a, Expr b);
Expr &operator-=(Expr &a, Expr b);
Expr &operator*=(Expr &a, Expr b);
Expr &operator/=(Expr &a, Expr b);

/** Logical operators on bools; both operands are always evaluated. */
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
Expr operator&&(Expr a, bool b);
Expr operator&&(bool a, Expr b);
Expr operator||(Expr a, bool b);
Expr operator||(bool a, Expr b);

/** Bitwise operators on integers (and bools for &, |, ^, ~). */
Expr operator&(Expr a, Expr b);
Expr operator|(Expr a, Expr b);
Expr operator^(Expr a, Expr b);
Expr operator~(Expr a);
Expr operator<<(Expr a, Expr b);
Expr operator>>(Expr a, Expr b);
template<typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
Expr operator&(const Expr &a, T b) { return a & detail::literal_like(a, b); }
template<typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
Expr operator|(const Expr &a, T b) { return a | detail::literal_like(a, b); }
template<typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
Expr operator^(const Expr &a, T b) { return a ^ detail::literal_like(a, b); }
template<typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
Expr operator<<(const Expr &a, T b) { return a << detail::literal_like(a, b); }
template<typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
Expr operator>>(const Expr &a, T b) { return a >> detail::literal_like(a, b); }

/** The constant true or false. */
Expr make_bool(bool b);
/** A constant of type t. */
Expr make_const(Type t, int64_t v);
Expr make_const(Type t, double v);
Expr make_zero(Type t);
Expr make_one(Type t);

/** Conversion (docs/semantics.md: wrapping, saturating float->int, NaN->0). */
Expr cast(Type t, Expr a);
template<typename T>
Expr cast(Expr a) { return cast(type_of<T>(), std::move(a)); }
/** The same bits seen as another type of the same width. */
Expr reinterpret(Type t, Expr a);
template<typename T>
Expr reinterpret(Expr a) { return reinterpret(type_of<T>(), std::move(a)); }

/** cast to t of a clamped to the range of t, as Halide's: integers saturate at t's
 * limits; a float to an integer already saturates (docs/semantics.md §3); a float64 to
 * float32 is clamped to the finite float32 range. */
Expr saturating_cast(Type t, Expr a);
template<typename T>
Expr saturating_cast(Expr a) { return saturating_cast(type_of<T>(), std::move(a)); }

/** All three operands are evaluated; the condition must be a bool. */
Expr select(Expr condition, Expr true_value, Expr false_value);
/** values[index], as Halide's mux: a chain of selects; an index below 0 gives the first
 * value and one past the end the last. */
Expr mux(Expr index, const std::vector<Expr> &values);
/** e itself: Halide's hint that a branch is the likely one (Tessera's loop partitioning
 * does not need it). */
Expr likely(Expr e);
/** select(c0, v0, c1, v1, ..., default) */
template<typename... Rest>
Expr select(Expr c0, Expr v0, Expr c1, Expr v1, Rest &&...rest) {
    return select(std::move(c0), std::move(v0), select(std::move(c1), std::move(v1), std::forward<Rest>(rest)...));
}

Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
template<typename T, std::enable_if_t<detail::is_literal_v<T>, int> = 0>
Expr min(const Expr &a, T b) { return min(a, detail::literal_like(a, b)); }
template<typename T, std::enable_if_t<detail::is_literal_v<T>, int> = 0>
Expr min(T a, const Expr &b) { return min(detail::literal_like(b, a), b); }
template<typename T, std::enable_if_t<detail::is_literal_v<T>, int> = 0>
Expr max(const Expr &a, T b) { return max(a, detail::literal_like(a, b)); }
template<typename T, std::enable_if_t<detail::is_literal_v<T>, int> = 0>
Expr max(T a, const Expr &b) { return max(detail::literal_like(b, a), b); }
/** min(max(a, lo), hi); lo and hi are cast to a's type. */
Expr clamp(Expr a, Expr lo, Expr hi);

/** |a|; for a signed integer the result is the unsigned type of the same width. */
Expr abs(Expr a);
/** |a - b| without overflow; unsigned result for integers. */
Expr absd(Expr a, Expr b);
/** The number of bits set in an integer, in its type (of an int, its two's complement). */
Expr popcount(Expr x);
/** The number of zero bits above an integer's highest set bit, in its type; the type's
 * width for zero. */
Expr count_leading_zeros(Expr x);
/** The number of zero bits below an integer's lowest set bit, in its type; the type's
 * width for zero. */
Expr count_trailing_zeros(Expr x);

/** Pseudo-random numbers, as Halide's: each call is a pure function of the coordinates of
 * the definition it is used in (its left-hand side and, in an update, its RDom's RVars),
 * of the call (two calls differ) and of the optional integer `seed`; the same in every
 * run, schedule and realization. random_float is uniform in [0, 1) (24 bits),
 * random_uint uniform over uint32, random_int over int32. The values are Tessera's own
 * hash (docs/semantics.md), not Halide's. */
Expr random_float(Expr seed = Expr());
Expr random_uint(Expr seed = Expr());
Expr random_int(Expr seed = Expr());

// Float math. Integer arguments are converted to float32 first (as in Halide).
Expr sqrt(Expr x);
Expr exp(Expr x);
Expr log(Expr x);
Expr pow(Expr x, Expr y);
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
Expr atan2(Expr y, Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr tanh(Expr x);
Expr asinh(Expr x);
Expr acosh(Expr x);
Expr atanh(Expr x);
/** Rounding functions return the float type of their argument. */
Expr floor(Expr x);
Expr ceil(Expr x);
/** Round half to even. */
Expr round(Expr x);
Expr trunc(Expr x);
/** The fractional part x - trunc(x). */
Expr fract(Expr x);
Expr is_nan(Expr x);
Expr is_inf(Expr x);
Expr is_finite(Expr x);
/** a + (b - a) * w for floats. */
Expr lerp(Expr a, Expr b, Expr w);

namespace detail {
/** A part of a print: an Expr, a number, or text. */
inline Expr print_part(const Expr &e) { return e; }
Expr print_part(const std::string &text);
inline Expr print_part(const char *text) { return print_part(std::string(text)); }
template<typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Expr print_part(T v) {
    if constexpr (std::is_floating_point_v<T>) return make_const(type_of<T>(), double(v));
    else return make_const(type_of<T>(), int64_t(v));
}
Expr make_print(Expr condition, std::vector<Expr> parts);
}  // namespace detail

/** a, and, each time it is evaluated, a line on stderr: a and the other arguments
 * (values or text), separated by spaces (docs/semantics.md §6). How many lines a
 * pipeline writes, and in which order, depends on its schedule. */
template<typename... Args>
Expr print(const Expr &a, const Args &...args) {
    return detail::make_print(make_bool(true), {a, detail::print_part(args)...});
}
Expr print(const std::vector<Expr> &parts);
/** print(a, args...) where `condition` holds; a elsewhere. */
template<typename... Args>
Expr print_when(const Expr &condition, const Expr &a, const Args &...args) {
    return detail::make_print(condition, {a, detail::print_part(args)...});
}

namespace detail {
Expr make_require(Expr condition, std::vector<Expr> parts);
}
/** `value` where `condition` holds; elsewhere the pipeline stops with a RuntimeError
 * "requirement failed: " followed by the other arguments (values or text). */
template<typename... Args>
Expr require(const Expr &condition, const Expr &value, const Args &...args) {
    return detail::make_require(condition, {value, detail::print_part(args)...});
}

/** No value, of type t (Halide's undef): the pure definition `f(x, y) = undef(Float(32))`
 * computes nothing, and f's values are those its updates write. Only the whole value of
 * a pure definition may be undef (a CompileError elsewhere); reading a point of f that no
 * update wrote is a RuntimeError of the reference interpreter (docs/semantics.md §7.1). */
Expr undef(Type t);
template<typename T>
Expr undef() {
    return undef(type_of<T>());
}

/** Halide's cheaper float32 math, written out as arithmetic (src/lang/FastMath.cpp): a
 * range reduction through the float's bits and a short polynomial, within a few units in
 * the last place of exp and log for normal values, the same bits everywhere (not Halide's
 * bits). fast_exp gives +inf above 88.72 and 0 below -87.34; fast_log of 0 is -inf, of a
 * negative value NaN; fast_pow(x, y) is fast_exp(y * fast_log(x)), 1 where y is 0.
 * fast_inverse(x) is 1 / x and fast_inverse_sqrt(x) 1 / sqrt(x), exact (Halide's use
 * the processor's approximations). An integer operand is converted to float32; a float64
 * operand is a CompileError. */
Expr fast_exp(Expr x);
Expr fast_log(Expr x);
Expr fast_pow(Expr x, Expr y);
Expr fast_inverse(Expr x);
Expr fast_inverse_sqrt(Expr x);

}  // namespace tessera
