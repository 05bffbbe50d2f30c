// The scheduling language: each directive checks what it can check locally (the loops it
// names exist, new names are fresh, factors are positive startup expressions) and records
// itself in the schedule (src/ir/Schedule.h). The checks that need the whole pipeline
// (compute levels, races, tail strategies against the final set of definitions, constant
// extents) run when the pipeline is lowered (src/lower/CheckSchedules.cpp).

#include <algorithm>
#include <atomic>
#include <set>

#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Function.h"
#include "ir/Schedule.h"
#include "ir/Names.h"
#include "lang/Scheduling.h"
#include "lang/Validity.h"
#include "tessera/Func.h"
#include "tessera/IROperator.h"

namespace tessera {

using namespace ir;

// ---------------------------------------------------------------------------------------
// The schedule epoch

namespace lang {

namespace {
std::atomic<uint64_t> g_epoch{0};
}

uint64_t schedule_epoch() { return g_epoch.load(); }
void schedule_changed() { g_epoch++; }

}  // namespace lang

// ---------------------------------------------------------------------------------------
// LoopLevel (its accessors are the schedule data's: src/ir/Schedule.cpp)

LoopLevel::LoopLevel(const Func &f, const VarOrRVar &v, int stage_index) : LoopLevel() {
    contents_->kind = Contents::Kind::At;
    contents_->func = f.name();
    contents_->var = v.name();
    contents_->is_rvar = v.is_rvar();
    contents_->stage = stage_index;
}

void LoopLevel::set(const LoopLevel &other) {
    *contents_ = *other.contents_;
    lang::schedule_changed();
}

// ---------------------------------------------------------------------------------------
// Stage directives

namespace {

std::string expr_text(const Expr &e) { return ir::to_string(e); }

/** "y, x" (outermost first). */
std::string loops_text(const StageSchedule &s) {
    std::string t;
    for (auto it = s.dims.rbegin(); it != s.dims.rend(); ++it) t += (t.empty() ? "" : ", ") + it->var;
    return t.empty() ? "none" : t;
}

class Directive {
public:
    Directive(const FunctionData &f, int stage, StageSchedule &s, std::string text)
        : f_(f), stage_(stage), s_(s), text_(std::move(text)) {}

    [[noreturn]] void fail(const std::string &why) const {
        throw CompileError("In the schedule of " + describe_definition(f_, stage_) + ": " + text_ + ": " + why);
    }

    /** The index in dims of the loop the user calls `name`. */
    int find(const VarOrRVar &v, const char *role = nullptr) const {
        for (size_t i = 0; i < s_.dims.size(); i++)
            if (s_.dims[i].var == v.name()) return int(i);
        std::string what = v.is_rvar() ? "RVar " : "Var ";
        fail(std::string(role ? role : "") + (role ? " " : "") + what + v.name() +
             " is not a loop of this stage; its loops are (outermost first): " + loops_text(s_));
    }

    /** A new user name must not name another loop of the stage. `replacing` are the
     * indices of the loops the directive removes (their names may be reused). */
    void check_fresh(const VarOrRVar &v, std::initializer_list<int> replacing) const {
        for (size_t i = 0; i < s_.dims.size(); i++) {
            if (s_.dims[i].var != v.name()) continue;
            if (std::find(replacing.begin(), replacing.end(), int(i)) != replacing.end()) continue;
            fail("the name " + v.name() + " is already a loop of this stage (loops, outermost first: " +
                 loops_text(s_) + "); give the new loop a fresh name");
        }
    }

    /** A unique loop name for the user's name. */
    std::string new_loop(const std::string &user) {
        std::string name = user;
        for (int n = 1; std::count(s_.loop_names.begin(), s_.loop_names.end(), name); n++)
            name = user + "$" + std::to_string(n);
        s_.loop_names.push_back(name);
        return name;
    }

    void check_factor(const Expr &factor, const char *what) const {
        if (!factor.defined()) fail(std::string("the ") + what + " is undefined");
        if (!factor.type().is_integer() || factor.type().lanes != 1)
            fail(std::string("the ") + what + " has type " + factor.type().to_string() + "; it must be an integer");
        if (!lang::is_startup_expression(factor))
            fail(std::string("the ") + what + " " + expr_text(factor) +
                 " must be a startup expression (constants, Params and input bounds only)");
        const IntImm *c = as<IntImm>(factor);
        const UIntImm *u = as<UIntImm>(factor);
        if ((c && c->value <= 0) || (u && u->value == 0))
            fail(std::string("the ") + what + " is " + expr_text(factor) + "; it must be positive");
    }

