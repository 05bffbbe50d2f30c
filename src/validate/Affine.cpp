#include "validate/Affine.h"

#include "analysis/ConstMath.h"
#include "analysis/Simplify.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "validate/LoopNest.h"

namespace tessera::validator {

using namespace ir;

/** e with the lets of `lets` substituted by their values, recursively (a let's value may
 * use other lets), except those whose names start with `keep` (if not empty). */
Expr expand_lets(const Expr &e, const std::map<std::string, Expr> &lets, const std::string &keep,
                 std::map<std::string, Expr> *expansions) {
    // Each let is expanded once and its expansion shared by every use, so that the result
    // is a graph the size of the code (the tree it stands for can be exponentially larger:
    // lowering's bounds name each subexpression once and use it many times), and passes
    // that memoize by node (Affine::expr, lane_of) do each let's work once.
    struct Expand : IRMutator {
        const std::map<std::string, Expr> &lets;
        const std::string &keep;
        std::map<std::string, Expr> own;
        std::map<std::string, Expr> &expanded;
        int depth = 0;
        Expand(const std::map<std::string, Expr> &l, const std::string &k, std::map<std::string, Expr> *cache)
            : lets(l), keep(k), expanded(cache ? *cache : own) {}
        Expr visit(const Variable *op, const Expr &self) override {
            if (!keep.empty() && op->name.compare(0, keep.size(), keep) == 0) return self;
            auto it = lets.find(op->name);
            if (it == lets.end() || depth > 32) return self;
            if (auto e = expanded.find(op->name); e != expanded.end()) return e->second;
            depth++;
            Expr r = mutate(it->second);
            depth--;
            expanded.emplace(op->name, r);
            return r;
        }
    } expand(lets, keep, expansions);
    return expand.mutate(e);
}

std::string brief(const Expr &e) {
    constexpr size_t kMost = 240;
    std::string s = to_string(e);
    if (s.size() <= kMost) return s;
    const size_t all = s.size();
    s.resize(kMost);
    return s + "... (" + std::to_string(all) + " characters)";
}

bool is_zero(const Expr &e) {
    analysis::detail::i128 v = 0;
    return analysis::detail::const_int(e, v) && v == 0;
}



Affine::Affine(isl_ctx *ctx, const std::string &tuple, const std::vector<std::string> &dims, int lane_dim,
               const std::map<std::string, Expr> &lets, std::map<std::string, Type> &parameters,
               const std::map<std::string, FusedLoop> &fused, Products *products)
    : ctx_(ctx), dims_(dims), lane_dim_(lane_dim), lets_(lets), parameters_(parameters), fused_(fused), products_(products) {
    isl_space *s = isl_space_set_alloc(ctx, 0, unsigned(dims.size()));
    for (size_t i = 0; i < dims.size(); i++)
        s = isl_space_set_dim_id(s, isl_dim_set, unsigned(i), isl_id_alloc(ctx, dims[i].c_str(), nullptr));
    s = isl_space_set_tuple_name(s, isl_dim_set, tuple.c_str());
    space_ = check(s, "a statement's space");
}

Isl<isl_set> Affine::universe() const { return check(isl_set_universe(space_.copy()), "a universe"); }

Isl<isl_pw_aff> Affine::constant(int64_t v) const {
    return check(isl_pw_aff_val_on_domain(universe().release(), isl_val_int_from_si(ctx_, long(v))), "a constant");
}

Isl<isl_pw_aff> Affine::dim(int i) const {
    return check(isl_pw_aff_var_on_domain(isl_local_space_from_space(space_.copy()), isl_dim_set, unsigned(i)),
                 "a loop variable");
}

Isl<isl_pw_aff> Affine::expr(const Expr &e) {
    // Memoized by node: expressions with lets expanded share each let's expansion.
    if (auto it = nodes_.find(e.get()); it != nodes_.end()) return it->second.second;
    Isl<isl_pw_aff> r = translate(e);
    nodes_.emplace(e.get(), std::make_pair(e, r));  // e kept alive: its address is not reused
    return r;
}

Isl<isl_pw_aff> Affine::translate(const Expr &e) {
    if (!e.type().element_of().is_int() && !e.type().element_of().is_uint())
        throw Unsupported("the " + e.type().to_string() + " expression " + brief(e) + " is not an integer");
    switch (e->kind) {
    case ExprKind::IntImm: return constant(as<IntImm>(e)->value);
    case ExprKind::UIntImm: {
        const uint64_t v = as<UIntImm>(e)->value;
        if (v > uint64_t(INT64_MAX)) throw Unsupported("the constant " + brief(e) + " is too large");
        return constant(int64_t(v));
    }
    case ExprKind::Variable: return variable(as<Variable>(e)->name, e.type());
    case ExprKind::Cast: {
        const Cast *c = as<Cast>(e);
        const Type from = c->value.type().element_of(), to = e.type().element_of();
        // Exact when every value of `from` is a value of `to`.
        const bool widening = (from.is_int() || from.is_uint()) && to.bits >= from.bits &&
                              (from.is_int() == to.is_int() || (from.is_uint() && to.bits > from.bits));
        if (!widening) throw Unsupported("the conversion " + brief(e) + " may change its value");
        return expr(c->value);
    }
    case ExprKind::Add: return binary(e, isl_pw_aff_add);
    case ExprKind::Sub: return binary(e, isl_pw_aff_sub);
    case ExprKind::Min:
    case ExprKind::Max: return min_max(e);
    case ExprKind::Mul: {
        const Mul *m = as<Mul>(e);
        Isl<isl_pw_aff> a = expr(m->a), b = expr(m->b);
        if (isl_pw_aff_is_cst(a.get()) != isl_bool_true && isl_pw_aff_is_cst(b.get()) != isl_bool_true) {
            const unsigned n = unsigned(dims_.size());
            if (products_ && isl_pw_aff_involves_dims(a.get(), isl_dim_in, 0, n) == isl_bool_false &&
                isl_pw_aff_involves_dims(b.get(), isl_dim_in, 0, n) == isl_bool_false)
                return product(e, std::move(a), std::move(b));
            throw Unsupported("the product " + brief(e) + " is not affine");
        }
        return pieces(check(isl_pw_aff_mul(a.release(), b.release()), "a product"), e);
    }
    case ExprKind::Div:
    case ExprKind::Mod: {
        const Expr *pa = nullptr, *pb = nullptr;
        analysis::detail::binary_operands(e, pa, pb);
        const Expr &a = *pa, &b = *pb;
        if (const Variable *v = as<Variable>(a)) {
            // v / inner and v % inner of a fused loop v: its outer and inner loops.
            if (auto f = fused_.find(v->name); f != fused_.end() && same_value(expand_lets(b, lets_), f->second.inner))
                return dim(dim_index(e->kind == ExprKind::Div ? f->second.outer_dim : f->second.inner_dim));
        }
        int64_t d = 0;
        if (const IntImm *k = as<IntImm>(b)) d = k->value;
        else if (const UIntImm *k = as<UIntImm>(b); k && k->value <= uint64_t(INT64_MAX)) d = int64_t(k->value);
        else if (analysis::detail::i128 v = 0;
                 // An expression of constants (lets of a run's sizes: src/validate/OneRun.h).
                 analysis::detail::const_int(analysis::simplify(expand_lets(b, lets_)), v) && v >= INT64_MIN && v <= INT64_MAX)
            d = int64_t(v);
        else throw Unsupported("the divisor of " + brief(e) + " is not a constant");
        // x / 0 = x % 0 = 0 (docs/semantics.md §2).
        if (d == 0) return constant(0);
        Isl<isl_pw_aff> x = expr(a);
        Isl<isl_val> m(isl_val_int_from_si(ctx_, long(d < 0 ? -d : d)));
        if (e->kind == ExprKind::Mod)  // Euclidean: in [0, |d|)
            return pieces(check(isl_pw_aff_mod_val(x.release(), m.release()), "a remainder"), e);
        // Euclidean quotient: floor(x / d) for d > 0, -floor(x / -d) for d < 0.
        Isl<isl_pw_aff> q =
            check(isl_pw_aff_floor(isl_pw_aff_scale_down_val(x.release(), m.release())), "a quotient");
        if (d < 0) q = check(isl_pw_aff_neg(q.release()), "a quotient");
        return pieces(std::move(q), e);
    }
    case ExprKind::Select: {
        const Select *s = as<Select>(e);
        Isl<isl_set> c = condition(s->condition);
        Isl<isl_pw_aff> a = expr(s->true_value), b = expr(s->false_value);
        Isl<isl_set> not_c = check(isl_set_complement(c.copy()), "a complement");
        Isl<isl_pw_aff> r = check(isl_pw_aff_union_add(isl_pw_aff_intersect_domain(a.release(), c.release()),
                                                       isl_pw_aff_intersect_domain(b.release(), not_c.release())),
                                  "a select");
        return pieces(std::move(r), e);
    }
    case ExprKind::Ramp: {
        const Ramp *r = as<Ramp>(e);
        if (lane_dim_ < 0) throw Unsupported("a vector outside a vector store: " + brief(e));
        Isl<isl_pw_aff> stride = expr(r->stride);
        if (isl_pw_aff_is_cst(stride.get()) != isl_bool_true)
            throw Unsupported("the stride of " + brief(e) + " is not a constant");
        return check(isl_pw_aff_add(expr(r->base).release(), isl_pw_aff_mul(stride.release(), dim(lane_dim_).release())),
                     "a ramp");
    }
    case ExprKind::Broadcast: return expr(as<Broadcast>(e)->value);
    case ExprKind::Load:
        throw Unsupported("the value " + brief(e) + " is read from memory (a data-dependent index)");
    default: throw Unsupported("the expression " + brief(e) + " is not affine");
    }
}

Isl<isl_pw_aff> Affine::product(const Expr &e, Isl<isl_pw_aff> a, Isl<isl_pw_aff> b) {
    const Expr value = expand_lets(e, lets_);
    const std::string name = "(" + to_string(value) + ")";
    parameters_.emplace(name, e.type().element_of());
    Isl<isl_pw_aff> p = check(isl_pw_aff_param_on_domain_id(universe().release(), isl_id_alloc(ctx_, name.c_str(), nullptr)),
                              "a product");
    if (products_->exprs.emplace(name, value).second) {
        products_->factors.emplace(name, std::make_pair(check(isl_pw_aff_project_domain_on_params(a.copy()), "a factor"),
                                                        check(isl_pw_aff_project_domain_on_params(b.copy()), "a factor")));
        // What the signs of a and b say of their product p (integers, no overflow).
        auto cmp = [&](isl_set *(*op)(isl_pw_aff *, isl_pw_aff *), const Isl<isl_pw_aff> &x, const Isl<isl_pw_aff> &y) {
            return check(op(x.copy(), y.copy()), "a product's facts");
        };
        auto all = [&](std::initializer_list<Isl<isl_set>> sets) {
            Isl<isl_set> r = universe();
            for (const Isl<isl_set> &x : sets) r = check(isl_set_intersect(r.release(), x.copy()), "a product's facts");
            return r;
        };
        const Isl<isl_pw_aff> zero = constant(0), one = constant(1), minus_one = constant(-1);
        const Isl<isl_pw_aff> na = check(isl_pw_aff_neg(a.copy()), "a product"), nb = check(isl_pw_aff_neg(b.copy()), "a product");
        Isl<isl_set> facts = all({cmp(isl_pw_aff_ge_set, a, one), cmp(isl_pw_aff_ge_set, b, one), cmp(isl_pw_aff_ge_set, p, a),
                                  cmp(isl_pw_aff_ge_set, p, b)});
        for (const Isl<isl_set> &c : {all({cmp(isl_pw_aff_le_set, a, minus_one), cmp(isl_pw_aff_le_set, b, minus_one),
                                           cmp(isl_pw_aff_ge_set, p, na), cmp(isl_pw_aff_ge_set, p, nb)}),
                                      all({cmp(isl_pw_aff_eq_set, a, zero), cmp(isl_pw_aff_eq_set, p, zero)}),
                                      all({cmp(isl_pw_aff_eq_set, b, zero), cmp(isl_pw_aff_eq_set, p, zero)}),
                                      all({cmp(isl_pw_aff_ge_set, a, one), cmp(isl_pw_aff_le_set, b, minus_one),
                                           cmp(isl_pw_aff_le_set, p, na), cmp(isl_pw_aff_le_set, p, b)}),
                                      all({cmp(isl_pw_aff_le_set, a, minus_one), cmp(isl_pw_aff_ge_set, b, one),
                                           cmp(isl_pw_aff_le_set, p, a), cmp(isl_pw_aff_le_set, p, nb)})})
            facts = check(isl_set_union(facts.release(), c.copy()), "a product's facts");
        Isl<isl_set> params = check(isl_set_params(isl_set_coalesce(facts.release())), "a product's facts");
        products_->facts = products_->facts ? check(isl_set_intersect(products_->facts.release(), params.release()), "a product's facts")
                                            : std::move(params);
    }
    return p;
}

bool Products::realizable(const Isl<isl_set> &params) const {
    // A sample of the other parameters (the products projected out), then the products
    // they give.
    Isl<isl_set> others = params;
    for (const auto &entry : factors) {
        const int k = isl_set_find_dim_by_name(others.get(), isl_dim_param, entry.first.c_str());
        if (k >= 0) others = Isl<isl_set>(isl_set_project_out(others.release(), isl_dim_param, unsigned(k), 1));
        if (!others) return false;
    }
    // Samples of the others, first among small values (where the products of sizes stay
    // inside the ranges the entry checks allow: a sample anywhere tends to take extreme
    // ones), then anywhere.
    for (const long bound : {16L, 256L, 65536L, 0L}) {
        Isl<isl_set> where = bound ? Isl<isl_set>(params_within(others.copy(), bound)) : others;
        if (!where) return false;
        Isl<isl_point> sample(isl_set_sample_point(where.copy()));
        if (!sample) return false;
        if (isl_point_is_void(sample.get()) == isl_bool_false && realized_at(params, sample)) return true;
    }
    return false;
}

bool Products::realized_at(const Isl<isl_set> &params, const Isl<isl_point> &sample) const {
    Isl<isl_set> fixed = params;
    isl_ctx *ctx = isl_set_get_ctx(params.get());
    auto value = [&](const Isl<isl_pw_aff> &f) -> Isl<isl_val> {
        isl_pw_aff *aligned = isl_pw_aff_align_params(f.copy(), isl_point_get_space(sample.get()));
        return Isl<isl_val>(isl_pw_aff_eval(aligned, isl_point_copy(sample.get())));
    };
    auto equal_to = [&](Isl<isl_pw_aff> f, const Isl<isl_val> &v) {
        Isl<isl_pw_aff> c(isl_pw_aff_val_on_domain(isl_set_universe(isl_pw_aff_get_domain_space(f.get())), v.copy()));
        return Isl<isl_set>(isl_pw_aff_eq_set(f.release(), c.release()));
    };
    for (const auto &[name, ab] : factors) {
        Isl<isl_val> va = value(ab.first), vb = value(ab.second);
        if (!va || !vb || isl_val_is_int(va.get()) != isl_bool_true || isl_val_is_int(vb.get()) != isl_bool_true) return false;
        Isl<isl_val> product(isl_val_mul(va.copy(), vb.copy()));
        Isl<isl_pw_aff> p(isl_pw_aff_param_on_domain_id(isl_set_universe(isl_set_get_space(params.get())), isl_id_alloc(ctx, name.c_str(), nullptr)));
        for (Isl<isl_set> c : {equal_to(ab.first, va), equal_to(ab.second, vb), equal_to(std::move(p), product)}) {
            if (!c) return false;
            fixed = Isl<isl_set>(isl_set_intersect(fixed.release(), c.release()));
            if (!fixed) return false;
        }
    }
    return isl_set_is_empty(fixed.get()) == isl_bool_false;
}

bool Affine::same_value(const Expr &a, const Expr &b) {
    if (equal(a, b)) return true;
    // Two ways of writing one extent, e.g. (e + 24) / 24 and e / 24 + 1.
    try {
        Isl<isl_set> differ = check(isl_pw_aff_ne_set(expr(a).release(), expr(b).release()), "a comparison");
        return isl_set_is_empty(differ.get()) == isl_bool_true;
    } catch (const Unsupported &) {
        return false;
    }
}

Isl<isl_set> Affine::condition(const Expr &e) {
    switch (e->kind) {
    case ExprKind::UIntImm:
        if (e.type().element_of().is_bool())
            return as<UIntImm>(e)->value ? universe() : check(isl_set_empty(space_.copy()), "an empty set");
        break;
    case ExprKind::And: {
        const And *a = as<And>(e);
        return check(isl_set_intersect(condition(a->a).release(), condition(a->b).release()), "a conjunction");
    }
    case ExprKind::Or: {
        const Or *o = as<Or>(e);
        return check(isl_set_union(condition(o->a).release(), condition(o->b).release()), "a disjunction");
    }
    case ExprKind::Not: return check(isl_set_complement(condition(as<Not>(e)->a).release()), "a negation");
    case ExprKind::LT: return comparison(e, isl_pw_aff_lt_set);
    case ExprKind::LE: return comparison(e, isl_pw_aff_le_set);
    case ExprKind::GT: return comparison(e, isl_pw_aff_gt_set);
    case ExprKind::GE: return comparison(e, isl_pw_aff_ge_set);
    case ExprKind::EQ: return comparison(e, isl_pw_aff_eq_set);
    case ExprKind::NE: return comparison(e, isl_pw_aff_ne_set);
    case ExprKind::Broadcast: return condition(as<Broadcast>(e)->value);
    case ExprKind::Variable:
        if (auto it = lets_.find(as<Variable>(e)->name); it != lets_.end()) return condition(it->second);
        break;
    default: break;
    }
    throw Unsupported("the condition " + brief(e) + " is not affine");
}


void Affine::restrict_to(Isl<isl_set> points) {
    // Only ever narrowed: what was translated before is exact on the new restriction too.
    if (isl_set_is_params(points.get()) == isl_bool_true) {
        params_restriction_ = check(isl_set_intersect_params(universe().release(), points.copy()), "a restriction");
        points = params_restriction_;
    }
    restriction_ = std::move(points);
}

bool Affine::on_parameters(const Isl<isl_pw_aff> &a) const {
    return params_restriction_ && isl_pw_aff_involves_dims(a.get(), isl_dim_in, 0, unsigned(dims_.size())) == isl_bool_false;
}

Isl<isl_pw_aff> Affine::pieces(Isl<isl_pw_aff> a, const Expr &e) const {
    // Simplified on the restriction: pieces outside it dropped, the others' domains
    // simplified there (so that they may overlap outside it, where nothing looks).
    if (restriction_ && isl_pw_aff_n_piece(a.get()) > 1)
        // An expression of the parameters alone (a bound lowering computed before the
        // loops) on the parameters' restriction: the loops' would only cost more.
        a = check(isl_pw_aff_gist(a.release(), (on_parameters(a) ? params_restriction_ : restriction_).copy()),
                  "a piecewise expression");
    a = check(isl_pw_aff_coalesce(a.release()), "a piecewise expression");
    if (isl_pw_aff_n_piece(a.get()) > kMaxPieces)
        throw Unsupported("the expression " + brief(e) + " has more than " + std::to_string(kMaxPieces) +
                          " affine pieces");
    return a;
}

Isl<isl_pw_aff> Affine::min_max(const Expr &e) {
    const Expr *a = nullptr, *b = nullptr;
    analysis::detail::binary_operands(e, a, b);
    Isl<isl_pw_aff> x = expr(*a), y = expr(*b);
    // An operand no greater (for min) than the other wherever the checks look is the
    // result: isl's min would split the domain on a comparison it does not see always
    // holds when floors are involved ((c + 1) / 16 against c / 16 + 1, of a loop
    // partition's bounds), and the pieces multiply through every use.
    if (restriction_) {
        const Isl<isl_set> &where = on_parameters(x) && on_parameters(y) ? params_restriction_ : restriction_;
        auto never = [&](isl_set *(*cmp)(isl_pw_aff *, isl_pw_aff *)) {
            Isl<isl_set> s = check(cmp(x.copy(), y.copy()), "a comparison");
            s = check(isl_set_intersect(s.release(), where.copy()), "a comparison");
            return isl_set_is_empty(s.get()) == isl_bool_true;
        };
        const bool is_min = e->kind == ExprKind::Min;
        if (never(is_min ? isl_pw_aff_gt_set : isl_pw_aff_lt_set)) return x;
        if (never(is_min ? isl_pw_aff_lt_set : isl_pw_aff_gt_set)) return y;
    }
    Isl<isl_pw_aff> r = check(e->kind == ExprKind::Min ? isl_pw_aff_min(x.release(), y.release())
                                                      : isl_pw_aff_max(x.release(), y.release()),
                              "an affine operation");
    return pieces(std::move(r), e);
}

template <typename F>
Isl<isl_pw_aff> Affine::binary(const Expr &e, F op) {
    const Expr *a = nullptr, *b = nullptr;
    analysis::detail::binary_operands(e, a, b);
    Isl<isl_pw_aff> x = expr(*a), y = expr(*b);
    return pieces(check(op(x.release(), y.release()), "an affine operation"), e);
}

template <typename F>
Isl<isl_set> Affine::comparison(const Expr &e, F op) {
    const Expr *a = nullptr, *b = nullptr;
    analysis::detail::binary_operands(e, a, b);
    Isl<isl_pw_aff> x = expr(*a), y = expr(*b);
    return check(op(x.release(), y.release()), "a comparison");
}

int Affine::dim_index(const std::string &name) const {
    for (size_t i = 0; i < dims_.size(); i++)
        if (dims_[i] == name) return int(i);
    throw Unsupported("no dimension " + name);
}

Isl<isl_pw_aff> Affine::variable(const std::string &name, Type type) {
    if (name == kLane && lane_dim_ >= 0) return dim(lane_dim_);
    if (fused_.count(name))
        throw Unsupported("the fused loop variable " + name + " is used other than divided by, or modulo, the extent of its inner loop");
    for (size_t i = 0; i < dims_.size(); i++)
        if (dims_[i] == name && int(i) != lane_dim_) return dim(int(i));
    if (auto it = lets_.find(name); it != lets_.end()) {
        if (auto m = memo_.find(name); m != memo_.end()) return m->second;
        Isl<isl_pw_aff> v = expr(it->second);
        memo_.emplace(name, v);
        return v;
    }
    parameters_.emplace(name, type.element_of());
    return check(isl_pw_aff_param_on_domain_id(universe().release(), isl_id_alloc(ctx_, name.c_str(), nullptr)),
                 "a parameter");
}


}  // namespace tessera::validator
