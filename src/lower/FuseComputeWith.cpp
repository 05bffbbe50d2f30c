// compute_with (Func::compute_with, Halide's): the loop nests of two Funcs computed at one
// place share their loops from the outermost down to a given loop. Run after bounds
// inference, when each nest's loops have their bounds: the nest of the Func computed with
// the other (f) moves into the other's (g's), whose produce comes later in the statement
// (inside the realization of both). Each fused loop runs over the union of the two loops'
// ranges; in each iteration g's body runs, guarded by g's ranges, then f's, guarded by
// f's, its loop variables bound to the fused ones. Legal because neither Func reads the
// other (checked here): each body computes the same points as in its own nest.

#include <algorithm>

#include "ir/IRMutator.h"
#include "lower/Pipeline.h"
#include "tessera/Error.h"

namespace tessera::lower {

using namespace ir;

namespace {

[[noreturn]] void fail(const FunctionData &f, const FunctionData &g, const std::string &why) {
    throw CompileError("Func \"" + f.name + "\" is computed with Func \"" + g.name + "\" (compute_with(" + g.name + ", " +
                       f.schedule.compute_with_var + ")), but " + why);
}

/** The loops of a nest from the outermost down to the one the user calls `var`. */
std::vector<const For *> loops_down_to(const Stmt &nest, const std::string &var) {
    std::vector<const For *> loops;
    for (const For *l = as<For>(nest); l; l = as<For>(l->body)) {
        loops.push_back(l);
        if (l->loop && l->loop->var == var) return loops;
    }
    return {};
}

/** Replaces the body of one produce node (`storage`) by `body`. */
class ReplaceProduce : public IRMutator {
public:
    ReplaceProduce(std::string storage, Stmt body) : storage_(std::move(storage)), body_(std::move(body)) {}

protected:
    Stmt visit(const ProducerConsumer *op, const Stmt &self) override {
        if (op->is_producer && op->name == storage_) return ProducerConsumer::make(op->name, true, body_);
        return IRMutator::visit(op, self);
    }

private:
    std::string storage_;
    Stmt body_;
};

bool reads(const std::shared_ptr<FunctionData> &consumer, const FunctionData &producer) {
    for (const auto &h : dependency_order(consumer))
        if (h.get() == &producer) return true;
    return false;
}

Expr within(const Expr &v, const For *l) { return And::make(GE::make(v, l->min), LT::make(v, Add::make(l->min, l->extent))); }

}  // namespace

Stmt fuse_compute_with(const PipelinePlan &plan, Stmt s) {
    for (size_t i = 0; i < plan.funcs.size(); i++) {
        const FuncPlan &p = plan.funcs[i];
        const FunctionData &f = *p.func;
        const std::shared_ptr<FunctionData> with = f.schedule.compute_with.lock();
        if (!with) continue;
        const FunctionData &g = *with;
        const FuncPlan *q = plan.find(&g);
        if (!q) fail(f, g, "\"" + g.name + "\" is not computed in this pipeline (it is inlined, or not used)");
        if (p.is_output || q->is_output) fail(f, g, "the pipeline's output cannot be computed with another Func");
        if (f.definitions.size() != 1 || g.definitions.size() != 1)
            fail(f, g, "only Funcs with a pure definition alone can be fused (one of them has updates)");
        if (!same_site(p.compute_site, q->compute_site))
            fail(f, g, "they are computed at different places; give both the same compute_at or compute_root()");
        if (!same_site(p.store_site, p.compute_site) || !same_site(q->store_site, q->compute_site))
            fail(f, g, "one of them is stored outside its compute level (store_at); both must be stored where computed");
        if (reads(p.func, g) || reads(q->func, f)) fail(f, g, "one of them reads the other; fused loops would compute it too late");
        const Stmt produce_f = realization_part(s, p.storage, true), produce_g = realization_part(s, q->storage, true);
        if (!produce_f.defined() || !produce_g.defined()) fail(f, g, "one of them is not computed where the other is");
        const std::string var = f.schedule.compute_with_var;
        const std::vector<const For *> lf = loops_down_to(produce_f, var), lg = loops_down_to(produce_g, var);
        if (lf.empty()) fail(f, g, var + " is not a loop of \"" + f.name + "\"'s nest (outermost first, without specializations)");
        if (lg.size() != lf.size() || !lg.back()->loop || lg.back()->loop->var != var)
            fail(f, g, "\"" + g.name + "\" has no loop " + var + " at the same depth (" + std::to_string(lf.size()) +
                           " loops from the outermost)");
        for (size_t k = 0; k < lf.size(); k++) {
            const ForType a = lf[k]->for_type, b = lg[k]->for_type;
            if (a != b || (a != ForType::Serial && a != ForType::Parallel))
                fail(f, g, "their loops " + lf[k]->loop->var + " and " + lg[k]->loop->var +
                               " are not both serial or both parallel (vectorized and unrolled loops are not fused)");
        }
        // g's body, then f's with its loop variables bound to the fused loops' (g's).
        Expr guard_g, guard_f;
        for (size_t k = 0; k < lf.size(); k++) {
            const Expr v = Variable::make(Int(32), lg[k]->name);
            guard_g = guard_g.defined() ? And::make(guard_g, within(v, lg[k])) : within(v, lg[k]);
            guard_f = guard_f.defined() ? And::make(guard_f, within(v, lf[k])) : within(v, lf[k]);
        }
        Stmt body_f = lf.back()->body;
        for (size_t k = lf.size(); k-- > 0;) body_f = LetStmt::make(lf[k]->name, Variable::make(Int(32), lg[k]->name), body_f);
        Stmt fused = Block::make(IfThenElse::make(guard_g, lg.back()->body), IfThenElse::make(guard_f, body_f));
        for (size_t k = lf.size(); k-- > 0;) {
            const Expr mn = Min::make(lf[k]->min, lg[k]->min);
            const Expr end = Max::make(Add::make(lf[k]->min, lf[k]->extent), Add::make(lg[k]->min, lg[k]->extent));
            fused = For::make(lg[k]->name, mn, Sub::make(end, mn), lg[k]->for_type, fused, lg[k]->loop);
        }
        // The later produce (of the Func planned later: its realization is inside the
        // other's) gets the fused nest; the other computes nothing.
        const bool g_later = q > &p;  // plans are in program order
        s = ReplaceProduce(g_later ? q->storage : p.storage, fused).mutate(s);
        s = ReplaceProduce(g_later ? p.storage : q->storage, Evaluate::make(IntImm::make(Int(32), 0))).mutate(s);
    }
    return s;
}

}  // namespace tessera::lower
