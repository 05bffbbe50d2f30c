// The simplifier. Every rule below preserves the exact value of an expression for every
// value of its variables under docs/semantics.md. Notation: n is the bit width of the
// type, and "≡" is congruence modulo 2^n. Integer +, - and * are the exact results
// reduced modulo 2^n, so ANY identity of commutative-ring arithmetic (associativity,
// commutativity, distributivity, cancellation, x - x = 0) holds in every integer type:
// both sides are ≡ as integer polynomials, and the reduction of congruent values gives
// the same representative. What does NOT survive wrap-around is everything about ORDER
// (x + 1 > x is false for x = MAX) and division (x * c / c != x when x * c wraps).
//
// Integer rules (int and uint of every width; bool only where noted):
//   * Constant folding of every operator through ir::binary / cast / intrinsic.
//   * Ring rules, valid by the remark above:
//       x + 0 -> x, x - 0 -> x, x * 1 -> x, x * 0 -> 0, x - x -> 0,
//       (x + c1) + c2 -> x + (c1 + c2), (x + c1) - (y + c2) -> (x - y) + (c1 - c2),
//       c1 - (x + c2) -> (c1 - c2) - x, (x + y) - x -> y, x + (y - x) -> y,
//       (x * c1) * c2 -> x * (c1 * c2), (x + c1) * c2 -> x * c2 + c1 * c2,
//       x * a + x * b -> x * (a + b), x - c -> x + (-c) (signed; -c is the wrapped
//       negation, so x - MIN -> x + MIN, which is ≡), constants moved to the right of
//       + and *. The constant results are computed exactly and reduced modulo 2^n.
//   * Division and modulo (Euclidean; x / 0 == 0 == x % 0):
//       x / 0 -> 0, x % 0 -> 0 (the definition), 0 / x -> 0, 0 % x -> 0, x / 1 -> x,
//       x % 1 -> 0, x % -1 -> 0, x % x -> 0 (x % x is 0 for x != 0 and 0 % 0 == 0),
//       x / -1 -> 0 - x (Euclidean x / -1 is -x, and MIN / -1 is defined as MIN, which is
//       also the wrapped negation of MIN).
//       (x / c1) / c2 -> x / (c1 * c2) for c1, c2 > 0 when c1 * c2 fits the type:
//       floor(floor(x / c1) / c2) = floor(x / (c1 c2)) for integers, and neither division
//       can overflow.
//       (x % c1) % c2 -> x % c2 when |c2| divides c1: x mod |c1| differs from x by a
//       multiple of |c1|, hence of |c2|; no arithmetic that could wrap is involved.
//       (x * c1) % c2 -> 0 and (x * c1 + y) % c2 -> y % c2 when m = |c2| divides c1 and
//       m is a power of two: the wrapped value is ≡ the exact one modulo 2^n, hence
//       modulo m (m divides 2^n), and the multiple of c1 vanishes modulo m.
//       The same without the power-of-two condition, and x * c1 / c2 -> x * (c1 / c2),
//       (x * c1 + y) / c2 -> x * (c1 / c2) + y / c2, (x + c1) / c2 -> x / c2 + c1 / c2 for
//       c2 > 0 dividing c1, only when constant bounds (below) prove that x * c1 and the
//       sum do not wrap: then the operand is the exact integer, the identity holds for
//       integers, and the result is in range.
//       When the constant bounds of x lie in one block [q*m, q*m + m - 1] (m = c > 0 for
//       /, m = |c| for %): x / c -> q and x % c -> x - q*m (so x % 8 -> x for x in
//       [0, 7]); the value x - q*m is in [0, m), so computing it with wrap-around is exact.
//   * min / max: min(x, x) -> x (all types, floats included: `x < x ? x : x` is x);
//       for integers and bools (a total order, so min and max are commutative, associative
//       and absorbing): min(x, MAX) -> x, min(x, MIN) -> MIN, min(min(x, c1), c2) ->
//       min(x, min(c1, c2)), min(max(x, c1), c2) -> c2 if c2 <= c1, min(x, max(x, y)) ->
//       x, min(min(min(p, q), r), q) -> min(min(p, q), r) (an operand already in the
//       other operand's chain of mins), and the duals for max.
//       min(x + c1, x + c2) -> x + min(c1, c2) is NOT valid in general (x + c1 may wrap);
//       it is applied only when the constant bounds of x prove that neither side wraps.
//   * Comparisons: x == x, x <= x, x >= x -> true and x != x, x < x, x > x -> false for
//       integers and bools only (a float NaN is not equal to itself).
//       x + c1 == y + c2 -> x == y + (c2 - c1), and the same for !=, because adding a
//       constant is a bijection modulo 2^n. (x - y) == 0 -> x == y for the same reason.
//       Orderings are NOT shifted that way (x + 1 > x is false for x = MAX) unless the
//       constant bounds prove that the shifted operands do not wrap.
//       A comparison is decided when the constant bounds of its operands are disjoint or
//       ordered; c < x is written x > c.
//   * Logic: !!x -> x, !(a == b) -> a != b (all types: IEEE != is exactly the negation
//       of ==), !(a < b) -> a >= b etc. for integers only (false for NaN operands),
//       x && true -> x, x && false -> false, x && x -> x, x && !x -> false, and duals.
//   * select(true, a, b) -> a, select(c, a, a) -> a, select(!c, a, b) ->
//       select(c, b, a), select(c, true, false) -> c, select(c, select(c, a, b), d) ->
//       select(c, a, d). All operands of a select are evaluated, but expressions have no
//       side effects, so dropping an unselected operand changes no value.
//   * Casts: cast(T, x) -> x for x of type T; cast(T, cast(U, x)) -> cast(T, x) when
//       (a) S, U, T are integer types and T is no wider than U: both are truncations
//       modulo 2^bits(T) of the same integer (2^bits(T) divides 2^bits(U)); or
//       (b) U represents every value of x's type S exactly (an integer type containing
//       S's range, or a float type with enough mantissa bits) and either U is an integer
//       type, or T is a float or bool type, or T contains S's range: then cast(U, x) has
//       x's exact value and converting that value to T is converting x.
//       (Float -> int saturates while int -> int wraps, so e.g. int32 -> float64 -> uint8
//       is not int32 -> uint8.)
//   * Vectors: operations on Broadcasts are done on the scalars; a Ramp plus, minus or
//       times a Broadcast is a Ramp, and a sum of Ramps is a Ramp (lane i of both sides
//       is ≡ as a polynomial in i); a Ramp of stride 0 is a Broadcast.
//
// Float rules: folding only, plus min(x, x), select rules and the casts above. No x + 0
// (wrong for -0.0), x * 0 (wrong for NaN, inf and -0.0), reassociation or reordering of
// min / max operands (float min and max are not commutative with NaN).
//
// Constant bounds. Some rules need "this arithmetic does not wrap". The simplifier tracks
// constant bounds of loop variables (from constant-bounded min and extent) and of let
// variables, and asks `const_bounds` (Interval.h), which is exact under wrap-around: it
// computes the mathematical result of every operation in 128 bits and answers with the
// type's full range whenever a result might not fit. Inside `if (c)`, simple facts from
// c (var < k, var >= k, ...) narrow the bounds of a variable in the then branch.
//
// Lets: a let of a constant or a variable is substituted into its body, unless the body
// rebinds that variable's name (substitution would capture it); a let whose variable is
// unused is dropped (values have no side effects). For statements, uses in provenance
// annotations count, so an annotation never refers to a dropped variable.
//
// Statements: a For of extent 0 is removed (its min and extent are pure expressions, so
// not evaluating them changes nothing), as is a For, LetStmt, Allocate or Realize whose
// body simplifies away; if (true) / if (false) keep the chosen branch; assert(true) and
// Evaluate(constant) are removed; an if whose then branch vanishes becomes if (!c) else.
// Store and Provide annotations are simplified with the same substitutions as the code.
//
// Cost: one bottom-up pass; each rewrite rebuilds a constant number of nodes; structural
// equality tests and constant-bounds queries are on subtrees (const_bounds has a node
// budget); rule recursion is depth-limited.

