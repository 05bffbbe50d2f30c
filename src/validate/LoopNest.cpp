#include "validate/LoopNest.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <map>
#include <set>

#include "analysis/ConstMath.h"
#include "analysis/Inequality.h"
#include "analysis/Simplify.h"
#include "ir/Function.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"
#include "validate/Affine.h"
#include "validate/Recurrence.h"

namespace tessera::validator {

using namespace ir;



/** Whether `node` (an expression or a statement) uses a variable whose name starts with
 * `prefix`, or, if `whole`, is `prefix`. */
template <typename Node>
static bool mentions(const Node &node, const std::string &prefix, bool whole = false) {
    struct Find : IRVisitor {
        const std::string &prefix;
        const bool whole;
        bool found = false;
        Find(const std::string &p, bool w) : prefix(p), whole(w) {}
        using IRVisitor::include;
        void visit(const Variable *op) override {
            found = found || (whole ? op->name == prefix : op->name.compare(0, prefix.size(), prefix) == 0);
        }
    } f(prefix, whole);
    f.include(node);
    return f.found;
}

static bool mentions_prefix(const Expr &e, const std::string &prefix) { return mentions(e, prefix); }

/** A vector expression as the expression of one lane, in terms of the lane variable:
 * ramps become base + stride * lane, broadcasts their value, operators act on lanes. */
Expr lane_of(const Expr &e) {
    struct Lane : IRMutator {
        std::map<const void *, Expr> done;  // by node: e may share subexpressions (expand_lets)
        Expr mutate(const Expr &x) override {
            if (auto it = done.find(x.get()); it != done.end()) return it->second;
            Expr r = IRMutator::mutate(x);
            done.emplace(x.get(), r);
            return r;
        }
        using IRMutator::mutate;
        Expr visit(const Ramp *op, const Expr &) override {
            const Expr b = mutate(op->base), st = mutate(op->stride);
            return Add::make(b, Mul::make(st, Variable::make(st.type(), kLane)));
        }
        Expr visit(const Broadcast *op, const Expr &) override { return mutate(op->value); }
        Expr visit(const Cast *op, const Expr &) override { return Cast::make(op->type.element_of(), mutate(op->value)); }
        Expr visit(const Load *op, const Expr &) override {
            return Load::make(op->type.element_of(), op->buffer, mutate(op->index));
        }
        Expr visit(const Variable *op, const Expr &self) override {
            if (op->type.lanes > 1) throw Unsupported("the vector variable " + op->name);
            return self;
        }
        Expr visit(const Call *op, const Expr &self) override {
            if (op->type.lanes == 1) return IRMutator::visit(op, self);
            // Intrinsics act on each lane.
            if (op->call_kind != CallKind::Intrinsic) throw Unsupported("the vector call " + brief(self));
            std::vector<Expr> args;
            for (const Expr &a : op->args) args.push_back(mutate(a));
            return Call::make_intrinsic(op->type.element_of(), op->op, std::move(args));
        }
    } lane;
    return e.type().lanes > 1 ? lane.mutate(e) : e;
}

/** e (lets expanded) as a Linear in the stride variables of `buffer`; throws Unsupported
 * if a stride is multiplied by another or used otherwise. */
Linear linearize(const Expr &e, const std::string &buffer, const std::vector<std::pair<std::string, Expr>> &stride_values) {
    const std::string prefix = buffer + ".stride.";
    // A stride whose variable was replaced by its value (lets expanded) is recognized by it.
    auto stride_named = [&](const Expr &x) -> std::string {
        for (const auto &[name, value] : stride_values)
            if (equal(x, value)) return name;
        return "";
    };
    auto merge = [](Linear a, const Linear &b, bool negate) {
        for (const auto &[k, c] : b) {
            const Expr term = negate ? Sub::make(analysis::detail::make_const(c.type(), 0), c) : c;
            auto it = a.find(k);
            a[k] = it == a.end() ? term : Add::make(it->second, term);
        }
        return a;
    };
    auto scale = [](Linear a, const Expr &k) {
        for (auto &entry : a) {
            analysis::detail::i128 one = 0;
            const bool unit = analysis::detail::const_int(entry.second, one) && one == 1;
            entry.second = unit ? k : Mul::make(entry.second, k);
        }
        return a;
    };
    if (const Variable *v = as<Variable>(e)) {
        if (v->name.compare(0, prefix.size(), prefix) == 0) return {{v->name, analysis::detail::make_const(e.type(), 1)}};
        return {{"", e}};
    }
    if (const Add *a = as<Add>(e))
        return merge(linearize(a->a, buffer, stride_values), linearize(a->b, buffer, stride_values), false);
    if (const Sub *a = as<Sub>(e))
        return merge(linearize(a->a, buffer, stride_values), linearize(a->b, buffer, stride_values), true);
    if (const Mul *m = as<Mul>(e)) {
        if (const std::string k = stride_named(m->a); !k.empty()) return scale({{k, analysis::detail::make_const(e.type(), 1)}}, m->b);
        if (const std::string k = stride_named(m->b); !k.empty()) return scale({{k, analysis::detail::make_const(e.type(), 1)}}, m->a);
        Linear la = linearize(m->a, buffer, stride_values), lb = linearize(m->b, buffer, stride_values);
        if (la.size() == 1 && la.count("")) return scale(lb, la[""]);
        if (lb.size() == 1 && lb.count("")) return scale(la, lb[""]);
        throw Unsupported("the index " + brief(e) + " multiplies two strides");
    }
    if (const Ramp *r = as<Ramp>(e))
        return merge(linearize(r->base, buffer, stride_values),
                     {{"", Mul::make(r->stride, Variable::make(r->stride.type(), kLane))}}, false);
    if (const Broadcast *b = as<Broadcast>(e)) return linearize(b->value, buffer, stride_values);
    if (const std::string k = stride_named(e); !k.empty()) return {{k, analysis::detail::make_const(e.type(), 1)}};
    if (mentions_prefix(e, prefix)) throw Unsupported("the index " + brief(e) + " uses a stride of " + buffer + " non-linearly");
    return {{"", e}};
}

const PipelineArgument *output_buffer(const LoweredPipeline &p) {
    const PipelineArgument *out = nullptr;
    for (const PipelineArgument &a : p.args)
        if (a.kind == PipelineArgument::Kind::OutputBuffer) out = &a;
    return out;
}

bool final_value(const Provenance &p) {
    return p.kind == Provenance::Kind::FinalCopy || (p.stage == 0 && p.func && p.func->definitions.size() == 1);
}

std::string read_key(const std::string &buffer, const Expr &index) { return buffer + "[" + to_string(lane_of(index)) + "]"; }

Isl<isl_set> full_context(const LoopNest &nest) {
    Isl<isl_set> all = check(isl_set_universe(isl_space_params_alloc(isl_set_get_ctx(nest.context.get()), 0)), "the context");
    for (const auto &[fact, coalesce] : nest.facts) {
        all = check(isl_set_intersect(all.release(), isl_set_params(fact.copy())), "the context");
        if (coalesce) all = check(isl_set_coalesce(all.release()), "the context");
    }
    return all;
}

bool empty_within_wide_ranges(const LoopNest &nest, Isl<isl_set> &s) {
    s = check(isl_set_intersect_params(s.release(), nest.wide_ranges.copy()), "the wide ranges");
    const isl_bool empty = isl_set_is_empty(s.get());
    if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide an emptiness");
    return empty == isl_bool_true;
}

bool empty_within_wide_ranges(const LoopNest &nest, Isl<isl_map> &m) {
    m = check(isl_map_intersect_params(m.release(), nest.wide_ranges.copy()), "the wide ranges");
    const isl_bool empty = isl_map_is_empty(m.get());
    if (empty == isl_bool_error) throw Unsupported("the polyhedral library could not decide an emptiness");
    return empty == isl_bool_true;
}

/** Whether e has an integer constant of magnitude 2^30 or more (a fact about it belongs
 * to the wide ranges, LoopNest.h). */
static bool has_wide_constant(const Expr &e) {
    struct Find : IRVisitor {
        bool found = false;
        using IRVisitor::include;
        void visit(const IntImm *op) override { found = found || op->value >= (int64_t(1) << 30) || op->value <= -(int64_t(1) << 30); }
        void visit(const UIntImm *op) override { found = found || op->value >= (uint64_t(1) << 30); }
    } find;
    find.include(e);
    return find.found;
}

namespace {

/** A coordinate that is a clamp of some v to [lo, hi] plus other terms: clamp(v, lo, hi)
 * + rest, the clamp written min(max(v, lo), hi) or max(min(v, hi), lo), under widening
 * integer casts. Such a coordinate lies in [lo + rest, hi + rest] whenever lo <= hi,
 * whatever v is: a boundary condition's clamp of a loop index, whose cases (below, inside,
 * above the input, for each part of each partitioned loop) multiply when v is translated. */
struct ClampedCoordinate {
    Expr lo, hi, rest;
};

std::optional<ClampedCoordinate> clamped_coordinate(const Expr &coord) {
    // The coordinate as signed terms.
    std::vector<std::pair<Expr, bool>> terms;  // term, negated
    std::function<void(const Expr &, bool)> flatten = [&](const Expr &e, bool negated) {
        if (const Add *a = as<Add>(e)) {
            flatten(a->a, negated);
            flatten(a->b, negated);
        } else if (const Sub *d = as<Sub>(e)) {
            flatten(d->a, negated);
            flatten(d->b, !negated);
        } else {
            terms.emplace_back(e, negated);
        }
    };
    flatten(coord, false);
    auto strip = [](Expr e) {
        while (const Cast *c = as<Cast>(e)) {
            const Type from = c->value.type(), to = c->type;
            if (!(from.is_int() || from.is_uint()) || !to.is_int() || to.bits < from.bits || (from.is_uint() && to.bits == from.bits))
                break;
            e = c->value;
        }
        return e;
    };
    std::optional<ClampedCoordinate> found;
    size_t at = 0;
    for (size_t i = 0; i < terms.size(); i++) {
        if (terms[i].second) continue;
        const Expr t = strip(terms[i].first);
        ClampedCoordinate c;
        if (const Min *mn = as<Min>(t)) {
            const Max *mx = as<Max>(mn->a);
            if (!mx) continue;
            c.lo = mx->b;
            c.hi = mn->b;
        } else if (const Max *mx = as<Max>(t)) {
            const Min *mn = as<Min>(mx->a);
            if (!mn) continue;
            c.lo = mx->b;
            c.hi = mn->b;
        } else {
            continue;
        }
        if (found) return std::nullopt;  // two clamps: not this form
        found = c;
        at = i;
    }
    if (!found) return std::nullopt;
    Expr rest = IntImm::make(Int(64), 0);
    for (size_t i = 0; i < terms.size(); i++) {
        if (i == at) continue;
        const Expr t = Cast::make(Int(64), terms[i].first);
        rest = terms[i].second ? Sub::make(rest, t) : Add::make(rest, t);
    }
    found->rest = rest;
    return found;
}

/** The points where lo < 0 or hi >= extent: a coordinate (lo = hi), or one known to lie
 * in [lo, hi], outside [0, extent). */
Isl<isl_set> outside_range(Affine &affine, const Isl<isl_pw_aff> &lo, const Isl<isl_pw_aff> &hi, const Isl<isl_pw_aff> &extent) {
    Isl<isl_set> below = check(isl_pw_aff_lt_set(lo.copy(), affine.constant(0).release()), "a bound");
    Isl<isl_set> above = check(isl_pw_aff_ge_set(hi.copy(), extent.copy()), "a bound");
    return check(isl_set_union(below.release(), above.release()), "the cells outside");
}

/** The loads `value` makes, in the order they occur. */
std::vector<const Load *> loads_of(const Expr &value) {
    struct Loads : IRVisitor {
        std::vector<const Load *> found;
        using IRVisitor::include;
        void visit(const Load *op) override {
            found.push_back(op);
            IRVisitor::visit(op);
        }
    } loads;
    loads.include(value);
    return loads.found;
}

/** The storages `value` loads from. */
std::set<std::string> loaded_storages(const Expr &value) {
    std::set<std::string> buffers;
    for (const Load *l : loads_of(value)) buffers.insert(l->buffer);
    return buffers;
}

/** The walk over the body: the loops, conditions and lets around each statement. */
class Walk {
public:
    Walk(IslContext &ctx, LoopNest &nest, const std::function<bool(const Statement &)> &wanted,
         const ir::LoweredPipeline &p)
        : ctx_(ctx), nest_(nest), wanted_(wanted) {
        for (const PipelineArgument &a : p.args) {
            if (a.kind != PipelineArgument::Kind::Param) buffer_dims_[a.name] = a.dimensions;
            if (a.kind == PipelineArgument::Kind::InputBuffer) inputs_.insert(a.name);
        }
        nest_.context = check(isl_set_universe(isl_space_params_alloc(ctx.get(), 0)), "the context");
        nest_.wide_ranges = nest_.context;
    }

