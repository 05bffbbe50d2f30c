// Inline reductions (include/tessera/InlineReductions.h): a new Func over the free Vars of
// the expression, whose update folds the expression in over an RDom.

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>

#include "analysis/ConstMath.h"
#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "lang/Definitions.h"
#include "tessera/Error.h"
#include "tessera/Func.h"
#include "tessera/IROperator.h"
#include "tessera/InlineReductions.h"

namespace tessera {

namespace {

using ir::as;

enum class Reduction { Sum, Product, Maximum, Minimum, Argmax, Argmin };

const char *operation_name(Reduction op) {
    switch (op) {
    case Reduction::Sum: return "sum";
    case Reduction::Product: return "product";
    case Reduction::Maximum: return "maximum";
    case Reduction::Minimum: return "minimum";
    case Reduction::Argmax: return "argmax";
    default: return "argmin";
    }
}

/** The free Vars of an expression in order of first appearance, and the RDoms it uses. */
struct FreeVars : ir::IRVisitor {
    std::vector<std::string> vars;
    std::vector<std::shared_ptr<ir::RDomData>> rdoms;
    using IRVisitor::include;

protected:
    void visit(const ir::Variable *op) override {
        if (op->var_kind == ir::VarKind::Pure && std::find(vars.begin(), vars.end(), op->name) == vars.end())
            vars.push_back(op->name);
        if (op->var_kind == ir::VarKind::Reduction && std::find(rdoms.begin(), rdoms.end(), op->rdom) == rdoms.end())
            rdoms.push_back(op->rdom);
    }
};

/** "sum_0", "sum_1", ...: a new name for each reduction of the process, per base name. */
std::string numbered(const std::string &base) {
    static std::mutex mutex;
    static std::map<std::string, int> counters;
    std::lock_guard<std::mutex> lock(mutex);
    return base + "_" + std::to_string(counters[base]++);
}

/** The identity of the operation in type t: what the reduction of nothing is. (An
 * unsigned type's highest value is all ones, which an int64 cannot hold for uint64.) */
Expr identity(Reduction op, Type t) {
    using analysis::detail::type_max, analysis::detail::type_min;
    switch (op) {
    case Reduction::Sum: return make_zero(t);
    case Reduction::Product: return make_one(t);
    case Reduction::Maximum:
    case Reduction::Argmax:
        if (t.is_float()) return make_const(t, -std::numeric_limits<double>::infinity());
        if (t.is_uint() || t.is_bool()) return make_zero(t);
        return make_const(t, int64_t(type_min(t)));
    default:
        if (t.is_float()) return make_const(t, std::numeric_limits<double>::infinity());
        if (t.is_bool()) return make_one(t);
        if (t.is_uint()) return ~make_zero(t);
        return make_const(t, int64_t(type_max(t)));
    }
}

/** The Func of the reduction and the Vars it is applied to. */
Func reduce(Reduction op, const std::shared_ptr<ir::RDomData> &over, Expr e, const std::string &name,
            std::vector<Expr> &args) {
    const std::string what = operation_name(op);
    if (!e.defined()) throw CompileError(what + "() is given an undefined Expr");
    FreeVars free;
    free.include(e);
    if (over && !free.rdoms.empty() && free.rdoms[0] != over)
        throw CompileError(what + "(" + over->name + ", e): e uses RVars of RDom " + free.rdoms[0]->name +
                           ", not of " + over->name + ", the RDom it reduces over");
    if (free.rdoms.size() > 1)
        throw CompileError(what + "(e): e uses RVars of two RDoms (" + free.rdoms[0]->name + " and " +
                           free.rdoms[1]->name + "); a reduction runs over one RDom (make one RDom with all the "
                           "dimensions)");
    if (!over && free.rdoms.empty())
        throw CompileError(what + "(e): e uses no RVar, so there is nothing to reduce over; use an RDom's RVars in "
                           "e, or name the RDom: " + what + "(r, e)");
    if (op == Reduction::Sum || op == Reduction::Product)
        if (e.type().is_bool())
            throw CompileError(what + "(e): e is a bool; cast it to a number type first");
    Func f(numbered(name));
    for (const std::string &v : free.vars) args.push_back(Var(v));
    const std::shared_ptr<ir::RDomData> &rdom = over ? over : free.rdoms[0];
    if (op == Reduction::Argmax || op == Reduction::Argmin) {
        // (the RDom's coordinates..., the value): the first point in the RDom's order
        // where the value is strictly better than every point before it.
        std::vector<Expr> initial, candidate;
        for (size_t i = 0; i < rdom->dims.size(); i++) {
            initial.push_back(rdom->dims[i].min);
            candidate.push_back(RVar(rdom, int(i)));
        }
        initial.push_back(identity(op, e.type()));
        candidate.push_back(e);
        f(args) = Tuple(initial);
        const Expr best = f(args)[int(initial.size()) - 1];
        const Expr better = op == Reduction::Argmax ? e > best : e < best;
        lang::add_definition(f.data(), args, lang::tuple_value(select(better, Tuple(candidate), Tuple(f(args)))), rdom);
        return f;
    }
    f(args) = identity(op, e.type());
    const Expr self = f(args);
    Expr value;
    switch (op) {
    case Reduction::Sum: value = self + e; break;
    case Reduction::Product: value = self * e; break;
    case Reduction::Maximum: value = max(self, e); break;
    default: value = min(self, e); break;
    }
    lang::add_definition(f.data(), args, value, rdom);
    return f;
}

Expr reduce(Reduction op, const std::shared_ptr<ir::RDomData> &over, Expr e, const std::string &name) {
    std::vector<Expr> args;
    Func f = reduce(op, over, std::move(e), name, args);
    return f(args);
}

Tuple reduce_to_tuple(Reduction op, const std::shared_ptr<ir::RDomData> &over, Expr e, const std::string &name) {
    std::vector<Expr> args;
    Func f = reduce(op, over, std::move(e), name, args);
    return Tuple(f(args));
}

}  // namespace

Expr sum(Expr e, const std::string &name) { return reduce(Reduction::Sum, nullptr, std::move(e), name); }
Expr sum(const RDom &r, Expr e, const std::string &name) { return reduce(Reduction::Sum, r.data(), std::move(e), name); }
Expr product(Expr e, const std::string &name) { return reduce(Reduction::Product, nullptr, std::move(e), name); }
Expr product(const RDom &r, Expr e, const std::string &name) {
    return reduce(Reduction::Product, r.data(), std::move(e), name);
}
Expr maximum(Expr e, const std::string &name) { return reduce(Reduction::Maximum, nullptr, std::move(e), name); }
Expr maximum(const RDom &r, Expr e, const std::string &name) {
    return reduce(Reduction::Maximum, r.data(), std::move(e), name);
}
Expr minimum(Expr e, const std::string &name) { return reduce(Reduction::Minimum, nullptr, std::move(e), name); }
Expr minimum(const RDom &r, Expr e, const std::string &name) {
    return reduce(Reduction::Minimum, r.data(), std::move(e), name);
}
Tuple argmax(Expr e, const std::string &name) { return reduce_to_tuple(Reduction::Argmax, nullptr, std::move(e), name); }
Tuple argmax(const RDom &r, Expr e, const std::string &name) {
    return reduce_to_tuple(Reduction::Argmax, r.data(), std::move(e), name);
}
Tuple argmin(Expr e, const std::string &name) { return reduce_to_tuple(Reduction::Argmin, nullptr, std::move(e), name); }
Tuple argmin(const RDom &r, Expr e, const std::string &name) {
    return reduce_to_tuple(Reduction::Argmin, r.data(), std::move(e), name);
}

}  // namespace tessera
