// Storage flattening: multi-dimensional realizations and accesses become flat memory.
// A Realize becomes an Allocate (dense, in the Func's storage order: dimension 0 innermost
// unless reorder_storage says otherwise; a folded dimension holds only its fold's extent)
// with its descriptor variables; Provides and Func reads become Stores and Loads at Int(64) element offsets;
// image reads and output writes use the buffer descriptors of the pipeline's arguments.

#include <algorithm>

#include "analysis/Interval.h"
#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

Expr i64(const Expr &e) { return e.type() == Int(64) ? e : Cast::make(Int(64), e); }

class Flatten : public IRMutator {
public:
    explicit Flatten(const PipelinePlan &plan) : plan_(plan) {}

protected:
    Stmt visit(const Realize *op, const Stmt &self) override {
        (void)self;
        const FuncPlan *p = plan_of_storage(op->name);
        const int n = int(op->bounds.size());
        // Storage order (innermost first) and folds.
        std::vector<int> order;
        std::vector<Expr> fold(static_cast<size_t>(n));
        if (p) {
            const FunctionData &f = *p->func;
            for (const std::string &v : f.schedule.storage_order)
                for (int i = 0; i < n; i++)
                    if (f.args[size_t(i)] == v) order.push_back(i);
            for (const auto &[var, extent] : p->folds)
                for (int i = 0; i < n; i++)
                    if (f.args[size_t(i)] == var) fold[size_t(i)] = extent;
        }
        for (int i = 0; i < n; i++)
            if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
        folds_[op->name].push_back(fold);
        Stmt body = mutate(op->body);
        folds_[op->name].pop_back();

        std::vector<Expr> extents(static_cast<size_t>(n));
        for (int i = 0; i < n; i++) {
            Expr e = fold[size_t(i)].defined() ? fold[size_t(i)] : op->bounds[size_t(i)].extent;
            // A region with a small constant upper bound (a tile) gets that constant as its
            // allocated extent: the strides become constants, so the C compiler sees that
            // the rows of the tile do not overlap and can keep them in registers.
            int64_t k = 0;
            if (!fold[size_t(i)].defined() && constant_extent_bound(e, k)) e = IntImm::make(Int(64), k);
            extents[size_t(i)] = Max::make(i64(e), IntImm::make(Int(64), 0));
        }
        std::vector<Expr> alloc_extents;
        for (int i : order) alloc_extents.push_back(extents[size_t(i)]);
        body = Allocate::make(op->name, op->type, alloc_extents, body);
        // Descriptor variables: dense, in storage order.
        Expr stride = IntImm::make(Int(64), 1);
        std::vector<std::pair<std::string, Expr>> lets;
        std::vector<Expr> strides(static_cast<size_t>(n));
        for (int i : order) {
            strides[size_t(i)] = stride;
            stride = Mul::make(stride, extents[size_t(i)]);
        }
        if (testing::injects(testing::Mutation::StrideFromWrongDimension)) {
            // Each stride after the first multiplies the extents up to its own dimension,
            // skipping the innermost: stride k is extent 1 * ... * extent k.
            Expr wrong = IntImm::make(Int(64), 1);
            for (size_t k = 1; k < order.size(); k++) {
                wrong = Mul::make(wrong, extents[size_t(order[k])]);
                strides[size_t(order[k])] = wrong;
            }
        }
        for (int i = 0; i < n; i++) {
            std::string d = std::to_string(i);
            lets.emplace_back(op->name + ".min." + d, op->bounds[size_t(i)].min);
            lets.emplace_back(op->name + ".extent." + d, op->bounds[size_t(i)].extent);
            lets.emplace_back(op->name + ".stride." + d, strides[size_t(i)]);
        }
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
        return body;
    }

    Stmt visit(const Provide *op, const Stmt &self) override {
        (void)self;
        Expr value = mutate(op->value);
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        return Store::make(op->name, value, index(op->name, args), mutate_provenance(op->provenance));
    }

    Expr visit(const Call *op, const Expr &self) override {
        if (op->call_kind == CallKind::Intrinsic) return IRMutator::visit(op, self);
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        return Load::make(op->type, op->name, index(op->name, args));
    }

    Stmt visit(const ProducerConsumer *op, const Stmt &self) override {
        (void)self;
        return mutate(op->body);
    }

    Stmt visit(const LetStmt *op, const Stmt &self) override {
        lets_.emplace_back(op->name, op->value);
        Stmt s = IRMutator::visit(op, self);
        lets_.pop_back();
        return s;
    }

private:
    /** A constant upper bound of an extent, with the enclosing lets it uses substituted,
     * if it is small (at most kMaxConstantExtent). */
    bool constant_extent_bound(const Expr &extent, int64_t &k) const {
        constexpr int64_t kMaxConstantExtent = 4096;
        return analysis::constant_upper_bound(extent, lets_, k) && k > 0 && k <= kMaxConstantExtent;
    }

    const FuncPlan *plan_of_storage(const std::string &name) const {
        for (const FuncPlan &p : plan_.funcs)
            if (p.storage == name) return &p;
        return nullptr;
    }

    /** The flat index of a point: a folded dimension uses the coordinate modulo the fold
     * (Euclidean, so never negative) instead of its offset from the min. */
    Expr index(const std::string &buffer, const std::vector<Expr> &args) const {
        auto it = folds_.find(buffer);
        const std::vector<Expr> *fold = it != folds_.end() && !it->second.empty() ? &it->second.back() : nullptr;
        Expr index;
        for (size_t i = 0; i < args.size(); i++) {
            Expr offset = fold && (*fold)[i].defined() ? Mod::make(i64(args[i]), i64((*fold)[i]))
                                                        : Sub::make(widen_coordinate(args[i]), i64(buffer_min(buffer, int(i))));
            Expr term = Mul::make(offset, buffer_stride(buffer, int(i)));
            index = index.defined() ? Add::make(index, term) : term;
        }
        return index.defined() ? index : IntImm::make(Int(64), 0);
    }

    const PipelinePlan &plan_;
    std::vector<std::pair<std::string, Expr>> lets_;
    std::map<std::string, std::vector<std::vector<Expr>>> folds_;
};

}  // namespace

Stmt storage_flattening(const PipelinePlan &plan, Stmt s) {
    Flatten f(plan);
    return f.mutate(s);
}

}  // namespace tessera::lower
