// The lives of buffers. Storage reuse (src/lower/ReuseAllocations.cpp): a buffer whose
// scope begins after the last access of an enclosing one of the same type and at least its
// size takes its memory. Early frees (src/lower/FreeAfterLastUse.cpp): each buffer goes back
// to the allocator after its last access where work follows, never inside a loop or a
// branch of its allocation's body. Checked on the lowered statement (which buffers remain;
// the order of its loops and Frees), on the contract (src/ir/VerifyLowered.h, after every
// pass), and on the results, against the reference interpreter (the early frees also on
// the lowered code in the IR interpreter).

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"

using namespace tessera;

namespace {

std::vector<std::string> allocations(const ir::LoweredPipeline &p) {
    struct Names : ir::IRVisitor {
        std::vector<std::string> names;
        using ir::IRVisitor::include;
        void visit(const ir::Allocate *op) override {
            names.push_back(op->name);
            ir::IRVisitor::visit(op);
        }
    } n;
    n.include(p.body);
    return n.names;
}

Buffer<float> ramp(int n) {
    Buffer<float> b(std::vector<int>{n}, "in");
    for (int i = 0; i < n; i++) b(i) = float(i % 7) - 2.5f;
    return b;
}

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

/** The compiled pipeline (and, given, its lowered code in the IR interpreter) give the
 * reference's values over [0, n). */
void expect_reference(const Func &out, int n, const ir::LoweredPipeline *lowered = nullptr) {
    Buffer<float> got = out.realize({n}), want = out.realize_reference({n});
    for (int i = 0; i < n; i++) EXPECT_EQ(got(i), want(i)) << i;
    if (!lowered) return;
    Buffer<float> interpreted(std::vector<int>{n});
    semantics::run(*lowered, semantics::default_arguments(*lowered, interpreted.data_handle()), {});
    for (int i = 0; i < n; i++) EXPECT_EQ(interpreted(i), want(i)) << i;
}

lower::LowerOptions checked() {
    lower::LowerOptions o;
    o.check_invariants = true;  // the contract after every pass from storage flattening on
    return o;
}

}  // namespace

TEST(ReuseAllocations, ALaterStageTakesTheBufferOfADeadOne) {
    // f -> g -> h, all at the root, of constant sizes: f is dead once g is computed, so h
    // (64 cells) takes f's buffer (67 cells); g is read by the output and keeps its own.
    Buffer<float> in = ramp(80);
    Var x("x");
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = in(x) * 2.0f;
    g(x) = f(x) + f(x + 1);
    h(x) = g(x) * g(x + 2);
    out(x) = h(x) - g(x);
    f.compute_root();
    g.compute_root();
    h.compute_root();
    out.bound(x, 0, 64);
    ir::LoweredPipeline p = lower::lower(out.data());
    EXPECT_EQ(p.reused_allocations, (std::vector<std::pair<std::string, std::string>>{{"h", "f"}}));
    EXPECT_EQ(allocations(p), (std::vector<std::string>{"f", "g"}));
    expect_reference(out, 64);
}

TEST(ReuseAllocations, NoBufferIsTakenWhileItsValueIsLive) {
    Buffer<float> in = ramp(80);
    Var x("x");
    // The output reads f after h is computed: f stays live, and nothing takes its buffer.
    // h reads g only at the point it computes, and g is dead after h: h takes g's buffer
    // in place.
    Func f("f"), g("g"), h("h"), out("out");
    f(x) = in(x) * 2.0f;
    g(x) = f(x) + 1.0f;
    h(x) = g(x) * 3.0f;
    out(x) = h(x) + f(x);
    f.compute_root();
    g.compute_root();
    h.compute_root();
    out.bound(x, 0, 64);
    ir::LoweredPipeline p = lower::lower(out.data());
    EXPECT_EQ(p.reused_allocations, (std::vector<std::pair<std::string, std::string>>{{"h", "g"}}));
    EXPECT_EQ(allocations(p), (std::vector<std::string>{"f", "g"}));
    expect_reference(out, 64);

    // A buffer of another type is not taken: c holds ints where a held floats (c takes
    // b's, of ints, in place).
    Func a("a"), b("b"), c("c"), o2("o2");
    a(x) = in(x) * 2.0f;
    b(x) = cast<int>(a(x));
    c(x) = b(x) * 2;  // int, while a is float
    o2(x) = cast<float>(c(x));
    a.compute_root();
    b.compute_root();
    c.compute_root();
    o2.bound(x, 0, 64);
    EXPECT_EQ(lower::lower(o2.data()).reused_allocations, (std::vector<std::pair<std::string, std::string>>{{"c", "b"}}));
    expect_reference(o2, 64);
}

TEST(ReuseAllocations, InPlaceOnlyWhereEachCellIsReadByItsOwnStoreOnce) {
    // g reads f at the point it computes: in place. Reading f at another point too (g2),
    // or computing g's points twice (a vectorized split whose tail shifts inward
    // overlaps the vector before it), keeps g's own buffer.
    Buffer<float> in = ramp(80);
    Var x("x"), xo("xo"), xi("xi");
    auto pipeline = [&](int variant) {
        Func f("f"), g("g"), out("out");
        f(x) = in(x) * 2.0f;
        g(x) = variant == 1 ? f(x) + f(x + 1) : f(x) - 1.0f;
        out(x) = g(x) * 3.0f;
        f.compute_root();
        g.compute_root();
        if (variant == 2) g.vectorize(x, 8);  // 60 points: the last vector shifts inward
        out.bound(x, 0, 60);
        return out;
    };
    EXPECT_EQ(lower::lower(pipeline(0).data()).reused_allocations, (std::vector<std::pair<std::string, std::string>>{{"g", "f"}}));
    expect_reference(pipeline(0), 60);
    EXPECT_TRUE(lower::lower(pipeline(1).data()).reused_allocations.empty());
    EXPECT_TRUE(lower::lower(pipeline(2).data()).reused_allocations.empty());
    expect_reference(pipeline(2), 60);
}

TEST(ReuseAllocations, NothingIsTakenInsideALoopFromOutsideIt) {
    // f at the root, g and h per row of the output: g reads f in every iteration, so h,
    // allocated inside the loop, may not take f's buffer although no access of f follows
    // h's in the loop's body. Inside one iteration, h may take nothing either: g is read
    // by the output after h is computed.
    Buffer<float> in2(std::vector<int>{40, 12}, "in2");
    for (int y = 0; y < 12; y++)
        for (int x = 0; x < 40; x++) in2(x, y) = float((x * 3 + y) % 5);
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h"), out("out");
    f(x, y) = in2(x, y) + 1.0f;
    g(x, y) = f(x, y) * 2.0f;
    h(x, y) = g(x, y) - 1.0f;
    out(x, y) = h(x, y) + g(x, y);
    f.compute_root();
    g.compute_at(out, y);
    h.compute_at(out, y);
    out.bound(x, 0, 32).bound(y, 0, 12);
    ir::LoweredPipeline p = lower::lower(out.data());
    EXPECT_TRUE(p.reused_allocations.empty());
    Buffer<float> got = out.realize({32, 12}), want = out.realize_reference({32, 12});
    for (int j = 0; j < 12; j++)
        for (int i = 0; i < 32; i++) EXPECT_EQ(got(i, j), want(i, j)) << i << ", " << j;
}

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
    for (int n : {1, 5, 64}) expect_reference(out, n, &p);
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
    for (int n : {3, 40}) expect_reference(out, n, &p);
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
