#include "lower/RequiredRegion.h"

#include "analysis/Inequality.h"
#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Substitute.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>

namespace tessera::lower {

using namespace ir;
using analysis::Interval;

namespace {

/** How many times each name is bound (by a let or a loop) in a statement. */
class CountBindings : public IRVisitor {
public:
    std::map<std::string, int> count;
    using IRVisitor::include;

protected:
    void visit(const For *op) override {
        count[op->name]++;
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        count[op->name]++;
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        count[op->name]++;
        IRVisitor::visit(op);
    }
};

// The bounds of a let's value or a loop's range are computed when a touched coordinate
// (or another binding's bounds) first needs them: most bindings are of names that no
// coordinate of the Funcs asked about depends on, and bounding them all was most of the
// time of lowering. Only a binding of a name bound once in the statement, whose defining
// expressions use only such names, is deferred (so that those names mean, when it is
// bounded, what they meant where it was made); an if that narrows a variable first bounds
// the deferred bindings that use it.
class Collector : public IRVisitor {
public:
    Collector(const Stmt &s, const std::vector<RegionQuery> &queries, bool name_large_bounds)
        : queries_(queries), found_(queries.size()), name_large_bounds_(name_large_bounds) {
        CountBindings c;
        c.include(s);
        bindings_ = std::move(c.count);
        if (name_large_bounds_) taken_ = names_in(s).vars;
    }
    using IRVisitor::include;

protected:
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        const Expr mn = op->min, ext = op->extent;
        const std::string name = op->name;
        bind(op->name, {mn, ext}, [this, mn, ext, name] {
            // Loops built by lowering have extent (max - min) + 1: read max off directly,
            // so the interval stays exactly [min, max].
            Interval lo = bounds(mn);
            // max(e, 0) runs the iterations of e when it is positive, none otherwise: the
            // range of the loop variable is within that of an extent e.
            Expr extent = ext;
            if (const Max *m = as<Max>(extent)) {
                const IntImm *zero = as<IntImm>(m->b);
                if (zero && zero->value == 0) extent = m->a;
            }
            const Add *add = as<Add>(extent);
            const Sub *sub = add ? as<Sub>(add->a) : nullptr;
            const IntImm *one = add ? as<IntImm>(add->b) : nullptr;
            if (sub && one && one->value == 1 && equal(sub->b, mn)) return named(name, Interval{lo.min, bounds(sub->a).max});
            Interval hi = bounds(Sub::make(Add::make(mn, extent), IntImm::make(mn.type(), 1)));
            return named(name, Interval{lo.min, hi.max});
        });
        varying_.insert(op->name);
        include(op->body);
        varying_.erase(op->name);
        unbind(op->name);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        const Expr value = op->value;
        const std::string name = op->name;
        bind(op->name, {value}, [this, value, name] { return named(name, bounds(value)); });
        define(name, value);
        include(op->body);
        undefine(name);
        unbind(op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        const Expr value = op->value;
        const std::string name = op->name;
        bind(op->name, {value}, [this, value, name] { return named(name, bounds(value)); });
        define(name, value);
        include(op->body);
        undefine(name);
        unbind(op->name);
    }
    void visit(const IfThenElse *op) override {
        include(op->condition);
        bound_variables_of(op->condition);
        auto narrowed = analysis::narrow_by_condition(op->condition, scope_);
        for (auto &[name, iv] : narrowed) bound_users_of(name);
        for (auto &[name, iv] : narrowed) push(name, iv), narrowed_[name]++;
        // Coordinates touched before the if are remembered: their intervals contain those
        // the conditions narrow. Those touched under the conditions are forgotten after.
        conditions_.push_back(op->condition);
        include(op->then_case);
        conditions_.pop_back();
        forget();
        for (auto &[name, iv] : narrowed) pop(name), narrowed_[name]--;
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
        if (op->call_kind != CallKind::Intrinsic) {
            for (size_t q = 0; q < queries_.size(); q++)
                if (op->name == queries_[q].name && found_[q].touched.insert(op->args).second) touch(q, op->args);
        }
        IRVisitor::visit(op);
    }
    void visit(const Provide *op) override {
        for (size_t q = 0; q < queries_.size(); q++)
            if (queries_[q].writes && op->name == queries_[q].name) touch(q, op->args);
        IRVisitor::visit(op);
    }

private:
    /** `iv`, the bounds of the binding `name`, with each large endpoint replaced by a
     * variable of its own (defined in lets_), where names are asked for. */
    Interval named(const std::string &name, Interval iv) {
        if (!name_large_bounds_) return iv;
        for (Expr *end : {&iv.min, &iv.max}) {
            if (!end->defined() || tree_size_below(*end, kLargeBound)) continue;
            const std::string v = unique_name(name + (end == &iv.min ? ".lower" : ".upper"), taken_);
            lets_.emplace_back(v, *end);
            *end = Variable::make(end->type(), v);
        }
        return iv;
    }
    static constexpr int kLargeBound = 256;

