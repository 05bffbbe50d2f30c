// Loop-nest synthesis and realization placement.
//
// Each definition of a computed Func becomes a loop nest from its StageSchedule: its loops
// in the scheduled order (by default pure loops outside RDom loops, dimension 0 and r.x
// innermost), with the variables of the algorithm defined from the loop variables by the
// splits, fusions and renames, innermost:
//
//   split old -> (outer, inner) by F     outer in [0, ceil(extent / F)), inner in [0, F)
//     RoundUp, GuardWithIf               old = old.min + outer * F + inner
//     ShiftInwards                       old = min(old.min + outer * F, old.max + 1 - F) + inner
//     GuardWithIf also guards the body   if (old <= old.max)
//   fuse (inner, outer) -> fused          fused in [0, inner.extent * outer.extent)
//                                        inner = inner.min + fused % inner.extent
//                                        outer = outer.min + fused / inner.extent
//                                        (both clamped to their ranges, for bounds inference)
//   rename old -> new                    old = new
//
// A stage with specializations becomes `if (c1) nest1 else if (c2) nest2 ... else nest`.
//
// Each Func's realization is then placed: its storage (Realize) at the top of the body of
// its store level, its computation (produce, then consume) at the top of the body of its
// compute level. Consumers are placed first, so a producer's realization encloses its
// consumers'. A compute or store level must enclose every use of the Func; otherwise the
// error lists the levels that would be legal.

#include <algorithm>
#include <set>

#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"
#include "tessera/IROperator.h"

namespace tessera::lower {

using namespace ir;
using ir::Dim;
using ir::Split;
using ir::StageSchedule;
using testing::injects;
using testing::Mutation;

namespace {

Expr i32(int64_t v) { return IntImm::make(Int(32), v); }

struct LoopRange {
    Expr min, extent;
};

class StageBuilder {
public:
    StageBuilder(const FuncPlan &p, int stage) : p_(p), stage_(stage) {}

    /** The loop nest of the stage under schedule `s` (with its specializations). */
    Stmt build(const StageSchedule &s) {
        if (s.specializations.empty()) return nest(s);
        Stmt result;
        // The last specialization is tried last: build the chain from the end.
        Stmt otherwise = nest(s);
        for (auto it = s.specializations.rbegin(); it != s.specializations.rend(); ++it) {
            if (!it->schedule) {
                otherwise = AssertStmt::make(make_bool(false),
                                             {text("specialize_fail in " +
                                                              describe_definition(*p_.func, stage_) + ": " +
                                                              it->failure_message)});
                continue;
            }
            otherwise = IfThenElse::make(it->condition, build(*it->schedule), otherwise);
        }
        return otherwise;
    }

private:
    Expr loop_variable(const std::string &loop) const {
        return Variable::make(Int(32), loop_var(p_, stage_, loop));
    }

    /** The innermost statement: the Provide of the definition, under its predicates;
     * `atomic` marks it an atomic read-modify-write (the stage's atomic()). */
    Stmt body(bool atomic) {
        const FunctionData &f = *p_.func;
        const Definition &d = p_.defs[size_t(stage_)];
        std::map<std::string, Expr> subs;
        for (int i = 0; i < f.dimensions(); i++) {
            if (!d.pure_dims[size_t(i)]) continue;
            std::string v = dim_var_name(d, i);
            subs[v] = loop_variable(v);
        }
        std::vector<std::pair<std::string, Expr>> rvars;
        if (d.rdom) {
            for (const auto &dim : d.rdom->dims) {
                Expr lv = loop_variable(dim.name);
                subs[dim.name] = lv;
                rvars.emplace_back(dim.name, lv);
            }
        }
        auto lowered = [&](const Expr &e) { return substitute(subs, e); };
        std::vector<Expr> args;
        for (const Expr &a : d.args) args.push_back(lowered(a));
        auto prov = std::make_shared<Provenance>();
        prov->func = p_.func;
        prov->stage = stage_;
        prov->coords = args;
        prov->rvars = rvars;
        prov->atomic = atomic;
        Stmt s = Provide::make(p_.storage, lowered(d.value), args, prov);
        if (!d.predicates.empty()) {
            Expr cond;
            for (const Expr &pr : d.predicates) cond = cond.defined() ? And::make(cond, lowered(pr)) : lowered(pr);
            s = IfThenElse::make(cond, s);
        }
        return s;
    }

