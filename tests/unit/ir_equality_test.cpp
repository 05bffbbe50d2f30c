// Structural equality, hashing and the total order on IR trees.

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/IR.h"
#include "support/hand_lowered.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"

using namespace tessera;
using tessera::ir::Stmt;

namespace {

Expr var(const std::string &name, Type t = Int(32)) { return ir::Variable::make(t, name); }
Expr i32(int64_t v) { return ir::IntImm::make(Int(32), v); }
Expr f32(double v) { return ir::FloatImm::make(Float(32), v); }
Expr add(Expr a, Expr b) { return ir::Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return ir::Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return ir::Mul::make(std::move(a), std::move(b)); }
Expr lt(Expr a, Expr b) { return ir::LT::make(std::move(a), std::move(b)); }

int sign(int c) { return (c > 0) - (c < 0); }

// Equal in every respect: equal, compare 0 both ways, same hash.
void expect_same(const Expr &a, const Expr &b) {
    EXPECT_TRUE(ir::equal(a, b)) << a << "  vs  " << b;
    EXPECT_TRUE(ir::equal(b, a)) << b << "  vs  " << a;
    EXPECT_EQ(ir::compare(a, b), 0) << a << "  vs  " << b;
    EXPECT_EQ(ir::compare(b, a), 0) << b << "  vs  " << a;
    EXPECT_EQ(ir::hash(a), ir::hash(b)) << a;
}

// Different: not equal either way, and the order is strict and antisymmetric.
void expect_different(const Expr &a, const Expr &b) {
    EXPECT_FALSE(ir::equal(a, b)) << a << "  vs  " << b;
    EXPECT_FALSE(ir::equal(b, a)) << b << "  vs  " << a;
    int ab = ir::compare(a, b), ba = ir::compare(b, a);
    EXPECT_NE(ab, 0) << a << "  vs  " << b;
    EXPECT_EQ(sign(ab), -sign(ba)) << a << "  vs  " << b;
}

void expect_same(const Stmt &a, const Stmt &b) {
    EXPECT_TRUE(ir::equal(a, b)) << a << "vs\n" << b;
    EXPECT_EQ(ir::compare(a, b), 0) << a << "vs\n" << b;
    EXPECT_EQ(ir::compare(b, a), 0) << a << "vs\n" << b;
    EXPECT_EQ(ir::hash(a), ir::hash(b)) << a;
}

void expect_different(const Stmt &a, const Stmt &b) {
    EXPECT_FALSE(ir::equal(a, b)) << a << "vs\n" << b;
    EXPECT_FALSE(ir::equal(b, a)) << a << "vs\n" << b;
    int ab = ir::compare(a, b), ba = ir::compare(b, a);
    EXPECT_NE(ab, 0) << a << "vs\n" << b;
    EXPECT_EQ(sign(ab), -sign(ba)) << a << "vs\n" << b;
}

// A moderately rich expression, rebuilt from scratch on each call.
Expr sample(const std::string &x = "x", int c = 3) {
    Expr vx = var(x), vy = var("y");
    Expr idx = add(mul(vy, i32(16)), vx);
    Expr load = ir::Load::make(Float(32), "in", idx);
    Expr sq = ir::Call::make_intrinsic(Float(32), ir::Intrinsic::Sqrt, {load});
    Expr sel = ir::Select::make(lt(vx, i32(c)), sq, f32(0.5));
    return ir::Let::make("t", ir::Cast::make(Float(32), vy), ir::Max::make(sel, var("t", Float(32))));
}

TEST(IREquality, SeparatelyBuiltTreesAreEqual) {
    Expr a = sample(), b = sample();
    ASSERT_FALSE(a.same_as(b));
    expect_same(a, b);
    expect_same(a, a);
    expect_same(ir::Ramp::make(var("x"), i32(2), 8), ir::Ramp::make(var("x"), i32(2), 8));
    expect_same(ir::Broadcast::make(f32(1), 4), ir::Broadcast::make(f32(1), 4));
    expect_same(ir::StringImm::make("abc"), ir::StringImm::make("abc"));
    expect_same(ir::Not::make(var("p", Bool())), ir::Not::make(var("p", Bool())));
}

TEST(IREquality, UndefinedExprs) {
    expect_same(Expr(), Expr());
    EXPECT_FALSE(ir::equal(Expr(), i32(0)));
    EXPECT_LT(ir::compare(Expr(), i32(0)), 0);
    EXPECT_GT(ir::compare(i32(0), Expr()), 0);
    expect_same(Stmt(), Stmt());
    EXPECT_LT(ir::compare(Stmt(), ir::Evaluate::make(i32(0))), 0);
}

TEST(IREquality, TypeDifferences) {
    expect_different(var("x", Int(32)), var("x", Int(64)));
    expect_different(var("x", Int(32)), var("x", UInt(32)));
    expect_different(var("x", Float(32)), var("x", Float(32, 4)));
    expect_different(i32(1), ir::IntImm::make(Int(16), 1));
    expect_different(ir::UIntImm::make(UInt(8), 1), ir::UIntImm::make(Bool(), 1));
    expect_different(ir::Cast::make(UInt(8), var("x")), ir::Cast::make(Int(8), var("x")));
    expect_different(f32(1.5), ir::FloatImm::make(Float(64), 1.5));
    expect_different(ir::Load::make(Float(32), "in", var("i")), ir::Load::make(Int(32), "in", var("i")));
    expect_different(ir::Call::make_intrinsic(Float(32), ir::Intrinsic::Abs, {f32(-1)}),
                     ir::Call::make_intrinsic(UInt(32), ir::Intrinsic::Abs, {f32(-1)}));
}

TEST(IREquality, ConstantDifferences) {
    expect_different(i32(1), i32(2));
    expect_different(i32(-1), i32(1));
    expect_different(ir::UIntImm::make(UInt(16), 7), ir::UIntImm::make(UInt(16), 8));
    expect_different(ir::UIntImm::make(Bool(), 0), ir::UIntImm::make(Bool(), 1));
    expect_different(f32(1.0), f32(1.5));
    expect_different(ir::StringImm::make("a"), ir::StringImm::make("b"));
    // Floats compare bitwise: -0.0 and +0.0 differ, a NaN equals the same NaN.
    expect_different(f32(0.0), f32(-0.0));
    expect_same(f32(std::nan("")), f32(std::nan("")));
    expect_same(ir::FloatImm::make(Float(64), 0.1), ir::FloatImm::make(Float(64), 0.1));
    // Different kinds of constant.
    expect_different(i32(0), f32(0.0));
}

TEST(IREquality, NameDifferences) {
    expect_different(var("x"), var("y"));
    expect_different(var("x"), var("x0"));
    expect_different(var("x", Int(32)), ir::Variable::make(Int(32), "x", ir::VarKind::Pure));
    expect_different(ir::Load::make(Int(32), "a", i32(0)), ir::Load::make(Int(32), "b", i32(0)));
    expect_different(ir::Let::make("t", i32(1), var("x")), ir::Let::make("u", i32(1), var("x")));
    expect_different(sample("x"), sample("z"));
}

TEST(IREquality, OperandAndKindDifferences) {
    Expr x = var("x"), y = var("y");
    expect_different(sub(x, y), sub(y, x));
    expect_different(add(x, y), add(y, x));  // structural: commutativity is not equality
    expect_different(add(x, y), sub(x, y));
    expect_different(add(x, y), mul(x, y));
    expect_different(ir::Min::make(x, y), ir::Max::make(x, y));
    expect_different(lt(x, y), ir::GT::make(x, y));
    expect_different(lt(x, y), ir::LE::make(x, y));
    expect_different(ir::EQ::make(x, y), ir::NE::make(x, y));
    Expr p = var("p", Bool()), q = var("q", Bool());
    expect_different(ir::And::make(p, q), ir::Or::make(p, q));
    expect_different(ir::Select::make(p, x, y), ir::Select::make(p, y, x));
    expect_different(ir::Select::make(p, x, y), ir::Select::make(q, x, y));
    expect_different(add(add(x, y), i32(1)), add(x, add(y, i32(1))));
    expect_different(sample("x", 3), sample("x", 4));  // a constant deep inside
    expect_different(ir::Let::make("t", i32(1), x), ir::Let::make("t", i32(2), x));
    expect_different(ir::Let::make("t", i32(1), x), ir::Let::make("t", i32(1), y));
    expect_different(ir::Load::make(Int(32), "a", x), ir::Load::make(Int(32), "a", y));
}

TEST(IREquality, VectorDifferences) {
    Expr x = var("x");
    expect_different(ir::Ramp::make(x, i32(1), 4), ir::Ramp::make(x, i32(1), 8));
    expect_different(ir::Ramp::make(x, i32(1), 4), ir::Ramp::make(x, i32(2), 4));
    expect_different(ir::Ramp::make(x, i32(1), 4), ir::Ramp::make(i32(1), x, 4));
    expect_different(ir::Broadcast::make(x, 4), ir::Broadcast::make(x, 8));
    expect_different(ir::Broadcast::make(x, 4), ir::Broadcast::make(var("y"), 4));
    expect_different(ir::Broadcast::make(i32(0), 4), ir::Ramp::make(i32(0), i32(0), 4));
}

TEST(IREquality, CallDifferences) {
    Expr fx = var("fx", Float(32));
    auto call = [](ir::Intrinsic op, std::vector<Expr> args) {
        return ir::Call::make_intrinsic(Float(32), op, std::move(args));
    };
    expect_same(call(ir::Intrinsic::Sqrt, {fx}), call(ir::Intrinsic::Sqrt, {fx}));
    expect_different(call(ir::Intrinsic::Sqrt, {fx}), call(ir::Intrinsic::Exp, {fx}));
    expect_different(call(ir::Intrinsic::Pow, {fx, f32(2)}), call(ir::Intrinsic::Pow, {f32(2), fx}));
    expect_different(call(ir::Intrinsic::Pow, {fx, f32(2)}), call(ir::Intrinsic::Pow, {fx}));
    expect_different(call(ir::Intrinsic::Pow, {fx}), call(ir::Intrinsic::Pow, {fx, fx}));
}

TEST(IREquality, HashOfEqualTreesAndContainers) {
    std::unordered_map<Expr, int, ir::ExprHash, ir::ExprEqual> umap;
    std::map<Expr, int, ir::ExprLess> omap;
    for (int i = 0; i < 10; i++) {
        umap[sample("x", i)] = i;
        omap[sample("x", i)] = i;
    }
    EXPECT_EQ(umap.size(), 10u);
    EXPECT_EQ(omap.size(), 10u);
    for (int i = 0; i < 10; i++) {
        Expr key = sample("x", i);  // separately built: found by structure, not identity
        EXPECT_EQ(umap.at(key), i);
        EXPECT_EQ(omap.at(key), i);
    }
    EXPECT_EQ(umap.count(sample("z", 0)), 0u);
    EXPECT_EQ(omap.count(sample("z", 0)), 0u);

    // Distinct small trees should not all collide.
    std::unordered_set<size_t> hashes;
    for (int i = 0; i < 100; i++) hashes.insert(ir::hash(add(var("x"), i32(i))));
    EXPECT_GT(hashes.size(), 95u);
    EXPECT_NE(ir::hash(sub(var("x"), var("y"))), ir::hash(sub(var("y"), var("x"))));
}

// ---------------------------------------------------------------------------------------
// The order is total: checked on a set of pseudo-random expressions containing
// separately built duplicates.

class ExprGen {
public:
    explicit ExprGen(uint32_t seed) : rng_(seed) {}

