// partition_loops: guards and boundary clamps are peeled off the steady state.

#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"
#include "support/hand_lowered.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr var(const char *n) { return Variable::make(Int(32), n); }

std::shared_ptr<const LoopId> loop_of(const std::string &func, int stage, const std::string &dim) {
    return test::loop_of(test::named_func(func), stage, dim);
}

/** The loops over `name` at the top level of s, in order, and how many min/max nodes
 * each one's body holds. */
std::vector<int> clamps_per_loop(const Stmt &s, const std::string &name) {
    struct Count : IRVisitor {
        int n = 0;
        using IRVisitor::include;
        void visit(const Min *op) override {
            n++;
            IRVisitor::visit(op);
        }
        void visit(const Max *op) override {
            n++;
            IRVisitor::visit(op);
        }
    };
    struct Loops : IRVisitor {
        const std::string *name;
        std::vector<int> counts;
        using IRVisitor::include;
        void visit(const For *op) override {
            if (op->name != *name) return IRVisitor::visit(op);
            Count c;
            c.include(op->body);
            counts.push_back(c.n);
        }
    } loops;
    loops.name = &name;
    loops.include(s);
    return loops.counts;
}

TEST(PartitionLoops, ClampAroundAVectorLoopIsPeeled) {
    // for xo in [0, n): vectorized xv in [0, 8): out[xo * 8 + xv] = in[clamp(xo * 8 + xv - 1, 0, 99)]
    const Expr x = Add::make(Mul::make(var("xo"), i32(8)), var("xv"));
    const Expr clamped = Min::make(Max::make(Sub::make(x, i32(1)), i32(0)), i32(99));
    Stmt store = Store::make("out", Load::make(Int(32), "in", clamped), x, nullptr);
    Stmt s = For::make("xo", i32(0), var("n"), ForType::Serial,
                       For::make("xv", i32(0), i32(8), ForType::Vectorized, store));
    Stmt p = lower::partition_loops(s);
    // A prologue (x - 1 < 0 for the first vector), the steady state without the clamp, and
    // an epilogue (x - 1 > 99 past 100 elements).
    EXPECT_EQ(clamps_per_loop(p, "xo"), (std::vector<int>{2, 0, 2})) << p;
}

TEST(PartitionLoops, ClampWithoutAVectorLoopIsKept) {
    const Expr clamped = Min::make(Max::make(var("x"), i32(0)), i32(99));
    Stmt s = For::make("x", i32(0), var("n"), ForType::Serial,
                       Store::make("out", Load::make(Int(32), "in", clamped), var("x"), nullptr));
    EXPECT_EQ(clamps_per_loop(lower::partition_loops(s), "x"), (std::vector<int>{2})) << s;
}

TEST(PartitionLoops, ShiftInwardsBaseInsideTheClampIsPeeledToo) {
    // x = min(xo * 8, m - 8) + xv (a ShiftInwards split), clamped to [0, 99].
    const Expr x = Add::make(Min::make(Mul::make(var("xo"), i32(8)), Sub::make(var("m"), i32(8))), var("xv"));
    Stmt body = LetStmt::make(
        "x", x, Store::make("out", Load::make(Int(32), "in", Min::make(Max::make(var("x"), i32(0)), i32(99))), var("x"), nullptr));
    Stmt s = For::make("xo", i32(0), var("n"), ForType::Serial, For::make("xv", i32(0), i32(8), ForType::Vectorized, body));
    Stmt p = lower::partition_loops(s);
    const std::vector<int> counts = clamps_per_loop(p, "xo");
    ASSERT_EQ(counts.size(), 3u) << p;
    EXPECT_EQ(counts[1], 0) << p;  // the steady state: neither the split's min nor the clamp
    EXPECT_GT(counts[2], 0) << p;
}

TEST(PartitionLoops, BoundariesOfAPureDefinitionShareOneLoop) {
    // The same clamp in a loop of a pure definition: the prologue and the epilogue are one
    // loop over both ranges (the body is emitted twice, not three times).
    const Expr x = Add::make(Mul::make(var("f.s0.xo"), i32(8)), var("f.s0.xv"));
    const Expr clamped = Min::make(Max::make(Sub::make(x, i32(1)), i32(0)), i32(99));
    Stmt store = Store::make("f", Load::make(Int(32), "in", clamped), x, nullptr);
    Stmt s = For::make("f.s0.xo", i32(0), var("n"), ForType::Serial,
                       For::make("f.s0.xv", i32(0), i32(8), ForType::Vectorized, store, loop_of("f", 0, "xv")),
                       loop_of("f", 0, "xo"));
    Stmt p = lower::partition_loops(s);
    EXPECT_EQ(clamps_per_loop(p, "f.s0.xo"), (std::vector<int>{0})) << p;
    EXPECT_EQ(clamps_per_loop(p, "f.s0.xo.boundary"), (std::vector<int>{2})) << p;
}

