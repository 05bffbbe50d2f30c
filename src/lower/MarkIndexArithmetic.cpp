// Index arithmetic is marked. Lowering computes coordinates, loop bounds and regions with
// the interval analysis and the index simplifier, which take int32 coordinate arithmetic
// to be arithmetic on integers (src/analysis/Interval.h), and widens coordinates into
// 64-bit element offsets operation by operation (src/lower/WidenIndices.cpp): the code is
// right as long as that arithmetic does not leave the int32 range. This pass records the
// assumption where it is made, so that the IR interpreter can check it and the validator
// can rely on it or prove it: every +, - and * (Add/Sub/Mul::no_overflow) that
//
//   * computes an index: in the index of a load or a store, the bounds of a loop, the
//     extents of an allocation, the condition of an if (guards and partition bounds), or
//     the value of a let that flows into one of these; and
//   * is int32 arithmetic, or int64 arithmetic on widened int32 values and constants (a
//     coordinate computed in 64 bits; an element offset's multiplication by a stride is
//     not one), and
//   * computes from coordinates, not from data: no operand reads memory or a let whose
//     value does (a data-dependent index wraps as the algorithm says; lowering bounds it
//     by the clamps the algorithm must have, not by this assumption), and none holds a
//     constant of 2^30 or more in magnitude, directly or through a let (no coordinate
//     reaches it: such arithmetic is the algorithm's own, which wraps, and the interval
//     analysis does not take it for integers either, src/analysis/Interval.h).
//
// The stored values and everything they compute are the algorithm's arithmetic, which
// wraps, and are never marked. What makes the assumption hold at run time is checked once
// at the pipeline's entry (src/lower/BufferArgumentChecks.cpp, docs/semantics.md §11).

#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "analysis/ConstMath.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** The variables an expression uses, and whether it is computed from something other
 * than coordinates: it reads memory, or holds a constant no coordinate reaches. */
struct Uses : IRVisitor {
    std::set<std::string> vars;
    bool not_coordinates = false;
    using IRVisitor::include;
    void visit(const Variable *op) override { vars.insert(op->name); }
    void visit(const Load *op) override {
        not_coordinates = true;
        IRVisitor::visit(op);
    }
    void visit(const IntImm *op) override {
        // Marked int64 arithmetic computes int32 coordinates too: int32's limit for both.
        if (analysis::detail::beyond_coordinates(Int(32), op->value)) not_coordinates = true;
    }
};

/** The lets of the statement (names are bound once), which of them hold data (read memory
 * or hold a constant no coordinate reaches, directly or through another let), and the
 * expressions in index positions. */
class Classify : public IRVisitor {
public:
    std::map<std::string, Expr> lets;
    std::set<std::string> data;
    std::set<std::string> index_lets;
    using IRVisitor::include;

    /** The lets whose values flow into index positions, transitively. */
    void finish() {
        std::vector<std::string> work(index_lets.begin(), index_lets.end());
        while (!work.empty()) {
            const std::string v = work.back();
            work.pop_back();
            auto it = lets.find(v);
            if (it == lets.end()) continue;
            Uses u;
            u.include(it->second);
            for (const std::string &w : u.vars)
                if (lets.count(w) && index_lets.insert(w).second) work.push_back(w);
        }
    }

protected:
    void visit(const LetStmt *op) override {
        define(op->name, op->value);
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        define(op->name, op->value);
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        index(op->index);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        index(op->index);
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        index(op->min);
        index(op->extent);
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) index(e);
        IRVisitor::visit(op);
    }
    void visit(const IfThenElse *op) override {
        index(op->condition);
        IRVisitor::visit(op);
    }

private:
    void define(const std::string &name, const Expr &value) {
        lets[name] = value;
        Uses u;
        u.include(value);
        bool d = u.not_coordinates;
        for (const std::string &v : u.vars) d = d || data.count(v);
        if (d) data.insert(name);
    }
    void index(const Expr &e) {
        Uses u;
        u.include(e);
        for (const std::string &v : u.vars)
            if (lets.count(v)) index_lets.insert(v);
    }
};