#include "analysis/Simplify.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/ConstMath.h"
#include "ir/Check.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Scalar.h"

namespace tessera::analysis {

using namespace ir;
using detail::const_int;
using detail::fits;
using detail::i128;
using detail::make_bool_const;
using detail::make_const;
using detail::type_max;
using detail::type_min;

namespace {

bool is_integer_type(Type t) { return t.element_of().is_integer(); }

/** A Ramp, or a Broadcast when the stride is zero (every lane is the base). */
Expr make_ramp(const Expr &base, const Expr &stride, int lanes) {
    i128 s;
    if (const_int(stride, s) && s == 0) return Broadcast::make(base, lanes);
    return Ramp::make(base, stride, lanes);
}

/** e = x + c (Add with a constant right operand) or x - c (then c is -c). */
bool split_offset(const Expr &e, Expr &x, i128 &c) {
    if (const auto *a = as<Add>(e)) {
        if (const_int(a->b, c) && !detail::is_const_int(a->a)) {
            x = a->a;
            return true;
        }
    } else if (const auto *s = as<Sub>(e)) {
        i128 k;
        if (const_int(s->b, k) && !detail::is_const_int(s->a)) {
            x = s->a;
            c = -k;
            return true;
        }
    }
    return false;
}

/** e as x + c, with c = 0 when e is not an offset. */
void offset_of(const Expr &e, Expr &x, i128 &c) {
    if (!split_offset(e, x, c)) {
        x = e;
        c = 0;
    }
}

/** e = x * k with a constant k, or e itself with k = 1. */
void linear_term(const Expr &e, Expr &x, i128 &k) {
    if (const auto *m = as<Mul>(e)) {
        if (const_int(m->b, k)) {
            x = m->a;
            return;
        }
    }
    x = e;
    k = 1;
}

/** a * b reduced modulo 2^n (wrapping 128-bit product, then reduction). */
i128 mul_wrap(Type t, i128 a, i128 b) {
    unsigned __int128 p = static_cast<unsigned __int128>(a) * static_cast<unsigned __int128>(b);
    return detail::wrap(t, i128(p));
}

bool contains_range(Type big, Type small) {
    return fits(big, type_min(small)) && fits(big, type_max(small));
}

bool float_holds_exactly(Type f, Type s) {
    if (s.is_bool()) return true;
    if (!s.is_integer()) return false;
    return f.bits == 32 ? s.bits <= 16 : s.bits <= 32;
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
    case Intrinsic::Reinterpret: return true;
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

class Simplifier : public IRMutator {
public:
    explicit Simplifier(const ConstBoundsScope *initial, bool index_math = false) : index_math_(index_math) {
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
        return mk_minmax(true, mutate(op->a), mutate(op->b), self);
    }
    Expr visit(const Max *op, const Expr &self) override {
        return mk_minmax(false, mutate(op->a), mutate(op->b), self);
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
        return mk_select(mutate(op->condition), mutate(op->true_value), mutate(op->false_value), self);
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
        Stmt body = mutate(op->body);
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

    /** Narrow variable bounds with facts implied by a true condition. */
    void learn(const Expr &c) {
        if (const auto *a = as<And>(c)) {
            learn(a->a);
            learn(a->b);
            return;
        }
        Expr x, k;
        ExprKind kind;
        switch (c->kind) {
#define TESSERA_LEARN(N)                                  \
    case ExprKind::N:                                     \
        x = static_cast<const N *>(c.get())->a;           \
        k = static_cast<const N *>(c.get())->b;           \
        kind = ExprKind::N;                               \
        break;
            TESSERA_LEARN(LT)
            TESSERA_LEARN(LE)
            TESSERA_LEARN(GT)
            TESSERA_LEARN(GE)
            TESSERA_LEARN(EQ)
#undef TESSERA_LEARN
        default: return;
        }
        const auto *v = as<Variable>(x);
        i128 kv;
        if (!v || !x.type().is_scalar() || !is_integer_type(x.type()) || !const_int(k, kv)) return;
        i128 lo, hi;
        if (!cbounds(x, lo, hi)) {
            lo = type_min(x.type());
            hi = type_max(x.type());
        }
        switch (kind) {
        case ExprKind::LT: hi = std::min(hi, kv - 1); break;
        case ExprKind::LE: hi = std::min(hi, kv); break;
        case ExprKind::GT: lo = std::max(lo, kv + 1); break;
        case ExprKind::GE: lo = std::max(lo, kv); break;
        default:
            lo = std::max(lo, kv);
            hi = std::min(hi, kv);
            break;
        }
        if (lo > hi) return;  // an unreachable branch; nothing useful to record
        push_bounds(v->name, true, lo, hi);
    }

    bool cbounds(const Expr &e, i128 &lo, i128 &hi) {
        int64_t l, h;
        if (!const_bounds(e, bounds_, l, h)) return false;
        lo = l;
        hi = h;
        return true;
    }

    /** x + c does not wrap for any value of x. */
    bool no_wrap_offset(const Expr &x, i128 c) {
        if (c == 0) return true;
        if (index_math_ && (x.type() == Int(32) || x.type() == Int(64))) return true;
        i128 lo, hi;
        return cbounds(x, lo, hi) && fits(x.type(), lo + c) && fits(x.type(), hi + c);
    }

    /** x * k does not wrap; the product's bounds in plo, phi. */
    bool no_wrap_mul(const Expr &x, i128 k, i128 &plo, i128 &phi) {
        i128 lo, hi, a, b;
        if (!cbounds(x, lo, hi) || !detail::mul_checked(lo, k, a) || !detail::mul_checked(hi, k, b)) return false;
        plo = std::min(a, b);
        phi = std::max(a, b);
        return fits(x.type(), plo) && fits(x.type(), phi);
    }

    /** x * k + y: neither the product nor the sum wraps. */
    bool no_wrap_mul_add(const Expr &x, i128 k, const Expr &y) {
        i128 plo, phi, ylo, yhi;
        return no_wrap_mul(x, k, plo, phi) && cbounds(y, ylo, yhi) && fits(x.type(), plo + ylo) &&
               fits(x.type(), phi + yhi);
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
    // the node being simplified, returned as is when nothing changed.

    template<typename N>
    static Expr plain(const Expr &a, const Expr &b, const Expr &orig) {
        if (const N *o = as<N>(orig))
            if (o->a.same_as(a) && o->b.same_as(b)) return orig;
        return N::make(a, b);
    }

    /** Constant folding of a binary operator (scalars, or Broadcasts of scalars). */
    static Expr fold(ExprKind k, const Expr &a, const Expr &b) {
        ir::Scalar x, y;
        if (detail::const_scalar(a, x) && detail::const_scalar(b, y)) {
            Type t = a.type();
            ir::Scalar r = ir::binary(k, t, x, y);
            bool cmp = k == ExprKind::EQ || k == ExprKind::NE || k == ExprKind::LT || k == ExprKind::LE ||
                       k == ExprKind::GT || k == ExprKind::GE;
            return detail::make_scalar(cmp ? Bool() : t, r);
        }
        return Expr();
    }

    static const Broadcast *both_broadcast(const Expr &a, const Expr &b) {
        const auto *x = as<Broadcast>(a);
        const auto *y = as<Broadcast>(b);
        return (x && y && x->lanes == y->lanes) ? x : nullptr;
    }

    Expr add_const(const Expr &x, i128 c) {
        Guard g(depth_);
        Type t = x.type();
        c = detail::wrap(t, c);
        i128 v;
        if (const_int(x, v)) return make_const(t, v + c);
        if (c == 0) return x;
        if (too_deep()) return Add::make(x, make_const(t, c));
        Expr y;
        i128 d;
        if (split_offset(x, y, d)) return add_const(y, d + c);
        if (const auto *s = as<Sub>(x)) {
            if (const_int(s->a, v)) return mk_sub(make_const(t, v + c), s->b);  // (v - y) + c
        }
        if (const auto *r = as<Ramp>(x)) return Ramp::make(add_const(r->base, c), r->stride, r->lanes);
        if (const auto *b = as<Broadcast>(x)) return Broadcast::make(add_const(b->value, c), b->lanes);
        if (t.element_of().is_uint() && c > type_max(t) / 2)
            return Sub::make(x, make_const(t, type_max(t) + 1 - c));  // x - (2^n - c), for reading
        return Add::make(x, make_const(t, c));
    }

    Expr mk_add(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Add, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_add(x->value, as<Broadcast>(b)->value), x->lanes);
        Type t = a.type();
        if (!is_integer_type(t) || too_deep()) return plain<Add>(a, b, orig);
        if (const auto *r = as<Ramp>(a)) {
            if (const auto *bb = as<Broadcast>(b)) return Ramp::make(mk_add(r->base, bb->value), r->stride, r->lanes);
            if (const auto *r2 = as<Ramp>(b))
                return make_ramp(mk_add(r->base, r2->base), mk_add(r->stride, r2->stride), r->lanes);
        }
        if (as<Broadcast>(a) && as<Ramp>(b)) return mk_add(b, a);
        i128 ca, cb;
        bool a_c = const_int(a, ca), b_c = const_int(b, cb);
        if (a_c && !b_c) return mk_add(b, a);
        if (b_c) return add_const(a, cb);
        Expr x;
        i128 c;
        if (split_offset(b, x, c)) return add_const(mk_add(a, x), c);  // a + (x + c)
        if (split_offset(a, x, c)) return add_const(mk_add(x, b), c);  // (x + c) + b
        if (const auto *s = as<Sub>(a)) {
            if (const_int(s->a, c)) return add_const(mk_sub(b, s->b), c);  // (c - y) + b
            if (equal(s->b, b)) return s->a;                               // (y - b) + b
        }
        if (const auto *s = as<Sub>(b)) {
            if (const_int(s->a, c)) return add_const(mk_sub(a, s->b), c);  // a + (c - y)
            if (equal(s->b, a)) return s->a;                               // a + (y - a)
        }
        Expr xa, xb;
        i128 ka, kb;
        linear_term(a, xa, ka);
        linear_term(b, xb, kb);
        if (equal(xa, xb)) return mk_mul(xa, make_const(t, ka + kb));  // x*ka + x*kb
        return plain<Add>(a, b, orig);
    }

    Expr mk_sub(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Sub, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_sub(x->value, as<Broadcast>(b)->value), x->lanes);
        Type t = a.type();
        if (!is_integer_type(t) || too_deep()) return plain<Sub>(a, b, orig);
        if (equal(a, b)) return make_const(t, 0);
        if (const auto *r = as<Ramp>(a)) {
            if (const auto *bb = as<Broadcast>(b)) return Ramp::make(mk_sub(r->base, bb->value), r->stride, r->lanes);
            if (const auto *r2 = as<Ramp>(b))
                return make_ramp(mk_sub(r->base, r2->base), mk_sub(r->stride, r2->stride), r->lanes);
        }
        if (const auto *r = as<Ramp>(b)) {
            if (const auto *ba = as<Broadcast>(a))
                return make_ramp(mk_sub(ba->value, r->base), mk_sub(make_const(r->stride.type(), 0), r->stride),
                                  r->lanes);
        }
        i128 ca, cb;
        if (const_int(b, cb)) return add_const(a, -cb);
        Expr x, y;
        i128 c1, c2;
        if (const_int(a, ca)) {
            if (split_offset(b, y, c2)) return mk_sub(make_const(t, ca - c2), y);  // ca - (y + c2)
            if (const auto *s = as<Sub>(b)) {
                if (const_int(s->a, c2)) return add_const(s->b, ca - c2);  // ca - (c2 - y)
            }
            return plain<Sub>(a, b, orig);
        }
        bool oa = split_offset(a, x, c1), ob = split_offset(b, y, c2);
        if (oa || ob) {
            if (!oa) x = a, c1 = 0;
            if (!ob) y = b, c2 = 0;
            return add_const(mk_sub(x, y), c1 - c2);
        }
        if (const auto *s = as<Add>(a)) {
            if (equal(s->a, b)) return s->b;  // (b + y) - b
            if (equal(s->b, b)) return s->a;  // (y + b) - b
        }
        if (const auto *s = as<Add>(b)) {
            if (equal(s->a, a)) return mk_sub(make_const(t, 0), s->b);  // a - (a + y)
            if (equal(s->b, a)) return mk_sub(make_const(t, 0), s->a);  // a - (y + a)
        }
        if (const auto *s = as<Sub>(a)) {
            if (equal(s->a, b)) return mk_sub(make_const(t, 0), s->b);  // (b - y) - b
        }
        if (const auto *s = as<Sub>(b)) {
            if (equal(s->a, a)) return s->b;  // a - (a - y)
        }
        Expr xa, xb;
        i128 ka, kb;
        linear_term(a, xa, ka);
        linear_term(b, xb, kb);
        if ((ka != 1 || kb != 1) && equal(xa, xb)) return mk_mul(xa, make_const(t, ka - kb));
        return plain<Sub>(a, b, orig);
    }

    Expr mk_mul(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Mul, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_mul(x->value, as<Broadcast>(b)->value), x->lanes);
        Type t = a.type();
        if (!is_integer_type(t) || too_deep()) return plain<Mul>(a, b, orig);
        if (const auto *r = as<Ramp>(a)) {
            if (const auto *bb = as<Broadcast>(b))
                return make_ramp(mk_mul(r->base, bb->value), mk_mul(r->stride, bb->value), r->lanes);
        }
        if (as<Broadcast>(a) && as<Ramp>(b)) return mk_mul(b, a);
        i128 ca, cb;
        bool a_c = const_int(a, ca), b_c = const_int(b, cb);
        if (a_c && !b_c) return mk_mul(b, a);
        if (!b_c) return plain<Mul>(a, b, orig);
        if (cb == 0) return make_const(t, 0);
        if (cb == 1) return a;
        Expr x;
        i128 c;
        if (const auto *m = as<Mul>(a)) {
            if (const_int(m->b, c)) return mk_mul(m->a, make_const(t, mul_wrap(t, c, cb)));  // (x*c)*cb
        }
        if (split_offset(a, x, c)) return add_const(mk_mul(x, b), mul_wrap(t, c, cb));  // (x+c)*cb
        if (const auto *s = as<Sub>(a)) {
            if (const_int(s->a, c)) return mk_sub(make_const(t, mul_wrap(t, c, cb)), mk_mul(s->b, b));
        }
        return plain<Mul>(a, b, orig);
    }

    Expr mk_div(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Div, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_div(x->value, as<Broadcast>(b)->value), x->lanes);
        Type t = a.type();
        if (!is_integer_type(t) || too_deep()) return plain<Div>(a, b, orig);
        i128 ca, cb;
        if (const_int(a, ca) && ca == 0) return a;  // 0 / b == 0 for every b
        if (!const_int(b, cb)) return plain<Div>(a, b, orig);
        if (cb == 0) return make_const(t, 0);
        if (cb == 1) return a;
        if (cb == -1) return mk_sub(make_const(t, 0), a);
        if (cb < 0) return plain<Div>(a, b, orig);
        i128 lo, hi;
        if (cbounds(a, lo, hi)) {
            i128 q0 = detail::div_euclid(lo, cb), q1 = detail::div_euclid(hi, cb);
            if (q0 == q1) return make_const(t, q0);
        }
        i128 k;
        if (const auto *d = as<Div>(a)) {
            if (const_int(d->b, k) && k > 0 && fits(t, k * cb)) return mk_div(d->a, make_const(t, k * cb));
        }
        i128 plo, phi;
        if (const auto *m = as<Mul>(a)) {
            if (const_int(m->b, k) && detail::mod_euclid(k, cb) == 0 && no_wrap_mul(m->a, k, plo, phi))
                return mk_mul(m->a, make_const(t, k / cb));
        }
        if (const auto *s = as<Add>(a)) {
            for (int i = 0; i < 2; i++) {
                const Expr &p = i == 0 ? s->a : s->b;
                const Expr &q = i == 0 ? s->b : s->a;
                const auto *m = as<Mul>(p);
                if (m && const_int(m->b, k) && detail::mod_euclid(k, cb) == 0 && no_wrap_mul_add(m->a, k, q))
                    return mk_add(mk_mul(m->a, make_const(t, k / cb)), mk_div(q, b));
            }
        }
        Expr x;
        if (split_offset(a, x, k) && detail::mod_euclid(k, cb) == 0 && no_wrap_offset(x, k))
            return add_const(mk_div(x, b), detail::div_euclid(k, cb));
        return plain<Div>(a, b, orig);
    }

