// Vectorized and unrolled loops need a constant extent. A Func computed inside a loop that a
// GuardWithIf split guards gets a region that shrinks in the last tile (its extent is
// min(y + 3, y.max) - y + 1, not 4), so its vectorized or unrolled loops have a variable
// extent with a constant upper bound K. Such a loop becomes
//
//     if (extent >= K) loop over K iterations, vectorized or unrolled
//     else             the same loop over `extent` iterations, serial
//
// The bound comes from the extent with the enclosing lets it uses substituted, bounded by
// analysis::constant_upper_bound.

#include <algorithm>

#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class BoundLoops : public IRMutator {
public:
    explicit BoundLoops(const PipelinePlan &plan) : plan_(plan) {}

protected:
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        lets_.emplace_back(op->name, op->value);
        Stmt body = mutate(op->body);
        lets_.pop_back();
        return body.same_as(op->body) ? self : LetStmt::make(op->name, op->value, body);
    }

    // The production of a Func computed inside a loop, whose stage bounds ("f.s0.x.min",
    // "f.s0.x.max") have extents with small constant upper bounds (a full tile): the common
    // case where every extent reaches its bound gets its own copy in which they are the
    // constants, so that the stage's loops have constant extents and its guards can be
    // proved true. Only the production is copied, not what consumes it.
    Stmt visit(const ProducerConsumer *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        Stmt same = body.same_as(op->body) ? self : ProducerConsumer::make(op->name, op->is_producer, body);
        if (!op->is_producer) return same;
        const FuncPlan *p = plan_.find_storage(op->name);
        if (!p) return same;
        // The bound variables of the Func's stages: max -> min.
        std::map<std::string, std::string> stage_bounds;
        for (int k = 0; k < int(p->defs.size()); k++)
            for (int i = 0; i < p->func->dimensions(); i++)
                if (p->defs[size_t(k)].pure_dims[size_t(i)]) {
                    const std::string v = dim_var_name(p->defs[size_t(k)], i);
                    stage_bounds[loop_max(*p, k, v)] = loop_min(*p, k, v);
                }
        Expr cond;
        std::map<std::string, Expr> full;
        for (const auto &[name, value] : lets_) {
            auto bound = stage_bounds.find(name);
            if (bound == stage_bounds.end()) continue;
            const std::string &min_name = bound->second;
            const bool has_min =
                std::any_of(lets_.begin(), lets_.end(), [&](const auto &l) { return l.first == min_name; });
            if (!has_min) continue;
            const Expr mn = Variable::make(Int(32), min_name), mx = Variable::make(Int(32), name);
            const Expr extent = Add::make(Sub::make(mx, mn), IntImm::make(Int(32), 1));
            if (as<IntImm>(analysis::simplify_index(extent))) continue;
            int64_t lo = 0;
            const int64_t k = constant_upper_bound(extent, lets_, &lo);
            if (k < 2 || k > 64) continue;
            full[name] = Add::make(mn, IntImm::make(Int(32), k - 1));
            if (lo == k) continue;  // always a full tile (a ShiftInwards split): no test
            const Expr is_full = EQ::make(extent, IntImm::make(Int(32), k));
            cond = cond.defined() ? And::make(cond, is_full) : is_full;
        }
        if (full.empty()) return same;
        if (!cond.defined()) return ProducerConsumer::make(op->name, true, substitute(full, body));
        return ProducerConsumer::make(op->name, true, IfThenElse::make(cond, substitute(full, body), body));
    }

    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        Stmt same = body.same_as(op->body) ? self : For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
        if (op->for_type != ForType::Vectorized && op->for_type != ForType::Unrolled) return same;
        const Expr extent = analysis::simplify(op->extent);
        if (as<IntImm>(extent)) return same;
        const int64_t hi = constant_upper_bound(extent, lets_);
        if (hi <= 0 || hi > 1024) return same;
        const Expr k = IntImm::make(op->extent.type(), hi);
        const Expr least =
            testing::injects(testing::Mutation::FullTileTestOffByOne) ? IntImm::make(op->extent.type(), hi - 1) : k;
        return IfThenElse::make(GE::make(op->extent, least),
                                For::make(op->name, op->min, k, op->for_type, body, op->loop),
                                For::make(op->name, op->min, op->extent, ForType::Serial, body, op->loop));
    }

private:
    const PipelinePlan &plan_;

    /** A constant upper bound of e (with the lets it uses substituted), or 0 if none is
     * found; *lo, if given, receives the lower bound found with it. */
    static int64_t constant_upper_bound(const Expr &extent, const std::vector<std::pair<std::string, Expr>> &lets,
                                        int64_t *lo = nullptr) {
        int64_t hi = 0;
        return analysis::constant_upper_bound(extent, lets, hi, lo) ? hi : 0;
    }

    std::vector<std::pair<std::string, Expr>> lets_;
};

}  // namespace

Stmt bound_constant_extent_loops(const PipelinePlan &plan, Stmt s) {
    BoundLoops b(plan);
    return b.mutate(s);
}

}  // namespace tessera::lower
