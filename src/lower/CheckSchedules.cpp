// The legality rules of the scheduling language that need the whole pipeline
// (docs/semantics.md §10 and §14). Each violation is a CompileError that names the Func, the
// definition and the loop, says why the schedule would change the results, and what would
// be legal instead.
//
// * RoundUp and ShiftInwards splits recompute or extend iterations: only a Func with a
//   single definition may use them (its values are the same however often they are
//   computed); RoundUp never applies to an RVar.
// * A reduction loop may run in parallel or as vector lanes only if its iterations touch
//   disjoint points of the Func: the left-hand side is injective in the loop's RVars, and
//   the update (its value and its `where` predicates) reads the Func only at the point it
//   writes (a predicate reading another point is a race: regression R5, docs/semantics.md
//   §14). allow_race_conditions() lifts the rule, and so does atomic() on an update
//   whose iterations may run in any order (below), whose stores are then atomic.
// * The RVars of an update run in lexicographic order, r.x innermost; a schedule that
//   changes that order (reorder, or fusing them the other way round) is legal only if the
//   update is a commutative and associative integer reduction f(lhs) = f(lhs) op e with
//   e and the predicates not reading f.

#include <algorithm>
#include <functional>
#include <set>

#include "analysis/Associativity.h"
#include "analysis/Interval.h"
#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;
using ir::Dim;
using ir::Split;
using ir::StageSchedule;

namespace {

[[noreturn]] void fail(const FunctionData &f, int stage, const std::string &why) {
    throw CompileError("In the schedule of " + describe_definition(f, stage) + ": " + why);
}

/** The calls of Func `func` in e. */
std::vector<const Call *> self_calls(const Expr &e, const FunctionData &func) {
    struct Find : IRVisitor {
        const FunctionData *func;
        std::vector<const Call *> found;
        using IRVisitor::include;
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Func && op->func.get() == func) found.push_back(op);
            IRVisitor::visit(op);
        }
    } f;
    f.func = &func;
    f.include(e);
    return f.found;
}

/** Does `e` mention an RVar of `varying`? */
bool mentions_rvar(const Expr &e, const std::set<std::string> &varying) {
    struct Find : IRVisitor {
        const std::set<std::string> *varying = nullptr;
        bool found = false;
        using IRVisitor::include;
        void visit(const Variable *op) override {
            found = found || (op->var_kind == VarKind::Reduction && varying->count(op->name));
        }
    } f;
    f.varying = &varying;
    f.include(e);
    return f.found;
}

/** The RVars that change while a loop runs (its own and those of the loops inside it),
 * with their ranges where these are constants. */
using Varying = std::map<std::string, std::optional<std::pair<int64_t, int64_t>>>;

/** How far a term can move while the loop runs: the width of its interval (the interval
 * analysis of bounds inference) when the varying RVars range over theirs and everything
 * else stays fixed. nullopt if not known. */
std::optional<int64_t> spread(const Expr &e, const Varying &varying) {
    analysis::Scope scope;
    for (const auto &[name, range] : varying) {
        if (!range) {
            if (mentions_rvar(e, {name})) return std::nullopt;
            continue;
        }
        scope.push(name, analysis::Interval(IntImm::make(Int(32), range->first),
                                            IntImm::make(Int(32), range->first + range->second - 1)));
    }
    const analysis::Interval i = analysis::bounds_of_expr(e, scope);
    if (!i.is_bounded()) return std::nullopt;
    const IntImm *width = as<IntImm>(analysis::simplify(Sub::make(i.max, i.min)));
    if (!width) return std::nullopt;
    return width->value;
}

/** e as c * r + t, where c is a constant: c and how far t can move while the loop runs
 * (nullopt if e is not of that form, or that is not known). */
