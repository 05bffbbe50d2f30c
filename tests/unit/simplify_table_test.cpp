// Tests of the simplifier's rule tables (src/analysis/Simplify.cpp, written in the rule
// language of src/analysis/RewriteRule.h):
//  * the rule list in Simplify.cpp's opening comment is the rendering of the tables; run
//      TESSERA_UPDATE_RULE_LIST=1 build/tests/tessera_tests --gtest_filter='SimplifyTable.*'
//    to rewrite it after changing a table;
//  * every entry has an example here, and simplifying the example applies that entry and
//    gives the result the entry states.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/SimplifyRules.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"

using namespace tessera;
using namespace tessera::ir;
using analysis::ConstBoundsScope;
using analysis::rewrite::Entry;
using analysis::rewrite::Table;

namespace {

// =======================================================================================
// The rule list in the comment

const char *const kBegin = "// ==== The rules, rendered from the tables below (do not edit by hand) ====";
const char *const kEnd = "// ==== End of the rules ====";

std::string source_path() { return std::string(TESSERA_SOURCE_DIR) + "/src/analysis/Simplify.cpp"; }

std::vector<std::string> read_lines(const std::string &path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::vector<std::string> rendered_comment() {
    std::vector<std::string> out;
    for (const std::string &l : analysis::render_simplifier_rules()) out.push_back(l.empty() ? "//" : "// " + l);
    return out;
}

/** A line diff (longest common subsequence): "-" lines of the file, "+" lines of the
 * tables, with one line of context around each change. */
std::string line_diff(const std::vector<std::string> &a, const std::vector<std::string> &b) {
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    std::vector<std::string> ops;  // ' ', '-', '+' followed by the line
    size_t i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j]) ops.push_back(" " + a[i++]), j++;
        else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push_back("+" + b[j++]);
        else ops.push_back("-" + a[i++]);
    }
    std::ostringstream out;
    for (size_t k = 0; k < ops.size(); k++) {
        bool near = false;
        for (size_t d = (k > 0 ? k - 1 : 0); d <= k + 1 && d < ops.size(); d++) near = near || ops[d][0] != ' ';
        if (near) out << ops[k] << "\n";
    }
    return out.str();
}

TEST(SimplifyTable, CommentListsTheRulesOfTheTables) {
    const std::string path = source_path();
    std::vector<std::string> lines = read_lines(path);
    ASSERT_FALSE(lines.empty()) << "cannot read " << path;
    size_t begin = lines.size(), end = lines.size();
    for (size_t i = 0; i < lines.size(); i++) {
        if (lines[i] == kBegin) begin = i;
        if (lines[i] == kEnd && begin < lines.size()) {
            end = i;
            break;
        }
    }
    ASSERT_LT(end, lines.size()) << path << " lacks the lines\n" << kBegin << "\n" << kEnd;
    const std::vector<std::string> current(lines.begin() + long(begin) + 1, lines.begin() + long(end));
    const std::vector<std::string> wanted = rendered_comment();
    if (current == wanted) return;
    if (std::getenv("TESSERA_UPDATE_RULE_LIST")) {
        std::vector<std::string> updated(lines.begin(), lines.begin() + long(begin) + 1);
        updated.insert(updated.end(), wanted.begin(), wanted.end());
        updated.insert(updated.end(), lines.begin() + long(end), lines.end());
        std::ofstream out(path);
        for (const std::string &l : updated) out << l << "\n";
        return;
    }
    ADD_FAILURE() << "the rule list in " << path << " differs from the tables (- the file, + the tables):\n"
                  << line_diff(current, wanted)
                  << "Run TESSERA_UPDATE_RULE_LIST=1 build/tests/tessera_tests --gtest_filter='SimplifyTable.*' "
                     "to rewrite it.";
}

// =======================================================================================
// Examples

