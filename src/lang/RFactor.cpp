// rfactor: an associative and commutative update f(lhs) = f(lhs) op e over an RDom is
// split in two. An intermediate Func computes, for each value of the preserved RVars (now
// pure Vars), the reduction over the other RVars; f's update then merges those partial
// results over the preserved RVars:
//
//   f(x) = f(x) op e(x, r.x, r.y)        rfactor(r.y, u)
//   ->  intm(x, u) = identity;  intm(x, u) = intm(x, u) op e(x, r.x, u)   [RDom r.x]
//       f(x) = f(x) op intm(x, r.y)                                      [RDom r.y]
//
// The pure Var u can then be scheduled in parallel or as vector lanes. Regrouping is exact
// only for operators that are associative and commutative on their type, so float
// reductions are refused (Tessera keeps float results bit-exact).

#include <algorithm>
#include <set>

#include "analysis/Associativity.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"
#include "ir/Function.h"
#include "ir/Schedule.h"
#include "lang/Scheduling.h"
#include "tessera/Func.h"
#include "tessera/IROperator.h"

namespace tessera {

using namespace ir;

Func Stage::rfactor(const RVar &r, const Var &v) { return rfactor(std::vector<std::pair<RVar, Var>>{{r, v}}); }

Func Stage::rfactor(const std::vector<std::pair<RVar, Var>> &preserved) {
    std::string text = "rfactor(";
    for (size_t k = 0; k < preserved.size(); k++)
        text += (k ? ", " : "") + std::string("{") + preserved[k].first.name() + ", " + preserved[k].second.name() + "}";
    text += ")";
    auto fail = [&](const std::string &why) -> Func {
        throw CompileError("In the schedule of " + (func_ ? describe_definition(*func_, stage_) : std::string("?")) +
                           ": " + text + ": " + why);
    };
    if (!func_ || stage_ < 1 || stage_ >= int(func_->definitions.size()))
        return fail("rfactor applies to an update definition with an RDom");
    FunctionData &f = *func_;
    if (schedule_ != f.definitions[size_t(stage_)].schedule)
        return fail("rfactor cannot be applied to a specialization");
    const Definition d = f.definitions[size_t(stage_)];
    if (!d.rdom) return fail("the update has no RDom to factor");
    auto assoc = analysis::associative_update(f, d);
    if (!assoc) {
        if (d.value.type().is_float())
            return fail("the update has type " + d.value.type().to_string() +
                        "; regrouping a float reduction changes its result, so rfactor only applies to integer "
                        "reductions");
        return fail("the update is not of the form " + f.name + "(...) = " + f.name +
                    "(...) op e with op one of + * min max & | ^ and e not reading " + f.name);
    }
    for (size_t i = 0; i < d.pure_dims.size(); i++)
        if (!d.pure_dims[i])
            return fail("argument " + std::to_string(i) + " of the left-hand side (" + to_string(d.args[i]) +
                        ") is not a pure Var; rfactor needs updates of the form f(x, y, ...) op= e");

    // Which RDom dimensions are preserved, and as what.
    const auto &dims = d.rdom->dims;
    std::vector<int> kept;                       // indices of preserved dimensions
    std::map<std::string, std::string> as_var;  // RVar name -> new pure Var name
    for (const auto &[rv, var] : preserved) {
        auto it = std::find_if(dims.begin(), dims.end(), [&](const auto &dim) { return dim.name == rv.name(); });
        if (it == dims.end()) return fail(rv.name() + " is not an RVar of this update's RDom");
        const int index = int(it - dims.begin());
        if (std::count(kept.begin(), kept.end(), index)) return fail(rv.name() + " is listed twice");
        if (std::count(f.args.begin(), f.args.end(), var.name()))
            return fail("the Var " + var.name() + " is already a dimension of Func \"" + f.name + "\"");
        for (const auto &[n, v] : as_var)
            if (v == var.name()) return fail("the Var " + var.name() + " is used twice");
        kept.push_back(index);
        as_var[rv.name()] = var.name();
    }
    std::sort(kept.begin(), kept.end());

    // The RDoms of the two new updates: the dimensions that are factored out (in the
    // intermediate) and the preserved ones (in the merge), with the original names.
    auto make_rdom = [&](bool preserved_dims) {
        auto r = std::make_shared<RDomData>();
        r->name = d.rdom->name;
        for (int i = 0; i < int(dims.size()); i++)
            if (std::count(kept.begin(), kept.end(), i) == int(preserved_dims)) r->dims.push_back(dims[size_t(i)]);
        return r->dims.empty() ? nullptr : r;
    };
    std::shared_ptr<RDomData> inner = make_rdom(false), outer = make_rdom(true);

    // In the intermediate: preserved RVars become the new Vars, the others the new RDom's.
    std::map<std::string, Expr> in_intm;
    for (const auto &[rname, vname] : as_var) in_intm[rname] = Var(vname);
    if (inner)
        for (int i = 0; i < int(inner->dims.size()); i++) in_intm[inner->dims[size_t(i)].name] = Variable::make_rvar(inner, i);
    if (inner)
        for (const Expr &p : d.predicates) inner->predicates.push_back(substitute(in_intm, p));

    std::vector<Var> intm_vars;
    std::vector<Expr> intm_args;
    for (const auto &a : f.args) intm_vars.emplace_back(a), intm_args.push_back(Var(a));
    for (int i : kept) {
        const std::string &vname = as_var[dims[size_t(i)].name];
        intm_vars.emplace_back(vname);
        intm_args.push_back(Var(vname));
    }
    Func intm(f.name + "_intm");
    const Type t = d.value.type();
    intm(intm_vars) = analysis::identity(assoc->op, t);
    Expr partial = substitute(in_intm, assoc->other);
    if (!inner && !d.predicates.empty()) {
        // Every RVar is preserved: the predicates select which partial results count.
        Expr cond;
        for (const Expr &p : d.predicates) {
            Expr c = substitute(in_intm, p);
            cond = cond.defined() ? (cond && c) : c;
        }
        partial = select(cond, partial, analysis::identity(assoc->op, t));
    }
    intm(intm_args) = analysis::apply(assoc->op, Func(intm)(intm_args), partial);

    // f's update merges the partial results over the preserved RVars.
    std::vector<Expr> merge_args;
    for (const auto &a : f.args) merge_args.push_back(Var(a));
    if (outer)
        for (int i = 0; i < int(outer->dims.size()); i++) merge_args.push_back(Variable::make_rvar(outer, i));
    Definition merged = d;
    merged.rdom = outer;
    merged.predicates.clear();
    merged.value = analysis::apply(assoc->op, assoc->self, Call::make_func(intm.data(), merge_args));
    std::vector<std::string> pure_vars(f.args.begin(), f.args.end()), rvars;
    if (outer)
        for (const auto &dim : outer->dims) rvars.push_back(dim.name);
    merged.schedule = ir::default_stage_schedule(pure_vars, rvars);
    if (outer) outer->used = true;
    intm.data()->frozen = true;
    f.definitions[size_t(stage_)] = merged;
    schedule_ = merged.schedule;
    lang::schedule_changed();
    return intm;
}

}  // namespace tessera
