// Vectorization: a loop marked Vectorized, of constant extent N, becomes its body run once
// on N lanes. The loop variable becomes the vector Ramp(min, 1, N); every expression that
// depends on it becomes an N-lane vector (scalar operands are broadcast), lets of such
// values become vector lets, and loads and stores at vector indices become vector loads
// and stores (dense, strided or gathered: the C emitter picks the instruction). Store
// annotations get one coordinate per lane.
//
// A Func computed inside the vectorized loop (an inline reduction, or any Func with an
// update, computed at the innermost loop of its consumer, as Halide does) runs on lanes
// too: each lane gets its own copy of the allocation (lane-innermost, so a point's lanes
// are adjacent and its loads and stores dense), and a loop whose start differs between
// lanes but whose number of iterations does not (the Func's loops over the consumer's
// point) runs as a loop over the offset from each lane's start.
//
// A body that cannot run as lanes keeps the loop, run serially (same results): a branch
// or a loop extent that differs between lanes, an allocation whose size does, an
// assertion on lane values, or a store whose index is the same for every lane while its
// value is not. Loop partitioning runs first, so the steady state of a GuardWithIf split
// carries no branch.

#include <algorithm>
#include <set>

#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"
#include "tessera/IROperator.h"

namespace tessera::lower {

using namespace ir;

namespace {

struct CannotVectorize {};

Expr widen(const Expr &e, int lanes) {
    if (e.type().lanes == lanes) return e;
    return Broadcast::make(e, lanes);
}

class Widen : public IRMutator {
public:
    Widen(const std::string &var, const Expr &ramp, int lanes) : lanes_(lanes) { scope_[var].push_back(ramp); }

    using IRMutator::mutate;

protected:
    Expr visit(const Variable *op, const Expr &self) override {
        auto it = scope_.find(op->name);
        if (it == scope_.end() || it->second.empty() || !it->second.back().defined()) return self;
        return it->second.back();
    }

    // Sums, differences and products of ramps and broadcasts stay ramps and broadcasts
    // (lane i of ramp(b, s) + broadcast(c) is (b + c) + i * s, wrap-around included), so
    // that indices along the vectorized loop are recognisably dense.
    Expr visit(const Add *op, const Expr &self) override { return affine(op, self, op->a, op->b, ExprKind::Add); }
    Expr visit(const Sub *op, const Expr &self) override { return affine(op, self, op->a, op->b, ExprKind::Sub); }
    Expr visit(const Mul *op, const Expr &self) override { return affine(op, self, op->a, op->b, ExprKind::Mul); }

    Expr affine(const ExprNode *, const Expr &self, const Expr &oa, const Expr &ob, ExprKind k) {
        Expr a = mutate(oa), b = mutate(ob);
        if (a.same_as(oa) && b.same_as(ob)) return self;
        const int n = std::max(int(a.type().lanes), int(b.type().lanes));
        a = widen(a, n);
        b = widen(b, n);
        auto op = [&](const Expr &x, const Expr &y) {
            return k == ExprKind::Add ? Add::make(x, y) : k == ExprKind::Sub ? Sub::make(x, y) : Mul::make(x, y);
        };
        const Broadcast *ba = as<Broadcast>(a), *bb = as<Broadcast>(b);
        const Ramp *ra = as<Ramp>(a), *rb = as<Ramp>(b);
        if (ba && bb) return Broadcast::make(op(ba->value, bb->value), n);
        if (k == ExprKind::Mul) {
            if (ra && bb && testing::injects(testing::Mutation::VectorRampStrideNotScaled))
                return Ramp::make(op(ra->base, bb->value), ra->stride, n);
            if (ra && bb) return Ramp::make(op(ra->base, bb->value), op(ra->stride, bb->value), n);
            if (ba && rb) return Ramp::make(op(ba->value, rb->base), op(ba->value, rb->stride), n);
        } else {
            const Expr zero = make_zero(a.type().element_of());
            if (ra && bb) return Ramp::make(op(ra->base, bb->value), ra->stride, n);
            if (ba && rb) return Ramp::make(op(ba->value, rb->base), op(zero, rb->stride), n);
            if (ra && rb) return Ramp::make(op(ra->base, rb->base), op(ra->stride, rb->stride), n);
        }
        return op(a, b);
    }

#define TESSERA_WIDEN_BINARY(N)                                              \
    Expr visit(const N *op, const Expr &self) override {                     \
        Expr a = mutate(op->a), b = mutate(op->b);                           \
        if (a.same_as(op->a) && b.same_as(op->b)) return self;               \
        const int n = std::max(int(a.type().lanes), int(b.type().lanes));   \
        return N::make(widen(a, n), widen(b, n));                           \
    }
    TESSERA_WIDEN_BINARY(Div)
    TESSERA_WIDEN_BINARY(Mod)
    TESSERA_WIDEN_BINARY(EQ)
    TESSERA_WIDEN_BINARY(NE)
    TESSERA_WIDEN_BINARY(LT)
    TESSERA_WIDEN_BINARY(LE)
    TESSERA_WIDEN_BINARY(GT)
    TESSERA_WIDEN_BINARY(GE)
    TESSERA_WIDEN_BINARY(And)
    TESSERA_WIDEN_BINARY(Or)
#undef TESSERA_WIDEN_BINARY

