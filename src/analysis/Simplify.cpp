// The simplifier. Every rule preserves the exact value of an expression for every value of
// its variables under docs/semantics.md. Notation: n is the bit width of the type, and "≡"
// is congruence modulo 2^n. Integer +, - and * are the exact results reduced modulo 2^n,
// so ANY identity of commutative-ring arithmetic (associativity, commutativity,
// distributivity, cancellation, x - x = 0) holds in every integer type: both sides are ≡
// as integer polynomials, and the reduction of congruent values gives the same
// representative. What does NOT survive wrap-around is everything about ORDER (x + 1 > x
// is false for x = MAX) and division (x * c / c != x when x * c wraps): the rules that
// need them hold only when constant bounds prove that nothing wraps (no_wrap below).
//
// What is a table and what is code. The algebraic rules of every operator are the entries
// of its table (make_rule_tables, below), written in the rule language of
// src/analysis/RewriteRule.h: a pattern, a replacement, a side condition and, where the
// rule is not obvious, the reason it holds. The list at the end of this comment is
// rendered from those tables; tests/unit/simplify_table_test.cpp fails, showing the
// difference, when the two disagree, and rewrites the list when run with
// $TESSERA_UPDATE_RULE_LIST=1. The rest is code, because it is not a rewrite of one
// operator's operands by a pattern:
//   * Constant folding goes through ir::binary / cast / intrinsic, so that a folded
//     constant is exactly what the operation computes at run time (a table would restate
//     the semantics of every operator). Calls of the platform math library (sin, exp, pow,
//     ...) are never folded (docs/semantics.md §3).
//   * Vector lanes: an operation on two Broadcasts is done on the scalars; an integer Ramp
//     plus, minus or times a Broadcast is a Ramp, and a sum or difference of Ramps is a
//     Ramp (lane i of both sides is ≡ as a polynomial in i); a Ramp of stride 0 is a
//     Broadcast. These change the shape of vectors, the same way for every operator.
//   * Which types a table serves: arithmetic on floats is only folded (no x + 0, which is
//     wrong for -0.0, no x * 0, wrong for NaN, inf and -0.0, no reassociation and no
//     reordering of min / max operands, which are not commutative with NaN); the entries
//     that hold for floats say so.
//   * Constant bounds, which no_wrap, lo and hi ask for. The simplifier tracks constant
//     bounds of loop variables (from a constant-bounded min and extent) and of let
//     variables, and asks `const_bounds` (Interval.h), which is exact under wrap-around:
//     it computes the mathematical result of every operation in 128 bits and answers with
//     the type's full range whenever a result might not fit. Inside `if (c)`, the
//     comparisons of a variable with a constant that c states (its inequalities,
//     src/analysis/Inequality.h) narrow the variable's bounds in the then branch. These
//     follow the scopes of statements.
//   * Lets: a let of a constant or a variable is substituted into its body, unless the
//     body rebinds that variable's name (substitution would capture it); a let whose
//     variable is unused is dropped (values have no side effects). For statements, uses in
//     provenance annotations count, so an annotation never refers to a dropped variable.
//   * Statements: a For of extent 0 is removed (its min and extent are pure expressions,
//     so not evaluating them changes nothing), as is a For, LetStmt, Allocate or Realize
//     whose body simplifies away; if (true) / if (false) keep the chosen branch;
//     assert(true) and Evaluate(constant) are removed; an if whose then branch vanishes
//     becomes if (!c) else. Store and Provide annotations are simplified with the same
//     substitutions as the code.
//
// Cost: one bottom-up pass; each entry that applies rebuilds a constant number of nodes;
// matching an entry looks at a few nodes and compares subtrees structurally; constant
// bounds are asked for once per operand of a node (const_bounds has a node budget); rule
// recursion is depth-limited.
//
// ==== The rules, rendered from the tables below (do not edit by hand) ====
// Notation. x, y, z, p: any expression; a name used twice matches structurally equal expressions.
// c0, c1: an integer or bool constant (in a vector, a Broadcast of one). 0, 1, -1, 2, true, false:
// a constant of that value. MAX, MIN: the largest and the smallest value of the operands' type. In
// a pattern, e + c with a constant c also matches e - k, as e + (-k), and e is never a constant:
// x + c is spelled x - k for large unsigned c, and both spellings meet the same rules. cmp: the
// comparison the entry matched, one of those it lists.
//
// Computed terms. Terms made of constants, lo(x) and hi(x) (the constant bounds of x; the entry
// does not apply when they are unknown), abs, + - * / % min max and comparisons are computed when
// the entry applies, in exact integer arithmetic (/ and % Euclidean); a constant of a replacement
// is then reduced to the type, modulo 2^n.
//
// Conditions. fits(k): k is a value of the type. pow2(k): k is a power of two. no_wrap(e), for e
// of the form x + c, x * c or x * c + y: the constant bounds of x and y prove that the + and * of
// e do not wrap (in simplify_index, int32 and int64 offsets are taken not to wrap, the contract of
// index arithmetic in src/analysis/Simplify.h). in_nest(x, y): x is a min (in the table of max, a
// max) and y is an operand of its nest of mins, among its first 32 nodes. Types: type(x); T, the
// type of the result; U, the type of an inner cast; integer(t), exact(t) (integer or bool),
// is_uint(t), is_float(t), is_bool(t), bits(t); contains(t, s): t is an integer type whose range
// contains every value of s; holds(t, s): t is a float type that represents every value of s
// exactly.
//
// Applying a table. The first entry that applies gives the result. Each operator of its
// replacement is built by the simplifier, so the replacement is simplified in turn; an entry
// marked [as written] builds it as it stands. Past the simplifier's depth limit only the entries
// whose replacement builds nothing to simplify (an operand, a constant, or as written) apply. An
// entry marked with types applies to those instead of its table's.
//
// x + y: integer types (a float + is only folded: x + 0 is not x for x = -0.0, and no
// reassociation is exact).
//   c0 + x -> x + c0
//     constants go to the right, where the entries below look for them
//   x + 0 -> x
//   (x + c0) + c1 -> x + (c0 + c1)
//   (c0 - x) + c1 -> (c0 + c1) - x
//   x + c0 -> x - (0 - c0)   if is_uint(T) && c0 > MAX / 2   [as written]
//     x + c and x - (2^n - c) are the same modulo 2^n; the smaller constant reads better
//   x + (y + c0) -> (x + y) + c0
//   (x + c0) + y -> (x + y) + c0
//   (c0 - x) + y -> (y - x) + c0
//   (x - y) + y -> x
//   x + (c0 - y) -> (x - y) + c0
//   x + (y - x) -> y
//   x * c0 + x * c1 -> x * (c0 + c1)
//   x * c0 + x -> x * (c0 + 1)
//   x + x * c0 -> x * (1 + c0)
//   x + x -> x * 2
//
// x - y: integer types (floats: folding only; x - x is NaN for an infinite x).
//   x - x -> 0
//   x - c0 -> x + (0 - c0)
//     -c is the wrapped negation, so x - MIN is x + MIN, which is the same modulo 2^n
//   c0 - (x + c1) -> (c0 - c1) - x
//   c0 - (c1 - x) -> x + (c0 - c1)
//   (x + c0) - (y + c1) -> (x - y) + (c0 - c1)
//   (x + c0) - y -> (x - y) + c0
//   x - (y + c0) -> (x - y) - c0
//   (x + y) - x -> y
//   (x + y) - y -> x
//   x - (x + y) -> 0 - y
//   x - (y + x) -> 0 - y
//   (x - y) - x -> 0 - y
//   x - (x - y) -> y
//   x * c0 - x * c1 -> x * (c0 - c1)
//   x * c0 - x -> x * (c0 - 1)
//   x - x * c0 -> x * (1 - c0)
//
// x * y: integer types (floats: folding only; x * 0 is not 0 for NaN, infinities and -0.0).
//   c0 * x -> x * c0
//     constants go to the right, where the entries below look for them
//   x * 0 -> 0
//   x * 1 -> x
//   (x * c0) * c1 -> x * (c0 * c1)
//   (x + c0) * c1 -> x * c1 + c0 * c1
//   (c0 - x) * c1 -> c0 * c1 - x * c1
//
// x / y: integer types; Euclidean division, and x / 0 == 0 (docs/semantics.md §2).
//   0 / x -> 0
//     0 / y is 0 for every y, 0 included
//   x / 0 -> 0
//     the definition
//   x / 1 -> x
//   x / -1 -> 0 - x
//     Euclidean x / -1 is -x, and MIN / -1 is defined as MIN, the wrapped negation of MIN
//   x / c0 -> lo(x) / c0   if c0 > 0 && lo(x) / c0 == hi(x) / c0
//     every value of x has the same quotient
//   (x / c0) / c1 -> x / (c0 * c1)   if c0 > 0 && c1 > 0 && fits(c0 * c1)
//     floor(floor(x / a) / b) = floor(x / (a b)) for integers, and neither division can overflow
//   (x * c0) / c1 -> x * (c0 / c1)   if c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0)
//     without wrap-around the operand is the exact integer, and the identity holds for integers
//   (x * c0 + y) / c1 -> x * (c0 / c1) + y / c1   if c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0 + y)
//     without wrap-around the operand is the exact integer, and the identity holds for integers
//   (y + x * c0) / c1 -> x * (c0 / c1) + y / c1   if c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0 + y)
//     without wrap-around the operand is the exact integer, and the identity holds for integers
//   (x + c0) / c1 -> x / c1 + c0 / c1   if c1 > 0 && c0 % c1 == 0 && no_wrap(x + c0)
//     without wrap-around the operand is the exact integer, and the identity holds for integers
//
// x % y: integer types; Euclidean, so x % y lies in [0, |y|), and x % 0 == 0.
//   0 % x -> 0
//     0 % y is 0 for every y, 0 included
//   x % x -> 0
//     x % x is 0 for x != 0, and 0 % 0 == 0
//   x % 0 -> 0
//     the definition
//   x % 1 -> 0
//   x % -1 -> 0
//   x % c0 -> x - (lo(x) / c0) * c0   if lo(x) / c0 == hi(x) / c0
//     x lies in one block [q |c0|, q |c0| + |c0| - 1], where x % c0 is x - q |c0|; that value is
//     in [0, |c0|), so computing it with wrap-around is exact
//   (x % c0) % c1 -> x % c1   if c0 != 0 && c0 % c1 == 0
//     x % c0 differs from x by a multiple of |c0|, hence of |c1|, with no arithmetic that could
//     wrap
//   (x * c0) % c1 -> 0   if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0))
//     a multiple of c1 vanishes modulo c1; a power of two divides 2^n, so wrap-around keeps the
//     residue, and any other modulus needs the exact operand
//   (x * c0 + y) % c1 -> y % c1   if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0 + y))
//     a multiple of c1 vanishes modulo c1; a power of two divides 2^n, so wrap-around keeps the
//     residue, and any other modulus needs the exact operand
//   (y + x * c0) % c1 -> y % c1   if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0 + y))
//     a multiple of c1 vanishes modulo c1; a power of two divides 2^n, so wrap-around keeps the
//     residue, and any other modulus needs the exact operand
//   (x + c0) % c1 -> x % c1   if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x + c0))
//     a multiple of c1 vanishes modulo c1; a power of two divides 2^n, so wrap-around keeps the
//     residue, and any other modulus needs the exact operand
//
// min(x, y): integer and bool types, a total order in which min is commutative, associative and
// idempotent; for floats only the first entry (with NaN, float min is neither commutative nor
// associative).
//   min(x, x) -> x   [all types]
//     x < x ? x : x is x, for a NaN x too
//   min(c0, x) -> min(x, c0)
//     constants go to the right, where the entries below look for them
//   min(x, MAX) -> x
//   min(x, MIN) -> MIN
//   min(min(x, c0), c1) -> min(x, min(c0, c1))
//   min(max(x, c0), c1) -> c1   if c1 <= c0
//     max(x, c0) >= c0 >= c1
//   min(x, y) -> x   if hi(x) <= lo(y)
//   min(x, y) -> y   if hi(y) <= lo(x)
//   min(x + c0, x + c1) -> x + min(c0, c1)   if no_wrap(x + c0) && no_wrap(x + c1)
//     only without wrap-around: min(x + 1, x + 2) is x + 2 for x = MAX - 1
//   min(x, x + c0) -> x + min(0, c0)   if no_wrap(x + c0)
//   min(x + c0, x) -> x + min(c0, 0)   if no_wrap(x + c0)
//   min(x, max(x, y)) -> x
//     absorption, in a total order
//   min(x, max(y, x)) -> x
//   min(max(x, y), x) -> x
//   min(max(y, x), x) -> x
//   min(x, y) -> x   if in_nest(x, y)
//     y is already an operand of x's nest of mins, and min is associative, commutative and
//     idempotent
//   min(x, y) -> y   if in_nest(y, x)
//
// max(x, y): integer and bool types, as min(x, y).
//   max(x, x) -> x   [all types]
//     x > x ? x : x is x, for a NaN x too
//   max(c0, x) -> max(x, c0)
//     constants go to the right, where the entries below look for them
//   max(x, MIN) -> x
//   max(x, MAX) -> MAX
//   max(max(x, c0), c1) -> max(x, max(c0, c1))
//   max(min(x, c0), c1) -> c1   if c1 >= c0
//     min(x, c0) <= c0 <= c1
//   max(x, y) -> y   if hi(x) <= lo(y)
//   max(x, y) -> x   if hi(y) <= lo(x)
//   max(x + c0, x + c1) -> x + max(c0, c1)   if no_wrap(x + c0) && no_wrap(x + c1)
//     only without wrap-around: max(x + 1, x + 2) is x + 1 for x = MAX - 1
//   max(x, x + c0) -> x + max(0, c0)   if no_wrap(x + c0)
//   max(x + c0, x) -> x + max(c0, 0)   if no_wrap(x + c0)
//   max(x, min(x, y)) -> x
//     absorption, in a total order
//   max(x, min(y, x)) -> x
//   max(min(x, y), x) -> x
//   max(min(y, x), x) -> x
//   max(x, y) -> x   if in_nest(x, y)
//     y is already an operand of x's nest of maxes, and max is associative, commutative and
//     idempotent
//   max(x, y) -> y   if in_nest(y, x)
//
// x cmp y: comparisons, integer and bool types (x == x is false for a NaN x). An ordering moves
// constants across only when the offsets provably do not wrap (x + 1 > x is false for x = MAX).
//   x == x -> true
//   x != x -> false
//   x < x -> false
//   x <= x -> true
//   x > x -> false
//   x >= x -> true
//   c0 == x -> x == c0
//     constants go to the right, where the entries below look for them
//   c0 != x -> x != c0
//   c0 < x -> x > c0
//   c0 <= x -> x >= c0
//   c0 > x -> x < c0
//   c0 >= x -> x <= c0
//   x == y -> false   if hi(x) < lo(y) || hi(y) < lo(x)
//   x != y -> true   if hi(x) < lo(y) || hi(y) < lo(x)
//   x < y -> true   if hi(x) < lo(y)
//   x < y -> false   if lo(x) >= hi(y)
//   x <= y -> true   if hi(x) <= lo(y)
//   x <= y -> false   if lo(x) > hi(y)
//   x > y -> true   if lo(x) > hi(y)
//   x > y -> false   if hi(x) <= lo(y)
//   x >= y -> true   if lo(x) >= hi(y)
//   x >= y -> false   if hi(x) < lo(y)
//   x + c0 cmp y -> x cmp y - c0   [cmp: == !=]   [integer types]
//     adding a constant is a bijection modulo 2^n
//   x - y cmp 0 -> x cmp y   [cmp: == !=]   [integer types]
//     x - y is 0 modulo 2^n just when x == y
//   x + c0 cmp x + c1 -> c0 cmp c1   if no_wrap(x + c0) && no_wrap(x + c1)   [cmp: < <= > >=]
//       [integer types]
//     orderings only without wrap-around
//   x cmp x + c0 -> 0 cmp c0   if no_wrap(x + c0)   [cmp: < <= > >=]   [integer types]
//   x + c0 cmp x -> c0 cmp 0   if no_wrap(x + c0)   [cmp: < <= > >=]   [integer types]
//   x + c0 cmp c1 -> x cmp c1 - c0   if fits(c1 - c0) && no_wrap(x + c0)   [cmp: < <= > >=]
//       [integer types]
//
// !x: bool.
//   !!x -> x
//   !(x == y) -> x != y   [as written]
//     IEEE != is exactly the negation of ==, NaN included
//   !(x != y) -> x == y   [as written]
//   !(x < y) -> x >= y   if !is_float(type(x))   [as written]
//     not for floats: x < y and x >= y are both false when an operand is NaN
//   !(x <= y) -> x > y   if !is_float(type(x))   [as written]
//   !(x > y) -> x <= y   if !is_float(type(x))   [as written]
//   !(x >= y) -> x < y   if !is_float(type(x))   [as written]
//
// x && y: bool.
//   true && x -> x
//   false && x -> false
//   x && true -> x
//   x && false -> false
//   x && x -> x
//   !x && x -> false
//   x && !x -> false
//
// x || y: bool.
//   false || x -> x
//   true || x -> true
//   x || false -> x
//   x || true -> true
//   x || x -> x
//   !x || x -> true
//   x || !x -> true
//
// select(p, x, y): all types. Every operand of a select is evaluated, but expressions have no side
// effects, so dropping an operand that is not selected changes no value.
//   select(true, x, y) -> x
//   select(false, x, y) -> y
//   select(p, x, x) -> x
//   select(!p, x, y) -> select(p, y, x)
//   select(p, true, false) -> p   if type(p) == T
//   select(p, false, true) -> !p   if type(p) == T
//   select(p, select(p, x, y), z) -> select(p, x, z)
//   select(p, x, select(p, y, z)) -> select(p, x, z)
//
// cast(T, x): all types. Float to integer conversion saturates while integer to integer wraps, so
// int32 -> float64 -> uint8 is not int32 -> uint8.
//   cast(T, x) -> x   if type(x) == T
//   cast(T, cast(U, x)) -> cast(T, x)
//       if integer(type(x)) && integer(U) && integer(T) && bits(T) <= bits(U)
//     both are the reduction modulo 2^bits(T) of the same integer (2^bits(T) divides 2^bits(U))
//   cast(T, cast(U, x)) -> cast(T, x)   if exact(type(x)) && contains(U, type(x))
//     cast(U, x) has x's exact value, and converting it to T is converting x
//   cast(T, cast(U, x)) -> cast(T, x)
//       if exact(type(x)) && holds(U, type(x)) && (is_float(T) || is_bool(T) || contains(T, type(x)))
//     cast(U, x) has x's exact value; converting it to an integer T saturates, which is a no-op
//     only when T contains x's range
// ==== End of the rules ====

