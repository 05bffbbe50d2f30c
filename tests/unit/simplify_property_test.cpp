// Property test of the simplifier: random expressions over every integer type and both
// float types, evaluated before and after simplification on random inputs, must give
// bit-identical results (ir::identical). A second property does the same for
// statements (loops with constant bounds, ifs, lets, asserts and stores), comparing the
// sequence of stores, which exercises the rules that need loop-variable bounds.
//
// The evaluator below is deliberately tiny and independent of the simplifier: every
// operator goes through ir::binary / cast / intrinsic.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "analysis/Simplify.h"
#include "ir/IR.h"
#include "support/hand_lowered.h"
#include "ir/IRPrinter.h"
#include "ir/Scalar.h"

using namespace tessera;
using namespace tessera::ir;
using ir::Scalar;

namespace {

// Longer runs: TESSERA_PROPERTY_SCALE=N multiplies the number of cases and
// TESSERA_PROPERTY_SEED=S changes the random seeds, e.g.
//   TESSERA_PROPERTY_SCALE=50 TESSERA_PROPERTY_SEED=7 tessera_tests --gtest_filter='SimplifyProperty.*'
int property_scale() {
    const char *s = std::getenv("TESSERA_PROPERTY_SCALE");
    return s ? std::max(1, std::atoi(s)) : 1;
}
uint64_t property_seed(uint64_t base) {
    const char *s = std::getenv("TESSERA_PROPERTY_SEED");
    return s ? base ^ (uint64_t(std::strtoull(s, nullptr, 10)) * 0x9e3779b97f4a7c15ull) : base;
}

// =======================================================================================
// Evaluator

struct Env {
    // name -> value per lane (one entry for a scalar)
    std::vector<std::pair<std::string, std::vector<Scalar>>> vars;