class Mark : public IRMutator {
public:
    explicit Mark(const Classify &c) : c_(c) {}

protected:
    // Index positions.
    Expr visit(const Load *op, const Expr &self) override {
        Expr i = index(op->index);
        return i.same_as(op->index) ? self : Load::make(op->type, op->buffer, i);
    }
    Stmt visit(const Store *op, const Stmt &self) override {
        Expr v = mutate(op->value), i = index(op->index);
        if (v.same_as(op->value) && i.same_as(op->index)) return self;
        return Store::make(op->buffer, v, i, op->provenance);
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Expr mn = index(op->min), ex = index(op->extent);
        Stmt body = mutate(op->body);
        if (mn.same_as(op->min) && ex.same_as(op->extent) && body.same_as(op->body)) return self;
        return For::make(op->name, mn, ex, op->for_type, body, op->loop);
    }
    Stmt visit(const Allocate *op, const Stmt &self) override {
        std::vector<Expr> extents;
        bool changed = false;
        for (const Expr &e : op->extents) {
            extents.push_back(index(e));
            changed = changed || !extents.back().same_as(e);
        }
        Stmt body = mutate(op->body);
        if (!changed && body.same_as(op->body)) return self;
        return Allocate::make(op->name, op->type, extents, body);
    }
    Stmt visit(const IfThenElse *op, const Stmt &self) override {
        Expr c = index(op->condition);
        Stmt t = mutate(op->then_case), e = mutate(op->else_case);
        if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) return self;
        return IfThenElse::make(c, t, e);
    }
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        Expr v = c_.index_lets.count(op->name) ? index(op->value) : mutate(op->value);
        Stmt body = mutate(op->body);
        if (v.same_as(op->value) && body.same_as(op->body)) return self;
        return LetStmt::make(op->name, v, body);
    }
    Expr visit(const Let *op, const Expr &self) override {
        Expr v = c_.index_lets.count(op->name) ? index(op->value) : mutate(op->value);
        Expr body = mutate(op->body);
        if (v.same_as(op->value) && body.same_as(op->body)) return self;
        return Let::make(op->name, v, body);
    }

    // In an index position, coordinate arithmetic is marked.
    Expr visit(const Add *op, const Expr &self) override { return arith(op, self); }
    Expr visit(const Sub *op, const Expr &self) override { return arith(op, self); }
    Expr visit(const Mul *op, const Expr &self) override { return arith(op, self); }

private:
    Expr index(const Expr &e) {
        in_index_++;
        Expr r = mutate(e);
        in_index_--;
        return r;
    }

    template<typename T>
    Expr arith(const T *op, const Expr &self) {
        Expr a = mutate(op->a), b = mutate(op->b);
        const bool mark = in_index_ > 0 && !op->no_overflow && coordinate(op->a) && coordinate(op->b) &&
                          (op->type.element_of() == Int(32) || (op->type.element_of() == Int(64) &&
                                                                widened(op->a) && widened(op->b)));
        if (!mark && a.same_as(op->a) && b.same_as(op->b)) return self;
        return T::make(a, b, op->no_overflow || mark);
    }

    /** Computed from coordinates: reads no memory and holds no constant beyond them,
     * directly or through a let. */
    bool coordinate(const Expr &e) {
        auto it = coordinate_.find(e.get());
        if (it != coordinate_.end()) return it->second;
        Uses u;
        u.include(e);
        bool c = !u.not_coordinates;
        for (const std::string &v : u.vars) c = c && !c_.data.count(v);
        return coordinate_[e.get()] = c;
    }

    /** An int64 coordinate: int32 values widened, int64 constants, and +, -, * of them. */
    static bool widened(const Expr &e) {
        if (const Cast *c = as<Cast>(e)) return c->value.type().element_of() == Int(32);
        if (as<IntImm>(e)) return true;
        if (const Broadcast *b = as<Broadcast>(e)) return widened(b->value);
        if (const Ramp *r = as<Ramp>(e)) return widened(r->base) && widened(r->stride);
        if (const Add *a = as<Add>(e)) return widened(a->a) && widened(a->b);
        if (const Sub *s = as<Sub>(e)) return widened(s->a) && widened(s->b);
        if (const Mul *m = as<Mul>(e)) return widened(m->a) && widened(m->b);
        return false;
    }

    const Classify &c_;
    int in_index_ = 0;
    std::unordered_map<const ExprNode *, bool> coordinate_;  // nodes of the statement being marked
};

}  // namespace

std::set<std::string> index_lets(const Stmt &s) {
    Classify c;
    c.include(s);
    c.finish();
    return c.index_lets;
}

Stmt mark_index_arithmetic(Stmt s) {
    Classify c;
    c.include(s);
    c.finish();
    Mark m(c);
    return m.mutate(s);
}

}  // namespace tessera::lower
