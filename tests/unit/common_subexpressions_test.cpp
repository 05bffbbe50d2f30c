// common_subexpressions: a value computed again while its first computation is available
// and valid is bound once (src/lower/CommonSubexpressions.cpp); extend_let_scopes gives a
// let the scope of its block.

#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr i64(int64_t v) { return IntImm::make(Int(64), v); }
Expr var(const std::string &n, Type t = Int(32)) { return Variable::make(t, n); }
Expr wide(const Expr &e) { return Cast::make(Int(64), e); }
Stmt store(const std::string &b, Expr v, Expr i) { return Store::make(b, std::move(v), wide(std::move(i)), nullptr); }
Expr load(const std::string &b, Expr i) { return Load::make(Int(32), b, wide(std::move(i))); }
Stmt loop(const std::string &n, Expr extent, Stmt body, ForType t = ForType::Serial) {
    return For::make(n, i32(0), std::move(extent), t, std::move(body));
}

/** The lets of s in order, as "name = value". */
std::vector<std::string> lets(const Stmt &s) {
    struct Walk : IRVisitor {
        std::vector<std::string> out;
        using IRVisitor::include;
        void visit(const LetStmt *op) override {
            out.push_back(op->name + " = " + to_string(op->value));
            IRVisitor::visit(op);
        }
        void visit(const Let *op) override {
            out.push_back(op->name + " = " + to_string(op->value));
            IRVisitor::visit(op);
        }
    } w;
    w.include(s);
    return w.out;
}

/** How many times s computes an operation of kind k. */
int count(const Stmt &s, ExprKind k) {
    struct Walk : IRVisitor {
        ExprKind k;
        int n = 0;
        using IRVisitor::include;
        void visit(const Mul *op) override {
            n += k == ExprKind::Mul;
            IRVisitor::visit(op);
        }
        void visit(const Load *op) override {
            n += k == ExprKind::Load;
            IRVisitor::visit(op);
        }
        void visit(const Ramp *op) override {
            n += k == ExprKind::Ramp;
            IRVisitor::visit(op);
        }
    } w;
    w.k = k;
    w.include(s);
    return w.n;
}

using Lets = std::vector<std::string>;

TEST(CommonSubexpressions, AValueOfTwoStatementsIsComputedOnce) {
    // out[x * y] = x * y + 1; out2[0] = x * y
    const Expr xy = Mul::make(var("x"), var("y"));
    Stmt s = Block::make(store("out", Add::make(xy, i32(1)), xy), store("out2", xy, i32(0)));
    Stmt c = lower::common_subexpressions(s);
    EXPECT_EQ(lets(c), (Lets{"cse = x * y"})) << c;
    EXPECT_EQ(count(c, ExprKind::Mul), 1) << c;
}

TEST(CommonSubexpressions, ALetsValueIsNamedByTheLet) {
    // let a = x * y in out[0] = x * y + a: the second x * y is a, no new let.
    const Expr xy = Mul::make(var("x"), var("y"));
    Stmt s = LetStmt::make("a", xy, store("out", Add::make(xy, var("a")), i32(0)));
    Stmt c = lower::common_subexpressions(s);
    EXPECT_EQ(lets(c), (Lets{"a = x * y"})) << c;
    EXPECT_EQ(count(c, ExprKind::Mul), 1) << c;
}

TEST(CommonSubexpressions, LoadsAreReusedUntilTheirBufferIsWritten) {
    // out[0] = in[x]; tmp[0] = in[x] (reused: tmp is another buffer); in2... ; out[1] = in[x]
    // after a store to "in" is a new load.
    Stmt s = Block::make({store("out", load("in", var("x")), i32(0)), store("tmp", load("in", var("x")), i32(0)),
                          store("in", i32(7), i32(3)), store("out", load("in", var("x")), i32(1))});
    Stmt c = lower::common_subexpressions(s);
    EXPECT_EQ(count(c, ExprKind::Load), 2) << c;
    // A loop may store anywhere: a load before it is not reused inside it or after it; a
    // pure value is.
    const Expr xy = Mul::make(var("x"), var("y"));
    Stmt l = Block::make({store("out", Add::make(load("in", var("x")), xy), i32(0)),
                          loop("i", i32(4), store("out", Add::make(load("in", var("x")), xy), var("i"))),
                          store("out", load("in", var("x")), i32(9))});
    Stmt cl = lower::common_subexpressions(l);
    EXPECT_EQ(count(cl, ExprKind::Load), 3) << cl;
    EXPECT_EQ(count(cl, ExprKind::Mul), 1) << cl;
}

