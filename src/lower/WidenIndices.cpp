// Index widening: the int32 coordinates inside the int64 element offsets of loads and
// stores are widened operation by operation (int64(x + 8) becomes int64(x) + 8), so that
// the C compiler sees accesses a constant distance apart.

#include "ir/IRMutator.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

Expr i64(const Expr &e) { return e.type() == Int(64) ? e : Cast::make(Int(64), e); }

/** Rewrites the element offsets of loads and stores with widen_coordinate inside their
 * int64 casts. */
class WidenIndices : public IRMutator {
protected:
    Expr visit(const Cast *op, const Expr &self) override {
        if (op->type == Int(64) && op->value.type() == Int(32) && index_depth_ > 0) return widen_coordinate(mutate(op->value));
        return IRMutator::visit(op, self);
    }
    Expr visit(const Load *op, const Expr &self) override {
        index_depth_++;
        Expr index = mutate(op->index);
        index_depth_--;
        return index.same_as(op->index) ? self : Load::make(op->type, op->buffer, index);
    }
    Stmt visit(const Store *op, const Stmt &self) override {
        Expr value = mutate(op->value);
        index_depth_++;
        Expr index = mutate(op->index);
        index_depth_--;
        return value.same_as(op->value) && index.same_as(op->index) ? self
                                                                     : Store::make(op->buffer, value, index, op->provenance);
    }

private:
    int index_depth_ = 0;
};

}  // namespace

/** An int32 coordinate widened to int64 with the widening pushed through + and - and * by
 * a constant (not into min and max, which stay int32 for loop partitioning to see clamps): int64(x + 8) becomes int64(x) + 8, equal because coordinate
 * arithmetic does not overflow (the contract of index expressions). The C compiler then
 * sees that two accesses x and x + 8 are 8 elements apart, which it cannot know through an
 * int32 addition that might wrap; that lets it keep accumulators in registers. */
Expr widen_coordinate(const Expr &e) {
    if (e.type() != Int(32)) return i64(e);
    if (const IntImm *c = as<IntImm>(e)) return IntImm::make(Int(64), c->value);
    if (const Add *a = as<Add>(e)) return Add::make(widen_coordinate(a->a), widen_coordinate(a->b));
    if (const Sub *d = as<Sub>(e)) return Sub::make(widen_coordinate(d->a), widen_coordinate(d->b));
    if (const Mul *m = as<Mul>(e); m && as<IntImm>(m->b)) return Mul::make(widen_coordinate(m->a), widen_coordinate(m->b));
    return i64(e);
}

Stmt widen_indices(Stmt s) { return WidenIndices().mutate(s); }

}  // namespace tessera::lower