    const std::vector<Scalar> *find(const std::string &n) const {
        for (auto it = vars.rbegin(); it != vars.rend(); ++it)
            if (it->first == n) return &it->second;
        return nullptr;
    }
};

struct EvalError {
    std::string what;
};

Scalar eval(const Expr &e, Env &env, int lane);

Scalar eval_binary(ExprKind k, const Expr &a, const Expr &b, Env &env, int lane) {
    Scalar x = eval(a, env, lane), y = eval(b, env, lane);
    return ir::binary(k, a.type().element_of(), x, y);
}

Scalar eval(const Expr &e, Env &env, int lane) {
    switch (e->kind) {
    case ExprKind::IntImm: return ir::make_int(as<IntImm>(e)->value);
    case ExprKind::UIntImm: return ir::make_uint(as<UIntImm>(e)->value);
    case ExprKind::FloatImm: return ir::make_float(as<FloatImm>(e)->value);
    case ExprKind::Variable: {
        const auto *v = as<Variable>(e);
        const auto *val = env.find(v->name);
        if (!val) throw EvalError{"unbound variable " + v->name};
        return val->size() == 1 ? (*val)[0] : (*val)[lane];
    }
    case ExprKind::Cast: {
        const auto *c = as<Cast>(e);
        return ir::cast(c->type.element_of(), c->value.type().element_of(), eval(c->value, env, lane));
    }
#define EVAL_BIN(N) \
    case ExprKind::N: return eval_binary(ExprKind::N, as<N>(e)->a, as<N>(e)->b, env, lane);
        EVAL_BIN(Add)
        EVAL_BIN(Sub)
        EVAL_BIN(Mul)
        EVAL_BIN(Div)
        EVAL_BIN(Mod)
        EVAL_BIN(Min)
        EVAL_BIN(Max)
        EVAL_BIN(EQ)
        EVAL_BIN(NE)
        EVAL_BIN(LT)
        EVAL_BIN(LE)
        EVAL_BIN(GT)
        EVAL_BIN(GE)
        EVAL_BIN(And)
        EVAL_BIN(Or)
#undef EVAL_BIN
    case ExprKind::Not: return ir::make_uint(eval(as<Not>(e)->a, env, lane).u ? 0 : 1);
    case ExprKind::Select: {
        const auto *s = as<Select>(e);
        // All operands are evaluated.
        Scalar c = eval(s->condition, env, lane);
        Scalar a = eval(s->true_value, env, lane), b = eval(s->false_value, env, lane);
        return c.u ? a : b;
    }
    case ExprKind::Call: {
        const auto *c = as<Call>(e);
        if (c->call_kind != CallKind::Intrinsic) throw EvalError{"call"};
        std::vector<Type> types;
        std::vector<Scalar> vals;
        for (const Expr &a : c->args) {
            types.push_back(a.type().element_of());
            vals.push_back(eval(a, env, lane));
        }
        return ir::normalize(c->type.element_of(),
                                    ir::intrinsic(c->op, c->type.element_of(), types.data(), vals.data(),
                                                         int(vals.size())));
    }
    case ExprKind::Let: {
        const auto *l = as<Let>(e);
        std::vector<Scalar> v;
        int lanes = l->value.type().lanes;
        for (int i = 0; i < lanes; i++) v.push_back(eval(l->value, env, i));
        env.vars.emplace_back(l->name, std::move(v));
        Scalar r = eval(l->body, env, lane);
        env.vars.pop_back();
        return r;
    }
    case ExprKind::Ramp: {
        const auto *r = as<Ramp>(e);
        Type t = r->base.type();
        Scalar base = eval(r->base, env, 0), stride = eval(r->stride, env, 0);
        Scalar i = t.is_int() ? ir::make_int(lane) : ir::make_uint(uint64_t(lane));
        return ir::binary(ExprKind::Add, t, base, ir::binary(ExprKind::Mul, t, stride, i));
    }
    case ExprKind::Broadcast: return eval(as<Broadcast>(e)->value, env, 0);
    default: throw EvalError{"unsupported node"};
    }
}

// =======================================================================================
// Random expressions

const std::vector<Type> kNumericTypes = {Int(8),   Int(16),  Int(32),  Int(64),   UInt(8),
                                         UInt(16), UInt(32), UInt(64), Float(32), Float(64)};

std::string var_name(char base, Type t) { return std::string(1, base) + "_" + t.to_string(); }

class Gen {
public:
    explicit Gen(uint64_t seed) : rng_(seed) {}
    std::mt19937_64 rng_;

    int pick(int n) { return int(rng_() % uint64_t(n)); }
    bool chance(int percent) { return pick(100) < percent; }

    /** An interesting value of type t: edge values, powers of two, small and random. */
    Scalar value(Type t) {
        t = t.element_of();
        if (t.is_bool()) return ir::make_uint(rng_() & 1);
        if (t.is_float()) {
            static const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -7.5, 1e10,
                                              std::numeric_limits<double>::infinity(),
                                              -std::numeric_limits<double>::infinity(),
                                              std::numeric_limits<double>::quiet_NaN(),
                                              std::numeric_limits<float>::max(),
                                              std::numeric_limits<float>::denorm_min(), 1e300};
            double v;
            switch (pick(4)) {
            case 0: v = specials[pick(sizeof(specials) / sizeof(specials[0]))]; break;
            case 1: v = double(pick(41) - 20); break;
            case 2: v = std::ldexp(double(int64_t(rng_() >> 11)) / double(1ull << 52) - 0.5, pick(40) - 20); break;
            default: v = double(pick(2001) - 1000) / 8.0; break;
            }
            return ir::normalize(t, ir::make_float(v));
        }
        int64_t v;
        int64_t mn = t.min_int(), mx = t.max_int();
        switch (pick(10)) {
        case 0: v = 0; break;
        case 1: v = 1; break;
        case 2: v = -1; break;
        case 3: v = mn; break;
        case 4: v = t.is_uint() && t.bits == 64 ? -1 : mx; break;
        case 5: v = (pick(2) ? mn + 1 : mx - 1); break;
        case 6: v = int64_t(uint64_t(1) << pick(t.bits)) * (pick(2) ? 1 : -1); break;
        case 7: v = int64_t(rng_()); break;
        default: v = pick(33) - 16; break;
        }
        if (t.is_int()) return ir::make_int(ir::wrap_int(t.bits, v));
        return ir::make_uint(ir::wrap_uint(t.bits, uint64_t(v)));
    }