    // The min or max of two ramps of one stride is a ramp (lane i: min(a + i s, b + i s) =
    // min(a, b) + i s): the start of a Func's region at a vector of consecutive points.
    Expr visit(const Min *op, const Expr &self) override { return extremum(op->a, op->b, self, false); }
    Expr visit(const Max *op, const Expr &self) override { return extremum(op->a, op->b, self, true); }

    Expr extremum(const Expr &oa, const Expr &ob, const Expr &self, bool is_max) {
        Expr a = mutate(oa), b = mutate(ob);
        if (a.same_as(oa) && b.same_as(ob)) return self;
        auto op = [&](const Expr &x, const Expr &y) { return is_max ? Max::make(x, y) : Min::make(x, y); };
        const Ramp *ra = as<Ramp>(a), *rb = as<Ramp>(b);
        if (ra && rb && ra->lanes == rb->lanes && equal(ra->stride, rb->stride))
            return Ramp::make(op(ra->base, rb->base), ra->stride, ra->lanes);
        const int n = std::max(int(a.type().lanes), int(b.type().lanes));
        return op(widen(a, n), widen(b, n));
    }

    Expr visit(const Cast *op, const Expr &self) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return self;
        if (const Broadcast *b = as<Broadcast>(v)) return Broadcast::make(Cast::make(op->type, b->value), b->lanes);
        // Widening an index ramp: coordinates do not overflow (src/analysis/Interval.h).
        const Ramp *r = as<Ramp>(v);
        if (r && op->type == Int(64) && r->base.type() == Int(32))
            return Ramp::make(Cast::make(Int(64), r->base), Cast::make(Int(64), r->stride), r->lanes);
        return Cast::make(op->type.with_lanes(v.type().lanes), v);
    }

    Expr visit(const Not *op, const Expr &self) override {
        Expr a = mutate(op->a);
        return a.same_as(op->a) ? self : Not::make(a);
    }

    Expr visit(const Load *op, const Expr &self) override {
        Expr i = mutate(op->index);
        if (per_lane_.count(op->buffer)) i = lane_index(i);
        if (i.same_as(op->index)) return self;
        if (const Ramp *r = as<Ramp>(i); r && testing::injects(testing::Mutation::VectorLoadLanesReversed)) {
            // The last lane's element first.
            const Expr last = Add::make(r->base, Mul::make(r->stride, IntImm::make(r->stride.type(), r->lanes - 1)));
            i = Ramp::make(last, Sub::make(make_zero(r->stride.type()), r->stride), r->lanes);
        }
        return Load::make(op->type.with_lanes(i.type().lanes), op->buffer, i);
    }

    Expr visit(const Select *op, const Expr &self) override {
        Expr c = mutate(op->condition), a = mutate(op->true_value), b = mutate(op->false_value);
        if (c.same_as(op->condition) && a.same_as(op->true_value) && b.same_as(op->false_value)) return self;
        const int n = std::max({int(c.type().lanes), int(a.type().lanes), int(b.type().lanes)});
        return Select::make(widen(c, n), widen(a, n), widen(b, n));
    }

    Expr visit(const Call *op, const Expr &self) override {
        std::vector<Expr> args;
        bool changed = false;
        int n = 1;
        for (const Expr &a : op->args) {
            args.push_back(mutate(a));
            changed = changed || !args.back().same_as(a);
            n = std::max(n, int(args.back().type().lanes));
        }
        if (!changed) return self;
        if (op->call_kind != CallKind::Intrinsic) throw CannotVectorize();  // lowered code has no calls
        for (Expr &a : args)
            if (!as<StringImm>(a)) a = widen(a, n);  // a print's text stays one string
        return Call::make_intrinsic(op->type.with_lanes(n), op->op, args);
    }

    Expr visit(const Let *op, const Expr &self) override {
        Expr v = mutate(op->value);
        bind(op->name, v);
        Expr b = mutate(op->body);
        scope_[op->name].pop_back();
        if (v.same_as(op->value) && b.same_as(op->body)) return self;
        return Let::make(op->name, v, b);
    }

