#pragma once
// Symbolic interval analysis: the core of bounds inference (docs/architecture.md, "What
// bounds inference guarantees").
//
// `bounds_of_expr(e, scope)` returns an Interval [min, max] such that, for every
// assignment of the variables in `scope` to values inside their intervals (and of every
// other variable to any value), the value of `e` lies in [min, max]. The endpoints are
// expressions over the variables that are NOT in scope (outer loop variables, Params,
// buffer bounds); a variable that is not in the scope stands for itself (a point
// interval [v, v]). An undefined endpoint means -infinity / +infinity.
//
// Soundness matters more than tightness, but the common affine cases of tiled loops stay
// exact: x + c, x * c + d, x / c, x % c, clamps and min/max of affine terms.
//
// Overflow. Intervals are computed symbolically, on expressions. There are two regimes:
//
//  * int32 and int64 ("index types": coordinates and lowered index arithmetic). When an
//    endpoint is symbolic, the analysis treats the arithmetic as arithmetic on
//    mathematical integers: [a, b] + 1 is [a + 1, b + 1]. This is sound as long as the
//    coordinates a pipeline actually computes stay inside the 32-bit range, which is the
//    case for every window and buffer Tessera can address; the generated code evaluates
//    bounds and indices in 64 bits. Whenever an endpoint is a constant, the mathematical
//    result is computed exactly (128 bits) and, if it does not fit the type (so the value
//    could wrap), the result is unbounded. A missing bound means "any value of the type"
//    (an unknown value, or a result that could have wrapped), so +, - and * with an
//    operand that is not bounded on both sides give an unbounded result: max(f(x), 0) + 1
//    has no lower bound, because f(x) may be INT32_MAX. Operations that cannot wrap (min,
//    max, select, division by a positive constant, modulo) keep a one-sided bound. With
//    constant intervals for all variables, the analysis is therefore exactly sound under
//    wrap-around. A symbolic endpoint combined by +, - or * with a constant endpoint that
//    no coordinate reaches (2^30 or more in magnitude for int32: the bound of a saturated
//    conversion of a Func's value, a huge constant of the algorithm; detail::
//    beyond_coordinates) is not coordinate arithmetic: the result is unbounded. So is an
//    int64 -> int32 truncation whose endpoint holds such a constant, or a conversion from
//    a float or from an integer wider than int32 (int64(p) of a Param<double> may be any
//    int64, which truncation wraps).
//
//  * every other type (int8, int16, all unsigned types, bool): arithmetic that can wrap
//    (+, -, *, shifts, narrowing casts) is computed on constant bounds only: a symbolic
//    endpoint is first replaced by the type's limit, the result is computed exactly, and if
//    it could leave the type's range the result is the type's full range. Operations that
//    cannot wrap (min, max, select, division by a positive constant, modulo) keep symbolic
//    endpoints. Results in these types are always bounded (by the type's range at worst).
//
// Whatever the type, an expression whose operands all have point intervals gets the
// point interval of the expression itself ([x + 1, x + 1] for a variable x not in scope),
// which is exact, wrap-around included.
//
// Floats: only constant intervals of non-NaN values are tracked (constants, casts of
// integer intervals, and +, -, *, min, max, select of such); a point interval [e, e] is
// kept for expressions whose operands are all points. Anything else is unbounded (a NaN
// lies in no interval).
//
// Func calls, image reads and Loads: the full range of the value's type when it is 16
// bits or narrower, unsigned or bool; unbounded for int32, int64 and floats. (Their
// values are not analysed; a data-dependent index must be clamped.)

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"

namespace tessera::analysis {

/** A closed interval [min, max] of values of one type (for a vector expression: the
 * element type, covering every lane). An undefined min is -infinity, an undefined max is
 * +infinity. An interval whose min is greater than its max is empty. */
struct Interval {
    Expr min, max;

    Interval() = default;
    Interval(Expr mn, Expr mx) : min(std::move(mn)), max(std::move(mx)) {}

    /** (-infinity, +infinity). */
    static Interval everything() { return Interval(); }
    /** [e, e]. */
    static Interval single_point(const Expr &e) { return Interval(e, e); }

