// Scheduling by rewrites (docs/atl.md, "Scheduling by rewrites"): ATL's scheduling steps
// as rewrites of the expression. Each step copies the program, rewriting the nodes it
// targets (the loops over a variable, a let), and keeps, for every scalar leaf of the
// result, the leaf of the original it computes and the substitution of the original's loop
// variables that relates the two (Derivation::Origin): what the validator needs to prove a
// derivation (src/validate/AtlMeaning.cpp) and what a message needs to name a leaf.
//
// Every step is an equation of ATL's semantics, pads included:
//   split    ⊞_{i<n} e = trunc_r (⌈n/k⌉k − n) (flatten (⊞_{io<⌈n/k⌉} ⊞_{ii<k} [io·k+ii < n] e[io·k+ii / i]))
//            Σ_{i<n} e = Σ_{io<⌈n/k⌉} Σ_{ii<k} [io·k+ii < n] e[io·k+ii / i]
//   tile     two splits, with the inner loops brought inside the outer ones by transposes
//   interchange  ⊞_i ⊞_j e = (⊞_j ⊞_i e)^T,  Σ_i ⊞_j e = ⊞_j Σ_i e,  Σ_i Σ_j e = Σ_j Σ_i e
//   fuse     ⊞_{i<n} ⊞_{j<m} e = split m (⊞_{f<nm} e[f/m / i, f%m / j]),  Σ_i Σ_j e = Σ_{f<nm} e[...]
//   separate ⊞_{i∈[lo,hi)} e = ⊞_{i∈[lo,m)} e' ++ ⊞_{i∈[m,hi)} e, e' = e without the guard
//            conjuncts that hold for every i < m (interval reasoning over the loops' ranges)
//   inline   let x := ⊞_i s in b = b[s[idx / i] / x[idx]]

#include <algorithm>
#include <optional>
#include <random>
#include <sstream>

#include "analysis/Interval.h"
#include "atl/Mutation.h"
#include "atl/Tree.h"
#include "tessera/Error.h"

