// Halide's implicit arguments (`_`, `_0`, `_1`, ...): src/lang/ImplicitVars.h.

#include "lang/ImplicitVars.h"

#include <algorithm>
#include <cctype>

#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "tessera/Error.h"

namespace tessera {

const Var _("_");
const Var _0("_0"), _1("_1"), _2("_2"), _3("_3"), _4("_4"), _5("_5"), _6("_6"), _7("_7"), _8("_8"), _9("_9");

Var Var::implicit(int n) { return Var("_" + std::to_string(n)); }

namespace lang {

using namespace ir;

bool is_placeholder(const Expr &e) {
    const Variable *v = e.defined() ? as<Variable>(e) : nullptr;
    return v && v->var_kind == VarKind::Pure && v->name == "_";
}

int implicit_index(const std::string &name) {
    if (name.size() < 2 || name[0] != '_' || name.size() > 10) return -1;
    for (size_t i = 1; i < name.size(); i++)
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
    if (name.size() > 2 && name[1] == '0') return -1;  // `_01` is an ordinary name
    return std::stoi(name.substr(1));
}

namespace {

/** The position of the one `_` among `args`, or -1; a CompileError for a second one. */
int placeholder_position(const std::vector<Expr> &args, const std::string &what) {
    int at = -1;
    for (size_t i = 0; i < args.size(); i++) {
        if (!is_placeholder(args[i])) continue;
        if (at >= 0) throw CompileError(what + " uses the placeholder _ twice; it stands for all the implicit arguments at once");
        at = int(i);
    }
    return at;
}

std::vector<Expr> with_implicit_vars(std::vector<Expr> args, int at, int count) {
    std::vector<Expr> out(args.begin(), args.begin() + at);
    for (int k = 0; k < count; k++) out.push_back(Var::implicit(k));
    out.insert(out.end(), args.begin() + at + 1, args.end());
    return out;
}

}  // namespace

std::vector<Expr> call_coordinates(std::vector<Expr> args, int dims, const std::string &callee) {
    const int at = placeholder_position(args, "The call of " + callee);
    if (dims < 0) {
        if (at >= 0)
            throw CompileError("Func \"" + callee + "\" is called with the placeholder _ before it is defined: "
                               "its number of dimensions, which _ stands for the rest of, is not known yet");
        return args;
    }
    const int given = int(args.size()) - (at >= 0 ? 1 : 0);
    if (given >= dims) return at >= 0 ? with_implicit_vars(std::move(args), at, 0) : args;
    if (at < 0) {
        // Fewer coordinates than dimensions: the rest are implicit, as in Halide.
        for (int k = 0; given + k < dims; k++) args.push_back(Var::implicit(k));
        return args;
    }
    return with_implicit_vars(std::move(args), at, dims - given);
}

std::vector<Expr> definition_arguments(std::vector<Expr> args, const Expr &value, const ir::FunctionData &func) {
    // The implicit Vars the value uses, and the first call given them.
    struct Implicit : IRVisitor {
        int highest = -1;
        const Call *call = nullptr;
        using IRVisitor::visit;
        void visit(const Variable *op) override {
            if (op->var_kind == VarKind::Pure) highest = std::max(highest, implicit_index(op->name));
        }
        void visit(const Call *op) override {
            IRVisitor::visit(op);
            if (call || op->call_kind == CallKind::Intrinsic) return;
            for (const Expr &a : op->args)
                if (const Variable *v = as<Variable>(a); v && implicit_index(v->name) >= 0) call = op;
        }
    } used;
    if (value.defined()) used.include(value);
    const int stage = int(func.definitions.size());
    const int at = placeholder_position(args, "The definition of " + func.name);
    if (at >= 0) return with_implicit_vars(std::move(args), at, used.highest + 1);
    if (used.highest < 0) return args;
    for (const Expr &a : args)
        if (const Variable *v = as<Variable>(a); v && v->name == Var::implicit(used.highest).name()) return args;
    std::string what = "implicit arguments";
    if (const Call *c = used.call) {
        size_t given = 0;
        while (given < c->args.size()) {
            const Variable *v = as<Variable>(c->args[given]);
            if (v && implicit_index(v->name) >= 0) break;
            given++;
        }
        const std::string kind = c->call_kind == CallKind::Func ? "Func" : c->buffer ? "Buffer" : "ImageParam";
        what = kind + " \"" + c->name + "\" has " + std::to_string(c->args.size()) + " dimensions but is called with " +
               std::to_string(given) + " coordinate" + (given == 1 ? "" : "s");
    }
    throw CompileError("In " + ir::describe_definition(func, stage) + ": " + what +
                       " (Halide's implicit arguments would stand for the rest, but the left-hand side has no _ to bind "
                       "them: " + func.name + "(..., _) = ...)");
}

}  // namespace lang

}  // namespace tessera