    void visit(const Stmt &s) {
        if (!s.defined()) return;
        switch (s->kind) {
        case StmtKind::LetStmt: {
            const LetStmt *l = as<LetStmt>(s);
            // A name bound again (before src/lower/UniquifyNames.cpp) changes what the
            // conditions that use it mean: the domains computed with the outer binding no
            // longer hold, here or after.
            const bool rebound = lets_.count(l->name) > 0;
            if (rebound) prefix_domains_.clear();
            lets_[l->name] = l->value;
            visit(l->body);
            if (rebound) prefix_domains_.clear();
            lets_.erase(l->name);
            for (auto &entry : expansions_) entry.second.erase(l->name);
            return;
        }
        case StmtKind::For: {
            const For *f = as<For>(s);
            if (fused_loop(f) || boundary_loop(f)) return;
            const Expr v = Variable::make(f->min.type(), f->name);
            enter_loop(f->name, f->for_type == ForType::Parallel, f->min.type());
            conditions_.push_back(GE::make(v, f->min));
            conditions_.push_back(LT::make(v, Add::make(f->min, f->extent)));
            visit(f->body);
            drop_conditions(2);
            leave_loop();
            return;
        }
        case StmtKind::IfThenElse: {
            const IfThenElse *i = as<IfThenElse>(s);
            conditions_.push_back(i->condition);
            visit(i->then_case);
            drop_conditions(1);
            conditions_.push_back(Not::make(i->condition));
            visit(i->else_case);
            drop_conditions(1);
            return;
        }
        case StmtKind::Block:
            visit(as<Block>(s)->first);
            visit(as<Block>(s)->rest);
            return;
        case StmtKind::Allocate: {
            const Allocate *a = as<Allocate>(s);
            allocated_at_[a->name] = int(loops_.size());
            allocation_dims_[a->name] = int(a->extents.size());
            allocation_extents_[a->name] = a->extents;
            layouts_[a->name] = layout_of(a);
            visit(a->body);
            allocated_at_.erase(a->name);
            allocation_dims_.erase(a->name);
            allocation_extents_.erase(a->name);
            layouts_.erase(a->name);
            return;
        }
        case StmtKind::ProducerConsumer: visit(as<ProducerConsumer>(s)->body); return;
        case StmtKind::AssertStmt: assertion(as<AssertStmt>(s)); return;
        case StmtKind::Store: statement(as<Store>(s)); return;
        default: return;  // Evaluate: no store
        }
    }

private:
    /** A loop begins: its place in the program order is the next position of its body. */
    void enter_loop(const std::string &name, bool parallel, Type type) {
        loops_.push_back(name);
        loop_conditions_start_.push_back(conditions_.size());
        loop_ids_.push_back(next_loop_id_++);
        parallel_.push_back(parallel);
        loop_types_.push_back(type);
        positions_.push_back(next_position_.back()++);
        next_position_.push_back(0);
    }