    Stmt visit(const LetStmt *op, const Stmt &self) override {
        Expr v = mutate(op->value);
        bind(op->name, v);
        Stmt b = mutate(op->body);
        scope_[op->name].pop_back();
        if (v.same_as(op->value) && b.same_as(op->body)) return self;
        return LetStmt::make(op->name, v, b);
    }

    Stmt visit(const Store *op, const Stmt &self) override {
        Expr v = mutate(op->value), i = mutate(op->index);
        if (per_lane_.count(op->buffer)) i = lane_index(i);
        if (v.same_as(op->value) && i.same_as(op->index)) {
            // The same value into the same cell in every lane (storage folded to one cell,
            // a value that does not vary): the points of the lanes differ, so the store is
            // one per lane, each annotated with its lane's point.
            if (!point_varies(op->provenance)) return self;
            return Store::make(op->buffer, Broadcast::make(v, lanes_), Broadcast::make(i, lanes_), mutate_provenance(op->provenance));
        }
        // All lanes writing one point with different values would race.
        if (i.type().lanes == 1) throw CannotVectorize();
        const int n = i.type().lanes;
        return Store::make(op->buffer, widen(v, n), i, mutate_provenance(op->provenance));
    }

    /** Whether the point a store's annotation names varies across the lanes. */
    bool point_varies(const std::shared_ptr<const Provenance> &p) {
        if (!p) return false;
        for (const Expr &c : p->coords)
            if (mutate(c).type().lanes > 1) return true;
        for (const auto &[name, value] : p->rvars)
            if (mutate(value).type().lanes > 1) return true;
        return false;
    }

    std::shared_ptr<const Provenance> mutate_provenance(const std::shared_ptr<const Provenance> &p) override {
        if (!p) return p;
        auto q = std::make_shared<Provenance>(*p);
        for (Expr &c : q->coords) c = widen(mutate(c), lanes_);
        for (auto &[name, value] : q->rvars) value = widen(mutate(value), lanes_);
        return q;
    }

    Stmt visit(const IfThenElse *op, const Stmt &self) override {
        Expr c = mutate(op->condition);
        if (c.type().lanes > 1) throw CannotVectorize();
        return IRMutator::visit(op, self);
    }

    Stmt visit(const For *op, const Stmt &self) override {
        Expr mn = mutate(op->min), ex = mutate(op->extent);
        if (ex.type().lanes > 1) ex = lane_uniform(ex);
        if (!ex.defined()) throw CannotVectorize();
        if (mn.type().lanes > 1) {
            // Each lane starts elsewhere, all run ex iterations: loop over the offset k,
            // and the loop variable is the vector start + k.
            const std::string k = op->name + ".offset";
            Stmt inner = LetStmt::make(op->name, Add::make(op->min, Variable::make(op->min.type(), k)), op->body);
            bind(k, Expr());
            Stmt body = mutate(inner);
            scope_[k].pop_back();
            return For::make(k, make_zero(op->min.type()), ex, ForType::Serial, body, op->loop);
        }
        bind(op->name, Expr());
        Stmt body = mutate(op->body);
        scope_[op->name].pop_back();
        // Lanes inside lanes, or threads inside lanes: the inner loop runs serially.
        ForType t = op->for_type == ForType::Vectorized || op->for_type == ForType::Parallel ? ForType::Serial
                                                                                            : op->for_type;
        if (body.same_as(op->body) && t == op->for_type && mn.same_as(op->min) && ex.same_as(op->extent)) return self;
        return For::make(op->name, mn, ex, t, body, op->loop);
    }