#include "analysis/Simplify.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/ConstMath.h"
#include "analysis/Inequality.h"
#include "analysis/SimplifyRules.h"
#include "ir/Check.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Scalar.h"
#include "ir/Substitute.h"

namespace tessera::analysis {

using namespace ir;
using detail::const_int;
using detail::fits;
using detail::i128;
using detail::make_bool_const;
using detail::make_const;
using detail::type_max;
using detail::type_min;
using rewrite::Table;

namespace {

// =======================================================================================
// The rule tables

struct RuleTables {
    Table add{"x + y", "integer types (a float + is only folded: x + 0 is not x for x = -0.0, and no "
                       "reassociation is exact).",
              rewrite::kIntegers};
    Table sub{"x - y", "integer types (floats: folding only; x - x is NaN for an infinite x).", rewrite::kIntegers};
    Table mul{"x * y", "integer types (floats: folding only; x * 0 is not 0 for NaN, infinities and -0.0).",
              rewrite::kIntegers};
    Table div{"x / y", "integer types; Euclidean division, and x / 0 == 0 (docs/semantics.md §2).",
              rewrite::kIntegers};
    Table mod{"x % y", "integer types; Euclidean, so x % y lies in [0, |y|), and x % 0 == 0.", rewrite::kIntegers};
    Table min{"min(x, y)", "integer and bool types, a total order in which min is commutative, associative and "
                           "idempotent; for floats only the first entry (with NaN, float min is neither "
                           "commutative nor associative).",
              rewrite::kOrdered};
    Table max{"max(x, y)", "integer and bool types, as min(x, y).", rewrite::kOrdered};
    Table cmp{"x cmp y", "comparisons, integer and bool types (x == x is false for a NaN x). An ordering "
                         "moves constants across only when the offsets provably do not wrap (x + 1 > x is "
                         "false for x = MAX).",
              rewrite::kOrdered};
    Table logical_not{"!x", "bool.", rewrite::kBool};
    Table logical_and{"x && y", "bool.", rewrite::kBool};
    Table logical_or{"x || y", "bool.", rewrite::kBool};
    Table select{"select(p, x, y)", "all types. Every operand of a select is evaluated, but expressions have no "
                                    "side effects, so dropping an operand that is not selected changes no value.",
                 rewrite::kAllTypes};
    Table cast{"cast(T, x)", "all types. Float to integer conversion saturates while integer to integer "
                             "wraps, so int32 -> float64 -> uint8 is not int32 -> uint8.",
               rewrite::kAllTypes};