    bool has_lower_bound() const { return min.defined(); }
    bool has_upper_bound() const { return max.defined(); }
    bool is_bounded() const { return min.defined() && max.defined(); }
    bool is_everything() const { return !min.defined() && !max.defined(); }
    /** min and max are the same expression (pointer-identical or structurally equal). */
    bool is_single_point() const;
    /** Both endpoints are integer (or bool) constants; their values in lo and hi. */
    bool is_const(int64_t &lo, int64_t &hi) const;
};

/** Variable name -> interval, with shadowing (push hides an outer binding of the same
 * name until the matching pop). */
class Scope {
public:
    void push(const std::string &name, Interval interval);
    void pop(const std::string &name);
    /** The innermost binding of the name, or null. */
    const Interval *lookup(const std::string &name) const;
    bool contains(const std::string &name) const { return lookup(name) != nullptr; }
    bool empty() const { return table_.empty(); }

private:
    std::map<std::string, std::vector<Interval>> table_;
};

/** Bounds of e when each variable in scope takes any value in its interval (see the top
 * of this file). The endpoints are simplified. When a let in e binds a value whose bounds
 * are not constants or variables, the endpoints keep it as a Let (of a fresh name derived
 * from the let's) instead of copying the value into every use. */
Interval bounds_of_expr(const Expr &e, const Scope &scope = Scope());

/** The smallest interval containing both (the hull): [min(a.min, b.min), max(a.max,
 * b.max)], simplified; an unbounded side stays unbounded. */
Interval interval_union(const Interval &a, const Interval &b);
/** [max(a.min, b.min), min(a.max, b.max)], simplified; an unbounded side takes the other
 * interval's endpoint. */
Interval intersect(const Interval &a, const Interval &b);

/** Tighter intervals for the variables of `scope` that hold wherever `condition` is true:
 * each conjunct `v < e`, `v <= e`, `v > e`, `v >= e` or `v == e` (either way round) with v
 * an integer variable in scope and e not mentioning v narrows v's interval by e's bounds,
 * through the inequalities it states (src/analysis/Inequality.h).
 * Used for the statements an if guards (RDom `where` predicates, split tails), so that
 * reads under the guard need only the region the guard lets through. Returns the new
 * intervals of the narrowed variables (the others are unchanged). */
std::vector<std::pair<std::string, Interval>> narrow_by_condition(const Expr &condition, const Scope &scope);

/** A multi-dimensional region: one interval per dimension. */
using Box = std::vector<Interval>;
/** Per-dimension hull. An empty box (no dimensions) is the identity, so boxes can be
 * accumulated starting from Box(). Otherwise the boxes must have equal dimensions. */
Box box_union(const Box &a, const Box &b);
/** Per-dimension intersection (same dimensions). */
Box box_intersect(const Box &a, const Box &b);

// ---------------------------------------------------------------------------------------
// Constant bounds (used by the simplifier to prove that arithmetic cannot wrap).

/** Constant bounds of variables: name -> [lo, hi]. */
using ConstBoundsScope = std::map<std::string, std::pair<int64_t, int64_t>>;

/** Constant bounds [lo, hi] of an integer or bool expression that are sound under the
 * exact semantics, wrap-around included: every value e can take lies in [lo, hi]. A
 * variable ranges over its interval in `scope` if it has one and over its whole type
 * otherwise (Param ranges are deliberately not used: the code that checks them must not
 * be simplified away by them); when nothing better is known the result is the type's
 * full range. Returns false for floats
 * and when a bound is not representable in int64 (large uint64 values). The analysis is
 * depth- and size-limited (beyond the limits it answers with the type's range), so it is
 * cheap enough to call on every node. */
bool const_bounds(const Expr &e, int64_t &lo, int64_t &hi);
/** A constant upper bound of an index expression, found after pushing differences into
 * min and max (min(a, b) - c = min(a - c, b - c), exact on integers that do not overflow,
 * the contract of index arithmetic), so that min(y + 3, y.max) - y + 1 is bounded by 4.
 * False if none is found. *lo, if given, receives the constant lower bound found with it
 * (equal to hi when the expression is a constant in disguise, such as
 * min(a, b) + 23 - min(a, b) + 1). */
bool constant_upper_bound(const Expr &e, int64_t &hi, int64_t *lo = nullptr);
/** constant_upper_bound of e where the `lets` (outermost first) are in scope: those e uses
 * are substituted first, innermost first. False, without looking further, once the
 * expression grows past a few thousand nodes (as a tree): each let of a chain (a pyramid's
 * levels) can use the one before more than once, so a long chain substituted makes a tree
 * of exponential size. */
bool constant_upper_bound(const Expr &e, const std::vector<std::pair<std::string, Expr>> &lets, int64_t &hi,
                          int64_t *lo = nullptr);
bool const_bounds(const Expr &e, const ConstBoundsScope &scope, int64_t &lo, int64_t &hi);

}  // namespace tessera::analysis