    StageSchedule &schedule() { return s_; }
    const FunctionData &func() const { return f_; }
    int stage() const { return stage_; }

    void done() {
        s_.touched = true;
        s_.history.push_back(text_);
        lang::schedule_changed();
    }

private:
    const FunctionData &f_;
    int stage_;
    StageSchedule &s_;
    std::string text_;
};

std::string factor_text(const Expr &e) { return e.defined() ? expr_text(e) : "?"; }
/** ", RoundUp" (nothing for Auto, the default). */
std::string tail_text(TailStrategy t) { return t == TailStrategy::Auto ? "" : std::string(", ") + tail_strategy_name(t); }

void do_split(Directive &d, const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
              const Expr &factor_in, TailStrategy tail) {
    StageSchedule &s = d.schedule();
    const int i = d.find(old);
    d.check_factor(factor_in, "split factor");
    if (outer.name() == inner.name()) d.fail("the outer and inner loops need different names");
    d.check_fresh(outer, {i});
    d.check_fresh(inner, {i});
    const Dim old_dim = s.dims[size_t(i)];
    if (tail == TailStrategy::RoundUp && old_dim.rvar)
        d.fail("RoundUp is not allowed on a loop made from an RVar (" + old.name() +
               "): it would repeat iterations of the reduction. Use GuardWithIf");
    Split sp;
    sp.kind = Split::Kind::SplitVar;
    sp.old_var = old_dim.loop;
    sp.factor = cast(Int(32), factor_in);
    sp.tail = tail;
    sp.outer = d.new_loop(outer.name());
    sp.inner = d.new_loop(inner.name());
    Dim o = old_dim, in = old_dim;
    o.var = outer.name();
    o.loop = sp.outer;
    o.for_type = ForType::Serial;
    in.var = inner.name();
    in.loop = sp.inner;
    in.for_type = ForType::Serial;
    // The outer loop keeps the old loop's place, with the inner loop directly inside it;
    // a split loop keeps its parallel/vector/unroll marking on the outer loop.
    o.for_type = old_dim.for_type;
    s.dims[size_t(i)] = in;
    s.dims.insert(s.dims.begin() + i + 1, o);
    s.splits.push_back(sp);
}

}  // namespace

Stage::Stage(std::shared_ptr<FunctionData> f, int stage) : func_(std::move(f)), stage_(stage) {
    if (func_ && stage_ >= 0 && stage_ < int(func_->definitions.size()))
        schedule_ = func_->definitions[size_t(stage_)].schedule;
}

Stage::Stage(std::shared_ptr<FunctionData> f, int stage, std::shared_ptr<StageSchedule> schedule)
    : func_(std::move(f)), stage_(stage), schedule_(std::move(schedule)) {}

StageSchedule &Stage::schedule() const {
    if (!schedule_)
        throw CompileError("Func \"" + (func_ ? func_->name : std::string("?")) +
                           "\" has no definition to schedule; define it first");
    return *schedule_;
}

std::string Stage::dump_loops() const { return loops_text(schedule()); }

Stage &Stage::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                    TailStrategy tail) {
    Directive d(*func_, stage_, schedule(),
                "split(" + old.name() + ", " + outer.name() + ", " + inner.name() + ", " + factor_text(factor) +
                    (tail == TailStrategy::Auto ? "" : std::string(", ") + tail_strategy_name(tail)) + ")");
    do_split(d, old, outer, inner, factor, tail);
    d.done();
    return *this;
}

Stage &Stage::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    Directive d(*func_, stage_, schedule(), "fuse(" + inner.name() + ", " + outer.name() + ", " + fused.name() + ")");
    StageSchedule &s = d.schedule();
    const int i = d.find(inner, "the inner loop");
    const int o = d.find(outer, "the outer loop");
    if (o != i + 1)
        d.fail(outer.name() + " must be the loop directly outside " + inner.name() +
               " (loops, outermost first: " + loops_text(s) + "); reorder them first");
    const Dim di = s.dims[size_t(i)], dout = s.dims[size_t(o)];
    if (di.pure != dout.pure)
        d.fail("it would fuse the " + std::string(di.pure ? "pure" : "reduction") + " loop " + inner.name() +
               " with the " + (dout.pure ? "pure" : "reduction") + " loop " + outer.name() +
               "; only two pure loops or two reduction loops can be fused");
    d.check_fresh(fused, {i, o});
    Split sp;
    sp.kind = Split::Kind::FuseVars;
    sp.inner = di.loop;
    sp.outer = dout.loop;
    sp.old_var = d.new_loop(fused.name());
    Dim f = dout;
    f.var = fused.name();
    f.loop = sp.old_var;
    f.rvar = di.rvar || dout.rvar;
    s.dims.erase(s.dims.begin() + o);
    s.dims[size_t(i)] = f;
    s.splits.push_back(sp);
    d.done();
    return *this;
}

