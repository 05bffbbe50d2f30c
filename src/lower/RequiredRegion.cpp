#include "lower/RequiredRegion.h"

#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRVisitor.h"

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
        const Add *add = as<Add>(op->extent);
        const Sub *sub = add ? as<Sub>(add->a) : nullptr;
        const IntImm *one = add ? as<IntImm>(add->b) : nullptr;
        if (sub && one && one->value == 1 && equal(sub->b, op->min)) {
            iv = Interval{lo.min, bounds(sub->a).max};
        } else {
            Interval hi = bounds(Sub::make(Add::make(op->min, op->extent), IntImm::make(op->min.type(), 1)));
            iv = Interval{lo.min, hi.max};
        }
        scope_.push(op->name, iv);
        include(op->body);
        scope_.pop(op->name);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        scope_.push(op->name, bounds(op->value));
        include(op->body);
        scope_.pop(op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        scope_.push(op->name, bounds(op->value));
        include(op->body);
        scope_.pop(op->name);
    }
    void visit(const ProducerConsumer *op) override {
        std::string saved = consumer_;
        if (op->is_producer) consumer_ = op->name;
        IRVisitor::visit(op);
        consumer_ = saved;
    }
    void visit(const Call *op) override {
        if (op->call_kind != CallKind::Intrinsic && op->name == name_) touch(op->args);
        IRVisitor::visit(op);
    }
    void visit(const Provide *op) override {
        if (writes_ && op->name == name_) touch(op->args);
        IRVisitor::visit(op);
    }

private:
    Interval bounds(const Expr &e) { return analysis::bounds_of_expr(e, scope_); }

    void touch(const std::vector<Expr> &args) {
        if (int(args.size()) != dims_) return;
        bool first = region.box.empty();
        if (first) {
            region.box.resize(size_t(dims_));
            region.unbounded_by.resize(size_t(dims_));
        }
        for (int i = 0; i < dims_; i++) {
            Interval iv = bounds(args[size_t(i)]);
            Interval &b = region.box[size_t(i)];
            b = first ? iv : analysis::interval_union(b, iv);
            if (!b.is_bounded() && region.unbounded_by[size_t(i)].empty()) region.unbounded_by[size_t(i)] = consumer_;
        }
    }

    std::string name_;
    int dims_;
    bool writes_;
    std::string consumer_;
    analysis::Scope scope_;
};

}  // namespace

RequiredRegion required_region(const Stmt &s, const std::string &name, int dims, bool writes) {
    Collector c(name, dims, writes);
    c.include(s);
    for (auto &iv : c.region.box) {
        if (iv.min.defined()) iv.min = analysis::simplify(iv.min);
        if (iv.max.defined()) iv.max = analysis::simplify(iv.max);
    }
    return c.region;
}

}  // namespace tessera::lower