    Stmt visit(const Allocate *op, const Stmt &) override {
        // One copy per lane, the lane innermost.
        std::vector<Expr> extents;
        for (const Expr &e : op->extents) {
            Expr u = mutate(e);
            if (u.type().lanes > 1) u = lane_uniform(u);
            if (!u.defined()) throw CannotVectorize();
            extents.push_back(u);
        }
        extents.push_back(IntImm::make(extents.empty() ? Int(64) : extents.back().type(), lanes_));
        per_lane_.insert(op->name);
        Stmt body = mutate(op->body);
        per_lane_.erase(op->name);
        return Allocate::make(op->name, op->type, extents, body);
    }
    // An assertion (a lifted require) whose condition varies by lane holds if it holds on
    // every lane: the C emitter and the IR interpreter check them all; its message shows
    // the vector values.

private:
    /** The scalar value of a vector expression whose lanes are provably all equal (a
     * broadcast, a ramp of stride 0, operations on those), or an undefined Expr. */
    Expr lane_uniform(const Expr &e) {
        if (e.type().lanes == 1) return e;
        if (const Broadcast *b = as<Broadcast>(e)) return b->value;
        if (const Ramp *r = as<Ramp>(e)) {
            const IntImm *stride = as<IntImm>(analysis::simplify(r->stride));
            return stride && stride->value == 0 ? r->base : Expr();
        }
        auto both = [&](const Expr &a, const Expr &b, auto make) -> Expr {
            Expr ua = lane_uniform(a), ub = lane_uniform(b);
            return ua.defined() && ub.defined() ? make(ua, ub) : Expr();
        };
        if (const Add *o = as<Add>(e)) return both(o->a, o->b, [](Expr a, Expr b) { return Add::make(a, b); });
        if (const Sub *o = as<Sub>(e)) return both(o->a, o->b, [](Expr a, Expr b) { return Sub::make(a, b); });
        if (const Mul *o = as<Mul>(e)) return both(o->a, o->b, [](Expr a, Expr b) { return Mul::make(a, b); });
        if (const Min *o = as<Min>(e)) return both(o->a, o->b, [](Expr a, Expr b) { return Min::make(a, b); });
        if (const Max *o = as<Max>(e)) return both(o->a, o->b, [](Expr a, Expr b) { return Max::make(a, b); });
        if (const Cast *o = as<Cast>(e)) {
            Expr u = lane_uniform(o->value);
            return u.defined() ? Cast::make(o->type.element_of(), u) : Expr();
        }
        return Expr();
    }

    /** The index of a point's lanes in an allocation with one copy per lane:
     * index * lanes + lane. */
    Expr lane_index(const Expr &index) {
        const Type t = index.type().element_of();
        const Expr n = IntImm::make(t, lanes_);
        const Broadcast *b = as<Broadcast>(index);
        if (b || index.type().lanes == 1) return Ramp::make(Mul::make(b ? b->value : index, n), IntImm::make(t, 1), lanes_);
        if (const Ramp *r = as<Ramp>(index))
            return Ramp::make(Mul::make(r->base, n), Add::make(Mul::make(r->stride, n), IntImm::make(t, 1)), lanes_);
        return Add::make(Mul::make(index, Broadcast::make(n, lanes_)), Ramp::make(make_zero(t), IntImm::make(t, 1), lanes_));
    }

    /** A let or loop variable: a vector value makes it a vector variable; a scalar one
     * (or a loop) hides an outer binding of the same name. */
    void bind(const std::string &name, const Expr &value) {
        if (value.defined() && (as<Ramp>(value) || as<Broadcast>(value)))
            scope_[name].push_back(value);  // uses see the ramp itself (and the let goes unused)
        else if (value.defined() && value.type().lanes > 1)
            scope_[name].push_back(Variable::make(value.type(), name));
        else
            scope_[name].push_back(Expr());
    }

    int lanes_;
    std::map<std::string, std::vector<Expr>> scope_;
    std::set<std::string> per_lane_;  // allocations inside the vector loop: one copy per lane
};

bool has_vectors(const Stmt &s) {
    struct Find : IRVisitor {
        bool found = false;
        using IRVisitor::include;
        void visit(const Ramp *) override { found = true; }
        void visit(const Broadcast *) override { found = true; }
    } f;
    f.include(s);
    return f.found;
}

class Vectorize : public IRMutator {
protected:
    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        if (op->for_type != ForType::Vectorized)
            return body.same_as(op->body) ? self : For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
        const Expr extent = analysis::simplify(op->extent);
        const IntImm *n = as<IntImm>(extent);
        if (!n)
            throw CompileError("Can't vectorize " + describe_loop(op) + ": its extent is " +
                               to_string(extent) +
                               ", which is not a constant. Vectorize a loop of constant extent: split it by the "
                               "vector width first with vectorize(var, width), or fix its extent with bound()");
        if (n->value <= 1) return For::make(op->name, op->min, extent, ForType::Serial, body, op->loop);
        if (n->value > 64)
            throw CompileError("Can't vectorize " + describe_loop(op) + " of " + std::to_string(n->value) +
                               " iterations: at most 64 lanes are supported; split it by a smaller width");
        const int lanes = int(n->value);
        if (has_vectors(body)) {
            // Lanes inside lanes (a vectorized loop inside this one): the outer loop runs
            // serially around the inner vector code.
            return For::make(op->name, op->min, extent, ForType::Serial, body, op->loop);
        }
        try {
            Widen w(op->name, Ramp::make(op->min, IntImm::make(op->min.type(), 1), lanes), lanes);
            return w.mutate(body);
        } catch (const CannotVectorize &) {
            return For::make(op->name, op->min, extent, ForType::Serial, body, op->loop);
        }
    }
};

}  // namespace

Stmt vectorize_loops(Stmt s) {
    Vectorize v;
    return v.mutate(s);
}

}  // namespace tessera::lower
