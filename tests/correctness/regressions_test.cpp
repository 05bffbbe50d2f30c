// The real-bug regressions of docs/semantics.md §14, under the default schedule. Each is
// checked through `realize` (compiled code) and `realize_reference` (the oracle), with
// expected values from plain C++.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include <tessera/tessera.h>

#include "support/errors.h"

using namespace tessera;

namespace {

template<typename F>
std::string runtime_error_message(F &&f) {
    return test::error_message<RuntimeError>(std::forward<F>(f));
}

}  // namespace

// R1: a negative RDom extent is an error reported before any value is computed; an
// extent of zero is a no-op.
TEST(Regressions, NegativeRDomExtentIsAStartupError) {
    Var x("x");
    Param<int> n("n");
    Func out("out");
    RDom r(0, n, "r");
    out(x) = 0;
    out(x) = out(x) + r;

    n.set(-3);
    for (bool compiled : {true, false}) {
        std::string msg = runtime_error_message([&] {
            if (compiled) out.realize({4});
            else out.realize_reference({4});
        });
        EXPECT_NE(msg.find("RDom r"), std::string::npos) << msg;
        EXPECT_NE(msg.find("-3"), std::string::npos) << msg;
        EXPECT_NE(msg.find("out"), std::string::npos) << msg;
    }

    n.set(0);
    Buffer<int> zero = out.realize({4});
    for (int i = 0; i < 4; i++) EXPECT_EQ(zero(i), 0);

    n.set(4);
    Buffer<int> sum = out.realize({4});
    for (int i = 0; i < 4; i++) EXPECT_EQ(sum(i), 0 + 1 + 2 + 3);
}

TEST(Regressions, NegativeRDomExtentInAnIntermediateFunc) {
    Var x("x");
    Param<int> n("n");
    Func g("g"), out("out");
    RDom r(0, n, "r");
    g(x) = x;
    g(x) = g(x) + r;
    out(x) = g(x) * 2;
    n.set(-1);
    std::string msg = runtime_error_message([&] { out.realize({3}); });
    EXPECT_NE(msg.find("RDom r"), std::string::npos) << msg;
    EXPECT_NE(msg.find("update 0 of Func \"g\""), std::string::npos) << msg;
    n.set(2);
    Buffer<int> b = out.realize({3});
    for (int i = 0; i < 3; i++) EXPECT_EQ(b(i), (i + 0 + 1) * 2);
}

// R2: an output whose update writes outside the window is realized correctly, with or
// without an identity Func appended.
TEST(Regressions, OutputsWithRDomsAreNotImpureIdentities) {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h");
    f(x, y) = 1;
    g(x, y) = 1 + f(x, y);
    RDom r(-10, 15, -10, 15, "r");
    g(r.x, r.y) = g(r.x, r.y) + 1;
    Buffer<int> direct = g.realize({3, 3});
    h(x, y) = g(x, y);
    Buffer<int> through = h.realize({3, 3});
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            EXPECT_EQ(direct(i, j), 3);
            EXPECT_EQ(through(i, j), 3);
        }
}

// R3: division by zero never traps; x / 0 == 0.
TEST(Regressions, DivisionByZeroIsTotal) {
    Var x("x");
    Func out("out");
    out(x) = 100 / (27 - x);
    Buffer<int> b({40});
    b.set_min({0});
    out.realize(b);
    for (int i = 0; i < 40; i++) {
        int d = 27 - i;
        // With a non-negative dividend, C's truncating division is Euclidean.
        int q = d == 0 ? 0 : 100 / d;
        EXPECT_EQ(b(i), q) << "x = " << i;
    }
}

// R4: a Func read through a Func value used as an index is computed wherever it is
// read.
TEST(Regressions, IndexDataIsAlwaysComputed) {
    Var x("x");
    Func h("h"), g("g"), f("f");
    h(x) = 10;
    g(x) = x * x;
    f(x) = g(clamp(h(x), 0, 100));
    Buffer<int> b = f.realize({10});
    for (int i = 0; i < 10; i++) EXPECT_EQ(b(i), 100);
}