    /** The innermost n conditions end, and with them the domains cached under them. */
    void drop_conditions(size_t n) {
        conditions_.resize(conditions_.size() - n);
        if (prefix_domains_.size() > conditions_.size()) prefix_domains_.resize(conditions_.size());
    }

    void leave_loop() {
        loops_.pop_back();
        loop_conditions_start_.pop_back();
        loop_ids_.pop_back();
        parallel_.pop_back();
        loop_types_.pop_back();
        positions_.pop_back();
        next_position_.pop_back();
    }

    /** A fused loop over [0, max(inner * outer, 0)) as its two loops; false if f is not one. */
    bool fused_loop(const For *f) {
        if (!f->loop || f->loop->role != LoopRole::Fused || !is_zero(f->min)) return false;
        Expr extent = f->extent;
        if (const Max *m = as<Max>(extent); m && is_zero(m->b)) extent = m->a;
        const Mul *product = as<Mul>(extent);
        if (!product) return false;
        // A product of constants (at one run: src/validate/OneRun.h) is an extent like
        // any other, and the divisions of the loop variable are by constants.
        if (analysis::detail::is_const_int(analysis::simplify(expand(extent)))) return false;
        const Type t = f->min.type();
        const std::string outer = f->name + ".outer", inner = f->name + ".inner";
        fused_[f->name] = FusedLoop{expand(product->a), outer, inner, t};
        const Expr vo = Variable::make(t, outer), vi = Variable::make(t, inner), zero = IntImm::make(t, 0);
        for (const std::string &name : {outer, inner}) enter_loop(name, f->for_type == ForType::Parallel && name == outer, t);
        // The inner loop of the fuse is parallel too: any two iterations of the fused loop
        // run in parallel, so the inner loop's iterations are compared within one outer
        // iteration and across them (the outer loop, marked parallel, covers the second).
        parallel_.back() = f->for_type == ForType::Parallel;
        conditions_.insert(conditions_.end(), {GE::make(vo, zero), LT::make(vo, product->b), GE::make(vi, zero),
                                               LT::make(vi, product->a)});
        visit(f->body);
        drop_conditions(4);
        for (int k = 0; k < 2; k++) leave_loop();
        fused_.erase(f->name);
        return true;
    }

    /** e with the lets in scope expanded (expand_lets), sharing each let's expansion
     * with the earlier calls in its scope (an expansion is forgotten when its let's scope
     * ends: before src/lower/UniquifyNames.cpp, which the per-pass mode validates, a name
     * may be bound again elsewhere). */
    Expr expand(const Expr &e, const std::string &keep = "") { return expand_lets(e, lets_, keep, &expansions_[keep]); }

    /** A serial loop over a partitioned loop's prologue and epilogue at once
     * (src/lower/PartitionLoops.cpp): b in [0, X) running
     *     let v = select(b < P, M + b, E + (b - P)) in body
     * as two loops over v: [M, M + P) then [E, E + X - P) (each cut to b in [0, X)). In
     * the order of b every iteration of the first precedes every one of the second, and
     * within each v grows with b, so the two loops run the same instances in the same
     * order; and v, a loop variable now, keeps the partition's bounds out of every
     * expression of the body (the select of two piecewise bounds, with the clamps of the
     * body, multiplies pieces). False if f is not of that form. A parallel one stays as
     * it is: two loops in sequence would order iterations that run at once. */
    bool boundary_loop(const For *f) {
        if (!f->loop || f->loop->part != LoopPart::Boundaries || f->for_type != ForType::Serial || !is_zero(f->min))
            return false;
        const LetStmt *l = as<LetStmt>(f->body);
        const Select *sel = l ? as<Select>(l->value) : nullptr;
        const LT *lt = sel ? as<LT>(sel->condition) : nullptr;
        const Variable *b = lt ? as<Variable>(lt->a) : nullptr;
        if (!b || b->name != f->name) return false;
        auto is_b = [&](const Expr &e) {
            const Variable *v = as<Variable>(e);
            return v && v->name == f->name;
        };
        const Expr P = lt->b;
        Expr M;
        if (is_b(sel->true_value)) M = IntImm::make(P.type(), 0);
        else if (const Add *a = as<Add>(sel->true_value); a && is_b(a->b)) M = a->a;
        else if (const Add *a = as<Add>(sel->true_value); a && is_b(a->a)) M = a->b;
        else return false;
        const Add *e = as<Add>(sel->false_value);
        const Sub *d = e ? as<Sub>(e->b) : nullptr;
        if (!d || !is_b(d->a) || !equal(d->b, P)) return false;
        const Expr E = e->a, X = f->extent;
        for (const Expr &x : {P, M, E, X})
            if (mentions_prefix(x, f->name)) return false;
        if (mentions(l->body, f->name, true)) return false;
        const Type t = f->min.type();
        const Expr v = Variable::make(t, l->name);
        // b = v - M in the first loop, b = v - E + P in the second; each b in [0, X).
        // (Simplified: X is P + (N - E) as lowering writes it, so that E + X - P is N, and
        // each bound is exact, integer arithmetic on int32 values, as the rest.)
        auto bound = [](const Expr &x) { return analysis::simplify(x); };
        std::vector<std::vector<Expr>> parts = {{GE::make(v, M), LT::make(v, bound(Add::make(M, P)))},
                                                {GE::make(v, E), LT::make(v, bound(Add::make(E, Sub::make(X, P))))}};
        // b < X in the first part, and b >= 0 in the second, are left out where the
        // others imply them for every value of the loops around (X >= P whenever P > 0,
        // and P >= 0 whenever X > P, as lowering writes them): each multiplies the
        // pieces of every domain in the loop, its bounds being nests of min and max.
        const Expr zero = IntImm::make(t, 0);
        if (ever(And::make(LT::make(X, P), GT::make(P, zero)))) parts[0].push_back(LT::make(v, bound(Add::make(M, X))));
        if (ever(And::make(LT::make(P, zero), GT::make(X, P)))) parts[1].push_back(GE::make(v, bound(Sub::make(E, P))));
        for (const std::vector<Expr> &bounds : parts) {
            enter_loop(l->name, false, t);
            conditions_.insert(conditions_.end(), bounds.begin(), bounds.end());
            visit(l->body);
            drop_conditions(bounds.size());
            leave_loop();
        }
        return true;
    }