Stage &Stage::reorder(const std::vector<VarOrRVar> &vars) {
    std::string text = "reorder(";
    for (size_t k = 0; k < vars.size(); k++) text += (k ? ", " : "") + vars[k].name();
    Directive d(*func_, stage_, schedule(), text + ")");
    StageSchedule &s = d.schedule();
    std::vector<int> idx;
    for (const VarOrRVar &v : vars) {
        int i = d.find(v);
        if (std::count(idx.begin(), idx.end(), i)) d.fail(v.name() + " is listed twice");
        idx.push_back(i);
    }
    // The listed loops take the listed loops' places, in the given order (first
    // innermost); the other loops stay where they are.
    std::vector<int> slots = idx;
    std::sort(slots.begin(), slots.end());
    std::vector<Dim> moved;
    for (int i : idx) moved.push_back(s.dims[size_t(i)]);
    std::vector<Dim> dims = s.dims;
    for (size_t k = 0; k < slots.size(); k++) dims[size_t(slots[k])] = moved[k];
    s.dims = dims;
    d.done();
    return *this;
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                   const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                   TailStrategy tail) {
    split(x, xo, xi, xfactor, tail);
    split(y, yo, yi, yfactor, tail);
    reorder({xi, yi, xo, yo});
    return *this;
}

Stage &Stage::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                   const Expr &xfactor, const Expr &yfactor, TailStrategy tail) {
    return tile(x, y, x, y, xi, yi, xfactor, yfactor, tail);
}

namespace {

void set_for_type(Directive &d, const VarOrRVar &v, ForType t) {
    const int i = d.find(v);
    d.schedule().dims[size_t(i)].for_type = t;
}

// A fresh user-visible name for the inner loop of vectorize/unroll(var, factor) and of
// parallel(var, task_size): "<var>.v", "<var>.u" and "<var>.t", numbered if taken.
VarOrRVar inner_name(const StageSchedule &s, const VarOrRVar &v, const char *suffix) {
    std::string name = v.name() + suffix;
    for (int n = 1;; n++) {
        bool taken = false;
        for (const Dim &d : s.dims) taken = taken || d.var == name;
        if (!taken) break;
        name = v.name() + suffix + std::to_string(n);
    }
    return VarOrRVar(name, v.is_rvar());
}

}  // namespace

Stage &Stage::vectorize(const VarOrRVar &var) {
    Directive d(*func_, stage_, schedule(), "vectorize(" + var.name() + ")");
    set_for_type(d, var, ForType::Vectorized);
    d.done();
    return *this;
}

Stage &Stage::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    Directive d(*func_, stage_, schedule(), "vectorize(" + var.name() + ", " + factor_text(factor) + tail_text(tail) + ")");
    if (factor.defined() && !as<IntImm>(factor) && !as<UIntImm>(factor))
        d.fail("the vector width " + expr_text(factor) + " must be a constant");
    VarOrRVar inner = inner_name(d.schedule(), var, ".v");
    do_split(d, var, var, inner, factor, tail);
    set_for_type(d, inner, ForType::Vectorized);
    d.done();
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var) {
    Directive d(*func_, stage_, schedule(), "unroll(" + var.name() + ")");
    set_for_type(d, var, ForType::Unrolled);
    d.done();
    return *this;
}

Stage &Stage::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    Directive d(*func_, stage_, schedule(), "unroll(" + var.name() + ", " + factor_text(factor) + tail_text(tail) + ")");
    if (factor.defined() && !as<IntImm>(factor) && !as<UIntImm>(factor))
        d.fail("the unroll factor " + expr_text(factor) + " must be a constant");
    VarOrRVar inner = inner_name(d.schedule(), var, ".u");
    do_split(d, var, var, inner, factor, tail);
    set_for_type(d, inner, ForType::Unrolled);
    d.done();
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &var) {
    Directive d(*func_, stage_, schedule(), "parallel(" + var.name() + ")");
    set_for_type(d, var, ForType::Parallel);
    d.done();
    return *this;
}

Stage &Stage::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail) {
    Directive d(*func_, stage_, schedule(), "parallel(" + var.name() + ", " + factor_text(task_size) + tail_text(tail) + ")");
    VarOrRVar inner = inner_name(d.schedule(), var, ".t");
    do_split(d, var, var, inner, task_size, tail);
    set_for_type(d, var, ForType::Parallel);
    d.done();
    return *this;
}