    /** The bounds of e: with the values of the lets it uses written in (expanded), then
     * bounded. Bounding a let's variable by the bounds of its value forgets how it relates
     * to other variables: where a tile's first and last channel are lets of the tile's
     * loop, the channels of its vector loop, min(c.min + 16 * i, c.max - 15), were bounded
     * as if c.min and c.max varied apart, down to 16 channels below the tile. */
    Interval bounds(const Expr &e) {
        const Expr x = expand_lets(e);
        bound_variables_of(x);
        return analysis::bounds_of_expr(x, scope_);
    }

    /** e with the values of the lets in `values_` written in, as long as it stays small, and
     * simplified (as an index: coordinates do not wrap), so that x - x cancels where both
     * sides came from one let. A let narrowed by an enclosing if stays a variable: its
     * narrowed bounds say more than its value. */
    Expr expand_lets(const Expr &e) const {
        constexpr int kExpansionBudget = 400;
        if (values_.empty()) return e;
        Expr x = e;
        bool expanded = false;
        for (int round = 0; round < 32; round++) {
            std::map<std::string, Expr> sub;
            for (const std::string &v : variables_in(x)) {
                auto it = values_.find(v);
                auto n = narrowed_.find(v);
                if (it != values_.end() && (n == narrowed_.end() || n->second == 0)) sub.emplace(v, it->second);
            }
            if (sub.empty()) break;
            const Expr y = substitute(sub, x);
            if (!tree_size_below(y, kExpansionBudget)) break;
            x = y;
            expanded = true;
        }
        return expanded ? analysis::simplify_index(x) : x;
    }
    /** A let the bounds may expand: one whose value varies with a loop of the statement
     * (else its bounds are its value itself, and nothing is lost), bound once in the
     * statement, as are the names its value uses (so that they mean there what they mean
     * where it is bound). */
    void define(const std::string &name, const Expr &value) {
        if (bindings_[name] != 1) return;
        bool varies = false;
        for (const std::string &v : variables_in(value)) {
            if (bindings_[v] > 1) return;
            varies = varies || varying_.count(v);
        }
        if (!varies) return;
        values_[name] = value;
        varying_.insert(name);
    }
    void undefine(const std::string &name) {
        values_.erase(name);
        varying_.erase(name);
    }

    /** Binds `name` to the interval `compute` returns, now or when first needed. */
    void bind(const std::string &name, const std::vector<Expr> &defining, std::function<Interval()> compute) {
        std::set<std::string> uses;
        for (const Expr &e : defining) {
            std::set<std::string> v = variables_in(e);
            uses.insert(v.begin(), v.end());
        }
        bool deferrable = bindings_[name] == 1;
        for (const std::string &v : uses) deferrable = deferrable && bindings_[v] <= 1;
        if (!deferrable) {
            push(name, compute());
            return;
        }
        push(name, Interval{});  // a placeholder, replaced before any use
        deferred_[name] = Deferred{std::move(compute), std::move(uses)};
    }
    void unbind(const std::string &name) {
        deferred_.erase(name);
        pop(name);
    }
    /** Replaces the placeholder of a deferred binding by its bounds. Its placeholder is the
     * innermost binding of the name: a narrowing of the name is preceded by this. */
    void bound_now(const std::string &name) {
        auto it = deferred_.find(name);
        if (it == deferred_.end() || !it->second.compute) return;
        std::function<Interval()> compute = std::move(it->second.compute);
        it->second.compute = nullptr;
        const Interval iv = compute();
        // The meaning of the binding is unchanged: the memo of nodes seen stays.
        scope_.pop(name);
        scope_.push(name, iv);
    }
    /** Computes the deferred bounds of the variables e uses. */
    void bound_variables_of(const Expr &e) {
        for (const std::string &v : variables_in(e)) bound_now(v);
    }
    /** Computes the deferred bounds that use `name`, before it is narrowed. */
    void bound_users_of(const std::string &name) {
        std::vector<std::string> users;
        for (const auto &[n, d] : deferred_)
            if (d.compute && d.uses.count(name)) users.push_back(n);
        for (const std::string &n : users) bound_now(n);
    }

    // Bindings change what a node means, so the memo of nodes seen starts afresh.
    void push(const std::string &name, const Interval &iv) {
        scope_.push(name, iv);
        forget();
    }
    void pop(const std::string &name) {
        scope_.pop(name);
        forget();
    }
    void forget() {
        seen_.clear();
        for (Found &f : found_) f.touched.clear();
    }

