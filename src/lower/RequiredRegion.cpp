#include "lower/RequiredRegion.h"

#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRVisitor.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace tessera::lower {

using namespace ir;
using analysis::Interval;

namespace {

class Collector : public IRVisitor {
public:
    Collector(const std::string &name, int dims, bool writes) : name_(name), dims_(dims), writes_(writes) {}
    RequiredRegion region;
    using IRVisitor::include;

protected:
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        // Loops built by lowering have extent (max - min) + 1: read max off directly, so
        // the interval stays exactly [min, max].
        Interval iv;
        Interval lo = bounds(op->min);
        // max(e, 0) runs the iterations of e when it is positive, none otherwise: the
        // range of the loop variable is within that of an extent e.
        Expr extent = op->extent;
        if (const Max *m = as<Max>(extent)) {
            const IntImm *zero = as<IntImm>(m->b);
            if (zero && zero->value == 0) extent = m->a;
        }
        const Add *add = as<Add>(extent);
        const Sub *sub = add ? as<Sub>(add->a) : nullptr;
        const IntImm *one = add ? as<IntImm>(add->b) : nullptr;
        if (sub && one && one->value == 1 && equal(sub->b, op->min)) {
            iv = Interval{lo.min, bounds(sub->a).max};
        } else {
            Interval hi = bounds(Sub::make(Add::make(op->min, extent), IntImm::make(op->min.type(), 1)));
            iv = Interval{lo.min, hi.max};
        }
        push(op->name, iv);
        include(op->body);
        pop(op->name);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        push(op->name, bounds(op->value));
        include(op->body);
        pop(op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        push(op->name, bounds(op->value));
        include(op->body);
        pop(op->name);
    }
    void visit(const IfThenElse *op) override {
        include(op->condition);
        auto narrowed = analysis::narrow_by_condition(op->condition, scope_);
        for (auto &[name, iv] : narrowed) push(name, iv);
        include(op->then_case);
        for (auto &[name, iv] : narrowed) pop(name);
        if (op->else_case.defined()) include(op->else_case);
    }
    void visit(const ProducerConsumer *op) override {
        std::string saved = consumer_;
        if (op->is_producer) consumer_ = op->name;
        IRVisitor::visit(op);
        consumer_ = saved;
    }
    void visit(const Call *op) override {
        // Inlining makes expressions DAGs: a call node reached again under the same
        // bindings adds nothing, and neither do equal coordinates seen before.
        if (!seen_.insert(op).second) return;
        if (op->call_kind != CallKind::Intrinsic && op->name == name_) {
            if (touched_.insert(op->args).second) touch(op->args);
        }
        IRVisitor::visit(op);
    }
    void visit(const Provide *op) override {
        if (writes_ && op->name == name_) touch(op->args);
        IRVisitor::visit(op);
    }

private:
    Interval bounds(const Expr &e) { return analysis::bounds_of_expr(e, scope_); }

    // Bindings change what a node means, so the memo of nodes seen starts afresh.
    void push(const std::string &name, const Interval &iv) {
        scope_.push(name, iv);
        seen_.clear();
        touched_.clear();
    }
    void pop(const std::string &name) {
        scope_.pop(name);
        seen_.clear();
        touched_.clear();
    }

    // The endpoints of each dimension are collected as sets (equal ones are merged
    // before any union is built) and folded into one interval at the end: inlined
    // stencils touch the same few coordinates many times.
    void touch(const std::vector<Expr> &args) {
        if (int(args.size()) != dims_) return;
        if (mins_.empty()) {
            mins_.resize(size_t(dims_));
            maxes_.resize(size_t(dims_));
            region.unbounded_by.resize(size_t(dims_));
            touched_any_ = true;
        }
        for (int i = 0; i < dims_; i++) {
            Interval iv = bounds(args[size_t(i)]);
            Endpoints &lo = mins_[size_t(i)], &hi = maxes_[size_t(i)];
            if (!iv.min.defined()) lo.unbounded = true;
            else if (!lo.unbounded) lo.exprs.insert(iv.min);
            if (!iv.max.defined()) hi.unbounded = true;
            else if (!hi.unbounded) hi.exprs.insert(iv.max);
            if (!iv.is_bounded() && region.unbounded_by[size_t(i)].empty()) region.unbounded_by[size_t(i)] = consumer_;
        }
    }

public:
    void finish() {
        if (!touched_any_) return;
        region.box.resize(size_t(dims_));
        for (int i = 0; i < dims_; i++) {
            Interval &b = region.box[size_t(i)];
            const Endpoints &lo = mins_[size_t(i)], &hi = maxes_[size_t(i)];
            bool first = true;
            for (const Expr &e : lo.exprs) b.min = first ? e : Min::make(b.min, e), first = false;
            first = true;
            for (const Expr &e : hi.exprs) b.max = first ? e : Max::make(b.max, e), first = false;
            if (lo.unbounded) b.min = Expr();
            if (hi.unbounded) b.max = Expr();
        }
    }

private:
    struct Endpoints {
        std::set<Expr, ExprLess> exprs;
        bool unbounded = false;
    };
    std::vector<Endpoints> mins_, maxes_;
    bool touched_any_ = false;

    std::string name_;
    int dims_;
    bool writes_;
    std::string consumer_;
    analysis::Scope scope_;
    std::unordered_set<const Call *> seen_;
    struct CoordinatesLess {
        bool operator()(const std::vector<Expr> &a, const std::vector<Expr> &b) const {
            return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), ExprLess());
        }
    };
    std::set<std::vector<Expr>, CoordinatesLess> touched_;  // coordinates already touched
};

}  // namespace

RequiredRegion required_region(const Stmt &s, const std::string &name, int dims, bool writes) {
    Collector c(name, dims, writes);
    c.include(s);
    c.finish();
    for (auto &iv : c.region.box) {
        if (iv.min.defined()) iv.min = analysis::simplify_index(iv.min);
        if (iv.max.defined()) iv.max = analysis::simplify_index(iv.max);
    }
    return c.region;
}

}  // namespace tessera::lower
