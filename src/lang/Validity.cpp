#include "lang/Validity.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "tessera/IROperator.h"

namespace tessera::lang {

using namespace ir;

namespace {

[[noreturn]] void fail(const FunctionData &f, int stage, const std::string &msg) {
    throw CompileError("In " + describe_definition(f, stage) + ": " + msg);
}

std::string quote(const std::string &s) { return "\"" + s + "\""; }

/** Everything a definition refers to. */
struct Uses : IRVisitor {
    std::vector<const Variable *> vars;   // every Variable occurrence
    std::vector<const Call *> func_calls; // every call to a Func
    std::vector<const Call *> image_calls;
    int undefs = 0;                       // undef() calls
    int tuples = 0;                       // tuple() calls (Tuple values)
    using IRVisitor::include;

protected:
    void visit(const Variable *op) override { vars.push_back(op); }
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Func) func_calls.push_back(op);
        if (op->call_kind == CallKind::Intrinsic && op->op == Intrinsic::Undef) undefs++;
        if (op->call_kind == CallKind::Intrinsic && op->op == Intrinsic::Tuple) tuples++;
        if (op->call_kind == CallKind::Image) image_calls.push_back(op);
        IRVisitor::visit(op);
    }
};

std::string arg_list(const std::vector<Expr> &args) {
    std::ostringstream s;
    for (size_t i = 0; i < args.size(); i++) s << (i ? ", " : "") << to_string(args[i]);
    return s.str();
}

std::string join_names(const std::vector<std::string> &names) {
    std::string s;
    for (size_t i = 0; i < names.size(); i++) s += (i ? ", " : "") + names[i];
    return s;
}

/** undef is a whole pure definition's value only: it stands for "no value", which no
 * operation, update or coordinate can use. */
void check_undef_use(const FunctionData &f, int stage, const Uses &uses, const Expr &value) {
    if (uses.undefs == 0 || (stage == 0 && is_undef(value))) return;
    fail(f, stage,
         stage == 0 ? "undef is used inside the value; undef may only be the whole value of a pure definition "
                      "(f(x, y) = undef<float>()), whose values the updates then write"
                    : "undef is used in an update; undef may only be the whole value of a pure definition "
                      "(f(x, y) = undef<float>()), whose values the updates then write");
}

/** A Tuple is a whole definition's value only: its components are the Func's values, and
 * no operation takes a Tuple (select on Tuples works component by component). */
void check_tuple_use(const FunctionData &f, int stage, const Uses &uses, const Expr &value) {
    const Call *c = as<Call>(value);
    const bool whole = c && c->call_kind == CallKind::Intrinsic && c->op == Intrinsic::Tuple;
    if (uses.tuples == (whole ? 1 : 0)) return;
    fail(f, stage, "a Tuple is used inside an expression; a Tuple may only be the whole value of a definition "
                   "(f(x) = Tuple(a, b)); read one of a Func's values with f(x)[i]");
}

std::string call_text(const Call *c) {
    std::string text = c->name + "(" + arg_list(c->args) + ")";
    if (c->call_kind == CallKind::Func && c->func && c->func->defined() && c->func->outputs() > 1)
        text += "[" + std::to_string(c->value_index) + "]";
    return text;
}

// Rules shared by pure and update definitions: the Funcs called are defined (define before
// use), called with the right arity, and have not changed type since the call was built.
void check_calls(const FunctionData &f, int stage, const Uses &uses) {
    for (const Call *c : uses.func_calls) {
        const FunctionData &g = *c->func;
        if (&g == &f) {
            if (stage == 0)
                fail(f, stage, "it calls " + quote(f.name) + " itself (" + call_text(c) +
                                   "); the first definition of a Func must be pure, with no "
                                   "self-reference. Define " + f.name +
                                   " first, then refer to it in an update definition");
            continue;
        }
        if (!g.defined())
            fail(f, stage, "it calls Func " + quote(g.name) + ", which has no definition yet; define " +
                               g.name + " before using it");
        if (int(c->args.size()) != g.dimensions())
            fail(f, stage, "the call " + call_text(c) + " passes " + std::to_string(c->args.size()) +
                               " arguments but Func " + quote(g.name) + " has " +
                               std::to_string(g.dimensions()));
        if (c->value_index >= g.outputs() || c->type != g.types()[size_t(c->value_index)])
            fail(f, stage, "the call " + call_text(c) + " was made before " + quote(g.name) +
                               " was defined; define " + g.name + " before using it");
    }
    for (const Call *c : uses.image_calls) {
        int dims = c->buffer ? int(c->buffer->dims.size()) : c->input->dimensions;
        if (int(c->args.size()) != dims)
            fail(f, stage, "the read " + call_text(c) + " passes " + std::to_string(c->args.size()) +
                               " coordinates but " + c->name + " has " + std::to_string(dims) + " dimensions");
    }
}