TEST(PartitionLoops, BoundariesOfAnUpdateKeepTheirOrder) {
    // An update's iterations may depend on each other: prologue, steady state, epilogue.
    const Expr x = Add::make(Mul::make(var("f.s1.xo"), i32(8)), var("f.s1.xv"));
    const Expr clamped = Min::make(Max::make(Sub::make(x, i32(1)), i32(0)), i32(99));
    Stmt store = Store::make("f", Load::make(Int(32), "in", clamped), x, nullptr);
    Stmt s = For::make("f.s1.xo", i32(0), var("n"), ForType::Serial,
                       For::make("f.s1.xv", i32(0), i32(8), ForType::Vectorized, store, loop_of("f", 1, "xv")),
                       loop_of("f", 1, "xo"));
    Stmt p = lower::partition_loops(s);
    EXPECT_EQ(clamps_per_loop(p, "f.s1.xo"), (std::vector<int>{2, 0, 2})) << p;
}

TEST(PartitionLoops, ShiftInwardsBaseOfASmallVectorLoopIsPeeled) {
    // x = min(xo * 8, m - 8) + xv, no clamp: the steady state uses xo * 8 (no min), the
    // last iteration keeps it.
    const Expr x = Add::make(Min::make(Mul::make(var("xo"), i32(8)), Sub::make(var("m"), i32(8))), var("xv"));
    Stmt body = LetStmt::make("x", x, Store::make("out", Load::make(Int(32), "in", var("x")), var("x"), nullptr));
    Stmt s = For::make("xo", i32(0), var("n"), ForType::Serial, For::make("xv", i32(0), i32(8), ForType::Vectorized, body));
    EXPECT_EQ(clamps_per_loop(lower::partition_loops(s), "xo"), (std::vector<int>{0, 1})) << lower::partition_loops(s);
}

TEST(PartitionLoops, ShiftInwardsBaseOfALargeBodyIsKept) {
    // The same with 65 loads: a copy of the body would cost more than the min.
    const Expr x = Add::make(Min::make(Mul::make(var("xo"), i32(8)), Sub::make(var("m"), i32(8))), var("xv"));
    Expr sum = Load::make(Int(32), "in", var("x"));
    for (int k = 1; k < 65; k++) sum = Add::make(sum, Load::make(Int(32), "in", Add::make(var("x"), i32(k))));
    Stmt body = LetStmt::make("x", x, Store::make("out", sum, var("x"), nullptr));
    Stmt s = For::make("xo", i32(0), var("n"), ForType::Serial, For::make("xv", i32(0), i32(8), ForType::Vectorized, body));
    EXPECT_EQ(clamps_per_loop(lower::partition_loops(s), "xo"), (std::vector<int>{1})) << lower::partition_loops(s);
}

TEST(PartitionLoops, ShiftInwardsBaseAroundAReductionOnTheLanesIsPeeled) {
    // A per-point sum computed inside the vector loop (its serial loop runs on the lanes)
    // is part of the body, whose 10 loads and stores stay under the limit: peeled. A serial
    // loop between the loop and the vector loop makes it not the innermost: kept.
    const Expr x = Add::make(Min::make(Mul::make(var("xo"), i32(8)), Sub::make(var("m"), i32(8))), var("xv"));
    Stmt acc = Store::make("acc", Add::make(Load::make(Int(32), "acc", i32(0)), Load::make(Int(32), "in", Add::make(var("x"), var("r")))),
                           i32(0), nullptr);
    Stmt body = LetStmt::make(
        "x", x,
        Block::make(Store::make("acc", i32(0), i32(0), nullptr),
                    Block::make(For::make("r", i32(0), i32(3), ForType::Serial, acc),
                                Store::make("out", Load::make(Int(32), "acc", i32(0)), var("x"), nullptr))));
    Stmt s = For::make("xo", i32(0), var("n"), ForType::Serial, For::make("xv", i32(0), i32(8), ForType::Vectorized, body));
    EXPECT_EQ(clamps_per_loop(lower::partition_loops(s), "xo"), (std::vector<int>{0, 1})) << lower::partition_loops(s);
    Stmt rows = For::make("xo", i32(0), var("n"), ForType::Serial,
                          For::make("y", i32(0), i32(4), ForType::Serial,
                                    For::make("xv", i32(0), i32(8), ForType::Vectorized, body)));
    EXPECT_EQ(clamps_per_loop(lower::partition_loops(rows), "xo"), (std::vector<int>{1})) << lower::partition_loops(rows);
}

}  // namespace