    Stmt nest(const StageSchedule &s) {
        const FunctionData &f = *p_.func;
        const Definition &d = p_.defs[size_t(stage_)];

        // The range of every loop variable, original ones first.
        std::map<std::string, LoopRange> range;
        std::map<std::string, bool> is_rvar;
        std::map<std::string, LoopRole> role;
        for (int i = 0; i < f.dimensions(); i++) {
            if (!d.pure_dims[size_t(i)]) continue;
            std::string v = dim_var_name(d, i);
            Expr mn = Variable::make(Int(32), loop_min(p_, stage_, v));
            Expr mx = Variable::make(Int(32), loop_max(p_, stage_, v));
            range[v] = {mn, Add::make(Sub::make(mx, mn), i32(1))};
            is_rvar[v] = false;
            role[v] = LoopRole::Dimension;
        }
        if (d.rdom)
            for (const auto &dim : d.rdom->dims) {
                range[dim.name] = {dim.min, dim.extent};
                if (injects(Mutation::ReductionLastIterationDropped) && &dim == &d.rdom->dims.front())
                    range[dim.name].extent = Sub::make(dim.extent, i32(1));
                is_rvar[dim.name] = true;
                role[dim.name] = LoopRole::RVar;
            }

        // Definitions of split variables (innermost last) and guards.
        std::vector<std::pair<std::string, Expr>> defs;
        std::vector<Expr> guards;
        for (const Split &sp : s.splits) {
            switch (sp.kind) {
            case Split::Kind::SplitVar: {
                const LoopRange old = range.at(sp.old_var);
                const Expr F = sp.factor;
                range[sp.inner] = {i32(0), F};
                range[sp.outer] = {i32(0), Div::make(Sub::make(Add::make(old.extent, F), i32(1)), F)};
                if (injects(Mutation::SplitOuterExtentRoundsDown)) range[sp.outer].extent = Div::make(old.extent, F);
                is_rvar[sp.inner] = is_rvar[sp.outer] = is_rvar.at(sp.old_var);
                role[sp.inner] = LoopRole::SplitInner;
                role[sp.outer] = LoopRole::SplitOuter;
                TailStrategy tail = resolve_tail(p_, stage_, sp, is_rvar.at(sp.old_var));
                if (injects(Mutation::ShiftInwardsOnUpdate) && stage_ > 0 && !is_rvar.at(sp.old_var) &&
                    tail == TailStrategy::GuardWithIf)
                    tail = TailStrategy::ShiftInwards;
                // ShiftInwards: min(min + outer * F, min + extent - F), the second simplified to
                // max + 1 - F, so that bounds inference sees the last tile end at the max.
                Expr base = Add::make(old.min, Mul::make(loop_variable(sp.outer), F));
                if (tail == TailStrategy::ShiftInwards) {
                    Expr last_tile = Sub::make(Add::make(old.min, old.extent), F);
                    if (injects(Mutation::ShiftInwardsTailOffByOne)) last_tile = Add::make(last_tile, i32(1));
                    base = Min::make(base, analysis::simplify_index(last_tile));
                }
                Expr value = Add::make(base, loop_variable(sp.inner));
                defs.emplace_back(sp.old_var, value);
                if (tail == TailStrategy::GuardWithIf) {
                    Expr end = Add::make(old.min, old.extent);
                    if (injects(Mutation::GuardWithIfTailOffByOne)) end = Sub::make(end, i32(1));
                    guards.push_back(LT::make(loop_variable(sp.old_var), end));
                }
                break;
            }
            case Split::Kind::FuseVars: {
                const LoopRange in = range.at(sp.inner), out = range.at(sp.outer);
                range[sp.old_var] = {i32(0), Mul::make(in.extent, out.extent)};
                is_rvar[sp.old_var] = is_rvar.at(sp.inner) || is_rvar.at(sp.outer);
                role[sp.old_var] = LoopRole::Fused;
                // The clamps change no value (fused < inner.extent * outer.extent); they tell
                // bounds inference what the division and the modulo by a symbolic extent
                // range over.
                Expr last_in = Sub::make(in.extent, i32(1)), last_out = Sub::make(out.extent, i32(1));
                const Expr divisor = injects(Mutation::FusedLoopWrongDivisor) ? out.extent : in.extent;
                defs.emplace_back(sp.inner,
                                  Add::make(in.min, Max::make(Min::make(Mod::make(loop_variable(sp.old_var), divisor),
                                                                        last_in),
                                                              i32(0))));
                defs.emplace_back(sp.outer,
                                  Add::make(out.min, Max::make(Min::make(Div::make(loop_variable(sp.old_var), divisor),
                                                                         last_out),
                                                               i32(0))));
                break;
            }
            case Split::Kind::RenameVar:
                range[sp.outer] = range.at(sp.old_var);
                is_rvar[sp.outer] = is_rvar.at(sp.old_var);
                role[sp.outer] = role.at(sp.old_var);
                defs.emplace_back(sp.old_var, loop_variable(sp.outer));
                break;
            }
        }

        Stmt st = body(s.atomic);
        // Guards nest: each is evaluated only where the ones outside it hold.
        for (auto it = guards.rbegin(); it != guards.rend(); ++it) st = IfThenElse::make(*it, st);
        // A later split defines the variables an earlier one uses: its let is outside.
        for (const auto &[name, value] : defs)
            st = LetStmt::make(loop_var(p_, stage_, name), value, st);
        // The mutant's parallel loop: the outermost loop of the reduction (dims run innermost first).
        const Dim *made_parallel = nullptr;
        if (injects(Mutation::ReductionLoopParallel))
            for (const Dim &dim : s.dims)
                if (is_rvar.at(dim.loop)) made_parallel = &dim;
        for (const Dim &dim : s.dims) {
            const LoopRange &r = range.at(dim.loop);
            const std::string name = loop_var(p_, stage_, dim.loop);
            // Never negative: a Func computed inside a loop may need nothing in some
            // iterations (an empty region has max < min). The guards and definitions above
            // use the plain extent, so that min + extent - 1 stays max for bounds inference.
            Expr extent = as<IntImm>(r.extent) ? r.extent : Max::make(r.extent, i32(0));
            auto loop = std::make_shared<LoopId>();
            loop->func = p_.func;
            loop->stage = stage_;
            loop->dim = dim.loop;
            loop->var = dim.var;
            loop->role = role.at(dim.loop);
            loop->pure = dim.pure;
            const ForType for_type = &dim == made_parallel ? ForType::Parallel : dim.for_type;
            st = For::make(name, r.min, extent, for_type, st, std::move(loop));
        }
        return st;
    }

