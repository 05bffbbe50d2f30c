// Storage flattening: multi-dimensional realizations and accesses become flat memory.
// A Realize becomes an Allocate (dense, in the Func's storage order: dimension 0 innermost
// unless reorder_storage says otherwise; a folded dimension holds only its fold's extent)
// with its descriptor variables; Provides and Func reads become Stores and Loads at Int(64) element offsets;
// image reads and output writes use the buffer descriptors of the pipeline's arguments.
// A Func with several values (a Tuple) gets one storage per value (f.0, f.1, ...: an
// Allocate each, or one output buffer each), of one shape; its Provide becomes one Store
// per value, after lets that compute every value from what the storage holds before.

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
        const std::vector<Type> types = p ? p->func->types() : std::vector<Type>{op->type};
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
        const std::vector<std::string> storages = value_storages(op->name, int(types.size()));
        for (const std::string &name : storages) folds_[name].push_back(fold);
        Stmt body = mutate(op->body);
        for (const std::string &name : storages) folds_[name].pop_back();

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
        for (size_t k = storages.size(); k-- > 0;) body = Allocate::make(storages[k], types[k], alloc_extents, body);
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
        for (const std::string &name : storages)
            for (int i = 0; i < n; i++) {
                std::string d = std::to_string(i);
                lets.emplace_back(name + ".min." + d, op->bounds[size_t(i)].min);
                lets.emplace_back(name + ".extent." + d, op->bounds[size_t(i)].extent);
                lets.emplace_back(name + ".stride." + d, strides[size_t(i)]);
            }
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
        return body;
    }

    Stmt visit(const Provide *op, const Stmt &self) override {
        (void)self;
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        const std::vector<Expr> values = tuple_components(op->value);
        if (values.size() == 1)
            return Store::make(op->name, mutate(op->value), index(op->name, args), mutate_provenance(op->provenance));
        // Every value is computed before any is stored: an update's values read the
        // Func's values before it.
        const std::vector<std::string> storages = value_storages(op->name, int(values.size()));
        std::vector<Stmt> stores;
        std::vector<std::pair<std::string, Expr>> computed;
        for (size_t k = 0; k < values.size(); k++) {
            const std::string name = storages[k] + ".value";
            computed.emplace_back(name, mutate(values[k]));
            std::shared_ptr<const Provenance> prov = mutate_provenance(op->provenance);
            if (prov) {
                auto own = std::make_shared<Provenance>(*prov);
                own->value_index = int(k);
                prov = own;
            }
            stores.push_back(Store::make(storages[k], Variable::make(values[k].type(), name), index(storages[k], args), prov));
        }
        Stmt s = Block::make(stores);
        for (auto it = computed.rbegin(); it != computed.rend(); ++it) s = LetStmt::make(it->first, it->second, s);
        return s;
    }

    Expr visit(const Call *op, const Expr &self) override {
        if (op->call_kind == CallKind::Intrinsic) return IRMutator::visit(op, self);
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        const std::string buffer = value_storages(op->name, op->func ? op->func->outputs() : 1).at(size_t(op->value_index));
        return Load::make(op->type, buffer, index(buffer, args));
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

/** The output of a Func with several values is one buffer per value (f.0, f.1, ...), all
 * over one window: the code before flattening reads the window as the output's (f.min.i,
 * f.extent.i), here bound to the first buffer's, and every other buffer must have it. */
Stmt bind_tuple_output_window(const FunctionData &out, Stmt s) {
    const int values = out.outputs();
    if (values == 1) return s;
    const std::vector<std::string> names = value_storages(out.name, values);
    const std::string &first = names[0];
    std::vector<Stmt> checks;
    for (int k = 1; k < values; k++) {
        const std::string &other = names[size_t(k)];
        for (int i = 0; i < out.dimensions(); i++) {
            Expr same = And::make(EQ::make(buffer_min(other, i), buffer_min(first, i)),
                                  EQ::make(buffer_extent(other, i), buffer_extent(first, i)));
            checks.push_back(AssertStmt::make(
                same, {text("Output buffers \"" + first + "\" and \"" + other + "\" of Func \"" + out.name +
                                       "\" (its values " + std::to_string(0) + " and " + std::to_string(k) +
                                       ") must cover one window, but dimension " + std::to_string(i) + " of the first is ["),
                       buffer_min(first, i), text(", +"), buffer_extent(first, i),
                       text(") and of the other ["), buffer_min(other, i), text(", +"),
                       buffer_extent(other, i), text(")")}));
        }
    }
    checks.push_back(s);
    s = Block::make(checks);
    for (int i = out.dimensions(); i-- > 0;) {
        const std::string d = std::to_string(i);
        s = LetStmt::make(out.name + ".min." + d, buffer_min(first, i), s);
        s = LetStmt::make(out.name + ".extent." + d, buffer_extent(first, i), s);
    }
    return s;
}

Stmt storage_flattening(const PipelinePlan &plan, Stmt s) {
    Flatten f(plan);
    return bind_tuple_output_window(*plan.output, f.mutate(s));
}

}  // namespace tessera::lower