    /** Whether `condition` (of the loops in scope and the parameters) may hold, under the
     * context's hull: true where that is not decided. */
    bool ever(const Expr &condition) {
        ctx_.reset_operations();
        bool may = true;
        try {
            Affine affine(ctx_.get(), "condition", loops_, -1, lets_, nest_.parameters, fused_, &nest_.products);
            Isl<isl_set> holds = check(isl_set_intersect_params(affine.condition(condition).release(), context_hull().release()),
                                       "a condition");
            may = isl_set_is_empty(holds.get()) != isl_bool_true;
        } catch (const Unsupported &) {
        }
        ctx_.reset_operations();
        return may;
    }

    void assertion(const AssertStmt *a) {
        if (!loops_.empty() || !conditions_.empty()) {
            nest_.unmodelled_assertions.push_back(to_string(a->condition) + " (inside a loop or an if)");
            return;
        }
        nest_.entry_assertions.push_back(expand(a->condition));
        // Its conjuncts with constants of 2^30 and more are wide ranges (LoopNest.h).
        Expr narrow, wide;
        for (const Expr &c : analysis::conjuncts(a->condition)) {
            Expr &part = has_wide_constant(c) ? wide : narrow;
            part = part.defined() ? And::make(part, c) : c;
        }
        ctx_.reset_operations();
        try {
            Affine affine(ctx_.get(), "context", {}, -1, lets_, nest_.parameters, {}, &nest_.products);
            auto add = [&](Isl<isl_set> &facts, const Isl<isl_set> &c) {
                facts = check(isl_set_coalesce(isl_set_intersect(facts.copy(), isl_set_params(c.copy()))), "the context");
            };
            // (Each condition translated once: an entry check's clamps make many pieces.)
            const Isl<isl_set> n = narrow.defined() ? affine.condition(narrow) : Isl<isl_set>();
            const Isl<isl_set> w = wide.defined() ? affine.condition(wide) : Isl<isl_set>();
            if (n) add(nest_.context, n);
            if (w) add(nest_.wide_ranges, w);
            nest_.facts.emplace_back(n && w ? affine.condition(a->condition) : n ? n : w, true);
        } catch (const Unsupported &u) {
            nest_.unmodelled_assertions.push_back(to_string(a->condition) + " (" +
                                                  (ctx_.exhausted() ? "the operation limit was reached" : u.what()) + ")");
        }
    }

    /** The number of loops around condition i (those that began before it). */
    size_t loops_in_scope(size_t i) const {
        size_t n = 0;
        while (n < loop_conditions_start_.size() && loop_conditions_start_[n] <= i) n++;
        return n;
    }

    /** A statement's domain so far (its conditions 0..i) over its first `loops`
     * dimensions and with no tuple name: the conditions constrain no other (the lane's
     * range is the statement's own), so that the statements under them share it. */
    static Isl<isl_set> on_loops(const Isl<isl_set> &domain, size_t loops) {
        const isl_size dims = isl_set_dim(domain.get(), isl_dim_set);
        Isl<isl_set> d = check(isl_set_project_out(domain.copy(), isl_dim_set, unsigned(loops), unsigned(dims) - unsigned(loops)),
                               "a shared domain");
        return check(isl_set_reset_tuple_id(d.release()), "a shared domain");
    }

    /** The inverse: a shared domain `prefix` in the space of the statement's set `like`. */
    static isl_set *on_statement(const Isl<isl_set> &prefix, const Isl<isl_set> &like) {
        const isl_size dims = isl_set_dim(like.get(), isl_dim_set), loops = isl_set_dim(prefix.get(), isl_dim_set);
        isl_multi_aff *project = isl_multi_aff_project_out_map(isl_set_get_space(like.get()), isl_dim_set, unsigned(loops),
                                                               unsigned(dims) - unsigned(loops));
        project = isl_multi_aff_reset_tuple_id(project, isl_dim_out);
        return check(isl_set_preimage_multi_aff(prefix.copy(), project), "a shared domain").release();
    }

    /** The simple hull of the context so far (the entry assertions), computed once per
     * context: a convex superset, so that restricting expressions to it adds no pieces. */
    Isl<isl_set> context_hull() {
        if (!hull_ || hull_of_ != nest_.context.get()) {
            hull_ = check(isl_set_from_basic_set(isl_set_simple_hull(nest_.context.copy())), "the context's hull");
            hull_of_ = nest_.context.get();
        }
        return hull_;
    }