Stage &Stage::serial(const VarOrRVar &var) {
    Directive d(*func_, stage_, schedule(), "serial(" + var.name() + ")");
    set_for_type(d, var, ForType::Serial);
    d.done();
    return *this;
}

Stage &Stage::rename(const VarOrRVar &old_name, const VarOrRVar &new_name) {
    Directive d(*func_, stage_, schedule(), "rename(" + old_name.name() + ", " + new_name.name() + ")");
    StageSchedule &s = d.schedule();
    const int i = d.find(old_name);
    d.check_fresh(new_name, {i});
    Split sp;
    sp.kind = Split::Kind::RenameVar;
    sp.old_var = s.dims[size_t(i)].loop;
    sp.outer = d.new_loop(new_name.name());
    s.dims[size_t(i)].var = new_name.name();
    s.dims[size_t(i)].loop = sp.outer;
    s.splits.push_back(sp);
    d.done();
    return *this;
}

Stage &Stage::allow_race_conditions() {
    schedule().allow_race_conditions = true;
    lang::schedule_changed();
    return *this;
}

Stage &Stage::atomic(bool override_associativity_test) {
    Directive d(*func_, stage_, schedule(), override_associativity_test ? "atomic(true)" : "atomic()");
    if (stage_ == 0)
        d.fail("the pure definition writes each point once and needs no atomic stores; atomic() applies to an update "
               "(f.update(i).atomic())");
    if (override_associativity_test)
        d.fail("Tessera runs an update's iterations out of order only where that cannot change the result (an "
               "integer update f(...) = f(...) op e, op one of + * min max & | ^); it has no override. Use atomic() "
               "on such an update, or rfactor()");
    schedule().atomic = true;
    d.done();
    return *this;
}

Stage Stage::specialize(const Expr &condition) {
    Directive d(*func_, stage_, schedule(), "specialize(" + (condition.defined() ? expr_text(condition) : "?") + ")");
    if (!condition.defined()) d.fail("the condition is undefined");
    if (condition.type().lanes != 1 || condition.type().is_float())
        d.fail("the condition has type " + condition.type().to_string() + "; it must be a boolean or an integer");
    if (!lang::is_startup_expression(condition))
        d.fail("the condition " + expr_text(condition) +
               " must be a startup expression: constants, Params and input bounds only, so that one "
               "specialization is chosen for the whole run");
    StageSchedule &s = d.schedule();
    if (!s.specializations.empty() && !s.specializations.back().schedule)
        d.fail("it comes after specialize_fail(), which handles every remaining case");
    ir::Specialization sp;
    sp.condition = condition.type().is_bool() ? condition : (condition != make_zero(condition.type()));
    sp.schedule = s.copy();
    sp.schedule->specializations.clear();
    s.specializations.push_back(sp);
    d.done();
    return Stage(func_, stage_, sp.schedule);
}

void Stage::specialize_fail(const std::string &message) {
    Directive d(*func_, stage_, schedule(), "specialize_fail(\"" + message + "\")");
    StageSchedule &s = d.schedule();
    if (s.specializations.empty())
        d.fail("it needs at least one specialize() before it (it handles the case where none holds)");
    if (!s.specializations.back().schedule) d.fail("specialize_fail() was already given");
    ir::Specialization sp;
    sp.failure_message = message;
    s.specializations.push_back(sp);
    d.done();
}

// ---------------------------------------------------------------------------------------
// Func: the directives of its pure definition, and where it lives

#define TESSERA_FORWARD_TO_STAGE(call) \
    do {                              \
        update_or_pure().call;        \
        return *this;                 \
    } while (0)

namespace {
Stage pure_stage(const std::shared_ptr<FunctionData> &f) {
    if (!f || !f->defined())
        throw CompileError("Func \"" + (f ? f->name : std::string("?")) +
                           "\" has no definition yet; define it before scheduling it");
    return Stage(f, 0);
}
}  // namespace

#define update_or_pure() pure_stage(data_)