    const FuncPlan &p_;
    int stage_;
};

// ---------------------------------------------------------------------------------------
// Realization placement

using Site = std::shared_ptr<const LoopId>;
using Sites = std::vector<Site>;

/** The loops enclosing each read of a storage (outermost first). */
class CallSites : public IRVisitor {
public:
    explicit CallSites(std::string storage) : storage_(std::move(storage)) {}
    std::vector<Sites> sites;
    using IRVisitor::include;

protected:
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        stack_.push_back(op->loop);
        include(op->body);
        stack_.pop_back();
    }
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Func && op->name == storage_) sites.push_back(stack_);
        IRVisitor::visit(op);
    }

private:
    std::string storage_;
    Sites stack_;
};

/** The position of `site` in `loops`, or loops.end(). */
Sites::const_iterator find_site(const Sites &loops, const Site &site) {
    return std::find_if(loops.begin(), loops.end(), [&](const Site &l) { return same_site(l, site); });
}

/** The loops that enclose every read of `storage`, outermost first. */
Sites common_loops(const Stmt &s, const std::string &storage) {
    CallSites sites(storage);
    sites.include(s);
    if (sites.sites.empty()) return {};
    Sites common = sites.sites[0];
    for (const auto &st : sites.sites) {
        size_t k = 0;
        while (k < common.size() && k < st.size() && same_site(common[k], st[k])) k++;
        common.resize(k);
    }
    return common;
}

/** Every loop in s (a loop may occur more than once, in specializations). */
Sites all_loops(const Stmt &s) {
    struct Loops : IRVisitor {
        Sites loops;
        using IRVisitor::include;
        void visit(const For *op) override {
            loops.push_back(op->loop);
            IRVisitor::visit(op);
        }
    } loops;
    loops.include(s);
    return loops.loops;
}