// The self-reference check of an update: the separation restriction (docs/semantics.md §8,
// rule 4) applied to `self_call_args`, one self-call.
void check_separation(const FunctionData &f, int stage, const std::vector<Expr> &lhs, const Call *self) {
    if (int(self->args.size()) != f.dimensions())
        fail(f, stage, "the call " + call_text(self) + " passes " + std::to_string(self->args.size()) +
                           " arguments but " + quote(f.name) + " has " + std::to_string(f.dimensions()));
    for (size_t i = 0; i < lhs.size(); i++) {
        const Variable *v = as<Variable>(lhs[i]);
        if (!v || v->var_kind != VarKind::Pure) continue;
        const Variable *w = as<Variable>(self->args[i]);
        if (!w || w->name != v->name)
            fail(f, stage,
                 "the self-reference " + call_text(self) + " has " + to_string(self->args[i]) +
                     " as argument " + std::to_string(i) + ", where the left-hand side has the pure Var " +
                     v->name + ". A self-reference must use " + v->name +
                     " unchanged in that position (the separation rule: otherwise the update reads "
                     "values it overwrites at other points)");
    }
}

}  // namespace

std::vector<Expr> coerce_coordinates(std::vector<Expr> args, const std::string &callee) {
    for (size_t i = 0; i < args.size(); i++) {
        Expr &a = args[i];
        if (!a.defined())
            throw CompileError("Argument " + std::to_string(i) + " of " + callee + "(...) is an undefined Expr");
        Type t = a.type();
        if (t == Int(32)) continue;
        if (t.is_float() || t.is_bool())
            throw CompileError("Argument " + std::to_string(i) + " of " + callee + "(...) is " + to_string(a) +
                               " of type " + t.to_string() + "; coordinates must be integers (cast explicitly)");
        if (t.bits == 64)
            throw CompileError("Argument " + std::to_string(i) + " of " + callee + "(...) is " + to_string(a) +
                               " of type " + t.to_string() + "; coordinates are 32-bit (cast explicitly)");
        a = cast(Int(32), a);
    }
    return args;
}

bool is_startup_expression(const Expr &e) {
    struct Check : IRVisitor {
        bool ok = true;
        std::string culprit;
        using IRVisitor::include;

    protected:
        void visit(const Variable *op) override {
            if (op->var_kind != VarKind::Param && op->var_kind != VarKind::InputBound) {
                ok = false;
                culprit = op->name;
            }
        }
        void visit(const Call *op) override {
            if (op->call_kind != CallKind::Intrinsic) {
                ok = false;
                culprit = op->name;
            }
            IRVisitor::visit(op);
        }
    } check;
    check.include(e);
    return check.ok;
}

void check_pure_definition(const FunctionData &f, const std::vector<Expr> &args, const Expr &value) {
    std::set<std::string> names;
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = as<Variable>(args[i]);
        if (v && v->var_kind == VarKind::Reduction)
            fail(f, 0, "argument " + std::to_string(i) + " is the RVar " + v->name +
                           "; the arguments of a pure definition must be Vars (reductions over an RDom "
                           "belong in an update definition)");
        if (!v || v->var_kind != VarKind::Pure)
            fail(f, 0, "argument " + std::to_string(i) + " is " + to_string(args[i]) +
                           ", which is not a Var; the arguments of a pure definition must be distinct Vars "
                           "(write other left-hand sides as update definitions)");
        if (!names.insert(v->name).second)
            fail(f, 0, "the Var " + v->name + " appears twice among the arguments; they must be distinct");
    }
    if (!value.defined()) fail(f, 0, "the value is an undefined Expr");
    Uses uses;
    uses.include(value);
    for (const Variable *v : uses.vars) {
        if (v->var_kind == VarKind::Reduction)
            fail(f, 0, "the value uses the RVar " + v->name +
                           "; RVars may only appear in update definitions");
        if (v->var_kind == VarKind::Pure && !names.count(v->name))
            fail(f, 0, "the value uses the Var " + v->name + ", which is not one of its arguments (" +
                           arg_list(args) + ")");
    }
    check_undef_use(f, 0, uses, value);
    check_tuple_use(f, 0, uses, value);
    check_calls(f, 0, uses);
}

std::shared_ptr<RDomData> find_rdom(const FunctionData &f, int stage, const std::vector<Expr> &args,
                                    const Expr &value) {
    Uses uses;
    for (const Expr &a : args) uses.include(a);
    uses.include(value);
    std::shared_ptr<RDomData> rdom;
    for (const Variable *v : uses.vars) {
        if (v->var_kind != VarKind::Reduction) continue;
        if (rdom && rdom != v->rdom)
            fail(f, stage, "it uses RVars of two different RDoms (" + rdom->name + " and " + v->rdom->name +
                               "); one update definition iterates one RDom (make one RDom with all dimensions)");
        rdom = v->rdom;
    }
    if (rdom) {
        Uses preds;
        for (const Expr &p : rdom->predicates) preds.include(p);
        for (const Variable *v : preds.vars)
            if (v->var_kind == VarKind::Reduction && v->rdom != rdom)
                fail(f, stage, "the where() condition of RDom " + rdom->name + " uses " + v->name + ", an RVar of RDom " +
                                   v->rdom->name + "; an update iterates one RDom, and its predicates may use only "
                                   "that RDom's RVars");
    }
    return rdom;
}

