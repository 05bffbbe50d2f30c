// hoist_loop_invariant_lets: lets at the top of a loop's body that do not vary in the loop
// move out of it; the others, and those whose move would change what a name means, stay.

#include <gtest/gtest.h>

#include <map>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr var(const char *n) { return Variable::make(Int(32), n); }
Expr add(Expr a, Expr b) { return Add::make(std::move(a), std::move(b)); }
Stmt store(Expr value, Expr index) { return Store::make("out", std::move(value), std::move(index), nullptr); }

/** For each loop, the names of the lets between it and the next loop (or store) inside. */
std::map<std::string, std::vector<std::string>> lets_inside_each_loop(const Stmt &s) {
    struct Walk : IRVisitor {
        std::map<std::string, std::vector<std::string>> inside;
        std::vector<std::string> *current = nullptr;
        using IRVisitor::include;
        void visit(const For *op) override {
            std::vector<std::string> *saved = current;
            current = &inside[op->name];
            include(op->body);
            current = saved;
        }
        void visit(const LetStmt *op) override {
            if (current) current->push_back(op->name);
            include(op->body);
        }
        void visit(const Store *) override { current = nullptr; }
    } w;
    w.include(s);
    return w.inside;
}

/** The names of the lets above the first loop. */
std::vector<std::string> lets_outside(const Stmt &s) {
    std::vector<std::string> names;
    Stmt t = s;
    while (const LetStmt *l = as<LetStmt>(t)) {
        names.push_back(l->name);
        t = l->body;
    }
    return names;
}

using Names = std::vector<std::string>;

TEST(HoistLoopInvariantLets, EachLetMovesToTheLoopItDependsOn) {
    // for y { for x { let a = y * 2; let b = a + x; let c = n + 1; let d = a + c; out[b + d] = 0 } }
    Stmt body = store(i32(0), add(var("b"), var("d")));
    body = LetStmt::make("d", add(var("a"), var("c")), body);
    body = LetStmt::make("c", add(var("n"), i32(1)), body);
    body = LetStmt::make("b", add(var("a"), var("x")), body);
    body = LetStmt::make("a", Mul::make(var("y"), i32(2)), body);
    Stmt s = For::make("y", i32(0), var("h"), ForType::Serial, For::make("x", i32(0), i32(8), ForType::Unrolled, body));
    Stmt h = lower::hoist_loop_invariant_lets(s);
    auto inside = lets_inside_each_loop(h);
    EXPECT_EQ(lets_outside(h), (Names{"c"})) << h;
    EXPECT_EQ(inside["y"], (Names{"a", "d"})) << h;
    EXPECT_EQ(inside["x"], (Names{"b"})) << h;
}

TEST(HoistLoopInvariantLets, LetsThatReadMemoryStay) {
    // A loop of no iterations must not read what its body reads.
    Stmt body = LetStmt::make("v", Load::make(Int(32), "in", var("n")), store(var("v"), var("x")));
    Stmt s = For::make("x", i32(0), var("m"), ForType::Serial, body);
    Stmt h = lower::hoist_loop_invariant_lets(s);
    EXPECT_TRUE(lets_outside(h).empty()) << h;
    EXPECT_EQ(lets_inside_each_loop(h)["x"], (Names{"v"})) << h;
}

TEST(HoistLoopInvariantLets, ALetStaysWhereMovingItWouldChangeWhatANameMeans) {
    // for x in [0, n) { let n = 5; out[x] = n }: above the loop, n would be its extent's n.
    Stmt s1 = For::make("x", i32(0), var("n"), ForType::Serial, LetStmt::make("n", i32(5), store(var("n"), var("x"))));
    EXPECT_EQ(lets_inside_each_loop(lower::hoist_loop_invariant_lets(s1))["x"], (Names{"n"}));

    // for x { let b = k + x; let k = 3; out[b] = k }: b, which stays, reads the outer k.
    Stmt body = LetStmt::make("k", i32(3), store(var("k"), var("b")));
    body = LetStmt::make("b", add(var("k"), var("x")), body);
    Stmt s2 = For::make("x", i32(0), i32(4), ForType::Serial, body);
    Stmt h2 = lower::hoist_loop_invariant_lets(s2);
    EXPECT_TRUE(lets_outside(h2).empty()) << h2;
    EXPECT_EQ(lets_inside_each_loop(h2)["x"], (Names{"b", "k"})) << h2;

    // for x { let a = 1; let a = a + x; let c = a; out[x] = c }: the second a varies, and
    // so does c, which reads it; the first a moves (the second reads it either way).
    Stmt body3 = LetStmt::make("c", var("a"), store(var("c"), var("x")));
    body3 = LetStmt::make("a", add(var("a"), var("x")), body3);
    body3 = LetStmt::make("a", i32(1), body3);
    Stmt h3 = lower::hoist_loop_invariant_lets(For::make("x", i32(0), i32(4), ForType::Serial, body3));
    EXPECT_EQ(lets_outside(h3), (Names{"a"})) << h3;
    EXPECT_EQ(lets_inside_each_loop(h3)["x"], (Names{"a", "c"})) << h3;
}

}  // namespace