/** The loop nests of a Func's definitions, in the order they run. */
Stmt stages_in_order(const FuncPlan &p) {
    std::vector<Stmt> stages(p.stages.begin(), p.stages.end());
    if (injects(Mutation::UpdatesSwapped) && stages.size() >= 3)
        std::swap(stages[stages.size() - 1], stages[stages.size() - 2]);
    if (injects(Mutation::LastUpdateDropped) && stages.size() >= 2) stages.pop_back();
    return Block::make(stages);
}

Stmt realization(const FuncPlan &p, const Stmt &consumer, bool with_storage, bool with_compute) {
    Stmt body = consumer;
    if (with_compute) {
        Stmt produce = ProducerConsumer::make(p.storage, true, stages_in_order(p));
        Stmt consume = ProducerConsumer::make(p.storage, false, body);
        body = injects(Mutation::ProducerAfterConsumer) && !p.is_output ? Block::make(consume, produce)
                                                                        : Block::make(produce, consume);
    }
    if (!with_storage) return body;
    const FunctionData &f = *p.func;
    ir::Region bounds;
    for (int i = 0; i < f.dimensions(); i++) {
        const std::string d = std::to_string(i);
        bounds.push_back({Variable::make(Int(32), p.storage + ".r" + d + ".min"),
                          Variable::make(Int(32), p.storage + ".r" + d + ".extent")});
    }
    return Realize::make(p.storage, f.type, bounds, body);
}

class InjectRealization : public IRMutator {
public:
    InjectRealization(const FuncPlan &p) : p_(p) {}
    int injected_compute = 0, injected_storage = 0;

protected:
    Stmt visit(const For *op, const Stmt &self) override {
        const bool storage = is_site(op, p_.store_site);
        const bool compute = is_site(op, p_.compute_site);
        if (!storage && !compute) return IRMutator::visit(op, self);
        Stmt body = op->body;
        if (storage && !compute) body = mutate(body);  // the compute site is inside
        body = realization(p_, body, storage, compute);
        injected_storage += storage;
        injected_compute += compute;
        return For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
    }

private:
    const FuncPlan &p_;
};

/** A loop as the level directives name it: "compute_at(f, x)", and which stage's loop. */
std::string describe_level(const Site &loop) {
    if (!loop) return "the root";
    std::string s = "compute_at(" + loop->func->name + ", " + loop->var + ")";
    if (loop->stage > 0) s += " [the loop over " + loop->var + " of update " + std::to_string(loop->stage - 1) + "]";
    return s;
}

std::string legal_levels(const Sites &common) {
    std::string s = "compute_root()";
    for (const Site &l : common) s += ", " + describe_level(l);
    return s;
}

/** "by \"f\", \"g\"": the Funcs whose production reads `storage`. */
std::string uses_text(const Stmt &s, const PipelinePlan &plan, const std::string &storage) {
    std::set<std::string> users;
    struct Users : IRVisitor {
        const std::string *storage;
        std::set<std::string> *users;
        std::vector<std::string> producing;
        using IRVisitor::include;
        void visit(const ProducerConsumer *op) override {
            if (op->is_producer) producing.push_back(op->name);
            IRVisitor::visit(op);
            if (op->is_producer) producing.pop_back();
        }
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Func && op->name == *storage && !producing.empty())
                users->insert(producing.back());
            IRVisitor::visit(op);
        }
    } u;
    u.storage = &storage;
    u.users = &users;
    u.include(s);
    std::string t;
    for (const auto &n : users) {
        const FuncPlan *user = plan.find_storage(n);
        t += (t.empty() ? "" : ", ") + ("\"" + (user ? user->func->name : n) + "\"");
    }
    return t.empty() ? "nowhere" : "by " + t;
}

