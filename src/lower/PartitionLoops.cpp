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
// Boundary conditions are partitioned the same way: a clamp min(max(e, lo), hi) with e
// linear in the loop variable is e itself wherever e - lo >= 0 and hi - e >= 0, two
// conditions of the form above; the steady state uses e, so that a vector loop inside reads
// a dense ramp instead of gathering clamped lanes. Clamps are partitioned only in loops
// that contain a vectorized loop (elsewhere the saving is two scalar operations per access,
// not worth three copies of the body), and not inside the prologue or epilogue of another
// loop's partition: those run a few boundary rows, and partitioning their clamps too
// would make nine copies of a 2-D stencil's body where five do.
//
// The base of a ShiftInwards split, min(x.min + xo * 8, x.max - 7), is x.min + xo * 8 in
// every iteration but the last: the innermost loop around a vector loop is partitioned on
// it too (as Halide's likely_if_innermost does), so that the steady state's vector
// addresses are a plain multiple of the loop variable (bench/README.md measures the
// difference), when its body is no larger than kMaxShiftPartitionAccesses loads and
// stores (a copy of a large body costs more compile time than the min costs run time).
// The loops computed inside the vector loop (a per-point reduction run on the lanes)
// count as its body; a serial loop between the two makes the loop not the innermost one.
//
// The prologue and epilogue run the same body. When the loop's iterations may run in any
// order (a loop of a pure definition whose body computes nothing else: every point is
// written once, from other Funcs' values), they are one loop over both ranges, so that the
// body is emitted twice instead of three times.
//
// Loops that run as lanes or copies (vectorized, unrolled) are not partitioned themselves.

#include <map>
#include <set>