    Expr gen(int depth) {
        int n = depth <= 0 ? pick(4) : pick(12);
        Expr x = var("x"), y = var("y");
        switch (n) {
        case 0: return i32(pick(5) - 2);
        case 1: return var(pick(2) ? "x" : "y");
        case 2: return ir::Cast::make(Int(32), ir::IntImm::make(Int(64), pick(3)));
        case 3: return ir::Cast::make(Int(32), var("b", UInt(8)));
        case 4: return add(gen(depth - 1), gen(depth - 1));
        case 5: return sub(gen(depth - 1), gen(depth - 1));
        case 6: return mul(gen(depth - 1), gen(depth - 1));
        case 7: return ir::Min::make(gen(depth - 1), gen(depth - 1));
        case 8: return ir::Select::make(lt(gen(depth - 1), gen(depth - 1)), gen(depth - 1), gen(depth - 1));
        case 9: return ir::Load::make(Int(32), pick(2) ? "a" : "b", gen(depth - 1));
        case 10: return ir::Let::make("x", gen(depth - 1), gen(depth - 1));
        default: return ir::Cast::make(Int(32), ir::Cast::make(Int(64), gen(depth - 1)));
        }
    }

private:
    std::mt19937 rng_;
    int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
};

std::vector<Expr> random_exprs() {
    std::vector<Expr> v;
    for (uint32_t seed = 0; seed < 24; seed++) v.push_back(ExprGen(seed).gen(3));
    // Separately built duplicates of some of them.
    for (uint32_t seed = 0; seed < 6; seed++) v.push_back(ExprGen(seed * 3).gen(3));
    v.push_back(Expr());
    v.push_back(Expr());
    return v;
}

TEST(IREquality, CompareIsATotalOrder) {
    std::vector<Expr> v = random_exprs();
    const size_t n = v.size();
    ASSERT_GE(n, 30u);
    size_t distinct_pairs = 0;
    for (size_t i = 0; i < n; i++) {
        EXPECT_EQ(ir::compare(v[i], v[i]), 0);
        for (size_t j = 0; j < n; j++) {
            int ij = ir::compare(v[i], v[j]), ji = ir::compare(v[j], v[i]);
            EXPECT_EQ(sign(ij), -sign(ji)) << v[i] << "  vs  " << v[j];          // antisymmetric
            EXPECT_EQ(ij == 0, ir::equal(v[i], v[j])) << v[i] << "  vs  " << v[j];  // consistent
            if (ij == 0) {
                EXPECT_EQ(ir::hash(v[i]), ir::hash(v[j])) << v[i];
            }
            // Equal exactly when they print the same (the printer shows every field here).
            EXPECT_EQ(ij == 0, ir::to_string(v[i]) == ir::to_string(v[j])) << v[i] << "  vs  " << v[j];
            if (ij != 0) distinct_pairs++;
        }
    }
    EXPECT_GT(distinct_pairs, n * (n - 1) / 2);  // the set is mostly distinct
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            for (size_t k = 0; k < n; k++) {
                int ij = ir::compare(v[i], v[j]), jk = ir::compare(v[j], v[k]);
                int ik = ir::compare(v[i], v[k]);
                if (ij <= 0 && jk <= 0) {  // transitive, and strictly so
                    EXPECT_LE(ik, 0) << v[i] << " | " << v[j] << " | " << v[k];
                    if (ij < 0 || jk < 0) {
                        EXPECT_LT(ik, 0) << v[i] << " | " << v[j] << " | " << v[k];
                    }
                }
            }
        }
    }
    // Sorting with ExprLess puts equal trees next to each other.
    std::sort(v.begin(), v.end(), ir::ExprLess());
    EXPECT_FALSE(v.front().defined());
    for (size_t i = 0; i + 1 < n; i++) EXPECT_LE(ir::compare(v[i], v[i + 1]), 0);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            if (!ir::equal(v[i], v[j])) continue;
            for (size_t k = i; k <= j; k++) EXPECT_TRUE(ir::equal(v[i], v[k]));
        }
    }
}

