// Bounds inference: define the loop bounds of every stage and the extent of every
// realization, from the regions their consumers require (docs/architecture.md, "What bounds
// inference guarantees").
//
// Funcs are processed consumers first. At each place a Func is computed, the region its
// last definition must cover is the box of all reads of it in the consumer part of the
// realization there; loops enclosing the site stay symbolic, so a Func computed inside a
// loop gets a per-iteration region. bound(), bound_extent() and align_bounds() then fix or
// widen that region (with a run-time check that it still covers what is needed). Each
// earlier definition covers the region of the next one plus everything that definition
// reads of the Func or writes to it (so definition k-1 covers definition k in reduction
// dimensions too). The lets are placed at the top of the compute site,
// after those of the Funcs' consumers that share the site, so every bound is defined
// before it is used.
//
// The storage of a Func (its Realize) covers every point its stages write (over-compute of
// RoundUp and ShiftInwards splits included) and every point read, over all iterations of
// the loops between its store level and its compute level.

#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"
#include "lower/RequiredRegion.h"
#include "tessera/IROperator.h"

namespace tessera::lower {

using namespace ir;
using analysis::Interval;
using testing::injects;
using testing::Mutation;

namespace {

using Lets = std::vector<std::pair<std::string, Expr>>;

Stmt insert_lets(const Stmt &body, const Lets &lets, const std::vector<Stmt> &checks) {
    if (const LetStmt *l = as<LetStmt>(body))
        return LetStmt::make(l->name, l->value, insert_lets(l->body, lets, checks));
    std::vector<Stmt> b = checks;
    b.push_back(body);
    Stmt s = Block::make(b);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) s = LetStmt::make(it->first, it->second, s);
    return s;
}

std::string dims_text(const FunctionData &f, int i) {
    return "dimension " + std::to_string(i) + " (" + f.args[size_t(i)] + ")";
}

Expr one() { return IntImm::make(Int(32), 1); }

/** Applies bound(), bound_extent() and align_bounds() to the required region of dimension
 * i; adds the checks that the result still covers what is required. */
Interval apply_bounds(const FunctionData &f, int i, Interval need, std::vector<Stmt> &checks) {
    const std::string &var = f.args[size_t(i)];
    for (const ir::Bound &b : f.schedule.bounds) {
        if (b.var != var) continue;
        Interval r = need;
        if (b.extent.defined()) {
            Expr mn = b.min.defined() ? b.min : need.min;
            r = Interval{mn, Sub::make(Add::make(mn, b.extent), one())};
            Expr ok = Or::make(GT::make(need.min, need.max), And::make(LE::make(r.min, need.min), LE::make(need.max, r.max)));
            checks.push_back(AssertStmt::make(
                ok, {text("Func \"" + f.name + "\" is bound to ["), r.min, text(", "), r.max,
                     text("] in " + dims_text(f, i) + " (bound or bound_extent), but ["), need.min, text(", "),
                     need.max, text("] of it is needed")}));
        }
        if (b.modulus.defined()) {
            // min rounded down to remainder (mod modulus), extent rounded up to a multiple.
            Expr m = b.modulus;
            Expr mn = Sub::make(r.min, Mod::make(Sub::make(r.min, b.remainder), m));
            Expr count = Add::make(Sub::make(r.max, mn), one());
            Expr rounded = Mul::make(Div::make(Sub::make(Add::make(count, m), one()), m), m);
            r = Interval{mn, Sub::make(Add::make(mn, rounded), one())};
        }
        return r;
    }
    return need;
}

class BoundsOfFunc {
public:
    BoundsOfFunc(const PipelinePlan &plan, const FuncPlan &p) : plan_(plan), p_(p), f_(*p.func) {}

    /** The lets (and checks) defining the stage bounds of the Func at one compute site
     * whose consumer part is `consumer` (undefined for the output). */
    void at_site(const Stmt &consumer, Lets &lets, std::vector<Stmt> &checks) const {
        const int n = f_.dimensions();
        std::vector<Interval> region(static_cast<size_t>(n));
        if (p_.is_output) {
            for (int i = 0; i < n; i++)
                region[size_t(i)] = Interval{buffer_min(f_.name, i),
                                             Sub::make(Add::make(buffer_min(f_.name, i), buffer_extent(f_.name, i)), one())};
        } else {
            RequiredRegion r = required_region(consumer, p_.storage, n, false);
            for (int i = 0; i < n; i++) {
                if (!r.touched()) {
                    region[size_t(i)] = Interval{IntImm::make(Int(32), 0), IntImm::make(Int(32), -1)};
                    continue;
                }
                const Interval &iv = r.box[size_t(i)];
                if (!iv.is_bounded())
                    throw CompileError("Func \"" + f_.name + "\" is accessed in an unbounded way in " + dims_text(f_, i) +
                                       " by Func \"" + func_name(r.unbounded_by[size_t(i)]) +
                                       "\": the coordinates it is read at cannot be bounded; clamp them (for "
                                       "example with clamp(...) or a boundary condition)");
                region[size_t(i)] = iv;
            }
            if (injects(Mutation::ComputeAtRegionOneRowShort) && p_.compute_site && n > 0)
                region[size_t(n - 1)].max = Sub::make(region[size_t(n - 1)].max, one());
        }
        for (int i = 0; i < n; i++) region[size_t(i)] = apply_bounds(f_, i, region[size_t(i)], checks);

        for (int st = int(p_.defs.size()) - 1; st >= 0; st--) {
            const Definition &d = p_.defs[size_t(st)];
            for (int i = 0; i < n; i++) {
                if (!d.pure_dims[size_t(i)]) continue;
                std::string v = dim_var_name(d, i);
                const Expr mn = analysis::simplify_index(region[size_t(i)].min);
                const Expr mx = analysis::simplify_index(region[size_t(i)].max);
                if (equal(mn, mx)) {
                    // One point (a Func computed per point of its consumer, as an inline
                    // reduction is): the min is the max, so that the loop's extent
                    // simplifies to 1. (The max is the one defined: a sliding window
                    // rewrites the min.)
                    lets.emplace_back(loop_max(p_, st, v), mx);
                    lets.emplace_back(loop_min(p_, st, v), Variable::make(Int(32), loop_max(p_, st, v)));
                } else {
                    lets.emplace_back(loop_min(p_, st, v), mn);
                    lets.emplace_back(loop_max(p_, st, v), mx);
                }
                region[size_t(i)] = Interval{Variable::make(Int(32), loop_min(p_, st, v)),
                                             Variable::make(Int(32), loop_max(p_, st, v))};
            }
            if (st == 0) break;
            if (injects(Mutation::PureRegionIgnoresUpdateReads)) continue;
            RequiredRegion self = required_region(p_.stages[size_t(st)], p_.storage, n, true);
            if (!self.touched()) continue;
            for (int i = 0; i < n; i++) {
                const Interval &iv = self.box[size_t(i)];
                if (!iv.is_bounded())
                    throw CompileError("In " + describe_definition(f_, st) + ": Func \"" + f_.name +
                                       "\" is read or written in an unbounded way in " + dims_text(f_, i) +
                                       "; clamp the coordinates");
                region[size_t(i)] = analysis::interval_union(region[size_t(i)], iv);
            }
        }
    }