Expr var(const std::string &n, Type t = Int(32)) { return Variable::make(t, n); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }
Expr u32(uint64_t v) { return UIntImm::make(UInt(32), v); }
Expr tru() { return UIntImm::make(Bool(), 1); }
Expr fls() { return UIntImm::make(Bool(), 0); }
// Operators of the IR, without the coercions of the public operators.
Expr add(const Expr &a, const Expr &b) { return Add::make(a, b); }
Expr sub(const Expr &a, const Expr &b) { return Sub::make(a, b); }
Expr mul(const Expr &a, const Expr &b) { return Mul::make(a, b); }
Expr dv(const Expr &a, const Expr &b) { return Div::make(a, b); }
Expr md(const Expr &a, const Expr &b) { return Mod::make(a, b); }
Expr add(const Expr &a, int b) { return Add::make(a, i32(b)); }
Expr sub(int a, const Expr &b) { return Sub::make(i32(a), b); }
Expr mul(const Expr &a, int b) { return Mul::make(a, i32(b)); }
Expr dv(const Expr &a, int b) { return Div::make(a, i32(b)); }
Expr md(const Expr &a, int b) { return Mod::make(a, i32(b)); }
Expr mn(const Expr &a, const Expr &b) { return Min::make(a, b); }
Expr mx(const Expr &a, const Expr &b) { return Max::make(a, b); }
Expr eq(const Expr &a, const Expr &b) { return EQ::make(a, b); }
Expr ne(const Expr &a, const Expr &b) { return NE::make(a, b); }
Expr lt(const Expr &a, const Expr &b) { return LT::make(a, b); }
Expr le(const Expr &a, const Expr &b) { return LE::make(a, b); }
Expr gt(const Expr &a, const Expr &b) { return GT::make(a, b); }
Expr ge(const Expr &a, const Expr &b) { return GE::make(a, b); }
Expr land(const Expr &a, const Expr &b) { return And::make(a, b); }
Expr lor(const Expr &a, const Expr &b) { return Or::make(a, b); }
Expr lnot(const Expr &a) { return Not::make(a); }
Expr sel(const Expr &c, const Expr &a, const Expr &b) { return Select::make(c, a, b); }
Expr cast(Type t, const Expr &v) { return Cast::make(t, v); }

struct Example {
    std::string table, entry;  // the entry's table (its title) and text
    Expr input, expected;
    ConstBoundsScope bounds;
};

using Bounds = ConstBoundsScope;

