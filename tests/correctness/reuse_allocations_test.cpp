// Storage reuse (src/lower/ReuseAllocations.cpp): a buffer whose scope begins after the
// last access of an enclosing one of the same type and at least its size takes its memory.
// Checked on the lowered statement (which buffers remain) and on the results, against the
// reference interpreter.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "lower/Lower.h"

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

void expect_reference(const Func &out, int n) {
    Buffer<float> got = out.realize({n}), want = out.realize_reference({n});
    for (int i = 0; i < n; i++) EXPECT_EQ(got(i), want(i)) << i;
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