TEST(IREquality, SharedSubtreesAreNotUnfolded) {
    // 2^60 nodes when unfolded: only a walk that remembers shared subtrees finishes.
    auto build = [] {
        Expr e = var("x");
        for (int i = 0; i < 60; i++) e = add(e, e);
        return e;
    };
    // (Not through expect_same: printing such a tree in a failure message would not end.)
    Expr a = build(), b = build();
    EXPECT_TRUE(ir::equal(a, b));
    EXPECT_EQ(ir::compare(a, b), 0);
    EXPECT_EQ(ir::hash(a), ir::hash(b));
    Expr c = add(build(), var("y"));
    Expr d = add(build(), var("z"));
    EXPECT_FALSE(ir::equal(c, d));
    EXPECT_EQ(sign(ir::compare(c, d)), -sign(ir::compare(d, c)));
    EXPECT_NE(ir::compare(c, d), 0);
    EXPECT_NE(ir::hash(c), ir::hash(d));
}

// Runs f on a thread with a small stack: a walk that recursed once per tree level would
// overflow it on the deep trees below. (The trees are built and destroyed on the calling
// thread: destroying a tree is itself recursive.)
void run_with_small_stack(const std::function<void()> &f) {
    pthread_attr_t attr;
    ASSERT_EQ(pthread_attr_init(&attr), 0);
    ASSERT_EQ(pthread_attr_setstacksize(&attr, 128 * 1024), 0);
    pthread_t thread;
    auto body = [](void *arg) -> void * {
        (*static_cast<const std::function<void()> *>(arg))();
        return nullptr;
    };
    ASSERT_EQ(pthread_create(&thread, &attr, body, const_cast<std::function<void()> *>(&f)), 0);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
    pthread_attr_destroy(&attr);
}