#include "analysis/Inequality.h"
#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Mutation.h"
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
    // A variable widened to 64 bits (in_int64) is the variable.
    if (const Cast *c = as<Cast>(e); c && as<Variable>(c->value) && as<Variable>(c->value)->name == v) {
        coef = 1;
        rest = IntImm::make(e.type(), 0);
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

/** A clamp min(max(e, lo), hi) (or max(min(e, hi), lo)) inside a loop body: `node` is the
 * outer min or max, `value` the clamped e as written; lower and upper are the conditions
 * e >= lo and e <= hi with the lets between substituted. */
struct Clamp {
    const ExprNode *node;
    Expr value;
    Expr lower, upper;
    std::vector<std::pair<std::string, Interval>> inner_loops;
    /** Mins inside e, min(a, b) with a moving with the loop and b not (the base of a
     * ShiftInwards split, min(x.min + xo * 8, x.max - 7)): in the steady state they are a,
     * under the conditions a <= b. */
    std::vector<std::pair<const ExprNode *, Expr>> inner_mins;
    std::vector<Expr> inner_conditions;
};

/** Replaces each min(a, b) whose a depends on `v` and b does not by a, recording the node,
 * a, and the condition a <= b under which that is exact. */
class PeelMins : public IRMutator {
public:
    explicit PeelMins(const std::string &v) : v_(v) {}
    std::vector<std::pair<const ExprNode *, Expr>> mins;
    std::vector<Expr> conditions;

protected:
    Expr visit(const Min *op, const Expr &self) override {
        if (uses_var(op->a, v_) && !uses_var(op->b, v_)) {
            Expr a = mutate(op->a);
            mins.emplace_back(op, op->a);
            conditions.push_back(LE::make(a, op->b));
            return a;
        }
        return IRMutator::visit(op, self);
    }

private:
    const std::string &v_;
};

class FindGuards : public IRVisitor {
public:
    FindGuards(const std::string &v, const Stmt &body) : v_(v), index_lets_(index_lets(body)) {}
    std::vector<Guard> guards;
    std::vector<Clamp> clamps;
    /** min(a, b) with a linear in the loop variable (a ShiftInwards base): the node, a,
     * and the condition a <= b with the lets between substituted. */
    struct ShiftMin {
        const ExprNode *node;
        Expr value, condition;
        std::vector<std::pair<std::string, Interval>> inner_loops;
    };
    std::vector<ShiftMin> shift_mins;
    bool has_vector_loop = false;
    bool has_serial_loop = false;  // a loop inside that is not vectorized or unrolled
    /** Every name a let or a loop inside the body defines. */
    std::set<std::string> defined;
    using IRVisitor::include;

protected:
    // Clamps and ShiftInwards bases are peeled only where they compute coordinates (an
    // index, a loop bound, a condition, or a let they flow into): there the arithmetic of
    // the conditions solved for the steady state is coordinate arithmetic, which does not
    // wrap; a min in a stored value may compute anything.
    void visit(const LetStmt *op) override {
        if (index_lets_.count(op->name)) index(op->value);
        else include(op->value);
        defined.insert(op->name);
        lets_.emplace_back(op->name, op->value);
        include(op->body);
        lets_.pop_back();
    }
    void visit(const Load *op) override { index(op->index); }
    void visit(const Store *op) override {
        include(op->value);
        index(op->index);
    }
    void visit(const Min *op) override {
        if (in_index_ > 0) {
            if (const Max *inner = as<Max>(op->a)) clamp(op, inner->a, inner->b, op->b);
            else shift_min(op);
        }
        IRVisitor::visit(op);
    }
    void visit(const Max *op) override {
        if (const Min *inner = as<Min>(op->a); inner && in_index_ > 0) clamp(op, inner->a, op->b, inner->b);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        has_vector_loop = has_vector_loop || op->for_type == ForType::Vectorized;
        has_serial_loop = has_serial_loop ||
                          (in_vector_loop_ == 0 && op->for_type != ForType::Vectorized && op->for_type != ForType::Unrolled);
        // The bounds with the lets between substituted: a bound of the steady state is
        // placed outside the loop, where those lets do not exist.
        const Expr mn = substitute_lets(lets_, op->min), ext = substitute_lets(lets_, op->extent);
        Interval iv = mn.defined() && ext.defined()
                          ? Interval{mn, analysis::simplify(Sub::make(Add::make(mn, ext), IntImm::make(op->min.type(), 1)))}
                          : Interval::everything();
        defined.insert(op->name);
        loops_.emplace_back(op->name, iv);
        in_vector_loop_ += op->for_type == ForType::Vectorized;
        include(op->body);
        in_vector_loop_ -= op->for_type == ForType::Vectorized;
        loops_.pop_back();
    }
    void visit(const IfThenElse *op) override {
        if (!op->else_case.defined()) {
            const Expr c = substitute_lets(lets_, op->condition);
            if (c.defined() && uses_var(c, v_)) guards.push_back(Guard{op, c, loops_});
        }
        index(op->condition);
        include(op->then_case);
        include(op->else_case);
    }
    void visit(const Allocate *op) override { IRVisitor::visit(op); }


private:
    void index(const Expr &e) {
        in_index_++;
        include(e);
        in_index_--;
    }

    void shift_min(const Min *op) {
        if (op->type != Int(32)) return;
        const Expr a = substitute_lets(lets_, op->a), b = substitute_lets(lets_, op->b);
        if (!a.defined() || !b.defined() || !uses_var(a, v_) || uses_var(b, v_)) return;
        shift_mins.push_back(ShiftMin{op, op->a, LE::make(a, b), loops_});
    }

    void clamp(const ExprNode *node, const Expr &e, const Expr &lo, const Expr &hi) {
        if (e.type() != Int(32)) return;
        Expr value = substitute_lets(lets_, e);
        const Expr low = substitute_lets(lets_, lo), high = substitute_lets(lets_, hi);
        if (!value.defined() || !low.defined() || !high.defined()) return;
        if (!uses_var(value, v_) || uses_var(low, v_) || uses_var(high, v_)) return;
        PeelMins peel(v_);
        value = peel.mutate(value);
        clamps.push_back(Clamp{node, e, GE::make(value, low), LE::make(value, high), loops_, peel.mins, peel.conditions});
    }

    const std::string &v_;
    const std::set<std::string> index_lets_;
    int in_index_ = 0;
    int in_vector_loop_ = 0;
    std::vector<std::pair<std::string, Expr>> lets_;
    std::vector<std::pair<std::string, Interval>> loops_;
};

/** The most loads and stores in a loop partitioned on a ShiftInwards base alone: a body
 * up to the size of harris's per-vector window sums (36 loads: 1.42 -> 1.33 of Halide's
 * time, 10% more compile time), not larger ones, whose copy costs more compile time than
 * the min costs run time. */
constexpr int kMaxShiftPartitionAccesses = 64;

Expr floor_div(const Expr &a, int64_t b) { return Div::make(a, IntImm::make(a.type(), b)); }  // Euclidean, b > 0

/** The bounds of a loop's steady state, from the conditions c * v + r >= 0 (c a constant)
 * that must hold there for every value of the inner loops: a term (c, min(r)) each. Terms
 * with the same c whose min(r) differ by a constant are one: v >= -floor(min(r) / c) for
 * c > 0, and v <= floor(min(r) / -c) for c < 0, are both tightest for the smallest min(r)
 * (the taps of a stencil, x - 1, x and x + 1 clamped to one range, give one bound, not a
 * max of three quotients that the code computes and the validator splits into cases). */
class SteadyBounds {
public:
    void add(int64_t coef, const Expr &rmin) {
        std::vector<Term> &terms = coef > 0 ? lower_ : upper_;
        for (Term &t : terms) {
            if (t.coef != coef) continue;
            if (const IntImm *k = as<IntImm>(analysis::simplify_index(Sub::make(rmin, t.rmin)))) {
                if (k->value < 0) t.rmin = rmin;
                return;
            }
        }
        terms.push_back({coef, rmin});
    }
    /** The steady state's first iteration (undefined if unbounded below). */
    Expr lo() const {
        Expr lo;
        for (const Term &t : lower_) {
            Expr bound = saturate_to_int32(analysis::simplify_index(Sub::make(IntImm::make(Int(64), 0), floor_div(t.rmin, t.coef))));
            lo = lo.defined() ? Max::make(lo, bound) : bound;
        }
        return lo;
    }
    /** Its last iteration (undefined if unbounded above). */
    Expr hi() const {
        Expr hi;
        for (const Term &t : upper_) {
            Expr bound = saturate_to_int32(analysis::simplify_index(floor_div(t.rmin, -t.coef)));
            hi = hi.defined() ? Min::make(hi, bound) : bound;
        }
        return hi;
    }

private:
    struct Term {
        int64_t coef;
        Expr rmin;
    };
    std::vector<Term> lower_, upper_;
};

/** The steady state's body: the guards that hold dropped, the clamps that do not clamp
 * replaced by their value. */
class DropGuards : public IRMutator {
public:
    DropGuards(const std::set<const IfThenElse *> &drop, const std::map<const ExprNode *, Expr> &clamps)
        : drop_(drop), clamps_(clamps) {}

protected:
    Stmt visit(const IfThenElse *op, const Stmt &self) override {
        if (drop_.count(op)) return mutate(op->then_case);
        return IRMutator::visit(op, self);
    }
    Expr visit(const Min *op, const Expr &self) override {
        if (auto it = clamps_.find(op); it != clamps_.end()) return mutate(it->second);
        return IRMutator::visit(op, self);
    }
    Expr visit(const Max *op, const Expr &self) override {
        if (auto it = clamps_.find(op); it != clamps_.end()) return mutate(it->second);
        return IRMutator::visit(op, self);
    }

private:
    const std::set<const IfThenElse *> &drop_;
    const std::map<const ExprNode *, Expr> &clamps_;
};

/** Whether the iterations of a loop may run in any order: it is a loop of a Func's pure
 * definition and every loop inside is one of that definition's, with no allocation or
 * other Func's production inside. */
bool iterations_commute(const For *op) {
    if (!op->loop || op->loop->stage != 0 || op->loop->role == LoopRole::FinalCopy) return false;
    struct Check : IRVisitor {
        const LoopId *outer;
        bool ok = true;
        using IRVisitor::include;
        void visit(const For *f) override {
            ok = ok && f->loop && f->loop->func == outer->func && f->loop->stage == outer->stage &&
                 f->loop->role != LoopRole::FinalCopy;
            IRVisitor::visit(f);
        }
        void visit(const Allocate *) override { ok = false; }
        void visit(const ProducerConsumer *) override { ok = false; }
    } check;
    check.outer = op->loop.get();
    check.include(op->body);
    return check.ok;
}

class Partition : public IRMutator {
protected:
    Stmt visit(const For *op, const Stmt &self) override {
        if (op->for_type == ForType::Vectorized || op->for_type == ForType::Unrolled || op->min.type() != Int(32))
            return IRMutator::visit(op, self);
        FindGuards find(op->name, op->body);
        find.include(op->body);
        SteadyBounds bounds;  // the steady state's
        // Narrows `steady` to where `condition` holds for every iteration of the inner
        // loops; false if the condition is not of a form that can be solved.
        auto holds_in_steady_state = [&](const Expr &condition, const std::vector<std::pair<std::string, Interval>> &inner,
                                         SteadyBounds &steady) {
            // In 64 bits: the condition may hold constants near the ends of int32.
            const Expr d = analysis::nonnegative_difference(condition);
            int64_t coef;
            Expr rest;
            if (!d.defined() || !linear_in(d, op->name, coef, rest) || coef == 0) return false;
            analysis::Scope scope;
            for (const auto &[name, iv] : inner) scope.push(name, iv);
            Interval r = analysis::bounds_of_expr(rest, scope);
            if (!r.min.defined() || uses_var(r.min, op->name)) return false;
            for (const std::string &name : find.defined)
                if (uses_var(r.min, name)) return false;  // not known outside the loop
            steady.add(coef, r.min);
            return true;
        };
        // The copies of an unrolled loop share their body's nodes (each copy is a let of
        // the loop variable around the same statement), so one node may be found several
        // times, with different lets: it is rewritten only if its condition holds for
        // every copy; a refused node keeps its guard or clamp everywhere.
        std::set<const IfThenElse *> drop, kept;
        for (const Guard &g : find.guards)
            (holds_in_steady_state(g.condition, g.inner_loops, bounds) ? drop : kept).insert(g.node);
        for (const IfThenElse *n : kept) drop.erase(n);
        std::map<const ExprNode *, Expr> unclamped;
        std::set<const ExprNode *> refused, peeled_in_clamp;
        if (find.has_vector_loop && boundary_depth_ == 0) {
            for (const Clamp &c : find.clamps) {
                SteadyBounds b = bounds;
                bool ok = holds_in_steady_state(c.lower, c.inner_loops, b) && holds_in_steady_state(c.upper, c.inner_loops, b);
                for (const Expr &cond : c.inner_conditions) ok = ok && holds_in_steady_state(cond, c.inner_loops, b);
                if (!ok) {
                    refused.insert(c.node);
                    for (const auto &inner : c.inner_mins) refused.insert(inner.first);
                    continue;
                }
                bounds = std::move(b);
                unclamped[c.node] = c.value;
                for (const auto &[node, a] : c.inner_mins) {
                    unclamped[node] = a;
                    peeled_in_clamp.insert(node);
                }
            }
        }
        if (find.has_vector_loop && !find.has_serial_loop && memory_accesses(op->body) <= kMaxShiftPartitionAccesses) {
            for (const FindGuards::ShiftMin &m : find.shift_mins) {
                if (peeled_in_clamp.count(m.node)) continue;  // solved with its clamp
                SteadyBounds b = bounds;
                if (!holds_in_steady_state(m.condition, m.inner_loops, b)) {
                    refused.insert(m.node);
                    continue;
                }
                bounds = std::move(b);
                unclamped[m.node] = m.value;
            }
        }
        for (const ExprNode *n : refused) unclamped.erase(n);
        if (drop.empty() && unclamped.empty()) return IRMutator::visit(op, self);
        Expr lo = bounds.lo(), hi = bounds.hi();  // the steady state is [lo, hi] (either side may be unbounded)
        if (testing::injects(testing::Mutation::ClampPeeledOneIterationEarly) && !unclamped.empty() && lo.defined())
            lo = Sub::make(lo, IntImm::make(lo.type(), 1));
        if (testing::injects(testing::Mutation::GuardPeeledOneIterationLate) && !drop.empty() && hi.defined())
            hi = Add::make(hi, IntImm::make(hi.type(), 1));

        // [min, start) prologue, [start, end) steady state, [end, min + extent) epilogue.
        const Expr mn = op->min, end_all = Add::make(op->min, op->extent);
        Expr start = lo.defined() ? Min::make(Max::make(lo, mn), end_all) : mn;
        Expr end = hi.defined() ? Max::make(Min::make(Add::make(hi, IntImm::make(Int(32), 1)), end_all), start) : end_all;
        start = analysis::simplify_index(start);
        end = analysis::simplify_index(end);
        DropGuards dropper(drop, unclamped);
        Stmt steady_body = mutate(dropper.mutate(op->body));
        // The prologue and epilogue of a boundary condition's partition are boundary rows;
        // those of a GuardWithIf tail alone may be a large partial tile.
        const int boundary = unclamped.empty() ? 0 : 1;
        boundary_depth_ += boundary;
        Stmt body = mutate(op->body);
        boundary_depth_ -= boundary;
        std::vector<Stmt> parts;
        const std::string prologue_end = op->name + ".steady_start", epilogue_start = op->name + ".steady_end";
        Expr ps = Variable::make(Int(32), prologue_end), pe = Variable::make(Int(32), epilogue_start);
        const bool one_boundary_loop = lo.defined() && hi.defined() && iterations_commute(op);
        if (one_boundary_loop) {
            // One loop over [min, start) and [end, min + extent).
            const std::string i = op->name + ".boundary";
            const Expr iv = Variable::make(Int(32), i), before = Sub::make(ps, mn);
            const Expr v = Select::make(LT::make(iv, before), Add::make(mn, iv), Add::make(pe, Sub::make(iv, before)));
            parts.push_back(For::make(i, IntImm::make(Int(32), 0), Add::make(before, Sub::make(end_all, pe)), op->for_type,
                                      LetStmt::make(op->name, v, body), loop_part(op->loop, LoopPart::Boundaries)));
        } else if (lo.defined()) {
            parts.push_back(For::make(op->name, mn, Sub::make(ps, mn), op->for_type, body, loop_part(op->loop, LoopPart::Prologue)));
        }
        parts.push_back(For::make(op->name, ps, Sub::make(pe, ps), op->for_type, steady_body,
                                  loop_part(op->loop, LoopPart::SteadyState)));
        if (hi.defined() && !one_boundary_loop)
            parts.push_back(For::make(op->name, pe, Sub::make(end_all, pe), op->for_type, body, loop_part(op->loop, LoopPart::Epilogue)));
        Stmt s = Block::make(parts);
        s = LetStmt::make(epilogue_start, end, s);
        return LetStmt::make(prologue_end, start, s);
    }

private:
    int boundary_depth_ = 0;  // inside a prologue or epilogue
};

}  // namespace

Stmt partition_loops(Stmt s) {
    Partition p;
    return p.mutate(s);
}

}  // namespace tessera::lower
