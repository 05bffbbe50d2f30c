// Loop partitioning: a loop whose body is guarded by a condition that is linear in the
// loop variable (the guard of a GuardWithIf split, x < x.min + x.extent) is cut into a
// prologue, a steady state and an epilogue. In the steady state the condition holds for
// every iteration of every loop inside, so it is dropped there; the prologue and epilogue
// keep it. The steady state of a split's outer loop thus carries no guard, and the inner
// loop can become vector code.
//
// For a condition `a < b` (and <=, >, >=), with d = b - a - 1 written as c * v + r (c a
// constant, r not depending on the loop variable v), the condition holds for all values
// of the inner loops when c * v + min(r) >= 0: v >= ceil(-min(r) / c) for c > 0, and
// v <= floor(min(r) / -c) for c < 0. min(r) comes from interval analysis over the
// ranges of the inner loops, with the lets in between substituted.
//
// Loops that run as lanes or copies (vectorized, unrolled) are not partitioned themselves.

#include <set>

#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;
using analysis::Interval;

namespace {

/** e as coef * v + rest, with coef a constant; false if e is not of that form. */
bool linear_in(const Expr &e, const std::string &v, int64_t &coef, Expr &rest) {
    if (!uses_var(e, v)) {
        coef = 0;
        rest = e;
        return true;
    }
    if (const Variable *x = as<Variable>(e)) {
        if (x->name != v) return false;
        coef = 1;
        rest = IntImm::make(e.type(), 0);
        return true;
    }
    int64_t ca, cb;
    Expr ra, rb;
    if (const Add *a = as<Add>(e)) {
        if (!linear_in(a->a, v, ca, ra) || !linear_in(a->b, v, cb, rb)) return false;
        coef = ca + cb;
        rest = Add::make(ra, rb);
        return true;
    }
    if (const Sub *s = as<Sub>(e)) {
        if (!linear_in(s->a, v, ca, ra) || !linear_in(s->b, v, cb, rb)) return false;
        coef = ca - cb;
        rest = Sub::make(ra, rb);
        return true;
    }
    if (const Mul *m = as<Mul>(e)) {
        const IntImm *k = as<IntImm>(m->b);
        if (!k) return false;
        if (!linear_in(m->a, v, ca, ra)) return false;
        coef = ca * k->value;
        rest = Mul::make(ra, m->b);
        return true;
    }
    return false;
}

/** The if-conditions inside a loop body, with the lets and loops between. */
struct Guard {
    const IfThenElse *node;
    Expr condition;  // with the lets between substituted
    std::vector<std::pair<std::string, Interval>> inner_loops;
};

class FindGuards : public IRVisitor {
public:
    explicit FindGuards(const std::string &v) : v_(v) {}
    std::vector<Guard> guards;
    using IRVisitor::include;

protected:
    void visit(const LetStmt *op) override {
        include(op->value);
        lets_.emplace_back(op->name, op->value);
        include(op->body);
        lets_.pop_back();
    }
    void visit(const For *op) override {
        Interval iv{op->min, analysis::simplify(Sub::make(Add::make(op->min, op->extent), IntImm::make(op->min.type(), 1)))};
        loops_.emplace_back(op->name, iv);
        include(op->body);
        loops_.pop_back();
    }
    void visit(const IfThenElse *op) override {
        if (!op->else_case.defined()) {
            Expr c = op->condition;
            for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) c = substitute(it->first, it->second, c);
            if (uses_var(c, v_)) guards.push_back(Guard{op, c, loops_});
        }
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override { IRVisitor::visit(op); }

private:
    const std::string &v_;
    std::vector<std::pair<std::string, Expr>> lets_;
    std::vector<std::pair<std::string, Interval>> loops_;
};

Expr floor_div(const Expr &a, int64_t b) { return Div::make(a, IntImm::make(a.type(), b)); }  // Euclidean, b > 0

class DropGuards : public IRMutator {
public:
    explicit DropGuards(const std::set<const IfThenElse *> &drop) : drop_(drop) {}

protected:
    Stmt visit(const IfThenElse *op, const Stmt &self) override {
        if (drop_.count(op)) return mutate(op->then_case);
        return IRMutator::visit(op, self);
    }

private:
    const std::set<const IfThenElse *> &drop_;
};

class Partition : public IRMutator {
protected:
    Stmt visit(const For *op, const Stmt &self) override {
        if (op->for_type == ForType::Vectorized || op->for_type == ForType::Unrolled || op->min.type() != Int(32))
            return IRMutator::visit(op, self);
        FindGuards find(op->name);
        find.include(op->body);
        Expr lo, hi;  // the steady state is [lo, hi] (either side may be unbounded)
        std::set<const IfThenElse *> drop;
        for (const Guard &g : find.guards) {
            Expr a, b;
            int64_t strict = 0;  // d = b - a - strict >= 0
            switch (g.condition->kind) {
            case ExprKind::LT: a = as<LT>(g.condition)->a, b = as<LT>(g.condition)->b, strict = 1; break;
            case ExprKind::LE: a = as<LE>(g.condition)->a, b = as<LE>(g.condition)->b; break;
            case ExprKind::GT: a = as<GT>(g.condition)->b, b = as<GT>(g.condition)->a, strict = 1; break;
            case ExprKind::GE: a = as<GE>(g.condition)->b, b = as<GE>(g.condition)->a; break;
            default: continue;
            }
            if (a.type() != Int(32)) continue;
            int64_t coef;
            Expr rest;
            if (!linear_in(Sub::make(Sub::make(b, a), IntImm::make(Int(32), strict)), op->name, coef, rest) || coef == 0)
                continue;
            analysis::Scope scope;
            for (const auto &[name, iv] : g.inner_loops) scope.push(name, iv);
            Interval r = analysis::bounds_of_expr(rest, scope);
            if (!r.min.defined() || uses_var(r.min, op->name)) continue;
            if (coef > 0) {
                // v >= ceil(-rmin / coef) = -floor(rmin / coef)
                Expr bound = Sub::make(IntImm::make(Int(32), 0), floor_div(r.min, coef));
                lo = lo.defined() ? Max::make(lo, bound) : bound;
            } else {
                Expr bound = floor_div(r.min, -coef);
                hi = hi.defined() ? Min::make(hi, bound) : bound;
            }
            drop.insert(g.node);
        }
        if (drop.empty()) return IRMutator::visit(op, self);

        // [min, start) prologue, [start, end) steady state, [end, min + extent) epilogue.
        const Expr mn = op->min, end_all = Add::make(op->min, op->extent);
        Expr start = lo.defined() ? Min::make(Max::make(lo, mn), end_all) : mn;
        Expr end = hi.defined() ? Max::make(Min::make(Add::make(hi, IntImm::make(Int(32), 1)), end_all), start) : end_all;
        start = analysis::simplify_index(start);
        end = analysis::simplify_index(end);
        Stmt body = mutate(op->body);
        DropGuards dropper(drop);
        Stmt steady_body = mutate(dropper.mutate(op->body));
        std::vector<Stmt> parts;
        const std::string prologue_end = op->name + ".steady_start", epilogue_start = op->name + ".steady_end";
        Expr ps = Variable::make(Int(32), prologue_end), pe = Variable::make(Int(32), epilogue_start);
        if (lo.defined()) parts.push_back(For::make(op->name, mn, Sub::make(ps, mn), op->for_type, body));
        parts.push_back(For::make(op->name, ps, Sub::make(pe, ps), op->for_type, steady_body));
        if (hi.defined()) parts.push_back(For::make(op->name, pe, Sub::make(end_all, pe), op->for_type, body));
        Stmt s = Block::make(parts);
        s = LetStmt::make(epilogue_start, end, s);
        return LetStmt::make(prologue_end, start, s);
    }
};

}  // namespace

Stmt partition_loops(Stmt s) {
    Partition p;
    return p.mutate(s);
}

}  // namespace tessera::lower