    /** Every table, in the order of the rendered list. */
    template<typename Self>
    static auto all(Self &self) {
        return std::vector{&self.add, &self.sub, &self.mul, &self.div, &self.mod, &self.min, &self.max, &self.cmp,
                           &self.logical_not, &self.logical_and, &self.logical_or, &self.select, &self.cast};
    }
};

RuleTables make_rule_tables() {
    using namespace rewrite::dsl;
    using rewrite::kAllTypes;
    using rewrite::kIntegers;
    using rewrite::Term;
    const Term x = wild(0, "x"), y = wild(1, "y"), z = wild(2, "z"), p = wild(3, "p");
    const Term c0 = constant(0, "c0"), c1 = constant(1, "c1");
    const Term MAX = largest(), MIN = smallest(), T = result_type(), U = inner_type();
    const char *constants_right = "constants go to the right, where the entries below look for them";
    RuleTables r;

    Table &add = r.add;
    add.rule(c0 + x, x + c0).because(constants_right);
    add.rule(x + 0, x);
    add.rule((x + c0) + c1, x + (c0 + c1));
    add.rule((c0 - x) + c1, (c0 + c1) - x);
    add.rule(x + c0, x - (0 - c0), is_uint(T) && c0 > MAX / 2)
        .written_as_is()
        .because("x + c and x - (2^n - c) are the same modulo 2^n; the smaller constant reads better");
    add.rule(x + (y + c0), (x + y) + c0);
    add.rule((x + c0) + y, (x + y) + c0);
    add.rule((c0 - x) + y, (y - x) + c0);
    add.rule((x - y) + y, x);
    add.rule(x + (c0 - y), (x - y) + c0);
    add.rule(x + (y - x), y);
    add.rule(x * c0 + x * c1, x * (c0 + c1));
    add.rule(x * c0 + x, x * (c0 + 1));
    add.rule(x + x * c0, x * (1 + c0));
    add.rule(x + x, x * 2);

    Table &sub = r.sub;
    sub.rule(x - x, 0);
    sub.rule(x - c0, x + (0 - c0))
        .because("-c is the wrapped negation, so x - MIN is x + MIN, which is the same modulo 2^n");
    sub.rule(c0 - (x + c1), (c0 - c1) - x);
    sub.rule(c0 - (c1 - x), x + (c0 - c1));
    sub.rule((x + c0) - (y + c1), (x - y) + (c0 - c1));
    sub.rule((x + c0) - y, (x - y) + c0);
    sub.rule(x - (y + c0), (x - y) - c0);
    sub.rule((x + y) - x, y);
    sub.rule((x + y) - y, x);
    sub.rule(x - (x + y), 0 - y);
    sub.rule(x - (y + x), 0 - y);
    sub.rule((x - y) - x, 0 - y);
    sub.rule(x - (x - y), y);
    sub.rule(x * c0 - x * c1, x * (c0 - c1));
    sub.rule(x * c0 - x, x * (c0 - 1));
    sub.rule(x - x * c0, x * (1 - c0));

    Table &mul = r.mul;
    mul.rule(c0 * x, x * c0).because(constants_right);
    mul.rule(x * 0, 0);
    mul.rule(x * 1, x);
    mul.rule((x * c0) * c1, x * (c0 * c1));
    mul.rule((x + c0) * c1, x * c1 + c0 * c1);
    mul.rule((c0 - x) * c1, c0 * c1 - x * c1);

    Table &div = r.div;
    const char *exact_operand = "without wrap-around the operand is the exact integer, and the identity holds for "
                                "integers";
    div.rule(0 / x, 0).because("0 / y is 0 for every y, 0 included");
    div.rule(x / 0, 0).because("the definition");
    div.rule(x / 1, x);
    div.rule(x / -1, 0 - x)
        .because("Euclidean x / -1 is -x, and MIN / -1 is defined as MIN, the wrapped negation of MIN");
    div.rule(x / c0, lo(x) / c0, c0 > 0 && lo(x) / c0 == hi(x) / c0)
        .because("every value of x has the same quotient");
    div.rule((x / c0) / c1, x / (c0 * c1), c0 > 0 && c1 > 0 && fits(c0 * c1))
        .because("floor(floor(x / a) / b) = floor(x / (a b)) for integers, and neither division can overflow");
    div.rule((x * c0) / c1, x * (c0 / c1), c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0)).because(exact_operand);
    div.rule((x * c0 + y) / c1, x * (c0 / c1) + y / c1, c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0 + y))
        .because(exact_operand);
    div.rule((y + x * c0) / c1, x * (c0 / c1) + y / c1, c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0 + y))
        .because(exact_operand);
    div.rule((x + c0) / c1, x / c1 + c0 / c1, c1 > 0 && c0 % c1 == 0 && no_wrap(x + c0)).because(exact_operand);

    Table &mod = r.mod;
    const char *residue = "a multiple of c1 vanishes modulo c1; a power of two divides 2^n, so wrap-around keeps "
                          "the residue, and any other modulus needs the exact operand";
    mod.rule(0 % x, 0).because("0 % y is 0 for every y, 0 included");
    mod.rule(x % x, 0).because("x % x is 0 for x != 0, and 0 % 0 == 0");
    mod.rule(x % 0, 0).because("the definition");
    mod.rule(x % 1, 0);
    mod.rule(x % -1, 0);
    mod.rule(x % c0, x - (lo(x) / c0) * c0, lo(x) / c0 == hi(x) / c0)
        .because("x lies in one block [q |c0|, q |c0| + |c0| - 1], where x % c0 is x - q |c0|; that value is "
                 "in [0, |c0|), so computing it with wrap-around is exact");
    mod.rule((x % c0) % c1, x % c1, c0 != 0 && c0 % c1 == 0)
        .because("x % c0 differs from x by a multiple of |c0|, hence of |c1|, with no arithmetic that could "
                 "wrap");
    mod.rule((x * c0) % c1, 0, c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0))).because(residue);
    mod.rule((x * c0 + y) % c1, y % c1, c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0 + y))).because(residue);
    mod.rule((y + x * c0) % c1, y % c1, c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0 + y))).because(residue);
    mod.rule((x + c0) % c1, x % c1, c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x + c0))).because(residue);

    // min and max: one list for both. (They are not quite order duals: when both operands
    // provably have the same single value, min keeps its first operand and max its second.)
    auto min_max = [&](Table &t, bool is_min) {
        auto op = [&](const Term &a, const Term &b) { return is_min ? min(a, b) : max(a, b); };
        auto other = [&](const Term &a, const Term &b) { return is_min ? max(a, b) : min(a, b); };
        const Term &neutral = is_min ? MAX : MIN, &absorbing = is_min ? MIN : MAX;
        t.rule(op(x, x), x)
            .only(kAllTypes)
            .because(is_min ? "x < x ? x : x is x, for a NaN x too" : "x > x ? x : x is x, for a NaN x too");
        t.rule(op(c0, x), op(x, c0)).because(constants_right);
        t.rule(op(x, neutral), x);
        t.rule(op(x, absorbing), absorbing);
        t.rule(op(op(x, c0), c1), op(x, op(c0, c1)));
        t.rule(op(other(x, c0), c1), c1, is_min ? c1 <= c0 : c1 >= c0)
            .because(is_min ? "max(x, c0) >= c0 >= c1" : "min(x, c0) <= c0 <= c1");
        t.rule(op(x, y), is_min ? x : y, hi(x) <= lo(y));
        t.rule(op(x, y), is_min ? y : x, hi(y) <= lo(x));
        t.rule(op(x + c0, x + c1), x + op(c0, c1), no_wrap(x + c0) && no_wrap(x + c1))
            .because(is_min ? "only without wrap-around: min(x + 1, x + 2) is x + 2 for x = MAX - 1"
                            : "only without wrap-around: max(x + 1, x + 2) is x + 1 for x = MAX - 1");
        t.rule(op(x, x + c0), x + op(0, c0), no_wrap(x + c0));
        t.rule(op(x + c0, x), x + op(c0, 0), no_wrap(x + c0));
        t.rule(op(x, other(x, y)), x).because("absorption, in a total order");
        t.rule(op(x, other(y, x)), x);
        t.rule(op(other(x, y), x), x);
        t.rule(op(other(y, x), x), x);
        t.rule(op(x, y), x, in_nest(x, y))
            .because(is_min ? "y is already an operand of x's nest of mins, and min is associative, commutative "
                              "and idempotent"
                            : "y is already an operand of x's nest of maxes, and max is associative, commutative "
                              "and idempotent");
        t.rule(op(x, y), y, in_nest(y, x));
    };
    min_max(r.min, true);
    min_max(r.max, false);

    Table &cp = r.cmp;
    cp.rule(x == x, tru());
    cp.rule(x != x, fls());
    cp.rule(x < x, fls());
    cp.rule(x <= x, tru());
    cp.rule(x > x, fls());
    cp.rule(x >= x, tru());
    cp.rule(c0 == x, x == c0).because(constants_right);
    cp.rule(c0 != x, x != c0);
    cp.rule(c0 < x, x > c0);
    cp.rule(c0 <= x, x >= c0);
    cp.rule(c0 > x, x < c0);
    cp.rule(c0 >= x, x <= c0);
    cp.rule(x == y, fls(), hi(x) < lo(y) || hi(y) < lo(x));
    cp.rule(x != y, tru(), hi(x) < lo(y) || hi(y) < lo(x));
    cp.rule(x < y, tru(), hi(x) < lo(y));
    cp.rule(x < y, fls(), lo(x) >= hi(y));
    cp.rule(x <= y, tru(), hi(x) <= lo(y));
    cp.rule(x <= y, fls(), lo(x) > hi(y));
    cp.rule(x > y, tru(), lo(x) > hi(y));
    cp.rule(x > y, fls(), hi(x) <= lo(y));
    cp.rule(x >= y, tru(), lo(x) >= hi(y));
    cp.rule(x >= y, fls(), hi(x) < lo(y));
    const auto equalities = {ExprKind::EQ, ExprKind::NE};
    const auto orderings = {ExprKind::LT, ExprKind::LE, ExprKind::GT, ExprKind::GE};
    cp.rule(cmp(x + c0, y), cmp(x, y - c0))
        .on(equalities)
        .only(kIntegers)
        .because("adding a constant is a bijection modulo 2^n");
    cp.rule(cmp(x - y, 0), cmp(x, y)).on(equalities).only(kIntegers).because("x - y is 0 modulo 2^n just when x == y");
    cp.rule(cmp(x + c0, x + c1), cmp(c0, c1), no_wrap(x + c0) && no_wrap(x + c1))
        .on(orderings)
        .only(kIntegers)
        .because("orderings only without wrap-around");
    cp.rule(cmp(x, x + c0), cmp(0, c0), no_wrap(x + c0)).on(orderings).only(kIntegers);
    cp.rule(cmp(x + c0, x), cmp(c0, 0), no_wrap(x + c0)).on(orderings).only(kIntegers);
    cp.rule(cmp(x + c0, c1), cmp(x, c1 - c0), fits(c1 - c0) && no_wrap(x + c0)).on(orderings).only(kIntegers);

    Table &nt = r.logical_not;
    nt.rule(!!x, x);
    nt.rule(!(x == y), x != y).written_as_is().because("IEEE != is exactly the negation of ==, NaN included");
    nt.rule(!(x != y), x == y).written_as_is();
    const char *nan_order = "not for floats: x < y and x >= y are both false when an operand is NaN";
    nt.rule(!(x < y), x >= y, !is_float(type(x))).written_as_is().because(nan_order);
    nt.rule(!(x <= y), x > y, !is_float(type(x))).written_as_is();
    nt.rule(!(x > y), x <= y, !is_float(type(x))).written_as_is();
    nt.rule(!(x >= y), x < y, !is_float(type(x))).written_as_is();

    auto and_or = [&](Table &t, bool is_and) {
        auto op = [&](const Term &a, const Term &b) { return is_and ? (a && b) : (a || b); };
        const Term neutral = is_and ? tru() : fls(), absorbing = is_and ? fls() : tru();
        t.rule(op(neutral, x), x);
        t.rule(op(absorbing, x), absorbing);
        t.rule(op(x, neutral), x);
        t.rule(op(x, absorbing), absorbing);
        t.rule(op(x, x), x);
        t.rule(op(!x, x), absorbing);
        t.rule(op(x, !x), absorbing);
    };
    and_or(r.logical_and, true);
    and_or(r.logical_or, false);

    Table &se = r.select;
    se.rule(select(tru(), x, y), x);
    se.rule(select(fls(), x, y), y);
    se.rule(select(p, x, x), x);
    se.rule(select(!p, x, y), select(p, y, x));
    se.rule(select(p, tru(), fls()), p, type(p) == T);
    se.rule(select(p, fls(), tru()), !p, type(p) == T);
    se.rule(select(p, select(p, x, y), z), select(p, x, z));
    se.rule(select(p, x, select(p, y, z)), select(p, x, z));

    Table &ca = r.cast;
    ca.rule(cast(T, x), x, type(x) == T);
    ca.rule(cast(T, cast(U, x)), cast(T, x), integer(type(x)) && integer(U) && integer(T) && bits(T) <= bits(U))
        .because("both are the reduction modulo 2^bits(T) of the same integer (2^bits(T) divides 2^bits(U))");
    ca.rule(cast(T, cast(U, x)), cast(T, x), exact(type(x)) && contains(U, type(x)))
        .because("cast(U, x) has x's exact value, and converting it to T is converting x");
    ca.rule(cast(T, cast(U, x)), cast(T, x),
            exact(type(x)) && holds(U, type(x)) && (is_float(T) || is_bool(T) || contains(T, type(x))))
        .because("cast(U, x) has x's exact value; converting it to an integer T saturates, which is a no-op "
                 "only when T contains x's range");

    for (Table *t : RuleTables::all(r)) t->seal();
    return r;
}