    // The endpoints of each dimension are collected as sets (equal ones are merged
    // before any union is built) and folded into one interval at the end: inlined
    // stencils touch the same few coordinates many times.
    void touch(size_t q, const std::vector<Expr> &args) {
        const int dims = queries_[q].dims;
        if (int(args.size()) != dims) return;
        Found &f = found_[q];
        if (f.mins.empty()) {
            f.mins.resize(size_t(dims));
            f.maxes.resize(size_t(dims));
            f.region.unbounded_by.resize(size_t(dims));
        }
        for (int i = 0; i < dims; i++) {
            Interval iv = bounds(args[size_t(i)]);
            limit_by_conditions(args[size_t(i)], iv);
            Endpoints &lo = f.mins[size_t(i)], &hi = f.maxes[size_t(i)];
            if (!iv.min.defined()) lo.unbounded = true;
            else if (!lo.unbounded) lo.exprs.insert(iv.min);
            if (!iv.max.defined()) hi.unbounded = true;
            else if (!hi.unbounded) hi.exprs.insert(iv.max);
            if (!iv.is_bounded() && f.region.unbounded_by[size_t(i)].empty()) f.region.unbounded_by[size_t(i)] = consumer_;
        }
    }

    /** Narrows `iv`, the bounds of coordinate `c`, by the comparisons of `c` itself in the
     * conditions of the ifs around (a guard on a tile's tail, `x0 * 32 + x1 < n`, bounds
     * the coordinate `x0 * 32 + x1` by n - 1, where the bounds of its terms, taken apart,
     * do not). */
    void limit_by_conditions(const Expr &c, Interval &iv) {
        if (conditions_.empty()) return;
        const Expr coordinate = analysis::simplify_index(c);
        auto is_coordinate = [&](const Expr &e) { return e.type() == c.type() && equal(analysis::simplify_index(e), coordinate); };
        for (const Expr &condition : conditions_) {
            const analysis::Limits limits = analysis::limits_of(condition, is_coordinate);
            for (const Expr &limit : limits.upper)
                if (const Expr hi = bounds(limit).max; hi.defined())
                    iv.max = analysis::simplify_index(iv.max.defined() ? Min::make(iv.max, hi) : hi);
            for (const Expr &limit : limits.lower)
                if (const Expr lo = bounds(limit).min; lo.defined())
                    iv.min = analysis::simplify_index(iv.min.defined() ? Max::make(iv.min, lo) : lo);
        }
    }

public:
    /** The regions, in the order of the queries. */
    std::vector<RequiredRegion> finish() {
        std::vector<RequiredRegion> regions;
        for (size_t q = 0; q < queries_.size(); q++) {
            Found &f = found_[q];
            if (!f.mins.empty()) {
                f.region.box.resize(size_t(queries_[q].dims));
                for (size_t i = 0; i < f.region.box.size(); i++) {
                    Interval &b = f.region.box[i];
                    b.min = fold<Min>(f.mins[i]);
                    b.max = fold<Max>(f.maxes[i]);
                }
            }
            f.region.lets = lets_;
            regions.push_back(std::move(f.region));
        }
        return regions;
    }

private:
    struct Endpoints {
        std::set<Expr, ExprLess> exprs;
        bool unbounded = false;
    };
    template<typename MinOrMax>
    static Expr fold(const Endpoints &ends) {
        if (ends.unbounded) return Expr();
        Expr e;
        for (const Expr &x : ends.exprs) e = e.defined() ? MinOrMax::make(e, x) : x;
        return analysis::simplify_index(e);
    }
    struct CoordinatesLess {
        bool operator()(const std::vector<Expr> &a, const std::vector<Expr> &b) const {
            return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), ExprLess());
        }
    };
    /** What one query has found. */
    struct Found {
        RequiredRegion region;
        std::vector<Endpoints> mins, maxes;
        std::set<std::vector<Expr>, CoordinatesLess> touched;  // coordinates already touched
    };

    const std::vector<RegionQuery> &queries_;
    std::vector<Found> found_;
    std::vector<Expr> conditions_;  // of the ifs around, in their then branches
    std::map<std::string, int> bindings_;  // how many times each name is bound in the statement
    struct Deferred {
        std::function<Interval()> compute;  // null once bounded
        std::set<std::string> uses;         // the variables its defining expressions use
    };
    std::map<std::string, Deferred> deferred_;
    std::string consumer_;
    const bool name_large_bounds_;
    std::map<std::string, Expr> values_;    // the lets in scope that bounds may expand
    std::set<std::string> varying_;         // the loops in scope, and the lets that vary with them
    std::map<std::string, int> narrowed_;   // names narrowed by enclosing ifs (a count)
    std::set<std::string> taken_;                       // the names in the statement and of lets_
    std::vector<std::pair<std::string, Expr>> lets_;  // the named bounds, in order
    analysis::Scope scope_;
    std::unordered_set<const Call *> seen_;
};

}  // namespace

std::vector<RequiredRegion> required_regions(const Stmt &s, const std::vector<RegionQuery> &queries) {
    Collector c(s, queries, false);
    c.include(s);
    return c.finish();
}

std::vector<RequiredRegion> required_regions_with_lets(const Stmt &s, const std::vector<RegionQuery> &queries) {
    Collector c(s, queries, true);
    c.include(s);
    return c.finish();
}

RequiredRegion required_region(const Stmt &s, const std::string &name, int dims, bool writes) {
    return required_regions(s, {RegionQuery{name, dims, writes}})[0];
}

}  // namespace tessera::lower