TEST(IREquality, DeepTreesAreWalkedWithoutRecursion) {
    // A long left-nested sum, as built by `e = e + t` in a loop.
    auto build = [](int last) {
        Expr e = var("x");
        for (int i = 0; i < 5000; i++) e = add(e, i32(i == 4999 ? last : i));
        return e;
    };
    Expr a = build(0), b = build(0), c = build(1);
    bool ab_equal = false, ac_equal = true;
    int ac = 0, ca = 0;
    size_t ha = 0, hb = 1;
    run_with_small_stack([&] {
        ab_equal = ir::equal(a, b);
        ac_equal = ir::equal(a, c);
        ac = ir::compare(a, c);
        ca = ir::compare(c, a);
        ha = ir::hash(a);
        hb = ir::hash(b);
    });
    EXPECT_TRUE(ab_equal);
    EXPECT_FALSE(ac_equal);
    EXPECT_LT(ac, 0);
    EXPECT_GT(ca, 0);
    EXPECT_EQ(ha, hb);
}

// ---------------------------------------------------------------------------------------
// Statements

std::shared_ptr<ir::Provenance> make_prov(const std::string &func, int stage, std::vector<Expr> coords,
                                          std::vector<std::pair<std::string, Expr>> rvars = {}) {
    auto p = std::make_shared<ir::Provenance>();
    p->func = tessera::test::named_func(func);
    p->stage = stage;
    p->coords = std::move(coords);
    p->rvars = std::move(rvars);
    return p;
}

