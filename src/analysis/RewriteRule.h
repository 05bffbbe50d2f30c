#pragma once
// Rewrite rules as data: a small language for the simplifier's algebraic rules
// (src/analysis/Simplify.cpp), and the matcher that applies them.
//
// A rule table holds the entries of one operator. An entry is
//
//     pattern -> replacement   if condition
//
// written with C++ operators on terms (`rule((x + c0) + c1, x + (c0 + c1))`), plus, where
// the rule is not obvious, a one-line reason why it holds under docs/semantics.md. The same
// terms are what the matcher runs and what `render` prints, so the list of rules in
// Simplify.cpp's opening comment, which is rendered from the tables, cannot say anything
// the simplifier does not do (tests/unit/simplify_table_test.cpp compares the two).
//
// The notation (what x, c0, MAX, lo(x), no_wrap(e), ... mean, how a table is applied) is
// described once, in `kNotation` (RewriteRule.cpp), which `render_notation` prints at the
// head of the rendered list. The matcher is an interpreter of the terms: each table is
// indexed by operator, and each entry is checked against the kinds of the operands before
// its pattern is matched, so that trying the entries of a node costs little more than the
// hand-written tests it replaces.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/ConstMath.h"
#include "ir/IR.h"

namespace tessera::analysis::rewrite {

using detail::i128;

enum class TermKind : uint8_t {
    Wild,      // x, y, z, p: any expression
    Const,     // c0, c1, c2: an integer or bool constant
    Literal,   // a given integer
    True,      // a true constant (bool)
    False,     // a false constant (bool)
    TypeMax,   // MAX of the operands' type
    TypeMin,   // MIN of the operands' type
    Op,        // an IR operator applied to the children (Cast: child 0 is a type term)
    RootOp,    // `cmp`: the comparison operator the entry matched
    Lo,        // lo(x): the constant lower bound of a wildcard's expression
    Hi,        // hi(x)
    Abs,       // abs(k)
    Fits,      // fits(k)
    Pow2,      // pow2(k)
    NoWrap,    // no_wrap(e)
    InNest,    // in_nest(x, y)
    TypeOf,    // type(x)
    Result,    // T: the type of the matched operation
    TypeSlot,  // U: bound by the pattern cast(U, x)
    TypeTest,  // integer(t), exact(t), is_uint(t), is_float(t), is_bool(t)
    Bits,      // bits(t)
    Contains,  // contains(t, s)
    Holds,     // holds(t, s)
    SameType,  // t == s (for type terms)
};

enum class TypeTest : uint8_t { Integer, Exact, UInt, Float, Bool };

struct Node;
using NodePtr = std::shared_ptr<const Node>;

/** One term of a pattern, replacement or condition (immutable once built). */
struct Node {
    TermKind kind = TermKind::Literal;
    ir::ExprKind op = ir::ExprKind::Add;  // Op
    TypeTest test = TypeTest::Integer;    // TypeTest
    uint8_t slot = 0;                     // Wild, Const
    bool constant = false;                // a computed value (constants, bounds, tests), not an
                                          // expression to match or to build
    int64_t value = 0;                    // Literal
    std::string name;                     // Wild, Const: the printed name
    std::vector<NodePtr> kids;
};

/** A term as the tables write it: operators on Terms build larger terms. */
struct Term {
    NodePtr node;
    Term() = default;
    Term(NodePtr n) : node(std::move(n)) {}
    Term(int v);  // a literal
    explicit operator bool() const { return node != nullptr; }
};

/** The bit of an operator in Entry::ops. */
constexpr uint32_t op_bit(ir::ExprKind k) { return uint32_t(1) << unsigned(k); }

/** Type classes, for the types an entry applies to (of the operation's first operand). */
enum TypeClass : uint8_t { kInt = 1, kUInt = 2, kBool = 4, kFloat = 8 };
constexpr uint8_t kIntegers = kInt | kUInt;
constexpr uint8_t kOrdered = kInt | kUInt | kBool;
constexpr uint8_t kAllTypes = kInt | kUInt | kBool | kFloat;
uint8_t type_class(Type t);

struct Entry {
    // What a node must be for the entry to apply, checked before matching: its operator
    // (a bit of op_bit), the kinds of node each operand can be (bits of op_bit), its type.
    uint32_t ops = 0;
    uint32_t operand_kinds[3] = {~0u, ~0u, ~0u};
    int8_t operand_wild[3] = {-1, -1, -1};  // the slot of an operand that is a wildcard
    uint8_t types = kAllTypes;
    bool builds = false;     // the replacement builds nodes to simplify
    bool as_written = false; // the replacement is built without simplifying it

    Term pattern, replacement, condition;  // condition may be empty (always)
    const char *why = nullptr;             // the reason it holds, where not obvious
    std::string text;                      // "pattern -> replacement   if condition"

    /** Chained setters, for the tables. */
    Entry &because(const char *reason) { why = reason; return *this; }
    Entry &only(uint8_t type_classes) { types = type_classes; return *this; }
    Entry &written_as_is() { as_written = true; finish(); return *this; }
    Entry &on(std::initializer_list<ir::ExprKind> kinds);