namespace tessera::atl {

using namespace detail;

namespace {

using Substitution = std::map<std::string, Index>;

bool injects(Mutation m) { return mutation() == m; }

[[noreturn]] void fail(const std::string &step, const std::string &what) {
    throw CompileError("ATL rewrite `" + step + "`: " + what);
}

Index substitute(const Index &z, const Substitution &s) {
    const IndexNode &n = *z.node();
    switch (n.op) {
    case IndexOp::Constant: return z;
    case IndexOp::Variable: {
        auto it = s.find(n.name);
        return it == s.end() ? z : it->second;
    }
    default: break;
    }
    Index a = substitute(Index(n.a), s), b = substitute(Index(n.b), s);
    switch (n.op) {
    case IndexOp::Add: return a + b;
    case IndexOp::Sub: return a - b;
    case IndexOp::Mul: return a * b;
    case IndexOp::Div: return a / b;
    case IndexOp::Mod: return a % b;
    default: return ceil_div(a, b);
    }
}

Cond substitute(const CondNode &c, const Substitution &s) {
    switch (c.op) {
    case CondOp::And: return substitute(*c.left, s) && substitute(*c.right, s);
    case CondOp::Lt: return substitute(c.a, s) < substitute(c.b, s);
    case CondOp::Le: return substitute(c.a, s) <= substitute(c.b, s);
    default: return substitute(c.a, s) == substitute(c.b, s);
    }
}

/** The conjuncts of a guard condition, in order. */
void conjuncts(const std::shared_ptr<const CondNode> &c, std::vector<std::shared_ptr<const CondNode>> &out) {
    if (c->op == CondOp::And) {
        conjuncts(c->left, out);
        conjuncts(c->right, out);
    } else {
        out.push_back(c);
    }
}

/** The ranges of loop variables [lo, hi], for proving guard conjuncts true over them. */
struct LoopRange {
    int64_t lo, hi;
};
using Ranges = std::map<std::string, LoopRange>;

/** Whether a comparison (not a conjunction) holds for every value in the ranges: the
 * interval analysis of bounds inference (src/analysis/Interval.h) on the difference of its
 * sides, as lowering translates them. */
bool always_holds(const CondNode &c, const Ranges &ranges) {
    try {
        analysis::Scope scope;
        for (const auto &[v, r] : ranges)
            scope.push(v, analysis::Interval(int_constant(r.lo, "a loop bound"), int_constant(r.hi, "a loop bound")));
        auto variable = [](const std::string &v) { return Expr(Var(v)); };
        const Expr d = index_expr(*c.a.node(), variable) - index_expr(*c.b.node(), variable);
        int64_t lo = 0, hi = 0;
        if (!analysis::bounds_of_expr(d, scope).is_const(lo, hi)) return false;
        switch (c.op) {
        case CondOp::Lt: return hi < 0;
        case CondOp::Le: return hi <= 0;
        default: return lo == 0 && hi == 0;
        }
    } catch (const CompileError &) {
        return false;  // a constant past 32 bits: nothing is proved
    }
}

int count_leaves(const TensorNode &e) {
    if (is_scalar_op(e.op)) return 1;
    return (e.a ? count_leaves(*e.a) : 0) + (e.b ? count_leaves(*e.b) : 0);
}

void loop_variables(const TensorNode &e, std::set<std::string> &out) {
    if (is_scalar_op(e.op)) return;
    if (e.op == TensorOp::Gen || e.op == TensorOp::Sum) out.insert(e.var);
    if (e.a) loop_variables(*e.a, out);
    if (e.b) loop_variables(*e.b, out);
}

/** The identity origins of a program's leaves: each leaf is itself, its loop variables
 * unchanged. */
void identity_origins(const TensorNode &e, std::vector<std::string> &scope, std::vector<Derivation::Origin> &out) {
    if (is_scalar_op(e.op)) {
        Derivation::Origin o;
        o.leaf = int(out.size());
        for (const std::string &v : scope) o.substitution.emplace(v, Index(v));
        out.push_back(std::move(o));
        return;
    }
    const bool loop = e.op == TensorOp::Gen || e.op == TensorOp::Sum;
    if (loop) scope.push_back(e.var);
    if (e.a) identity_origins(*e.a, scope, out);
    if (e.b) identity_origins(*e.b, scope, out);
    if (loop) scope.pop_back();
}

Tensor loop_node(TensorOp op, const std::string &var, int64_t lo, int64_t hi, const Tensor &body) {
    return op == TensorOp::Gen ? gen(Index(var), lo, hi, body) : sum(Index(var), lo, hi, body);
}

/** A let inlined by `inline`: its value is ⊞_{vars} leaf. */
struct Inlined {
    std::string name;
    std::vector<std::pair<std::string, int64_t>> vars;  // gen variables, outermost first, with lo
    const TensorNode *leaf;
};

/** Copies a program with a substitution of loop variables, letting a step rewrite the
 * nodes it targets (`at`), and records each new leaf's origin. */
class Copier {
public:
    /** A step's rewrite of the nodes it targets (nullopt for the others), given the copier
     * to copy their parts with. */
    using Hook = std::function<std::optional<Tensor>(Copier &, const TensorNode &, const Substitution &)>;

    Copier(const std::vector<Derivation::Origin> &old, Hook at) : old_(old), at_(std::move(at)) {}