/** The loop a LoopLevel names, among the loops that exist (null: the root). */
Site resolve_level(const PipelinePlan &plan, const FuncPlan &p, const LoopLevel &level, const Sites &common,
                   const Sites &existing, const char *directive, const Stmt &s) {
    if (level.is_root()) return nullptr;
    const FunctionData &f = *p.func;
    const std::string func = level.func(), var = level.var();
    const FuncPlan *g = plan.find(func);
    auto fail = [&](const std::string &why) -> Site {  // throws
        throw CompileError("Func \"" + f.name + "\" is scheduled " + directive + "(" + func + ", " + var + "), but " +
                           why + ". Func \"" + f.name + "\" is used " + uses_text(s, plan, p.storage) +
                           "; the legal levels are: " + legal_levels(common));
    };
    if (!g) {
        fail("Func \"" + func + "\" is not computed in this pipeline (it is inlined or not used by it)");
    }
    // The loops of g's stages that the level names: the loop whose user name is `var`.
    auto named = [&](const Site &l) {
        if (!l || l->func != g->func || l->var != var) return false;
        return level.stage_index() < 0 || level.stage_index() == l->stage;
    };
    bool declared = false;
    for (int k = 0; k < int(g->defs.size()); k++) {
        if (level.stage_index() >= 0 && level.stage_index() != k) continue;
        for (const Dim &d : g->defs[size_t(k)].schedule->dims) declared = declared || d.var == var;
    }
    if (!declared) fail(var + " is not a loop of Func \"" + func + "\"");
    for (const Site &c : common)
        if (named(c)) return c;
    const bool exists = std::any_of(existing.begin(), existing.end(), named);
    return fail(exists ? "that loop does not contain every use of Func \"" + f.name + "\""
                       : "that loop does not exist where Func \"" + f.name + "\" is used");
}

/** Is `outer` (null: the root) at or outside `inner` in the loop nest? */
bool encloses(const Sites &common, const Site &outer, const Site &inner) {
    if (!outer) return true;
    auto o = find_site(common, outer);
    auto i = find_site(common, inner);
    return o != common.end() && i != common.end() && o <= i;
}

/** A parallel loop strictly inside `store` (null: the root) and at or outside `compute`:
 * its iterations would share one allocation while each computes into it. Null if none. */
Site parallel_loop_between(const Stmt &s, const Sites &common, const Site &store, const Site &compute) {
    Sites parallel;
    struct Parallel : IRVisitor {
        Sites *loops;
        using IRVisitor::include;
        void visit(const For *op) override {
            if (op->for_type == ForType::Parallel) loops->push_back(op->loop);
            IRVisitor::visit(op);
        }
    } v;
    v.loops = &parallel;
    v.include(s);
    auto first = store ? find_site(common, store) + 1 : common.begin();
    auto last = find_site(common, compute);
    if (last == common.end()) return nullptr;
    for (auto it = first; it <= last; ++it)
        if (find_site(parallel, *it) != parallel.end()) return *it;
    return nullptr;
}

}  // namespace

TailStrategy resolve_tail(const FuncPlan &p, int stage, const Split &s, bool rvar) {
    if (s.tail != TailStrategy::Auto) return s.tail;
    if (!rvar && stage == 0 && p.defs.size() == 1) return TailStrategy::ShiftInwards;
    return TailStrategy::GuardWithIf;
}

bool computes_past_region(const FuncPlan &p, const std::string &var) {
    const ir::StageSchedule &sched = *p.defs[0].schedule;
    std::set<std::string> from_var{var};
    for (const Split &sp : sched.splits) {
        switch (sp.kind) {
        case Split::Kind::SplitVar:
            if (!from_var.count(sp.old_var)) break;
            if (resolve_tail(p, 0, sp, false) != TailStrategy::GuardWithIf) return true;
            from_var.insert(sp.outer);
            from_var.insert(sp.inner);
            break;
        case Split::Kind::FuseVars:
            if (from_var.count(sp.inner) || from_var.count(sp.outer)) from_var.insert(sp.old_var);
            break;
        case Split::Kind::RenameVar:
            if (from_var.count(sp.old_var)) from_var.insert(sp.outer);
            break;
        }
    }
    return false;
}