Func &Func::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                  TailStrategy tail) {
    TESSERA_FORWARD_TO_STAGE(split(old, outer, inner, factor, tail));
}
Func &Func::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused) {
    TESSERA_FORWARD_TO_STAGE(fuse(inner, outer, fused));
}
Func &Func::reorder(const std::vector<VarOrRVar> &vars) { TESSERA_FORWARD_TO_STAGE(reorder(vars)); }
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                 const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                 TailStrategy tail) {
    TESSERA_FORWARD_TO_STAGE(tile(x, y, xo, yo, xi, yi, xfactor, yfactor, tail));
}
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                 const Expr &xfactor, const Expr &yfactor, TailStrategy tail) {
    TESSERA_FORWARD_TO_STAGE(tile(x, y, xi, yi, xfactor, yfactor, tail));
}
Func &Func::vectorize(const VarOrRVar &var) { TESSERA_FORWARD_TO_STAGE(vectorize(var)); }
Func &Func::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    TESSERA_FORWARD_TO_STAGE(vectorize(var, factor, tail));
}
Func &Func::unroll(const VarOrRVar &var) { TESSERA_FORWARD_TO_STAGE(unroll(var)); }
Func &Func::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail) {
    TESSERA_FORWARD_TO_STAGE(unroll(var, factor, tail));
}
Func &Func::parallel(const VarOrRVar &var) { TESSERA_FORWARD_TO_STAGE(parallel(var)); }
Func &Func::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail) {
    TESSERA_FORWARD_TO_STAGE(parallel(var, task_size, tail));
}
Func &Func::serial(const VarOrRVar &var) { TESSERA_FORWARD_TO_STAGE(serial(var)); }
Func &Func::rename(const VarOrRVar &old_name, const VarOrRVar &new_name) {
    TESSERA_FORWARD_TO_STAGE(rename(old_name, new_name));
}
Func &Func::allow_race_conditions() { TESSERA_FORWARD_TO_STAGE(allow_race_conditions()); }
Func &Func::atomic(bool override_associativity_test) { TESSERA_FORWARD_TO_STAGE(atomic(override_associativity_test)); }
Stage Func::specialize(const Expr &condition) { return pure_stage(data_).specialize(condition); }
void Func::specialize_fail(const std::string &message) { pure_stage(data_).specialize_fail(message); }

#undef update_or_pure
#undef TESSERA_FORWARD_TO_STAGE

namespace {

[[noreturn]] void func_fail(const FunctionData &f, const std::string &directive, const std::string &why) {
    throw CompileError("In the schedule of Func \"" + f.name + "\": " + directive + ": " + why);
}

void require_defined(const std::shared_ptr<FunctionData> &f, const std::string &directive) {
    if (!f || !f->defined())
        throw CompileError("Func \"" + (f ? f->name : std::string("?")) + "\": " + directive +
                           ": the Func has no definition yet; define it before scheduling it");
}

int pure_var_index(const FunctionData &f, const std::string &directive, const Var &v) {
    for (size_t i = 0; i < f.args.size(); i++)
        if (f.args[i] == v.name()) return int(i);
    std::string vars;
    for (const auto &a : f.args) vars += (vars.empty() ? "" : ", ") + a;
    func_fail(f, directive, v.name() + " is not a dimension of the Func; its dimensions are (" + vars + ")");
}

void check_startup(const FunctionData &f, const std::string &directive, const Expr &e, const char *what) {
    if (!e.defined()) func_fail(f, directive, std::string("the ") + what + " is undefined");
    if (!e.type().is_integer() || e.type().lanes != 1)
        func_fail(f, directive, std::string("the ") + what + " has type " + e.type().to_string() +
                                    "; it must be an integer");
    if (!lang::is_startup_expression(e))
        func_fail(f, directive, std::string("the ") + what + " " + expr_text(e) +
                                    " must be a startup expression (constants, Params and input bounds only)");
}

ir::Bound &bound_of(FunctionData &f, const std::string &var) {
    for (auto &b : f.schedule.bounds)
        if (b.var == var) return b;
    f.schedule.bounds.push_back(ir::Bound{var, Expr(), Expr(), Expr(), Expr()});
    return f.schedule.bounds.back();
}

void set_level(const std::shared_ptr<FunctionData> &f, LoopLevel &slot, const LoopLevel &level,
               const std::string &directive) {
    require_defined(f, directive);
    if (level.contents()->kind == LoopLevel::Contents::Kind::At && level.func() == f->name)
        func_fail(*f, directive, "a Func cannot be computed or stored inside its own loops");
    // The slot shares the given level (LoopLevel::set on the caller's handle changes it).
    slot = level;
    lang::schedule_changed();
}

}  // namespace

Func &Func::compute_root() { return compute_at(LoopLevel::root()); }

Func &Func::compute_at(const Func &f, const VarOrRVar &var) {
    require_defined(f.data(), "compute_at(" + f.name() + ", " + var.name() + ")");
    return compute_at(LoopLevel(f, var));
}

