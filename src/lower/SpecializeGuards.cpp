// Guard specialization: the guards inside a vector loop that loop partitioning could not
// peel (their condition depends on an outer loop through a division, a modulo or a clamp,
// as in a fused tile loop) are decided once for all the lanes:
//
//     vectorized for (v ...) { if (x < x.max + 1) s }
//  -> if (the guard holds for every lane) vectorized for (v ...) { s }
//     else                                 vectorized for (v ...) { if (x < x.max + 1) s }
//
// The first copy becomes vector code; the second runs lane by lane. "Holds for every lane"
// is d >= 0 for d = b - a - 1 (a < b), with the lets inside the loop substituted and the
// loop variable bounded by interval analysis.

#include <set>

#include "analysis/Inequality.h"
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

/** The guards directly in a loop body (inside vectorized or unrolled loops, not inside
 * other serial loops), each with the condition that makes it hold for every iteration of
 * the loops inside. */
class Guards : public IRVisitor {
public:
    std::vector<const IfThenElse *> nodes;
    std::vector<Expr> holds;
    /** Guards with no such condition. The copies of an unrolled loop share their body's
     * nodes, so a node may be found several times, with different lets: it is dropped
     * only if every occurrence has its condition. */
    std::set<const IfThenElse *> refused;
    using IRVisitor::include;

protected:
    void visit(const LetStmt *op) override {
        include(op->value);
        lets_.emplace_back(op->name, op->value);
        inner_.insert(op->name);
        include(op->body);
        lets_.pop_back();
    }
    void visit(const For *op) override {
        if (op->for_type == ForType::Serial || op->for_type == ForType::Parallel) return;  // inner serial loops: no
        Expr extent = op->extent;
        if (const Max *m = as<Max>(extent)) extent = m->a;
        loops_.emplace_back(op->name, Interval{op->min, Sub::make(Add::make(op->min, extent), IntImm::make(op->min.type(), 1))});
        inner_.insert(op->name);
        include(op->body);
        loops_.pop_back();
    }
    void visit(const IfThenElse *op) override {
        if (!op->else_case.defined()) {
            Expr c = condition_for_all(op->condition);
            if (c.defined()) {
                nodes.push_back(op);
                holds.push_back(c);
            } else {
                refused.insert(op);
            }
        }
        IRVisitor::visit(op);
    }

private:
    Expr condition_for_all(const Expr &cond) {
        // In 64 bits: the condition may hold constants near the ends of int32.
        const Expr c = substitute_lets(lets_, cond);
        if (!c.defined()) return Expr();
        Expr d = analysis::nonnegative_difference(c);
        if (!d.defined()) return Expr();
        analysis::Scope scope;
        for (auto &[name, iv] : loops_) scope.push(name, iv);
        Interval r = analysis::bounds_of_expr(analysis::simplify_index(d), scope);
        if (!r.min.defined()) return Expr();
        for (const std::string &v : inner_)
            if (uses_var(r.min, v)) return Expr();
        if (reads_memory(r.min)) return Expr();
        // (Saturating to int32 keeps the sign.)
        return GE::make(saturate_to_int32(analysis::simplify_index(r.min)), IntImm::make(Int(32), 0));
    }

    std::vector<std::pair<std::string, Expr>> lets_;
    std::vector<std::pair<std::string, Interval>> loops_;
    std::set<std::string> inner_;
};

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

class Specialize : public IRMutator {
protected:
    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        Stmt loop = body.same_as(op->body) ? self : For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
        if (op->for_type != ForType::Vectorized) return loop;
        // The guards of a vector loop, decided once for all its lanes: the copy without
        // them becomes vector code, the other runs lane by lane.
        Guards g;
        g.include(loop);
        std::set<const IfThenElse *> drop;
        Expr all;
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (g.refused.count(g.nodes[i])) continue;
            drop.insert(g.nodes[i]);
            all = all.defined() ? And::make(all, g.holds[i]) : g.holds[i];
        }
        if (drop.empty()) return loop;
        DropGuards dropper(drop);
        return IfThenElse::make(all, dropper.mutate(loop), loop);
    }
};

}  // namespace

Stmt specialize_guards(Stmt s) {
    Specialize sp;
    return sp.mutate(s);
}

}  // namespace tessera::lower