const RuleTables &rule_tables() {
    static const RuleTables tables = make_rule_tables();
    return tables;
}

// =======================================================================================

bool is_integer_type(Type t) { return t.element_of().is_integer(); }

/** A Ramp, or a Broadcast when the stride is zero (every lane is the base). */
Expr make_ramp(const Expr &base, const Expr &stride, int lanes) {
    i128 s;
    if (const_int(stride, s) && s == 0) return Broadcast::make(base, lanes);
    return Ramp::make(base, stride, lanes);
}

bool foldable_intrinsic(Intrinsic op) {
    switch (op) {
    case Intrinsic::Floor:
    case Intrinsic::Ceil:
    case Intrinsic::Round:
    case Intrinsic::Trunc:
    case Intrinsic::Sqrt:  // correctly rounded by IEEE-754 on every platform
    case Intrinsic::Fma:
    case Intrinsic::IsNan:
    case Intrinsic::IsInf:
    case Intrinsic::IsFinite:
    case Intrinsic::Abs:
    case Intrinsic::Absd:
    case Intrinsic::BitAnd:
    case Intrinsic::BitOr:
    case Intrinsic::BitXor:
    case Intrinsic::BitNot:
    case Intrinsic::ShiftLeft:
    case Intrinsic::ShiftRight:
    case Intrinsic::Reinterpret:
    case Intrinsic::PopCount:
    case Intrinsic::CountLeadingZeros:
    case Intrinsic::CountTrailingZeros: return true;
    default: return false;  // the platform math library: never folded
    }
}
/** Does the expression / statement bind `name` (Let, LetStmt, For)? */
class BindsName : public IRVisitor {
public:
    explicit BindsName(const std::string &n) : name_(n) {}
    bool found = false;
    using IRVisitor::include;

protected:
    void visit(const Let *op) override {
        found = found || op->name == name_;
        if (!found) IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        found = found || op->name == name_;
        if (!found) IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        found = found || op->name == name_;
        if (!found) IRVisitor::visit(op);
    }

private:
    const std::string &name_;
};

