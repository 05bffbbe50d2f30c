#pragma once
// A seeded generator of random, valid Tessera pipelines for differential testing.
//
// A program has one or two input Buffers (1-3 dimensions, random element types, random
// extents and mins, filled from the seed), zero to two Params, and one to five Funcs in a
// DAG: Func i always calls Func i - 1 and may call any earlier Func. Each Func has 1-3
// dimensions, a random element type (including bool), a pure definition and sometimes
// update definitions of five kinds:
//   pure       f(x, y) = f(x, y) * 2 + g(x)      (and +=, -=, *=, /=)
//   rdom       f(x) = f(x) + g(x + r.x)           RDom with small constant or Param
//                                                 extents, sometimes with where()
//   scan       f(x, r) = f(x, r) + f(x, r - 1)    along one dimension, the others pure
//   histogram  f(clamp(int(g(r)), 0, 5)) += ...   data-dependent (clamped) or affine
//                                                 left-hand sides in reduction dimensions
//   point      f(3, y) = f(3, y) + ...            constant coordinates
// Values are random expressions over all operators (arithmetic, comparisons, logic,
// bitwise, shifts, min/max/clamp/abs/absd, select, casts between every pair of types,
// reinterpret, math on floats, mixed-type coercions), calls to earlier Funcs and reads
// of the inputs with coordinates affine in the Vars and RVars with small offsets (x + 2,
// 1 - x, 2 * x, x / 2, x % 3, x + y), sometimes data-dependent but clamped. Inputs are
// read through a boundary condition or with clamped coordinates, so the program is valid
// and every read is bounded. The output window has extents 1-20 and random mins,
// including negative ones.
//
// Every generated program is VALID: building it must not throw, and the reference
// interpreter must realize it. The generator keeps a C++-like text of everything it
// built (`description`), so a failing program can be read and reproduced.

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline_corpus.h"

namespace tessera::testing {

struct RandomPipelineOptions {
    int max_funcs = 5;
    int max_dims = 3;
    int max_depth = 4;               // of value expressions
    int max_window_points = 1000;    // product of the output extents
};

struct RandomPipeline {
    uint64_t seed = 0;
    Func output;
    std::vector<int> mins, extents;
    /** All mins are zero; realize through realize(sizes) rather than realize(Buffer). */
    bool realize_by_sizes = false;
    /** C++-like text of the program, in the order it was built. */
    std::string description;
    /** Non-empty if building the program threw: a bug (in the generator or in Tessera). */
    std::string construction_error;
    /** Which generator features the program uses ("update:scan", "type:uint64", ...). */
    std::set<std::string> features;
};

namespace random_detail {

/** An expression and its text. */
struct G {
    Expr e;
    std::string s;
};

inline std::string ctype(Type t) {
    if (t.is_bool()) return "bool";
    if (t.is_float()) return t.bits == 32 ? "float" : "double";
    return std::string(t.is_int() ? "int" : "uint") + std::to_string(t.bits) + "_t";
}

inline std::string float_text(double v, bool f32) {
    if (std::isnan(v)) return f32 ? "NAN" : "double(NAN)";
    if (std::isinf(v)) return std::string(v < 0 ? "-" : "") + (f32 ? "INFINITY" : "double(INFINITY)");
    char buf[64];
    std::snprintf(buf, sizeof(buf), f32 ? "%.9g" : "%.17g", v);
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return f32 ? s + "f" : s;
}

class Builder {
public:
    Builder(uint64_t seed, const RandomPipelineOptions &opts) : rng_(seed), opts_(opts) {
        result_.seed = seed;
        vars_ = {{Var("x"), "x"}, {Var("y"), "y"}, {Var("z"), "z"}};
    }

    RandomPipeline build() {
        line("// Random pipeline, seed " + std::to_string(result_.seed));
        line("Var x(\"x\"), y(\"y\"), z(\"z\");");
        try {
            make_inputs();
            make_params();
            int n = rng_.irange(1, opts_.max_funcs);
            for (int i = 0; i < n; i++) make_func(i);
            make_window();
        } catch (const InternalError &e) {
            result_.construction_error = std::string("InternalError: ") + e.what();
        } catch (const CompileError &e) {
            result_.construction_error = std::string("CompileError: ") + e.what();
        } catch (const RuntimeError &e) {
            result_.construction_error = std::string("RuntimeError: ") + e.what();
        } catch (const std::exception &e) {
            result_.construction_error = std::string("std::exception: ") + e.what();
        }
        if (!result_.construction_error.empty())
            line("// ^ the next statement could not be built: " + result_.construction_error);
        result_.description = text_.str();
        return result_;
    }

private:
    // --- program parts ----------------------------------------------------------------

    struct Input {
        Buffer<> buf;
        std::string name;
        int dims = 0;
        std::vector<int> mins, extents;
        std::map<int, std::pair<Func, std::string>> bc;  // boundary condition kind -> Func
    };
    struct ParamInfo {
        Expr e;
        std::string name;
        Type t;
        bool extent_ok = false;  // an int32 Param with a value in [0, 5]
    };
    struct FuncInfo {
        Func f;
        std::string name;
        Type t;
        int dims = 0;
        std::map<int, std::pair<Func, std::string>> bc;
    };

    /** What an expression may refer to. */
    struct Ctx {
        std::vector<G> index_vars;  // the pure Vars usable here
        std::vector<G> rvars;
        int func_limit = 0;         // may call funcs_[0 .. func_limit)
        int self = -1;              // the Func whose update this is (self-calls allowed)
        std::vector<bool> pure;     // per dimension of self: is it pure in this update?
        std::vector<G> lhs;         // per dimension of self: the left-hand side argument
    };

    void line(const std::string &s) { text_ << s << "\n"; }
    void feature(const std::string &f) { result_.features.insert(f); }

