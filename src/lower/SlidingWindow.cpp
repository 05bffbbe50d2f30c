// Sliding window and storage folding, for Funcs stored outside their compute level.
//
// Sliding window. A Func p computed at the top of loop L but stored outside L keeps its
// values from one iteration of L to the next. If the region p needs in iteration L moves
// monotonically forward along one dimension v (its min and max never decrease from one
// iteration to the next, provably) and does not move in the others, iteration L needs to
// compute only the part past what iteration L - 1 computed:
//
//     p.s0.v.min  =  select(L <= L.first, min(L), max(L - 1) + 1)
//
// Only single-definition Funcs slide (an update recomputed on part of a region would be
// wrong), only over serial loops, only where the site occurs once, and only along a
// dimension whose loop computes exactly the region needed (a RoundUp or ShiftInwards split
// of it would write past the new part, over values still needed in a folded buffer).
//
// Storage folding. fold_storage(v, F) stores dimension v modulo F (storage flattening
// indexes it with v mod F); that is valid as long as one iteration of the compute level
// needs at most F consecutive values of v, which a check at the top of every iteration
// asserts. After a slide along v whose per-iteration footprint (the values one iteration
// needs, and the values it computes) has a constant bound K, the
// storage is folded automatically by the smallest power of two >= K.

#include <algorithm>

#include "analysis/Interval.h"
#include "analysis/Monotonic.h"
#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;
using testing::injects;
using testing::Mutation;

