// Which Funcs are computed, with what definitions: in() wrappers take the place of the
// Funcs they wrap in their callers, and inlined Funcs (compute_inline, and by default every
// Func with only a pure definition other than the output, as in Halide) are substituted
// into their callers.

#include <algorithm>
#include <functional>
#include <set>

#include "analysis/Inequality.h"
#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** Whether the predicates of update `d` bound `coordinate` by `limit`, at most (`above`)
 * or at least: a comparison of the coordinate itself (an RDom's `where` that cuts a tile's
 * tail at the end of the Func, as ATL's tiled programs have). */
bool predicates_limit(const Definition &d, const Expr &coordinate, const Expr &limit, bool above) {
    const Expr c = analysis::simplify(coordinate);
    auto is_coordinate = [&](const Expr &e) { return equal(analysis::simplify(e), c); };
    for (const Expr &p : d.predicates) {
        const analysis::Limits limits = analysis::limits_of(p, is_coordinate);
        for (const Expr &l : above ? limits.upper : limits.lower)
            if (analysis::can_prove(above ? LE::make(l, limit) : GE::make(l, limit))) return true;
    }
    return false;
}

/** Whether every update of the output `f` writes, in each of its reduction dimensions,
 * inside the region bound() fixes there (bound with a min and an extent), over every
 * point of its RDom where its predicates hold (the coordinate's interval over the RDom, or
 * a predicate that compares the coordinate itself): then its writes land in the output
 * buffer, which must be that region (src/lower/AddImageChecks.cpp), and the output needs
 * no storage of its own. */
bool writes_inside_bounds(const FunctionData &f, const std::vector<Definition> &defs) {
    for (size_t s = 1; s < defs.size(); s++) {
        const Definition &d = defs[s];
        for (size_t i = 0; i < d.pure_dims.size(); i++) {
            if (d.pure_dims[i]) continue;
            const ir::Bound *bound = nullptr;
            for (const ir::Bound &b : f.schedule.bounds)
                if (b.var == f.args[i]) {
                    bound = &b;  // the first, as bounds inference reads them
                    break;
                }
            if (!bound || !bound->min.defined() || !bound->extent.defined()) return false;
            analysis::Scope scope;
            if (d.rdom)
                for (const auto &dim : d.rdom->dims)
                    scope.push(dim.name, analysis::Interval{dim.min, Sub::make(Add::make(dim.min, dim.extent), IntImm::make(Int(32), 1))});
            const analysis::Interval written = analysis::bounds_of_expr(d.args[i], scope);
            const Expr last = Sub::make(Add::make(bound->min, bound->extent), IntImm::make(Int(32), 1));
            const bool from_min = (written.has_lower_bound() && analysis::can_prove(GE::make(written.min, bound->min))) ||
                                  predicates_limit(d, d.args[i], bound->min, false);
            const bool to_last = (written.has_upper_bound() && analysis::can_prove(LE::make(written.max, last))) ||
                                 predicates_limit(d, d.args[i], last, true);
            if (!from_min || !to_last) return false;
        }
    }
    return true;
}

bool is_inlined(const FunctionData &f, const FunctionData &output) {
    if (&f == &output) return false;
    const LoopLevel &level = f.schedule.compute_level;
    if (level.is_inlined()) return true;
    return !level.defined() && f.definitions.size() == 1;
}

/** The wrapper that replaces calls of `callee` inside `caller`, if any. */
std::shared_ptr<FunctionData> wrapper_for(const FunctionData &callee, const FunctionData &caller) {
    const auto &w = callee.schedule.wrappers;
    auto it = w.find(caller.name);
    if (it != w.end()) return it->second;
    it = w.find("");
    // A global wrapper replaces the Func everywhere except in the wrappers themselves.
    if (it != w.end() && caller.schedule.wraps != callee.name) return it->second;
    return nullptr;
}

class ApplyWrappers : public IRMutator {
public:
    explicit ApplyWrappers(const FunctionData &caller) : caller_(caller) {}

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        // An input wrapped by ImageParam::in(): its wrapper everywhere but in itself.
        if (c->call_kind == CallKind::Image && c->input && c->input->wrapper && c->input->wrapper.get() != &caller_)
            return Call::make_func(c->input->wrapper, c->args, c->value_index);
        if (c->call_kind != CallKind::Func || c->func.get() == &caller_) return e;
        // An extern Func is read as the image realize computes it into (src/lang/Extern.cpp):
        // at the root, before the pipeline, so it has no schedule of its own.
        if (c->func->extern_definition) {
            const FunctionData &g = *c->func;
            const LoopLevel &at = g.schedule.compute_level;
            if ((at.defined() && !at.is_root()) || g.schedule.store_level.defined() || g.definitions[0].schedule->touched)
                throw CompileError("Func \"" + g.name + "\" is computed by the C function \"" +
                                   g.extern_definition->function_name +
                                   "\" (define_extern), at the root before the pipeline that reads it, over the region "
                                   "it reads; it takes no schedule but compute_root()");
            return Call::make_input(g.extern_definition->image, c->args);
        }
        auto w = wrapper_for(*c->func, caller_);
        if (!w) return e;
        return Call::make_func(w, c->args, c->value_index);
    }

private:
    const FunctionData &caller_;
};