    Type random_type(bool allow_bool) {
        static const Type types[] = {Int(32), Int(32), Int(32), Float(32), Float(32), UInt(8), UInt(8), Int(16),
                                     UInt(16), Int(8),  UInt(32), Int(64),  UInt(64),  Float(64), Float(64), Bool()};
        int n = allow_bool ? 16 : 15;
        return types[rng_.irange(0, n - 1)];
    }
    Type random_numeric_type() { return random_type(false); }
    Type random_int_type() {
        static const Type types[] = {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)};
        return types[rng_.irange(0, 7)];
    }

    void make_inputs() {
        int n = rng_.irange(1, 2);
        for (int i = 0; i < n; i++) {
            Input in;
            in.name = "in" + std::to_string(i);
            in.dims = rng_.irange(1, 3);
            for (int d = 0; d < in.dims; d++) {
                in.extents.push_back(rng_.chance(10) ? 1 : rng_.irange(2, in.dims == 3 ? 6 : 12));
                in.mins.push_back(rng_.irange(-6, 6));
            }
            Type t = random_numeric_type();
            uint64_t seed = rng_.next() >> 1;
            double lo = t.is_float() ? -4 : -20, hi = t.is_float() ? 4 : 20;
            in.buf = Buffer<>(t, in.extents, in.name);
            in.buf.set_min(in.mins);
            fill(in.buf, seed, Fill::Special, lo, hi);
            line("Buffer<" + ctype(t) + "> " + in.name + "(" + list(in.extents) + ", \"" + in.name + "\");");
            line(in.name + ".set_min(" + list(in.mins) + ");");
            line("fill(" + in.name + ", " + std::to_string(seed) + "u, Fill::Special, " + float_text(lo, false) +
                 ", " + float_text(hi, false) + ");");
            inputs_.push_back(std::move(in));
            feature("input:" + t.to_string());
        }
    }

    void make_params() {
        int n = rng_.irange(0, 2);
        for (int i = 0; i < n; i++) {
            ParamInfo p;
            p.name = "p" + std::to_string(i);
            int kind = rng_.irange(0, 4);
            std::string decl;
            bool beyond_coordinates = false;
            if (kind <= 1) {
                Param<int32_t> q(p.name);
                int v = rng_.irange(0, 5);
                q.set(v);
                if (rng_.chance(30)) {
                    q.set_range(0, 10);
                    decl = "; " + p.name + ".set_range(0, 10)";
                    feature("param_range");
                }
                p.e = q;
                p.t = Int(32);
                p.extent_ok = true;
                decl = "Param<int32_t> " + p.name + "(\"" + p.name + "\", " + std::to_string(v) + ")" + decl + ";";
            } else if (kind == 2) {
                static const float vals[] = {0.5f, -1.25f, 3.0f, -0.0f, 1e20f, 7.75f};
                float v = vals[rng_.irange(0, 5)];
                beyond_coordinates = std::fabs(v) >= 1073741824.0f;
                Param<float> q(p.name, v);
                p.e = q;
                p.t = Float(32);
                decl = "Param<float> " + p.name + "(\"" + p.name + "\", " + float_text(v, true) + ");";
            } else if (kind == 3) {
                uint8_t v = uint8_t(rng_.irange(0, 255));
                Param<uint8_t> q(p.name, v);
                p.e = q;
                p.t = UInt(8);
                decl = "Param<uint8_t> " + p.name + "(\"" + p.name + "\", " + std::to_string(v) + ");";
            } else {
                static const double vals[] = {0.1, -2.5, 1e300, 6.0};
                double v = vals[rng_.irange(0, 3)];
                beyond_coordinates = std::fabs(v) >= 1073741824.0;
                Param<double> q(p.name, v);
                p.e = q;
                p.t = Float(64);
                decl = "Param<double> " + p.name + "(\"" + p.name + "\", " + float_text(v, false) + ");";
            }
            line(decl);
            params_.push_back(p);
            feature("param:" + p.t.to_string());
            // 1e20 and 1e300 convert to int32 as its limits: in an index such a Param is a
            // coordinate beyond the range lowering assumes (docs/semantics.md §11).
            if (beyond_coordinates) feature("param_beyond_coordinates");
        }
    }

    void make_window() {
        const FuncInfo &out = funcs_.back();
        result_.output = out.f;
        std::vector<int> ext(size_t(out.dims)), mins(size_t(out.dims));
        bool zero_mins = rng_.chance(25);
        for (int d = 0; d < out.dims; d++) {
            ext[size_t(d)] = rng_.irange(1, 20);
            mins[size_t(d)] = zero_mins ? 0 : rng_.irange(-12, 12);
        }
        auto points = [&] {
            int64_t p = 1;
            for (int e : ext) p *= e;
            return p;
        };
        while (points() > opts_.max_window_points) {
            auto it = std::max_element(ext.begin(), ext.end());
            *it = (*it + 1) / 2;
        }
        result_.mins = mins;
        result_.extents = ext;
        result_.realize_by_sizes = zero_mins && rng_.chance(50);
        line("// realize " + out.name + " over mins " + list(mins) + ", extents " + list(ext) +
             (result_.realize_by_sizes ? " (through realize(sizes))" : " (into a Buffer with those mins)"));
        for (int m : mins)
            if (m < 0) feature("window:negative_min");
    }

    static std::string list(const std::vector<int> &v) {
        std::string s = "{";
        for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + std::to_string(v[i]);
        return s + "}";
    }

    // --- Funcs and their definitions ------------------------------------------------------

