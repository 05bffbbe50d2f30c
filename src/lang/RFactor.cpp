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
//
// The RVar to preserve may be a loop that split or fuse made of the RDom's dimensions, as in
// Halide's standard parallel reduction:
//
//   RVar ro("ro"), ri("ri");
//   Func partial = sum.update().split(r, ro, ri, 1024).rfactor(ri, u);
//
// The stage's splits and fuses of reduction loops are then first made part of its RDom
// (reduction_loops_as_rdom): one dimension per reduction loop, ro in [0, ceil(r.extent /
// 1024)) and ri in [0, 1024), with r = r.min + ro * 1024 + ri, and the split's tail guard
// ro * 1024 + ri < r.extent as a predicate where 1024 may not divide the extent (what
// GuardWithIf runs; r is then r.min + min(ro * 1024 + ri, r.extent - 1), equal under the
// guard, so that bounds inference sees the RDom's own range). rfactor then works on that
// RDom. The two Funcs it leaves have default schedules, as always.

#include <algorithm>
#include <functional>
#include <set>

#include "analysis/Associativity.h"
#include "analysis/ConstMath.h"
#include "analysis/Simplify.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"
#include "ir/Function.h"
#include "ir/Schedule.h"
#include "lang/Scheduling.h"
#include "tessera/Func.h"
#include "tessera/IROperator.h"

namespace tessera {

using namespace ir;

namespace {

/** `d` with the splits, fuses and renames of its reduction loops (in `s`) made part of its
 * RDom: one dimension per reduction loop, named as the loop, innermost first as the loops
 * are; the RDom's own dimensions rewritten in terms of them in the value, the arguments and
 * the predicates; a split's tail guard added as a predicate unless its factor divides the
 * extent. `d` itself where no reduction loop was split, fused or renamed. */
Definition reduction_loops_as_rdom(const Definition &d, const StageSchedule &s, const std::function<void(const std::string &)> &fail) {
    if (!d.rdom) return d;
    struct Loop {
        Expr min, extent;
    };
    std::map<std::string, Loop> loops;   // the reduction loops made so far, by loop name
    std::map<std::string, Loop> before;  // the bounds of each loop a rewrite consumed
    for (const RDomData::Dim &dim : d.rdom->dims) loops[dim.name] = {dim.min, dim.extent};
    std::vector<const Split *> rewrites;  // those of reduction loops, in order
    for (const Split &sp : s.splits) {
        switch (sp.kind) {
        case Split::Kind::SplitVar: {
            auto it = loops.find(sp.old_var);
            if (it == loops.end()) break;
            if (sp.tail == TailStrategy::RoundUp || sp.tail == TailStrategy::ShiftInwards)
                fail("the split of the reduction loop " + sp.old_var + " uses " + tail_strategy_name(sp.tail) +
                     ", which would repeat or skip iterations of the reduction; use GuardWithIf");
            const Expr extent = it->second.extent;
            before[sp.old_var] = it->second;
            loops.erase(it);
            loops[sp.outer] = {0, (extent + sp.factor - 1) / sp.factor};
            loops[sp.inner] = {0, sp.factor};
            rewrites.push_back(&sp);
            break;
        }
        case Split::Kind::FuseVars: {
            auto in = loops.find(sp.inner), out = loops.find(sp.outer);
            if (in == loops.end() || out == loops.end()) break;
            const Expr extent = in->second.extent * out->second.extent;
            before[sp.inner] = in->second;
            before[sp.outer] = out->second;
            loops.erase(sp.inner);
            loops.erase(sp.outer);
            loops[sp.old_var] = {0, extent};
            rewrites.push_back(&sp);
            break;
        }
        case Split::Kind::RenameVar: {
            auto it = loops.find(sp.old_var);
            if (it == loops.end()) break;
            const Loop l = it->second;
            before[sp.old_var] = l;
            loops.erase(it);
            loops[sp.outer] = l;
            rewrites.push_back(&sp);
            break;
        }
        }
    }
    if (rewrites.empty()) return d;
    // The new RDom: the reduction loops, innermost first.
    auto rdom = std::make_shared<RDomData>();
    rdom->name = d.rdom->name;
    std::map<std::string, Expr> value;  // each loop's value, in terms of the new RDom's dimensions
    for (const Dim &dim : s.dims) {
        auto it = loops.find(dim.loop);
        if (it == loops.end()) continue;
        rdom->dims.push_back({dim.loop, it->second.min, analysis::simplify(it->second.extent)});
    }
    for (int i = 0; i < int(rdom->dims.size()); i++) value[rdom->dims[size_t(i)].name] = Variable::make_rvar(rdom, i);
    // Back through the rewrites, each old loop's value from its products'.
    std::vector<Expr> guards;
    for (auto it = rewrites.rbegin(); it != rewrites.rend(); ++it) {
        const Split &sp = **it;
        switch (sp.kind) {
        case Split::Kind::SplitVar: {
            const Loop &old = before.at(sp.old_var);
            const Expr offset = value.at(sp.outer) * sp.factor + value.at(sp.inner);
            analysis::detail::i128 e = 0, f = 0;
            const bool divides = analysis::detail::const_int(analysis::simplify(old.extent), e) &&
                                 analysis::detail::const_int(analysis::simplify(sp.factor), f) && f > 0 && e % f == 0;
            if (divides) {
                value[sp.old_var] = old.min + offset;
            } else {
                // The guard keeps the offset below the extent where the value is used; the
                // clamp, a no-op there, tells bounds inference so (it does not read
                // predicates), so that the tail reads nothing past the RDom.
                guards.push_back(offset < old.extent);
                value[sp.old_var] = old.min + min(offset, old.extent - 1);
            }
            break;
        }
        case Split::Kind::FuseVars: {
            const Loop &in = before.at(sp.inner), &out = before.at(sp.outer);
            value[sp.inner] = in.min + value.at(sp.old_var) % in.extent;
            value[sp.outer] = out.min + value.at(sp.old_var) / in.extent;
            break;
        }
        case Split::Kind::RenameVar: value[sp.old_var] = value.at(sp.outer); break;
        }
    }
    std::map<std::string, Expr> original;  // the RDom's own dimensions
    for (const RDomData::Dim &dim : d.rdom->dims) original[dim.name] = analysis::simplify(value.at(dim.name));
    Definition result = d;
    result.rdom = rdom;
    result.value = substitute(original, d.value);
    for (Expr &a : result.args) a = substitute(original, a);
    result.predicates.clear();
    for (const Expr &g : guards) result.predicates.push_back(analysis::simplify(substitute(value, g)));
    for (const Expr &p : d.predicates) result.predicates.push_back(substitute(original, p));
    rdom->predicates = result.predicates;
    rdom->used = true;
    return result;
}

}  // namespace

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
    if (!f.definitions[size_t(stage_)].rdom) return fail("the update has no RDom to factor");
    const Definition d = reduction_loops_as_rdom(f.definitions[size_t(stage_)], *schedule_, [&](const std::string &why) { fail(why); });
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
        if (it == dims.end()) {
            std::string loops;
            for (const auto &dim : dims) loops += (loops.empty() ? "" : ", ") + dim.name;
            return fail(rv.name() + " is not a reduction loop of this update (its reduction loops: " + loops + ")");
        }
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
