// Vectorized and unrolled loops need a constant extent. A Func computed inside a loop that a
// GuardWithIf split guards gets a region that shrinks in the last tile (its extent is
// min(y + 3, y.max) - y + 1, not 4), so its vectorized or unrolled loops have a variable
// extent with a constant upper bound K. Such a loop becomes
//
//     if (extent >= K) loop over K iterations, vectorized or unrolled
//     else             the same loop over `extent` iterations, serial
//
// The bound comes from the extent with the enclosing lets substituted, differences pushed
// into min and max (min(a, b) - c = min(a - c, b - c), exact on integers that do not
// overflow, the contract of index arithmetic), simplified, and bounded by constant interval
// analysis.

#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** Pushes + and - of a term into min and max operands (after substitution of lets). */
class Distribute : public IRMutator {
protected:
    Expr visit(const Add *op, const Expr &self) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr d = push(a, b, false); d.defined()) return d;
        if (Expr d = push(b, a, false); d.defined()) return d;
        return a.same_as(op->a) && b.same_as(op->b) ? self : Add::make(a, b);
    }
    Expr visit(const Sub *op, const Expr &self) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr d = push(a, b, true); d.defined()) return d;
        return a.same_as(op->a) && b.same_as(op->b) ? self : Sub::make(a, b);
    }

private:
    /** min(x, y) +- c -> min(x +- c, y +- c) (and max). */
    Expr push(const Expr &m, const Expr &c, bool sub) {
        auto apply = [&](const Expr &x) { return mutate(sub ? Sub::make(x, c) : Add::make(x, c)); };
        if (const Min *mn = as<Min>(m)) return Min::make(apply(mn->a), apply(mn->b));
        if (const Max *mx = as<Max>(m)) return Max::make(apply(mx->a), apply(mx->b));
        return Expr();
    }
};

class BoundLoops : public IRMutator {
protected:
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        lets_.emplace_back(op->name, op->value);
        Stmt body = mutate(op->body);
        lets_.pop_back();
        return body.same_as(op->body) ? self : LetStmt::make(op->name, op->value, body);
    }

    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        Stmt same = body.same_as(op->body) ? self : For::make(op->name, op->min, op->extent, op->for_type, body);
        if (op->for_type != ForType::Vectorized && op->for_type != ForType::Unrolled) return same;
        const Expr extent = analysis::simplify(op->extent);
        if (as<IntImm>(extent)) return same;
        Expr e = extent;
        for (auto it = lets_.rbegin(); it != lets_.rend(); ++it) e = substitute(it->first, it->second, e);
        Distribute d;
        e = analysis::simplify_index(d.mutate(analysis::simplify_index(e)));
        int64_t lo = 0, hi = 0;
        if (!analysis::const_bounds(e, lo, hi) || hi <= 0 || hi > 1024) return same;
        const Expr k = IntImm::make(op->extent.type(), hi);
        return IfThenElse::make(GE::make(op->extent, k), For::make(op->name, op->min, k, op->for_type, body),
                                For::make(op->name, op->min, op->extent, ForType::Serial, body));
    }

private:
    std::vector<std::pair<std::string, Expr>> lets_;
};

}  // namespace

Stmt bound_constant_extent_loops(Stmt s) {
    BoundLoops b;
    return b.mutate(s);
}

}  // namespace tessera::lower
