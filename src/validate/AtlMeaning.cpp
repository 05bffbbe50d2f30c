// ATL programs checked against their meaning (src/validate/AtlMeaning.h; docs/atl.md,
// "Validation").
//
// A leaf's meaning is a set of points (cell, iteration) over the dimensions
//   c.0 .. c.{r-1}   the cell's coordinates in its destination tensor (outermost first),
//   e.0 .. e.{m-1}   a let's extra coordinates: the loop variables it is computed per,
//   the loop variables around the leaf (by their ATL names),
// built by descending the expression from the root with the cell's coordinates, as the
// reference interpreter does (src/atl/Interpret.cpp). The lowered update's graph is the same
// kind of set, built from its reduction domain, its `where` predicates and its left-hand
// side; the values are compared as terms whose indices are compared as affine functions on
// the update's domain.

#include "validate/AtlMeaning.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "atl/Tree.h"
#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"
#include "tessera/IROperator.h"
#include "validate/Affine.h"
#include "validate/Isl.h"

namespace tessera::validator {

using namespace atl::detail;
using ir::as;

namespace {

/** A definite answer that the code or the derivation is wrong, with the point showing it. */
struct Mismatch : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Expr variable(const std::string &name) { return ir::Variable::make(Int(32), name); }

Expr constant(int64_t v) {
    if (v < INT32_MIN || v > INT32_MAX) throw Unsupported("the ATL constant " + std::to_string(v) + " does not fit in 32 bits");
    return Expr(int32_t(v));
}

using Substitution = std::map<std::string, Expr>;

/** An ATL index or condition over variables named by the loop variables, or their
 * substitutes in `s` (lowering's translation: src/atl/Tree.h). */
Expr index_of(const IndexNode &z, const Substitution &s) {
    return atl::detail::index_expr(z, [&](const std::string &v) { return s.count(v) ? s.at(v) : variable(v); });
}

Expr cond_of(const CondNode &c, const Substitution &s) {
    return atl::detail::cond_expr(c, [&](const std::string &v) { return s.count(v) ? s.at(v) : variable(v); });
}

std::string cell_dim(int d) { return "c." + std::to_string(d); }
std::string extra_dim(int j) { return "e." + std::to_string(j); }

struct Loop {
    std::string var;
    int64_t lo, hi;
};

/** A scalar leaf and its meaning. */
struct Leaf {
    int number = 0;            // in program order
    std::string destination;   // the let's name; empty for the output
    const TensorNode *node = nullptr;
    bool accumulate = false;   // under a sum
    int rank = 0;              // the destination tensor's rank
    std::vector<int64_t> shape;         // the destination tensor's shape
    std::vector<std::string> captured;  // the destination's extra coordinates
    std::vector<std::string> vars;      // the loops in scope, outermost first
    std::vector<Expr> constraints;      // over the cell, extra and loop dimensions
    mutable Isl<isl_set> cached_meaning;  // the constraints' set, once computed (meaning_of)

    std::vector<std::string> dims() const {
        std::vector<std::string> d;
        for (int i = 0; i < rank; i++) d.push_back(cell_dim(i));
        for (size_t j = 0; j < captured.size(); j++) d.push_back(extra_dim(int(j)));
        d.insert(d.end(), vars.begin(), vars.end());
        return d;
    }
    std::string name() const {
        return "leaf " + std::to_string(number) + " (" + tensor_text(*node) + ", stored into " +
               (destination.empty() ? std::string("the output") : "let " + destination) + ")";
    }
};

/** The leaves of a program with their meanings. `captured_of` says which loop variables a
 * let's storage is indexed by (for the lowered code, those its Func has dimensions for; for
 * a derivation, every loop around the let). */
class Meaning {
public:
    using Captured = std::function<std::vector<std::string>(const TensorNode &let, const std::vector<Loop> &scope)>;

    Meaning(const TensorNode &root, Captured captured) : captured_(std::move(captured)) {
        Context ctx;
        ctx.rank = int(root.shape.size());
        ctx.shape = root.shape;
        std::vector<Expr> coords;
        for (int d = 0; d < ctx.rank; d++) {
            coords.push_back(variable(cell_dim(d)));
            ctx.links.push_back(0 <= coords.back() && coords.back() < constant(root.shape[size_t(d)]));
        }
        descend(root, coords, ctx);
    }

    std::vector<Leaf> leaves;
    std::map<std::string, const TensorNode *> lets;  // by name

private:
    struct Context {
        std::string destination;
        int rank = 0;
        std::vector<int64_t> shape;
        std::vector<std::string> captured;
        std::vector<Loop> loops;
        std::vector<Expr> guards, links;
        bool accumulate = false;
    };