    /** The lets defining the realization bounds "<storage>.r<i>.min/extent" of a Realize
     * whose body is `body`: everything written or read there. */
    Lets realization(const Stmt &body) const {
        const int n = f_.dimensions();
        RequiredRegion r = required_region(body, p_.storage, n, true);
        Lets lets;
        for (int i = 0; i < n; i++) {
            Interval iv = r.touched() ? r.box[size_t(i)] : Interval{IntImm::make(Int(32), 0), IntImm::make(Int(32), -1)};
            if (!iv.is_bounded())
                throw CompileError("Func \"" + f_.name + "\" is accessed in an unbounded way in " + dims_text(f_, i) +
                                   "; clamp the coordinates it is read at");
            const std::string d = std::to_string(i);
            Expr mn = analysis::simplify_index(iv.min);
            lets.emplace_back(p_.storage + ".r" + d + ".min", mn);
            Expr extent = Add::make(Sub::make(iv.max, mn), one());
            if (injects(Mutation::RealizationOneRowShort) && i == n - 1) extent = Sub::make(extent, one());
            lets.emplace_back(p_.storage + ".r" + d + ".extent", analysis::simplify_index(extent));
        }
        return lets;
    }

private:
    /** The Func computed into `storage` (its name), for messages. */
    /** The Func whose storage is `storage`; reads outside every producer (empty) are the
     * output's own. */
    std::string func_name(const std::string &storage) const {
        if (storage.empty())
            for (const FuncPlan &q : plan_.funcs)
                if (q.is_output) return q.func->name;
        const FuncPlan *p = plan_.find_storage(storage);
        return p ? p->func->name : storage;
    }

    const PipelinePlan &plan_;
    const FuncPlan &p_;
    const FunctionData &f_;
};

/** Inserts the stage bounds at every occurrence of the compute site. */
class InsertAtSite : public IRMutator {
public:
    InsertAtSite(const FuncPlan &p, const BoundsOfFunc &b) : p_(p), b_(b) {}

protected:
    Stmt visit(const For *op, const Stmt &self) override {
        if (!is_site(op, p_.compute_site)) return IRMutator::visit(op, self);
        Lets lets;
        std::vector<Stmt> checks;
        b_.at_site(realization_part(op->body, p_.storage, false), lets, checks);
        return For::make(op->name, op->min, op->extent, op->for_type, insert_lets(op->body, lets, checks), op->loop);
    }

private:
    const FuncPlan &p_;
    const BoundsOfFunc &b_;
};

/** Defines the bounds of every Realize of the Func just above it. */
class BoundRealizations : public IRMutator {
public:
    BoundRealizations(const FuncPlan &p, const BoundsOfFunc &b) : p_(p), b_(b) {}

protected:
    Stmt visit(const Realize *op, const Stmt &self) override {
        Stmt s = IRMutator::visit(op, self);
        if (op->name != p_.storage) return s;
        Stmt r = s;
        const Lets lets = b_.realization(as<Realize>(s)->body);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) r = LetStmt::make(it->first, it->second, r);
        return r;
    }

private:
    const FuncPlan &p_;
    const BoundsOfFunc &b_;
};

}  // namespace

Stmt bounds_inference(const PipelinePlan &plan, Stmt s) {
    for (int k = int(plan.funcs.size()) - 1; k >= 0; k--) {
        const FuncPlan &p = plan.funcs[size_t(k)];
        BoundsOfFunc b(plan, p);
        if (!p.compute_site) {
            Stmt consumer;
            if (!p.is_output) consumer = realization_part(s, p.storage, false);
            Lets lets;
            std::vector<Stmt> checks;
            b.at_site(consumer, lets, checks);
            s = insert_lets(s, lets, checks);
        } else {
            InsertAtSite insert(p, b);
            s = insert.mutate(s);
        }
        BoundRealizations realize(p, b);
        s = realize.mutate(s);
    }
    return s;
}

}  // namespace tessera::lower