    void statement(const Store *s) {
        Statement st;
        st.id = int(nest_.statements.size());
        st.store = s;
        st.provenance = s->provenance;
        st.dims = loops_;
        st.loop_ids = loop_ids_;
        st.parallel = parallel_;
        st.loop_types = loop_types_;
        st.positions = positions_;
        st.positions.push_back(next_position_.back()++);
        for (const auto &[var, f] : fused_) st.fused.push_back({var, f.outer_dim, f.inner_dim, f.inner, f.type});
        auto at = allocated_at_.find(s->buffer);
        st.loops_around_storage = at == allocated_at_.end() ? 0 : at->second;
        const int lanes = s->value.type().lanes;
        const int lane_dim = lanes > 1 ? int(st.dims.size()) : -1;
        if (lanes > 1) st.dims.push_back("lane");
        const std::string tuple = "S" + std::to_string(st.id);
        st.loaded = loaded_storages(expand(s->value));
        ctx_.reset_operations();  // each statement within the limit
        if (!wanted_(st)) {
            st.unmodelled = "not needed by the checks";
            nest_.statements.push_back(std::move(st));
            return;
        }
        try {
            if (!s->provenance) throw Unsupported("the store to " + s->buffer + " has no provenance annotation");
            if (s->provenance->atomic)
                throw Unsupported("the store to " + s->buffer + " is an atomic read-modify-write (atomic()): the order in "
                                  "which parallel iterations update one point is not modelled");
            Affine affine(ctx_.get(), tuple, st.dims, lane_dim, lets_, nest_.parameters, fused_, &nest_.products);
            affine.restrict_to(context_hull());
            Isl<isl_set> domain = affine.universe();
            if (lanes > 1) {
                Isl<isl_pw_aff> lane = affine.dim(lane_dim);
                domain = check(isl_set_intersect(domain.release(), isl_pw_aff_ge_set(lane.copy(), affine.constant(0).release())),
                               "a lane range");
                domain = check(isl_set_intersect(domain.release(), isl_pw_aff_lt_set(lane.copy(), affine.constant(lanes).release())),
                               "a lane range");
            }
            domain = check(isl_set_intersect_params(domain.release(), context_hull().release()), "a domain");
            const Isl<isl_set> base = domain;
            // The conditions of loop k and of the ifs between it and loop k + 1 are those
            // from loop k + 1's start on.
            const size_t loops = loop_conditions_start_.size();
            auto outer_domains_upto = [&](size_t conditions) {
                while (st.outer_domains.size() < loops &&
                       (st.outer_domains.size() + 1 < loops ? loop_conditions_start_[st.outer_domains.size() + 1]
                                                            : conditions_.size()) == conditions)
                    st.outer_domains.push_back(domain);
            };
            outer_domains_upto(0);
            for (size_t i = 0; i < conditions_.size(); i++) {
                if (i < prefix_domains_.size()) {
                    domain = check(isl_set_intersect(base.copy(), on_statement(prefix_domains_[i], domain)), "a domain");
                    if (i + 1 == prefix_domains_.size() || i + 1 == conditions_.size()) affine.restrict_to(domain);
                } else {
                    domain = check(isl_set_coalesce(isl_set_intersect(domain.release(), affine.condition(conditions_[i]).release())),
                                   "a domain");
                    affine.restrict_to(domain);
                    prefix_domains_.push_back(on_loops(domain, loops_in_scope(i)));
                }
                outer_domains_upto(i + 1);
            }
            Isl<isl_map> writes;
            if (s->provenance->coords.empty()) {
                writes = check(isl_map_from_domain(domain.copy()), "a write relation");
            } else {
                for (const Expr &c : s->provenance->coords) {
                    Isl<isl_map> m = check(isl_map_from_pw_aff(affine.expr(c).release()), "a write relation");
                    writes = writes ? check(isl_map_flat_range_product(writes.release(), m.release()), "a write relation")
                                    : std::move(m);
                }
                st.coordinates = writes;
                writes = check(isl_map_intersect_domain(writes.release(), domain.copy()), "a write relation");
            }
            isl_id *func_id = Recurrence::func_id(ctx_.get(), *s->provenance->func);
            writes = check(isl_map_set_tuple_id(writes.release(), isl_dim_out, func_id), "a write relation");
            if (s->provenance->kind == Provenance::Kind::Iteration) {
                Isl<isl_map> iteration = writes;
                for (const auto &rv : s->provenance->rvars) {
                    Isl<isl_map> m = check(isl_map_from_pw_aff(affine.expr(rv.second).release()), "an iteration");
                    m = check(isl_map_intersect_domain(m.release(), domain.copy()), "an iteration");
                    iteration = check(isl_map_flat_range_product(iteration.release(), m.release()), "an iteration");
                }
                st.iteration = check(isl_map_set_tuple_id(iteration.release(), isl_dim_out,
                                                          Recurrence::stage_id(ctx_.get(), *s->provenance->func, s->provenance->stage)),
                                     "an iteration");
            }
            st.domain = std::move(domain);
            st.writes = std::move(writes);
            st.value = expand(s->value);
            cells(s, affine, st);
            for (const Expr &c : conditions_) st.conditions.push_back(expand(c));
            st.index = expand(s->index);
            for (const Expr &c : s->provenance->coords) st.coords.push_back(expand(c));
        } catch (const Unsupported &u) {
            st.unmodelled = ctx_.exhausted() ? "the operation limit was reached" : u.what();
            st.domain = Isl<isl_set>();
            st.writes = Isl<isl_map>();
            st.coordinates = Isl<isl_map>();
            st.outer_domains.clear();
            st.iteration = Isl<isl_map>();
        }
        nest_.statements.push_back(std::move(st));
    }

    /** The name of the let in scope that holds `field` (".stride.1", ".r0.extent") of
     * storage `buffer`, or "" if none. Lowering names a storage's descriptors after it;
     * where uniquify_names renamed a copy of an allocation (f$2, in a partitioned loop),
     * its descriptors are those of the original bound outside the copied code (f.stride.1)
     * or the copy's own (f.r0.extent$2). */
    std::string field_of(const std::string &buffer, const std::string &field) const {
        if (lets_.count(buffer + field)) return buffer + field;
        const size_t dollar = buffer.rfind('$');
        const std::string base = dollar == std::string::npos ? buffer : buffer.substr(0, dollar);
        const std::string name = base + field;
        std::string found;
        for (auto it = lets_.lower_bound(name); it != lets_.end() && it->first.compare(0, name.size(), name) == 0; ++it) {
            const std::string rest = it->first.substr(name.size());
            const bool renamed = rest.empty() || (rest.size() > 1 && rest[0] == '$' &&
                                                  rest.find_first_not_of("0123456789", 1) == std::string::npos);
            if (!renamed) continue;
            if (!found.empty()) return "";  // two in scope: which one is not known
            found = it->first;
        }
        return found;
    }

    /** How an allocation lays its cells out in memory: a cell's coordinates are read off a
     * flat index by the stride variables (linearize), which is the address only if the
     * strides are those of a dense layout. Dimension k is at storage position
     * `position[k]` when its stride is the product of the allocated extents of the
     * positions before (with cells within the allocated extents, the address is then a
     * mixed-radix number: one address per cell, inside the allocation). */
    struct Layout {
        std::vector<Expr> extents;  // allocated, in storage order, lets expanded
        std::vector<int> position;  // per dimension; empty if not a dense layout
        std::string why;            // why not
        Expr flat_size;             // if not, but strides and extents are constants: the cells
                                    // are the flat indices, in [0, flat_size)
    };

    /** A product as its constant factor and its other factors, printed and sorted (equal
     * for equal products in any order or grouping: wrapping multiplication is
     * commutative and associative). */
    static std::pair<int64_t, std::vector<std::string>> factors(const Expr &e) {
        std::pair<int64_t, std::vector<std::string>> r{1, {}};
        std::function<void(const Expr &)> walk = [&](const Expr &x) {
            if (const Mul *m = as<Mul>(x)) {
                walk(m->a);
                walk(m->b);
            } else if (const IntImm *k = as<IntImm>(x)) {
                r.first = int64_t(uint64_t(r.first) * uint64_t(k->value));
            } else {
                r.second.push_back(to_string(x));
            }
        };
        walk(e);
        std::sort(r.second.begin(), r.second.end());
        return r;
    }