class InlineCalls : public IRMutator {
public:
    explicit InlineCalls(const std::map<const FunctionData *, Definition> &inlined) : inlined_(inlined) {}

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Func) return e;
        auto it = inlined_.find(c->func.get());
        if (it == inlined_.end()) return e;
        const FunctionData &g = *c->func;
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < g.args.size(); i++) args[g.args[i]] = c->args[i];
        // The substituted body may itself call inlined Funcs.
        return mutate(substitute(args, tuple_components(it->second.value).at(size_t(c->value_index))));
    }

private:
    const std::map<const FunctionData *, Definition> &inlined_;
};

/** Calls of computed Funcs read their storage (FuncPlan::storage). */
class CallStorage : public IRMutator {
public:
    explicit CallStorage(const PipelinePlan &plan) : plan_(plan) {}

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Func) return e;
        const FuncPlan *p = plan_.find(c->func.get());
        if (!p || p->storage == c->name) return e;
        auto renamed = std::make_shared<Call>(*c);
        renamed->name = p->storage;
        return Expr(std::shared_ptr<const ExprNode>(std::move(renamed)));
    }

private:
    const PipelinePlan &plan_;
};

template<typename F>
Definition map_definition(const Definition &d, F &&f) {
    Definition e = d;
    for (Expr &a : e.args) a = f(a);
    e.value = f(e.value);
    for (Expr &p : e.predicates) p = f(p);
    return e;
}

/** The names the pipeline's own objects have in lowered code: its Params, its images
 * (their buffer descriptor variables start with them) and the output buffer. */
std::set<std::string> user_names(const std::vector<std::shared_ptr<FunctionData>> &funcs, const FunctionData &output) {
    struct Collect : IRVisitor {
        std::set<std::string> names;
        using IRVisitor::include;
        void visit(const Variable *op) override {
            if (op->var_kind == VarKind::Param) names.insert(op->name);
            if (op->var_kind == VarKind::InputBound && op->input) names.insert(op->input->name);
        }
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Image) names.insert(op->name);
            IRVisitor::visit(op);
        }
        void include(const StageSchedule &s) {
            for (const Split &sp : s.splits) include(sp.factor);
            for (const Specialization &sp : s.specializations) {
                include(sp.condition);
                if (sp.schedule) include(*sp.schedule);
            }
        }
    } c;
    for (const auto &f : funcs) {
        for (const Definition &d : f->definitions) {
            for (const Expr &a : d.args) c.include(a);
            c.include(d.value);
            for (const Expr &pr : d.predicates) c.include(pr);
            if (d.rdom)
                for (const auto &dim : d.rdom->dims) {
                    c.include(dim.min);
                    c.include(dim.extent);
                }
            if (d.schedule) c.include(*d.schedule);
        }
        for (const Bound &b : f->schedule.bounds)
            for (const Expr &e : {b.min, b.extent, b.modulus, b.remainder}) c.include(e);
        for (const StorageFold &fd : f->schedule.folds) c.include(fd.extent);
    }
    c.names.insert(output.name);
    return c.names;
}

/** The prefix of the names lowering makes for Func `name` (FuncPlan::prefix): the name
 * with every '.' made '_', and '_' appended while it equals another Func's prefix or a
 * name of `reserved`, or starts a name of `reserved` followed by a '.'. Names made from a
 * prefix, "<prefix>.<rest>", are then never made from another Func's, and are never a
 * Param's or a buffer's. */
std::string lowering_prefix(const std::string &name, const std::set<std::string> &reserved,
                            std::set<std::string> &prefixes) {
    std::string p = name;
    std::replace(p.begin(), p.end(), '.', '_');
    auto taken = [&](const std::string &q) {
        if (prefixes.count(q) || reserved.count(q)) return true;
        auto it = reserved.lower_bound(q + ".");
        return it != reserved.end() && it->compare(0, q.size() + 1, q + ".") == 0;
    };
    while (taken(p)) p += "_";
    prefixes.insert(p);
    return p;
}

}  // namespace

