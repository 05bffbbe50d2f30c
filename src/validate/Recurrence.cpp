#include "validate/Recurrence.h"

#include <sstream>

#include "ir/IRPrinter.h"
#include "validate/Affine.h"

namespace tessera::validator {

using namespace ir;

namespace {

const std::map<std::string, Expr> kNoLets;

}  // namespace

isl_id *Recurrence::stage_id(isl_ctx *ctx, const FunctionData &f, int stage) {
    return isl_id_alloc(ctx, (f.name + ".s" + std::to_string(stage)).c_str(), const_cast<FunctionData *>(&f));
}

isl_id *Recurrence::func_id(isl_ctx *ctx, const FunctionData &f) {
    return isl_id_alloc(ctx, f.name.c_str(), const_cast<FunctionData *>(&f));
}

Isl<isl_map> Recurrence::layout(const Isl<isl_set> &from, const char *to_tuple, int out,
                                const std::vector<std::pair<int, int>> &equal,
                                const std::vector<std::pair<int, long>> &fixed) const {
    isl_space *space = isl_space_add_dims(isl_space_from_domain(isl_set_get_space(from.get())), isl_dim_out, unsigned(out));
    space = isl_space_set_tuple_id(space, isl_dim_out, isl_id_alloc(ctx_, to_tuple, const_cast<FunctionData *>(&f_)));
    isl_map *m = isl_map_universe(space);
    std::vector<bool> set(size_t(out), false);
    for (const auto &[in, o] : equal) {
        m = isl_map_equate(m, isl_dim_in, in, isl_dim_out, o);
        set[size_t(o)] = true;
    }
    for (const auto &[o, v] : fixed) {
        m = isl_map_fix_si(m, isl_dim_out, unsigned(o), int(v));
        set[size_t(o)] = true;
    }
    for (int o = 0; o < out; o++)
        if (!set[size_t(o)]) m = isl_map_fix_si(m, isl_dim_out, unsigned(o), 0);
    return check(isl_map_intersect_domain(m, from.copy()), "a recurrence's map");
}

Recurrence::Recurrence(isl_ctx *ctx, const FunctionData &f, std::map<std::string, Type> &parameters)
    : ctx_(ctx), f_(f), parameters_(parameters) {
    dims_ = int(f.args.size());
    for (const Definition &d : f.definitions)
        if (d.rdom) max_rvars_ = std::max(max_rvars_, int(d.rdom->dims.size()));
    const int order_dims = 1 + max_rvars_ + dims_;
    for (size_t j = 0; j < f.definitions.size(); j++) {
        const Definition &d = f.definitions[j];
        const std::string what = j == 0 ? "the definition of Func " + f.name
                                        : "update " + std::to_string(j - 1) + " of Func " + f.name;
        Stage st;
        for (int i = 0; i < dims_; i++) {
            const Variable *v = j == 0 ? nullptr : as<Variable>(d.args[size_t(i)]);
            st.dims.push_back(j == 0 ? f.args[size_t(i)]
                                     : (d.pure_dims[size_t(i)] && v ? v->name : "<" + f.name + "." + std::to_string(i) + ">"));
        }
        const int rvars = d.rdom ? int(d.rdom->dims.size()) : 0;
        if (d.rdom)
            for (const auto &dim : d.rdom->dims) st.dims.push_back(dim.name);
        Affine affine(ctx, f.name + ".s" + std::to_string(j), st.dims, -1, kNoLets, parameters);
        Isl<isl_set> domain = affine.universe();
        try {
            for (int k = 0; k < rvars; k++) {
                const auto &dim = d.rdom->dims[size_t(k)];
                const Isl<isl_pw_aff> r = affine.dim(dims_ + k);
                domain = check(isl_set_intersect(domain.release(), isl_pw_aff_ge_set(r.copy(), affine.expr(dim.min).release())),
                               "an RDom");
                domain = check(isl_set_intersect(domain.release(),
                                                 isl_pw_aff_lt_set(r.copy(), affine.expr(Add::make(dim.min, dim.extent)).release())),
                               "an RDom");
            }
            for (const Expr &p : d.predicates)
                domain = check(isl_set_intersect(domain.release(), affine.condition(p).release()), "a predicate");
            for (int i = 0; j > 0 && i < dims_; i++) {
                if (d.pure_dims[size_t(i)]) continue;
                domain = check(isl_set_intersect(domain.release(), isl_pw_aff_eq_set(affine.dim(i).release(),
                                                                                      affine.expr(d.args[size_t(i)]).release())),
                               "a left-hand side");
            }
        } catch (const Unsupported &u) {
            throw Unsupported(what + ": " + u.what());
        }
        st.domain = check(isl_set_set_tuple_id(isl_set_coalesce(domain.release()), stage_id(ctx, f, int(j))), "an iteration domain");
        std::vector<std::pair<int, int>> order;
        for (int t = 0; t < rvars; t++) order.emplace_back(dims_ + rvars - 1 - t, 1 + t);
        for (int i = 0; i < dims_; i++) order.emplace_back(i, 1 + max_rvars_ + i);
        st.key = layout(st.domain, "order", order_dims, order, {{0, long(j)}});
        std::vector<std::pair<int, int>> point;
        for (int i = 0; i < dims_; i++) point.emplace_back(i, i);
        st.write = layout(st.domain, f.name.c_str(), dims_, point, {});
        st.write = check(isl_map_set_tuple_id(st.write.release(), isl_dim_out, func_id(ctx, f)), "a write");
        Isl<isl_map> w = check(isl_map_apply_range(isl_map_reverse(st.write.copy()), st.key.copy()), "the writers");
        writers_ = writers_ ? check(isl_map_union(writers_.release(), w.release()), "the writers") : std::move(w);
        stages_.push_back(std::move(st));
    }
    // The iterations that write their point's final value: the last writer of the point.
    Isl<isl_map> last;
    if (stages_.size() > 1) last = check(isl_map_lexmax(writers_.copy()), "the last writers");
    for (size_t j = 0; j < stages_.size(); j++) {
        Stage &st = stages_[j];
        Isl<isl_set> final_set = st.domain;
        if (last)
            final_set = check(isl_map_domain(isl_map_intersect(st.key.copy(), isl_map_apply_range(st.write.copy(), last.copy()))),
                              "the final iterations");
        std::vector<std::pair<int, int>> point, iteration;
        for (int i = 0; i < dims_; i++) point.emplace_back(i, 1 + i);
        const int rvars = int(st.dims.size()) - dims_;
        for (int i = 0; i < dims_ + rvars; i++) iteration.emplace_back(i, 1 + i);
        st.names = layout(final_set, "value", name_width(), point, {{0, -1}});
        Isl<isl_set> overwritten = check(isl_set_subtract(st.domain.copy(), final_set.copy()), "the overwritten iterations");
        if (isl_set_is_empty(overwritten.get()) != isl_bool_true)
            st.names = check(isl_map_union(st.names.release(), layout(overwritten, "value", name_width(), iteration, {{0, long(j)}}).release()),
                             "the names of values");
        Isl<isl_map> kn = check(isl_map_apply_range(isl_map_reverse(st.key.copy()), st.names.copy()), "the names of values");
        key_names_ = key_names_ ? check(isl_map_union(key_names_.release(), kn.release()), "the names of values") : std::move(kn);
    }
}

Isl<isl_map> Recurrence::final_names() const {
    isl_space *space = isl_space_set_alloc(ctx_, 0, unsigned(dims_));
    space = isl_space_set_tuple_id(space, isl_dim_set, func_id(ctx_, f_));
    Isl<isl_set> points = check(isl_set_universe(space), "a Func's points");
    std::vector<std::pair<int, int>> point;
    for (int i = 0; i < dims_; i++) point.emplace_back(i, 1 + i);
    return layout(points, "value", name_width(), point, {{0, -1}});
}

Isl<isl_map> Recurrence::read_by(int stage, const Call &call) const {
    const Stage &st = stages_.at(size_t(stage));
    Affine affine(ctx_, f_.name + ".s" + std::to_string(stage), st.dims, -1, kNoLets, parameters_);
    Isl<isl_map> called;
    try {
        for (const Expr &a : call.args) {
            Isl<isl_map> m = check(isl_map_from_pw_aff(affine.expr(a).release()), "a call");
            called = called ? check(isl_map_flat_range_product(called.release(), m.release()), "a call") : std::move(m);
        }
        // A zero-dimensional Func's one point.
        if (!called) called = check(isl_map_from_domain(affine.universe().release()), "a call");
    } catch (const Unsupported &u) {
        std::string text = call.name + "(";
        for (size_t i = 0; i < call.args.size(); i++) text += (i ? ", " : "") + to_string(call.args[i]);
        throw Unsupported("the call " + text + ")" +
                          " in update " + std::to_string(stage - 1) + " of Func " + f_.name + ": " + u.what());
    }
    called = check(isl_map_set_tuple_id(called.release(), isl_dim_in, stage_id(ctx_, f_, stage)), "a call");
    called = check(isl_map_set_tuple_id(called.release(), isl_dim_out, func_id(ctx_, f_)), "a call");
    called = check(isl_map_intersect_domain(called.release(), st.domain.copy()), "a call");
    // Every iteration that writes the called point, then those before this one.
    Isl<isl_map> writers = check(isl_map_apply_range(called.release(), writers_.copy()), "the writers of a called point");
    Isl<isl_space> order = check(isl_space_range(isl_map_get_space(st.key.get())), "the order");
    Isl<isl_map> before = check(isl_map_apply_range(st.key.copy(), isl_map_lex_gt(order.release())), "the earlier iterations");
    Isl<isl_map> last = check(isl_map_lexmax(isl_map_intersect(writers.release(), before.release())), "the last writer");
    if (isl_set_is_subset(st.domain.get(), Isl<isl_set>(isl_map_domain(last.copy())).get()) != isl_bool_true)
        throw Unsupported("a self-call in update " + std::to_string(stage - 1) + " of Func " + f_.name +
                          " reads a point no earlier iteration wrote");
    return check(isl_map_apply_range(last.release(), key_names_.copy()), "the value a call reads");
}

std::string Recurrence::describe(const std::vector<long> &name) const {
    std::ostringstream o;
    auto point = [&]() {
        o << "(";
        for (int i = 0; i < dims_; i++) o << (i ? ", " : "") << name.at(size_t(1 + i));
        o << ")";
    };
    const long tag = name.empty() ? -1 : name[0];
    if (tag < 0) {
        o << "the final value of " << f_.name << " at ";
        point();
        return o.str();
    }
    o << "the value of " << f_.name << " at ";
    point();
    const Definition &d = f_.definitions.at(size_t(tag));
    if (tag == 0) {
        o << " of its pure definition";
    } else if (!d.rdom) {
        o << " of update " << tag - 1;
    } else {
        o << " after iteration ";
        for (size_t k = 0; k < d.rdom->dims.size(); k++)
            o << (k ? ", " : "") << d.rdom->dims[k].name << " = " << name.at(size_t(1 + dims_) + k);
        o << " of update " << tag - 1;
    }
    o << ", which a later iteration overwrites";
    return o.str();
}

}  // namespace tessera::validator