    void make_func(int i) {
        FuncInfo fi;
        fi.name = "f" + std::to_string(i);
        fi.dims = rng_.irange(1, opts_.max_dims);
        fi.t = random_type(true);
        fi.f = Func(fi.name);
        feature("type:" + fi.t.to_string());
        feature("dims:" + std::to_string(fi.dims));

        Ctx c;
        for (int d = 0; d < fi.dims; d++) c.index_vars.push_back(vars_[size_t(d)]);
        c.func_limit = i;
        G value = gen(fi.t, c, rng_.irange(1, opts_.max_depth));
        if (i > 0) value = combine(fi.t, value, cast_to(fi.t, call_func(i - 1, c, 2)));
        line("Func " + fi.name + "(\"" + fi.name + "\");");
        std::string lhs = fi.name + "(" + join_vars(fi.dims) + ")";
        line(lhs + " = " + value.s + ";");
        std::vector<Expr> args;
        for (int d = 0; d < fi.dims; d++) args.push_back(vars_[size_t(d)].e);
        fi.f(args) = value.e;
        funcs_.push_back(fi);

        int updates = rng_.chance(50) ? 0 : rng_.irange(1, 3);
        for (int u = 0; u < updates; u++) make_update(i);
    }

    std::string join_vars(int dims) const {
        std::string s;
        for (int d = 0; d < dims; d++) s += (d ? ", " : "") + vars_[size_t(d)].s;
        return s;
    }

    static std::string join(const std::vector<G> &gs) {
        std::string s;
        for (size_t i = 0; i < gs.size(); i++) s += (i ? ", " : "") + gs[i].s;
        return s;
    }

    /** A fresh RDom of `dims` dimensions with small bounds (sometimes a Param extent). */
    RDom make_rdom(int dims, int max_extent, std::vector<G> &rvars, std::string &name) {
        name = "r" + std::to_string(rdom_count_++);
        Region region;
        std::string text = "RDom " + name + "(";
        for (int d = 0; d < dims; d++) {
            int mn = rng_.irange(-4, 4);
            Expr ext;
            std::string ext_text;
            std::vector<const ParamInfo *> ok;
            for (const auto &p : params_)
                if (p.extent_ok) ok.push_back(&p);
            if (!ok.empty() && rng_.chance(25)) {
                const ParamInfo *p = ok[size_t(rng_.irange(0, int(ok.size()) - 1))];
                ext = p->e;
                ext_text = p->name;
                feature("rdom:param_extent");
            } else {
                int e = rng_.chance(5) ? 0 : rng_.irange(1, max_extent);
                ext = e;
                ext_text = std::to_string(e);
                if (e == 0) feature("rdom:empty");
            }
            region.push_back({Expr(mn), ext});
            text += (d ? ", " : "") + std::to_string(mn) + ", " + ext_text;
        }
        line(text + ", \"" + name + "\");");
        RDom r(region, name);
        static const char *const suffix[] = {".x", ".y", ".z", ".w"};
        for (int d = 0; d < dims; d++) rvars.push_back({Expr(r[d]), name + suffix[d]});
        return r;
    }

    void maybe_where(RDom &r, const std::string &rname, Ctx &c) {
        if (!rng_.chance(30)) return;
        G p = gen(Bool(), c, rng_.irange(1, 2));
        line(rname + ".where(" + p.s + ");");
        r.where(p.e);
        feature("rdom:where");
    }

    /** A term that certainly uses an RVar, so the update uses its RDom. */
    G rvar_term(Type t, Ctx &c) {
        G rv = c.rvars[size_t(rng_.irange(0, int(c.rvars.size()) - 1))];
        int which = rng_.irange(0, 2);
        if (which == 0 && c.func_limit > 0) {
            int j = rng_.irange(0, c.func_limit - 1);
            std::vector<G> args;
            for (int d = 0; d < funcs_[size_t(j)].dims; d++)
                args.push_back(d == 0 ? add_const(rv, rng_.irange(-2, 2)) : coord(c, 1, false));
            return cast_to(t, func_call_with(j, args));
        }
        if (which == 1) return cast_to(t, read_input_with(c, rv));
        return cast_to(t, add_const(rv, rng_.irange(-3, 3)));
    }