PipelinePlan inline_functions(const std::shared_ptr<FunctionData> &output) {
    // Every Func the output depends on once wrappers are applied, producers first, with
    // its definitions as its callers see them.
    std::vector<std::shared_ptr<FunctionData>> order;
    std::map<const FunctionData *, std::vector<Definition>> defs;
    std::function<void(const std::shared_ptr<FunctionData> &)> visit = [&](const std::shared_ptr<FunctionData> &f) {
        if (defs.count(f.get())) return;
        ApplyWrappers wrap(*f);
        std::vector<Definition> ds;
        for (const Definition &d : f->definitions) ds.push_back(map_definition(d, [&](const Expr &e) { return wrap.mutate(e); }));
        defs[f.get()] = ds;
        struct Callees : IRVisitor {
            std::vector<std::shared_ptr<FunctionData>> found;
            const FunctionData *self = nullptr;
            using IRVisitor::include;
            void visit(const Call *op) override {
                if (op->call_kind == CallKind::Func && op->func.get() != self) found.push_back(op->func);
                IRVisitor::visit(op);
            }
        } callees;
        callees.self = f.get();
        for (const Definition &d : ds) {
            for (const Expr &a : d.args) callees.include(a);
            callees.include(d.value);
            for (const Expr &p : d.predicates) callees.include(p);
        }
        for (const auto &c : callees.found) visit(c);
        order.push_back(f);
    };
    visit(output);

    for (const auto &f : order)
        if (f->definitions.size() == 1 && is_undef(f->definitions[0].value))
            throw CompileError("Func \"" + f->name + "\" is defined as undef and has no update, so it has no values; "
                               "undef is the pure definition of a Func whose updates write its values");

    std::map<const FunctionData *, Definition> inlined;
    for (const auto &f : order)
        if (is_inlined(*f, *output)) {
            if (f->definitions.size() > 1)
                throw CompileError("Func \"" + f->name +
                                   "\" is scheduled inline but has update definitions; compute it with "
                                   "compute_root() or compute_at()");
            if (f->definitions[0].schedule->touched)
                throw CompileError("Func \"" + f->name + "\" is computed inline (" +
                                   (f->schedule.compute_level.is_inlined()
                                        ? std::string("compute_inline()")
                                        : std::string("the default for a Func with only a pure definition")) +
                                   "), but its loops are scheduled (" + f->definitions[0].schedule->history.front() +
                                   "): an inlined Func has no loops of its own. Compute it with compute_root() or "
                                   "compute_at() to keep the loop directives");
            if (f->schedule.store_level.defined())
                throw CompileError("Func \"" + f->name + "\" is computed inline but has a storage level (" +
                                   f->schedule.store_level.to_string() +
                                   "); an inlined Func has no storage. Compute it with compute_root() or compute_at()");
            inlined[f.get()] = defs[f.get()][0];
        }

    PipelinePlan plan;
    plan.output = output;
    InlineCalls inliner(inlined);
    const std::set<std::string> reserved = user_names(order, *output);
    std::set<std::string> prefixes;
    for (const auto &f : order) {
        if (inlined.count(f.get())) continue;
        FuncPlan p;
        p.func = f;
        p.is_output = f == output;
        // The output buffer's own variables ("out.min.0") are named like the output Func's
        // ("out.s0.x"), and never alike.
        std::set<std::string> others = reserved;
        if (p.is_output) others.erase(f->name);
        p.prefix = lowering_prefix(f->name, others, prefixes);
        p.storage = p.is_output ? f->name : p.prefix;  // the output: the caller's buffer
        for (const Definition &d : defs[f.get()])
            p.defs.push_back(map_definition(d, [&](const Expr &e) { return inliner.mutate(e); }));
        if (p.is_output && !writes_inside_bounds(*f, p.defs)) {
            // An update that writes through a reduction dimension may write outside the
            // output window; such an output is computed in its own storage and the window
            // copied out (regression R2, docs/semantics.md §14).
            for (size_t s = 1; s < p.defs.size(); s++)
                for (bool pure : p.defs[s].pure_dims)
                    if (!pure) p.storage = p.prefix + ".tmp";
        }
        plan.funcs.push_back(std::move(p));
    }
    CallStorage storage(plan);
    for (FuncPlan &p : plan.funcs)
        for (Definition &d : p.defs) d = map_definition(d, [&](const Expr &e) { return storage.mutate(e); });
    return plan;
}

}  // namespace tessera::lower
