#pragma once
// β0, the naive bounds engine the formal semantics of Halide describes (docs/semantics.md
// §12), as an independent oracle for the quality floor of bounds inference
// (docs/architecture.md, "What bounds inference guarantees", item 8): wherever β0
// succeeds, Tessera's bounds inference must succeed too.
//
// β0 works on the algorithm with concrete parameter values: every Func is computed at the
// root, consumers are visited before producers, each Func's region is the hull of every
// point read (or, for an update, written) by its consumers and by its own later stages,
// guards are ignored (`where` predicates and select conditions contribute their reads
// but do not restrict anything), and a Func or image read has the unbounded interval
// (-inf, +inf). Intervals are constant, over mathematical integers; a result outside the
// range of its type could have wrapped and becomes the type's whole range, which for
// int32 and wider types counts as unbounded (no buffer can hold it). β0 fails when a region
// some read needs is unbounded.
//
// This file shares no code with src/analysis: it is a second, deliberately simple
// implementation of the same idea.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Function.h"
#include "tessera/Param.h"

namespace tessera::testing {

/** A constant interval; a missing endpoint is infinite. */
struct Beta0Interval {
    std::optional<__int128> lo, hi;
    bool bounded() const { return lo && hi; }
    static Beta0Interval point(__int128 v) { return {v, v}; }
    static Beta0Interval all() { return {}; }
};

struct Beta0Result {
    bool success = false;
    std::string failure;  // which Func or image was unbounded, and in which dimension
    /** The region of every Func and image read (by name). */
    std::map<std::string, std::vector<Beta0Interval>> regions;
};

class Beta0 {
public:
    Beta0Result run(const std::shared_ptr<ir::FunctionData> &output, const std::vector<int> &mins,
                    const std::vector<int> &extents) {
        Beta0Result result;
        std::vector<Beta0Interval> window;
        for (size_t i = 0; i < mins.size(); i++) window.push_back({mins[i], __int128(mins[i]) + extents[i] - 1});
        regions_[output->name] = window;
        auto order = ir::dependency_order(output);
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const ir::FunctionData &f = **it;
            if (!regions_.count(f.name)) continue;  // never read
            for (int s = int(f.definitions.size()) - 1; s >= 0; s--) {
                const ir::Definition &d = f.definitions[size_t(s)];
                env_.clear();
                for (size_t i = 0; i < f.args.size(); i++) env_[f.args[i]] = regions_[f.name][i];
                if (d.rdom) {
                    for (const auto &dim : d.rdom->dims) {
                        Beta0Interval mn = eval(dim.min), ex = eval(dim.extent);
                        if (!mn.bounded() || !ex.bounded()) return fail(result, "an RDom bound of " + f.name);
                        env_[dim.name] = {*mn.lo, *mn.lo + *ex.hi - 1};
                    }
                }
                if (s > 0) touch(f.name, d.args);  // an update writes its left-hand side
                for (const Expr &a : d.args) eval(a);
                eval(d.value);
                for (const Expr &p : d.predicates) eval(p);
            }
        }
        for (const auto &[name, box] : regions_)
            for (size_t i = 0; i < box.size(); i++)
                if (!box[i].bounded())
                    return fail(result, name + " in dimension " + std::to_string(i));
        result.success = true;
        result.regions = regions_;
        return result;
    }

private:
    using I = Beta0Interval;

    static Beta0Result &fail(Beta0Result &r, const std::string &why) {
        r.success = false;
        r.failure = why;
        return r;
    }

    static I type_range(Type t) {
        if (t.is_bool()) return {0, 1};
        if (t.is_float()) return I::all();
        if (t.is_int()) return {-(__int128(1) << (t.bits - 1)), (__int128(1) << (t.bits - 1)) - 1};
        return {0, (__int128(1) << t.bits) - 1};
    }

