// Inlining: the default schedule computes a Func with only a pure definition wherever it
// is used, by substituting its definition into its callers (Halide's default).

#include <set>

#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

bool inlinable(const FunctionData &f, const FunctionData &output) {
    return &f != &output && f.definitions.size() == 1;
}

class InlineCalls : public IRMutator {
public:
    explicit InlineCalls(const FunctionData &output) : output_(output) {}

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Func || !inlinable(*c->func, output_)) return e;
        const FunctionData &g = *c->func;
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < g.args.size(); i++) args[g.args[i]] = c->args[i];
        // The substituted body may itself call inlinable Funcs.
        return mutate(substitute(args, g.definitions[0].value));
    }

private:
    const FunctionData &output_;
};

}  // namespace

PipelinePlan inline_functions(const std::shared_ptr<FunctionData> &output) {
    PipelinePlan plan;
    plan.output = output;
    InlineCalls inliner(*output);
    for (const auto &f : dependency_order(output)) {
        if (inlinable(*f, *output)) continue;
        FuncPlan p;
        p.func = f;
        p.is_output = f == output;
        p.storage = f->name;
        for (const Definition &d : f->definitions) {
            Definition e = d;
            for (Expr &a : e.args) a = inliner.mutate(a);
            e.value = inliner.mutate(e.value);
            for (Expr &pr : e.predicates) pr = inliner.mutate(pr);
            p.defs.push_back(std::move(e));
        }
        if (p.is_output) {
            // An update that writes through a reduction dimension may write outside the
            // output window; such an output is computed in its own storage and the window
            // copied out (notes/seed002.md §7.2).
            for (size_t s = 1; s < p.defs.size(); s++)
                for (bool pure : p.defs[s].pure_dims)
                    if (!pure) p.storage = f->name + ".tmp";
        }
        plan.funcs.push_back(std::move(p));
    }
    return plan;
}

FuncPlan &PipelinePlan::plan_of(const std::string &func_name) {
    for (FuncPlan &p : funcs)
        if (p.func->name == func_name) return p;
    throw InternalError("no plan for Func " + func_name);
}

std::string loop_var(const std::string &func, int stage, const std::string &var) {
    return func + ".s" + std::to_string(stage) + "." + var;
}
std::string loop_min(const std::string &func, int stage, const std::string &var) {
    return loop_var(func, stage, var) + ".min";
}
std::string loop_max(const std::string &func, int stage, const std::string &var) {
    return loop_var(func, stage, var) + ".max";
}

std::string dim_var_name(const Definition &d, int i) {
    const Variable *v = as<Variable>(d.args[size_t(i)]);
    return v ? v->name : "_" + std::to_string(i);
}

Expr buffer_min(const std::string &b, int dim) {
    return Variable::make(Int(32), b + ".min." + std::to_string(dim));
}
Expr buffer_extent(const std::string &b, int dim) {
    return Variable::make(Int(32), b + ".extent." + std::to_string(dim));
}
Expr buffer_stride(const std::string &b, int dim) {
    return Variable::make(Int(64), b + ".stride." + std::to_string(dim));
}

}  // namespace tessera::lower