    void make_update(int i) {
        FuncInfo &fi = funcs_[size_t(i)];
        const Type t = fi.t;
        Ctx c;
        c.func_limit = i;
        c.self = i;
        c.pure.assign(size_t(fi.dims), true);
        c.lhs.assign(size_t(fi.dims), G{});
        for (int d = 0; d < fi.dims; d++) c.lhs[size_t(d)] = vars_[size_t(d)];
        int kind = rng_.irange(0, 9);
        std::vector<G> lhs;
        G value;
        std::string op = "=";

        auto set_pure_vars = [&] {
            c.index_vars.clear();
            for (int d = 0; d < fi.dims; d++)
                if (c.pure[size_t(d)]) c.index_vars.push_back(vars_[size_t(d)]);
        };

        if (kind <= 2) {
            // A pure update: f(x, y) = f(x, y) op e, or f(x, y) op= e.
            set_pure_vars();
            lhs = c.lhs;
            if (!t.is_bool() && rng_.chance(40)) {
                static const char *const ops[] = {"+=", "-=", "*=", "/="};
                op = ops[rng_.irange(0, 3)];
                value = gen(random_numeric_type(), c, rng_.irange(1, 3));
                feature("update:compound");
            } else {
                value = combine(t, self_call(c), gen(t, c, rng_.irange(1, 3)));
            }
            feature("update:pure");
        } else if (kind <= 4) {
            // An RDom reduction; every dimension pure: f(x) = f(x) + g(x + r).
            set_pure_vars();
            std::string rname;
            RDom r = make_rdom(rng_.irange(1, 2), 4, c.rvars, rname);
            maybe_where(r, rname, c);
            lhs = c.lhs;
            value = combine(t, self_call(c), combine(t, rvar_term(t, c), gen(t, c, rng_.irange(1, 3))));
            feature("update:rdom");
        } else if (kind <= 6) {
            // A scan along one dimension: f(x, r) = f(x, r) op f(x, r - 1) op e.
            int k = rng_.irange(0, fi.dims - 1);
            std::string rname;
            RDom r = make_rdom(1, 12, c.rvars, rname);
            c.pure[size_t(k)] = false;
            c.lhs[size_t(k)] = c.rvars[0];
            set_pure_vars();
            maybe_where(r, rname, c);
            lhs = c.lhs;
            std::vector<G> prev = c.lhs;
            prev[size_t(k)] = add_const(c.rvars[0], -rng_.irange(1, 2));
            value = combine(t, func_call_with(i, lhs), self_call_with(prev));
            if (rng_.chance(60)) value = combine(t, value, gen(t, c, rng_.irange(1, 2)));
            feature("update:scan");
        } else if (kind <= 8) {
            // Reduction dimensions with a computed left-hand side: a histogram-like update.
            std::string rname;
            RDom r = make_rdom(rng_.irange(1, 2), 6, c.rvars, rname);
            int reduce_mask = 0;
            while (reduce_mask == 0)
                for (int d = 0; d < fi.dims; d++)
                    if (rng_.chance(50)) reduce_mask |= 1 << d;
            for (int d = 0; d < fi.dims; d++)
                if (reduce_mask >> d & 1) c.pure[size_t(d)] = false;
            set_pure_vars();
            // Affine RVar coordinates in the reduction dimensions, some replaced by clamped
            // data-dependent values. A pure Var may occur on the left-hand side only as its
            // own bare argument (docs/semantics.md §8 rule 4b), so these use no pure Var and
            // no self-call (whose pure arguments are the Vars).
            Ctx lhs_ctx = c;
            lhs_ctx.index_vars.clear();
            lhs_ctx.self = -1;
            for (int d = 0; d < fi.dims; d++) {
                if (c.pure[size_t(d)]) continue;
                if (!rng_.chance(50)) {
                    c.lhs[size_t(d)] = coord(lhs_ctx, 1, false);
                    continue;
                }
                int lo = rng_.irange(-4, 3), hi = lo + rng_.irange(0, 7);
                G idx = cast_to(Int(32), gen(random_numeric_type(), lhs_ctx, rng_.irange(1, 2)));
                c.lhs[size_t(d)] = {clamp(idx.e, lo, hi), "clamp(" + idx.s + ", " + std::to_string(lo) + ", " +
                                                              std::to_string(hi) + ")"};
                feature("update:data_dependent_lhs");
            }
            maybe_where(r, rname, c);
            lhs = c.lhs;
            G term = rvar_term(t, c);
            if (!t.is_bool() && rng_.chance(40)) {
                op = "+=";
                value = cast_to(random_numeric_type(), term);
            } else {
                value = combine(t, func_call_with(i, lhs), combine(t, term, gen(t, c, rng_.irange(1, 2))));
            }
            feature("update:histogram");
        } else {
            // Constant coordinates in some dimensions, no RDom: f(3, y) = f(3, y) op e.
            int reduce_mask = 0;
            while (reduce_mask == 0)
                for (int d = 0; d < fi.dims; d++)
                    if (rng_.chance(50)) reduce_mask |= 1 << d;
            for (int d = 0; d < fi.dims; d++) {
                if (!(reduce_mask >> d & 1)) continue;
                c.pure[size_t(d)] = false;
                int k = rng_.irange(-4, 8);
                c.lhs[size_t(d)] = {Expr(k), std::to_string(k)};
            }
            set_pure_vars();
            lhs = c.lhs;
            value = combine(t, func_call_with(i, lhs), gen(t, c, rng_.irange(1, 3)));
            feature("update:point");
        }

        std::vector<Expr> args;
        for (const G &g : lhs) args.push_back(g.e);
        line(fi.name + "(" + join(lhs) + ") " + op + " " + value.s + ";");
        FuncRef ref = fi.f(args);
        if (op == "=") ref = value.e;
        else if (op == "+=") ref += value.e;
        else if (op == "-=") ref -= value.e;
        else if (op == "*=") ref *= value.e;
        else ref /= value.e;
    }

    // --- expressions ------------------------------------------------------------------------

    G cast_to(Type t, const G &g) {
        if (g.e.type() == t) return g;
        return {cast(t, g.e), "cast<" + ctype(t) + ">(" + g.s + ")"};
    }

    static G add_const(const G &a, int k) {
        if (k == 0) return a;
        if (k > 0) return {a.e + k, "(" + a.s + " + " + std::to_string(k) + ")"};
        return {a.e - (-k), "(" + a.s + " - " + std::to_string(-k) + ")"};
    }

    /** An int32 coordinate: affine in the Vars and RVars with small offsets, a constant,
     * or (rarely) a clamped data-dependent value. */
    G coord(Ctx &c, int depth, bool allow_data_dependent, bool rvars_only = false) {
        std::vector<G> idx = c.rvars;
        if (!rvars_only) idx.insert(idx.end(), c.index_vars.begin(), c.index_vars.end());
        if (allow_data_dependent && depth > 0 && rng_.chance(6)) {
            int lo = rng_.irange(-5, 3), hi = lo + rng_.irange(0, 8);
            Ctx inner = c;
            if (rvars_only) inner.index_vars.clear();
            G v = cast_to(Int(32), gen(random_numeric_type(), inner, 1));
            feature("index:data_dependent");
            return {clamp(v.e, lo, hi),
                    "clamp(" + v.s + ", " + std::to_string(lo) + ", " + std::to_string(hi) + ")"};
        }
        if (idx.empty() || rng_.chance(8)) {
            int k = rng_.irange(-4, 4);
            return {Expr(k), std::to_string(k)};
        }
        const G v = idx[size_t(rng_.irange(0, int(idx.size()) - 1))];
        int k = rng_.irange(-3, 3);
        switch (rng_.irange(0, 9)) {
        case 0: return {k - v.e, "(" + std::to_string(k) + " - " + v.s + ")"};
        case 1: return add_const({v.e * 2, "(" + v.s + " * 2)"}, k);
        case 2: feature("index:div"); return add_const({v.e / 2, "(" + v.s + " / 2)"}, k);
        case 3: feature("index:mod"); return {v.e % 3, "(" + v.s + " % 3)"};
        case 4: {
            const G w = idx[size_t(rng_.irange(0, int(idx.size()) - 1))];
            return add_const({v.e + w.e, "(" + v.s + " + " + w.s + ")"}, k);
        }
        default: return add_const(v, k);
        }
    }