/** Is the variable used, in the code or in a provenance annotation? */
class UsesVarAnywhere : public IRVisitor {
public:
    explicit UsesVarAnywhere(const std::string &n) : name_(n) {}
    bool found = false;
    using IRVisitor::include;

protected:
    void visit(const Variable *op) override { found = found || op->name == name_; }
    void visit_provenance(const Provenance &p) override {
        for (const Expr &c : p.coords) include(c);
        for (const auto &rv : p.rvars) include(rv.second);
    }

private:
    const std::string &name_;
};

template<typename T>
bool binds(const T &node, const std::string &name) {
    BindsName b(name);
    b.include(node);
    return b.found;
}

template<typename T>
bool uses(const T &node, const std::string &name) {
    UsesVarAnywhere u(name);
    u.include(node);
    return u.found;
}

// =======================================================================================

class Simplifier : public IRMutator, public rewrite::Host {
public:
    explicit Simplifier(const ConstBoundsScope *initial, bool index_math = false,
                        std::vector<const rewrite::Entry *> *trace = nullptr)
        : index_math_(index_math), trace_(trace) {
        if (initial) bounds_ = *initial;
    }

    using IRMutator::mutate;

    /** Expressions are DAGs: inlining substitutes one definition at every use, so the same
     * node is reached many times. Each node is simplified once per set of bindings (the
     * memo is dropped whenever a variable's replacement or bounds change). */
    Expr mutate(const Expr &e) override {
        if (!e.defined()) return e;
        auto it = memo_.find(e.get());
        if (it != memo_.end()) return it->second.second;
        Expr r = IRMutator::mutate(e);
        memo_.emplace(e.get(), std::make_pair(e, r));
        return r;
    }

protected:
    // -----------------------------------------------------------------------------------
    // Expressions: simplify the children, then apply the rules for the node.

    Expr visit(const Variable *op, const Expr &self) override {
        auto it = repl_.find(op->name);
        if (it != repl_.end() && !it->second.empty() && it->second.back().defined())
            return it->second.back();
        return self;
    }

    Expr visit(const Cast *op, const Expr &self) override {
        return mk_cast(op->type, mutate(op->value), self);
    }

    Expr visit(const Add *op, const Expr &self) override { return mk_add(mutate(op->a), mutate(op->b), self); }
    Expr visit(const Sub *op, const Expr &self) override { return mk_sub(mutate(op->a), mutate(op->b), self); }
    Expr visit(const Mul *op, const Expr &self) override { return mk_mul(mutate(op->a), mutate(op->b), self); }
    Expr visit(const Div *op, const Expr &self) override { return mk_div(mutate(op->a), mutate(op->b), self); }
    Expr visit(const Mod *op, const Expr &self) override { return mk_mod(mutate(op->a), mutate(op->b), self); }
    Expr visit(const Min *op, const Expr &self) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr same = let_equal_to(a, b); same.defined()) return same;
        return mk_minmax(true, a, b, self);
    }
    Expr visit(const Max *op, const Expr &self) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr same = let_equal_to(a, b); same.defined()) return same;
        return mk_minmax(false, a, b, self);
    }
#define TESSERA_CMP_VISIT(N)                                                  \
    Expr visit(const N *op, const Expr &self) override {                     \
        return mk_cmp(ExprKind::N, mutate(op->a), mutate(op->b), self);      \
    }
    TESSERA_CMP_VISIT(EQ)
    TESSERA_CMP_VISIT(NE)
    TESSERA_CMP_VISIT(LT)
    TESSERA_CMP_VISIT(LE)
    TESSERA_CMP_VISIT(GT)
    TESSERA_CMP_VISIT(GE)