Stmt schedule_functions(PipelinePlan &plan) {
    for (FuncPlan &p : plan.funcs)
        for (int s = 0; s < int(p.defs.size()); s++) {
            // An undef pure definition computes nothing: the updates write the values.
            if (s == 0 && is_undef(p.defs[0].value)) {
                p.stages.push_back(Block::make(std::vector<Stmt>{}));
                continue;
            }
            StageBuilder b(p, s);
            p.stages.push_back(b.build(*p.defs[size_t(s)].schedule));
        }

    // The output: its stages, and the copy of the window if it has its own storage.
    FuncPlan &out = plan.funcs.back();
    const FunctionData &f = *out.func;
    Stmt s = ProducerConsumer::make(out.storage, true, stages_in_order(out));
    if (out.storage != f.name) {
        const int copy_stage = int(out.defs.size());
        std::vector<Expr> coords;
        for (int i = 0; i < f.dimensions(); i++)
            coords.push_back(Variable::make(Int(32), loop_var(out, copy_stage, f.args[size_t(i)])));
        std::vector<Expr> reads;
        const std::vector<Type> types = f.types();
        for (size_t k = 0; k < types.size(); k++) {
            auto read = std::make_shared<Call>(types[k], out.storage, coords, CallKind::Func);
            read->func = out.func;
            read->value_index = int(k);
            reads.emplace_back(std::shared_ptr<const ExprNode>(std::move(read)));
        }
        const Expr value = tuple_value(reads);
        auto prov = std::make_shared<Provenance>();
        prov->func = out.func;
        prov->stage = copy_stage - 1;
        prov->coords = coords;
        prov->kind = Provenance::Kind::FinalCopy;
        Stmt copy = Provide::make(f.name, value, coords, prov);
        for (int i = 0; i < f.dimensions(); i++) {
            auto loop = std::make_shared<LoopId>();
            loop->func = out.func;
            loop->stage = copy_stage;
            loop->dim = loop->var = f.args[size_t(i)];
            loop->role = LoopRole::FinalCopy;
            copy = For::make(loop_var(out, copy_stage, f.args[size_t(i)]), buffer_min(f.name, i),
                             buffer_extent(f.name, i), ForType::Serial, copy, std::move(loop));
        }
        s = realization(out, copy, true, true);
    }
    if (f.schedule.compute_level.defined() && !f.schedule.compute_level.is_root())
        throw CompileError("Func \"" + f.name + "\" is the pipeline's output; it is always computed at the root, so " +
                           f.schedule.compute_level.to_string() + " is not a legal compute level for it");

    // Producers, consumers first: each realization encloses its consumers'.
    for (int k = int(plan.funcs.size()) - 2; k >= 0; k--) {
        FuncPlan &p = plan.funcs[size_t(k)];
        const FunctionData &g = *p.func;
        const Sites common = common_loops(s, p.storage);
        const Sites existing = all_loops(s);
        const LoopLevel &compute = g.schedule.compute_level;
        const LoopLevel &store = g.schedule.store_level;
        if (!compute.defined()) {
            // The default for a Func with updates: the innermost loop enclosing every use.
            p.compute_site = common.empty() ? nullptr : common.back();
        } else {
            p.compute_site = resolve_level(plan, p, compute, common, existing, "compute_at", s);
        }
        if (!store.defined()) {
            p.store_site = p.compute_site;
        } else {
            p.store_site = resolve_level(plan, p, store, common, existing, "store_at", s);
            if (!encloses(common, p.store_site, p.compute_site))
                throw CompileError("Func \"" + g.name + "\" is stored at " + describe_level(p.store_site) +
                                   " but computed at " + describe_level(p.compute_site) +
                                   ", which is outside it; the storage level must be at or outside the compute "
                                   "level (store_at a loop that encloses the compute_at loop, or store_root())");
            if (const Site par = parallel_loop_between(s, common, p.store_site, p.compute_site)) {
                const std::string owner = par->func->name, var = par->var;
                throw CompileError("Func \"" + g.name + "\" is stored outside the parallel loop over " + var +
                                   " of Func \"" + owner + "\" but computed inside it: the parallel iterations " +
                                   "would race on one allocation. Store it at or inside that loop (" + g.name +
                                   ".store_at(" + owner + ", " + var + ")), or make the loop serial");
            }
        }
        if (!p.store_site && !p.compute_site) {
            s = realization(p, s, true, true);
        } else {
            if (!p.store_site) {
                InjectRealization inject(p);
                s = realization(p, inject.mutate(s), true, false);
            } else {
                InjectRealization inject(p);
                s = inject.mutate(s);
            }
        }
    }
    return s;
}

}  // namespace tessera::lower