    void descend(const TensorNode &e, std::vector<Expr> coords, Context ctx) {
        switch (e.op) {
        case TensorOp::Gen:
            ctx.links.push_back(variable(e.var) == coords[0] + constant(e.lo));
            ctx.loops.push_back(Loop{e.var, e.lo, e.hi});
            coords.erase(coords.begin());
            return descend(*e.a, coords, ctx);
        case TensorOp::Sum:
            ctx.loops.push_back(Loop{e.var, e.lo, e.hi});
            ctx.accumulate = true;
            return descend(*e.a, coords, ctx);
        case TensorOp::Guard:
            ctx.guards.push_back(cond_of(*e.cond, {}));
            return descend(*e.a, coords, ctx);
        case TensorOp::Let: {
            lets[e.array->name] = &e;
            Context value;
            value.destination = e.array->name;
            value.rank = int(e.a->shape.size());
            value.shape = e.a->shape;
            value.captured = captured_(e, ctx.loops);
            for (const Loop &l : ctx.loops)
                if (std::count(value.captured.begin(), value.captured.end(), l.var)) value.loops.push_back(l);
            if (value.loops.size() != value.captured.size())
                throw Mismatch("the storage of let " + e.array->name + " is indexed by a variable that is not a loop around it");
            value.guards = ctx.guards;
            // A let in a loop that never runs is never computed.
            for (const Loop &l : ctx.loops)
                if (l.hi <= l.lo) value.guards.push_back(constant(0) == constant(1));
            std::vector<Expr> cells;
            for (int d = 0; d < value.rank; d++) {
                cells.push_back(variable(cell_dim(d)));
                value.links.push_back(0 <= cells.back() && cells.back() < constant(e.a->shape[size_t(d)]));
            }
            for (size_t j = 0; j < value.captured.size(); j++)
                value.links.push_back(variable(extra_dim(int(j))) == variable(value.captured[j]));
            descend(*e.a, cells, value);
            return descend(*e.b, coords, ctx);
        }
        case TensorOp::Concat: {
            const int64_t n1 = e.a->shape[0];
            Context left = ctx;
            left.links.push_back(coords[0] < constant(n1));
            descend(*e.a, coords, left);
            ctx.links.push_back(coords[0] >= constant(n1));
            coords[0] = coords[0] - constant(n1);
            return descend(*e.b, coords, ctx);
        }
        case TensorOp::Flatten: {
            const Expr x = coords[0], n2 = constant(e.a->shape[1]);
            coords[0] = x / n2;
            coords.insert(coords.begin() + 1, x % n2);
            return descend(*e.a, coords, ctx);
        }
        case TensorOp::Split: {
            const Expr flat = coords[0] * constant(e.k) + coords[1];
            coords.erase(coords.begin());
            coords[0] = flat;
            ctx.links.push_back(flat < constant(e.a->shape[0]));  // the tail is pad
            return descend(*e.a, coords, ctx);
        }
        case TensorOp::Transpose: std::swap(coords[0], coords[1]); return descend(*e.a, coords, ctx);
        case TensorOp::TruncL: coords[0] = coords[0] + constant(e.k); return descend(*e.a, coords, ctx);
        case TensorOp::TruncR: return descend(*e.a, coords, ctx);
        case TensorOp::PadL:
            ctx.links.push_back(coords[0] >= constant(e.k));
            coords[0] = coords[0] - constant(e.k);
            return descend(*e.a, coords, ctx);
        case TensorOp::PadR: ctx.links.push_back(coords[0] < constant(e.a->shape[0])); return descend(*e.a, coords, ctx);
        default: break;
        }
        Leaf leaf;
        leaf.number = int(leaves.size());
        leaf.destination = ctx.destination;
        leaf.node = &e;
        leaf.accumulate = ctx.accumulate;
        leaf.rank = ctx.rank;
        leaf.shape = ctx.shape;
        leaf.captured = ctx.captured;
        for (const Loop &l : ctx.loops) {
            leaf.vars.push_back(l.var);
            leaf.constraints.push_back(constant(l.lo) <= variable(l.var) && variable(l.var) < constant(l.hi));
        }
        leaf.constraints.insert(leaf.constraints.end(), ctx.links.begin(), ctx.links.end());
        leaf.constraints.insert(leaf.constraints.end(), ctx.guards.begin(), ctx.guards.end());
        leaves.push_back(std::move(leaf));
    }

