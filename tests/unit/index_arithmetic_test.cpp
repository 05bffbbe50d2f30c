// Index arithmetic: lowering marks the coordinate arithmetic it assumes stays in the int32
// range (src/lower/MarkIndexArithmetic.cpp), never the algorithm's arithmetic on values;
// the IR interpreter checks the marks; compiled code checks on entry that buffers lie in
// the supported range of coordinates (src/lower/BufferArgumentChecks.cpp).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "lower/Pipeline.h"
#include "semantics/IRInterpreter.h"
#include "support/hand_lowered.h"

using namespace tessera;
using namespace tessera::ir;
using ::testing::HasSubstr;

namespace {

/** The +, -, * nodes of a statement: in indices (loads, stores) and in stored values, each
 * counted as marked or not. */
struct Census : IRVisitor {
    int index_marked = 0, index_unmarked = 0, value_marked = 0, value_unmarked = 0;
    int in_index = 0, in_value = 0;
    using IRVisitor::include;

    template<typename T>
    void arith(const T *op) {
        if (in_index > 0) (op->no_overflow ? index_marked : index_unmarked)++;
        else if (in_value > 0) (op->no_overflow ? value_marked : value_unmarked)++;
        IRVisitor::visit(op);
    }
    void visit(const Add *op) override { arith(op); }
    void visit(const Sub *op) override { arith(op); }
    void visit(const Mul *op) override { arith(op); }
    void visit(const Load *op) override {
        const int saved = in_value;
        in_value = 0;
        in_index++;
        include(op->index);
        in_index--;
        in_value = saved;
    }
    void visit(const Store *op) override {
        in_value++;
        include(op->value);
        in_value--;
        in_index++;
        include(op->index);
        in_index--;
    }
};

/** The marked +, -, * with a constant operand of 2^30 or more in magnitude. */
struct HugeConstantsMarked : IRVisitor {
    int marked = 0;
    using IRVisitor::include;
    template<typename T>
    void arith(const T *op) {
        auto huge = [](const Expr &e) {
            const IntImm *c = as<IntImm>(e);
            return c && (c->value >= (1 << 30) || c->value <= -(1 << 30));
        };
        if (op->no_overflow && (huge(op->a) || huge(op->b))) marked++;
        IRVisitor::visit(op);
    }
    void visit(const Add *op) override { arith(op); }
    void visit(const Sub *op) override { arith(op); }
    void visit(const Mul *op) override { arith(op); }
};

TEST(IndexArithmetic, CoordinatesAreMarkedAndValuesAreNot) {
    // Value arithmetic (in(x - 1) + in(x) * 3) is the algorithm's, which wraps; the
    // coordinates x - 1 (and their element offsets) are index arithmetic.
    Buffer<int32_t> in(std::vector<int>{40}, "in");
    Var x("x");
    Func f("f");
    f(x) = in(clamp(x - 1, 0, 39)) + in(x) * 3;
    ir::LoweredPipeline p = lower::lower(f.data());
    Census c;
    c.include(p.body);
    EXPECT_GT(c.index_marked, 0);
    EXPECT_EQ(c.value_marked, 0);
    EXPECT_GT(c.value_unmarked, 0);
}

TEST(IndexArithmetic, DataDependentCoordinatesAreNotMarked) {
    // lut(clamp(in(x) + 1, 0, 9)): in(x) + 1 wraps as the algorithm says (in(x) may be
    // INT32_MAX); the clamp, not an assumption, bounds the read.
    Buffer<int32_t> in(std::vector<int>{8}, "in"), lut(std::vector<int>{10}, "lut");
    for (int i = 0; i < 8; i++) in(i) = i == 3 ? INT32_MAX : i;
    for (int i = 0; i < 10; i++) lut(i) = 100 + i;
    Var x("x");
    Func f("f");
    f(x) = lut(clamp(in(x) + 1, 0, 9));
    ir::LoweredPipeline p = lower::lower(f.data());
    struct FindDataAdd : IRVisitor {
        int marked = 0, unmarked = 0;
        using IRVisitor::include;
        void visit(const Add *op) override {
            if (as<Load>(op->a) || as<Load>(op->b)) (op->no_overflow ? marked : unmarked)++;
            IRVisitor::visit(op);
        }
    } d;
    d.include(p.body);
    EXPECT_EQ(d.marked, 0);
    EXPECT_EQ(d.unmarked, 1);
    // And the IR interpreter runs it, with in(3) + 1 wrapping to INT32_MIN (clamped to 0).
    Buffer<int32_t> out(std::vector<int>{8});
    semantics::run(p, semantics::default_arguments(p, out.data_handle()));
    EXPECT_EQ(out(3), 100);
    EXPECT_EQ(out(2), 103);
}

TEST(IndexArithmetic, BoundsOfSaturatedValuesAndHugeConstantsAreNotMarked) {
    // A scattered update's row clamp(~int32(f(r)) * p, -1, 4): int32 of a float64 Func
    // saturates to [INT32_MIN, INT32_MAX], and its products with p leave int32. Bounds
    // inference once bounded the rows by p * INT32_MIN and p * INT32_MAX, marked as index
    // arithmetic (0 - p * INT32_MIN wrapped for p = 1); the clamp bounds them. And an RDom
    // predicate 2^30 * r < ... is the algorithm's own arithmetic, which wraps (r = -4 makes
    // 0): it is not marked either.
    Buffer<int32_t> in(std::vector<int>{6}, "in");
    const int values[6] = {3, -3, -2, 2, 5, 1};
    for (int i = 0; i < 6; i++) in(i) = values[i];
    Param<int32_t> p("p");
    p.set_range(0, 10);
    Var x("x"), y("y");
    Func f("f"), k("k"), g("g"), h("h");
    f(x) = cast<double>(in(clamp(x, 0, 5)));
    k(y) = y * 3;
    g(x, y) = k(y);
    RDom r(0, 6, "r");
    g(x, clamp((~cast<int32_t>(f(r))) * p, -1, 4)) += 1;
    RDom s(-4, 4, "s");
    s.where(Expr(1 << 30) * s.x < 1);
    g(x, 0) += s.x;
    h(x) = g(x, -1) * 100 + g(x, 0);
    f.compute_root();
    k.compute_root();
    g.compute_root();
    for (int pv : {1, 2, 3}) {
        p.set(pv);
        ir::LoweredPipeline lowered = lower::lower(h.data());
        HugeConstantsMarked huge;
        huge.include(lowered.body);
        EXPECT_EQ(huge.marked, 0) << "p = " << pv;
        Buffer<int32_t> out(std::vector<int>{2});
        // The IR interpreter checks every mark it meets.
        semantics::run(lowered, semantics::default_arguments(lowered, out.data_handle()));
        Buffer<int32_t> expected = h.realize_reference({2})[0];
        EXPECT_EQ(out(0), expected(0)) << "p = " << pv;
        EXPECT_EQ(out(1), expected(1)) << "p = " << pv;
        Buffer<int32_t> compiled = h.realize({2})[0];
        EXPECT_EQ(compiled(0), expected(0)) << "p = " << pv;
    }
}

TEST(IndexArithmetic, TheInterpreterChecksTheMarks) {
    // for x in [0, 4): out[x] = 0 with an index x * 2^30 marked: x = 2 leaves int32.
    Func f("f");
    Var x("x");
    f(x) = 0;
    const Expr big = Mul::make(Variable::make(Int(32), "x"), IntImm::make(Int(32), 1 << 30), true);
    const ir::LoweredPipeline p =
        test::store_loop_pipeline(f.data(), IntImm::make(Int(32), 0), Cast::make(Int(64), Sub::make(big, big)), 4);
    Buffer<int32_t> b(std::vector<int>{4});
    try {
        semantics::run(p, semantics::default_arguments(p, b.data_handle()));
        FAIL() << "no error";
    } catch (const InternalError &e) {
        EXPECT_THAT(e.what(), HasSubstr("(marked as staying in the int32 range) has the value 2147483648"));
    }
}

TEST(IndexArithmetic, BuffersBeyondTheSupportedCoordinatesAreRejectedOnEntry) {
    Buffer<int32_t> in(std::vector<int>{8}, "in");
    Var x("x");
    Func f("f");
    f(x) = in(x) + 1;
    // The output window at [2^30 - 4, 2^30 + 3]: its end is past the supported range.
    Buffer<int32_t> out(std::vector<int>{8}, "out");
    out.set_min({(1 << 30) - 4});
    in.set_min({(1 << 30) - 4});
    try {
        f.realize(out);
        FAIL() << "no error";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(e.what(), HasSubstr("Input buffer \"in\" has the coordinates [1073741820, 1073741827], outside "
                                        "[-1073741824, 1073741823] in some dimension"));
    }
    // Just inside the range, it runs.
    out.set_min({(1 << 30) - 8});
    in.set_min({(1 << 30) - 8});
    for (int i = 0; i < 8; i++) in((1 << 30) - 8 + i) = i;
    f.realize(out);
    EXPECT_EQ(out((1 << 30) - 1), 8);
}

}  // namespace