    G func_call_with(int j, const std::vector<G> &args) {
        std::vector<Expr> a;
        for (const G &g : args) a.push_back(g.e);
        const FuncInfo &f = funcs_[size_t(j)];
        return {Expr(f.f(a)), f.name + "(" + join(args) + ")"};
    }
    G self_call_with(const std::vector<G> &args) { return func_call_with(int(funcs_.size()) - 1, args); }

    G call_func(int j, Ctx &c, int depth) {
        FuncInfo &f = funcs_[size_t(j)];
        std::vector<G> args;
        for (int d = 0; d < f.dims; d++) args.push_back(coord(c, depth, true));
        if (rng_.chance(12)) {
            // Through a boundary condition over a constant region.
            int kind = rng_.irange(0, 4);
            auto it = f.bc.find(kind);
            if (it == f.bc.end()) {
                Region region;
                std::string text = "{";
                for (int d = 0; d < f.dims; d++) {
                    int mn = rng_.irange(-5, 2), ex = rng_.irange(1, 6);
                    region.push_back({Expr(mn), Expr(ex)});
                    text += std::string(d ? ", " : "") + "{" + std::to_string(mn) + ", " + std::to_string(ex) + "}";
                }
                text += "}";
                Func w = boundary(kind, f.f, region);
                std::string name = f.name + "_" + bc_name(kind);
                line("Func " + name + " = BoundaryConditions::" + bc_name(kind) + "(" + f.name +
                     (kind == 1 ? ", " + exterior_text(f.t) : "") + ", " + text + ");");
                it = f.bc.emplace(kind, std::make_pair(w, name)).first;
                feature("bc_func:" + bc_name(kind));
            }
            std::vector<Expr> a;
            for (const G &g : args) a.push_back(g.e);
            return {Expr(it->second.first(a)), it->second.second + "(" + join(args) + ")"};
        }
        return func_call_with(j, args);
    }

    static std::string bc_name(int kind) {
        static const char *const names[] = {"repeat_edge", "constant_exterior", "mirror_image", "mirror_interior",
                                            "repeat_image"};
        return names[kind];
    }
    static Expr exterior_value(Type t) { return t.is_bool() ? make_bool(true) : cast(t, Expr(7)); }
    static std::string exterior_text(Type t) {
        return t.is_bool() ? "make_bool(true)" : "cast<" + ctype(t) + ">(7)";
    }
    template<typename Src>
    static Func boundary(int kind, const Src &src, const Region &region) {
        namespace BC = BoundaryConditions;
        switch (kind) {
        case 0: return BC::repeat_edge(src, region);
        case 1: return BC::constant_exterior(src, exterior_value(src.type()), region);
        case 2: return BC::mirror_image(src, region);
        case 3: return BC::mirror_interior(src, region);
        default: return BC::repeat_image(src, region);
        }
    }
    static Func boundary_of_buffer(int kind, const Buffer<> &b) {
        namespace BC = BoundaryConditions;
        switch (kind) {
        case 0: return BC::repeat_edge(b);
        case 1: return BC::constant_exterior(b, exterior_value(b.type()));
        case 2: return BC::mirror_image(b);
        case 3: return BC::mirror_interior(b);
        default: return BC::repeat_image(b);
        }
    }

    /** A read of an input: through a boundary condition, or with clamped coordinates.
     * With `first`, coordinate 0 is first (plus a small offset). */
    G read_input_with(Ctx &c, const G &first = G{}) {
        Input &in = inputs_[size_t(rng_.irange(0, int(inputs_.size()) - 1))];
        std::vector<G> coords;
        for (int d = 0; d < in.dims; d++)
            coords.push_back(d == 0 && first.e.defined() ? add_const(first, rng_.irange(-2, 2)) : coord(c, 1, true));
        if (rng_.chance(60)) {
            int kind = rng_.irange(0, 4);
            auto it = in.bc.find(kind);
            if (it == in.bc.end()) {
                Func w = boundary_of_buffer(kind, in.buf);
                std::string name = in.name + "_" + bc_name(kind);
                line("Func " + name + " = BoundaryConditions::" + bc_name(kind) + "(" + in.name +
                     (kind == 1 ? ", " + exterior_text(in.buf.type()) : "") + ");");
                it = in.bc.emplace(kind, std::make_pair(w, name)).first;
                feature("bc:" + bc_name(kind));
            }
            std::vector<Expr> a;
            for (const G &g : coords) a.push_back(g.e);
            return {Expr(it->second.first(a)), it->second.second + "(" + join(coords) + ")"};
        }
        std::vector<Expr> a;
        std::vector<G> clamped;
        for (int d = 0; d < in.dims; d++) {
            int lo = in.mins[size_t(d)], hi = lo + in.extents[size_t(d)] - 1;
            clamped.push_back({clamp(coords[size_t(d)].e, lo, hi), "clamp(" + coords[size_t(d)].s + ", " +
                                                                       std::to_string(lo) + ", " +
                                                                       std::to_string(hi) + ")"});
            a.push_back(clamped.back().e);
        }
        feature("input:clamped_read");
        return {in.buf(a), in.name + "(" + join(clamped) + ")"};
    }

    /** A self-call in an update: pure dimensions take their Var; the others take the
     * left-hand side argument or another RVar/constant coordinate. */
    G self_call(Ctx &c) {
        const FuncInfo &f = funcs_[size_t(c.self)];
        std::vector<G> args;
        for (int d = 0; d < f.dims; d++) {
            if (c.pure[size_t(d)] || rng_.chance(50)) args.push_back(c.lhs[size_t(d)]);
            else args.push_back(coord(c, 0, false, /*rvars_only=*/true));
        }
        return func_call_with(c.self, args);
    }