    Layout layout_of(const Allocate *a) {
        Layout l;
        for (const Expr &e : a->extents) l.extents.push_back(expand(e));
        const size_t n = l.extents.size();
        l.position.assign(n, -1);
        std::vector<bool> used(n, false);
        Expr product = IntImm::make(Int(64), 1);
        std::vector<std::pair<int64_t, std::vector<std::string>>> before;  // per position
        for (size_t j = 0; j < n; j++) {
            before.push_back(factors(product));
            product = Mul::make(product, l.extents[j]);
        }
        for (size_t k = 0; k < n; k++) {
            auto it = lets_.find(field_of(a->name, ".stride." + std::to_string(k)));
            const auto stride = it == lets_.end() ? std::make_pair(int64_t(1), std::vector<std::string>{})
                                                  : factors(expand(it->second));
            if (k > 0 && it == lets_.end()) {
                l.why = "the stride of dimension " + std::to_string(k) + " of " + a->name + " is not known";
                break;
            }
            for (size_t j = 0; j < n && l.position[k] < 0; j++)
                if (!used[j] && before[j] == stride) {
                    l.position[k] = int(j);
                    used[j] = true;
                }
            if (l.position[k] < 0) {
                l.why = "the stride of dimension " + std::to_string(k) + " of " + a->name +
                        " is not the product of the allocated extents of the dimensions stored inside it";
                break;
            }
        }
        if (!l.why.empty()) {
            l.position.clear();
            // Constant strides and extents (a constant-size allocation, or one run's:
            // src/validate/OneRun.h): the flat index is the address, whatever the layout.
            Expr size = IntImm::make(Int(64), 1);
            bool constant = true;
            for (const Expr &e : l.extents) size = Mul::make(size, Cast::make(Int(64), e));
            for (size_t k = 1; k < n && constant; k++) {
                auto it = lets_.find(field_of(a->name, ".stride." + std::to_string(k)));
                constant = it != lets_.end() && analysis::detail::is_const_int(analysis::simplify(expand(it->second)));
            }
            size = analysis::simplify(size);
            if (constant && analysis::detail::is_const_int(size)) l.flat_size = size;
        }
        return l;
    }

    /** The cells an access (a store's or a load's index into `buffer`) touches in each
     * instance of `domain`, and the instances where a cell lies outside the storage's
     * region. */
    struct Access {
        Isl<isl_map> cells, cell_coordinates, unfolded_cells, unfolded_coordinates;
        std::vector<int> folded;  // the dimensions of unfolded_cells taken modulo a fold
        std::vector<long> folds;  // their folds (0: not a constant)
        Isl<isl_set> outside;
        std::string cells_unmodelled, bounds_unmodelled;
    };

    /** Where a read of input `buffer` at `coords` is outside the buffer, with each
     * clamped coordinate (clamped_coordinate) bounded by its clamp's bounds instead of
     * its value where that shows it inside under the context (the bounds of a clamp
     * over-approximate the values it takes; where they do not show it, as for a clamp of
     * a constant channel index to [0, extent), its value decides). nullopt if no
     * coordinate is clamped. */
    std::optional<Isl<isl_set>> clamped_outside(const std::string &buffer, const std::vector<Expr> &coords, Affine &affine,
                                                const Isl<isl_set> &domain) {
        bool any = false;
        for (const Expr &c : coords) any = any || clamped_coordinate(c).has_value();
        if (!any) return std::nullopt;
        Isl<isl_set> outside = check(isl_set_empty(isl_set_get_space(domain.get())), "the cells outside");
        auto between = [&](const Isl<isl_pw_aff> &lo, const Isl<isl_pw_aff> &hi, const Isl<isl_pw_aff> &extent) {
            return check(isl_set_intersect(outside_range(affine, lo, hi, extent).release(), domain.copy()), "the cells outside");
        };
        for (size_t k = 0; k < coords.size(); k++) {
            const Isl<isl_pw_aff> extent = affine.expr(Variable::make(Int(32), buffer + ".extent." + std::to_string(k)));
            if (std::optional<ClampedCoordinate> c = clamped_coordinate(coords[k])) {
                const Isl<isl_pw_aff> rest = affine.expr(c->rest), l = affine.expr(c->lo), h = affine.expr(c->hi);
                Isl<isl_set> approx = between(check(isl_pw_aff_add(l.copy(), rest.copy()), "a bound"),
                                              check(isl_pw_aff_add(h.copy(), rest.copy()), "a bound"), extent);
                approx = check(isl_set_union(approx.release(), isl_set_intersect(isl_pw_aff_gt_set(l.copy(), h.copy()), domain.copy())),
                               "the cells outside");
                // Empty under the context's hull (a superset, without the context's pieces)
                // is empty under the context.
                if (isl_set_is_empty(approx.get()) == isl_bool_true) continue;
                approx = check(isl_set_intersect_params(approx.release(), nest_.context.copy()), "the cells outside");
                if (isl_set_is_empty(approx.get()) == isl_bool_true) continue;
            }
            const Isl<isl_pw_aff> exact = affine.expr(coords[k]);
            outside = check(isl_set_union(outside.release(), between(exact, exact, extent).release()), "the cells outside");
        }
        return check(isl_set_coalesce(outside.release()), "the cells outside");
    }

    /** The most pieces the cells an input is read at may take (see access). */
    static constexpr long kMaxInputCellPieces = 12;