namespace {

Expr i32(int64_t v) { return IntImm::make(Int(32), v); }

/** An expression at least a - b, for a and b the same function of different arguments:
 * min(x, c) - min(y, c) and max(x, c) - max(y, c) are at most max(x - y, 0) (a min or
 * max with a fixed c moves by no more than its argument) and (x + c) - (y + c) is x - y, so that the rows one iteration
 * computes under a GuardWithIf split, min(y + 1, y.max) - min(y, y.max), bound by 1. */
Expr difference_upper_bound(const Expr &a, const Expr &b) {
    if (const Add *x = as<Add>(a))
        if (const Add *y = as<Add>(b); y && equal(x->b, y->b)) return difference_upper_bound(x->a, y->a);
    if (const Sub *x = as<Sub>(a))
        if (const Sub *y = as<Sub>(b); y && equal(x->b, y->b)) return difference_upper_bound(x->a, y->a);
    if (const Min *x = as<Min>(a))
        if (const Min *y = as<Min>(b); y && equal(x->b, y->b))
            return Max::make(difference_upper_bound(x->a, y->a), IntImm::make(a.type(), 0));
    if (const Max *x = as<Max>(a))
        if (const Max *y = as<Max>(b); y && equal(x->b, y->b))
            return Max::make(difference_upper_bound(x->a, y->a), IntImm::make(a.type(), 0));
    return Sub::make(a, b);
}

/** The leading lets of a loop body, and the statement after them. */
struct LeadingLets {
    std::vector<std::pair<std::string, Expr>> lets;
    Stmt rest;
};

LeadingLets leading_lets(Stmt s) {
    LeadingLets l;
    while (const LetStmt *let = as<LetStmt>(s)) {
        l.lets.emplace_back(let->name, let->value);
        s = let->body;
    }
    l.rest = s;
    return l;
}

Stmt rebuild(const LeadingLets &l, Stmt rest) {
    for (auto it = l.lets.rbegin(); it != l.lets.rend(); ++it) rest = LetStmt::make(it->first, it->second, rest);
    return rest;
}

/** e with the leading lets before index `upto` substituted (latest first). */
Expr expand(const LeadingLets &l, size_t upto, Expr e) {
    for (size_t k = upto; k-- > 0;) e = substitute(l.lets[k].first, l.lets[k].second, e);
    return e;
}

size_t let_index(const LeadingLets &l, const std::string &name) {
    for (size_t k = 0; k < l.lets.size(); k++)
        if (l.lets[k].first == name) return k;
    return l.lets.size();
}

/** How many loops of s are the loop `site` (specializations copy loops). */
int count_loops(const Stmt &s, const std::shared_ptr<const LoopId> &site) {
    struct Count : IRVisitor {
        const std::shared_ptr<const LoopId> *site;
        int n = 0;
        using IRVisitor::include;
        void visit(const For *op) override {
            n += is_site(op, *site);
            IRVisitor::visit(op);
        }
    } c;
    c.site = &site;
    c.include(s);
    return c.n;
}

class Slide : public IRMutator {
public:
    Slide(FuncPlan &p, bool may_slide) : p_(p), may_slide_(may_slide), inside_store_(!p.store_site) {}

protected:
    Stmt visit(const For *op, const Stmt &self) override {
        // Loops strictly between the store site and the compute site.
        const bool store_here = is_site(op, p_.store_site);
        if (store_here) inside_store_ = true;
        if (!is_site(op, p_.compute_site)) {
            if (inside_store_ && !store_here) between_.push_back(op->name);
            Stmt s = IRMutator::visit(op, self);
            if (inside_store_ && !store_here) between_.pop_back();
            if (store_here) inside_store_ = false;
            return s;
        }
        Stmt body = at_compute_site(op);
        if (store_here) inside_store_ = false;
        return For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
    }

private:
    Stmt at_compute_site(const For *loop) {
        const FunctionData &f = *p_.func;
        LeadingLets l = leading_lets(loop->body);
        const int n = f.dimensions();
        std::vector<Stmt> checks;
        std::vector<size_t> min_at(static_cast<size_t>(n)), max_at(static_cast<size_t>(n));
        std::vector<Expr> mins(static_cast<size_t>(n)), maxes(static_cast<size_t>(n));
        for (int i = 0; i < n; i++) {
            min_at[size_t(i)] = let_index(l, loop_min(p_, 0, f.args[size_t(i)]));
            max_at[size_t(i)] = let_index(l, loop_max(p_, 0, f.args[size_t(i)]));
            if (min_at[size_t(i)] == l.lets.size() || max_at[size_t(i)] == l.lets.size()) return loop->body;
            mins[size_t(i)] = expand(l, min_at[size_t(i)], l.lets[min_at[size_t(i)]].second);
            maxes[size_t(i)] = expand(l, max_at[size_t(i)], l.lets[max_at[size_t(i)]].second);
        }

        // Explicit folds: one iteration must fit in the fold.
        for (const auto &[var, extent] : p_.folds) {
            const int i = int(std::find(f.args.begin(), f.args.end(), var) - f.args.begin());
            const Expr mn = Variable::make(Int(32), loop_min(p_, 0, var));
            const Expr mx = Variable::make(Int(32), loop_max(p_, 0, var));
            checks.push_back(AssertStmt::make(
                Or::make(GT::make(mn, mx), LE::make(Add::make(Sub::make(mx, mn), i32(1)), extent)),
                {text("Func \"" + f.name + "\" is folded to "), extent,
                 text(" values of dimension " + std::to_string(i) + " (" + var +
                     ") by fold_storage, but one iteration where it is computed needs ["),
                 mn, text(", "), mx, text("]; give fold_storage a larger extent")}));
        }

        // Sliding along one dimension, over this loop.
        int slide = -1;
        if (may_slide_ && loop->for_type == ForType::Serial) {
            const std::string &L = loop->name;
            for (int i = 0; i < n; i++) {
                const bool depends = uses_var(mins[size_t(i)], L) || uses_var(maxes[size_t(i)], L);
                bool moves_between = false;
                for (const std::string &b : between_)
                    moves_between = moves_between || uses_var(mins[size_t(i)], b) || uses_var(maxes[size_t(i)], b);
                if (moves_between) {
                    slide = -2;
                    break;
                }
                if (!depends) continue;
                if (slide != -1 || computes_past_region(p_, f.args[size_t(i)])) {
                    // Moves in two dimensions, or the loop computes past the region needed
                    // (its new part would spill over the values still needed).
                    slide = -2;
                    break;
                }
                slide = i;
            }
        }
        if (slide >= 0) {
            const size_t i = size_t(slide);
            const Expr Lv = Variable::make(Int(32), loop->name);
            const Expr prev = Sub::make(Lv, i32(1));
            const Expr prev_max = substitute(loop->name, prev, maxes[i]);
            const Expr prev_min = substitute(loop->name, prev, mins[i]);
            auto moves_forward = [&](const Expr &e, const Expr &prev) {
                const analysis::Monotonic m = analysis::monotonic_in(e, loop->name);
                return m == analysis::Monotonic::Increasing || m == analysis::Monotonic::Constant ||
                       analysis::can_prove_index(GE::make(e, prev));
            };
            const bool forward = moves_forward(maxes[i], prev_max) && moves_forward(mins[i], prev_min);
            if (forward) {
                const Expr first =
                    injects(Mutation::SlidingWindowSkipsWarmUp) ? LT::make(Lv, loop->min) : LE::make(Lv, loop->min);
                const Expr next = Add::make(prev_max, i32(injects(Mutation::SlidingWindowStartOffByOne) ? 2 : 1));
                const Expr slid = Select::make(first, l.lets[min_at[i]].second, next);
                l.lets[min_at[i]].second = analysis::simplify_index(slid);
                // The footprint of one iteration has a constant bound (3 rows, or fewer in
                // the last tile of a GuardWithIf split): fold automatically. The fold holds
                // both what one iteration needs and what it computes, max - prev_max rows,
                // which is more when the region advances by more than it needs (every second
                // row of a downsampling consumer): with fewer slots, two rows computed in
                // one iteration would share a slot, and the producer's loop over them, if
                // parallel, would race (the schedule fuzzer, seed 921100057).
                const Expr footprint = Add::make(Sub::make(maxes[i], mins[i]), i32(1));
                const Expr computed = difference_upper_bound(maxes[i], prev_max);
                int64_t k = 0, k_computed = 0;
                const std::string &var = f.args[i];
                const bool folded = std::any_of(p_.folds.begin(), p_.folds.end(),
                                                [&](const auto &fd) { return fd.first == var; });
                if (analysis::constant_upper_bound(footprint, k) && analysis::constant_upper_bound(computed, k_computed) &&
                    (k = injects(Mutation::FoldIgnoresRowsComputed) ? k : std::max(k, k_computed)) > 0 &&
                    k <= (1 << 16) && !folded && !p_.is_output) {
                    int64_t fold = 1;
                    while (fold < k) fold *= 2;
                    if (injects(Mutation::FoldFactorHalved) && fold > 1) fold /= 2;
                    p_.folds.emplace_back(var, i32(fold));
                }
            }
        }
        std::vector<Stmt> b = checks;
        b.push_back(l.rest);
        return rebuild(l, Block::make(b));
    }