std::vector<Example> examples() {
    const Expr x = var("x"), y = var("y"), z = var("z");
    const Expr p = var("p", Bool()), ux = var("ux", UInt(32));
    const Expr a = var("a"), s8 = var("s8", Int(8)), w = var("w", UInt(8)), f = var("f", Float(32));
    const Bounds x_small = {{"x", {0, 100}}, {"y", {0, 100}}};
    const Bounds x_below_y = {{"x", {0, 5}}, {"y", {6, 10}}};
    const Bounds x_above_y = {{"x", {6, 10}}, {"y", {0, 5}}};
    const Bounds x_upto_y = {{"x", {0, 6}}, {"y", {6, 10}}};
    const Bounds y_upto_x = {{"x", {6, 10}}, {"y", {0, 6}}};
    const Bounds x_in_block = {{"x", {16, 23}}};
    const Bounds same_value = {{"x", {3, 3}}, {"y", {3, 3}}};
    const Expr max32 = i32(INT32_MAX), min32 = i32(INT32_MIN);
    return {
        // x + y
        {"x + y", "c0 + x -> x + c0", add(i32(3), x), add(x, 3), {}},
        {"x + y", "x + 0 -> x", add(x, 0), x, {}},
        {"x + y", "(x + c0) + c1 -> x + (c0 + c1)", add(add(x, 3), 4), add(x, 7), {}},
        {"x + y", "(c0 - x) + c1 -> (c0 + c1) - x", add(sub(3, x), 4), sub(7, x), {}},
        {"x + y", "x + c0 -> x - (0 - c0) if is_uint(T) && c0 > MAX / 2", add(ux, u32(0xFFFFFFFFu)), sub(ux, u32(1)), {}},
        {"x + y", "x + (y + c0) -> (x + y) + c0", add(x, add(y, 3)), add(add(x, y), 3), {}},
        {"x + y", "(x + c0) + y -> (x + y) + c0", add(add(x, 3), y), add(add(x, y), 3), {}},
        {"x + y", "(c0 - x) + y -> (y - x) + c0", add(sub(3, x), y), add(sub(y, x), 3), {}},
        {"x + y", "(x - y) + y -> x", add(sub(x, y), y), x, {}},
        {"x + y", "x + (c0 - y) -> (x - y) + c0", add(x, sub(3, y)), add(sub(x, y), 3), {}},
        {"x + y", "x + (y - x) -> y", add(x, sub(y, x)), y, {}},
        {"x + y", "x * c0 + x * c1 -> x * (c0 + c1)", add(mul(x, 3), mul(x, 5)), mul(x, 8), {}},
        {"x + y", "x * c0 + x -> x * (c0 + 1)", add(mul(x, 3), x), mul(x, 4), {}},
        {"x + y", "x + x * c0 -> x * (1 + c0)", add(x, mul(x, 3)), mul(x, 4), {}},
        {"x + y", "x + x -> x * 2", add(x, x), mul(x, 2), {}},
        // x - y
        {"x - y", "x - x -> 0", sub(x, x), i32(0), {}},
        {"x - y", "x - c0 -> x + (0 - c0)", sub(x, i32(5)), add(x, -5), {}},
        {"x - y", "c0 - (x + c1) -> (c0 - c1) - x", sub(10, add(x, 3)), sub(7, x), {}},
        {"x - y", "c0 - (c1 - x) -> x + (c0 - c1)", sub(10, sub(3, x)), add(x, 7), {}},
        {"x - y", "(x + c0) - (y + c1) -> (x - y) + (c0 - c1)", sub(add(x, 5), add(y, 3)), add(sub(x, y), 2), {}},
        {"x - y", "(x + c0) - y -> (x - y) + c0", sub(add(x, 5), y), add(sub(x, y), 5), {}},
        {"x - y", "x - (y + c0) -> (x - y) - c0", sub(x, add(y, 5)), add(sub(x, y), -5), {}},
        {"x - y", "(x + y) - x -> y", sub(add(x, y), x), y, {}},
        {"x - y", "(x + y) - y -> x", sub(add(x, y), y), x, {}},
        {"x - y", "x - (x + y) -> 0 - y", sub(x, add(x, y)), sub(0, y), {}},
        {"x - y", "x - (y + x) -> 0 - y", sub(x, add(y, x)), sub(0, y), {}},
        {"x - y", "(x - y) - x -> 0 - y", sub(sub(x, y), x), sub(0, y), {}},
        {"x - y", "x - (x - y) -> y", sub(x, sub(x, y)), y, {}},
        {"x - y", "x * c0 - x * c1 -> x * (c0 - c1)", sub(mul(x, 5), mul(x, 3)), mul(x, 2), {}},
        {"x - y", "x * c0 - x -> x * (c0 - 1)", sub(mul(x, 5), x), mul(x, 4), {}},
        {"x - y", "x - x * c0 -> x * (1 - c0)", sub(x, mul(x, 3)), mul(x, -2), {}},
        // x * y
        {"x * y", "c0 * x -> x * c0", mul(i32(3), x), mul(x, 3), {}},
        {"x * y", "x * 0 -> 0", mul(x, 0), i32(0), {}},
        {"x * y", "x * 1 -> x", mul(x, 1), x, {}},
        {"x * y", "(x * c0) * c1 -> x * (c0 * c1)", mul(mul(x, 3), 4), mul(x, 12), {}},
        {"x * y", "(x + c0) * c1 -> x * c1 + c0 * c1", mul(add(x, 1), 4), add(mul(x, 4), 4), {}},
        {"x * y", "(c0 - x) * c1 -> c0 * c1 - x * c1", mul(sub(3, x), 4), sub(12, mul(x, 4)), {}},
        // x / y
        {"x / y", "0 / x -> 0", dv(i32(0), x), i32(0), {}},
        {"x / y", "x / 0 -> 0", dv(x, 0), i32(0), {}},
        {"x / y", "x / 1 -> x", dv(x, 1), x, {}},
        {"x / y", "x / -1 -> 0 - x", dv(x, -1), sub(0, x), {}},
        {"x / y", "x / c0 -> lo(x) / c0 if c0 > 0 && lo(x) / c0 == hi(x) / c0", dv(x, 8), i32(2), x_in_block},
        {"x / y", "(x / c0) / c1 -> x / (c0 * c1) if c0 > 0 && c1 > 0 && fits(c0 * c1)", dv(dv(x, 4), 2), dv(x, 8), {}},
        {"x / y", "(x * c0) / c1 -> x * (c0 / c1) if c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0)", dv(mul(x, 8), 4), mul(x, 2),
         x_small},
        {"x / y", "(x * c0 + y) / c1 -> x * (c0 / c1) + y / c1 if c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0 + y)", dv(add(mul(x, 16), y), 8), add(mul(x, 2), dv(y, 8)), x_small},
        {"x / y", "(y + x * c0) / c1 -> x * (c0 / c1) + y / c1 if c1 > 0 && c0 % c1 == 0 && no_wrap(x * c0 + y)", dv(add(y, mul(x, 16)), 8), add(mul(x, 2), dv(y, 8)), x_small},
        {"x / y", "(x + c0) / c1 -> x / c1 + c0 / c1 if c1 > 0 && c0 % c1 == 0 && no_wrap(x + c0)", dv(add(x, 16), 8), add(dv(x, 8), 2), x_small},
        // x % y
        {"x % y", "0 % x -> 0", md(i32(0), x), i32(0), {}},
        {"x % y", "x % x -> 0", md(x, x), i32(0), {}},
        {"x % y", "x % 0 -> 0", md(x, 0), i32(0), {}},
        {"x % y", "x % 1 -> 0", md(x, 1), i32(0), {}},
        {"x % y", "x % -1 -> 0", md(x, -1), i32(0), {}},
        {"x % y", "x % c0 -> x - (lo(x) / c0) * c0 if lo(x) / c0 == hi(x) / c0", md(x, 8), add(x, -16), x_in_block},
        {"x % y", "(x % c0) % c1 -> x % c1 if c0 != 0 && c0 % c1 == 0", md(md(x, 8), 4), md(x, 4), {}},
        {"x % y", "(x * c0) % c1 -> 0 if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0))", md(mul(x, 16), 8), i32(0),
         {}},
        {"x % y", "(x * c0 + y) % c1 -> y % c1 if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0 + y))", md(add(mul(x, 6), y), 3), md(y, 3), x_small},
        {"x % y", "(y + x * c0) % c1 -> y % c1 if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x * c0 + y))", md(add(y, mul(x, 16)), 8), md(y, 8), {}},
        {"x % y", "(x + c0) % c1 -> x % c1 if c0 % c1 == 0 && (pow2(abs(c1)) || no_wrap(x + c0))", md(add(x, 8), 4), md(x, 4),
         {}},
        // min(x, y)
        {"min(x, y)", "min(x, x) -> x", mn(f, f), f, {}},
        {"min(x, y)", "min(c0, x) -> min(x, c0)", mn(i32(3), x), mn(x, i32(3)), {}},
        {"min(x, y)", "min(x, MAX) -> x", mn(x, max32), x, {}},
        {"min(x, y)", "min(x, MIN) -> MIN", mn(x, min32), min32, {}},
        {"min(x, y)", "min(min(x, c0), c1) -> min(x, min(c0, c1))", mn(mn(x, i32(3)), i32(5)), mn(x, i32(3)), {}},
        {"min(x, y)", "min(max(x, c0), c1) -> c1 if c1 <= c0", mn(mx(x, i32(10)), i32(5)), i32(5), {}},
        {"min(x, y)", "min(x, y) -> x if hi(x) <= lo(y)", mn(x, y), x, x_upto_y},
        {"min(x, y)", "min(x, y) -> x if hi(x) <= lo(y)", mn(x, y), x, same_value},
        {"min(x, y)", "min(x, y) -> y if hi(y) <= lo(x)", mn(x, y), y, y_upto_x},
        {"min(x, y)", "min(x + c0, x + c1) -> x + min(c0, c1) if no_wrap(x + c0) && no_wrap(x + c1)", mn(add(x, 1), add(x, 2)), add(x, 1), x_small},
        {"min(x, y)", "min(x, x + c0) -> x + min(0, c0) if no_wrap(x + c0)", mn(x, add(x, 2)), x, x_small},
        {"min(x, y)", "min(x + c0, x) -> x + min(c0, 0) if no_wrap(x + c0)", mn(add(x, -2), x), add(x, -2), x_small},
        {"min(x, y)", "min(x, max(x, y)) -> x", mn(x, mx(x, y)), x, {}},
        {"min(x, y)", "min(x, max(y, x)) -> x", mn(x, mx(y, x)), x, {}},
        {"min(x, y)", "min(max(x, y), x) -> x", mn(mx(x, y), x), x, {}},
        {"min(x, y)", "min(max(y, x), x) -> x", mn(mx(y, x), x), x, {}},
        {"min(x, y)", "min(x, y) -> x if in_nest(x, y)", mn(mn(mn(x, y), z), y), mn(mn(x, y), z), {}},
        {"min(x, y)", "min(x, y) -> y if in_nest(y, x)", mn(y, mn(z, mn(x, y))), mn(z, mn(x, y)), {}},
        // max(x, y)
        {"max(x, y)", "max(x, x) -> x", mx(x, x), x, {}},
        {"max(x, y)", "max(c0, x) -> max(x, c0)", mx(i32(3), x), mx(x, i32(3)), {}},
        {"max(x, y)", "max(x, MIN) -> x", mx(x, min32), x, {}},
        {"max(x, y)", "max(x, MAX) -> MAX", mx(x, max32), max32, {}},
        {"max(x, y)", "max(max(x, c0), c1) -> max(x, max(c0, c1))", mx(mx(x, i32(3)), i32(5)), mx(x, i32(5)), {}},
        {"max(x, y)", "max(min(x, c0), c1) -> c1 if c1 >= c0", mx(mn(x, i32(3)), i32(5)), i32(5), {}},
        {"max(x, y)", "max(x, y) -> y if hi(x) <= lo(y)", mx(x, y), y, x_upto_y},
        {"max(x, y)", "max(x, y) -> y if hi(x) <= lo(y)", mx(x, y), y, same_value},
        {"max(x, y)", "max(x, y) -> x if hi(y) <= lo(x)", mx(x, y), x, y_upto_x},
        {"max(x, y)", "max(x + c0, x + c1) -> x + max(c0, c1) if no_wrap(x + c0) && no_wrap(x + c1)", mx(add(x, 1), add(x, 2)), add(x, 2), x_small},
        {"max(x, y)", "max(x, x + c0) -> x + max(0, c0) if no_wrap(x + c0)", mx(x, add(x, 2)), add(x, 2), x_small},
        {"max(x, y)", "max(x + c0, x) -> x + max(c0, 0) if no_wrap(x + c0)", mx(add(x, -2), x), x, x_small},
        {"max(x, y)", "max(x, min(x, y)) -> x", mx(x, mn(x, y)), x, {}},
        {"max(x, y)", "max(x, min(y, x)) -> x", mx(x, mn(y, x)), x, {}},
        {"max(x, y)", "max(min(x, y), x) -> x", mx(mn(x, y), x), x, {}},
        {"max(x, y)", "max(min(y, x), x) -> x", mx(mn(y, x), x), x, {}},
        {"max(x, y)", "max(x, y) -> x if in_nest(x, y)", mx(mx(mx(x, y), z), y), mx(mx(x, y), z), {}},
        {"max(x, y)", "max(x, y) -> y if in_nest(y, x)", mx(y, mx(z, mx(x, y))), mx(z, mx(x, y)), {}},
        // x cmp y
        {"x cmp y", "x == x -> true", eq(x, x), tru(), {}},
        {"x cmp y", "x != x -> false", ne(x, x), fls(), {}},
        {"x cmp y", "x < x -> false", lt(x, x), fls(), {}},
        {"x cmp y", "x <= x -> true", le(x, x), tru(), {}},
        {"x cmp y", "x > x -> false", gt(x, x), fls(), {}},
        {"x cmp y", "x >= x -> true", ge(x, x), tru(), {}},
        {"x cmp y", "c0 == x -> x == c0", eq(i32(3), x), eq(x, i32(3)), {}},
        {"x cmp y", "c0 != x -> x != c0", ne(i32(3), x), ne(x, i32(3)), {}},
        {"x cmp y", "c0 < x -> x > c0", lt(i32(3), x), gt(x, i32(3)), {}},
        {"x cmp y", "c0 <= x -> x >= c0", le(i32(3), x), ge(x, i32(3)), {}},
        {"x cmp y", "c0 > x -> x < c0", gt(i32(3), x), lt(x, i32(3)), {}},
        {"x cmp y", "c0 >= x -> x <= c0", ge(i32(3), x), le(x, i32(3)), {}},
        {"x cmp y", "x == y -> false if hi(x) < lo(y) || hi(y) < lo(x)", eq(x, y), fls(), x_above_y},
        {"x cmp y", "x != y -> true if hi(x) < lo(y) || hi(y) < lo(x)", ne(x, y), tru(), x_below_y},
        {"x cmp y", "x < y -> true if hi(x) < lo(y)", lt(x, y), tru(), x_below_y},
        {"x cmp y", "x < y -> false if lo(x) >= hi(y)", lt(x, y), fls(), y_upto_x},
        {"x cmp y", "x <= y -> true if hi(x) <= lo(y)", le(x, y), tru(), x_upto_y},
        {"x cmp y", "x <= y -> false if lo(x) > hi(y)", le(x, y), fls(), x_above_y},
        {"x cmp y", "x > y -> true if lo(x) > hi(y)", gt(x, y), tru(), x_above_y},
        {"x cmp y", "x > y -> false if hi(x) <= lo(y)", gt(x, y), fls(), x_upto_y},
        {"x cmp y", "x >= y -> true if lo(x) >= hi(y)", ge(x, y), tru(), y_upto_x},
        {"x cmp y", "x >= y -> false if hi(x) < lo(y)", ge(x, y), fls(), x_below_y},
        {"x cmp y", "x + c0 cmp y -> x cmp y - c0", eq(add(x, 3), i32(10)), eq(x, i32(7)), {}},
        {"x cmp y", "x + c0 cmp y -> x cmp y - c0", ne(add(x, 3), y), ne(x, add(y, -3)), {}},
        {"x cmp y", "x - y cmp 0 -> x cmp y", eq(sub(x, y), i32(0)), eq(x, y), {}},
        {"x cmp y", "x + c0 cmp x + c1 -> c0 cmp c1 if no_wrap(x + c0) && no_wrap(x + c1)", le(add(x, 3), add(x, 1)), fls(),
         x_small},
        {"x cmp y", "x cmp x + c0 -> 0 cmp c0 if no_wrap(x + c0)", lt(x, add(x, 1)), tru(), x_small},
        {"x cmp y", "x + c0 cmp x -> c0 cmp 0 if no_wrap(x + c0)", gt(add(x, 1), x), tru(), x_small},
        {"x cmp y", "x + c0 cmp c1 -> x cmp c1 - c0 if fits(c1 - c0) && no_wrap(x + c0)", lt(add(x, 5), i32(10)), lt(x, i32(5)), x_small},
        // !x
        {"!x", "!!x -> x", lnot(lnot(p)), p, {}},
        {"!x", "!(x == y) -> x != y", lnot(eq(f, f)), ne(f, f), {}},
        {"!x", "!(x != y) -> x == y", lnot(ne(x, y)), eq(x, y), {}},
        {"!x", "!(x < y) -> x >= y if !is_float(type(x))", lnot(lt(x, y)), ge(x, y), {}},
        {"!x", "!(x <= y) -> x > y if !is_float(type(x))", lnot(le(x, y)), gt(x, y), {}},
        {"!x", "!(x > y) -> x <= y if !is_float(type(x))", lnot(gt(x, y)), le(x, y), {}},
        {"!x", "!(x >= y) -> x < y if !is_float(type(x))", lnot(ge(x, y)), lt(x, y), {}},
        // x && y, x || y
        {"x && y", "true && x -> x", land(tru(), p), p, {}},
        {"x && y", "false && x -> false", land(fls(), p), fls(), {}},
        {"x && y", "x && true -> x", land(p, tru()), p, {}},
        {"x && y", "x && false -> false", land(p, fls()), fls(), {}},
        {"x && y", "x && x -> x", land(p, p), p, {}},
        {"x && y", "!x && x -> false", land(lnot(p), p), fls(), {}},
        {"x && y", "x && !x -> false", land(p, lnot(p)), fls(), {}},
        {"x || y", "false || x -> x", lor(fls(), p), p, {}},
        {"x || y", "true || x -> true", lor(tru(), p), tru(), {}},
        {"x || y", "x || false -> x", lor(p, fls()), p, {}},
        {"x || y", "x || true -> true", lor(p, tru()), tru(), {}},
        {"x || y", "x || x -> x", lor(p, p), p, {}},
        {"x || y", "!x || x -> true", lor(lnot(p), p), tru(), {}},
        {"x || y", "x || !x -> true", lor(p, lnot(p)), tru(), {}},
        // select(p, x, y)
        {"select(p, x, y)", "select(true, x, y) -> x", sel(tru(), x, y), x, {}},
        {"select(p, x, y)", "select(false, x, y) -> y", sel(fls(), x, y), y, {}},
        {"select(p, x, y)", "select(p, x, x) -> x", sel(p, f, f), f, {}},
        {"select(p, x, y)", "select(!p, x, y) -> select(p, y, x)", sel(lnot(p), x, y), sel(p, y, x), {}},
        {"select(p, x, y)", "select(p, true, false) -> p if type(p) == T", sel(p, tru(), fls()), p, {}},
        {"select(p, x, y)", "select(p, false, true) -> !p if type(p) == T", sel(p, fls(), tru()), lnot(p), {}},
        {"select(p, x, y)", "select(p, select(p, x, y), z) -> select(p, x, z)", sel(p, sel(p, x, z), y), sel(p, x, y), {}},
        {"select(p, x, y)", "select(p, x, select(p, y, z)) -> select(p, x, z)", sel(p, x, sel(p, y, z)), sel(p, x, z), {}},
        // cast(T, x)
        {"cast(T, x)", "cast(T, x) -> x if type(x) == T", cast(Int(32), a), a, {}},
        {"cast(T, x)",
         "cast(T, cast(U, x)) -> cast(T, x) if integer(type(x)) && integer(U) && integer(T) && bits(T) <= bits(U)", cast(UInt(8), cast(Int(16), a)), cast(UInt(8), a), {}},
        {"cast(T, x)", "cast(T, cast(U, x)) -> cast(T, x) if exact(type(x)) && contains(U, type(x))", cast(Int(64), cast(Int(32), s8)), cast(Int(64), s8), {}},
        {"cast(T, x)",
         "cast(T, cast(U, x)) -> cast(T, x) if exact(type(x)) && holds(U, type(x)) && (is_float(T) || is_bool(T) || "
         "contains(T, type(x)))", cast(Float(64), cast(Float(32), w)), cast(Float(64), w), {}},
    };
}