    Captured captured_;
};

// ---- polyhedra ------------------------------------------------------------------------

/** The points of `dims` where every condition holds; a variable outside `dims` is a
 * Mismatch naming `what` (a value that depends on a loop its storage does not index). */
Isl<isl_set> points(isl_ctx *ctx, const std::vector<std::string> &dims, const std::vector<Expr> &conditions,
                    const std::string &what) {
    std::map<std::string, Type> parameters;
    const std::map<std::string, Expr> no_lets;
    Affine a(ctx, "S", dims, -1, no_lets, parameters);
    Isl<isl_set> s = a.universe();
    for (const Expr &c : conditions) s = check(isl_set_intersect(s.release(), a.condition(c).release()), "an intersection");
    if (!parameters.empty())
        throw Mismatch(what + " depends on " + parameters.begin()->first + ", which is not among its dimensions");
    return s;
}

/** A leaf's meaning: the points of its dimensions where its constraints hold, computed
 * once per leaf (in the context of the check, which must outlive the leaf). */
const Isl<isl_set> &meaning_of(isl_ctx *ctx, const Leaf &leaf) {
    if (!leaf.cached_meaning) leaf.cached_meaning = points(ctx, leaf.dims(), leaf.constraints, leaf.name());
    return leaf.cached_meaning;
}

std::string point_text(const Isl<isl_set> &s, const std::vector<std::string> &dims) {
    Isl<isl_point> p(isl_set_sample_point(s.copy()));
    if (!p) return "(no point found)";
    std::ostringstream os;
    for (size_t i = 0; i < dims.size(); i++) {
        Isl<isl_val> v(isl_point_get_coordinate_val(p.get(), isl_dim_set, int(i)));
        os << (i ? ", " : "") << dims[i] << " = " << (v ? isl_val_get_num_si(v.get()) : 0);
    }
    return os.str();
}

bool is_empty(const Isl<isl_set> &s) {
    const isl_bool b = isl_set_is_empty(s.get());
    if (b == isl_bool_error) throw Unsupported("the polyhedral library could not decide an emptiness");
    return b == isl_bool_true;
}

Isl<isl_set> minus(const Isl<isl_set> &a, const Isl<isl_set> &b) {
    return check(isl_set_subtract(a.copy(), b.copy()), "a difference");
}

/** The points of `s` with the dimensions from `first` on projected out. */
Isl<isl_set> project_from(const Isl<isl_set> &s, unsigned first) {
    const isl_size n = isl_set_dim(s.get(), isl_dim_set);
    return check(isl_set_project_out(s.copy(), isl_dim_set, first, unsigned(n) - first), "a projection");
}

/** The points of `s` with its first `count` dimensions projected out. */
Isl<isl_set> project_first(const Isl<isl_set> &s, unsigned count) {
    return check(isl_set_project_out(s.copy(), isl_dim_set, 0, count), "a projection");
}

// ---- scalar terms ----------------------------------------------------------------------

/** A scalar expression in a form both ATL and the lowered Funcs translate to: reads with
 * their indices in storage order (innermost tensor dimension first, then a let's extra
 * coordinates). */
struct Term {
    enum Kind { Literal, IndexValue, Read, Add, Sub, Mul, Div } kind = Literal;
    double literal = 0;
    Expr index;
    std::string array;
    std::vector<Expr> args;
    std::vector<Term> operands;
};

Term binary(Term::Kind k, Term a, Term b) {
    Term t;
    t.kind = k;
    t.operands = {std::move(a), std::move(b)};
    return t;
}

/** An ATL scalar as a term: loop variables through `s`, literals rounded to float when
 * compared with lowered code, reads of the lets in `inlined` unfolded into their values'
 * leaves, and a let's extra coordinates appended from `captured`. */
struct AtlTerms {
    const std::map<std::string, const TensorNode *> *lets = nullptr;
    const std::map<std::string, std::vector<std::string>> *captured = nullptr;
    std::set<std::string> inlined;
    bool float_literals = false;

