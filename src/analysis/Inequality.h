#pragma once
// Conditions as inequalities: the one place where the analyses take a condition apart into
// the comparisons it states. A condition states each of its conjuncts (the operands of its
// &&s), and an integer comparison states one or two inequalities in the normal form
//
//     lesser + gap <= greater        (gap 0 or 1)
//
// a <= b is a + 0 <= b, a < b is a + 1 <= b, a >= b is b + 0 <= a, a > b is b + 1 <= a,
// and a == b is the two inequalities a <= b and b <= a; != states none. The form speaks of
// the values of the operands, as integers: how `lesser + gap` or `greater - lesser` is
// computed in the operands' type, which may wrap, is for each user to decide.
//
// Users: the facts the simplifier learns inside an if (src/analysis/Simplify.cpp), and
// narrow_by_condition (src/analysis/Interval.h), and nonnegative_difference (below), which
// the guard passes of src/lower build on.

#include <functional>
#include <vector>

#include "ir/IR.h"

namespace tessera::analysis {

/** lesser + gap <= greater. */
struct Inequality {
    Expr lesser, greater;
    int gap = 0;
};

/** A comparison as written (a op b) and the inequalities it states. */
struct Comparison {
    Expr a, b;
    ir::ExprKind op = ir::ExprKind::LE;
    Inequality inequalities[2];
    int count = 0;  // 1, or 2 for ==

    const Inequality *begin() const { return inequalities; }
    const Inequality *end() const { return inequalities + count; }
};

/** The conjuncts of c, left to right: c itself unless it is an &&. */
std::vector<Expr> conjuncts(const Expr &c);

/** The comparison c is, if it is <, <=, >, >= or == of integers. */
bool as_comparison(const Expr &c, Comparison &out);

/** The comparisons among the conjuncts of c, left to right. */
std::vector<Comparison> comparisons_of(const Expr &c);

/** The bounds the comparisons of condition c put on an expression itself (the operand that
 * `is_it` recognizes): each u with e <= u in `upper`, each l with l <= e in `lower` (a guard
 * `x0 * 32 + x1 < n` bounds the coordinate `x0 * 32 + x1` by n - 1). */
struct Limits {
    std::vector<Expr> upper, lower;
};
Limits limits_of(const Expr &c, const std::function<bool(const Expr &)> &is_it);

/** greater - lesser - gap: the difference the inequality states is non-negative, built (not
 * simplified) in the operands' type. */
Expr slack(const Inequality &i);

/** An int32 value computed in int64, where its arithmetic cannot wrap: the arithmetic of
 * coordinates (+, -, *, /, %, min, max, select of variables and constants, which lowering
 * assumes does not leave int32: src/lower/MarkIndexArithmetic.cpp) is done in 64 bits, and
 * anything computed from memory, or +, -, * with a constant beyond the coordinates
 * (detail::beyond_coordinates), whose arithmetic wraps as the algorithm says, is computed
 * in 32 bits and widened. Other types are returned unchanged. */
Expr in_int64(const Expr &e);

/** An int32 comparison a < b, a <= b, a > b or a >= b as the int64 difference that it
 * states is non-negative: the slack of its inequality with both sides in_int64 (b - a - 1
 * for a < b, b - a - 0 for a <= b, and the mirror images), so that a bound derived from it
 * does not wrap when the comparison holds constants near the ends of int32. Undefined for
 * any other condition. The guard passes of src/lower solve index conditions in this form. */
Expr nonnegative_difference(const Expr &condition);

}  // namespace tessera::analysis