    Expr constant(Type t) {
        Type et = t.element_of();
        Scalar v = value(et);
        Expr c;
        if (et.is_int()) c = IntImm::make(et, v.i);
        else if (et.is_uint() || et.is_bool()) c = UIntImm::make(et, v.u);
        else c = FloatImm::make(et, v.f);
        if (t.is_vector()) c = Broadcast::make(c, t.lanes);
        return c;
    }

    Expr small_const(Type t) {
        static const int64_t ks[] = {1, 2, 3, 4, 7, 8, 16, -1, -2, -4, -8, 0, 5, 64, 256};
        int64_t k = ks[pick(sizeof(ks) / sizeof(ks[0]))];
        Type et = t.element_of();
        Expr c;
        if (et.is_int()) c = IntImm::make(et, k);
        else if (et.is_uint()) c = UIntImm::make(et, uint64_t(k));
        else c = FloatImm::make(et, double(k));
        if (t.is_vector()) c = Broadcast::make(c, t.lanes);
        return c;
    }

    /** Free variables of scalar type t that are in scope (plus let-bound ones). */
    Expr variable(Type t) {
        std::vector<std::string> names;
        for (const auto &[n, ty] : lets_)
            if (ty == t) names.push_back(n);
        if (t.is_scalar()) {
            for (char c : {'x', 'y', 'z'}) names.push_back(var_name(c, t));
        }
        if (names.empty()) return Expr();
        return Variable::make(t, names[pick(int(names.size()))]);
    }

    Expr leaf(Type t) {
        if (t.is_bool() && t.is_scalar() && chance(50)) return Variable::make(t, var_name(pick(2) ? 'p' : 'q', t));
        if (chance(55)) {
            Expr v = variable(t);
            if (v.defined()) return v;
            if (t.is_vector()) {
                Type et = t.element_of();
                if (et.is_integer() && chance(60)) return Ramp::make(leaf(et), leaf(et), t.lanes);
                return Broadcast::make(leaf(et), t.lanes);
            }
        }
        return constant(t);
    }

    Type random_numeric(int lanes) { return kNumericTypes[pick(int(kNumericTypes.size()))].with_lanes(lanes); }

    Expr gen(Type t, int depth) {
        if (depth <= 0 || chance(15)) return leaf(t);
        // Reuse an earlier subexpression: makes x - x, min(e, e), e == e, ... likely.
        if (chance(12)) {
            std::vector<Expr> cands;
            for (const auto &level : pools_)
                for (const Expr &e : level)
                    if (e.type() == t) cands.push_back(e);
            if (!cands.empty()) return cands[pick(int(cands.size()))];
        }
        Expr r = t.element_of().is_bool() ? gen_bool(t, depth) : gen_numeric(t, depth);
        pools_.back().push_back(r);  // (not a reference taken earlier: lets push levels)
        return r;
    }