#undef TESSERA_CMP_VISIT
    Expr visit(const And *op, const Expr &self) override {
        return mk_logic(true, mutate(op->a), mutate(op->b), self);
    }
    Expr visit(const Or *op, const Expr &self) override {
        return mk_logic(false, mutate(op->a), mutate(op->b), self);
    }
    Expr visit(const Not *op, const Expr &self) override { return mk_not(mutate(op->a), self); }
    Expr visit(const Select *op, const Expr &self) override {
        Expr c = mutate(op->condition), a = mutate(op->true_value), b = mutate(op->false_value);
        if (Expr same = let_equal_to(a, b); same.defined()) return same;
        return mk_select(c, a, b, self);
    }

    Expr visit(const Call *op, const Expr &self) override {
        std::vector<Expr> args;
        bool changed = false;
        for (const Expr &a : op->args) {
            args.push_back(mutate(a));
            changed = changed || !args.back().same_as(a);
        }
        if (op->call_kind == CallKind::Intrinsic && foldable_intrinsic(op->op) && op->type.is_scalar()) {
            std::vector<Type> types;
            std::vector<ir::Scalar> values;
            bool all_const = true;
            for (const Expr &a : args) {
                ir::Scalar v;
                if (!detail::const_scalar(a, v)) {
                    all_const = false;
                    break;
                }
                types.push_back(a.type());
                values.push_back(v);
            }
            if (all_const) {
                ir::Scalar r = ir::intrinsic(op->op, op->type, types.data(), values.data(),
                                                           int(values.size()));
                return detail::make_scalar(op->type, ir::normalize(op->type, r));
            }
        }
        if (!changed) return self;
        return rebuild_call(op, std::move(args));
    }

    Expr visit(const Let *op, const Expr &self) override {
        Expr value = mutate(op->value);
        if (inlinable(value, op->body)) {
            push_repl(op->name, value);
            Expr body = mutate(op->body);
            pop_repl(op->name);
            return body;
        }
        push_repl(op->name, Expr());
        push_bounds_of(op->name, value);
        Expr body = mutate(op->body);
        pop_bounds();
        pop_repl(op->name);
        if (!uses(body, op->name)) return body;
        if (value.same_as(op->value) && body.same_as(op->body)) return self;
        return Let::make(op->name, std::move(value), std::move(body));
    }

    Expr visit(const Ramp *op, const Expr &self) override {
        Expr b = mutate(op->base), s = mutate(op->stride);
        if (b.same_as(op->base) && s.same_as(op->stride)) {
            i128 k;
            if (!(const_int(s, k) && k == 0)) return self;
        }
        return make_ramp(b, s, op->lanes);
    }

    Expr visit(const Broadcast *op, const Expr &self) override {
        Expr v = mutate(op->value);
        return v.same_as(op->value) ? self : Broadcast::make(std::move(v), op->lanes);
    }

    // -----------------------------------------------------------------------------------
    // Statements

    Stmt visit(const LetStmt *op, const Stmt &self) override {
        Expr value = mutate(op->value);
        if (inlinable(value, op->body)) {
            push_repl(op->name, value);
            Stmt body = mutate(op->body);
            pop_repl(op->name);
            return body;
        }
        push_repl(op->name, Expr());
        push_bounds_of(op->name, value);
        push_let_value(op->name, value);
        Stmt body = mutate(op->body);
        let_values_.pop_back();
        pop_bounds();
        pop_repl(op->name);
        if (!body.defined()) return Stmt();
        if (!uses(body, op->name)) return body;
        if (value.same_as(op->value) && body.same_as(op->body)) return self;
        return LetStmt::make(op->name, std::move(value), std::move(body));
    }

    Stmt visit(const AssertStmt *op, const Stmt &self) override {
        Expr c = mutate(op->condition);
        if (detail::is_const_true(c)) return Stmt();
        std::vector<Expr> msg;
        bool changed = !c.same_as(op->condition);
        for (const Expr &m : op->message) {
            msg.push_back(mutate(m));
            changed = changed || !msg.back().same_as(m);
        }
        if (!changed) return self;
        return AssertStmt::make(std::move(c), std::move(msg));
    }

    Stmt visit(const For *op, const Stmt &self) override {
        Expr mn = mutate(op->min), ex = mutate(op->extent);
        i128 e;
        if (const_int(ex, e) && e == 0) return Stmt();  // the extent has no side effects
        push_repl(op->name, Expr());
        {
            // The loop variable lies in [min, min + extent - 1] whenever the body runs.
            i128 ml = 0, mh = 0, el = 0, eh = 0;
            bool known = cbounds(mn, ml, mh) && cbounds(ex, el, eh) && eh >= 1 &&
                         fits(mn.type(), mh + eh - 1);
            push_bounds(op->name, known, ml, known ? mh + eh - 1 : 0);
        }
        Stmt body = mutate(op->body);
        pop_bounds();
        pop_repl(op->name);
        if (!body.defined()) return Stmt();
        if (mn.same_as(op->min) && ex.same_as(op->extent) && body.same_as(op->body)) return self;
        return For::make(op->name, std::move(mn), std::move(ex), op->for_type, std::move(body), op->loop);
    }

    Stmt visit(const IfThenElse *op, const Stmt &self) override {
        Expr c = mutate(op->condition);
        if (detail::is_const_true(c)) return mutate(op->then_case);
        if (detail::is_const_false(c)) return mutate(op->else_case);
        size_t mark = saved_.size();
        learn(c);
        Stmt t = mutate(op->then_case);
        while (saved_.size() > mark) pop_bounds();
        Stmt e = mutate(op->else_case);
        if (!t.defined() && !e.defined()) return Stmt();
        if (!t.defined()) return IfThenElse::make(mk_not(c), std::move(e));
        if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
        return IfThenElse::make(std::move(c), std::move(t), std::move(e));
    }

    Stmt visit(const Evaluate *op, const Stmt &self) override {
        Expr v = mutate(op->value);
        if (detail::is_const(v)) return Stmt();
        return v.same_as(op->value) ? self : Evaluate::make(std::move(v));
    }

    Stmt visit(const Block *op, const Stmt &self) override {
        Stmt a = mutate(op->first), b = mutate(op->rest);
        if (a.same_as(op->first) && b.same_as(op->rest)) return self;
        return Block::make(std::move(a), std::move(b));
    }

    Stmt visit(const Allocate *op, const Stmt &self) override {
        std::vector<Expr> extents;
        bool changed = false;
        for (const Expr &x : op->extents) {
            extents.push_back(mutate(x));
            changed = changed || !extents.back().same_as(x);
        }
        Stmt body = mutate(op->body);
        if (!body.defined()) return Stmt();
        if (!changed && body.same_as(op->body)) return self;
        return Allocate::make(op->name, op->type, std::move(extents), std::move(body));
    }

    Stmt visit(const Realize *op, const Stmt &self) override {
        Region bounds;
        bool changed = false;
        for (const Range &r : op->bounds) {
            Range m{mutate(r.min), mutate(r.extent)};
            changed = changed || !m.min.same_as(r.min) || !m.extent.same_as(r.extent);
            bounds.push_back(std::move(m));
        }
        Stmt body = mutate(op->body);
        if (!body.defined()) return Stmt();
        if (!changed && body.same_as(op->body)) return self;
        return Realize::make(op->name, op->type, std::move(bounds), std::move(body));
    }

