// Early frees (src/lower/FreeAfterLastUse.cpp): each buffer goes back to the allocator
// after its last access where work follows, never inside a loop or a branch of its
// allocation's body. Checked on the order of the lowered statement's loops and Frees, on
// the contract (src/ir/VerifyLowered.h, after every pass), and on the results of the
// compiled code and of the lowered code in the IR interpreter, against the reference.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"

using namespace tessera;

namespace {

/** The lowered statement's loops (by the loop of the algorithm each is), allocations and
 * Frees, in program order. */
std::vector<std::string> events(const ir::LoweredPipeline &p) {
    struct Walk : ir::IRVisitor {
        std::vector<std::string> seen;
        using ir::IRVisitor::include;
        void visit(const ir::For *op) override {
            seen.push_back("for " + (op->loop && op->loop->func ? op->loop->func->name + ".s" +
                                                                      std::to_string(op->loop->stage) + "." + op->loop->dim
                                                                : op->name));
            ir::IRVisitor::visit(op);
        }
        void visit(const ir::Allocate *op) override {
            seen.push_back("allocate " + op->name);
            ir::IRVisitor::visit(op);
        }
        void visit(const ir::Free *op) override { seen.push_back("free " + op->name); }
    } w;
    w.include(p.body);
    return w.seen;
}

Buffer<float> ramp(int n) {
    Buffer<float> b(std::vector<int>{n}, "in");
    for (int i = 0; i < n; i++) b(i) = float(i % 7) - 2.5f;
    return b;
}

/** The compiled pipeline and the lowered code in the IR interpreter give the reference's
 * values over [0, n). */
void expect_reference(const Func &out, const ir::LoweredPipeline &p, int n) {
    Buffer<float> got = out.realize({n}), want = out.realize_reference({n});
    Buffer<float> interpreted(std::vector<int>{n});
    semantics::run(p, semantics::default_arguments(p, interpreted.data_handle()), {});
    for (int i = 0; i < n; i++) {
        EXPECT_EQ(got(i), want(i)) << i;
        EXPECT_EQ(interpreted(i), want(i)) << i;
    }
}

lower::LowerOptions checked() {
    lower::LowerOptions o;
    o.check_invariants = true;  // the contract after every pass from storage flattening on
    return o;
}

}  // namespace

TEST(FreeAfterLastUse, EachStageOfAChainIsFreedOnceItsConsumerIsComputed) {
    // f -> g -> h -> out, all at the root, over a window of any size (no reuse of constant
    // sizes applies): f is dead once g is computed, g once h is; h is read by the last loop,
    // after which nothing runs, so its buffer lives to the end.
    Buffer<float> in = ramp(80);
    Var x("x");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = in(x) * 2.0f;
    g(x) = f(x) + f(x + 1);
    h(x) = g(x) * g(x + 2);
    out(x) = h(x) - 1.0f;
    f.compute_root();
    g.compute_root();
    h.compute_root();
    ir::LoweredPipeline p = lower::lower(out.data(), checked());
    EXPECT_EQ(events(p), (std::vector<std::string>{"allocate f", "for f.s0.x", "allocate g", "for g.s0.x", "free f",
                                                   "allocate h", "for h.s0.x", "free g", "for out.s0.x"}));
    for (int n : {1, 5, 64}) expect_reference(out, p, n);
}

TEST(FreeAfterLastUse, ABufferReadByALaterStageLivesUntilThatStage) {
    // The output reads f too: f lives until the last loop, g is freed after h's loop.
    Buffer<float> in = ramp(80);
    Var x("x");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = in(x) * 2.0f;
    g(x) = f(x) + 1.0f;
    h(x) = g(x) * 3.0f + g(x + 1);
    out(x) = h(x) + f(x + 2);
    f.compute_root();
    g.compute_root();
    h.compute_root();
    ir::LoweredPipeline p = lower::lower(out.data(), checked());
    EXPECT_EQ(events(p), (std::vector<std::string>{"allocate f", "for f.s0.x", "allocate g", "for g.s0.x", "allocate h",
                                                   "for h.s0.x", "free g", "for out.s0.x"}));
    for (int n : {3, 40}) expect_reference(out, p, n);
}

TEST(FreeAfterLastUse, ABufferComputedInsideALoopIsFreedWithinTheIteration) {
    // f and g computed per row of the output: in each row, f is dead once g's row is
    // computed, before the output's row; the Free is in the row loop's body, with f's
    // allocation, and runs once per row.
    Buffer<float> in2(std::vector<int>{40, 12}, "in2");
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 40; x++) in2(x, y) = float((x * 3 + y) % 11);
    Var x("x"), y("y");
    Func f("f"), g("g"), out("out");
    f(x, y) = in2(x, y) + in2(x + 1, y);
    g(x, y) = f(x, y) * 2.0f + f(x + 2, y);
    out(x, y) = g(x, y) + g(x + 1, y);
    f.compute_at(out, y);
    g.compute_at(out, y);
    ir::LoweredPipeline p = lower::lower(out.data(), checked());
    // (f's and g's rows are loops over y of one iteration.)
    EXPECT_EQ(events(p), (std::vector<std::string>{"for out.s0.y", "allocate f", "for f.s0.y", "for f.s0.x", "allocate g",
                                                   "for g.s0.y", "for g.s0.x", "free f", "for out.s0.x"}));
    Buffer<float> got = out.realize({30, 10}), want = out.realize_reference({30, 10});
    for (int j = 0; j < 10; j++)
        for (int i = 0; i < 30; i++) EXPECT_EQ(got(i, j), want(i, j)) << i << ", " << j;
}