    /** The result of an operation of type t: if it may leave t's range it could have
     * wrapped, so it is t's whole range, which is unbounded for int32 and wider. */
    static I fit(Type t, I r) {
        if (t.is_float()) return I::all();
        const I range = type_range(t);
        const bool narrow = t.bits <= 16 || t.is_bool();
        if ((r.lo && *r.lo < *range.lo) || (r.hi && *r.hi > *range.hi)) return narrow ? range : I::all();
        if (narrow) {
            if (!r.lo) r.lo = range.lo;
            if (!r.hi) r.hi = range.hi;
        }
        return r;
    }

    static I hull(const I &a, const I &b) {
        I r;
        if (a.lo && b.lo) r.lo = std::min(*a.lo, *b.lo);
        if (a.hi && b.hi) r.hi = std::max(*a.hi, *b.hi);
        return r;
    }

    void touch(const std::string &name, const std::vector<Expr> &args) {
        std::vector<I> box;
        for (const Expr &a : args) box.push_back(eval(a));
        auto it = regions_.find(name);
        if (it == regions_.end()) {
            regions_[name] = box;
            return;
        }
        for (size_t i = 0; i < box.size() && i < it->second.size(); i++) it->second[i] = hull(it->second[i], box[i]);
    }

    I eval(const Expr &e) {
        using namespace ir;
        const Type t = e.type().element_of();
        switch (e->kind) {
        case ExprKind::IntImm: return I::point(as<IntImm>(e)->value);
        case ExprKind::UIntImm: return I::point(as<UIntImm>(e)->value);
        case ExprKind::FloatImm:
        case ExprKind::StringImm: return I::all();
        case ExprKind::Variable: {
            const Variable *v = as<Variable>(e);
            if (v->var_kind == VarKind::Param && v->param) {
                if (v->param->type.is_float()) return I::all();
                return v->param->type.is_int() ? I::point(v->param->value.i) : I::point(v->param->value.u);
            }
            if (v->var_kind == VarKind::InputBound && v->input && v->input->bound) {
                const auto &d = v->input->bound->dims[size_t(v->input_dim)];
                return I::point(v->is_extent ? d.extent : d.min);
            }
            auto it = env_.find(v->name);
            return it != env_.end() ? it->second : I::all();
        }
        case ExprKind::Cast: {
            I a = eval(as<Cast>(e)->value);
            if (as<Cast>(e)->value.type().is_float()) return fit(t, I::all());
            return fit(t, a);
        }
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul:
        case ExprKind::Div:
        case ExprKind::Mod:
        case ExprKind::Min:
        case ExprKind::Max: return binary(e);
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE:
        case ExprKind::And:
        case ExprKind::Or: {
            eval_children(e);
            return {0, 1};
        }
        case ExprKind::Not: eval(as<Not>(e)->a); return {0, 1};
        case ExprKind::Select: {
            const Select *s = as<Select>(e);
            eval(s->condition);  // guards are ignored: both values count
            return hull(eval(s->true_value), eval(s->false_value));
        }
        case ExprKind::Call: {
            const Call *c = as<Call>(e);
            std::vector<I> args;
            for (const Expr &a : c->args) args.push_back(eval(a));
            if (c->call_kind == CallKind::Intrinsic) {
                if (c->op == Intrinsic::Abs && args.size() == 1 && args[0].bounded()) {
                    __int128 m = std::max(*args[0].lo < 0 ? -*args[0].lo : *args[0].lo,
                                          *args[0].hi < 0 ? -*args[0].hi : *args[0].hi);
                    I r{*args[0].lo >= 0 ? *args[0].lo : 0, m};
                    if (*args[0].lo < 0 && *args[0].hi > 0) r.lo = 0;
                    return fit(t, r);
                }
                return fit(t, I::all());
            }
            touch(c->name, c->args);
            return I::all();  // I(f[...]) = (-inf, +inf)
        }
        case ExprKind::Let: {
            const Let *l = as<Let>(e);
            I v = eval(l->value);
            auto saved = env_.find(l->name) != env_.end() ? std::optional<I>(env_[l->name]) : std::nullopt;
            env_[l->name] = v;
            I r = eval(l->body);
            if (saved) env_[l->name] = *saved;
            else env_.erase(l->name);
            return r;
        }
        default: return I::all();  // Load, Ramp, Broadcast do not occur in algorithms
        }
    }