    Access access(const std::string &buffer, const Expr &index, Affine &affine, const Isl<isl_set> &domain) {
        ctx_.reset_operations();  // each access within the limit
        Access a;
        try {
            const bool allocated = allocation_dims_.count(buffer) > 0;
            auto dims_it = allocated ? allocation_dims_.find(buffer) : buffer_dims_.find(buffer);
            if (dims_it == (allocated ? allocation_dims_.end() : buffer_dims_.end()))
                throw Unsupported("the storage " + buffer + " is not a buffer or an allocation around the access");
            const int n = dims_it->second;
            if (allocated) {
                const Layout &layout = layouts_.at(buffer);
                if (layout.position.empty() && layout.flat_size.defined()) {
                    const Isl<isl_pw_aff> flat = affine.expr(lane_of(expand(index)));
                    a.cell_coordinates = check(isl_map_set_tuple_name(isl_map_from_pw_aff(flat.copy()), isl_dim_out, buffer.c_str()), "the cells");
                    a.cells = check(isl_map_intersect_domain(a.cell_coordinates.copy(), domain.copy()), "the cells");
                    a.outside = check(isl_set_intersect(outside_range(affine, flat, flat, affine.expr(layout.flat_size)).release(),
                                                        domain.copy()),
                                      "the cells outside");
                    return a;
                }
            }
            // The strides of `buffer` stay variables: they say which dimension a term is of;
            // where lowering put a stride's value instead, the value says it.
            // Strides with equal values (a dimension of extent 1 between them) are told
            // apart in favour of the outer dimension: the inner one's coordinate is 0.
            // A renamed copy of an allocation has its original's strides (field_of).
            std::string storage = buffer;
            if (const std::string s1 = field_of(buffer, ".stride.1"); allocated && !s1.empty())
                storage = s1.substr(0, s1.rfind(".stride.1"));
            std::vector<std::pair<std::string, Expr>> stride_values;
            for (int k = n - 1; k >= 1; k--) {
                const std::string name = storage + ".stride." + std::to_string(k);
                if (auto it = lets_.find(name); it != lets_.end()) {
                    const Expr v = expand(it->second);
                    if (!analysis::detail::is_const_int(v)) stride_values.emplace_back(name, v);
                }
            }
            const Linear lin = linearize(lane_of(expand(index, storage + ".stride.")), storage, stride_values);
            std::vector<Expr> coords(size_t(std::max(n, 1)), IntImm::make(Int(64), 0));
            for (const auto &[key, coeff] : lin) {
                int k = 0;
                if (!key.empty()) {
                    k = std::atoi(key.c_str() + storage.size() + std::string(".stride.").size());
                    if (k <= 0 || k >= n)
                        throw Unsupported("the index into " + buffer + " uses " + key +
                                          " (storage reordered, or a dimension it does not have)");
                }
                coords[size_t(k)] = coeff;
            }
            if (inputs_.count(buffer))
                if (std::optional<Isl<isl_set>> outside = clamped_outside(buffer, coords, affine, domain)) {
                    a.outside = std::move(*outside);
                    a.cells_unmodelled = "the cells of " + buffer + " read here are clamped (their bounds are checked by the clamp)";
                    return a;
                }
            std::vector<Isl<isl_pw_aff>> affs;
            long pieces = 1;
            for (const Expr &c : coords) {
                affs.push_back(affine.expr(c));
                pieces *= isl_pw_aff_n_piece(affs.back().get());
            }
            // The cells of an input are only its bounds' business (no store writes them,
            // and the value check reads an input's coordinates off the index): where they
            // take many pieces (the product of each coordinate's), they are left out.
            if (allocated || pieces <= kMaxInputCellPieces) {
                for (const Isl<isl_pw_aff> &c : affs) {
                    Isl<isl_map> m = check(isl_map_from_pw_aff(c.copy()), "a cell");
                    a.cells = a.cells ? check(isl_map_flat_range_product(a.cells.release(), m.release()), "a cell") : std::move(m);
                }
                // A zero-dimensional buffer's one cell has no coordinates (its index, the
                // one coordinate above, is bounds-checked to be 0).
                if (n == 0) a.cells = check(isl_map_from_domain(affine.universe().release()), "a cell");
                a.cells = check(isl_map_set_tuple_name(a.cells.release(), isl_dim_out, buffer.c_str()), "the cells");
                a.cell_coordinates = a.cells;
                a.cells = check(isl_map_intersect_domain(a.cells.release(), domain.copy()), "the cells");
                a.unfolded_coordinates = unfolded(buffer, coords, affs, affine);
                if (a.unfolded_coordinates)
                    a.unfolded_cells = check(isl_map_intersect_domain(a.unfolded_coordinates.copy(), domain.copy()), "the unfolded cells");
                for (size_t k = 0; a.unfolded_cells && k < coords.size(); k++)
                    if (const Mod *m = as<Mod>(coords[k])) {
                        a.folded.push_back(int(k));
                        const IntImm *f = as<IntImm>(m->b);
                        a.folds.push_back(f && f->value > 0 ? long(f->value) : 0);
                    }
            } else {
                a.cells_unmodelled = "the cells of " + buffer + " read here take " + std::to_string(pieces) +
                                     " affine pieces, more than the " + std::to_string(kMaxInputCellPieces) +
                                     " the value check would use";
            }
            // Cells of an allocation are distinct memory when its layout is dense and each
            // coordinate lies within its allocated extent (the instances where one does not
            // are out of bounds); a flat cell (no stride in the index) is its address.
            Isl<isl_set> outside_allocation = check(isl_set_empty(isl_set_get_space(domain.get())), "the cells outside");
            bool flat = true;
            for (size_t k = 1; k < coords.size(); k++) flat = flat && is_zero(coords[k]);
            if (allocated && !flat) {
                const Layout &layout = layouts_.at(buffer);
                if (layout.position.empty()) throw Unsupported(layout.why);
                for (size_t k = 0; k < coords.size(); k++) {
                    const Isl<isl_pw_aff> e = affine.expr(layout.extents.at(size_t(layout.position[k])));
                    outside_allocation = check(isl_set_union(outside_allocation.release(), outside_range(affine, affs[k], affs[k], e).release()),
                                               "the cells outside");
                }
                outside_allocation = check(isl_set_intersect(outside_allocation.release(), domain.copy()), "the cells outside");
            }
            try {
                Isl<isl_set> outside = outside_allocation;
                for (size_t k = 0; k < coords.size(); k++) {
                    // A coordinate taken modulo a fold lies in the fold, which is the extent.
                    if (as<Mod>(coords[k])) continue;
                    const std::string region = ".r" + std::to_string(k) + ".extent";
                    const std::string extent = allocated ? field_of(buffer, region) : buffer + ".extent." + std::to_string(k);
                    // A zero-dimensional buffer is one cell: its coordinate is 0 of 1.
                    Expr bound = n == 0 ? IntImm::make(Int(32), 1) : extent.empty() ? Expr() : Variable::make(Int(32), extent);
                    if (allocated && extent.empty()) {
                        // The region's extent is gone (a constant lowering substituted):
                        // the allocated extent bounds the cell instead, in the storage
                        // order of dimensions, which the stride of dimension 1 confirms.
                        const std::vector<Expr> &allocated_extents = allocation_extents_.at(buffer);
                        auto stride1 = lets_.find(field_of(buffer, ".stride.1"));
                        const bool natural_order =
                            n == 1 || (stride1 != lets_.end() &&
                                       equal(expand(stride1->second), expand(allocated_extents[0])));
                        if (!natural_order || k >= allocated_extents.size())
                            throw Unsupported("the extent " + region.substr(1) + " of the region of " + buffer + " is not known");
                        bound = allocated_extents[k];
                    }
                    const Isl<isl_pw_aff> e = affine.expr(bound);
                    outside = check(isl_set_union(outside.release(), outside_range(affine, affs[k], affs[k], e).release()),
                                    "the cells outside");
                }
                a.outside = check(isl_set_coalesce(isl_set_intersect(outside.release(), domain.copy())), "the cells outside");
            } catch (const Unsupported &u) {
                a.outside = Isl<isl_set>();
                a.bounds_unmodelled = ctx_.exhausted() ? "the operation limit was reached" : u.what();
                // An allocation whose region is not known per dimension: its flat index
                // against its size, which is what memory safety asks (when both are affine,
                // as with constant strides).
                if (allocated && !ctx_.exhausted()) {
                    try {
                        Expr size;
                        for (const Expr &e : allocation_extents_.at(buffer)) {
                            const Expr x = Cast::make(Int(64), expand(e));
                            size = size.defined() ? Mul::make(size, x) : x;
                        }
                        if (!size.defined()) size = IntImm::make(Int(64), 1);
                        const Isl<isl_pw_aff> flat = affine.expr(lane_of(expand(index)));
                        a.outside = check(isl_set_coalesce(isl_set_union(
                                              isl_set_intersect(outside_range(affine, flat, flat, affine.expr(size)).release(), domain.copy()),
                                              outside_allocation.copy())),
                                          "the cells outside");
                        a.bounds_unmodelled.clear();
                    } catch (const Unsupported &) {
                        a.outside = Isl<isl_set>();  // the first reason stands
                    }
                }
            }
        } catch (const Unsupported &u) {
            a.cells = Isl<isl_map>();
            a.cell_coordinates = Isl<isl_map>();
            a.unfolded_cells = Isl<isl_map>();
            a.unfolded_coordinates = Isl<isl_map>();
            a.folded.clear();
            a.folds.clear();
            a.outside = Isl<isl_set>();
            a.cells_unmodelled = ctx_.exhausted() ? "the operation limit was reached" : u.what();
            a.bounds_unmodelled = a.cells_unmodelled;
        }
        return a;
    }