    G constant(Type t) {
        if (t.is_bool()) {
            bool v = rng_.chance(50);
            return {make_bool(v), v ? "make_bool(true)" : "make_bool(false)"};
        }
        if (t.is_float()) {
            static const double vals[] = {0.0, 1.0, -1.0, 0.5, 2.5, -3.75, 100.0, 0.125, -0.0, 1e10, 3e38, -7.0, 1e-30,
                                          std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::quiet_NaN()};
            int n = rng_.chance(90) ? 13 : 15;
            double v = vals[rng_.irange(0, n - 1)];
            if (t.bits == 32) return {Expr(float(v)), "Expr(" + float_text(v, true) + ")"};
            return {Expr(v), "Expr(" + float_text(v, false) + ")"};
        }
        int64_t v;
        if (rng_.chance(80)) {
            v = t.is_uint() ? rng_.range(0, 9) : rng_.range(-9, 9);
        } else {
            int64_t mn = t.min_int();
            int64_t mx = t.is_uint() && t.bits == 64 ? -1 : int64_t(t.max_uint());
            const int64_t picks[] = {mn, mx, int64_t(uint64_t(mn) + 1), int64_t(uint64_t(mx) - 1),
                                     int64_t(uint64_t(1) << (t.bits - 2))};
            v = picks[rng_.irange(0, 4)];
        }
        return typed_int(t, v);
    }

    static G typed_int(Type t, int64_t v) {
        std::string n = t.is_uint() ? std::to_string(uint64_t(v) & (t.bits == 64 ? ~uint64_t(0)
                                                                                   : ((uint64_t(1) << t.bits) - 1)))
                                    : std::to_string(v);
        if (t.is_int() && v == t.min_int()) n = "INT" + std::to_string(t.bits) + "_MIN";
        if (t.is_uint() && t.bits == 64) n += "ull";
        std::string text = "Expr(" + ctype(t) + "(" + n + "))";
        if (t == Int(32)) text = "Expr(" + n + ")";
        switch (t.bits) {
        case 8: return {t.is_int() ? Expr(int8_t(v)) : Expr(uint8_t(v)), text};
        case 16: return {t.is_int() ? Expr(int16_t(v)) : Expr(uint16_t(v)), text};
        case 32: return {t.is_int() ? Expr(int32_t(v)) : Expr(uint32_t(v)), text};
        default: return {t.is_int() ? Expr(int64_t(v)) : Expr(uint64_t(v)), text};
        }
    }

    G leaf(Type t, Ctx &c, int depth) {
        for (;;) {
            int k = rng_.irange(0, 99);
            if (k < 18) return constant(t);
            if (k < 40) {
                std::vector<G> idx = c.index_vars;
                idx.insert(idx.end(), c.rvars.begin(), c.rvars.end());
                if (idx.empty()) continue;
                G v = idx[size_t(rng_.irange(0, int(idx.size()) - 1))];
                if (rng_.chance(30)) v = add_const(v, rng_.irange(-3, 3));
                return cast_to(t, v);
            }
            if (k < 48) {
                if (params_.empty()) continue;
                const ParamInfo &p = params_[size_t(rng_.irange(0, int(params_.size()) - 1))];
                return cast_to(t, G{p.e, p.name});
            }
            if (k < 70) {
                if (c.func_limit == 0) continue;
                return cast_to(t, call_func(rng_.irange(0, c.func_limit - 1), c, depth));
            }
            if (k < 88) return cast_to(t, read_input_with(c));
            if (c.self < 0) continue;
            feature("self_call_in_value");
            return cast_to(t, self_call(c));
        }
    }

    G gen(Type t, Ctx &c, int depth) {
        if (depth <= 0 || rng_.chance(20)) return leaf(t, c, depth);
        if (t.is_bool()) return gen_bool(c, depth);
        if (t.is_float()) return gen_float(t, c, depth);
        return gen_int(t, c, depth);
    }

    static G bin(const char *op, const G &a, const G &b, Expr e) {
        return {std::move(e), "(" + a.s + " " + op + " " + b.s + ")"};
    }
    static G fn(const std::string &name, const std::vector<G> &args, Expr e) {
        return {std::move(e), name + "(" + join(args) + ")"};
    }

    /** a op b for two values of type t, with an operator valid for t. */
    G combine(Type t, const G &a, const G &b) {
        if (t.is_bool()) {
            switch (rng_.irange(0, 3)) {
            case 0: return bin("&&", a, b, a.e && b.e);
            case 1: return bin("||", a, b, a.e || b.e);
            case 2: return bin("!=", a, b, a.e != b.e);
            default: return bin("==", a, b, a.e == b.e);
            }
        }
        switch (rng_.irange(0, t.is_float() ? 4 : 5)) {
        case 0: return bin("+", a, b, a.e + b.e);
        case 1: return bin("-", a, b, a.e - b.e);
        case 2: return bin("*", a, b, a.e * b.e);
        case 3: return fn("min", {a, b}, min(a.e, b.e));
        case 4: return fn("max", {a, b}, max(a.e, b.e));
        default: return bin("^", a, b, a.e ^ b.e);
        }
    }

    /** An arithmetic operator on two values of possibly different (non-bool) types. */
    G arith(const G &a, const G &b) {
        switch (rng_.irange(0, 6)) {
        case 0: return bin("+", a, b, a.e + b.e);
        case 1: return bin("-", a, b, a.e - b.e);
        case 2: return bin("*", a, b, a.e * b.e);
        case 3: feature("op:div"); return bin("/", a, b, a.e / b.e);
        case 4: feature("op:mod"); return bin("%", a, b, a.e % b.e);
        case 5: return fn("min", {a, b}, min(a.e, b.e));
        default: return fn("max", {a, b}, max(a.e, b.e));
        }
    }