    FuncPlan &p_;
    bool may_slide_;
    bool inside_store_;
    std::vector<std::string> between_;
};

}  // namespace

Stmt sliding_window(PipelinePlan &plan, Stmt s) {
    for (FuncPlan &p : plan.funcs) {
        for (const ir::StorageFold &fd : p.func->schedule.folds) {
            if (p.is_output)
                throw CompileError("Func \"" + p.func->name +
                                   "\" is the pipeline's output; its storage is the caller's buffer, which cannot be "
                                   "folded (fold_storage)");
            if (computes_past_region(p, fd.var))
                throw CompileError("Func \"" + p.func->name + "\" is folded along " + fd.var +
                                   " (fold_storage), but its loop over " + fd.var +
                                   " is split with RoundUp or ShiftInwards, which computes past the region needed "
                                   "and would overwrite folded values still in use; split it with GuardWithIf or "
                                   "do not fold it");
            p.folds.emplace_back(fd.var, fd.extent);
        }
        if (!p.compute_site || same_site(p.store_site, p.compute_site)) {
            if (!p.folds.empty()) {
                // Stored where computed: the whole region must fit in the fold.
                Slide slide(p, false);
                if (!p.compute_site) continue;  // handled by the check below
                s = slide.mutate(s);
            }
            continue;
        }
        const bool may_slide = (p.defs.size() == 1 || injects(Mutation::SlidingFuncWithUpdates)) &&
                               count_loops(s, p.compute_site) == 1;
        Slide slide(p, may_slide);
        s = slide.mutate(s);
    }
    // Root-level Funcs with folds: their whole region must fit.
    for (FuncPlan &p : plan.funcs) {
        if (p.compute_site || p.folds.empty()) continue;
        const FunctionData &f = *p.func;
        std::vector<Stmt> checks;
        for (const auto &[var, extent] : p.folds) {
            const Expr mn = Variable::make(Int(32), loop_min(p, 0, var));
            const Expr mx = Variable::make(Int(32), loop_max(p, 0, var));
            checks.push_back(AssertStmt::make(
                Or::make(GT::make(mn, mx), LE::make(Add::make(Sub::make(mx, mn), i32(1)), extent)),
                {text("Func \"" + f.name + "\" is folded to "), extent,
                 text(" values of dimension " + var + " by fold_storage, but it is computed at the root over ["), mn,
                 text(", "), mx, text("]; give fold_storage a larger extent")}));
        }
        LeadingLets l = leading_lets(s);
        checks.push_back(l.rest);
        s = rebuild(l, Block::make(checks));
    }
    return s;
}

}  // namespace tessera::lower