Func &Func::compute_at(const LoopLevel &level) {
    set_level(data_, data_->schedule.compute_level, level, "compute_at(" + level.to_string() + ")");
    return *this;
}

Func &Func::compute_with(const Func &f, const VarOrRVar &var, LoopAlignStrategy align) {
    (void)align;  // every strategy computes the same points (include/tessera/Schedule.h)
    const std::string text = "compute_with(" + f.name() + ", " + var.name() + ")";
    require_defined(data_, text);
    require_defined(f.data(), text);
    if (f.data() == data_) func_fail(*data_, text, "a Func cannot be computed with itself");
    // A cycle of compute_with would fuse a Func with itself.
    for (auto g = f.data(); g; g = g->schedule.compute_with.lock())
        if (g == data_) func_fail(*data_, text, "Func \"" + f.name() + "\" is already computed with this Func");
    data_->schedule.compute_with = f.data();
    data_->schedule.compute_with_var = var.name();
    lang::schedule_changed();
    return *this;
}

Stage &Stage::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align) {
    if (stage_ != 0 || s.stage_ != 0)
        throw CompileError("In the schedule of " + ir::describe_definition(*func_, stage_) + ": compute_with(" + s.name() +
                           ", " + var.name() + "): only pure definitions can be computed with each other (no update "
                           "stage)");
    Func(func_).compute_with(Func(s.func_), var, align);
    return *this;
}

Func &Func::compute_inline() {
    require_defined(data_, "compute_inline()");
    if (data_->definitions.size() > 1)
        func_fail(*data_, "compute_inline()",
                  "a Func with update definitions cannot be inlined; compute it with compute_root() or "
                  "compute_at()");
    return compute_at(LoopLevel::inlined());
}

Func &Func::store_root() { return store_at(LoopLevel::root()); }

Func &Func::store_at(const Func &f, const VarOrRVar &var) {
    require_defined(f.data(), "store_at(" + f.name() + ", " + var.name() + ")");
    return store_at(LoopLevel(f, var));
}

Func &Func::store_at(const LoopLevel &level) {
    if (level.is_inlined()) func_fail(*data_, "store_at(inlined)", "storage cannot be inlined");
    set_level(data_, data_->schedule.store_level, level, "store_at(" + level.to_string() + ")");
    return *this;
}

Func &Func::bound(const Var &var, const Expr &min, const Expr &extent) {
    const std::string text = "bound(" + var.name() + ", " + factor_text(min) + ", " + factor_text(extent) + ")";
    require_defined(data_, text);
    pure_var_index(*data_, text, var);
    check_startup(*data_, text, min, "min");
    check_startup(*data_, text, extent, "extent");
    ir::Bound &b = bound_of(*data_, var.name());
    b.min = cast(Int(32), min);
    b.extent = cast(Int(32), extent);
    lang::schedule_changed();
    return *this;
}

Func &Func::bound_extent(const Var &var, const Expr &extent) {
    const std::string text = "bound_extent(" + var.name() + ", " + factor_text(extent) + ")";
    require_defined(data_, text);
    pure_var_index(*data_, text, var);
    check_startup(*data_, text, extent, "extent");
    bound_of(*data_, var.name()).extent = cast(Int(32), extent);
    lang::schedule_changed();
    return *this;
}

Func &Func::align_bounds(const Var &var, const Expr &modulus, const Expr &remainder) {
    const std::string text =
        "align_bounds(" + var.name() + ", " + factor_text(modulus) + ", " + factor_text(remainder) + ")";
    require_defined(data_, text);
    pure_var_index(*data_, text, var);
    check_startup(*data_, text, modulus, "modulus");
    check_startup(*data_, text, remainder, "remainder");
    if (const IntImm *m = as<IntImm>(modulus); m && m->value <= 0)
        func_fail(*data_, text, "the modulus must be positive");
    ir::Bound &b = bound_of(*data_, var.name());
    b.modulus = cast(Int(32), modulus);
    b.remainder = cast(Int(32), remainder);
    lang::schedule_changed();
    return *this;
}