    Expr gen_bool(Type t, int depth) {
        int lanes = t.lanes;
        switch (pick(10)) {
        case 0:
        case 1:
        case 2: {
            Type s = random_numeric(lanes);
            Expr a = gen(s, depth - 1), b = chance(40) ? small_const(s) : gen(s, depth - 1);
            switch (pick(6)) {
            case 0: return EQ::make(a, b);
            case 1: return NE::make(a, b);
            case 2: return LT::make(a, b);
            case 3: return LE::make(a, b);
            case 4: return GT::make(a, b);
            default: return GE::make(a, b);
            }
        }
        case 3: return And::make(gen(t, depth - 1), gen(t, depth - 1));
        case 4: return Or::make(gen(t, depth - 1), gen(t, depth - 1));
        case 5: return Not::make(gen(t, depth - 1));
        case 6: return Select::make(gen(Bool(), depth - 1), gen(t, depth - 1), gen(t, depth - 1));
        case 7: {
            Expr a = gen(t, depth - 1), b = gen(t, depth - 1);
            switch (pick(4)) {
            case 0: return Min::make(a, b);
            case 1: return Max::make(a, b);
            case 2: return EQ::make(a, b);
            default: return LT::make(a, b);
            }
        }
        case 8: return Cast::make(t, gen(random_numeric(lanes), depth - 1));
        default: return let(t, depth);
        }
    }

    Expr let(Type t, int depth) {
        Type vt = chance(80) ? random_numeric(1) : Bool();
        Expr value = gen(vt, depth - 1);
        std::string name;
        if (chance(15)) {
            Expr v = variable(vt);  // shadow an existing name of the same type
            name = v.defined() ? as<Variable>(v)->name : "t" + std::to_string(counter_++);
        } else {
            name = "t" + std::to_string(counter_++);
        }
        lets_.emplace_back(name, vt);
        pools_.emplace_back();
        Expr body = gen(t, depth - 1);
        pools_.pop_back();
        lets_.pop_back();
        return Let::make(name, value, body);
    }

    Expr gen_numeric(Type t, int depth) {
        Type et = t.element_of();
        int lanes = t.lanes;
        bool is_int = et.is_integer();
        auto sub = [&] { return gen(t, depth - 1); };
        int r = pick(100);
        if (r < 40) {
            Expr a = sub(), b = chance(35) ? small_const(t) : sub();
            switch (pick(7)) {
            case 0: return Add::make(a, b);
            case 1: return Sub::make(a, b);
            case 2: return Mul::make(a, b);
            case 3: return Div::make(a, b);
            case 4: return Mod::make(a, b);
            case 5: return Min::make(a, b);
            default: return Max::make(a, b);
            }
        }
        if (r < 55 && is_int) {
            // Shapes that the rules look for.
            Expr x = sub(), y = sub(), c1 = small_const(t), c2 = small_const(t);
            switch (pick(12)) {
            case 0: return Add::make(Add::make(x, c1), c2);
            case 1: return Sub::make(Add::make(x, c1), Add::make(x, c2));
            case 2: return Div::make(Mul::make(x, c1), c1);
            case 3: return Div::make(Add::make(Mul::make(x, c1), y), c2);
            case 4: return Mod::make(Add::make(Mul::make(x, c1), y), c2);
            case 5: return Min::make(Add::make(x, c1), Add::make(x, c2));
            case 6: return Max::make(x, Add::make(x, c1));
            case 7: return Select::make(LT::make(Add::make(x, c1), x), x, y);
            case 8: return Mod::make(Mod::make(x, c1), c2);
            case 9: return Div::make(Div::make(x, c1), c2);
            case 10: return Add::make(Mul::make(x, c1), Mul::make(x, c2));
            default: return Sub::make(x, Add::make(y, x));
            }
        }
        if (r < 65) return Select::make(gen(chance(70) ? Bool() : Bool(lanes), depth - 1), sub(), sub());
        if (r < 78) {
            Type s = random_numeric(lanes);
            if (chance(40)) {
                // A chain of casts through a third type.
                Type u = random_numeric(lanes);
                return Cast::make(t, Cast::make(u, gen(s, depth - 1)));
            }
            return Cast::make(t, gen(s, depth - 1));
        }
        if (r < 86) return let(t, depth);
        // Intrinsics.
        if (is_int) {
            switch (pick(6)) {
            case 0: return Call::make_intrinsic(t, Intrinsic::BitAnd, {sub(), chance(50) ? small_const(t) : sub()});
            case 1: return Call::make_intrinsic(t, Intrinsic::BitOr, {sub(), sub()});
            case 2: return Call::make_intrinsic(t, Intrinsic::BitXor, {sub(), sub()});
            case 3: {
                Type st = random_numeric(lanes);
                if (!st.element_of().is_integer()) st = Int(32, lanes);
                return Call::make_intrinsic(t, pick(2) ? Intrinsic::ShiftLeft : Intrinsic::ShiftRight,
                                            {sub(), chance(50) ? small_const(st) : gen(st, depth - 1)});
            }
            case 4:
                if (et.is_uint()) return Call::make_intrinsic(t, Intrinsic::Abs, {gen(Int(et.bits, lanes), depth - 1)});
                return Call::make_intrinsic(t, Intrinsic::BitNot, {sub()});
            default:
                if (et.is_uint())
                    return Call::make_intrinsic(t, Intrinsic::Absd, {gen(Int(et.bits, lanes), depth - 1),
                                                                     gen(Int(et.bits, lanes), depth - 1)});
                return Call::make_intrinsic(t, Intrinsic::BitNot, {sub()});
            }
        }
        static const Intrinsic fops[] = {Intrinsic::Floor, Intrinsic::Ceil, Intrinsic::Round, Intrinsic::Trunc,
                                         Intrinsic::Sqrt,  Intrinsic::Sin,  Intrinsic::Exp};
        return Call::make_intrinsic(t, fops[pick(7)], {sub()});
    }