    /** Checks the entry (every name of the replacement and condition bound by the pattern,
     * a supported no_wrap shape) and computes `ops`, `operand_kinds`, `builds` and
     * `text`. */
    void finish();
};

/** The entries of one operator (or, for comparisons, of a family of operators). */
struct Table {
    std::string title;  // "x + y"
    std::string note;   // what applies to the whole table (types, the reason)
    uint8_t types = kAllTypes;  // the default of its entries
    std::vector<Entry> entries;

    /** What `apply` checks of an entry before matching it, kept together for speed. */
    struct Candidate {
        uint32_t operand_kinds[3];
        int8_t operand_wild[3];
        uint8_t types;
        bool builds;
        uint16_t index;  // in `entries`
    };
    /** The entries that can apply to each operator, in order; set by `seal`. */
    std::vector<Candidate> by_op[32];

    Table(std::string t, std::string n, uint8_t ty) : title(std::move(t)), note(std::move(n)), types(ty) {}
    /** Adds an entry (its root operator taken from the pattern). */
    Entry &rule(const Term &pattern, const Term &replacement, const Term &condition = Term());
    /** Indexes the entries by operator, once they are all written. */
    void seal();
};

/** What applying an entry needs from the simplifier: the builders of each operator (which
 * simplify the node they build) and facts about values. */
class Host {
public:
    virtual ~Host() = default;
    virtual Expr make_binary(ir::ExprKind op, const Expr &a, const Expr &b) = 0;
    virtual Expr make_not(const Expr &a) = 0;
    virtual Expr make_select(const Expr &c, const Expr &a, const Expr &b) = 0;
    virtual Expr make_cast(Type t, const Expr &v) = 0;
    /** Constant bounds of e, if known. */
    virtual bool bounds(const Expr &e, i128 &lo, i128 &hi) = 0;
    /** x + c does not wrap. */
    virtual bool no_wrap_offset(const Expr &x, i128 c) = 0;
    /** x * k does not wrap. */
    virtual bool no_wrap_mul(const Expr &x, i128 k) = 0;
    /** x * k + y: neither the product nor the sum wraps. */
    virtual bool no_wrap_mul_add(const Expr &x, i128 k, const Expr &y) = 0;
};

/** The result of the first entry of `table` that applies to the operator `op` with the
 * given operands (`result`: the type of the operation; for a cast, its target type), or
 * an undefined Expr. `shallow`: only entries that build nothing to simplify. Each entry
 * that applies is appended to `trace` when it is given. */
Expr apply(const Table &table, ir::ExprKind op, Type result, const Expr *const *operands, int count, Host &host,
           bool shallow, std::vector<const Entry *> *trace = nullptr);

/** The table as comment lines (without the comment marker): a heading, then one entry a
 * line with its condition, and its reason below it. */
std::vector<std::string> render(const Table &table);

/** The legend of the notation, as lines. */
std::vector<std::string> render_notation();

namespace dsl {

// The names the tables are written with: wildcards of expressions (slots 0-3) and of
// constants (slots 0-2), MAX and MIN of the operands' type, T (the result's type) and U
// (an inner cast's type).
Term wild(int slot, const char *name);
Term constant(int slot, const char *name);
Term largest();
Term smallest();
Term result_type();
Term inner_type();
Term tru();
Term fls();

Term operator+(const Term &a, const Term &b);
Term operator-(const Term &a, const Term &b);
Term operator*(const Term &a, const Term &b);
Term operator/(const Term &a, const Term &b);
Term operator%(const Term &a, const Term &b);
/** On type terms (type(x), T, U), == compares the types. */
Term operator==(const Term &a, const Term &b);
Term operator!=(const Term &a, const Term &b);
Term operator<(const Term &a, const Term &b);
Term operator<=(const Term &a, const Term &b);
Term operator>(const Term &a, const Term &b);
Term operator>=(const Term &a, const Term &b);
Term operator&&(const Term &a, const Term &b);
Term operator||(const Term &a, const Term &b);
Term operator!(const Term &a);
Term min(const Term &a, const Term &b);
Term max(const Term &a, const Term &b);
Term select(const Term &c, const Term &a, const Term &b);
Term cast(const Term &type, const Term &v);
/** `cmp(a, b)`: the comparison the entry matched, applied to a and b. */
Term cmp(const Term &a, const Term &b);

Term lo(const Term &w);
Term hi(const Term &w);
Term abs(const Term &k);
Term fits(const Term &k);
Term pow2(const Term &k);
Term no_wrap(const Term &e);
Term in_nest(const Term &nest, const Term &e);

Term type(const Term &w);
Term integer(const Term &t);
Term exact(const Term &t);
Term is_uint(const Term &t);
Term is_float(const Term &t);
Term is_bool(const Term &t);
Term bits(const Term &t);
Term contains(const Term &t, const Term &s);
Term holds(const Term &t, const Term &s);

}  // namespace dsl

}  // namespace tessera::analysis::rewrite