Func &Func::reorder_storage(const std::vector<Var> &dims) {
    std::string text = "reorder_storage(";
    for (size_t k = 0; k < dims.size(); k++) text += (k ? ", " : "") + dims[k].name();
    text += ")";
    require_defined(data_, text);
    std::vector<int> idx;
    for (const Var &v : dims) {
        int i = pure_var_index(*data_, text, v);
        if (std::count(idx.begin(), idx.end(), i)) func_fail(*data_, text, v.name() + " is listed twice");
        idx.push_back(i);
    }
    // The listed dimensions take their places in the given order; the others stay.
    std::vector<std::string> order = data_->schedule.storage_order;
    if (order.empty()) order = data_->args;
    std::vector<int> slots;
    for (int i : idx) {
        auto it = std::find(order.begin(), order.end(), data_->args[size_t(i)]);
        slots.push_back(int(it - order.begin()));
    }
    std::sort(slots.begin(), slots.end());
    for (size_t k = 0; k < slots.size(); k++) order[size_t(slots[k])] = data_->args[size_t(idx[k])];
    data_->schedule.storage_order = order;
    lang::schedule_changed();
    return *this;
}

Func &Func::fold_storage(const Var &var, const Expr &extent, bool fold_forward) {
    const std::string text = "fold_storage(" + var.name() + ", " + factor_text(extent) + ")";
    require_defined(data_, text);
    pure_var_index(*data_, text, var);
    check_startup(*data_, text, extent, "fold extent");
    if (const IntImm *c = as<IntImm>(extent); c && c->value <= 0)
        func_fail(*data_, text, "the fold extent must be positive");
    auto &folds = data_->schedule.folds;
    folds.erase(std::remove_if(folds.begin(), folds.end(), [&](const ir::StorageFold &f) { return f.var == var.name(); }),
                folds.end());
    folds.push_back(ir::StorageFold{var.name(), cast(Int(32), extent), fold_forward});
    lang::schedule_changed();
    return *this;
}

namespace {

/** Whether a definition of `caller` calls `callee`. */
bool calls(const FunctionData &caller, const FunctionData *callee) {
    const auto callees = ir::direct_callees(caller);
    return std::any_of(callees.begin(), callees.end(), [&](const auto &c) { return c.get() == callee; });
}

}  // namespace

Func &Func::store_in(MemoryType memory) {
    require_defined(data_, "store_in");
    switch (memory) {
    case MemoryType::Auto:
    case MemoryType::Heap:
    case MemoryType::Stack:
    case MemoryType::Register: return *this;  // hints: Tessera chooses (MemoryType)
    default:
        func_fail(*data_, "store_in", "only the CPU's memory types (Auto, Heap, Stack, Register) are supported; "
                                      "Tessera compiles for CPUs");
    }
}

Func &Func::memoize() {
    require_defined(data_, "memoize()");
    return *this;
}

Func &Func::set_estimate(const Var &var, const Expr &min, const Expr &extent) {
    const std::string text = "set_estimate(" + var.name() + ", ...)";
    require_defined(data_, text);
    pure_var_index(*data_, text, var);
    check_startup(*data_, text, min, "estimated min");
    check_startup(*data_, text, extent, "estimated extent");
    return *this;  // for an autoscheduler: Tessera has none
}

Func &Func::set_estimates(const tessera::Region &estimates) {
    require_defined(data_, "set_estimates");
    if (estimates.size() != data_->args.size())
        func_fail(*data_, "set_estimates", std::to_string(estimates.size()) + " estimates for " +
                                               std::to_string(data_->args.size()) + " dimensions");
    for (size_t i = 0; i < estimates.size(); i++) set_estimate(Var(data_->args[i]), estimates[i].min, estimates[i].extent);
    return *this;
}

namespace {

/** Turns on one of a Func's trace flags (src/lower/AddTracing.cpp). */
void set_trace(const std::shared_ptr<ir::FunctionData> &f, bool ir::FuncSchedule::*flag, const char *directive) {
    require_defined(f, directive);
    f->schedule.*flag = true;
    lang::schedule_changed();
}

}  // namespace

Func &Func::trace_stores() {
    set_trace(data_, &ir::FuncSchedule::trace_stores, "trace_stores()");
    return *this;
}

Func &Func::trace_loads() {
    set_trace(data_, &ir::FuncSchedule::trace_loads, "trace_loads()");
    return *this;
}

Func &Func::trace_realizations() {
    set_trace(data_, &ir::FuncSchedule::trace_realizations, "trace_realizations()");
    return *this;
}

Func &Func::async() {
    require_defined(data_, "async()");
    return *this;  // computed synchronously, where the schedule places it
}

Func &Func::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, const Expr &offset,
                     PrefetchBoundStrategy strategy) {
    (void)at, (void)from, (void)strategy;
    const std::string text = "prefetch(" + f.name() + ", ...)";
    require_defined(data_, text);
    if (!offset.defined()) func_fail(*data_, text, "the offset is an undefined Expr");
    if (!calls(*data_, f.data().get())) func_fail(*data_, text, "Func \"" + f.name() + "\" is not called by Func \"" + data_->name + "\"");
    return *this;
}

