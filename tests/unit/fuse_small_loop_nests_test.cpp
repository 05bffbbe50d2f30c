// fuse_small_loop_nests: small constant nests over the same loops that read a buffer in
// common and are independent become one nest; nests that depend on each other or on the
// statements between them, that read nothing in common, or whose loops differ or are not
// small constants, stay apart. (End to end, with results against the reference interpreter:
// tests/unit/inline_reductions_test.cpp, ScheduledLikeHalidesHarrisAgreeWithTheReference)

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr i64(int v) { return IntImm::make(Int(64), v); }
Expr var(const std::string &n) { return Variable::make(Int(32), n); }
Expr wide(Expr e) { return Cast::make(Int(64), std::move(e)); }
Expr f32(float v) { return FloatImm::make(Float(32), v); }
Expr load(const std::string &b, Expr index) { return Load::make(Float(32), b, std::move(index)); }
Stmt store(const std::string &b, Expr value, Expr index = i64(0)) {
    return Store::make(b, std::move(value), std::move(index), nullptr);
}
Stmt loop(const std::string &name, Expr min, Expr extent, Stmt body) {
    return For::make(name, std::move(min), std::move(extent), ForType::Serial, std::move(body));
}

/** acc = 0; for ry in [-1, 2) { for rx in [-1, 2) { acc += term(in[x + rx + (y + ry) * 16]) } }:
 * an inline reduction's two statements, its loop variables prefixed by `acc`. */
std::vector<Stmt> window_sum(const std::string &acc, const std::string &in, Expr extent = i32(3)) {
    const Expr rx = var(acc + ".rx"), ry = var(acc + ".ry");
    const Expr at = wide(Add::make(Add::make(var("x"), rx), Mul::make(Add::make(var("y"), ry), i32(16))));
    const Expr v = load(in, at);
    Stmt update = store(acc, Add::make(load(acc, i64(0)), Mul::make(v, v)));
    return {store(acc, f32(0)), loop(acc + ".ry", i32(-1), extent, loop(acc + ".rx", i32(-1), i32(3), update))};
}

/** allocate a { a's statements; allocate b { b's statements; ...; last } }: inline reductions
 * as lowering nests them. */
Stmt nested(const std::vector<std::pair<std::string, std::vector<Stmt>>> &sums, Stmt last) {
    Stmt s = last;
    for (size_t k = sums.size(); k-- > 0;) {
        std::vector<Stmt> stmts = sums[k].second;
        stmts.push_back(s);
        s = Allocate::make(sums[k].first, Float(32), {i32(1)}, Block::make(stmts));
    }
    return s;
}

/** For each loop, the buffers its body stores to; and the number of loops. */
struct Loops : IRVisitor {
    std::map<std::string, std::vector<std::string>> stores;
    int count = 0;
    std::vector<std::string> open;
    using IRVisitor::include;
    void visit(const For *op) override {
        count++;
        open.push_back(op->name);
        include(op->body);
        open.pop_back();
    }
    void visit(const Store *op) override {
        for (const std::string &l : open) stores[l].push_back(op->buffer);
        IRVisitor::visit(op);
    }
};

Loops loops_of(const Stmt &s) {
    Loops l;
    l.include(s);
    return l;
}

using Names = std::vector<std::string>;

std::vector<Stmt> flattened(const Stmt &s) {
    if (const Block *b = as<Block>(s)) {
        std::vector<Stmt> v = flattened(b->first), w = flattened(b->rest);
        v.insert(v.end(), w.begin(), w.end());
        return v;
    }
    return {s};
}

Stmt response() { return store("out", Add::make(load("sxx", i64(0)), Add::make(load("syy", i64(0)), load("sxy", i64(0))))); }

/** sxx over ix, syy over iy, sxy over ix * iy: each shares a read with another. */
std::vector<Stmt> product_sum(const std::string &acc) {
    const Expr rx = var(acc + ".rx"), ry = var(acc + ".ry");
    const Expr at = wide(Add::make(Add::make(var("x"), rx), Mul::make(Add::make(var("y"), ry), i32(16))));
    Stmt update = store(acc, Add::make(load(acc, i64(0)), Mul::make(load("ix", at), load("iy", at))));
    return {store(acc, f32(0)), loop(acc + ".ry", i32(-1), i32(3), loop(acc + ".rx", i32(-1), i32(3), update))};
}

TEST(FuseSmallLoopNests, HarrisWindowSumsBecomeOneNest) {
    Stmt s = nested({{"sxx", window_sum("sxx", "ix")}, {"syy", window_sum("syy", "iy")}, {"sxy", product_sum("sxy")}},
                    response());
    Stmt f = lower::fuse_small_loop_nests(s);
    Loops l = loops_of(f);
    EXPECT_EQ(l.count, 2) << f;
    // The first nest's loops, running the three updates in their order.
    EXPECT_EQ(l.stores["sxx.rx"], (Names{"sxx", "syy", "sxy"})) << f;
    // The allocations enclose the whole block, the initial values come first, and the
    // response last.
    const Allocate *a = as<Allocate>(f);
    ASSERT_TRUE(a) << f;
    EXPECT_EQ(a->name, "sxx");
    const Allocate *b = as<Allocate>(a->body);
    ASSERT_TRUE(b && b->name == "syy") << f;
    const Allocate *c = as<Allocate>(b->body);
    ASSERT_TRUE(c && c->name == "sxy") << f;
    std::vector<std::string> order;
    for (const Stmt &t : flattened(c->body)) order.push_back(as<Store>(t) ? as<Store>(t)->buffer : "loop");
    EXPECT_EQ(order, (Names{"sxx", "syy", "sxy", "loop", "out"})) << f;
}

