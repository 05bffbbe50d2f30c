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
// narrow_by_condition and nonnegative_difference (src/analysis/Interval.h), which the
// guard passes of src/lower build on.

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

/** greater - lesser - gap: the difference the inequality states is non-negative, built (not
 * simplified) in the operands' type. */
Expr slack(const Inequality &i);

}  // namespace tessera::analysis