private:
    ConstBoundsScope bounds_;
    /** simplify_index: int32 and int64 offsets are taken not to wrap. */
    bool index_math_ = false;
    struct Saved {
        std::string name;
        bool had;
        std::pair<int64_t, int64_t> old;
    };
    std::vector<Saved> saved_;
    std::unordered_map<std::string, std::vector<Expr>> repl_;  // undefined entry: shadowed
    std::unordered_map<const ExprNode *, std::pair<Expr, Expr>> memo_;  // node -> (node, simplified)
    int depth_ = 0;
    const RuleTables &rules_ = rule_tables();
    std::vector<const rewrite::Entry *> *trace_ = nullptr;  // the entries that applied (tests)

    static constexpr int kMaxRuleDepth = 64;

    /** Counts the nesting of rule applications; beyond the limit no more rules fire. */
    struct Guard {
        int &d;
        explicit Guard(int &depth) : d(depth) { d++; }
        ~Guard() { d--; }
    };
    bool too_deep() const { return depth_ > kMaxRuleDepth; }

    void push_repl(const std::string &name, Expr e) {
        memo_.clear();
        repl_[name].push_back(std::move(e));
        bindings_[name]++;
    }

    // The values of the enclosing lets (statements, reading no memory), to see that
    // min(v, e) is v when v is bound to e: a Func's region at one point, whose min and
    // max are the same expression, unioned with a read there. A value counts only while
    // neither its name nor a variable it uses has been bound again since.
    struct LetValue {
        std::string name;
        Expr value;
        std::vector<std::pair<std::string, uint64_t>> bindings;  // of the name and the value's variables
    };
    std::vector<LetValue> let_values_;
    std::unordered_map<std::string, uint64_t> bindings_;  // how often each name was bound

    void push_let_value(const std::string &name, const Expr &value) {
        LetValue l{name, value, {}};
        if (value.type().is_scalar() && !reads_memory(value)) {
            l.bindings.emplace_back(name, bindings_[name]);
            for (const std::string &v : variables_in(value)) l.bindings.emplace_back(v, bindings_[v]);
        } else {
            l.value = Expr();
        }
        let_values_.push_back(std::move(l));
    }

    /** The current value of the let that binds v (a variable, or one converted to another
     * integer type), as v's expression; undefined if v is not such a let's variable. */
    Expr let_value_of(const Expr &v) {
        const Cast *c = as<Cast>(v);
        const Variable *var = as<Variable>(c ? c->value : v);
        if (!var) return Expr();
        for (auto it = let_values_.rbegin(); it != let_values_.rend(); ++it) {
            if (it->name != var->name) continue;
            if (!it->value.defined()) return Expr();
            for (const auto &[n, count] : it->bindings)
                if (bindings_[n] != count) return Expr();
            return c ? Cast::make(c->type, it->value) : it->value;
        }
        return Expr();
    }

    /** Whether a and b are two lets' variables (or conversions of them) bound to equal
     * values: two Funcs' coordinates computed alike, such as a consumer's row and the row
     * its per-point reduction is stored at, whose difference in an index is 0. */
    bool equal_let_values(const Expr &a, const Expr &b) {
        const Expr va = let_value_of(a);
        if (!va.defined()) return false;
        const Expr vb = let_value_of(b);
        return vb.defined() && equal(va, vb);
    }

    /** a if a is a let variable bound (still) to an expression equal to b, or b if the
     * other way round; else undefined. */
    Expr let_equal_to(const Expr &a, const Expr &b) {
        for (int k = 0; k < 2; k++) {
            const Expr &v = k == 0 ? a : b, &other = k == 0 ? b : a;
            const Variable *var = as<Variable>(v);
            if (!var) continue;
            for (auto it = let_values_.rbegin(); it != let_values_.rend(); ++it) {
                if (it->name != var->name) continue;
                if (!it->value.defined()) break;
                bool current = true;
                for (const auto &[n, count] : it->bindings) current = current && bindings_[n] == count;
                if (current && equal(it->value, other)) return v;
                break;
            }
        }
        return Expr();
    }
    void pop_repl(const std::string &name) {
        memo_.clear();
        auto it = repl_.find(name);
        it->second.pop_back();
        if (it->second.empty()) repl_.erase(it);
    }

    void push_bounds(const std::string &name, bool known, i128 lo, i128 hi) {
        memo_.clear();
        auto it = bounds_.find(name);
        Saved s{name, it != bounds_.end(), it != bounds_.end() ? it->second : std::pair<int64_t, int64_t>()};
        saved_.push_back(std::move(s));
        if (known && lo >= INT64_MIN && hi <= INT64_MAX && lo <= hi) bounds_[name] = {int64_t(lo), int64_t(hi)};
        else bounds_.erase(name);
    }
    void push_bounds_of(const std::string &name, const Expr &value) {
        i128 lo = 0, hi = 0;
        bool known = value.type().is_scalar() && cbounds(value, lo, hi);
        push_bounds(name, known, lo, hi);
    }
    void pop_bounds() {
        memo_.clear();
        Saved s = std::move(saved_.back());
        saved_.pop_back();
        if (s.had) bounds_[s.name] = s.old;
        else bounds_.erase(s.name);
    }

    /** Narrows the bounds of variables by the comparisons that a true condition states
     * between a variable and a constant (the simplifier writes constants on the right). */
    void learn(const Expr &c) {
        for (const Comparison &cmp : comparisons_of(c)) {
            const auto *v = as<Variable>(cmp.a);
            i128 k;
            if (!v || !cmp.a.type().is_scalar() || !const_int(cmp.b, k)) continue;
            i128 lo, hi;
            if (!cbounds(cmp.a, lo, hi)) {
                lo = type_min(cmp.a.type());
                hi = type_max(cmp.a.type());
            }
            for (const Inequality &q : cmp) {
                if (q.lesser.same_as(cmp.a)) hi = std::min(hi, k - q.gap);  // v + gap <= k
                else lo = std::max(lo, k + q.gap);                          // k + gap <= v
            }
            if (lo > hi) continue;  // an unreachable branch; nothing useful to record
            push_bounds(v->name, true, lo, hi);
        }
    }

    bool cbounds(const Expr &e, i128 &lo, i128 &hi) {
        int64_t l, h;
        if (!const_bounds(e, bounds_, l, h)) return false;
        lo = l;
        hi = h;
        return true;
    }

    // -----------------------------------------------------------------------------------
    // What the rule tables ask of the simplifier (rewrite::Host)

    bool bounds(const Expr &e, i128 &lo, i128 &hi) override { return cbounds(e, lo, hi); }

    bool no_wrap_offset(const Expr &x, i128 c) override {
        if (c == 0) return true;
        if (index_math_ && (x.type() == Int(32) || x.type() == Int(64))) return true;
        i128 lo, hi;
        return cbounds(x, lo, hi) && fits(x.type(), lo + c) && fits(x.type(), hi + c);
    }

    bool no_wrap_mul(const Expr &x, i128 k) override {
        i128 plo, phi;
        return product_bounds(x, k, plo, phi);
    }

    bool no_wrap_mul_add(const Expr &x, i128 k, const Expr &y) override {
        i128 plo, phi, ylo, yhi;
        return product_bounds(x, k, plo, phi) && cbounds(y, ylo, yhi) && fits(x.type(), plo + ylo) &&
               fits(x.type(), phi + yhi);
    }

    Expr make_binary(ExprKind op, const Expr &a, const Expr &b) override {
        switch (op) {
        case ExprKind::Add: return mk_add(a, b);
        case ExprKind::Sub: return mk_sub(a, b);
        case ExprKind::Mul: return mk_mul(a, b);
        case ExprKind::Div: return mk_div(a, b);
        case ExprKind::Mod: return mk_mod(a, b);
        case ExprKind::Min: return mk_minmax(true, a, b);
        case ExprKind::Max: return mk_minmax(false, a, b);
        case ExprKind::And: return mk_logic(true, a, b);
        case ExprKind::Or: return mk_logic(false, a, b);
        default: return mk_cmp(op, a, b);
        }
    }
    Expr make_not(const Expr &a) override { return mk_not(a); }
    Expr make_select(const Expr &c, const Expr &a, const Expr &b) override { return mk_select(c, a, b); }
    Expr make_cast(Type t, const Expr &v) override { return mk_cast(t, v); }

    /** x * k does not wrap; the product's bounds in plo, phi. */
    bool product_bounds(const Expr &x, i128 k, i128 &plo, i128 &phi) {
        i128 lo, hi, a, b;
        if (!cbounds(x, lo, hi) || !detail::mul_checked(lo, k, a) || !detail::mul_checked(hi, k, b)) return false;
        plo = std::min(a, b);
        phi = std::max(a, b);
        return fits(x.type(), plo) && fits(x.type(), phi);
    }

    bool inlinable(const Expr &value, const Expr &body) {
        if (detail::is_const(value)) return true;
        if (const auto *v = as<Variable>(value)) return !binds(body, v->name);
        return false;
    }
    bool inlinable(const Expr &value, const Stmt &body) {
        if (detail::is_const(value)) return true;
        if (const auto *v = as<Variable>(value)) return !binds(body, v->name);
        return false;
    }

    // -----------------------------------------------------------------------------------
    // Node builders. Operands are already simplified; the result is simplified. `orig` is
    // the node being simplified, returned as is when nothing changed. Each builder folds
    // constants and handles vector lanes itself, then applies its operator's rule table.

    template<typename N>
    static Expr plain(const Expr &a, const Expr &b, const Expr &orig) {
        if (const N *o = as<N>(orig))
            if (o->a.same_as(a) && o->b.same_as(b)) return orig;
        return N::make(a, b);
    }

    /** The result of the first entry of `table` that applies, or undefined. */
    Expr apply_rules(const Table &table, ExprKind op, Type result, std::initializer_list<const Expr *> operands) {
        return rewrite::apply(table, op, result, operands.begin(), int(operands.size()), *this, too_deep(), trace_);
    }

    template<typename N>
    Expr binary_rules(const Table &table, const Expr &a, const Expr &b, const Expr &orig) {
        if (Expr r = apply_rules(table, N::node_kind, a.type(), {&a, &b}); r.defined()) return r;
        return plain<N>(a, b, orig);
    }

    /** Constant folding of a binary operator (scalars), or the operator applied to the
     * values of two Broadcasts; undefined otherwise. */
    Expr fold(ExprKind k, const Expr &a, const Expr &b) {
        ir::Scalar x, y;
        if (detail::const_scalar(a, x) && detail::const_scalar(b, y)) {
            Type t = a.type();
            ir::Scalar r = ir::binary(k, t, x, y);
            bool cmp = k == ExprKind::EQ || k == ExprKind::NE || k == ExprKind::LT || k == ExprKind::LE ||
                       k == ExprKind::GT || k == ExprKind::GE;
            return detail::make_scalar(cmp ? Bool() : t, r);
        }
        const auto *x_lanes = as<Broadcast>(a);
        const auto *y_lanes = as<Broadcast>(b);
        if (x_lanes && y_lanes && x_lanes->lanes == y_lanes->lanes)
            return Broadcast::make(make_binary(k, x_lanes->value, y_lanes->value), x_lanes->lanes);
        return Expr();
    }

    /** A Ramp plus or minus a Broadcast or a Ramp, as a Ramp (lane i of both sides is ≡ as a
     * polynomial in i); undefined for other operands. */
    Expr ramp_sum(ExprKind op, const Expr &a, const Expr &b) {
        const auto *r = as<Ramp>(a);
        if (!r) return Expr();
        if (const auto *bb = as<Broadcast>(b)) return Ramp::make(make_binary(op, r->base, bb->value), r->stride, r->lanes);
        if (const auto *r2 = as<Ramp>(b))
            return make_ramp(make_binary(op, r->base, r2->base), make_binary(op, r->stride, r2->stride), r->lanes);
        return Expr();
    }

    Expr mk_add(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Add, a, b); f.defined()) return f;
        if (!is_integer_type(a.type())) return plain<Add>(a, b, orig);
        if (!too_deep()) {
            if (Expr r = ramp_sum(ExprKind::Add, a, b); r.defined()) return r;
            if (as<Broadcast>(a) && as<Ramp>(b)) return mk_add(b, a);
        }
        return binary_rules<Add>(rules_.add, a, b, orig);
    }

    Expr mk_sub(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Sub, a, b); f.defined()) return f;
        if (!is_integer_type(a.type())) return plain<Sub>(a, b, orig);
        if (a.type().is_scalar() && equal_let_values(a, b)) return make_const(a.type(), 0);
        if (!too_deep()) {
            if (Expr r = ramp_sum(ExprKind::Sub, a, b); r.defined()) return r;
            if (const auto *r = as<Ramp>(b)) {
                if (const auto *ba = as<Broadcast>(a))
                    return make_ramp(mk_sub(ba->value, r->base), mk_sub(make_const(r->stride.type(), 0), r->stride),
                                     r->lanes);
            }
        }
        return binary_rules<Sub>(rules_.sub, a, b, orig);
    }

    Expr mk_mul(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Mul, a, b); f.defined()) return f;
        if (!is_integer_type(a.type())) return plain<Mul>(a, b, orig);
        if (!too_deep()) {
            if (const auto *r = as<Ramp>(a)) {
                if (const auto *bb = as<Broadcast>(b))
                    return make_ramp(mk_mul(r->base, bb->value), mk_mul(r->stride, bb->value), r->lanes);
            }
            if (as<Broadcast>(a) && as<Ramp>(b)) return mk_mul(b, a);
        }
        return binary_rules<Mul>(rules_.mul, a, b, orig);
    }

    Expr mk_div(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Div, a, b); f.defined()) return f;
        if (!is_integer_type(a.type())) return plain<Div>(a, b, orig);
        return binary_rules<Div>(rules_.div, a, b, orig);
    }

    Expr mk_mod(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Mod, a, b); f.defined()) return f;
        if (!is_integer_type(a.type())) return plain<Mod>(a, b, orig);
        return binary_rules<Mod>(rules_.mod, a, b, orig);
    }

    Expr mk_minmax(bool is_min, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(is_min ? ExprKind::Min : ExprKind::Max, a, b); f.defined()) return f;
        return is_min ? binary_rules<Min>(rules_.min, a, b, orig) : binary_rules<Max>(rules_.max, a, b, orig);
    }

    Expr mk_cmp(ExprKind kind, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(kind, a, b); f.defined()) return f;
        if (Expr r = apply_rules(rules_.cmp, kind, Bool(a.type().lanes), {&a, &b}); r.defined()) return r;
        switch (kind) {
        case ExprKind::EQ: return plain<EQ>(a, b, orig);
        case ExprKind::NE: return plain<NE>(a, b, orig);
        case ExprKind::LT: return plain<LT>(a, b, orig);
        case ExprKind::LE: return plain<LE>(a, b, orig);
        case ExprKind::GT: return plain<GT>(a, b, orig);
        default: return plain<GE>(a, b, orig);
        }
    }

    Expr mk_not(const Expr &a, const Expr &orig = Expr()) {
        Guard g(depth_);
        i128 v;
        if (const_int(a, v)) return make_bool_const(v == 0, a.type().lanes);
        if (const auto *b = as<Broadcast>(a)) return Broadcast::make(mk_not(b->value), b->lanes);
        if (Expr r = apply_rules(rules_.logical_not, ExprKind::Not, a.type(), {&a}); r.defined()) return r;
        if (const Not *o = as<Not>(orig); o && o->a.same_as(a)) return orig;
        return Not::make(a);
    }

    Expr mk_logic(bool is_and, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        i128 va, vb;
        if (const_int(a, va) && const_int(b, vb)) return make_bool_const(is_and ? (va && vb) : (va || vb), a.type().lanes);
        if (Expr f = fold(is_and ? ExprKind::And : ExprKind::Or, a, b); f.defined()) return f;
        return is_and ? binary_rules<And>(rules_.logical_and, a, b, orig)
                      : binary_rules<Or>(rules_.logical_or, a, b, orig);
    }

    Expr mk_select(const Expr &c, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr r = apply_rules(rules_.select, ExprKind::Select, a.type(), {&c, &a, &b}); r.defined()) return r;
        if (const Select *o = as<Select>(orig)) {
            if (o->condition.same_as(c) && o->true_value.same_as(a) && o->false_value.same_as(b)) return orig;
        }
        return Select::make(c, a, b);
    }

    Expr mk_cast(Type t, const Expr &v, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr r = apply_rules(rules_.cast, ExprKind::Cast, t, {&v}); r.defined()) return r;
        ir::Scalar s;
        if (t.is_scalar() && detail::const_scalar(v, s)) return detail::make_scalar(t, ir::cast(t, v.type(), s));
        if (const auto *b = as<Broadcast>(v)) return Broadcast::make(mk_cast(t.element_of(), b->value), b->lanes);
        if (const Cast *o = as<Cast>(orig); o && o->value.same_as(v)) return orig;
        return Cast::make(t, v);
    }
};

}  // namespace