TEST(FuseSmallLoopNests, NestsThatReadNothingInCommonStayApart) {
    Stmt s = nested({{"sxx", window_sum("sxx", "ix")}, {"syy", window_sum("syy", "iy")}}, response());
    Stmt f = lower::fuse_small_loop_nests(s);
    EXPECT_TRUE(f.same_as(s)) << f;
}

TEST(FuseSmallLoopNests, ANestThatReadsWhatTheOtherWritesStaysApart) {
    // The second sum reads the first's accumulator: fused, it would read partial sums.
    std::vector<Stmt> second = window_sum("syy", "ix");
    const For *l = as<For>(second[1]);
    second[1] = loop(l->name, l->min, l->extent,
                     Block::make(l->body, store("syy", Add::make(load("syy", i64(0)), load("sxx", i64(0))))));
    Stmt s = nested({{"sxx", window_sum("sxx", "ix")}, {"syy", second}}, response());
    Stmt f = lower::fuse_small_loop_nests(s);
    EXPECT_EQ(loops_of(f).count, 4) << f;
}

TEST(FuseSmallLoopNests, AStatementBetweenThatNeitherNestCanPassKeepsThemApart) {
    // t = sxx (reads the first nest's result), then the second nest reads t: the first
    // cannot move down past the copy, nor the second up past it.
    std::vector<Stmt> stmts = window_sum("sxx", "ix");
    stmts.push_back(store("t", load("sxx", i64(0))));
    std::vector<Stmt> second = window_sum("syy", "ix");
    const For *l = as<For>(second[1]);
    second[1] = loop(l->name, l->min, l->extent,
                     Block::make(l->body, store("syy", Add::make(load("syy", i64(0)), load("t", i64(0))))));
    stmts.insert(stmts.end(), second.begin(), second.end());
    stmts.push_back(response());
    Stmt s = Block::make(stmts);
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 4);

    // A statement between that only the second nest conflicts with: the first moves down.
    stmts = window_sum("sxx", "ix");
    stmts.push_back(store("syy", f32(1)));
    second = window_sum("syy", "ix");
    stmts.push_back(second[1]);
    stmts.push_back(response());
    Stmt f = lower::fuse_small_loop_nests(Block::make(stmts));
    Loops fl = loops_of(f);
    EXPECT_EQ(fl.count, 2) << f;
    EXPECT_EQ(fl.stores["sxx.rx"], (Names{"sxx", "syy"})) << f;
}

TEST(FuseSmallLoopNests, LoopsOverOtherRangesOrRunTimeExtentsStayApart) {
    // Other extents.
    std::vector<Stmt> a = window_sum("sxx", "ix"), b = window_sum("syy", "ix", i32(2));
    a.insert(a.end(), b.begin(), b.end());
    a.push_back(response());
    Stmt s = Block::make(a);
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 4);
    // Run-time extents, equal: the user's loops, not a small nest.
    a = window_sum("sxx", "ix", var("n"));
    b = window_sum("syy", "ix", var("n"));
    a.insert(a.end(), b.begin(), b.end());
    a.push_back(response());
    s = Block::make(a);
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 4);
    // More iterations than a small nest: 3 x 30 each.
    a = window_sum("sxx", "ix", i32(30));
    b = window_sum("syy", "ix", i32(30));
    a.insert(a.end(), b.begin(), b.end());
    a.push_back(response());
    s = Block::make(a);
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 4);
}

TEST(FuseSmallLoopNests, BoundsEqualThroughLetsAreTheSameLoops) {
    // Each nest's loop starts at its own let; the lets have equal values.
    auto from = [](const std::string &acc, const std::string &start) {
        std::vector<Stmt> s = window_sum(acc, "ix");
        const For *l = as<For>(s[1]);
        s[1] = loop(l->name, var(start), l->extent, l->body);
        return s;
    };
    std::vector<Stmt> a = from("sxx", "sxx.min"), b = from("syy", "syy.min");
    a.insert(a.end(), b.begin(), b.end());
    a.push_back(response());
    Stmt s = LetStmt::make("sxx.min", Add::make(var("y"), i32(-1)),
                           LetStmt::make("syy.min", Add::make(var("y"), i32(-1)), Block::make(a)));
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 2);
    // Unequal values.
    s = LetStmt::make("sxx.min", Add::make(var("y"), i32(-1)),
                      LetStmt::make("syy.min", Add::make(var("y"), i32(-2)), Block::make(a)));
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 4);
}

TEST(FuseSmallLoopNests, AnAllocationTheStatementsBeforeUseIsNotReadThrough) {
    // The statements before the allocation of syy use a buffer of that name (another
    // one, outside): the allocation cannot enclose them.
    std::vector<Stmt> first = window_sum("sxx", "ix");
    first.push_back(store("syy", f32(2)));
    Stmt s = Block::make(first[0], Block::make(first[1], Block::make(first[2], nested({{"syy", window_sum("syy", "ix")}}, response()))));
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(s)).count, 4);
}

TEST(FuseSmallLoopNests, AnAssertionInANestKeepsItInPlace) {
    std::vector<Stmt> a = window_sum("sxx", "ix"), b = window_sum("syy", "ix");
    const For *l = as<For>(b[1]);
    b[1] = loop(l->name, l->min, l->extent,
                Block::make(AssertStmt::make(LT::make(var("x"), i32(100)), {StringImm::make("x too large")}), l->body));
    a.insert(a.end(), b.begin(), b.end());
    a.push_back(response());
    EXPECT_EQ(loops_of(lower::fuse_small_loop_nests(Block::make(a))).count, 4);
}

}  // namespace