// A loop nest with every kind of statement; each argument changes one field.
struct NestSpec {
    std::string loop_name = "x";
    ir::ForType for_type = ir::ForType::Serial;
    int extent = 10;
    std::string buffer = "f";
    Type alloc_type = Int(32);
    int alloc_extent = 10;
    bool with_provenance = true;
    int stage = 1;
    std::string rvar_name = "r.x";
    int rvar_offset = 0;
    bool with_else = true;
    bool producer = true;
    std::string message = "bad";
    int realize_min = 0;
    int let_value = 2;
};

Stmt make_nest(const NestSpec &s) {
    Expr x = var(s.loop_name), r = var("r.x");
    auto prov = s.with_provenance
                    ? make_prov("f", s.stage, {x}, {{s.rvar_name, add(r, i32(s.rvar_offset))}})
                    : nullptr;
    Stmt store = ir::Store::make(s.buffer, add(x, r), x, prov);
    Stmt provide = ir::Provide::make("g", x, {x, r}, make_prov("g", 0, {x, r}));
    Stmt ite = ir::IfThenElse::make(lt(x, i32(5)), store,
                                    s.with_else ? provide : Stmt());
    Stmt check = ir::AssertStmt::make(lt(x, i32(100)), {ir::StringImm::make(s.message), x});
    Stmt body = ir::Block::make({check, ite, ir::Evaluate::make(x)});
    Stmt loop = ir::For::make(s.loop_name, i32(0), i32(s.extent), s.for_type, body);
    Stmt let = ir::LetStmt::make("r.x", i32(s.let_value), loop);
    Stmt pc = ir::ProducerConsumer::make("f", s.producer, let);
    Stmt alloc = ir::Allocate::make(s.buffer, s.alloc_type, {i32(s.alloc_extent)}, pc);
    return ir::Realize::make("g", Int(32), {{i32(s.realize_min), i32(10)}, {i32(0), i32(4)}}, alloc);
}

TEST(IREquality, StatementsEqualWhenBuiltTwice) {
    expect_same(make_nest({}), make_nest({}));
    std::unordered_set<Stmt, ir::StmtHash, ir::StmtEqual> set;
    set.insert(make_nest({}));
    EXPECT_EQ(set.count(make_nest({})), 1u);
}

