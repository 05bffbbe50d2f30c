// The state the lowering passes share (src/lower/Pipeline.h): finding a Func's plan, loops
// as compute and store sites, and the names lowering makes.

#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

FuncPlan &PipelinePlan::plan_of(const FunctionData *f) {
    for (FuncPlan &p : funcs)
        if (p.func.get() == f) return p;
    throw InternalError("no plan for Func " + f->name);
}

const FuncPlan *PipelinePlan::find(const FunctionData *f) const {
    for (const FuncPlan &p : funcs)
        if (p.func.get() == f) return &p;
    return nullptr;
}

const FuncPlan *PipelinePlan::find(const std::string &func_name) const {
    for (const FuncPlan &p : funcs)
        if (p.func->name == func_name) return &p;
    return nullptr;
}

const FuncPlan *PipelinePlan::find_storage(const std::string &storage) const {
    for (const FuncPlan &p : funcs)
        if (p.storage == storage) return &p;
    return nullptr;
}

bool is_site(const For *loop, const std::shared_ptr<const LoopId> &site) {
    return site && loop->loop && loop->loop->same_loop(*site);
}

bool same_site(const std::shared_ptr<const LoopId> &a, const std::shared_ptr<const LoopId> &b) {
    return (!a && !b) || (a && b && a->same_loop(*b));
}

std::string describe_loop(const For *loop) {
    return loop->loop ? loop->loop->describe() : "the loop " + loop->name;
}

std::string loop_var(const FuncPlan &p, int stage, const std::string &loop) {
    return p.prefix + ".s" + std::to_string(stage) + "." + loop;
}
std::string loop_min(const FuncPlan &p, int stage, const std::string &loop) { return loop_var(p, stage, loop) + ".min"; }
std::string loop_max(const FuncPlan &p, int stage, const std::string &loop) { return loop_var(p, stage, loop) + ".max"; }

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