    /** The cells of an access before the modulo of its folded coordinates (those taken
     * modulo a fold), given the cells' coordinates and their translations, outside the
     * instances' domain as well; null if none is folded. */
    Isl<isl_map> unfolded(const std::string &buffer, const std::vector<Expr> &coords, const std::vector<Isl<isl_pw_aff>> &affs,
                          Affine &affine) {
        bool folded = false;
        for (const Expr &c : coords) folded = folded || as<Mod>(c);
        if (!folded) return Isl<isl_map>();
        Isl<isl_map> cells;
        for (size_t k = 0; k < coords.size(); k++) {
            const Mod *m = as<Mod>(coords[k]);
            Isl<isl_pw_aff> coordinate = m ? affine.expr(m->a) : affs[k];
            Isl<isl_map> c = check(isl_map_from_pw_aff(coordinate.release()), "an unfolded cell");
            cells = cells ? check(isl_map_flat_range_product(cells.release(), c.release()), "an unfolded cell") : std::move(c);
        }
        return check(isl_map_set_tuple_name(cells.release(), isl_dim_out, buffer.c_str()), "the unfolded cells");
    }

    /** The cells a modelled statement writes, and the accesses it makes (its store and
     * the loads of the value it stores) outside their storage's region. */
    void cells(const Store *s, Affine &affine, Statement &st) {
        Access w = access(s->buffer, s->index, affine, st.domain);
        st.cells = std::move(w.cells);
        st.cell_coordinates = std::move(w.cell_coordinates);
        st.unfolded_cells = std::move(w.unfolded_cells);
        st.unfolded_coordinates = std::move(w.unfolded_coordinates);
        st.folded = std::move(w.folded);
        st.folds = std::move(w.folds);
        st.cells_unmodelled = w.cells_unmodelled;
        st.accesses.push_back({"writes " + s->buffer, std::move(w.outside), w.bounds_unmodelled});
        // The loads the stored value makes, lets expanded (a load bound to a let by the
        // common subexpressions pass is read where the let is).
        std::set<std::string> seen;
        for (const Load *l : loads_of(st.value)) {
            const std::string key = read_key(l->buffer, l->index);
            if (!seen.insert(key).second) continue;
            Access r = access(l->buffer, l->index, affine, st.domain);
            st.accesses.push_back({"reads " + l->buffer, std::move(r.outside), r.bounds_unmodelled});
            st.reads.push_back({l->buffer, l->type.element_of(), key, std::move(r.cells), r.cells_unmodelled, std::move(r.unfolded_cells),
                                std::move(r.folded), std::move(r.folds), std::move(r.cell_coordinates), std::move(r.unfolded_coordinates)});
        }
    }

    IslContext &ctx_;
    LoopNest &nest_;
    const std::function<bool(const Statement &)> &wanted_;
    std::map<std::string, Expr> lets_;
    std::vector<std::string> loops_;
    /** For each loop in loops_, how many conditions were in force as it began. */
    std::vector<size_t> loop_conditions_start_;
    std::vector<int> loop_ids_;
    std::vector<bool> parallel_;
    std::vector<Type> loop_types_;
    std::vector<int> positions_;          // the place of each loop around in its body
    std::vector<int> next_position_{0};   // the next place in each body around
    std::vector<Expr> conditions_;
    /** Per condition in force, the domain of the statements under it (conditions 0..i,
     * under the context's hull, over the loops around condition i: on_loops), as the first
     * statement there computed it: the statements of one loop body share their loops'
     * conditions, whose bounds (a partitioned loop's, min and max of divisions) are slow
     * to translate. */
    std::vector<Isl<isl_set>> prefix_domains_;
    std::map<std::string, int> allocated_at_;  // allocations around, and the loops outside each
    std::map<std::string, FusedLoop> fused_;    // fused loops around
    std::map<std::string, int> buffer_dims_;     // the pipeline's buffers
    std::set<std::string> inputs_;               // its input buffers
    std::map<std::string, int> allocation_dims_;  // allocations around
    std::map<std::string, std::vector<Expr>> allocation_extents_;
    std::map<std::string, Layout> layouts_;       // allocations around
    int next_loop_id_ = 0;
    std::map<std::string, std::map<std::string, Expr>> expansions_;  // expand's, by `keep`
    Isl<isl_set> hull_;                    // context_hull(), and the context it is of
    const isl_set *hull_of_ = nullptr;
};

}  // namespace

LoopNest loop_nest_of(IslContext &ctx, const ir::LoweredPipeline &p,
                      const std::function<bool(const Statement &)> &wanted) {
    LoopNest nest;
    Walk walk(ctx, nest, wanted, p);
    walk.visit(p.body);
    // Every parameter lies in its type's range: in the context if narrower than 32 bits,
    // in the wide ranges if of 32 (int64 and uint64 parameters are left unbounded: their
    // ranges do not fit isl's small integers here, and nothing is lost for the int32
    // coordinates the statements compute with). A range the operation limit keeps out
    // leaves the context weaker, never wrong.
    if (nest.products.facts) {
        ctx.reset_operations();
        try {
            nest.context = check(isl_set_intersect(nest.context.copy(), nest.products.facts.copy()), "the context");
            nest.facts.emplace_back(nest.products.facts, false);
        } catch (const Unsupported &) {
            nest.unmodelled_assertions.push_back("the signs of products of parameters (the operation limit was reached)");
        }
    }
    for (const auto &[name, type] : nest.parameters) {
        if (type.bits > 32) continue;
        ctx.reset_operations();
        const long lo = type.is_int() ? -(1L << (type.bits - 1)) : 0;
        const long hi = type.is_int() ? (1L << (type.bits - 1)) - 1 : long((1UL << type.bits) - 1);
        try {
            Isl<isl_set> universe = check(isl_set_universe(isl_space_params_alloc(ctx.get(), 0)), "the context");
            Isl<isl_pw_aff> v = check(isl_pw_aff_param_on_domain_id(universe.copy(), isl_id_alloc(ctx.get(), name.c_str(), nullptr)),
                                      "a parameter");
            Isl<isl_pw_aff> l = check(isl_pw_aff_val_on_domain(universe.copy(), isl_val_int_from_si(ctx.get(), lo)), "a bound");
            Isl<isl_pw_aff> h = check(isl_pw_aff_val_on_domain(universe.copy(), isl_val_int_from_si(ctx.get(), hi)), "a bound");
            Isl<isl_set> range = check(isl_set_intersect(isl_pw_aff_ge_set(v.copy(), l.release()), isl_pw_aff_le_set(v.copy(), h.release())),
                                       "a parameter's range");
            Isl<isl_set> &facts = type.bits == 32 ? nest.wide_ranges : nest.context;
            facts = check(isl_set_intersect(facts.copy(), range.copy()), "the context");
            nest.facts.emplace_back(std::move(range), false);
        } catch (const Unsupported &) {
            nest.unmodelled_assertions.push_back(name + " in the range of " + type.to_string() + " (the operation limit was reached)");
        }
    }
    ctx.reset_operations();
    nest.context_hull = Isl<isl_set>(isl_set_from_basic_set(isl_set_simple_hull(nest.context.copy())));
    return nest;
}

}  // namespace tessera::validator