    G gen_int(Type t, Ctx &c, int depth) {
        const int d = depth - 1;
        switch (rng_.irange(0, 19)) {
        case 0:
        case 1:
        case 2: return arith(gen(t, c, d), gen(t, c, d));
        case 3: {
            G a = gen(t, c, d);
            int k = t.is_uint() ? rng_.irange(0, 9) : rng_.irange(-9, 9);
            G kt = {Expr(k), std::to_string(k)};
            switch (rng_.irange(0, 4)) {
            case 0: return bin("+", a, kt, a.e + k);
            case 1: return bin("-", a, kt, a.e - k);
            case 2: return bin("*", a, kt, a.e * k);
            case 3: return bin("/", a, kt, a.e / k);
            default: return bin("%", a, kt, a.e % k);
            }
        }
        case 4: {
            G a = gen(t, c, d), b = gen(t, c, d);
            feature("op:bitwise");
            switch (rng_.irange(0, 2)) {
            case 0: return bin("&", a, b, a.e & b.e);
            case 1: return bin("|", a, b, a.e | b.e);
            default: return bin("^", a, b, a.e ^ b.e);
            }
        }
        case 5: {
            G a = gen(t, c, d);
            return {~a.e, "(~" + a.s + ")"};
        }
        case 6: {
            G a = gen(t, c, d);
            feature("op:shift");
            bool left = rng_.chance(50);
            if (rng_.chance(50)) {
                int k = t.is_uint() ? rng_.irange(0, 70) : rng_.irange(-10, 70);
                G kt = {Expr(k), std::to_string(k)};
                return left ? bin("<<", a, kt, a.e << k) : bin(">>", a, kt, a.e >> k);
            }
            G s = gen(random_int_type(), c, d);
            return left ? bin("<<", a, s, a.e << s.e) : bin(">>", a, s, a.e >> s.e);
        }
        case 7: {
            G a = gen(t, c, d);
            return {-a.e, "(-" + a.s + ")"};
        }
        case 8: {
            G cond = gen(Bool(), c, d), a = gen(t, c, d), b = gen(t, c, d);
            return fn("select", {cond, a, b}, select(cond.e, a.e, b.e));
        }
        case 9: {
            G a = gen(t, c, d);
            int lo = t.is_uint() ? rng_.irange(0, 20) : rng_.irange(-9, 9);
            int hi = rng_.chance(10) ? lo - 1 : lo + rng_.irange(0, 20);
            if (t.is_uint() && hi < 0) hi = 0;
            return {clamp(a.e, lo, hi), "clamp(" + a.s + ", " + std::to_string(lo) + ", " + std::to_string(hi) + ")"};
        }
        case 10: {
            Type s = rng_.chance(70) ? Type(TypeCode::Int, random_int_type().bits) : Float(rng_.chance(50) ? 32 : 64);
            G a = gen(s, c, d);
            feature("op:abs");
            return cast_to(t, fn("abs", {a}, abs(a.e)));
        }
        case 11: {
            G a = gen(random_numeric_type(), c, d), b = gen(random_numeric_type(), c, d);
            feature("op:absd");
            return cast_to(t, fn("absd", {a, b}, absd(a.e, b.e)));
        }
        case 12:
        case 13: {
            feature("op:cast");
            return cast_to(t, gen(random_type(true), c, d));
        }
        case 14:
        case 15: {
            feature("op:mixed_types");
            return cast_to(t, arith(gen(random_numeric_type(), c, d), gen(random_numeric_type(), c, d)));
        }
        case 16: {
            // reinterpret between the signed and unsigned types of one width
            Type s = t.is_int() ? UInt(t.bits) : Int(t.bits);
            G a = gen(s, c, d);
            feature("op:reinterpret");
            return {reinterpret(t, a.e), "reinterpret(" + type_text(t) + ", " + a.s + ")"};
        }
        case 17: {
            G a = gen(t, c, d), b = gen(t, c, d);
            return fn(rng_.chance(50) ? "min" : "max", {a, b}, rng_.chance(50) ? min(a.e, b.e) : max(a.e, b.e));
        }
        default: return arith(gen(t, c, d), gen(t, c, d));
        }
    }

    static std::string type_text(Type t) {
        if (t.is_bool()) return "Bool()";
        return std::string(t.is_int() ? "Int(" : t.is_uint() ? "UInt(" : "Float(") + std::to_string(t.bits) + ")";
    }