std::vector<const rewrite::Table *> simplifier_rule_tables() { return RuleTables::all(rule_tables()); }

std::vector<std::string> render_simplifier_rules() {
    std::vector<std::string> out = rewrite::render_notation();
    for (const Table *t : RuleTables::all(rule_tables())) {
        out.push_back("");
        for (std::string &line : rewrite::render(*t)) out.push_back(std::move(line));
    }
    return out;
}

Expr simplify_tracing_rules(const Expr &e, const ConstBoundsScope &bounds, std::vector<const rewrite::Entry *> &applied) {
    if (!e.defined()) return e;
    Simplifier s(&bounds, false, &applied);
    return s.mutate(e);
}

Expr simplify(const Expr &e) {
    if (!e.defined()) return e;
    Simplifier s(nullptr);
    return s.mutate(e);
}

Expr simplify(const Expr &e, const ConstBoundsScope &bounds) {
    if (!e.defined()) return e;
    Simplifier s(&bounds);
    return s.mutate(e);
}

Stmt make_no_op() { return Evaluate::make(IntImm::make(Int(32), 0)); }

bool is_no_op(const Stmt &s) {
    if (!s.defined()) return true;
    const auto *e = as<Evaluate>(s);
    return e && detail::is_const(e->value);
}

Stmt simplify(const Stmt &s) {
    if (!s.defined()) return s;
    Simplifier simp(nullptr);
    Stmt r = simp.mutate(s);
    return r.defined() ? r : make_no_op();
}

bool can_prove(const Expr &condition) { return detail::is_const_true(simplify(condition)); }

Expr simplify_index(const Expr &e) {
    if (!e.defined()) return e;
    Simplifier s(nullptr, true);
    return s.mutate(e);
}

bool can_prove_index(const Expr &condition) { return detail::is_const_true(simplify_index(condition)); }

bool can_prove(const Expr &condition, const ConstBoundsScope &bounds) {
    return detail::is_const_true(simplify(condition, bounds));
}

}  // namespace tessera::analysis
