// Names are the user's: a Func, RDom, ImageParam or Param may be named like the variables
// lowering makes ("f.s0.x", "f.tmp", "in.min.0"), and the pipeline still computes what its
// algorithm says. Lowering decides by loop identity, not by parsing names, and derives the
// names it makes from a prefix per Func that no other Func's names and no buffer or
// parameter of the pipeline can be confused with (src/lower/Pipeline.h, FuncPlan::prefix).

#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "support/differential.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

void expect_matches(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents) {
    EXPECT_EQ(differential_check(f, mins, extents, false), "") << f.name();
    EXPECT_EQ(prophecy_check(f, mins, extents), "") << f.name();
}

Buffer<int32_t> ramp_input(int w, const std::string &name) {
    Buffer<int32_t> b(std::vector<int>{w}, name);
    for (int x = 0; x < w; x++) b(x) = (x * 37) % 101 - 50;
    return b;
}

}  // namespace

TEST(Naming, AFuncNamedLikeAnotherFuncsLoopVariable) {
    // "a.s0.b" is computed inside a's loop over xo; its own loop over x is called
    // "a.s0.b.s0.x" by the naming scheme of loops, which is also what Func "a" would call a
    // loop over "b.s0.x".
    Buffer<int32_t> in = ramp_input(70, "in");
    Var x("x"), xo("xo"), xi("xi");
    Func b("a.s0.b"), a("a");
    b(x) = in(clamp(x, 0, 69)) * 3 + x;
    a(x) = b(x - 1) + b(x + 1) - b(x);
    a.split(x, xo, xi, 8).vectorize(xi);
    b.compute_at(a, xo).vectorize(x, 4);
    expect_matches(a, {0}, {64});
}

TEST(Naming, AParamNamedLikeALoopVariable) {
    // Param "a.s0.x" against Func a's loop over x.
    Buffer<int32_t> in = ramp_input(40, "in");
    Param<int32_t> p("a.s0.x");
    p.set(5);
    Var x("x");
    Func a("a");
    a(x) = in(x) * p + x;
    a.vectorize(x, 4);
    expect_matches(a, {0}, {40});
}

TEST(Naming, AFuncNamedLikeTheOutputsSeparateStorage) {
    // The output f has an update writing through an RDom, so it is computed in storage of
    // its own ("f.tmp") and copied; another Func is named "f.tmp".
    Buffer<int32_t> in = ramp_input(16, "in");
    Var x("x");
    Func g("f.tmp"), f("f");
    RDom r(0, 16, "r");
    g(x) = in(clamp(x, 0, 15)) + 1;
    g.compute_root();
    f(x) = g(x);
    f(r.x / 2) += g(r.x);
    expect_matches(f, {0}, {8});
}

TEST(Naming, AnImageNamedLikeAFuncsVariables) {
    // The buffer descriptors of ImageParam "a.s0" are "a.s0.min.0" and so on; Func a's loop
    // over x is "a.s0.x".
    Buffer<int32_t> data = ramp_input(20, "a.s0");
    ImageParam in(Int(32), 1, "a.s0");
    in.set(data);
    Var x("x"), xo("xo"), xi("xi");
    Func a("a");
    a(x) = in(x) + in(clamp(x + 1, 0, 19));
    a.split(x, xo, xi, 4, TailStrategy::GuardWithIf);
    expect_matches(a, {0}, {18});
}

TEST(Naming, AnRDomNamedLikeALoopOfAnotherFunc) {
    // Func "b" has an update over RDom "b.s0" (RVar "b.s0.x", loop variable "b.s1.b.s0.x");
    // Func "b.s1.b" has a pure loop over x ("b.s1.b.s0.x").
    Buffer<int32_t> in = ramp_input(12, "in");
    Var x("x");
    RDom r(0, 4, "b.s0");
    Func c("b.s1.b"), b("b");
    c(x) = in(clamp(x, 0, 11)) * 2;
    c.compute_root();
    b(x) = c(x);
    b(x) += c(x + r.x) * r.x;
    expect_matches(b, {0}, {8});
}