    Tensor copy(const TensorNode &e, const Substitution &tau) {
        if (auto t = at_(*this, e, tau)) {
            hits_++;
            return *t;
        }
        if (is_scalar_op(e.op)) {
            std::vector<std::string> inlined;
            Tensor s = scalar(e, tau, inlined);
            const Derivation::Origin &from = old_.at(size_t(next_++));
            Derivation::Origin o;
            o.leaf = from.leaf;
            for (const auto &[v, z] : from.substitution) o.substitution.emplace(v, substitute(z, tau));
            o.inlined = from.inlined;
            o.inlined.insert(o.inlined.end(), inlined.begin(), inlined.end());
            origins_.push_back(std::move(o));
            return s;
        }
        switch (e.op) {
        case TensorOp::Gen:
        case TensorOp::Sum: {
            auto saved = scope_.find(e.var) != scope_.end() ? std::optional<LoopRange>(scope_[e.var]) : std::nullopt;
            scope_[e.var] = LoopRange{e.lo, e.hi - 1};
            Tensor body = copy(*e.a, tau);
            if (saved) scope_[e.var] = *saved;
            else scope_.erase(e.var);
            return loop_node(e.op, e.var, e.lo, e.hi, body);
        }
        case TensorOp::Guard: {
            Tensor body = copy(*e.a, tau);
            std::vector<std::shared_ptr<const CondNode>> cs;
            conjuncts(e.cond, cs);
            std::optional<Cond> kept;
            for (const auto &c : cs) {
                if (simplify_ && always_holds(*c, scope_)) continue;
                Cond s = substitute(*c, tau);
                kept = kept ? (*kept && s) : s;
            }
            return kept ? guard(*kept, body) : body;
        }
        case TensorOp::Let: {
            Tensor value = copy(*e.a, tau);
            Tensor body = copy(*e.b, tau);
            return let_node(e.array, value, body);
        }
        case TensorOp::Concat: {
            Tensor a = copy(*e.a, tau);
            return concat(a, copy(*e.b, tau));
        }
        case TensorOp::Flatten: return flatten(copy(*e.a, tau));
        case TensorOp::Split: return split(e.k, copy(*e.a, tau));
        case TensorOp::Transpose: return transpose(copy(*e.a, tau));
        case TensorOp::TruncL: return trunc_l(e.k, copy(*e.a, tau));
        case TensorOp::TruncR: return trunc_r(e.k, copy(*e.a, tau));
        case TensorOp::PadL: return pad_l(e.k, copy(*e.a, tau));
        case TensorOp::PadR: return pad_r(e.k, copy(*e.a, tau));
        default: throw InternalError(std::string("ATL rewrite: cannot copy ") + op_name(e.op));
        }
    }

    /** Passes over a subexpression that the result does not contain. */
    void skip(const TensorNode &e) { next_ += count_leaves(e); }
    int position() const { return next_; }
    void rewind(int position) { next_ = position; }
    /** The ranges of the loops around the node being copied. */
    Ranges &scope() { return scope_; }
    /** While set, guard conjuncts that hold over the loops' ranges are dropped. */
    void set_simplify(bool on) { simplify_ = on; }
    void add_inlined(const ArrayData *a, Inlined i) { inlined_[a] = std::move(i); }

    int hits() const { return hits_; }
    std::vector<Derivation::Origin> take_origins() { return std::move(origins_); }

private:
    Tensor scalar(const TensorNode &e, const Substitution &tau, std::vector<std::string> &inlined) {
        switch (e.op) {
        case TensorOp::Literal: return Tensor(e.literal);
        case TensorOp::IndexValue: return real(substitute(e.index, tau));
        case TensorOp::Add: return scalar(*e.a, tau, inlined) + scalar(*e.b, tau, inlined);
        case TensorOp::Sub: return scalar(*e.a, tau, inlined) - scalar(*e.b, tau, inlined);
        case TensorOp::Mul: return scalar(*e.a, tau, inlined) * scalar(*e.b, tau, inlined);
        case TensorOp::Div: return scalar(*e.a, tau, inlined) / scalar(*e.b, tau, inlined);
        default: break;
        }
        std::vector<Index> idx;
        for (const Index &z : e.indices) idx.push_back(substitute(z, tau));
        auto it = inlined_.find(e.array.get());
        if (it == inlined_.end()) return Array(e.array)(idx);
        // The read of an inlined let: its value's leaf at this index.
        Substitution at = tau;
        for (size_t d = 0; d < idx.size(); d++) {
            const auto &[var, lo] = it->second.vars[d];
            at.insert_or_assign(var, lo == 0 ? idx[d] : idx[d] + Index(lo));
        }
        inlined.push_back(it->second.name);
        return scalar(*it->second.leaf, at, inlined);
    }

    const std::vector<Derivation::Origin> &old_;
    Hook at_;
    std::vector<Derivation::Origin> origins_;
    int next_ = 0;
    int hits_ = 0;
    bool simplify_ = false;
    Ranges scope_;
    std::map<const ArrayData *, Inlined> inlined_;
};

std::string default_name(const std::string &given, const std::string &var, const char *suffix) {
    return given.empty() ? var + suffix : given;
}

}  // namespace

struct Derivation::Data {
    Tensor original{0.0};
    Tensor program{0.0};
    std::vector<std::string> steps;
    std::vector<Origin> origins;

