#include "analysis/RewriteRule.h"

#include <algorithm>

#include "ir/Check.h"
#include "ir/IREquality.h"
#include "ir/Scalar.h"

namespace tessera::analysis::rewrite {

using namespace ir;
using detail::const_int;

uint8_t type_class(Type t) {
    t = t.element_of();
    if (t.is_int()) return kInt;
    if (t.is_uint()) return kUInt;
    if (t.is_bool()) return kBool;
    return kFloat;
}

namespace {

// =======================================================================================
// Building terms

constexpr int kWildSlots = 4;
constexpr int kConstSlots = 3;

/** Terms whose value does not depend on which expression a wildcard matched (only on
 * facts about it): they are computed, never matched or built as IR. */
bool constant_valued(TermKind k) {
    switch (k) {
    case TermKind::Wild:
    case TermKind::Op:
    case TermKind::RootOp: return false;
    default: return true;
    }
}

std::shared_ptr<Node> new_node(TermKind kind, std::vector<NodePtr> kids, ExprKind op = ExprKind::Add) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->op = op;
    n->kids = std::move(kids);
    n->constant = constant_valued(kind);
    if (!n->constant) {
        n->constant = kind != TermKind::Wild;
        for (const NodePtr &k : n->kids) n->constant = n->constant && k->constant;
    }
    return n;
}

Term node(TermKind kind, std::vector<NodePtr> kids, ExprKind op = ExprKind::Add) {
    return Term(new_node(kind, std::move(kids), op));
}

Term op_term(ExprKind op, std::vector<NodePtr> kids) { return node(TermKind::Op, std::move(kids), op); }

Term leaf(TermKind kind, int slot, std::string name) {
    auto n = new_node(kind, {});
    n->slot = uint8_t(slot);
    n->name = std::move(name);
    return Term(std::move(n));
}

bool is_type_term(const Term &t) {
    TermKind k = t.node->kind;
    return k == TermKind::TypeOf || k == TermKind::Result || k == TermKind::TypeSlot;
}

Term type_test(TypeTest test, const Term &t) {
    auto n = new_node(TermKind::TypeTest, {t.node});
    n->test = test;
    return Term(std::move(n));
}

// =======================================================================================
// Matching

/** The constant bounds of the expressions one node's entries asked about (the same
 * operands, tried by several entries). */
struct BoundsCache {
    struct Item {
        const ExprNode *node;
        bool known;
        i128 lo, hi;
    };
    Item items[6];
    int count = 0;
};

struct Match {
    // Valid where `bound` says so (left uninitialized: a Match is made for every node).
    const Expr *wild[kWildSlots];
    const Expr *cexpr[kConstSlots];  // null for an offset matched as e - k
    i128 cval[kConstSlots];
    Type tslot;
    unsigned bound = 0;  // bits 0-3: wildcards, 4-6: constants, 7: U
    Type type;           // the operands' type (of a select: its values')
    Type result;         // the operation's type
    ExprKind op = ExprKind::Add;
    Host *host = nullptr;
    BoundsCache *cache = nullptr;