    Term term(const TensorNode &e, const Substitution &s) const {
        switch (e.op) {
        case TensorOp::Literal: {
            Term t;
            t.literal = float_literals ? double(float(e.literal)) : e.literal;
            return t;
        }
        case TensorOp::IndexValue: {
            Term t;
            t.kind = Term::IndexValue;
            t.index = index_of(*e.index.node(), s);
            return t;
        }
        case TensorOp::Add: return binary(Term::Add, term(*e.a, s), term(*e.b, s));
        case TensorOp::Sub: return binary(Term::Sub, term(*e.a, s), term(*e.b, s));
        case TensorOp::Mul: return binary(Term::Mul, term(*e.a, s), term(*e.b, s));
        case TensorOp::Div: return binary(Term::Div, term(*e.a, s), term(*e.b, s));
        default: break;
        }
        const std::string &name = e.array->name;
        if (inlined.count(name)) {
            // The let's value is gens around a scalar: its cell idx is that scalar with the
            // gens' variables at idx (plus their lower bounds).
            const TensorNode *v = lets->at(name)->a.get();
            Substitution at = s;
            for (const atl::Index &z : e.indices) {
                at[v->var] = index_of(*z.node(), s) + constant(v->lo);
                v = v->a.get();
            }
            return term(*v, at);
        }
        Term t;
        t.kind = Term::Read;
        t.array = name;
        for (size_t d = e.indices.size(); d-- > 0;) t.args.push_back(index_of(*e.indices[d].node(), s));
        if (!e.array->input)
            for (const std::string &v : captured->at(name)) t.args.push_back(s.count(v) ? s.at(v) : variable(v));
        return t;
    }
};

/** A lowered update's value as a term (Unsupported for forms lowering does not make). */
Term ir_term(const Expr &e) {
    auto two = [&](Term::Kind k, const Expr &a, const Expr &b) { return binary(k, ir_term(a), ir_term(b)); };
    switch (e->kind) {
    case ir::ExprKind::FloatImm: {
        Term t;
        t.literal = as<ir::FloatImm>(e)->value;
        return t;
    }
    case ir::ExprKind::Cast: {
        Term t;
        t.kind = Term::IndexValue;
        t.index = as<ir::Cast>(e)->value;
        return t;
    }
    case ir::ExprKind::Add: return two(Term::Add, as<ir::Add>(e)->a, as<ir::Add>(e)->b);
    case ir::ExprKind::Sub: return two(Term::Sub, as<ir::Sub>(e)->a, as<ir::Sub>(e)->b);
    case ir::ExprKind::Mul: return two(Term::Mul, as<ir::Mul>(e)->a, as<ir::Mul>(e)->b);
    case ir::ExprKind::Div: return two(Term::Div, as<ir::Div>(e)->a, as<ir::Div>(e)->b);
    case ir::ExprKind::Call: {
        const ir::Call *c = as<ir::Call>(e);
        if (c->call_kind == ir::CallKind::Intrinsic) break;
        Term t;
        t.kind = Term::Read;
        t.array = c->name;
        t.args = c->args;
        return t;
    }
    default: break;
    }
    throw Unsupported("the update's value has the form " + brief(e) + ", which lowering of ATL does not make");
}

const char *kind_name(Term::Kind k) {
    static const char *names[] = {"a literal", "an index value", "a read", "+", "-", "*", "/"};
    return names[k];
}

/** Compares terms on `domain` (a set over `aff`'s dimensions); a difference is a Mismatch
 * naming `where`. */
void same_terms(const Term &a, const Term &b, Affine &aff, const Isl<isl_set> &domain, const std::vector<std::string> &dims,
                const std::string &where) {
    if (a.kind != b.kind) throw Mismatch(where + ": " + kind_name(a.kind) + " where " + kind_name(b.kind) + " is expected");
    auto same_index = [&](const Expr &x, const Expr &y, const std::string &what) {
        Isl<isl_set> differ = check(isl_pw_aff_ne_set(aff.expr(x).release(), aff.expr(y).release()), "a comparison");
        differ = check(isl_set_intersect(differ.release(), domain.copy()), "an intersection");
        if (!is_empty(differ))
            throw Mismatch(where + ": " + what + " is " + brief(x) + " where " + brief(y) + " is expected, at " +
                           point_text(differ, dims));
    };
    switch (a.kind) {
    case Term::Literal:
        if (a.literal != b.literal)
            throw Mismatch(where + ": the literal " + std::to_string(a.literal) + " where " + std::to_string(b.literal) +
                           " is expected");
        return;
    case Term::IndexValue: same_index(a.index, b.index, "the index value"); return;
    case Term::Read:
        if (a.array != b.array || a.args.size() != b.args.size())
            throw Mismatch(where + ": a read of " + a.array + " where one of " + b.array + " is expected");
        for (size_t i = 0; i < a.args.size(); i++)
            same_index(a.args[i], b.args[i], "index " + std::to_string(i) + " of the read of " + a.array);
        return;
    default:
        for (size_t i = 0; i < 2; i++) same_terms(a.operands[i], b.operands[i], aff, domain, dims, where);
    }
}

NamedCheck result(const char *name, Verdict v, std::string detail) {
    NamedCheck c;
    c.name = name;
    c.verdict = v;
    c.detail = std::move(detail);
    return c;
}

// ---- the lowering --------------------------------------------------------------------

/** The loop variables a let's Func is indexed by: the variables of its first update's
 * extra left-hand-side coordinates. */
std::vector<std::string> captured_by_code(const ir::FunctionData &f, int rank) {
    std::vector<std::string> vars;
    if (f.definitions.size() == 1) {  // a pure definition: its extra Vars, named after the loops
        vars.assign(f.args.begin() + std::min<ptrdiff_t>(rank, ptrdiff_t(f.args.size())), f.args.end());
        return vars;
    }
    const std::vector<Expr> &args = f.definitions[1].args;
    for (size_t j = size_t(rank); j < args.size(); j++) {
        const ir::Variable *v = as<ir::Variable>(args[j]);
        if (!v) throw Mismatch("Func " + f.name + "'s coordinate " + std::to_string(j) + " is " + brief(args[j]) +
                               ", not a loop variable");
        vars.push_back(v->name);
    }
    return vars;
}

/** Checks one update against its leaf. */
void check_update(isl_ctx *ctx, const Leaf &leaf, const ir::FunctionData &f, size_t u, const AtlTerms &terms) {
    const ir::Definition &def = f.definitions[u];
    const std::string where = "update " + std::to_string(u - 1) + " of Func " + f.name + ", for " + leaf.name();
    // The update iterates over the leaf's loops.
    std::set<std::string> code_vars, leaf_vars(leaf.vars.begin(), leaf.vars.end());
    std::vector<Expr> domain;
    if (def.rdom)
        for (const auto &d : def.rdom->dims) {
            code_vars.insert(d.name);
            domain.push_back(d.min <= variable(d.name) && variable(d.name) < d.min + d.extent);
        }
    if (code_vars != leaf_vars) throw Mismatch(where + ": it iterates over other loops than the leaf's");
    domain.insert(domain.end(), def.predicates.begin(), def.predicates.end());
    const size_t coords = size_t(leaf.rank) + leaf.captured.size();
    if (def.args.size() != coords) throw Mismatch(where + ": it has " + std::to_string(def.args.size()) + " coordinates");
    // Its graph: the iterations it runs and the cells it stores them into.
    std::vector<Expr> graph = domain;
    for (int d = 0; d < leaf.rank; d++) graph.push_back(variable(cell_dim(d)) == def.args[size_t(leaf.rank - 1 - d)]);
    for (size_t j = 0; j < leaf.captured.size(); j++)
        graph.push_back(variable(extra_dim(int(j))) == def.args[size_t(leaf.rank) + j]);
    const std::vector<std::string> dims = leaf.dims();
    const Isl<isl_set> &meaning = meaning_of(ctx, leaf);
    const Isl<isl_set> code = points(ctx, dims, graph, where);
    if (Isl<isl_set> lost = minus(meaning, code); !is_empty(lost))
        throw Mismatch(where + ": ATL's meaning takes a cell's value from the leaf at " + point_text(lost, dims) +
                       ", which the update does not store there");
    if (Isl<isl_set> extra = minus(code, meaning); !is_empty(extra))
        throw Mismatch(where + ": the update stores the leaf's value at " + point_text(extra, dims) +
                       ", which ATL's meaning does not put there");
    // Its value: the leaf's (added to the cell's under a sum).
    Expr value = def.value;
    if (leaf.accumulate) {
        const ir::Add *add = as<ir::Add>(value);
        const ir::Call *self = add ? as<ir::Call>(add->a) : nullptr;
        if (!self || self->name != f.name) throw Mismatch(where + ": under a sum the update must add to the cell");
        value = add->b;
    }
    std::map<std::string, Type> parameters;
    const std::map<std::string, Expr> no_lets;
    Affine aff(ctx, "S", leaf.vars, -1, no_lets, parameters);
    const Isl<isl_set> iterations = points(ctx, leaf.vars, domain, where);
    if (leaf.accumulate) {
        const ir::Call *self = as<ir::Call>(as<ir::Add>(def.value)->a);
        for (size_t i = 0; i < coords; i++) {
            Isl<isl_set> differ = check(isl_pw_aff_ne_set(aff.expr(self->args[i]).release(), aff.expr(def.args[i]).release()),
                                        "a comparison");
            differ = check(isl_set_intersect(differ.release(), iterations.copy()), "an intersection");
            if (!is_empty(differ)) throw Mismatch(where + ": it adds to another cell than the one it stores");
        }
    }
    same_terms(ir_term(value), terms.term(*leaf.node, {}), aff, iterations, leaf.vars, where);
}

/** Two points of the set `constraints` defines over `dims` that agree on every dimension
 * but those in `varying` and differ in one of those (a sample, over `dims` followed by the
 * second point's `varying`), or null if there are none: the set is then a function of its
 * other dimensions. */
Isl<isl_set> two_points(isl_ctx *ctx, const std::vector<std::string> &dims, const std::vector<Expr> &constraints,
                        const std::vector<std::string> &varying, const std::string &what,
                        std::vector<std::string> *pair_dims = nullptr) {
    std::vector<std::string> pair = dims;
    std::vector<Expr> both = constraints;
    Substitution second;
    Expr differ;
    for (const std::string &v : varying) {
        pair.push_back("b." + v);
        second[v] = variable("b." + v);
        Expr d = variable(v) != variable("b." + v);
        differ = differ.defined() ? (differ || d) : d;
    }
    if (!differ.defined()) return Isl<isl_set>();
    for (const Expr &c : constraints) both.push_back(ir::substitute(second, c));
    both.push_back(differ);
    Isl<isl_set> clash = points(ctx, pair, both, what);
    if (pair_dims) *pair_dims = pair;
    return is_empty(clash) ? Isl<isl_set>() : clash;
}

/** A destination lowered as a pure definition (src/atl/Lower.cpp, define_pure): every cell
 * (every value of its extra coordinates where the let is computed) takes its value from
 * exactly one iteration of the leaf, and the definition's value at a cell is the leaf's
 * there. */
void check_pure(isl_ctx *ctx, const Leaf &leaf, const ir::FunctionData &f, const AtlTerms &terms) {
    const std::string where = "the pure definition of Func " + f.name + ", for " + leaf.name();
    const size_t coords = size_t(leaf.rank) + leaf.captured.size();
    if (f.args.size() != coords) throw Mismatch(where + ": it has " + std::to_string(f.args.size()) + " dimensions");
    const std::vector<std::string> dims = leaf.dims();
    const Isl<isl_set> &meaning = meaning_of(ctx, leaf);
    // Every cell of the tensor, for each extra coordinate at which the let is computed.
    const Isl<isl_set> cells = project_from(meaning, unsigned(coords));
    const Isl<isl_set> computed_at = project_first(cells, unsigned(leaf.rank));
    std::vector<Expr> box;
    for (int d = 0; d < leaf.rank; d++)
        box.push_back(0 <= variable(cell_dim(d)) && variable(cell_dim(d)) < constant(leaf.shape[size_t(d)]));
    std::vector<std::string> cell_dims(dims.begin(), dims.begin() + leaf.rank);
    Isl<isl_set> all = points(ctx, cell_dims, box, where);
    all = check(isl_set_flat_product(all.release(), computed_at.copy()), "a product");
    all = check(isl_set_reset_space(all.release(), isl_set_get_space(cells.get())), "a space");
    if (Isl<isl_set> missing = minus(all, cells); !is_empty(missing))
        throw Mismatch(where + ": it defines the cell at " + point_text(missing, dims) +
                       " with the leaf's value, where ATL's meaning has pad");
    if (two_points(ctx, dims, leaf.constraints, leaf.vars, where))
        throw Mismatch(where + ": ATL's meaning takes a cell from several iterations of the leaf");
    // The value, with the definition's Vars read as the cell's coordinates.
    Substitution at_cell;
    for (size_t k = 0; k < coords; k++)
        at_cell[f.args[k]] = variable(k < size_t(leaf.rank) ? cell_dim(leaf.rank - 1 - int(k)) : extra_dim(int(k) - leaf.rank));
    std::map<std::string, Type> parameters;
    const std::map<std::string, Expr> no_lets;
    Affine aff(ctx, "S", dims, -1, no_lets, parameters);
    same_terms(ir_term(ir::substitute(at_cell, f.definitions[0].value)), terms.term(*leaf.node, {}), aff, meaning, dims, where);
}

/** For a destination defined as undef (src/atl/Lower.cpp: its updates store every cell),
 * that the leaves storing into it do: the cells (with the extra coordinates) of their
 * meanings, over every value of the extra coordinates where any leaf stores, fill the
 * tensor's shape. Else a cell holds no value where ATL's meaning has the pad value 0. */
void check_every_cell_stored(const ir::FunctionData &f, const std::vector<int64_t> &first_shape,
                             const std::vector<const Leaf *> &leaves, isl_ctx *ctx) {
    if (leaves.empty()) {
        if (std::count(first_shape.begin(), first_shape.end(), 0) > 0) return;  // no cells
        throw Mismatch("Func " + f.name + " is undef, but no leaf of ATL's meaning stores into it");
    }
    const Leaf &first = *leaves.front();
    Isl<isl_set> stored;
    for (const Leaf *leaf : leaves) {
        const isl_size loops = isl_set_dim(meaning_of(ctx, *leaf).get(), isl_dim_set) - leaf->rank - int(leaf->captured.size());
        Isl<isl_set> cells = check(isl_set_project_out(meaning_of(ctx, *leaf).copy(), isl_dim_set,
                                                       unsigned(leaf->rank + int(leaf->captured.size())), unsigned(loops)),
                                   "the cells stored");
        cells = check(isl_set_reset_space(cells.release(), isl_set_get_space(stored ? stored.get() : cells.get())), "the cells stored");
        stored = stored ? check(isl_set_union(stored.release(), cells.release()), "the cells stored") : std::move(cells);
    }
    // Every cell of the shape, at every value of the extra coordinates stored at.
    Isl<isl_set> all = check(isl_set_project_out(stored.copy(), isl_dim_set, 0, unsigned(first.rank)), "the cells of the shape");
    all = check(isl_set_insert_dims(all.release(), isl_dim_set, 0, unsigned(first.rank)), "the cells of the shape");
    for (int i = 0; i < first.rank; i++) {
        all = check(isl_set_lower_bound_si(all.release(), isl_dim_set, unsigned(i), 0), "the cells of the shape");
        all = check(isl_set_upper_bound_si(all.release(), isl_dim_set, unsigned(i), first.shape[size_t(i)] - 1), "the cells of the shape");
    }
    all = check(isl_set_reset_space(all.release(), isl_set_get_space(stored.get())), "the cells of the shape");
    const Isl<isl_set> missing = minus(all, stored);
    if (!is_empty(missing)) {
        std::vector<std::string> dims = first.dims();
        dims.resize(size_t(first.rank) + first.captured.size());  // the cell and extra coordinates
        throw Mismatch("Func " + f.name + " is undef, but no leaf stores its cell at " + point_text(missing, dims) +
                       ", where ATL's meaning has the pad value 0");
    }
}

}  // namespace

NamedCheck check_atl_lowering(const atl::Program &program, const ValidateOptions &options) {
    const char *name = "atl lowering";
    try {
        IslContext isl(options.max_operations);
        // A let in a loop that never runs has no Func.
        auto func_of = [&](const std::string &dest) -> std::shared_ptr<ir::FunctionData> {
            if (dest.empty()) return program.output().data();
            try {
                return program.let_func(dest).data();
            } catch (const CompileError &) {
                return nullptr;
            }
        };
        auto captured_of = [&](const std::string &let, int rank) {
            auto f = func_of(let);
            return f ? captured_by_code(*f, rank) : std::vector<std::string>{};
        };
        Meaning meaning(*program.expression().node(), [&](const TensorNode &let, const std::vector<Loop> &) {
            return captured_of(let.array->name, int(let.a->shape.size()));
        });
        std::map<std::string, std::vector<std::string>> captured;
        for (const auto &[n, let] : meaning.lets) captured[n] = captured_of(n, int(let->a->shape.size()));
        AtlTerms terms;
        terms.lets = &meaning.lets;
        terms.captured = &captured;
        terms.float_literals = true;
        // Each destination's updates, in order, are its leaves', in program order; a leaf
        // whose meaning is empty (under a guard that never holds, in an empty loop) may have
        // none.
        std::map<std::string, size_t> next;
        int updates = 0, pure = 0;
        // Destinations lowered as one pure definition: their one leaf that stores anything.
        std::map<std::string, std::vector<const Leaf *>> stored;
        for (const Leaf &leaf : meaning.leaves) {
            const auto f = func_of(leaf.destination);
            if (!f || f->definitions.size() != 1) continue;
            isl.reset_operations();
            std::vector<const Leaf *> &l = stored[leaf.destination];
            if (!is_empty(meaning_of(isl.get(), leaf))) l.push_back(&leaf);
        }
        for (const auto &[dest, leaves] : stored) {
            const auto f = func_of(dest);
            if (leaves.size() > 1)
                throw Mismatch("Func " + f->name + " has one definition, but ATL's meaning stores " +
                               std::to_string(leaves.size()) + " leaves into it");
            if (leaves.empty()) {
                const ir::FloatImm *zero = as<ir::FloatImm>(f->definitions[0].value);
                if (!zero || zero->value != 0) throw Mismatch("Func " + f->name + " must hold the pad value 0: no leaf stores into it");
                continue;
            }
            isl.reset_operations();
            check_pure(isl.get(), *leaves[0], *f, terms);
            pure++;
        }
        // Destinations defined as undef: their shape and the leaves that store anything.
        std::map<std::string, std::vector<const Leaf *>> undefined;
        std::map<std::string, std::vector<int64_t>> undefined_shape;
        for (const Leaf &leaf : meaning.leaves) {
            if (stored.count(leaf.destination)) continue;
            isl.reset_operations();
            const auto f = func_of(leaf.destination);
            const bool empty = is_empty(meaning_of(isl.get(), leaf));
            if (!f) {
                if (empty) continue;
                throw Mismatch("let " + leaf.destination + " has no Func, but ATL's meaning stores " + leaf.name());
            }
            const bool undef = !f->definitions.empty() && ir::is_undef(f->definitions[0].value);
            if (undef) {
                undefined_shape[leaf.destination] = leaf.shape;
                std::vector<const Leaf *> &l = undefined[leaf.destination];
                if (!empty) l.push_back(&leaf);
            }
            if (!undef && (f->definitions.empty() || f->definitions[0].rdom || !as<ir::FloatImm>(f->definitions[0].value) ||
                           as<ir::FloatImm>(f->definitions[0].value)->value != 0))
                throw Mismatch("Func " + f->name + " must first be defined as 0, the pad value's storage, or as undef where its "
                               "updates store every cell");
            size_t &u = next.emplace(leaf.destination, 1).first->second;
            if (u >= f->definitions.size()) {
                if (empty) continue;
                throw Mismatch("Func " + f->name + " has no update for " + leaf.name());
            }
            try {
                check_update(isl.get(), leaf, *f, u, terms);
                u++;
                updates++;
            } catch (const Mismatch &) {
                if (!empty) throw;
            }
        }
        for (const auto &[dest, u] : next) {
            const auto f = func_of(dest);
            if (!f || stored.count(dest)) continue;
            if (u != f->definitions.size())
                throw Mismatch("Func " + f->name + "'s update " + std::to_string(u - 1) + " stores no leaf of the program");
        }
        for (const auto &[dest, leaves] : undefined) {
            isl.reset_operations();
            check_every_cell_stored(*func_of(dest), undefined_shape[dest], leaves, isl.get());
        }
        return result(name, Verdict::Proved,
                      "each of the " + std::to_string(updates) + " update(s) stores its leaf's value into exactly the cells "
                      "ATL's meaning takes from that leaf, the Funcs updated start as the pad value 0 (or, " +
                          std::to_string(undefined.size()) + " of them, as undef, every cell stored), and each of the " +
                          std::to_string(pure) + " pure definition(s) gives every cell its leaf's value");
    } catch (const Mismatch &m) {
        return result(name, Verdict::Refuted, m.what());
    } catch (const Unsupported &u) {
        return result(name, Verdict::Unknown, u.what());
    }
}

// ---- derivations ---------------------------------------------------------------------

NamedCheck check_atl_derivation(const atl::Derivation &derivation, const ValidateOptions &options) {
    const char *name = "atl rewrites";
    try {
        const TensorNode &original = *derivation.original().node(), &derived = *derivation.program().node();
        if (original.shape != derived.shape)
            throw Mismatch("the derived program's shape " + shape_text(derived.shape) + " is not the original's " +
                           shape_text(original.shape));
        // A let is computed per iteration of every loop around it.
        auto around = [](const TensorNode &, const std::vector<Loop> &scope) {
            std::vector<std::string> vars;
            for (const Loop &l : scope) vars.push_back(l.var);
            return vars;
        };
        IslContext isl(options.max_operations);  // before the leaves, which keep isl sets
        Meaning before(original, around), after(derived, around);
        const auto &origins = derivation.origins();
        if (origins.size() != after.leaves.size())
            throw Unsupported("the derivation records " + std::to_string(origins.size()) + " leaf origins for " +
                              std::to_string(after.leaves.size()) + " leaves");
        std::map<std::string, std::vector<std::string>> captured_before, captured_after;
        for (const Leaf &l : before.leaves) captured_before[l.destination] = l.captured;
        for (const Leaf &l : after.leaves) captured_after[l.destination] = l.captured;

        int compared = 0;
        for (const Leaf &orig : before.leaves) {
            std::vector<size_t> from;
            for (size_t i = 0; i < origins.size(); i++)
                if (origins[i].leaf == orig.number) from.push_back(i);
            if (from.empty() && !orig.destination.empty() && !after.lets.count(orig.destination)) continue;  // inlined
            isl.reset_operations();
            // Over the cell and extra coordinates, then the original's loops (renamed).
            std::vector<std::string> dims;
            for (int d = 0; d < orig.rank; d++) dims.push_back(cell_dim(d));
            for (size_t j = 0; j < orig.captured.size(); j++) dims.push_back(extra_dim(int(j)));
            const unsigned coords = unsigned(dims.size());
            Substitution renamed;
            for (const std::string &v : orig.vars) {
                dims.push_back("o." + v);
                renamed[v] = variable("o." + v);
            }
            std::vector<Expr> renamed_constraints;
            for (const Expr &c : orig.constraints) renamed_constraints.push_back(ir::substitute(renamed, c));
            const Isl<isl_set> want = points(isl.get(), dims, renamed_constraints, orig.name());
            Isl<isl_set> covered = check(isl_set_empty(isl_set_get_space(want.get())), "an empty set");
            for (size_t i : from) {
                const Leaf &leaf = after.leaves[i];
                const atl::Derivation::Origin &origin = origins[i];
                const std::string where = "the derived " + leaf.name() + ", from the original " + orig.name();
                if (leaf.destination != orig.destination || leaf.rank != orig.rank || leaf.captured != orig.captured)
                    throw Unsupported(where + ": the rewrites change the loops the let is computed in");
                // The leaf's points mapped to the original's iterations by the substitution.
                std::vector<std::string> all = leaf.dims();
                std::vector<Expr> cs = leaf.constraints;
                Substitution sigma;
                for (const auto &[v, z] : origin.substitution) sigma[v] = index_of(*z.node(), {});
                for (const std::string &v : orig.vars) {
                    if (!sigma.count(v)) throw Unsupported(where + ": no substitute recorded for " + v);
                    all.push_back("o." + v);
                    cs.push_back(variable("o." + v) == sigma.at(v));
                }
                const Isl<isl_set> joint = points(isl.get(), all, cs, where);
                // Drop the derived loops (between the coordinates and the original's loops).
                Isl<isl_set> image = check(isl_set_project_out(joint.copy(), isl_dim_set, coords, unsigned(leaf.vars.size())),
                                           "a projection");
                image = check(isl_set_reset_space(image.release(), isl_set_get_space(want.get())), "a space");
                if (Isl<isl_set> extra = minus(image, want); !is_empty(extra))
                    throw Mismatch(where + ": it computes the original's leaf at " + point_text(extra, dims) +
                                   ", which the original does not");
                if (Isl<isl_set> twice = check(isl_set_intersect(image.copy(), covered.copy()), "an intersection");
                    !is_empty(twice))
                    throw Mismatch(where + ": the original's leaf at " + point_text(twice, dims) +
                                   " is computed by two derived leaves");
                // One to one: no two derived iterations give the same original one.
                std::vector<std::string> pair;
                if (Isl<isl_set> clash = two_points(isl.get(), all, cs, leaf.vars, where, &pair))
                    throw Mismatch(where + ": two of its iterations compute the original's leaf at the same point (" +
                                   point_text(clash, pair) + ")");
                covered = check(isl_set_union(covered.release(), image.release()), "a union");
                // The same scalar, on the leaf's iterations.
                AtlTerms derived_terms, original_terms;
                derived_terms.lets = &after.lets;
                derived_terms.captured = &captured_after;
                original_terms.lets = &before.lets;
                original_terms.captured = &captured_before;
                original_terms.inlined.insert(origin.inlined.begin(), origin.inlined.end());
                std::map<std::string, Type> parameters;
                const std::map<std::string, Expr> no_lets;
                Affine aff(isl.get(), "S", leaf.vars, -1, no_lets, parameters);
                const Isl<isl_set> iterations = project_first(meaning_of(isl.get(), leaf),
                                                              unsigned(leaf.rank) + unsigned(leaf.captured.size()));
                Isl<isl_set> domain = check(isl_set_reset_space(iterations.copy(), isl_set_get_space(aff.universe().get())),
                                            "a space");
                same_terms(derived_terms.term(*leaf.node, {}), original_terms.term(*orig.node, sigma), aff, domain,
                           leaf.vars, where);
                compared++;
            }
            if (Isl<isl_set> lost = minus(want, covered); !is_empty(lost))
                throw Mismatch("the original " + orig.name() + " at " + point_text(lost, dims) +
                               " is computed by no leaf of the derived program");
        }
        return result(name, Verdict::Proved,
                      "the " + std::to_string(compared) + " leaf(s) of the derived program compute the original's " +
                          std::to_string(before.leaves.size()) + " leaf(s) one to one, at the same cells, with the same scalars" +
                          " (" + std::to_string(derivation.steps().size()) + " step(s))");
    } catch (const Mismatch &m) {
        return result(name, Verdict::Refuted, m.what());
    } catch (const Unsupported &u) {
        return result(name, Verdict::Unknown, u.what());
    }
}

}  // namespace tessera::validator