TEST(SimplifyTable, EveryEntrySimplifiesItsExample) {
    const std::vector<Example> all = examples();
    std::vector<bool> used(all.size(), false);
    for (const Table *table : analysis::simplifier_rule_tables()) {
        for (const Entry &entry : table->entries) {
            bool has_example = false;
            for (size_t i = 0; i < all.size(); i++) {
                const Example &ex = all[i];
                if (ex.table != table->title || ex.entry != entry.text) continue;
                has_example = used[i] = true;
                std::vector<const Entry *> applied;
                const Expr out = analysis::simplify_tracing_rules(ex.input, ex.bounds, applied);
                const bool fired = std::find(applied.begin(), applied.end(), &entry) != applied.end();
                EXPECT_TRUE(fired) << table->title << ": the entry " << entry.text << " does not apply to "
                                   << ex.input;
                EXPECT_TRUE(equal(out, ex.expected)) << table->title << ": " << entry.text << ": " << ex.input
                                                     << " simplifies to " << out << ", not " << ex.expected;
            }
            EXPECT_TRUE(has_example) << table->title << ": the entry " << entry.text << " has no example";
        }
    }
    for (size_t i = 0; i < all.size(); i++)
        EXPECT_TRUE(used[i]) << "the example " << all[i].input << " names no entry: " << all[i].table << ": "
                             << all[i].entry;
}

}  // namespace