std::optional<std::pair<int64_t, int64_t>> linear_in(const Expr &e, const std::string &r, const Varying &varying) {
    if (const Variable *v = as<Variable>(e); v && v->var_kind == VarKind::Reduction && v->name == r)
        return std::pair<int64_t, int64_t>{1, 0};
    auto both = [&](const Expr &a, const Expr &b, int64_t sign) -> std::optional<std::pair<int64_t, int64_t>> {
        auto x = linear_in(a, r, varying), y = linear_in(b, r, varying);
        if (!x || !y) return std::nullopt;
        return std::pair<int64_t, int64_t>{x->first + sign * y->first, x->second + y->second};
    };
    if (const Add *a = as<Add>(e)) return both(a->a, a->b, 1);
    if (const Sub *s = as<Sub>(e)) return both(s->a, s->b, -1);
    if (const Cast *c = as<Cast>(e); c && c->type == Int(32)) return linear_in(c->value, r, varying);
    if (const Mul *m = as<Mul>(e))
        for (const auto &[k, x] : {std::pair{m->a, m->b}, std::pair{m->b, m->a}})
            if (const IntImm *c = as<IntImm>(k)) {
                auto l = linear_in(x, r, varying);
                if (!l) return std::nullopt;
                const int64_t scale = c->value < 0 ? -c->value : c->value;
                return std::pair<int64_t, int64_t>{c->value * l->first, scale * l->second};
            }
    if (mentions_rvar(e, {r})) return std::nullopt;
    if (auto w = spread(e, varying)) return std::pair<int64_t, int64_t>{0, *w};
    return std::nullopt;
}

/** Do the iterations of a loop over the RVar `r` write distinct values of `e`? They do
 * when e is c * r plus terms that move by less than |c| while the loop runs (`varying`:
 * the RVars of this loop and of the loops inside it; those of loops outside are fixed
 * meanwhile): r, r + e, a tile's io * 32 + ii with ii < 32, jo * 256 + ji. */
bool injective_in(const Expr &e, const std::string &r, const Varying &varying) {
    auto l = linear_in(e, r, varying);
    return l && l->first != 0 && l->second < (l->first < 0 ? -l->first : l->first);
}

/** Does the update read the Func only at the point it writes? */
bool reads_only_its_own_point(const FunctionData &f, const Definition &d) {
    std::vector<const Call *> calls = self_calls(d.value, f);
    for (const Expr &p : d.predicates)
        for (const Call *c : self_calls(p, f)) calls.push_back(c);
    for (const Expr &a : d.args)
        for (const Call *c : self_calls(a, f)) calls.push_back(c);
    for (const Call *c : calls) {
        if (c->args.size() != d.args.size()) return false;
        for (size_t i = 0; i < c->args.size(); i++)
            if (!equal(c->args[i], d.args[i])) return false;
    }
    return true;
}

struct LoopOrigin {
    std::vector<int> key;          // lexicographic position among the RDom's iterations
    std::set<std::string> rvars;   // the RVars it is made from
};

