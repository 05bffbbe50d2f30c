// undef as a pure definition (docs/semantics.md §7.1): the Func's values are those its
// updates write. Compiled results against the reference interpreter, the lowered code
// (no pure stage), and the errors: undef used elsewhere, a Func with no update, a read of
// a point no update wrote.

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IRVisitor.h"
#include "lower/Lower.h"

using namespace tessera;

namespace {

/** How many stores of the lowered code write each buffer. */
std::map<std::string, int> stores(const ir::LoweredPipeline &p) {
    struct Count : ir::IRVisitor {
        std::map<std::string, int> n;
        using ir::IRVisitor::include;
        void visit(const ir::Store *op) override {
            n[op->buffer]++;
            ir::IRVisitor::visit(op);
        }
    } c;
    c.include(p.body);
    return c.n;
}

Buffer<float> image(int w, int h) {
    Buffer<float> b(std::vector<int>{w, h}, "in");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = float((x * 7 + y * 3) % 11) - 4.0f;
    return b;
}

}  // namespace

TEST(Undef, AnUpdateThatWritesEveryPointDefinesTheFunc) {
    // A transpose through a reduction: t is undef, then written at (r.y, r.x) for every
    // point of the input. Nothing computes t's pure definition.
    Buffer<float> in = image(8, 6);
    Var x("x"), y("y");
    RDom r(0, 8, 0, 6, "r");
    Func t("t"), out("out");
    t(x, y) = undef<float>();
    t(r.y, r.x) = in(r.x, r.y) * 2.0f;
    out(x, y) = t(x, y) + 1.0f;
    t.compute_root();
    ir::LoweredPipeline p = lower::lower(out.data());
    EXPECT_EQ(stores(p)["t"], 1);  // the update only
    Buffer<float> got = out.realize({6, 8}), want = out.realize_reference({6, 8});
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 6; i++) {
            EXPECT_EQ(got(i, j), want(i, j)) << i << ", " << j;
            EXPECT_EQ(want(i, j), in(j, i) * 2.0f + 1.0f);
        }
}

TEST(Undef, TheOutputCanBeUndefWhereItsUpdatesWriteTheWindow) {
    // Tiles of 4 written through two RVars: the output's window is all written.
    Buffer<float> in = image(16, 1);
    Var x("x");
    RDom r(0, 4, 0, 4, "r");
    Func out("out");
    out(x) = undef<float>();
    out(r.y * 4 + r.x) = in(r.y * 4 + r.x, 0) - 1.0f;
    Buffer<float> got = out.realize({16}), want = out.realize_reference({16});
    for (int i = 0; i < 16; i++) EXPECT_EQ(got(i), want(i)) << i;
    EXPECT_EQ(want(5), in(5, 0) - 1.0f);
    // An all-pure update that does not read the Func overwrites every point too.
    Func g("g");
    g(x) = undef<int>();
    g(x) = x * 3;
    Buffer<int> gv = g.realize({10}), gw = g.realize_reference({10});
    for (int i = 0; i < 10; i++) EXPECT_EQ(gv(i), gw(i));
}

TEST(Undef, ReadingAPointNoUpdateWroteIsARuntimeError) {
    Var x("x");
    RDom r(0, 4, "r");
    Func f("f");
    f(x) = undef<float>();
    f(r) = cast<float>(r);
    try {
        f.realize_reference({6});  // f(4) and f(5) are never written
        FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Func \"f\" has no value at (4)"), std::string::npos) << e.what();
    }
    // An update that reads the value before it: undef there.
    Func g("g");
    g(x) = undef<float>();
    g(x) = g(x) + 1.0f;
    EXPECT_THROW(g.realize_reference({3}), RuntimeError);
    // Points the reduction writes are read fine, the others are not.
    Func h("h"), o("o");
    h(x) = undef<float>();
    h(r) = cast<float>(r) * 2.0f;
    o(x) = h(x + 1);
    Buffer<float> read = o.realize_reference({3});
    EXPECT_EQ(read(2), 6.0f);
    EXPECT_THROW(o.realize_reference({4}), RuntimeError);
}

TEST(Undef, UndefIsOnlyTheWholeValueOfAPureDefinition) {
    Var x("x");
    RDom r(0, 4, "r");
    auto message = [](const std::function<void()> &define) {
        try {
            define();
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    Func a("a");
    EXPECT_NE(message([&] { a(x) = undef<float>() + 1.0f; }).find("undef is used inside the value"), std::string::npos);
    EXPECT_FALSE(a.defined());
    Func b("b");
    b(x) = undef<float>();
    EXPECT_NE(message([&] { b(r) = undef<float>(); }).find("undef is used in an update"), std::string::npos);
    Func c("c"), d("d");
    c(x) = undef<float>();
    d(x) = c(x) * 2.0f;
    EXPECT_NE(message([&] { lower::lower(d.data()); }).find("Func \"c\" is defined as undef and has no update"),
              std::string::npos);
    EXPECT_THROW(undef(Float(32, 8)), CompileError);
}

TEST(Undef, ABoundOutputWhoseUpdatesWriteInsideItIsComputedInTheOutputBuffer) {
    // The updates write through a reduction dimension, inside the region bound() fixes:
    // no storage of its own and no copy, the stores go to the output buffer. Writing past
    // the bound (or with no bound) keeps the copy.
    Buffer<float> in = image(16, 1);
    Var x("x");
    RDom r(0, 4, 0, 4, "r");
    Func out("out");
    out(x) = undef<float>();
    out(r.y * 4 + r.x) = in(r.y * 4 + r.x, 0) * 3.0f;
    out.bound(x, 0, 16);
    std::map<std::string, int> n = stores(lower::lower(out.data()));
    EXPECT_EQ(n.size(), 1u);
    EXPECT_EQ(n["out"], 1);
    Buffer<float> got = out.realize({16}), want = out.realize_reference({16});
    for (int i = 0; i < 16; i++) EXPECT_EQ(got(i), want(i)) << i;
    // The output buffer must be the bound region: a smaller one is a clear error.
    try {
        out.realize({8});
        FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("is bound to [0, 15] there, where its updates write"), std::string::npos)
            << e.what();
    }

    // Tiles of 4 over 14 points: the last tile's tail cut by a predicate on the
    // coordinate itself, which keeps the writes inside the bound.
    RDom t(0, 4, 0, 4, "t");
    t.where(t.y * 4 + t.x < 14);
    Func cut("cut");
    cut(x) = undef<float>();
    cut(t.y * 4 + t.x) = in(t.y * 4 + t.x, 0) + 0.5f;
    cut.bound(x, 0, 14);
    EXPECT_EQ(stores(lower::lower(cut.data())).count("cut.tmp"), 0u);
    Buffer<float> cg = cut.realize({14}), cw = cut.realize_reference({14});
    for (int i = 0; i < 14; i++) EXPECT_EQ(cg(i), cw(i)) << i;

    Func past("past");
    past(x) = 0.0f;
    past(r.y * 4 + r.x + 1) = in(r.y * 4 + r.x, 0);  // writes 16, past the bound
    past.bound(x, 0, 16);
    EXPECT_EQ(stores(lower::lower(past.data())).count("past.tmp"), 1u);
}