    void eval_children(const Expr &e) {
        using namespace ir;
        switch (e->kind) {
#define TESSERA_BETA0_CASE(N) \
    case ExprKind::N: eval(as<N>(e)->a), eval(as<N>(e)->b); break;
            TESSERA_BETA0_CASE(EQ)
            TESSERA_BETA0_CASE(NE)
            TESSERA_BETA0_CASE(LT)
            TESSERA_BETA0_CASE(LE)
            TESSERA_BETA0_CASE(GT)
            TESSERA_BETA0_CASE(GE)
            TESSERA_BETA0_CASE(And)
            TESSERA_BETA0_CASE(Or)
#undef TESSERA_BETA0_CASE
        default: break;
        }
    }

    I binary(const Expr &e) {
        using namespace ir;
        Expr ea, eb;
        switch (e->kind) {
        case ExprKind::Add: ea = as<Add>(e)->a, eb = as<Add>(e)->b; break;
        case ExprKind::Sub: ea = as<Sub>(e)->a, eb = as<Sub>(e)->b; break;
        case ExprKind::Mul: ea = as<Mul>(e)->a, eb = as<Mul>(e)->b; break;
        case ExprKind::Div: ea = as<Div>(e)->a, eb = as<Div>(e)->b; break;
        case ExprKind::Mod: ea = as<Mod>(e)->a, eb = as<Mod>(e)->b; break;
        case ExprKind::Min: ea = as<Min>(e)->a, eb = as<Min>(e)->b; break;
        default: ea = as<Max>(e)->a, eb = as<Max>(e)->b; break;
        }
        const Type t = e.type().element_of();
        const I a = eval(ea), b = eval(eb);
        if (t.is_float()) return I::all();
        switch (e->kind) {
        case ExprKind::Add:
            return fit(t, a.bounded() && b.bounded() ? I{*a.lo + *b.lo, *a.hi + *b.hi} : I::all());
        case ExprKind::Sub:
            return fit(t, a.bounded() && b.bounded() ? I{*a.lo - *b.hi, *a.hi - *b.lo} : I::all());
        case ExprKind::Mul: {
            if (!a.bounded() || !b.bounded()) return fit(t, I::all());
            __int128 p[4] = {*a.lo * *b.lo, *a.lo * *b.hi, *a.hi * *b.lo, *a.hi * *b.hi};
            return fit(t, {*std::min_element(p, p + 4), *std::max_element(p, p + 4)});
        }
        case ExprKind::Div: {
            // |a / b| <= |a| (and x / 0 == 0): [-M, M] with M the largest |a|.
            if (!a.bounded()) return fit(t, I::all());
            __int128 m = std::max(*a.lo < 0 ? -*a.lo : *a.lo, *a.hi < 0 ? -*a.hi : *a.hi);
            return fit(t, {-m, m});
        }
        case ExprKind::Mod: {
            // Euclidean: 0 <= a % b < |b|, and a % 0 == 0.
            if (!b.bounded()) return fit(t, {0, std::nullopt});
            __int128 m = std::max(*b.lo < 0 ? -*b.lo : *b.lo, *b.hi < 0 ? -*b.hi : *b.hi);
            return fit(t, {0, m > 0 ? m - 1 : 0});
        }
        case ExprKind::Min: {
            I r;
            if (a.lo && b.lo) r.lo = std::min(*a.lo, *b.lo);
            if (a.hi || b.hi) r.hi = a.hi && b.hi ? std::min(*a.hi, *b.hi) : a.hi ? *a.hi : *b.hi;
            return fit(t, r);
        }
        default: {
            I r;
            if (a.hi && b.hi) r.hi = std::max(*a.hi, *b.hi);
            if (a.lo || b.lo) r.lo = a.lo && b.lo ? std::max(*a.lo, *b.lo) : a.lo ? *a.lo : *b.lo;
            return fit(t, r);
        }
        }
    }

    std::map<std::string, std::vector<I>> regions_;
    std::map<std::string, I> env_;
};

}  // namespace tessera::testing