TEST(IREquality, StatementsDifferInEachField) {
    const Stmt base = make_nest({});
    std::vector<std::pair<std::string, std::function<void(NestSpec &)>>> changes = {
        {"loop name", [](NestSpec &s) { s.loop_name = "y"; }},
        {"for type", [](NestSpec &s) { s.for_type = ir::ForType::Parallel; }},
        {"loop extent", [](NestSpec &s) { s.extent = 11; }},
        {"store buffer", [](NestSpec &s) { s.buffer = "h"; }},
        {"allocation type", [](NestSpec &s) { s.alloc_type = UInt(32); }},
        {"allocation extent", [](NestSpec &s) { s.alloc_extent = 12; }},
        {"provenance present", [](NestSpec &s) { s.with_provenance = false; }},
        {"provenance stage", [](NestSpec &s) { s.stage = 2; }},
        {"provenance rvar name", [](NestSpec &s) { s.rvar_name = "r.y"; }},
        {"provenance rvar value", [](NestSpec &s) { s.rvar_offset = 1; }},
        {"else branch", [](NestSpec &s) { s.with_else = false; }},
        {"producer/consumer", [](NestSpec &s) { s.producer = false; }},
        {"assert message", [](NestSpec &s) { s.message = "worse"; }},
        {"realize bounds", [](NestSpec &s) { s.realize_min = -1; }},
        {"let value", [](NestSpec &s) { s.let_value = 3; }},
    };
    std::vector<Stmt> variants = {base};
    for (const auto &[what, change] : changes) {
        SCOPED_TRACE(what);
        NestSpec spec;
        change(spec);
        Stmt other = make_nest(spec);
        expect_different(base, other);
        expect_same(other, make_nest(spec));
        variants.push_back(other);
    }
    // All variants are pairwise different and ordered consistently.
    for (size_t i = 0; i < variants.size(); i++)
        for (size_t j = 0; j < variants.size(); j++)
            EXPECT_EQ(ir::compare(variants[i], variants[j]) == 0, i == j) << i << " " << j;
}

TEST(IREquality, StatementKindsAndProvenanceDetails) {
    Expr x = var("x");
    expect_different(ir::Evaluate::make(x), ir::Evaluate::make(var("y")));
    expect_different(ir::Provide::make("g", x, {x}, nullptr), ir::Provide::make("g", x, {x, x}, nullptr));
    expect_different(ir::Provide::make("g", x, {x}, nullptr), ir::Provide::make("h", x, {x}, nullptr));
    expect_different(ir::Provide::make("g", x, {x}, make_prov("g", 0, {x})),
                     ir::Provide::make("g", x, {x}, make_prov("g", 0, {i32(0)})));
    expect_different(ir::Provide::make("g", x, {x}, make_prov("g", 0, {x})),
                     ir::Provide::make("g", x, {x}, make_prov("h", 0, {x})));
    expect_different(ir::Provide::make("g", x, {x}, make_prov("g", 0, {x})),
                     ir::Provide::make("g", x, {x}, make_prov("g", 0, {x, x})));
    expect_different(ir::Store::make("g", x, x, make_prov("g", 1, {x}, {{"r.x", x}})),
                     ir::Store::make("g", x, x, make_prov("g", 1, {x}, {})));
    // Same fields, different statement kinds.
    expect_different(ir::Block::make(ir::Evaluate::make(x), ir::Evaluate::make(x)),
                     ir::ProducerConsumer::make("f", true, ir::Evaluate::make(x)));
    expect_different(ir::Block::make(ir::Evaluate::make(x), ir::Evaluate::make(i32(1))),
                     ir::Block::make(ir::Evaluate::make(i32(1)), ir::Evaluate::make(x)));

    EXPECT_TRUE(ir::equal(*make_prov("f", 1, {x}, {{"r.x", x}}), *make_prov("f", 1, {x}, {{"r.x", x}})));
    EXPECT_FALSE(ir::equal(*make_prov("f", 1, {x}, {{"r.x", x}}), *make_prov("f", 1, {x}, {{"r.x", i32(0)}})));
    EXPECT_FALSE(ir::equal(*make_prov("f", 1, {x}), *make_prov("f", 2, {x})));
}

TEST(IREquality, LongStatementSequences) {
    auto build = [](int last) {
        std::vector<Stmt> v;
        for (int i = 0; i < 5000; i++) v.push_back(ir::Evaluate::make(i32(i == 4999 ? last : i)));
        return ir::Block::make(v);
    };
    Stmt a = build(0), b = build(0), c = build(1);
    bool ab_equal = false, ac_equal = true;
    int ac = 0;
    size_t ha = 0, hb = 1;
    run_with_small_stack([&] {
        ab_equal = ir::equal(a, b);
        ac_equal = ir::equal(a, c);
        ac = ir::compare(a, c);
        ha = ir::hash(a);
        hb = ir::hash(b);
    });
    EXPECT_TRUE(ab_equal);
    EXPECT_FALSE(ac_equal);
    EXPECT_LT(ac, 0);
    EXPECT_EQ(ha, hb);
}

}  // namespace