    G gen_float(Type t, Ctx &c, int depth) {
        const int d = depth - 1;
        switch (rng_.irange(0, 17)) {
        case 0:
        case 1:
        case 2: return arith(gen(t, c, d), gen(t, c, d));
        case 3: {
            G a = gen(t, c, d), k = constant(t);
            return rng_.chance(50) ? bin("*", a, k, a.e * k.e) : bin("+", a, k, a.e + k.e);
        }
        case 4: {
            G a = gen(t, c, d);
            return {-a.e, "(-" + a.s + ")"};
        }
        case 5: {
            G cond = gen(Bool(), c, d), a = gen(t, c, d), b = gen(t, c, d);
            return fn("select", {cond, a, b}, select(cond.e, a.e, b.e));
        }
        case 6:
        case 7:
        case 8: {
            G a = gen(t, c, d);
            feature("op:math");
            switch (rng_.irange(0, 19)) {
            case 0: return fn("sqrt", {a}, sqrt(a.e));
            case 1: return fn("exp", {a}, exp(a.e));
            case 2: return fn("log", {a}, log(a.e));
            case 3: return fn("sin", {a}, sin(a.e));
            case 4: return fn("cos", {a}, cos(a.e));
            case 5: return fn("tan", {a}, tan(a.e));
            case 6: return fn("asin", {a}, asin(a.e));
            case 7: return fn("acos", {a}, acos(a.e));
            case 8: return fn("atan", {a}, atan(a.e));
            case 9: return fn("sinh", {a}, sinh(a.e));
            case 10: return fn("cosh", {a}, cosh(a.e));
            case 11: return fn("tanh", {a}, tanh(a.e));
            case 12: return fn("asinh", {a}, asinh(a.e));
            case 13: return fn("acosh", {a}, acosh(a.e));
            case 14: return fn("atanh", {a}, atanh(a.e));
            case 15: return fn("floor", {a}, floor(a.e));
            case 16: return fn("ceil", {a}, ceil(a.e));
            case 17: return fn("round", {a}, round(a.e));
            case 18: return fn("trunc", {a}, trunc(a.e));
            default: return fn("fract", {a}, fract(a.e));
            }
        }
        case 9: {
            G a = gen(t, c, d), b = gen(t, c, d);
            feature("op:math2");
            switch (rng_.irange(0, 3)) {
            case 0: return fn("pow", {a, b}, pow(a.e, b.e));
            case 1: return fn("atan2", {a, b}, atan2(a.e, b.e));
            case 2: return fn("absd", {a, b}, absd(a.e, b.e));
            default: return fn("abs", {a}, abs(a.e));
            }
        }
        case 10: {
            G a = gen(t, c, d), b = gen(t, c, d), w = gen(t, c, d);
            return fn("lerp", {a, b, w}, lerp(a.e, b.e, w.e));
        }
        case 11:
        case 12: {
            feature("op:cast");
            return cast_to(t, gen(random_type(true), c, d));
        }
        case 13: {
            feature("op:mixed_types");
            return cast_to(t, arith(gen(random_numeric_type(), c, d), gen(random_numeric_type(), c, d)));
        }
        case 14: {
            // math on an integer argument (converted to float32 first)
            G a = gen(random_int_type(), c, d);
            feature("op:math_of_int");
            return cast_to(t, rng_.chance(50) ? fn("sqrt", {a}, sqrt(a.e)) : fn("sin", {a}, sin(a.e)));
        }
        case 15: {
            G a = gen(rng_.chance(50) ? Int(t.bits) : UInt(t.bits), c, d);
            feature("op:reinterpret");
            return {reinterpret(t, a.e), "reinterpret(" + type_text(t) + ", " + a.s + ")"};
        }
        case 16: {
            G a = gen(t, c, d), lo = constant(t), hi = constant(t);
            return fn("clamp", {a, lo, hi}, clamp(a.e, lo.e, hi.e));
        }
        default: {
            G a = gen(t, c, d), b = gen(t, c, d);
            return fn(rng_.chance(50) ? "min" : "max", {a, b}, rng_.chance(50) ? min(a.e, b.e) : max(a.e, b.e));
        }
        }
    }

    G compare(const G &a, const G &b) {
        switch (rng_.irange(0, 5)) {
        case 0: return bin("==", a, b, a.e == b.e);
        case 1: return bin("!=", a, b, a.e != b.e);
        case 2: return bin("<", a, b, a.e < b.e);
        case 3: return bin("<=", a, b, a.e <= b.e);
        case 4: return bin(">", a, b, a.e > b.e);
        default: return bin(">=", a, b, a.e >= b.e);
        }
    }

    G gen_bool(Ctx &c, int depth) {
        const int d = depth - 1;
        switch (rng_.irange(0, 11)) {
        case 0:
        case 1:
        case 2: {
            Type s = random_numeric_type();
            return compare(gen(s, c, d), gen(s, c, d));
        }
        case 3: {
            Type s = random_numeric_type();
            return compare(gen(s, c, d), constant(s));
        }
        case 4: {
            G a = gen(Bool(), c, d), b = gen(Bool(), c, d);
            return rng_.chance(50) ? bin("&&", a, b, a.e && b.e) : bin("||", a, b, a.e || b.e);
        }
        case 5: {
            G a = gen(Bool(), c, d);
            return {!a.e, "(!" + a.s + ")"};
        }
        case 6: {
            G a = gen(Float(rng_.chance(50) ? 32 : 64), c, d);
            feature("op:is_nan");
            switch (rng_.irange(0, 2)) {
            case 0: return fn("is_nan", {a}, is_nan(a.e));
            case 1: return fn("is_inf", {a}, is_inf(a.e));
            default: return fn("is_finite", {a}, is_finite(a.e));
            }
        }
        case 7: {
            feature("op:cast_to_bool");
            return cast_to(Bool(), gen(random_numeric_type(), c, d));
        }
        case 8: {
            G cond = gen(Bool(), c, d), a = gen(Bool(), c, d), b = gen(Bool(), c, d);
            return fn("select", {cond, a, b}, select(cond.e, a.e, b.e));
        }
        case 9: {
            G a = gen(Bool(), c, d), b = gen(Bool(), c, d);
            switch (rng_.irange(0, 4)) {
            case 0: return bin("&", a, b, a.e & b.e);
            case 1: return bin("|", a, b, a.e | b.e);
            case 2: return bin("^", a, b, a.e ^ b.e);
            case 3: return bin("==", a, b, a.e == b.e);
            default: return fn("min", {a, b}, min(a.e, b.e));
            }
        }
        default: {
            feature("op:mixed_compare");
            return compare(gen(random_numeric_type(), c, d), gen(random_numeric_type(), c, d));
        }
        }
    }

    Rng rng_;
    RandomPipelineOptions opts_;
    RandomPipeline result_;
    std::ostringstream text_;
    std::vector<G> vars_;
    std::vector<Input> inputs_;
    std::vector<ParamInfo> params_;
    std::vector<FuncInfo> funcs_;
    int rdom_count_ = 0;
};

}  // namespace random_detail

/** The random pipeline of a seed (the same program for the same seed and options). */
inline RandomPipeline random_pipeline(uint64_t seed, const RandomPipelineOptions &opts = {}) {
    return random_detail::Builder(seed, opts).build();
}

}  // namespace tessera::testing
