#pragma once
// The simplifier's rule tables (src/analysis/Simplify.cpp), for the tests that check them
// (tests/unit/simplify_table_test.cpp): the rendered list that opens Simplify.cpp, and a
// simplification that reports which entries applied.

#include <string>
#include <vector>

#include "analysis/Interval.h"
#include "analysis/RewriteRule.h"

namespace tessera::analysis {

/** Every table of the simplifier, in the order of the rendered list. */
std::vector<const rewrite::Table *> simplifier_rule_tables();

/** The rule list of Simplify.cpp's opening comment: the notation, then each table, as
 * lines without the comment marker. */
std::vector<std::string> render_simplifier_rules();

/** simplify(e, bounds), appending each entry that applies to `applied`. */
Expr simplify_tracing_rules(const Expr &e, const ConstBoundsScope &bounds, std::vector<const rewrite::Entry *> &applied);

}  // namespace tessera::analysis