    /** Runs one step: copies the program with `at` rewriting its targets. */
    void run(const std::string &step, const Copier::Hook &at, const std::string &target) {
        Copier c(origins, at);
        Tensor t = c.copy(*program.node(), {});
        if (c.hits() == 0) {
            std::set<std::string> vars;
            loop_variables(*program.node(), vars);
            std::string list;
            for (const auto &v : vars) list += (list.empty() ? "" : ", ") + v;
            fail(step, "the program has no " + target + (list.empty() ? "" : " (its loops: " + list + ")"));
        }
        check_names(*t.node());
        if (t.shape() != program.shape())
            throw InternalError("ATL rewrite `" + step + "` changed the program's shape from " + shape_text(program.shape()) +
                                " to " + shape_text(t.shape()));
        program = t;
        origins = c.take_origins();
        steps.push_back(step);
    }

    /** Fails unless each name is new to the program and they differ. */
    void fresh(const std::string &step, const std::vector<std::string> &names) const {
        std::set<std::string> vars;
        loop_variables(*program.node(), vars);
        for (size_t i = 0; i < names.size(); i++) {
            if (vars.count(names[i])) fail(step, "the program already has a loop over " + names[i]);
            for (size_t j = 0; j < i; j++)
                if (names[i] == names[j]) fail(step, "the new loops need two names, not " + names[i] + " twice");
        }
    }
};

Derivation::Derivation(const Tensor &original) : data_(std::make_shared<Data>()) {
    check_names(*original.node());
    data_->original = original;
    data_->program = original;
    std::vector<std::string> scope;
    identity_origins(*original.node(), scope, data_->origins);
}

const Tensor &Derivation::original() const { return data_->original; }
const Tensor &Derivation::program() const { return data_->program; }
const std::vector<std::string> &Derivation::steps() const { return data_->steps; }
const std::vector<Derivation::Origin> &Derivation::origins() const { return data_->origins; }

Derivation &Derivation::split(const std::string &var, int64_t factor, const std::string &outer_name,
                              const std::string &inner_name) {
    const std::string outer = default_name(outer_name, var, "o"), inner = default_name(inner_name, var, "i");
    const std::string step = "split " + var + " " + std::to_string(factor) + " " + outer + " " + inner;
    if (factor <= 0) fail(step, "the factor must be positive, not " + std::to_string(factor));
    data_->fresh(step, {outer, inner});
    data_->run(step, [&](Copier &c, const TensorNode &e, const Substitution &tau) -> std::optional<Tensor> {
        if ((e.op != TensorOp::Gen && e.op != TensorOp::Sum) || e.var != var) return std::nullopt;
        const int64_t n = e.extent(), tiles = (n + factor - 1) / factor;
        const Index flat = Index(outer) * Index(factor) + Index(inner);
        Substitution inside = tau;
        inside.insert_or_assign(var, e.lo == 0 ? flat : flat + Index(e.lo));
        Tensor body = c.copy(*e.a, inside);
        const int64_t inner_extent = factor + (injects(Mutation::SplitInnerLoopTooLong) && e.op == TensorOp::Sum ? 1 : 0);
        if (n % factor != 0 || inner_extent != factor)
            body = guard(injects(Mutation::SplitGuardOffByOne) ? flat <= Index(n) : flat < Index(n), body);
        Tensor t = loop_node(e.op, outer, 0, tiles, loop_node(e.op, inner, 0, inner_extent, body));
        if (e.op == TensorOp::Sum) return t;
        t = flatten(t);
        return tiles * factor == n ? t : trunc_r(tiles * factor - n, t);
    }, "loop over " + var);
    return *this;
}

namespace {
/** The loop directly inside `e` (a gen or sum), past guards, which are collected. */
const TensorNode *inner_loop(const TensorNode &e, std::vector<std::shared_ptr<const CondNode>> &guards) {
    const TensorNode *b = e.a.get();
    while (b->op == TensorOp::Guard) {
        guards.push_back(b->cond);
        b = b->a.get();
    }
    return b->op == TensorOp::Gen || b->op == TensorOp::Sum ? b : nullptr;
}

/** body under the guards (substituted), outermost guard outermost. */
Tensor reguard(Tensor body, const std::vector<std::shared_ptr<const CondNode>> &guards, const Substitution &tau) {
    for (auto g = guards.rbegin(); g != guards.rend(); ++g) body = guard(substitute(**g, tau), body);
    return body;
}
}  // namespace

Derivation &Derivation::tile(const std::string &y, const std::string &x, int64_t ky, int64_t kx) {
    const std::string yo = y + "o", xo = x + "o", yi = y + "i", xi = x + "i";
    const std::string step = "tile " + y + " " + x + " " + std::to_string(ky) + " " + std::to_string(kx);
    if (ky <= 0 || kx <= 0) fail(step, "the tile's sizes must be positive");
    data_->fresh(step, {yo, xo, yi, xi});
    data_->run(step, [&](Copier &c, const TensorNode &e, const Substitution &tau) -> std::optional<Tensor> {
        if (e.op != TensorOp::Gen || e.var != y) return std::nullopt;
        std::vector<std::shared_ptr<const CondNode>> guards;
        const TensorNode *in = inner_loop(e, guards);
        if (!in || in->op != TensorOp::Gen || in->var != x)
            fail(step, "the gen over " + y + " must have the gen over " + x + " directly inside it (guards aside)");
        const int64_t ny = e.extent(), nx = in->extent();
        const int64_t ty = (ny + ky - 1) / ky, tx = (nx + kx - 1) / kx;
        const Index fy = Index(yo) * Index(ky) + Index(yi), fx = Index(xo) * Index(kx) + Index(xi);
        Substitution inside = tau;
        inside.insert_or_assign(y, e.lo == 0 ? fy : fy + Index(e.lo));
        inside.insert_or_assign(x, in->lo == 0 ? fx : fx + Index(in->lo));
        Tensor body = reguard(c.copy(*in->a, inside), guards, inside);
        std::optional<Cond> tails;
        if (ny % ky) tails = fy < Index(ny);
        if (nx % kx) tails = tails ? (*tails && fx < Index(nx)) : fx < Index(nx);
        if (tails) body = guard(*tails, body);
        // ⊞yo (⊞xo (⊞yi ⊞xi body)^T, flattened and cut to nx)^T, flattened and cut to ny.
        Tensor row = flatten(gen(Index(xo), tx, transpose(gen(Index(yi), ky, gen(Index(xi), kx, body)))));
        if (tx * kx != nx) row = trunc_r(tx * kx - nx, row);
        Tensor t = flatten(gen(Index(yo), ty, transpose(row)));
        return ty * ky == ny ? t : trunc_r(ty * ky - ny, t);
    }, "gen over " + y);
    return *this;
}

Derivation &Derivation::interchange(const std::string &var) {
    const std::string step = "interchange " + var;
    data_->run(step, [&](Copier &c, const TensorNode &e, const Substitution &tau) -> std::optional<Tensor> {
        if ((e.op != TensorOp::Gen && e.op != TensorOp::Sum) || e.var != var) return std::nullopt;
        std::vector<std::shared_ptr<const CondNode>> guards;
        const TensorNode *in = inner_loop(e, guards);
        if (!in)
            fail(step, "the loop over " + var + " has no loop directly inside it (guards aside); its body is " +
                           tensor_text(*e.a));
        Tensor body = reguard(c.copy(*in->a, tau), guards, tau);
        Tensor t = loop_node(in->op, in->var, in->lo, in->hi, loop_node(e.op, e.var, e.lo, e.hi, body));
        return e.op == TensorOp::Gen && in->op == TensorOp::Gen ? transpose(t) : t;
    }, "loop over " + var);
    return *this;
}

Derivation &Derivation::fuse(const std::string &outer, const std::string &inner, const std::string &fused_name) {
    const std::string fused = fused_name.empty() ? outer + inner : fused_name;
    const std::string step = "fuse " + outer + " " + inner + " " + fused;
    data_->fresh(step, {fused});
    data_->run(step, [&](Copier &c, const TensorNode &e, const Substitution &tau) -> std::optional<Tensor> {
        if ((e.op != TensorOp::Gen && e.op != TensorOp::Sum) || e.var != outer) return std::nullopt;
        std::vector<std::shared_ptr<const CondNode>> guards;
        const TensorNode *in = inner_loop(e, guards);
        if (!in || in->op != e.op || in->var != inner)
            fail(step, std::string("the ") + op_name(e.op) + " over " + outer + " must have a " + op_name(e.op) + " over " +
                           inner + " directly inside it (guards aside)");
        const int64_t n = e.extent(), m = in->extent();
        if (m == 0) fail(step, "the loop over " + inner + " is empty: there is nothing to fuse");
        const Index f(fused);
        Substitution inside = tau;
        inside.insert_or_assign(outer, e.lo == 0 ? f / Index(m) : f / Index(m) + Index(e.lo));
        inside.insert_or_assign(inner, in->lo == 0 ? f % Index(m) : f % Index(m) + Index(in->lo));
        Tensor body = reguard(c.copy(*in->a, inside), guards, inside);
        Tensor t = loop_node(e.op, fused, 0, n * m, body);
        return e.op == TensorOp::Gen ? atl::split(m, t) : t;
    }, "loop over " + outer);
    return *this;
}

namespace {
/** Whether every guard conjunct in e that mentions `var` holds over the ranges (extended by
 * the loops inside e). */
bool guards_hold(const TensorNode &e, const std::string &var, Ranges &r) {
    if (is_scalar_op(e.op)) return true;
    if (e.op == TensorOp::Guard) {
        std::vector<std::shared_ptr<const CondNode>> cs;
        conjuncts(e.cond, cs);
        for (const auto &c : cs) {
            std::set<std::string> vars;
            cond_variables(*c, vars);
            if (vars.count(var) && !always_holds(*c, r)) return false;
        }
    }
    const bool loop = e.op == TensorOp::Gen || e.op == TensorOp::Sum;
    if (loop) r[e.var] = LoopRange{e.lo, e.hi - 1};
    bool ok = (!e.a || guards_hold(*e.a, var, r)) && (!e.b || guards_hold(*e.b, var, r));
    if (loop) r.erase(e.var);
    return ok;
}
/** Whether a guard in e mentions `var`. */
bool mentions_in_guards(const TensorNode &e, const std::string &var) {
    if (is_scalar_op(e.op)) return false;
    if (e.op == TensorOp::Guard) {
        std::set<std::string> vars;
        cond_variables(*e.cond, vars);
        if (vars.count(var)) return true;
    }
    return (e.a && mentions_in_guards(*e.a, var)) || (e.b && mentions_in_guards(*e.b, var));
}
}  // namespace

Derivation &Derivation::separate(const std::string &var) {
    const std::string step = "separate " + var;
    data_->run(step, [&](Copier &c, const TensorNode &e, const Substitution &tau) -> std::optional<Tensor> {
        if (e.op != TensorOp::Gen || e.var != var) return std::nullopt;
        // The largest m such that the guards mentioning var hold for var in [lo, m).
        auto holds_below = [&](int64_t m) {
            Ranges r = c.scope();
            r[var] = LoopRange{e.lo, m - 1};
            return guards_hold(*e.a, var, r);
        };
        int64_t good = e.lo, bad = e.hi + 1;  // holds_below(good) (vacuously), not holds_below(bad)
        while (bad - good > 1) {
            const int64_t m = good + (bad - good) / 2;
            (holds_below(m) ? good : bad) = m;
        }
        if (!mentions_in_guards(*e.a, var))
            fail(step, "no guard inside the gen over " + var + " mentions " + var + ": there is nothing to separate");
        if (good == e.lo)
            fail(step, "no guard inside the gen over " + var + " holds for a first part of its range [" +
                           std::to_string(e.lo) + ", " + std::to_string(e.hi) + ")");
        const int start = c.position();
        Ranges &scope = c.scope();
        scope[var] = LoopRange{e.lo, good - 1};
        c.set_simplify(true);
        Tensor steady = c.copy(*e.a, tau);
        c.set_simplify(false);
        scope.erase(var);
        if (injects(Mutation::SeparateOneTooFar) && good < e.hi) good++;
        Tensor main = gen(Index(var), e.lo, good, steady);
        if (good == e.hi) return main;
        c.rewind(start);
        scope[var] = LoopRange{good, e.hi - 1};
        Tensor tail = gen(Index(var), good, e.hi, c.copy(*e.a, tau));
        scope.erase(var);
        return concat(main, tail);
    }, "gen over " + var);
    return *this;
}

Derivation &Derivation::inline_let(const std::string &name) {
    const std::string step = "inline " + name;
    data_->run(step, [&](Copier &c, const TensorNode &e, const Substitution &tau) -> std::optional<Tensor> {
        if (e.op != TensorOp::Let || e.array->name != name) return std::nullopt;
        Inlined in{name, {}, nullptr};
        const TensorNode *v = e.a.get();
        while (v->op == TensorOp::Gen) {
            in.vars.emplace_back(v->var, v->lo);
            v = v->a.get();
        }
        if (!is_scalar_op(v->op))
            fail(step, "the value of " + name + " must be gens around a scalar expression to be inlined; it has " +
                           op_name(v->op) + " inside: " + tensor_text(*e.a));
        in.leaf = v;
        c.skip(*e.a);
        c.add_inlined(e.array.get(), std::move(in));
        return c.copy(*e.b, tau);
    }, "let named " + name);
    return *this;
}

Derivation &Derivation::apply(const std::string &text) {
    std::istringstream in(text);
    std::vector<std::string> w;
    for (std::string word; in >> word;) w.push_back(word);
    auto number = [&](size_t i) -> int64_t {
        try {
            size_t used = 0;
            int64_t v = std::stoll(w.at(i), &used);
            if (used == w[i].size()) return v;
        } catch (const std::exception &) {
        }
        fail(text, "expected an integer, found `" + (i < w.size() ? w[i] : std::string()) + "`");
    };
    const std::string kind = w.empty() ? "" : w[0];
    if (kind == "split" && (w.size() == 3 || w.size() == 5))
        return split(w[1], number(2), w.size() == 5 ? w[3] : "", w.size() == 5 ? w[4] : "");
    if (kind == "tile" && w.size() == 5) return tile(w[1], w[2], number(3), number(4));
    if (kind == "interchange" && w.size() == 2) return interchange(w[1]);
    if (kind == "fuse" && (w.size() == 3 || w.size() == 4)) return fuse(w[1], w[2], w.size() == 4 ? w[3] : "");
    if (kind == "separate" && w.size() == 2) return separate(w[1]);
    if (kind == "inline" && w.size() == 2) return inline_let(w[1]);
    fail(text, "expected one of `split VAR K [OUTER INNER]`, `tile Y X KY KX`, `interchange VAR`, "
               "`fuse OUTER INNER [FUSED]`, `separate VAR`, `inline NAME`");
}

Comparison Derivation::check(int trials, uint64_t seed) const { return compare(data_->original, data_->program, trials, seed); }

Comparison compare(const Tensor &a, const Tensor &b, int trials, uint64_t seed) {
    Comparison result;
    auto inputs = check_names(*a.node());
    for (const auto &x : check_names(*b.node()))
        if (std::none_of(inputs.begin(), inputs.end(), [&](const auto &y) { return y->name == x->name; }))
            inputs.push_back(x);
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<double> cell(-1.0, 1.0);
    for (int t = 0; t < trials && result.equal; t++) {
        Inputs values;
        for (const auto &a : inputs) {
            Value v(a->shape);
            for (double &x : v.data) x = cell(random);
            values[a->name] = std::move(v);
        }
        const Value want = evaluate(a, values), got = evaluate(b, values);
        result.trials++;
        if (want.shape != got.shape) {
            result.equal = false;
            result.mismatch = "the shapes differ: " + shape_text(want.shape) + " and " + shape_text(got.shape);
            break;
        }
        for (size_t i = 0; i < want.data.size(); i++) {
            const double d = std::abs(want.data[i] - got.data[i]);
            result.max_difference = std::max(result.max_difference, d);
            const bool bad = want.pad[i] != got.pad[i] || d > 1e-9 * (1 + std::abs(want.data[i]));
            if (bad && result.equal) {
                result.equal = false;
                std::ostringstream os;
                os << "cell " << i << " (row-major) is " << (want.pad[i] ? "()" : std::to_string(want.data[i]))
                   << " in the first program and " << (got.pad[i] ? "()" : std::to_string(got.data[i]))
                   << " in the second, on random inputs (trial " << t + 1 << ")";
                result.mismatch = os.str();
            }
        }
    }
    return result;
}

}  // namespace tessera::atl