void check_update_definition(const FunctionData &f, int update_index, const std::vector<Expr> &args,
                             const Expr &value, const std::shared_ptr<RDomData> &rdom,
                             std::vector<bool> &pure_dims) {
    const int stage = update_index + 1;
    if (int(args.size()) != f.dimensions())
        fail(f, stage, "the left-hand side has " + std::to_string(args.size()) + " arguments but " +
                           quote(f.name) + " has " + std::to_string(f.dimensions()) + " dimensions");
    if (!value.defined()) fail(f, stage, "the value is an undefined Expr");
    const std::vector<Expr> values = tuple_components(value);
    const std::vector<Type> types = f.types();
    if (values.size() != types.size())
        fail(f, stage, "the value has " + std::to_string(values.size()) + " component(s) but the pure definition of " +
                           quote(f.name) + " has " + std::to_string(types.size()) +
                           "; all definitions of a Func have the same number of values");
    for (size_t i = 0; i < values.size(); i++)
        if (values[i].type() != types[i])
            fail(f, stage, (types.size() > 1 ? "value " + std::to_string(i) + " of the Tuple" : std::string("the value")) +
                               " has type " + values[i].type().to_string() + " but the pure definition of " +
                               quote(f.name) + " has type " + types[i].to_string() +
                               (types.size() > 1 ? " there" : "") +
                               "; all definitions of a Func have the same type (cast the value)");

    // Which left-hand side arguments are bare pure Vars (pure dimensions of this stage).
    std::map<std::string, size_t> lhs_var_pos;
    pure_dims.assign(args.size(), false);
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = as<Variable>(args[i]);
        if (!v || v->var_kind != VarKind::Pure) continue;
        if (v->name != f.args[i])
            fail(f, stage, "argument " + std::to_string(i) + " of the left-hand side is the Var " + v->name +
                               ", but the pure definition of " + quote(f.name) + " has " + f.args[i] +
                               " there; an update's pure Vars must be the pure definition's Vars, in the same "
                               "positions (" + join_names(f.args) + ")");
        if (lhs_var_pos.count(v->name))
            fail(f, stage, "the Var " + v->name + " appears as argument " + std::to_string(lhs_var_pos[v->name]) +
                               " and argument " + std::to_string(i) +
                               " of the left-hand side; a pure Var may appear in one position only");
        lhs_var_pos[v->name] = i;
        pure_dims[i] = true;
    }

    // RDom bounds must be startup expressions (rule 2).
    if (rdom) {
        for (const auto &d : rdom->dims) {
            for (const Expr *e : {&d.min, &d.extent}) {
                if (!is_startup_expression(*e))
                    fail(f, stage, "the " + std::string(e == &d.min ? "min" : "extent") + " of " + d.name + " is " +
                                       to_string(*e) +
                                       "; RDom bounds must be startup expressions: constants, Params and "
                                       "ImageParam bounds only, no Vars, RVars or Func calls");
            }
        }
    }

    // Every Var used anywhere must be a bare left-hand side argument in its own position
    // (rule 3b), and every self-reference must use the pure Vars unchanged in their
    // positions (rule 3a). The other arguments of the left-hand side, the reduction
    // dimensions, may compute their coordinate from the pure Vars as from anything else
    // (a bilateral grid's histogram(x, y, zi(x, y, r), c) += ...): only self-references and
    // the pure positions are constrained.
    Uses uses;
    for (size_t i = 0; i < args.size(); i++) {
        if (pure_dims[i]) continue;
        Uses nested;
        nested.include(args[i]);
        for (const Variable *v : nested.vars) {
            if (v->var_kind == VarKind::Pure && v->name == f.args[i])
                fail(f, stage, "argument " + std::to_string(i) + " of the left-hand side is " + to_string(args[i]) +
                                   ", which uses the pure Var " + v->name + " of that position inside an expression; " +
                                   v->name + " must appear there bare (the separation rule: otherwise the update "
                                   "writes at other points than the ones it computes for)");
        }
        uses.include(args[i]);
    }
    uses.include(value);
    if (rdom)
        for (const Expr &p : rdom->predicates) uses.include(p);
    for (const Variable *v : uses.vars) {
        if (v->var_kind == VarKind::Pure && !lhs_var_pos.count(v->name))
            fail(f, stage, "it uses the Var " + v->name +
                               ", which is not a bare argument of its left-hand side (" + arg_list(args) +
                               "); a Var in an update must appear unchanged on the left-hand side");
    }
    for (const Call *c : uses.func_calls)
        if (c->func.get() == &f) check_separation(f, stage, args, c);
    check_undef_use(f, stage, uses, value);
    check_tuple_use(f, stage, uses, value);
    check_calls(f, stage, uses);
}

}  // namespace tessera::lang