    void reset() {
        pools_.assign(1, {});
        lets_.clear();
    }

    /** Give every free variable a random value. */
    void bind_inputs(Env &env) {
        env.vars.clear();
        for (Type t : kNumericTypes)
            for (char c : {'x', 'y', 'z'}) env.vars.emplace_back(var_name(c, t), std::vector<Scalar>{value(t)});
        for (char c : {'p', 'q', 'x', 'y', 'z'})
            env.vars.emplace_back(var_name(c, Bool()), std::vector<Scalar>{value(Bool())});
    }

    std::vector<std::pair<std::string, Type>> lets_;
    std::vector<std::vector<Expr>> pools_{1};
    int counter_ = 0;
};

std::string show(Type t, Scalar v) {
    t = t.element_of();
    if (t.is_float()) return std::to_string(v.f);
    if (t.is_int()) return std::to_string(v.i);
    return std::to_string(v.u);
}

std::string describe_env(const Env &env) {
    std::string s;
    for (const auto &[n, v] : env.vars) {
        s += n + "=";
        s += std::to_string(v[0].i) + "/" + std::to_string(v[0].f) + " ";
    }
    return s;
}

// =======================================================================================

TEST(SimplifyProperty, RandomExpressionsKeepTheirValues) {
    Gen g(property_seed(0x5eed5151u));
    Env env;
    const int kExprs = 40000 * property_scale(), kInputs = 5;
    int64_t cases = 0, changed = 0, failures = 0;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kExprs && failures < 5; i++) {
        g.reset();
        Type t;
        int k = g.pick(20);
        if (k < 2) t = Bool();
        else if (k < 4) t = Int(32, 4);
        else if (k < 5) t = UInt(8, 4);
        else t = kNumericTypes[g.pick(int(kNumericTypes.size()))];
        Expr e = g.gen(t, 1 + g.pick(5));
        Expr s = analysis::simplify(e);
        ASSERT_EQ(s.type(), e.type()) << e;
        if (!s.same_as(e)) changed++;
        for (int j = 0; j < kInputs; j++) {
            g.bind_inputs(env);
            for (int lane = 0; lane < t.lanes; lane++) {
                Scalar a, b;
                try {
                    a = eval(e, env, lane);
                    b = eval(s, env, lane);
                } catch (const EvalError &err) {
                    FAIL() << err.what << " in " << e << "\nsimplified: " << s;
                }
                cases++;
                if (!ir::identical(t.element_of(), a, b)) {
                    failures++;
                    ADD_FAILURE() << "expression: " << e << "\nsimplified: " << s << "\nlane " << lane
                                  << ": " << show(t, a) << " vs " << show(t, b) << "\ninputs: " << describe_env(env);
                    break;
                }
            }
        }
        // Simplifying twice changes nothing that matters (and must not throw).
        Expr s2 = analysis::simplify(s);
        ASSERT_EQ(s2.type(), e.type());
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_GE(cases, 100000);
    EXPECT_GT(changed, kExprs / 4) << "the generator rarely produces simplifiable expressions";
    std::printf("[ simplify property ] %lld cases, %lld of %d expressions changed, %.2f s\n", (long long)cases,
                (long long)changed, kExprs, secs);
}