    bool bounds(const Expr &e, i128 &lo, i128 &hi) {
        for (int i = 0; i < cache->count; i++) {
            const BoundsCache::Item &it = cache->items[i];
            if (it.node == e.get()) {
                lo = it.lo, hi = it.hi;
                return it.known;
            }
        }
        bool known = host->bounds(e, lo, hi);
        if (cache->count < int(sizeof(cache->items) / sizeof(cache->items[0])))
            cache->items[cache->count++] = {e.get(), known, lo, hi};
        return known;
    }
};

constexpr unsigned kTypeSlotBit = 1u << 7;

bool bind_const(int slot, i128 v, const Expr *e, Match &m) {
    const unsigned bit = 1u << (4 + slot);
    if (m.bound & bit) return m.cval[slot] == v;
    m.bound |= bit;
    m.cval[slot] = v;
    m.cexpr[slot] = e;
    return true;
}

/** Structural equality (ir::equal), answering the common unequal cases without the general
 * comparison, which allocates: nodes of other kinds or types, and leaves that differ. */
bool same_tree(const Expr &a, const Expr &b) {
    if (a.same_as(b)) return true;
    const ExprNode *x = a.get(), *y = b.get();
    if (x->kind != y->kind || !(x->type == y->type)) return false;
    switch (x->kind) {
    case ExprKind::Variable:
        if (static_cast<const Variable *>(x)->name != static_cast<const Variable *>(y)->name) return false;
        break;
    case ExprKind::IntImm:
        return static_cast<const IntImm *>(x)->value == static_cast<const IntImm *>(y)->value;
    case ExprKind::UIntImm:
        return static_cast<const UIntImm *>(x)->value == static_cast<const UIntImm *>(y)->value;
    default: break;
    }
    return equal(a, b);
}

bool match(const Node &n, const Expr &e, Match &m);

/** `x + c` also matches `x - k` (c = -k); x is not a constant. */
bool match_offset(const Node &n, const Expr &e, Match &m) {
    i128 c;
    if (const auto *a = as<Add>(e)) {
        if (!const_int(a->b, c) || detail::is_const_int(a->a)) return false;
        return match(*n.kids[0], a->a, m) && bind_const(n.kids[1]->slot, c, &a->b, m);
    }
    if (const auto *s = as<Sub>(e)) {
        if (!const_int(s->b, c) || detail::is_const_int(s->a)) return false;
        return match(*n.kids[0], s->a, m) && bind_const(n.kids[1]->slot, -c, nullptr, m);
    }
    return false;
}

bool match_type(const Node &n, Type t, Match &m) {
    if (n.kind == TermKind::Result) return t == m.result;
    TESSERA_INTERNAL_ASSERT(n.kind == TermKind::TypeSlot, "a cast pattern's type must be T or U");
    if (m.bound & kTypeSlotBit) return t == m.tslot;
    m.bound |= kTypeSlotBit;
    m.tslot = t;
    return true;
}

bool match(const Node &n, const Expr &e, Match &m) {
    i128 v;
    switch (n.kind) {
    case TermKind::Wild: {
        const unsigned bit = 1u << n.slot;
        if (m.bound & bit) return same_tree(*m.wild[n.slot], e);
        m.bound |= bit;
        m.wild[n.slot] = &e;
        return true;
    }
    case TermKind::Const: return const_int(e, v) && bind_const(n.slot, v, &e, m);
    case TermKind::Literal: return const_int(e, v) && v == n.value;
    case TermKind::True: return detail::is_const_true(e);
    case TermKind::False: return detail::is_const_false(e);
    case TermKind::TypeMax: return const_int(e, v) && v == detail::type_max(m.type);
    case TermKind::TypeMin: return const_int(e, v) && v == detail::type_min(m.type);
    case TermKind::Op: break;
    default: TESSERA_INTERNAL_ERROR("a pattern cannot contain the term " << int(n.kind));
    }
    if (n.op == ExprKind::Add && n.kids[1]->kind == TermKind::Const) return match_offset(n, e, m);
    if (e->kind != n.op) return false;
    switch (n.op) {
    case ExprKind::Not: return match(*n.kids[0], static_cast<const Not *>(e.get())->a, m);
    case ExprKind::Select: {
        const auto *s = static_cast<const Select *>(e.get());
        return match(*n.kids[0], s->condition, m) && match(*n.kids[1], s->true_value, m) &&
               match(*n.kids[2], s->false_value, m);
    }
    case ExprKind::Cast: {
        const auto *c = static_cast<const Cast *>(e.get());
        return match_type(*n.kids[0], c->type, m) && match(*n.kids[1], c->value, m);
    }
    default: {
        const Expr *a, *b;
        return detail::binary_operands(e, a, b) && match(*n.kids[0], *a, m) && match(*n.kids[1], *b, m);
    }
    }
}

// =======================================================================================
// Constant terms and conditions

/** A computed constant: + - * wrap modulo 2^128 (`exact` then false), so that a
 * replacement's constant is right modulo 2^n; everything else needs exact operands. */
struct Value {
    i128 v = 0;
    bool exact = true;
};

/** The type a type term stands for, with its lanes (the tests of types look at the element
 * type). */
Type type_of(const Node &n, const Match &m) {
    switch (n.kind) {
    case TermKind::TypeOf: return m.wild[n.kids[0]->slot]->type();
    case TermKind::Result: return m.result;
    case TermKind::TypeSlot: return m.tslot;
    default: TESSERA_INTERNAL_ERROR("not a type term: " << int(n.kind));
    }
}

bool contains_range(Type big, Type small) {
    big = big.element_of(), small = small.element_of();
    if (!big.is_integer() || !(small.is_integer() || small.is_bool())) return false;
    return detail::fits(big, detail::type_min(small)) && detail::fits(big, detail::type_max(small));
}

/** Does the float type f represent every value of s exactly (enough mantissa bits)? */
bool holds_exactly(Type f, Type s) {
    f = f.element_of(), s = s.element_of();
    if (!f.is_float()) return false;
    if (s.is_bool()) return true;
    if (!s.is_integer()) return false;
    return f.bits == 32 ? s.bits <= 16 : s.bits <= 32;
}

bool test_type(TypeTest test, Type t) {
    t = t.element_of();
    switch (test) {
    case TypeTest::Integer: return t.is_integer();
    case TypeTest::Exact: return t.is_integer() || t.is_bool();
    case TypeTest::UInt: return t.is_uint();
    case TypeTest::Float: return t.is_float();
    default: return t.is_bool();
    }
}

/** y is an operand of the nest of m.op (min or max) that x is (at most 32 nodes looked at).
 * Not inlined: its stack would make every call of `eval` expensive. */
[[gnu::noinline]] bool in_nest(const Expr &x, const Expr &y, const Match &m) {
    if (x->kind != m.op) return false;
    const Expr *todo[72];
    int n = 0, budget = 32;
    todo[n++] = &x;
    while (n > 0 && budget-- > 0) {
        const Expr *c = todo[--n];
        const Expr *a, *b;
        if ((*c)->kind == m.op && detail::binary_operands(*c, a, b)) {
            todo[n++] = a;
            todo[n++] = b;
        } else if (same_tree(*c, y)) {
            return true;
        }
    }
    return false;
}

bool no_wrap(const Node &e, Match &m) {
    const Node &l = *e.kids[0], &r = *e.kids[1];
    if (e.op == ExprKind::Add && r.kind == TermKind::Const && l.kind == TermKind::Wild)
        return m.host->no_wrap_offset(*m.wild[l.slot], m.cval[r.slot]);
    if (e.op == ExprKind::Mul) return m.host->no_wrap_mul(*m.wild[l.slot], m.cval[r.slot]);
    const Node &k = *l.kids[1];
    return m.host->no_wrap_mul_add(*m.wild[l.kids[0]->slot], m.cval[k.slot], *m.wild[r.slot]);
}

bool eval(const Node &n, Match &m, Value &out);

bool eval_exact(const Node &n, Match &m, i128 &v) {
    Value r;
    if (!eval(n, m, r) || !r.exact) return false;
    v = r.v;
    return true;
}

bool eval_arith(ExprKind op, Value a, Value b, Value &out) {
    using u128 = unsigned __int128;
    out.exact = a.exact && b.exact;
    i128 r;
    switch (op) {
    case ExprKind::Add:
        out.exact = !__builtin_add_overflow(a.v, b.v, &r) && out.exact;
        out.v = i128(u128(a.v) + u128(b.v));
        return true;
    case ExprKind::Sub:
        out.exact = !__builtin_sub_overflow(a.v, b.v, &r) && out.exact;
        out.v = i128(u128(a.v) - u128(b.v));
        return true;
    case ExprKind::Mul:
        out.exact = !__builtin_mul_overflow(a.v, b.v, &r) && out.exact;
        out.v = i128(u128(a.v) * u128(b.v));
        return true;
    default: break;
    }
    if (!out.exact) return false;
    switch (op) {
    case ExprKind::Div: out.v = detail::div_euclid(a.v, b.v); return true;
    case ExprKind::Mod: out.v = detail::mod_euclid(a.v, b.v); return true;
    case ExprKind::Min: out.v = std::min(a.v, b.v); return true;
    case ExprKind::Max: out.v = std::max(a.v, b.v); return true;
    default: out.v = ir::compare(op, a.v, b.v); return true;
    }
}

bool eval(const Node &n, Match &m, Value &out) {
    out = Value();
    i128 a = 0, b = 0;
    switch (n.kind) {
    case TermKind::Const: out.v = m.cval[n.slot]; return true;
    case TermKind::Literal: out.v = n.value; return true;
    case TermKind::True: out.v = 1; return true;
    case TermKind::False: out.v = 0; return true;
    case TermKind::TypeMax:
    case TermKind::TypeMin:
        if (m.type.element_of().is_float()) return false;
        out.v = n.kind == TermKind::TypeMax ? detail::type_max(m.type) : detail::type_min(m.type);
        return true;
    case TermKind::Lo:
    case TermKind::Hi:
        if (!m.bounds(*m.wild[n.kids[0]->slot], a, b)) return false;
        out.v = n.kind == TermKind::Lo ? a : b;
        return true;
    case TermKind::Abs:
        if (!eval_exact(*n.kids[0], m, a)) return false;
        out.v = detail::abs128(a);
        return true;
    case TermKind::Fits:
        out.v = eval_exact(*n.kids[0], m, a) && detail::fits(m.type, a);
        return true;
    case TermKind::Pow2:
        out.v = eval_exact(*n.kids[0], m, a) && detail::is_pow2(a);
        return true;
    case TermKind::NoWrap: out.v = no_wrap(*n.kids[0], m); return true;
    case TermKind::InNest: out.v = in_nest(*m.wild[n.kids[0]->slot], *m.wild[n.kids[1]->slot], m); return true;
    case TermKind::TypeTest: out.v = test_type(n.test, type_of(*n.kids[0], m)); return true;
    case TermKind::Bits: out.v = type_of(*n.kids[0], m).bits; return true;
    case TermKind::Contains: out.v = contains_range(type_of(*n.kids[0], m), type_of(*n.kids[1], m)); return true;
    case TermKind::Holds: out.v = holds_exactly(type_of(*n.kids[0], m), type_of(*n.kids[1], m)); return true;
    case TermKind::SameType: out.v = type_of(*n.kids[0], m) == type_of(*n.kids[1], m); return true;
    case TermKind::Op:
    case TermKind::RootOp: break;
    default: return false;
    }
    const ExprKind op = n.kind == TermKind::RootOp ? m.op : n.op;
    // The logical operators short-circuit: a condition's costly tests (no_wrap, bounds)
    // come after its cheap ones.
    if (op == ExprKind::Not) {
        if (!eval_exact(*n.kids[0], m, a)) return false;
        out.v = a == 0;
        return true;
    }
    if (op == ExprKind::And || op == ExprKind::Or) {
        // An operand that cannot be computed (unknown bounds) counts as false.
        const bool is_and = op == ExprKind::And;
        const bool left = eval_exact(*n.kids[0], m, a) && a != 0;
        out.v = left;
        if (left != is_and) return true;
        out.v = eval_exact(*n.kids[1], m, b) && b != 0;
        return true;
    }
    Value x, y;
    return eval(*n.kids[0], m, x) && eval(*n.kids[1], m, y) && eval_arith(op, x, y, out);
}

bool holds(const Node *condition, Match &m) {
    if (!condition) return true;
    i128 v;
    return eval_exact(*condition, m, v) && v != 0;
}

// =======================================================================================
// Replacements

bool bool_valued(const Node &n) {
    switch (n.kind) {
    case TermKind::True:
    case TermKind::False:
    case TermKind::RootOp: return true;
    case TermKind::Op: return is_comparison(n.op) || n.op == ExprKind::And || n.op == ExprKind::Or || n.op == ExprKind::Not;
    default: return false;
    }
}

Expr build(const Node &n, Match &m, bool raw) {
    if (n.kind == TermKind::Wild) return *m.wild[n.slot];
    if (n.constant) {
        if (n.kind == TermKind::Const && m.cexpr[n.slot]) return *m.cexpr[n.slot];
        Value v;
        if (!eval(n, m, v)) return Expr();
        if (bool_valued(n)) return detail::make_bool_const(v.v != 0, m.result.lanes);
        return detail::make_const(m.type, v.v);
    }
    const ExprKind op = n.kind == TermKind::RootOp ? m.op : n.op;
    if (op == ExprKind::Cast) {
        Expr v = build(*n.kids[1], m, raw);
        if (!v.defined()) return v;
        Type t = type_of(*n.kids[0], m).with_lanes(v.type().lanes);
        return raw ? Cast::make(t, v) : m.host->make_cast(t, v);
    }
    Expr k[3];
    for (size_t i = 0; i < n.kids.size(); i++) {
        k[i] = build(*n.kids[i], m, raw);
        if (!k[i].defined()) return Expr();
    }
    if (op == ExprKind::Not) return raw ? Not::make(k[0]) : m.host->make_not(k[0]);
    if (op == ExprKind::Select) return raw ? Select::make(k[0], k[1], k[2]) : m.host->make_select(k[0], k[1], k[2]);
    return raw ? detail::make_binary(op, k[0], k[1]) : m.host->make_binary(op, k[0], k[1]);
}

// =======================================================================================
// Printing

int precedence(const Node &n) {
    if (n.kind == TermKind::RootOp || n.kind == TermKind::SameType) return 3;
    if (n.kind != TermKind::Op) return 7;
    switch (n.op) {
    case ExprKind::Or: return 1;
    case ExprKind::And: return 2;
    case ExprKind::Add:
    case ExprKind::Sub: return 4;
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod: return 5;
    case ExprKind::Not: return 6;
    default: return is_comparison(n.op) ? 3 : 7;
    }
}

const char *op_symbol(ExprKind k) {
    switch (k) {
    case ExprKind::Add: return "+";
    case ExprKind::Sub: return "-";
    case ExprKind::Mul: return "*";
    case ExprKind::Div: return "/";
    case ExprKind::Mod: return "%";
    case ExprKind::EQ: return "==";
    case ExprKind::NE: return "!=";
    case ExprKind::LT: return "<";
    case ExprKind::LE: return "<=";
    case ExprKind::GT: return ">";
    case ExprKind::GE: return ">=";
    case ExprKind::And: return "&&";
    case ExprKind::Or: return "||";
    case ExprKind::Min: return "min";
    case ExprKind::Max: return "max";
    case ExprKind::Select: return "select";
    case ExprKind::Cast: return "cast";
    default: return "!";
    }
}

std::string print(const Node &n, int outer);

std::string call(const char *f, const Node &n) {
    std::string s = std::string(f) + "(";
    for (size_t i = 0; i < n.kids.size(); i++) s += (i ? ", " : "") + print(*n.kids[i], 0);
    return s + ")";
}

const char *type_test_name(TypeTest t) {
    switch (t) {
    case TypeTest::Integer: return "integer";
    case TypeTest::Exact: return "exact";
    case TypeTest::UInt: return "is_uint";
    case TypeTest::Float: return "is_float";
    default: return "is_bool";
    }
}

/** n printed inside an operator of precedence `outer`: parenthesized when it binds less
 * tightly, or as tightly (so that regrouping rules show their grouping), except in chains
 * of && or ||. */
std::string print(const Node &n, int outer) {
    switch (n.kind) {
    case TermKind::Wild:
    case TermKind::Const: return n.name;
    case TermKind::Literal: return std::to_string(n.value);
    case TermKind::True: return "true";
    case TermKind::False: return "false";
    case TermKind::TypeMax: return "MAX";
    case TermKind::TypeMin: return "MIN";
    case TermKind::Lo: return call("lo", n);
    case TermKind::Hi: return call("hi", n);
    case TermKind::Abs: return call("abs", n);
    case TermKind::Fits: return call("fits", n);
    case TermKind::Pow2: return call("pow2", n);
    case TermKind::NoWrap: return call("no_wrap", n);
    case TermKind::InNest: return call("in_nest", n);
    case TermKind::TypeOf: return call("type", n);
    case TermKind::Result: return "T";
    case TermKind::TypeSlot: return "U";
    case TermKind::TypeTest: return call(type_test_name(n.test), n);
    case TermKind::Bits: return call("bits", n);
    case TermKind::Contains: return call("contains", n);
    case TermKind::Holds: return call("holds", n);
    default: break;
    }
    const int p = precedence(n);
    if (p == 7) return call(op_symbol(n.op), n);
    std::string s;
    if (p == 6) {
        s = "!" + print(*n.kids[0], 6);
    } else {
        const char *sym = n.kind == TermKind::RootOp ? "cmp" : n.kind == TermKind::SameType ? "==" : op_symbol(n.op);
        const int inner = (p <= 2) ? p : p + 1;  // && and || chain without parentheses
        s = print(*n.kids[0], p <= 2 ? p : inner) + " " + sym + " " + print(*n.kids[1], inner);
    }
    return p < outer ? "(" + s + ")" : s;
}

std::string types_name(uint8_t types) {
    switch (types) {
    case kAllTypes: return "all types";
    case kIntegers: return "integer types";
    case kOrdered: return "integer and bool types";
    case kBool: return "bool";
    default: return "some types";
    }
}

bool is_operator_word(const std::string &w) {
    static const char *const ops[] = {"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "->"};
    for (const char *op : ops)
        if (w == op) return true;
    return false;
}

/** Words of `text` on lines of at most `width` characters (longer where an operator and its
 * operands, which are kept on one line, need it), each starting with `indent`. */
void wrap(const std::string &text, const std::string &indent, size_t width, std::vector<std::string> &out) {
    std::vector<std::string> chunks;
    bool glue = false;
    for (size_t i = 0; i < text.size();) {
        size_t j = text.find(' ', i);
        if (j == std::string::npos) j = text.size();
        const std::string word = text.substr(i, j - i);
        const bool op = is_operator_word(word) && !chunks.empty();
        if (op || glue) chunks.back() += " " + word;
        else chunks.push_back(word);
        glue = op;
        i = j + 1;
    }
    std::string line = indent;
    for (const std::string &chunk : chunks) {
        if (line.size() > indent.size() && line.size() + 1 + chunk.size() > width) {
            out.push_back(line);
            line = indent;
        }
        line += (line.size() > indent.size() ? " " : "") + chunk;
    }
    if (line.size() > indent.size()) out.push_back(line);
}

constexpr size_t kWidth = 96;

// =======================================================================================
// Checking entries

void collect_bound(const Node &n, unsigned &bound) {
    if (n.kind == TermKind::Wild) bound |= 1u << n.slot;
    if (n.kind == TermKind::Const) bound |= 1u << (4 + n.slot);
    if (n.kind == TermKind::TypeSlot) bound |= kTypeSlotBit;
    for (const NodePtr &k : n.kids) collect_bound(*k, bound);
}

bool valid_no_wrap(const Node &e) {
    if (e.kind != TermKind::Op || e.kids.size() != 2) return false;
    const Node &l = *e.kids[0], &r = *e.kids[1];
    if (e.op == ExprKind::Add && l.kind == TermKind::Wild && r.kind == TermKind::Const) return true;
    if (e.op == ExprKind::Mul) return l.kind == TermKind::Wild && r.kind == TermKind::Const;
    return e.op == ExprKind::Add && r.kind == TermKind::Wild && l.kind == TermKind::Op && l.op == ExprKind::Mul &&
           l.kids[0]->kind == TermKind::Wild && l.kids[1]->kind == TermKind::Const;
}

/** The kinds of node a pattern term can match (bits of op_bit). */
uint32_t matchable_kinds(const Node &n) {
    switch (n.kind) {
    case TermKind::Wild: return ~0u;
    case TermKind::Op:
        if (n.op == ExprKind::Add && n.kids[1]->kind == TermKind::Const) return op_bit(ExprKind::Add) | op_bit(ExprKind::Sub);
        return op_bit(n.op);
    default:  // a constant, or a Broadcast of one
        return op_bit(ExprKind::IntImm) | op_bit(ExprKind::UIntImm) | op_bit(ExprKind::Broadcast);
    }
}

void check_terms(const Node &n, unsigned bound, const std::string &entry) {
    unsigned used = 0;
    collect_bound(n, used);
    TESSERA_INTERNAL_ASSERT((used & ~bound) == 0, "rule " << entry << " uses a name its pattern does not bind");
    if (n.kind == TermKind::NoWrap)
        TESSERA_INTERNAL_ASSERT(valid_no_wrap(*n.kids[0]), "rule " << entry << ": no_wrap of x + c, x * c or x * c + y");
    for (const NodePtr &k : n.kids) check_terms(*k, bound, entry);
}

}  // namespace

// =======================================================================================
// Entries and tables

Term::Term(int v) {
    auto n = new_node(TermKind::Literal, {});
    n->value = v;
    node = std::move(n);
}

Entry &Entry::on(std::initializer_list<ExprKind> kinds) {
    ops = 0;
    for (ExprKind k : kinds) ops |= op_bit(k);
    finish();
    return *this;
}

void Entry::finish() {
    const Node &root = *pattern.node;
    TESSERA_INTERNAL_ASSERT(root.kind == TermKind::Op || root.kind == TermKind::RootOp,
                            "a pattern is an operator applied to terms");
    if (root.kind == TermKind::Op) ops = op_bit(root.op);
    const size_t first = root.op == ExprKind::Cast ? 1 : 0;  // a cast's child 0 is its type
    for (size_t i = first; i < root.kids.size(); i++) {
        operand_kinds[i - first] = matchable_kinds(*root.kids[i]);
        operand_wild[i - first] = root.kids[i]->kind == TermKind::Wild ? int8_t(root.kids[i]->slot) : int8_t(-1);
    }
    text = print(root, 0) + " -> " + print(*replacement.node, 0);
    if (condition) text += " if " + print(*condition.node, 0);
    unsigned bound = 0;
    collect_bound(root, bound);
    check_terms(*replacement.node, bound, text);
    if (condition) check_terms(*condition.node, bound, text);
    const Node &r = *replacement.node;
    builds = !as_written && r.kind != TermKind::Wild && !r.constant;
}

Entry &Table::rule(const Term &pattern, const Term &replacement, const Term &condition) {
    Entry e;
    e.pattern = pattern;
    e.replacement = replacement;
    e.condition = condition;
    e.types = types;
    e.finish();
    entries.push_back(std::move(e));
    return entries.back();
}

void Table::seal() {
    for (auto &list : by_op) list.clear();
    for (size_t i = 0; i < entries.size(); i++) {
        const Entry &e = entries[i];
        const Candidate c{{e.operand_kinds[0], e.operand_kinds[1], e.operand_kinds[2]},
                          {e.operand_wild[0], e.operand_wild[1], e.operand_wild[2]},
                          e.types,
                          e.builds,
                          uint16_t(i)};
        for (unsigned k = 0; k < 32; k++)
            if (e.ops & (1u << k)) by_op[k].push_back(c);
    }
}

Expr apply(const Table &table, ExprKind op, Type result, const Expr *const *operands, int count, Host &host,
           bool shallow, std::vector<const Entry *> *trace) {
    BoundsCache cache;
    Match m;
    m.host = &host;
    m.cache = &cache;
    m.op = op;
    m.result = result;
    m.type = (op == ExprKind::Select ? operands[1] : operands[0])->get()->type;
    const uint8_t cls = type_class(m.type);
    uint32_t kinds[3] = {~0u, ~0u, ~0u};
    for (int i = 0; i < count; i++) kinds[i] = op_bit(operands[i]->get()->kind);
    const int first = op == ExprKind::Cast ? 1 : 0;  // a cast pattern's child 0 is its type
    for (const Table::Candidate &c : table.by_op[unsigned(op)]) {
        if (!(c.operand_kinds[0] & kinds[0]) || !(c.operand_kinds[1] & kinds[1]) || !(c.operand_kinds[2] & kinds[2]) ||
            !(c.types & cls) || (shallow && c.builds))
            continue;
        const Entry &e = table.entries[c.index];
        m.bound = 0;
        const Node &root = *e.pattern.node;
        bool ok = true;
        for (int i = 0; ok && i < count; i++) {
            const int slot = c.operand_wild[i];
            if (slot >= 0 && !(m.bound & (1u << slot))) {
                m.bound |= 1u << slot;  // the common case, without a call
                m.wild[slot] = operands[i];
            } else {
                ok = match(*root.kids[i + first], *operands[i], m);
            }
        }
        if (!ok || !holds(e.condition.node.get(), m)) continue;
        Expr r = build(*e.replacement.node, m, e.as_written);
        if (!r.defined()) continue;
        if (trace) trace->push_back(&e);
        return r;
    }
    return Expr();
}

// =======================================================================================
// Rendering

namespace {

/** The notation of the rendered tables: the one description of the rule language, which
 * the list in src/analysis/Simplify.cpp opens with. */
const char *const kNotation[] = {
    "Notation. x, y, z, p: any expression; a name used twice matches structurally equal "
    "expressions. c0, c1: an integer or bool constant (in a vector, a Broadcast of one). 0, 1, -1, "
    "2, true, false: a constant of that value. MAX, MIN: the largest and the smallest value of the "
    "operands' type. In a pattern, e + c with a constant c also matches e - k, as e + (-k), and e "
    "is never a constant: x + c is spelled x - k for large unsigned c, and both spellings meet the "
    "same rules. cmp: the comparison the entry matched, one of those it lists.",
    "Computed terms. Terms made of constants, lo(x) and hi(x) (the constant bounds of x; the entry "
    "does not apply when they are unknown), abs, + - * / % min max and comparisons are computed "
    "when the entry applies, in exact integer arithmetic (/ and % Euclidean); a constant of a "
    "replacement is then reduced to the type, modulo 2^n.",
    "Conditions. fits(k): k is a value of the type. pow2(k): k is a power of two. no_wrap(e), for e "
    "of the form x + c, x * c or x * c + y: the constant bounds of x and y prove that the + and * "
    "of e do not wrap (in simplify_index, int32 and int64 offsets are taken not to wrap, the "
    "contract of index arithmetic in src/analysis/Simplify.h). in_nest(x, y): x is a min (in the "
    "table of max, a max) and y is an operand of its nest of mins, among its first 32 nodes. Types: "
    "type(x); T, the type of the result; U, the type of an inner cast; integer(t), exact(t) "
    "(integer or bool), is_uint(t), is_float(t), is_bool(t), bits(t); contains(t, s): t is an "
    "integer type whose range contains every value of s; holds(t, s): t is a float type that "
    "represents every value of s exactly.",
    "Applying a table. The first entry that applies gives the result. Each operator of its "
    "replacement is built by the simplifier, so the replacement is simplified in turn; an entry "
    "marked [as written] builds it as it stands. Past the simplifier's depth limit only the entries "
    "whose replacement builds nothing to simplify (an operand, a constant, or as written) apply. "
    "An entry marked with types applies to those instead of its table's.",
};

}  // namespace

std::vector<std::string> render_notation() {
    std::vector<std::string> out;
    for (const char *para : kNotation) {
        if (!out.empty()) out.push_back("");
        wrap(para, "", kWidth, out);
    }
    return out;
}

std::vector<std::string> render(const Table &table) {
    std::vector<std::string> out;
    wrap(table.title + ": " + table.note, "", kWidth, out);
    const std::string indent = "    ";
    for (const Entry &e : table.entries) {
        std::string head = print(*e.pattern.node, 0) + " -> " + print(*e.replacement.node, 0);
        std::vector<std::string> tail;
        if (e.condition) tail.push_back("if " + print(*e.condition.node, 0));
        if (e.pattern.node->kind == TermKind::RootOp) {
            std::string ops;
            for (ExprKind k : {ExprKind::EQ, ExprKind::NE, ExprKind::LT, ExprKind::LE, ExprKind::GT, ExprKind::GE})
                if (e.ops & op_bit(k)) ops += std::string(ops.empty() ? "" : " ") + op_symbol(k);
            tail.push_back("[cmp: " + ops + "]");
        }
        if (e.types != table.types) tail.push_back("[" + types_name(e.types) + "]");
        if (e.as_written) tail.push_back("[as written]");
        std::string line = "  " + head;
        for (const std::string &t : tail) {
            if (line.size() + 3 + t.size() > kWidth) {
                out.push_back(line);
                line = indent + "  " + t;
            } else {
                line += "   " + t;
            }
        }
        out.push_back(line);
        if (e.why) wrap(e.why, indent, kWidth, out);
    }
    return out;
}

// =======================================================================================
// The terms the tables are written with

namespace dsl {

Term wild(int slot, const char *name) {
    TESSERA_INTERNAL_ASSERT(slot >= 0 && slot < kWildSlots, "wildcard slot " << slot);
    return leaf(TermKind::Wild, slot, name);
}
Term constant(int slot, const char *name) {
    TESSERA_INTERNAL_ASSERT(slot >= 0 && slot < kConstSlots, "constant slot " << slot);
    return leaf(TermKind::Const, slot, name);
}
Term largest() { return node(TermKind::TypeMax, {}); }
Term smallest() { return node(TermKind::TypeMin, {}); }
Term result_type() { return node(TermKind::Result, {}); }
Term inner_type() { return node(TermKind::TypeSlot, {}); }
Term tru() { return node(TermKind::True, {}); }
Term fls() { return node(TermKind::False, {}); }

Term operator+(const Term &a, const Term &b) { return op_term(ExprKind::Add, {a.node, b.node}); }
Term operator-(const Term &a, const Term &b) { return op_term(ExprKind::Sub, {a.node, b.node}); }
Term operator*(const Term &a, const Term &b) { return op_term(ExprKind::Mul, {a.node, b.node}); }
Term operator/(const Term &a, const Term &b) { return op_term(ExprKind::Div, {a.node, b.node}); }
Term operator%(const Term &a, const Term &b) { return op_term(ExprKind::Mod, {a.node, b.node}); }
Term operator==(const Term &a, const Term &b) {
    if (is_type_term(a) || is_type_term(b)) return node(TermKind::SameType, {a.node, b.node});
    return op_term(ExprKind::EQ, {a.node, b.node});
}
Term operator!=(const Term &a, const Term &b) { return op_term(ExprKind::NE, {a.node, b.node}); }
Term operator<(const Term &a, const Term &b) { return op_term(ExprKind::LT, {a.node, b.node}); }
Term operator<=(const Term &a, const Term &b) { return op_term(ExprKind::LE, {a.node, b.node}); }
Term operator>(const Term &a, const Term &b) { return op_term(ExprKind::GT, {a.node, b.node}); }
Term operator>=(const Term &a, const Term &b) { return op_term(ExprKind::GE, {a.node, b.node}); }
Term operator&&(const Term &a, const Term &b) { return op_term(ExprKind::And, {a.node, b.node}); }
Term operator||(const Term &a, const Term &b) { return op_term(ExprKind::Or, {a.node, b.node}); }
Term operator!(const Term &a) { return op_term(ExprKind::Not, {a.node}); }
Term min(const Term &a, const Term &b) { return op_term(ExprKind::Min, {a.node, b.node}); }
Term max(const Term &a, const Term &b) { return op_term(ExprKind::Max, {a.node, b.node}); }
Term select(const Term &c, const Term &a, const Term &b) { return op_term(ExprKind::Select, {c.node, a.node, b.node}); }
Term cast(const Term &type, const Term &v) { return op_term(ExprKind::Cast, {type.node, v.node}); }
Term cmp(const Term &a, const Term &b) { return node(TermKind::RootOp, {a.node, b.node}); }

Term lo(const Term &w) { return node(TermKind::Lo, {w.node}); }
Term hi(const Term &w) { return node(TermKind::Hi, {w.node}); }
Term abs(const Term &k) { return node(TermKind::Abs, {k.node}); }
Term fits(const Term &k) { return node(TermKind::Fits, {k.node}); }
Term pow2(const Term &k) { return node(TermKind::Pow2, {k.node}); }
Term no_wrap(const Term &e) { return node(TermKind::NoWrap, {e.node}); }
Term in_nest(const Term &nest, const Term &e) { return node(TermKind::InNest, {nest.node, e.node}); }

Term type(const Term &w) { return node(TermKind::TypeOf, {w.node}); }
Term integer(const Term &t) { return type_test(TypeTest::Integer, t); }
Term exact(const Term &t) { return type_test(TypeTest::Exact, t); }
Term is_uint(const Term &t) { return type_test(TypeTest::UInt, t); }
Term is_float(const Term &t) { return type_test(TypeTest::Float, t); }
Term is_bool(const Term &t) { return type_test(TypeTest::Bool, t); }
Term bits(const Term &t) { return node(TermKind::Bits, {t.node}); }
Term contains(const Term &t, const Term &s) { return node(TermKind::Contains, {t.node, s.node}); }
Term holds(const Term &t, const Term &s) { return node(TermKind::Holds, {t.node, s.node}); }

}  // namespace dsl

}  // namespace tessera::analysis::rewrite