    Expr mk_mod(const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (Expr f = fold(ExprKind::Mod, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_mod(x->value, as<Broadcast>(b)->value), x->lanes);
        Type t = a.type();
        if (!is_integer_type(t) || too_deep()) return plain<Mod>(a, b, orig);
        i128 ca, cb;
        if (const_int(a, ca) && ca == 0) return a;
        if (!const_int(b, cb)) {
            if (equal(a, b)) return make_const(t, 0);
            return plain<Mod>(a, b, orig);
        }
        i128 m = detail::abs128(cb);
        if (m <= 1) return make_const(t, 0);  // x % 0, x % 1, x % -1
        i128 lo, hi;
        if (cbounds(a, lo, hi)) {
            i128 q0 = detail::div_euclid(lo, m), q1 = detail::div_euclid(hi, m);
            if (q0 == q1) return add_const(a, -q0 * m);  // a is in [q*m, q*m + m - 1]
        }
        i128 k;
        if (const auto *md = as<Mod>(a)) {
            if (const_int(md->b, k) && k != 0 && detail::mod_euclid(k, m) == 0) return mk_mod(md->a, b);
        }
        bool pow2 = detail::is_pow2(m);
        i128 plo, phi;
        if (const auto *ml = as<Mul>(a)) {
            if (const_int(ml->b, k) && detail::mod_euclid(k, m) == 0 && (pow2 || no_wrap_mul(ml->a, k, plo, phi)))
                return make_const(t, 0);
        }
        if (const auto *s = as<Add>(a)) {
            for (int i = 0; i < 2; i++) {
                const Expr &p = i == 0 ? s->a : s->b;
                const Expr &q = i == 0 ? s->b : s->a;
                const auto *ml = as<Mul>(p);
                if (ml && const_int(ml->b, k) && detail::mod_euclid(k, m) == 0 &&
                    (pow2 || no_wrap_mul_add(ml->a, k, q)))
                    return mk_mod(q, b);
            }
        }
        Expr x;
        if (split_offset(a, x, k) && detail::mod_euclid(k, m) == 0 && (pow2 || no_wrap_offset(x, k)))
            return mk_mod(x, b);
        return plain<Mod>(a, b, orig);
    }

    Expr mk_minmax(bool is_min, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        auto make = [&](const Expr &x, const Expr &y) {
            return is_min ? plain<Min>(x, y, orig) : plain<Max>(x, y, orig);
        };
        auto again = [&](const Expr &x, const Expr &y) { return mk_minmax(is_min, x, y); };
        if (Expr f = fold(is_min ? ExprKind::Min : ExprKind::Max, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(again(x->value, as<Broadcast>(b)->value), x->lanes);
        if (a.same_as(b) || equal(a, b)) return a;
        Type t = a.type();
        if (t.element_of().is_float() || too_deep()) return make(a, b);
        i128 ca, cb;
        bool a_c = const_int(a, ca), b_c = const_int(b, cb);
        if (a_c && !b_c) return again(b, a);
        // Same-kind and other-kind operand nodes.
        auto same = [&](const Expr &e, Expr &x, Expr &y) {
            if (is_min) {
                if (const auto *n = as<Min>(e)) return x = n->a, y = n->b, true;
            } else {
                if (const auto *n = as<Max>(e)) return x = n->a, y = n->b, true;
            }
            return false;
        };
        auto other = [&](const Expr &e, Expr &x, Expr &y) {
            if (is_min) {
                if (const auto *n = as<Max>(e)) return x = n->a, y = n->b, true;
            } else {
                if (const auto *n = as<Min>(e)) return x = n->a, y = n->b, true;
            }
            return false;
        };
        Expr x, y;
        i128 k;
        if (b_c) {
            if (cb == (is_min ? type_max(t) : type_min(t))) return a;
            if (cb == (is_min ? type_min(t) : type_max(t))) return b;
            if (same(a, x, y) && const_int(y, k))
                return again(x, make_const(t, is_min ? std::min(k, cb) : std::max(k, cb)));
            if (other(a, x, y) && const_int(y, k) && (is_min ? cb <= k : cb >= k)) return b;
        }
        i128 al, ah, bl, bh;
        if (cbounds(a, al, ah) && cbounds(b, bl, bh)) {
            if (ah <= bl) return is_min ? a : b;
            if (bh <= al) return is_min ? b : a;
        }
        Expr xa, xb;
        i128 c1, c2;
        offset_of(a, xa, c1);
        offset_of(b, xb, c2);
        if (c1 != c2 && equal(xa, xb) && no_wrap_offset(xa, c1) && no_wrap_offset(xa, c2))
            return (c1 < c2) == is_min ? a : b;
        if (other(b, x, y) && (equal(x, a) || equal(y, a))) return a;  // min(a, max(a, y))
        if (other(a, x, y) && (equal(x, b) || equal(y, b))) return b;  // min(max(b, y), b)
        // min(min(min(p, q), r), q) -> min(min(p, q), r): an operand already in the other
        // operand's chain of mins (associativity, commutativity, idempotence).
        auto in_chain = [&](const Expr &chain, const Expr &e) {
            std::vector<Expr> todo = {chain};
            int budget = 32;
            while (!todo.empty() && budget-- > 0) {
                Expr c = std::move(todo.back());
                todo.pop_back();
                Expr p, q;
                if (same(c, p, q)) {
                    todo.push_back(p);
                    todo.push_back(q);
                } else if (equal(c, e)) {
                    return true;
                }
            }
            return false;
        };
        if (same(a, x, y) && in_chain(a, b)) return a;
        if (same(b, x, y) && in_chain(b, a)) return b;
        return make(a, b);
    }

    Expr mk_cmp(ExprKind kind, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        auto make = [&](ExprKind k, const Expr &x, const Expr &y) -> Expr {
            switch (k) {
            case ExprKind::EQ: return plain<EQ>(x, y, orig);
            case ExprKind::NE: return plain<NE>(x, y, orig);
            case ExprKind::LT: return plain<LT>(x, y, orig);
            case ExprKind::LE: return plain<LE>(x, y, orig);
            case ExprKind::GT: return plain<GT>(x, y, orig);
            default: return plain<GE>(x, y, orig);
            }
        };
        if (Expr f = fold(kind, a, b); f.defined()) return f;
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_cmp(kind, x->value, as<Broadcast>(b)->value), x->lanes);
        Type t = a.type();
        int lanes = t.lanes;
        if (t.element_of().is_float() || too_deep()) return make(kind, a, b);
        auto answer = [&](bool v) { return make_bool_const(v, lanes); };
        auto decide = [&](i128 x, i128 y) {
            switch (kind) {
            case ExprKind::EQ: return x == y;
            case ExprKind::NE: return x != y;
            case ExprKind::LT: return x < y;
            case ExprKind::LE: return x <= y;
            case ExprKind::GT: return x > y;
            default: return x >= y;
            }
        };
        if (equal(a, b)) return answer(decide(0, 0));
        i128 ca, cb;
        bool a_c = const_int(a, ca), b_c = const_int(b, cb);
        if (a_c && !b_c) {
            // c < x  ->  x > c
            ExprKind flipped = kind == ExprKind::LT   ? ExprKind::GT
                               : kind == ExprKind::LE ? ExprKind::GE
                               : kind == ExprKind::GT ? ExprKind::LT
                               : kind == ExprKind::GE ? ExprKind::LE
                                                      : kind;
            return mk_cmp(flipped, b, a);
        }
        i128 al, ah, bl, bh;
        if (cbounds(a, al, ah) && cbounds(b, bl, bh)) {
            int r = -1;
            switch (kind) {
            case ExprKind::LT: r = ah < bl ? 1 : al >= bh ? 0 : -1; break;
            case ExprKind::LE: r = ah <= bl ? 1 : al > bh ? 0 : -1; break;
            case ExprKind::GT: r = al > bh ? 1 : ah <= bl ? 0 : -1; break;
            case ExprKind::GE: r = al >= bh ? 1 : ah < bl ? 0 : -1; break;
            case ExprKind::EQ: r = (ah < bl || bh < al) ? 0 : -1; break;
            default: r = (ah < bl || bh < al) ? 1 : -1; break;
            }
            if (r >= 0) return answer(r == 1);
        }
        if (!is_integer_type(t)) return make(kind, a, b);  // bool operands
        Expr xa, xb;
        i128 c1, c2;
        offset_of(a, xa, c1);
        offset_of(b, xb, c2);
        if (kind == ExprKind::EQ || kind == ExprKind::NE) {
            // Adding a constant is a bijection modulo 2^n.
            if (c1 != 0) return mk_cmp(kind, xa, add_const(b, -c1));
            if (const auto *s = as<Sub>(a)) {
                if (b_c && cb == 0) return mk_cmp(kind, s->a, s->b);  // x - y == 0
            }
            return make(kind, a, b);
        }
        // Orderings: only when the offsets provably do not wrap.
        if (c1 != c2 && equal(xa, xb) && no_wrap_offset(xa, c1) && no_wrap_offset(xa, c2))
            return answer(decide(c1, c2));
        if (b_c && c1 != 0 && fits(t, cb - c1) && no_wrap_offset(xa, c1))
            return mk_cmp(kind, xa, make_const(t, cb - c1));
        return make(kind, a, b);
    }

    Expr mk_not(const Expr &a, const Expr &orig = Expr()) {
        Guard g(depth_);
        i128 v;
        if (const_int(a, v)) return make_bool_const(v == 0, a.type().lanes);
        if (const auto *b = as<Broadcast>(a)) return Broadcast::make(mk_not(b->value), b->lanes);
        if (const auto *n = as<Not>(a)) return n->a;
        if (const auto *e = as<EQ>(a)) return NE::make(e->a, e->b);
        if (const auto *e = as<NE>(a)) return EQ::make(e->a, e->b);
        auto int_operands = [](const Expr &x) { return !x.type().element_of().is_float(); };
        if (const auto *e = as<LT>(a); e && int_operands(e->a)) return GE::make(e->a, e->b);
        if (const auto *e = as<LE>(a); e && int_operands(e->a)) return GT::make(e->a, e->b);
        if (const auto *e = as<GT>(a); e && int_operands(e->a)) return LE::make(e->a, e->b);
        if (const auto *e = as<GE>(a); e && int_operands(e->a)) return LT::make(e->a, e->b);
        if (const Not *o = as<Not>(orig); o && o->a.same_as(a)) return orig;
        return Not::make(a);
    }

    Expr mk_logic(bool is_and, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        auto make = [&](const Expr &x, const Expr &y) {
            return is_and ? plain<And>(x, y, orig) : plain<Or>(x, y, orig);
        };
        i128 va, vb;
        bool a_c = const_int(a, va), b_c = const_int(b, vb);
        int lanes = a.type().lanes;
        if (a_c && b_c) return make_bool_const(is_and ? (va && vb) : (va || vb), lanes);
        if (const Broadcast *x = both_broadcast(a, b))
            return Broadcast::make(mk_logic(is_and, x->value, as<Broadcast>(b)->value), x->lanes);
        // The identity element gives the other operand; the absorbing one gives itself.
        if (a_c) return (va != 0) == is_and ? b : a;
        if (b_c) return (vb != 0) == is_and ? a : b;
        if (equal(a, b)) return a;
        const auto *na = as<Not>(a);
        const auto *nb = as<Not>(b);
        if ((na && equal(na->a, b)) || (nb && equal(nb->a, a))) return make_bool_const(!is_and, lanes);
        return make(a, b);
    }

    Expr mk_select(const Expr &c, const Expr &a, const Expr &b, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (detail::is_const_true(c)) return a;
        if (detail::is_const_false(c)) return b;
        if (a.same_as(b) || equal(a, b)) return a;
        if (too_deep()) return Select::make(c, a, b);
        if (const auto *n = as<Not>(c)) return mk_select(n->a, b, a);
        if (a.type().element_of().is_bool() && c.type() == a.type()) {
            if (detail::is_const_true(a) && detail::is_const_false(b)) return c;
            if (detail::is_const_false(a) && detail::is_const_true(b)) return mk_not(c);
        }
        if (const auto *s = as<Select>(a); s && equal(s->condition, c)) return mk_select(c, s->true_value, b);
        if (const auto *s = as<Select>(b); s && equal(s->condition, c)) return mk_select(c, a, s->false_value);
        if (const Select *o = as<Select>(orig)) {
            if (o->condition.same_as(c) && o->true_value.same_as(a) && o->false_value.same_as(b)) return orig;
        }
        return Select::make(c, a, b);
    }

    Expr mk_cast(Type t, const Expr &v, const Expr &orig = Expr()) {
        Guard g(depth_);
        if (v.type() == t) return v;
        ir::Scalar s;
        if (t.is_scalar() && detail::const_scalar(v, s)) {
            return detail::make_scalar(t, ir::cast(t, v.type(), s));
        }
        if (const auto *b = as<Broadcast>(v)) return Broadcast::make(mk_cast(t.element_of(), b->value), b->lanes);
        if (const auto *c = as<Cast>(v); c && !too_deep()) {
            Type S = c->value.type().element_of(), U = c->type.element_of(), T = t.element_of();
            const Expr &x = c->value;
            if (S.is_integer() && U.is_integer() && T.is_integer() && T.bits <= U.bits) return mk_cast(t, x);
            bool exact_source = S.is_integer() || S.is_bool();
            if (exact_source && U.is_integer() && contains_range(U, S)) return mk_cast(t, x);
            if (exact_source && U.is_float() && float_holds_exactly(U, S) &&
                (T.is_float() || T.is_bool() || (T.is_integer() && contains_range(T, S))))
                return mk_cast(t, x);
        }
        if (const Cast *o = as<Cast>(orig); o && o->value.same_as(v)) return orig;
        return Cast::make(t, v);
    }
};

}  // namespace

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