// =======================================================================================
// Statements: a tiny interpreter recording the stores.

struct StoreEvent {
    std::string buffer;
    int64_t index;
    Type type;
    Scalar value;
    std::vector<Scalar> provenance;  // values of the annotation's coordinates
};

struct Trace {
    std::vector<StoreEvent> stores;
    bool failed_assert = false;
};

void run(const Stmt &s, Env &env, Trace &trace) {
    if (!s.defined() || trace.failed_assert) return;
    switch (s->kind) {
    case StmtKind::LetStmt: {
        const auto *l = as<LetStmt>(s);
        env.vars.emplace_back(l->name, std::vector<Scalar>{eval(l->value, env, 0)});
        run(l->body, env, trace);
        env.vars.pop_back();
        return;
    }
    case StmtKind::AssertStmt:
        if (!eval(as<AssertStmt>(s)->condition, env, 0).u) trace.failed_assert = true;
        return;
    case StmtKind::For: {
        const auto *f = as<For>(s);
        Type t = f->min.type();
        int64_t mn = ir::as_int64(t, eval(f->min, env, 0));
        int64_t ex = ir::as_int64(t, eval(f->extent, env, 0));
        for (int64_t i = mn; i < mn + ex && !trace.failed_assert; i++) {
            env.vars.emplace_back(f->name, std::vector<Scalar>{ir::make_int(ir::wrap_int(t.bits, i))});
            run(f->body, env, trace);
            env.vars.pop_back();
        }
        return;
    }
    case StmtKind::Store: {
        const auto *st = as<Store>(s);
        Scalar v = eval(st->value, env, 0);
        Scalar i = eval(st->index, env, 0);
        std::vector<Scalar> prov;
        if (st->provenance)
            for (const Expr &c : st->provenance->coords) prov.push_back(eval(c, env, 0));
        trace.stores.push_back({st->buffer, ir::as_int64(st->index.type(), i), st->value.type(), v, prov});
        return;
    }
    case StmtKind::Block:
        run(as<Block>(s)->first, env, trace);
        run(as<Block>(s)->rest, env, trace);
        return;
    case StmtKind::IfThenElse: {
        const auto *i = as<IfThenElse>(s);
        if (eval(i->condition, env, 0).u) run(i->then_case, env, trace);
        else run(i->else_case, env, trace);
        return;
    }
    case StmtKind::Evaluate: eval(as<Evaluate>(s)->value, env, 0); return;
    default: throw EvalError{"unsupported statement"};
    }
}

class StmtGen {
public:
    explicit StmtGen(Gen &g) : g_(g) {}