void check_stage(const FuncPlan &p, int stage, const StageSchedule &s) {
    const FunctionData &f = *p.func;
    const Definition &d = p.defs[size_t(stage)];

    // Replay the splits to know what each loop is made of.
    std::map<std::string, LoopOrigin> origin;
    if (d.rdom) {
        const int n = int(d.rdom->dims.size());
        for (int j = 0; j < n; j++) origin[d.rdom->dims[size_t(j)].name] = LoopOrigin{{n - 1 - j}, {d.rdom->dims[size_t(j)].name}};
    }
    bool reordered = false;
    std::string reorder_what;
    for (const Split &sp : s.splits) {
        switch (sp.kind) {
        case Split::Kind::SplitVar: {
            if (sp.tail == TailStrategy::RoundUp || sp.tail == TailStrategy::ShiftInwards) {
                if (p.defs.size() > 1)
                    fail(f, stage,
                         std::string("the split of ") + sp.old_var + " uses " + tail_strategy_name(sp.tail) +
                             ", which computes some points more than once or past the end; that is only legal for a "
                             "Func with a single definition, and Func \"" + f.name + "\" has " +
                             std::to_string(p.defs.size()) + ". Use TailStrategy::GuardWithIf");
                if (origin.count(sp.old_var) && sp.tail == TailStrategy::RoundUp)
                    fail(f, stage, "RoundUp on a loop made from an RVar would repeat iterations of the reduction; use GuardWithIf");
            }
            auto it = origin.find(sp.old_var);
            if (it == origin.end()) break;
            LoopOrigin o = it->second, i = it->second;
            o.key.push_back(0);
            i.key.push_back(1);
            origin[sp.outer] = o;
            origin[sp.inner] = i;
            break;
        }
        case Split::Kind::FuseVars: {
            auto in = origin.find(sp.inner), out = origin.find(sp.outer);
            if (in == origin.end() || out == origin.end()) break;
            if (!(out->second.key < in->second.key)) {
                reordered = true;
                reorder_what = "fuses " + sp.inner + " and " + sp.outer + " the other way round";
            }
            LoopOrigin fused = out->second;
            fused.rvars.insert(in->second.rvars.begin(), in->second.rvars.end());
            origin[sp.old_var] = fused;
            break;
        }
        case Split::Kind::RenameVar:
            if (origin.count(sp.old_var)) origin[sp.outer] = origin[sp.old_var];
            break;
        }
    }

    // Reduction loops, outermost first, must keep the lexicographic order.
    std::vector<const Dim *> reduction;
    for (auto it = s.dims.rbegin(); it != s.dims.rend(); ++it)
        if (origin.count(it->loop)) reduction.push_back(&*it);
    for (size_t k = 1; k < reduction.size(); k++) {
        if (origin[reduction[k - 1]->loop].key < origin[reduction[k]->loop].key) continue;
        reordered = true;
        reorder_what = "puts " + reduction[k - 1]->var + " outside " + reduction[k]->var;
        break;
    }
    if (reordered && !analysis::associative_update(f, d))
        fail(f, stage,
             "the schedule " + reorder_what +
                 ", which changes the order in which the update runs its RVars (lexicographic, r.x innermost). That is "
                 "only legal for an update f(...) = f(...) op e with op one of + * min max & | ^ on integers and e "
                 "not reading f; keep the RVars in their order (pure loops may move freely)");

    // An atomic update: its stores are atomic read-modify-writes of one point, so its
    // iterations may run in parallel in any order when the update's result does not depend
    // on that order.
    if (s.atomic) {
        if (!analysis::associative_update(f, d))
            fail(f, stage,
                 "atomic() lets the update's iterations run in any order, which is only legal for an update "
                 "f(...) = f(...) op e with op one of + * min max & | ^ on integers and e (and the where() predicates) "
                 "not reading f; Tessera does not reorder float arithmetic (docs/semantics.md §10)");
    }

    // Parallel and vector reduction loops.
    for (const Dim &dim : s.dims) {
        if (dim.pure || (dim.for_type != ForType::Parallel && dim.for_type != ForType::Vectorized)) continue;
        if (s.allow_race_conditions || s.atomic) continue;
        const char *kind = dim.for_type == ForType::Parallel ? "parallel" : "vectorized";
        const LoopOrigin &o = origin[dim.loop];
        // The RVars that change while this loop runs: those of the loops from it inwards
        // (s.dims lists the loops innermost first).
        Varying varying;
        for (const Dim &inner : s.dims) {
            if (auto it = origin.find(inner.loop); it != origin.end())
                for (const std::string &r : it->second.rvars) varying.emplace(r, std::nullopt);
            if (&inner == &dim) break;
        }
        for (const auto &rd : d.rdom->dims)
            if (auto it = varying.find(rd.name); it != varying.end()) {
                const IntImm *mn = as<IntImm>(rd.min), *ex = as<IntImm>(rd.extent);
                if (mn && ex) it->second = std::pair<int64_t, int64_t>{mn->value, ex->value};
            }
        std::string why;
        std::set<size_t> used_dims;
        for (const std::string &r : o.rvars) {
            bool found = false;
            for (size_t i = 0; i < d.args.size() && !found; i++)
                if (!used_dims.count(i) && injective_in(d.args[i], r, varying)) {
                    used_dims.insert(i);
                    found = true;
                }
            if (!found) why = "its iterations may write the same point of Func \"" + f.name + "\" (no coordinate of the "
                              "left-hand side is " + r + ", times a constant, plus terms that move by less than that constant while "
                              "the loop runs)";
        }
        if (why.empty() && !reads_only_its_own_point(f, d))
            why = "the update reads Func \"" + f.name + "\" at points other than the one it writes" +
                  (d.predicates.empty() ? std::string() : std::string(" (its where() predicates count)")) +
                  ", so one iteration may read what another writes";
        if (!why.empty())
            fail(f, stage,
                 "the reduction loop " + dim.var + " is " + kind + ", but " + why +
                     ". Only pure loops, or reduction loops whose iterations are independent, can be " + kind +
                     "; use rfactor() to make a parallel reduction, or allow_race_conditions() to accept "
                     "results that may differ from the algorithm's");
    }

    for (const auto &sp : s.specializations)
        if (sp.schedule) check_stage(p, stage, *sp.schedule);
}

}  // namespace

void check_schedules(const PipelinePlan &plan) {
    for (const FuncPlan &p : plan.funcs)
        for (int k = 0; k < int(p.defs.size()); k++) check_stage(p, k, *p.defs[size_t(k)].schedule);
}

}  // namespace tessera::lower
