// Loop-nest synthesis: each computed Func's definitions become loop nests (pure loops
// outside, RDom loops inside with r.x innermost, dimension 0 innermost), and each Func's
// realization is placed at its compute site.

#include <algorithm>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

// Renames reads of one Func (an output realized under another name).
class RenameCalls : public IRMutator {
public:
    RenameCalls(const FunctionData *f, std::string to) : f_(f), to_(std::move(to)) {}

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Func || c->func.get() != f_) return e;
        auto renamed = std::make_shared<Call>(*c);
        renamed->name = to_;
        return Expr(std::shared_ptr<const ExprNode>(std::move(renamed)));
    }

private:
    const FunctionData *f_;
    std::string to_;
};

Stmt build_stage(const FuncPlan &p, int s) {
    const FunctionData &f = *p.func;
    const Definition &d = p.defs[size_t(s)];
    std::map<std::string, Expr> subs;
    const int n = f.dimensions();
    for (int i = 0; i < n; i++) {
        if (!d.pure_dims[size_t(i)]) continue;
        std::string v = dim_var_name(d, i);
        subs[v] = Variable::make(Int(32), loop_var(f.name, s, v));
    }
    std::vector<std::pair<std::string, Expr>> rvars;
    if (d.rdom) {
        for (const auto &dim : d.rdom->dims) {
            Expr lv = Variable::make(Int(32), loop_var(f.name, s, dim.name));
            subs[dim.name] = lv;
            rvars.emplace_back(dim.name, lv);
        }
    }
    RenameCalls rename(&f, p.storage);
    auto lowered = [&](const Expr &e) {
        Expr r = substitute(subs, e);
        return p.storage == f.name ? r : rename.mutate(r);
    };
    std::vector<Expr> args;
    for (const Expr &a : d.args) args.push_back(lowered(a));
    auto prov = std::make_shared<Provenance>();
    prov->func = f.name;
    prov->stage = s;
    prov->coords = args;
    prov->rvars = rvars;
    Stmt body = Provide::make(p.storage, lowered(d.value), args, prov);
    if (!d.predicates.empty()) {
        Expr cond;
        for (const Expr &pr : d.predicates) cond = cond.defined() ? And::make(cond, lowered(pr)) : lowered(pr);
        body = IfThenElse::make(cond, body);
    }
    if (d.rdom) {
        // r.x (dimension 0) is wrapped first, so it is the innermost loop.
        for (const auto &dim : d.rdom->dims)
            body = For::make(loop_var(f.name, s, dim.name), dim.min, dim.extent, ForType::Serial, body);
    }
    for (int i = 0; i < n; i++) {
        if (!d.pure_dims[size_t(i)]) continue;
        std::string v = dim_var_name(d, i);
        Expr mn = Variable::make(Int(32), loop_min(f.name, s, v));
        Expr mx = Variable::make(Int(32), loop_max(f.name, s, v));
        body = For::make(loop_var(f.name, s, v), mn, Add::make(Sub::make(mx, mn), IntImm::make(Int(32), 1)),
                         ForType::Serial, body);
    }
    return body;
}

/** The loops enclosing each call to a Func, to find the innermost loop enclosing all. */
class CallSites : public IRVisitor {
public:
    explicit CallSites(std::string name) : name_(std::move(name)) {}
    std::vector<std::vector<std::string>> sites;
    using IRVisitor::include;

protected:
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        stack_.push_back(op->name);
        include(op->body);
        stack_.pop_back();
    }
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Func && op->name == name_) sites.push_back(stack_);
        IRVisitor::visit(op);
    }

private:
    std::string name_;
    std::vector<std::string> stack_;
};

std::string innermost_common_loop(const Stmt &s, const std::string &func) {
    CallSites sites(func);
    sites.include(s);
    if (sites.sites.empty()) return "";
    std::vector<std::string> common = sites.sites[0];
    for (const auto &st : sites.sites) {
        size_t k = 0;
        while (k < common.size() && k < st.size() && common[k] == st[k]) k++;
        common.resize(k);
    }
    return common.empty() ? "" : common.back();
}

Stmt realization(const FuncPlan &p, const Stmt &consumer) {
    std::vector<Stmt> stages(p.stages.begin(), p.stages.end());
    Stmt produce = ProducerConsumer::make(p.storage, true, Block::make(stages));
    Stmt consume = ProducerConsumer::make(p.storage, false, consumer);
    const FunctionData &f = *p.func;
    ir::Region bounds;
    for (int i = 0; i < f.dimensions(); i++) {
        Expr mn = Variable::make(Int(32), loop_min(f.name, 0, f.args[size_t(i)]));
        Expr mx = Variable::make(Int(32), loop_max(f.name, 0, f.args[size_t(i)]));
        bounds.push_back({mn, Add::make(Sub::make(mx, mn), IntImm::make(Int(32), 1))});
    }
    return Realize::make(p.storage, f.type, bounds, Block::make(produce, consume));
}

class InjectRealization : public IRMutator {
public:
    InjectRealization(const FuncPlan &p) : p_(p) {}

protected:
    Stmt visit(const For *op, const Stmt &self) override {
        if (op->name != p_.compute_site) return IRMutator::visit(op, self);
        return For::make(op->name, op->min, op->extent, op->for_type, realization(p_, op->body));
    }

private:
    const FuncPlan &p_;
};

}  // namespace

Stmt schedule_functions(PipelinePlan &plan) {
    for (FuncPlan &p : plan.funcs)
        for (int s = 0; s < int(p.defs.size()); s++) p.stages.push_back(build_stage(p, s));

    // The output: its stages, and the copy of the window if it has its own storage.
    FuncPlan &out = plan.funcs.back();
    const FunctionData &f = *out.func;
    Stmt s = ProducerConsumer::make(out.storage, true, Block::make(out.stages));
    if (out.storage != f.name) {
        std::vector<Expr> coords;
        for (int i = 0; i < f.dimensions(); i++)
            coords.push_back(Variable::make(Int(32), loop_var(f.name, int(out.defs.size()), f.args[size_t(i)])));
        auto read = std::make_shared<Call>(f.type, out.storage, coords, CallKind::Func);
        read->func = out.func;
        auto prov = std::make_shared<Provenance>();
        prov->func = f.name;
        prov->stage = int(out.defs.size()) - 1;
        prov->coords = coords;
        Stmt copy = Provide::make(f.name, Expr(std::shared_ptr<const ExprNode>(read)), coords, prov);
        for (int i = 0; i < f.dimensions(); i++)
            copy = For::make(loop_var(f.name, int(out.defs.size()), f.args[size_t(i)]), buffer_min(f.name, i),
                             buffer_extent(f.name, i), ForType::Serial, copy);
        s = realization(out, copy);
    }

    // Producers, consumers first: each is placed around the innermost loop enclosing all
    // its uses, so that it is computed before them and as locally as possible.
    for (int k = int(plan.funcs.size()) - 2; k >= 0; k--) {
        FuncPlan &p = plan.funcs[size_t(k)];
        p.compute_site = innermost_common_loop(s, p.storage);
        if (p.compute_site.empty()) {
            s = realization(p, s);
        } else {
            InjectRealization inject(p);
            s = inject.mutate(s);
        }
    }
    return s;
}

}  // namespace tessera::lower