    Stmt gen(int depth) {
        int r = g_.pick(100);
        if (depth <= 0 || r < 25) return store();
        if (r < 50) {
            // A loop over the int32 variable x or y, shadowing the free variable.
            Type t = Int(32);
            std::string name = var_name(g_.pick(2) ? 'x' : 'y', t);
            int64_t mn;
            switch (g_.pick(4)) {
            case 0: mn = INT32_MAX - g_.pick(6); break;
            case 1: mn = INT32_MIN + g_.pick(3); break;
            default: mn = g_.pick(21) - 10; break;
            }
            Expr extent = IntImm::make(t, g_.pick(6));
            Stmt body = gen(depth - 1);
            return For::make(name, IntImm::make(t, mn), extent, ForType::Serial, body);
        }
        if (r < 65) {
            Type t = Int(32);
            Expr x = Variable::make(t, var_name(g_.pick(2) ? 'x' : 'y', t));
            Expr k = IntImm::make(t, g_.pick(21) - 10);
            Expr c;
            switch (g_.pick(4)) {
            case 0: c = LT::make(x, k); break;
            case 1: c = GE::make(x, k); break;
            case 2: c = g_.gen(Bool(), 2); break;
            default: c = EQ::make(x, k); break;
            }
            return IfThenElse::make(c, gen(depth - 1), g_.chance(50) ? gen(depth - 1) : Stmt());
        }
        if (r < 80) {
            Type vt = g_.chance(70) ? Int(32) : g_.random_numeric(1);
            Expr value = g_.chance(30) ? g_.constant(vt) : g_.gen(vt, 2);
            std::string name = g_.chance(30) ? var_name('z', vt) : "s" + std::to_string(g_.counter_++);
            g_.lets_.emplace_back(name, vt);
            g_.pools_.emplace_back();
            Stmt body = gen(depth - 1);
            g_.pools_.pop_back();
            g_.lets_.pop_back();
            return LetStmt::make(name, value, body);
        }
        if (r < 85) return AssertStmt::make(g_.gen(Bool(), 2), {StringImm::make("failed")});
        return Block::make(gen(depth - 1), gen(depth - 1));
    }

    Stmt store() {
        Type t = g_.chance(60) ? Int(32) : g_.random_numeric(1);
        Expr v = g_.gen(t, 1 + g_.pick(4));
        Expr idx = Cast::make(Int(64), g_.gen(Int(32), 2));
        auto prov = std::make_shared<Provenance>();
        prov->func = tessera::test::named_func("f");
        prov->coords = {g_.gen(Int(32), 2)};
        return Store::make(g_.pick(2) ? "a" : "b", v, idx, prov);
    }

private:
    Gen &g_;
};

TEST(SimplifyProperty, RandomStatementsKeepTheirStores) {
    Gen g(property_seed(0xabcdef12u));
    StmtGen sg(g);
    Env env;
    const int kStmts = 4000 * property_scale(), kInputs = 3;
    int64_t stores = 0;
    int failures = 0;
    for (int i = 0; i < kStmts && failures < 3; i++) {
        g.reset();
        Stmt s = sg.gen(4);
        Stmt t = analysis::simplify(s);
        ASSERT_TRUE(t.defined());
        for (int j = 0; j < kInputs; j++) {
            g.bind_inputs(env);
            Trace a, b;
            try {
                run(s, env, a);
                run(t, env, b);
            } catch (const EvalError &err) {
                FAIL() << err.what << " in\n" << s << "simplified:\n" << t;
            }
            stores += int64_t(a.stores.size());
            bool same = a.failed_assert == b.failed_assert && a.stores.size() == b.stores.size();
            for (size_t k = 0; same && k < a.stores.size(); k++) {
                const StoreEvent &x = a.stores[k], &y = b.stores[k];
                same = x.buffer == y.buffer && x.index == y.index && x.type == y.type &&
                       ir::identical(x.type, x.value, y.value) && x.provenance.size() == y.provenance.size();
                for (size_t c = 0; same && c < x.provenance.size(); c++)
                    same = x.provenance[c].i == y.provenance[c].i;
            }
            if (!same) {
                failures++;
                ADD_FAILURE() << "statement:\n" << s << "simplified:\n" << t << "inputs: " << describe_env(env);
                break;
            }
        }
    }
    EXPECT_GT(stores, 10000);
}

}  // namespace
