// Float contraction, opt-in (the target's fp_contract feature; docs/semantics.md, "Float
// contraction"): a float multiply whose product is added at once becomes one fused
// multiply-add, fma(a, b, c) = a * b + c rounded once. (A product subtracted is left
// alone: its negation as 0 - x would turn a -0 into +0.) The reference interpreter
// still defines the algorithm's value with two roundings, so contracted code matches it
// only to within rounding; it computes exactly what this IR says (the interpreter's fma is
// the C library's), and the validator, given the same IR, sees the difference.

#include "ir/IRMutator.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class ContractFloats : public IRMutator {
protected:
    using IRMutator::visit;

    Expr visit(const Add *op, const Expr &self) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (op->type.is_float()) {
            if (const Mul *m = as<Mul>(a)) return fma(m->a, m->b, b);
            if (const Mul *m = as<Mul>(b)) return fma(m->a, m->b, a);
        }
        return a.same_as(op->a) && b.same_as(op->b) ? self : Add::make(std::move(a), std::move(b));
    }

private:
    static Expr fma(const Expr &a, const Expr &b, const Expr &c) {
        return Call::make_intrinsic(a.type(), Intrinsic::Fma, {a, b, c});
    }
};

}  // namespace

Stmt contract_floats(Stmt s) { return ContractFloats().mutate(s); }

}  // namespace tessera::lower