namespace {

/** A new Func w(x, ...) = f(x, ...), marked as f's wrapper. */
std::shared_ptr<FunctionData> make_wrapper(const std::shared_ptr<FunctionData> &f, const std::string &name) {
    Func w(name);
    std::vector<Expr> args;
    for (const auto &a : f->args) args.push_back(Var(a));
    std::vector<Var> vars;
    for (const auto &a : f->args) vars.emplace_back(a);
    w(vars) = Func(f)(args);
    w.data()->schedule.wraps = f->name;
    return w.data();
}

}  // namespace

Func Func::in(const Func &f) {
    require_defined(data_, "in(" + f.name() + ")");
    if (f.data() == data_) func_fail(*data_, "in(" + f.name() + ")", "a Func cannot wrap itself");
    auto &w = data_->schedule.wrappers[f.name()];
    if (!w) w = make_wrapper(data_, data_->name + "_in_" + f.name());
    lang::schedule_changed();
    return Func(w);
}

Func Func::in(const std::vector<Func> &fs) {
    if (fs.empty()) return in();
    std::string names;
    for (const Func &f : fs) names += "_" + f.name();
    auto w = make_wrapper(data_, data_->name + "_in" + names);
    for (const Func &f : fs) {
        if (f.data() == data_) func_fail(*data_, "in({...})", "a Func cannot wrap itself");
        data_->schedule.wrappers[f.name()] = w;
    }
    lang::schedule_changed();
    return Func(w);
}

namespace {

/** Calls of one Func redirected to another. */
class RedirectCalls : public ir::IRMutator {
public:
    RedirectCalls(const FunctionData *from, std::shared_ptr<FunctionData> to) : from_(from), to_(std::move(to)) {}

    void apply(ir::Definition &d) {
        d.value = mutate(d.value);
        for (Expr &a : d.args) a = mutate(a);
        for (Expr &p : d.predicates) p = mutate(p);
    }

protected:
    using IRMutator::visit;
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Func || c->func.get() != from_) return e;
        return Call::make_func(to_, c->args, c->value_index);
    }

private:
    const FunctionData *from_;
    std::shared_ptr<FunctionData> to_;
};

}  // namespace

Func Func::clone_in(const Func &f) { return clone_in(std::vector<Func>{f}); }

Func Func::clone_in(const std::vector<Func> &fs) {
    std::string names;
    for (const Func &f : fs) names += "_" + f.name();
    const std::string text = "clone_in(" + (names.empty() ? std::string() : names.substr(1)) + ")";
    require_defined(data_, text);
    if (fs.empty()) func_fail(*data_, text, "name the Funcs whose calls the copy serves");
    // The same consumers again: the copy they call already.
    auto &made = data_->schedule.clones[names];
    if (made) return Func(made);
    const std::string name = data_->name + "_clone_in" + names;
    for (const Func &f : fs) {
        require_defined(f.data(), text);
        if (f.data() == data_) func_fail(*data_, text, "a Func cannot be cloned into itself");
        if (!calls(*f.data(), data_.get()))
            func_fail(*data_, text, "Func \"" + f.name() + "\" does not call Func \"" + data_->name + "\"");
        for (const auto &g : ir::pipeline_functions(f.data()))
            if (g->name == name) func_fail(*data_, text, "the pipeline already has a Func named \"" + name + "\"");
    }
    // The copy: the definitions (calls of the Func itself made calls of the copy) and the
    // schedule as it is now, each stage's its own; not the Func's in() wrappers or copies.
    auto copy = std::make_shared<FunctionData>();
    copy->name = name;
    copy->args = data_->args;
    copy->type = data_->type;
    copy->frozen = true;
    copy->schedule = data_->schedule;
    copy->schedule.wrappers.clear();
    copy->schedule.clones.clear();
    copy->schedule.wraps.clear();
    RedirectCalls to_copy(data_.get(), copy);
    for (const ir::Definition &d : data_->definitions) {
        ir::Definition c = d;
        c.schedule = d.schedule->copy();
        to_copy.apply(c);
        copy->definitions.push_back(std::move(c));
    }
    for (const Func &f : fs)
        for (ir::Definition &d : f.data()->definitions) to_copy.apply(d);
    made = copy;
    lang::schedule_changed();
    return Func(copy);
}

Func Func::in() {
    require_defined(data_, "in()");
    auto &w = data_->schedule.wrappers[""];
    if (!w) w = make_wrapper(data_, data_->name + "_global_wrapper");
    lang::schedule_changed();
    return Func(w);
}

}  // namespace tessera
