// Guard elimination: an if whose condition compares coordinates and holds in every
// iteration of the enclosing loops is replaced by its body (after unrolling, the guards of
// full tiles). Conditions are solved as non-negative differences, in 64 bits
// (analysis::nonnegative_difference, src/analysis/Inequality.h), bounded over the loops' ranges with the lets between
// substituted.

#include "analysis/Inequality.h"
#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** Removes the ifs whose condition compares coordinates and holds for every value of the
 * enclosing loops (after unrolling, the guards of full tiles). */
class EliminateGuards : public IRMutator {
protected:
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        lets_.emplace_back(op->name, op->value);
        Stmt s = IRMutator::visit(op, self);
        lets_.pop_back();
        return s;
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Expr extent = op->extent;
        if (const Max *m = as<Max>(extent)) extent = m->a;  // max(e, 0): e iterations when positive
        scope_.push(op->name, analysis::Interval{op->min, analysis::simplify_index(Sub::make(
                                                              Add::make(op->min, extent), IntImm::make(op->min.type(), 1)))});
        Stmt s = IRMutator::visit(op, self);
        scope_.pop(op->name);
        return s;
    }
    Stmt visit(const IfThenElse *op, const Stmt &self) override {
        if (!op->else_case.defined() && always_true(op->condition)) return mutate(op->then_case);
        return IRMutator::visit(op, self);
    }

private:
    bool always_true(const Expr &cond) {
        // In 64 bits: the condition may hold constants near the ends of int32.
        const Expr written = substitute_lets(lets_, cond);
        if (!written.defined()) return false;
        Expr d = analysis::nonnegative_difference(written);
        if (!d.defined()) return false;
        d = analysis::simplify_index(d);
        int64_t lo, hi;
        if (analysis::const_bounds(d, lo, hi) && lo >= 0) return true;
        const analysis::Interval r = analysis::bounds_of_expr(d, scope_);
        const IntImm *c = r.min.defined() ? as<IntImm>(analysis::simplify_index(r.min)) : nullptr;
        return c && c->value >= 0;
    }

    std::vector<std::pair<std::string, Expr>> lets_;
    analysis::Scope scope_;
};

}  // namespace

Stmt eliminate_guards(Stmt s) {
    EliminateGuards e;
    return e.mutate(s);
}

}  // namespace tessera::lower