TEST(CommonSubexpressions, ValuesOfAnInnerBlockAreNotReusedAfterIt) {
    // for i { out[i] = x * y }; out[0] = x * y: the first is inside the loop's block.
    const Expr xy = Mul::make(var("x"), var("y"));
    Stmt s = Block::make(loop("i", i32(4), store("out", xy, var("i"))), store("out", xy, i32(0)));
    Stmt c = lower::common_subexpressions(s);
    EXPECT_EQ(count(c, ExprKind::Mul), 2) << c;
    // ... but a parallel loop's body does not reuse what was computed outside it.
    Stmt p = Block::make(store("out", xy, i32(0)), loop("i", i32(4), store("out", xy, var("i")), ForType::Parallel));
    EXPECT_EQ(count(lower::common_subexpressions(p), ExprKind::Mul), 2);
    Stmt q = Block::make(store("out", xy, i32(0)), loop("i", i32(4), store("out", xy, var("i"))));
    EXPECT_EQ(count(lower::common_subexpressions(q), ExprKind::Mul), 1);
}

TEST(CommonSubexpressions, ValuesUsingALetStayInItsScope) {
    // { let t = x + 1 in out[t * y] = t * y }: t * y is bound inside t's scope.
    const Expr ty = Mul::make(var("t"), var("y"));
    Stmt s = Block::make(LetStmt::make("t", Add::make(var("x"), i32(1)), store("out", ty, ty)),
                         store("out", i32(0), i32(0)));
    Stmt c = lower::common_subexpressions(s);
    EXPECT_EQ(lets(c), (Lets{"t = x + 1", "cse = t * y"})) << c;
    // The same inside an expression let: the new let goes inside it.
    const Expr e = Let::make("u", Add::make(var("x"), i32(2)), Add::make(Mul::make(var("u"), var("y")),
                                                                        Mul::make(var("u"), var("y"))));
    Stmt ce = lower::common_subexpressions(store("out", e, i32(0)));
    EXPECT_EQ(lets(ce), (Lets{"u = x + 2", "cse = u * y"})) << ce;
}

TEST(CommonSubexpressions, DenseAccessesAndConstantDivisorsKeepTheirForm) {
    // Two vector loads at the same ramp: the load is shared, but the ramp that indexes each
    // access stays a ramp (the emitter's dense accesses), and x8(3) stays beside the division.
    const Expr ramp = Ramp::make(wide(var("x")), i64(1), 8);
    const Expr ld = Load::make(Int(32).with_lanes(8), "in", ramp);
    const Expr three = Broadcast::make(i32(3), 8);
    Stmt s = Block::make(Store::make("out", Div::make(ld, three), ramp, nullptr),
                         Store::make("out2", Div::make(ld, three), ramp, nullptr));
    Stmt c = lower::common_subexpressions(s);
    struct Check : IRVisitor {
        bool ok = true;
        using IRVisitor::include;
        void visit(const Store *op) override {
            ok = ok && as<Ramp>(op->index);
            IRVisitor::visit(op);
        }
        void visit(const Load *op) override {
            ok = ok && as<Ramp>(op->index);
            IRVisitor::visit(op);
        }
        void visit(const Div *op) override {
            ok = ok && as<Broadcast>(op->b);
            IRVisitor::visit(op);
        }
    } check;
    check.include(c);
    EXPECT_TRUE(check.ok) << c;
    EXPECT_EQ(count(c, ExprKind::Load), 1) << c;
}

TEST(ExtendLetScopes, ALetReachesTheEndOfItsBlock) {
    // { let a = 1 in out[0] = a }; out[1] = 2  ->  let a = 1 in { out[0] = a; out[1] = 2 }
    Stmt s = Block::make(LetStmt::make("a", i32(1), store("out", var("a"), i32(0))), store("out", i32(2), i32(1)));
    Stmt e = lower::extend_let_scopes(s);
    const LetStmt *l = as<LetStmt>(e);
    ASSERT_TRUE(l) << e;
    const Block *b = as<Block>(l->body);
    ASSERT_TRUE(b) << e;
    EXPECT_TRUE(as<Store>(b->first) && as<Store>(b->rest)) << e;
    // A let inside a loop stays inside it.
    Stmt in_loop = Block::make(loop("i", i32(2), LetStmt::make("b", var("i"), store("out", var("b"), var("i")))),
                               store("out", i32(0), i32(0)));
    EXPECT_TRUE(as<Block>(lower::extend_let_scopes(in_loop)));
}

}  // namespace
