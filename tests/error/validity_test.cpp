// The validity rules of the algorithm language (docs/semantics.md §8).
//
// For every rule there is a LEGAL program, which must be accepted and must realize to the
// values computed here by plain C++, and an ILLEGAL one, which must be rejected with a
// tessera::CompileError whose message names the Func, the definition ("pure definition" or
// "update N") and the offending Var, RVar or argument in the user's own names. An
// InternalError (or any other exception type) where a user error is expected is a failure.
//
// Names are chosen to be distinctive ("blurry", "col", "rowv", "rk") so that a substring
// check cannot pass by accident on an unrelated word of the message.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

/** Runs `body`, which must throw a CompileError whose message contains every string of
 * `parts`. Returns the message (empty on failure). */
std::string expect_compile_error(const std::function<void()> &body, std::initializer_list<std::string> parts) {
    try {
        body();
    } catch (const CompileError &e) {
        const std::string msg = e.what();
        for (const std::string &p : parts)
            EXPECT_NE(msg.find(p), std::string::npos) << "the CompileError message\n  " << msg
                                                      << "\ndoes not mention \"" << p << "\"";
        return msg;
    } catch (const InternalError &e) {
        ADD_FAILURE() << "expected a CompileError, got an InternalError: " << e.what();
        return "";
    } catch (const RuntimeError &e) {
        ADD_FAILURE() << "expected a CompileError, got a RuntimeError: " << e.what();
        return "";
    } catch (const std::exception &e) {
        ADD_FAILURE() << "expected a CompileError, got another exception: " << e.what();
        return "";
    }
    ADD_FAILURE() << "expected a CompileError, but nothing was thrown";
    return "";
}

/** The values of a 1-D int32 Func on [min, min + extent). */
std::vector<int32_t> values_1d(const Func &f, int min, int extent) {
    Buffer<int32_t> out(std::vector<int>{extent});
    out.set_min(min);
    f.realize(out);
    std::vector<int32_t> v;
    for (int x = min; x < min + extent; x++) v.push_back(out(x));
    return v;
}

// ---------------------------------------------------------------------------------------
// Rule 1: unique names.

TEST(Validity, UniqueFuncNamesLegal) {
    Var x("x");
    Func g1("gee"), g2("gee_two"), f("blurry");
    g1(x) = x;
    g2(x) = x * 2;
    EXPECT_NO_THROW(f(x) = g1(x) + g2(x));
    EXPECT_EQ(values_1d(f, -2, 5), (std::vector<int32_t>{-6, -3, 0, 3, 6}));
}

TEST(Validity, TwoFuncsWithTheSameNameInOnePipeline) {
    Var x("x");
    Func g1("gee"), g2("gee"), f("blurry");
    g1(x) = x;
    g2(x) = x * 2;
    // Each Func alone is fine; they clash when one pipeline uses both.
    expect_compile_error([&] { f(x) = g1(x) + g2(x); }, {"blurry", "pure definition", "\"gee\""});
    // The rejected definition is not recorded: f can still be defined correctly.
    EXPECT_FALSE(f.defined());
    EXPECT_NO_THROW(f(x) = g1(x) + 1);
    EXPECT_EQ(values_1d(f, 0, 3), (std::vector<int32_t>{1, 2, 3}));
}

TEST(Validity, TwoFuncsWithTheSameNameMeetInAnUpdate) {
    Var x("x");
    Func g1("gee"), g2("gee"), f("blurry");
    g1(x) = x;
    g2(x) = x * 2;
    f(x) = g1(x);
    expect_compile_error([&] { f(x) = f(x) + g2(x); }, {"blurry", "update 0", "\"gee\""});
    EXPECT_EQ(f.num_update_definitions(), 0);
}

TEST(Validity, FuncAndBufferWithTheSameName) {
    Var x("x");
    Buffer<int32_t> b(std::vector<int>{4}, "gee");
    Func g("gee"), f("blurry");
    g(x) = x;
    expect_compile_error([&] { f(x) = g(x) + b(clamp(x, 0, 3)); }, {"blurry", "pure definition", "\"gee\""});

    // Legal: the same program with distinct names.
    Buffer<int32_t> c(std::vector<int>{4}, "gee_data");
    for (int i = 0; i < 4; i++) c(i) = 100 * i;
    Func h("hbuf");
    EXPECT_NO_THROW(h(x) = g(x) + c(clamp(x, 0, 3)));
    EXPECT_EQ(values_1d(h, -1, 6), (std::vector<int32_t>{-1, 0, 101, 202, 303, 304}));
}

TEST(Validity, FuncAndParamWithTheSameName) {
    Var x("x");
    Param<int32_t> p("gee", 5);
    Func g("gee"), f("blurry");
    g(x) = x;
    expect_compile_error([&] { f(x) = g(x) + p; }, {"blurry", "pure definition", "\"gee\""});
}

// Pure Var names are unique within a Func: f(x, x) = ...
TEST(Validity, DuplicatePureVars) {
    Var col("col"), rowv("rowv");
    Func f("blurry");
    expect_compile_error([&] { f(col, col) = col; }, {"blurry", "pure definition", "col"});
    EXPECT_FALSE(f.defined());

    // Two distinct Var objects with the same name are the same Var.
    Var col2("col");
    Func g("gritty");
    expect_compile_error([&] { g(col, col2) = col + col2; }, {"gritty", "pure definition", "col"});

    // Legal: distinct Vars.
    Func h("hbuf");
    EXPECT_NO_THROW(h(col, rowv) = col * 10 + rowv);
    Buffer<int32_t> out = h.realize({3, 2});
    for (int y = 0; y < 2; y++)
        for (int xx = 0; xx < 3; xx++) EXPECT_EQ(out(xx, y), xx * 10 + y);
}

TEST(Validity, DuplicateVarOnUpdateLeftHandSide) {
    Var col("col"), rowv("rowv");
    Func f("blurry");
    f(col, rowv) = col + rowv;
    expect_compile_error([&] { f(col, col) = f(col, col) + 1; }, {"blurry", "update 0", "col"});
}

// ---------------------------------------------------------------------------------------
// The arguments of a pure definition are Vars.

TEST(Validity, PureDefinitionArgumentIsAnExpression) {
    Var col("col");
    Func f("blurry");
    expect_compile_error([&] { f(col + 1) = col; }, {"blurry", "pure definition", "col + 1"});
    expect_compile_error([&] { f(3) = 7; }, {"blurry", "pure definition", "argument 0"});
    EXPECT_FALSE(f.defined());
}

TEST(Validity, PureDefinitionArgumentIsAnRVar) {
    Var col("col");
    RDom rk(0, 3, "rk");
    Func f("blurry");
    expect_compile_error([&] { f(rk) = 0; }, {"blurry", "pure definition", "rk.x"});
    Func g("gritty");
    expect_compile_error([&] { g(col, rk.x) = col; }, {"gritty", "pure definition", "rk.x", "argument 1"});
}

TEST(Validity, PureDefinitionUsesAForeignVarOrAnRVar) {
    Var col("col"), rowv("rowv");
    RDom rk(0, 3, "rk");
    Func f("blurry");
    expect_compile_error([&] { f(col) = col + rowv; }, {"blurry", "pure definition", "rowv"});
    expect_compile_error([&] { f(col) = col + rk; }, {"blurry", "pure definition", "rk.x"});
}

// ---------------------------------------------------------------------------------------
// Rule 2: RDom bounds are startup expressions.

TEST(Validity, RDomExtentDependsOnAVar) {
    Var col("col");
    RDom rk(0, col, "rk");  // building it is fine; using it in an update is not
    Func f("blurry");
    f(col) = 0;
    expect_compile_error([&] { f(col) = f(col) + rk; }, {"blurry", "update 0", "rk.x", "col"});
    EXPECT_EQ(f.num_update_definitions(), 0);
}

TEST(Validity, RDomMinDependsOnAVar) {
    Var col("col");
    RDom rk(col, 3, "rk");
    Func f("blurry");
    f(col) = 0;
    expect_compile_error([&] { f(col) = f(col) + rk; }, {"blurry", "update 0", "rk.x", "col"});
}

TEST(Validity, RDomExtentDependsOnAFuncCall) {
    Var col("col");
    Func g("gee"), f("blurry");
    g(col) = col + 2;
    RDom rk(0, g(0), "rk");
    f(col) = 0;
    expect_compile_error([&] { f(col) = f(col) + rk; }, {"blurry", "update 0", "rk.x", "gee"});
}

TEST(Validity, RDomExtentDependsOnABufferElement) {
    Var col("col");
    Buffer<int32_t> b(std::vector<int>{2}, "sizes");
    b(0) = 3;
    RDom rk(0, b(Expr(0)), "rk");  // an element read inside the algorithm, not b(0) = 3
    Func f("blurry");
    f(col) = 0;
    expect_compile_error([&] { f(col) = f(col) + rk; }, {"blurry", "update 0", "rk.x", "sizes"});
}

TEST(Validity, RDomExtentDependsOnAnotherRVar) {
    Var col("col");
    RDom outer(0, 3, "outer");
    RDom rk(0, outer, "rk");
    Func f("blurry");
    f(col) = 0;
    expect_compile_error([&] { f(col) = f(col) + rk; }, {"blurry", "update 0", "rk.x", "outer.x"});
}

TEST(Validity, RDomBoundsFromParamsAndImageParamShapeAreLegal) {
    Var col("col");
    Param<int32_t> n("n");
    Param<int32_t> lo("lo");
    RDom rk(lo, n * 2 - 1, "rk");
    Func f("blurry");
    f(col) = col;
    EXPECT_NO_THROW(f(col) = f(col) + rk);
    n.set(3);   // rk = lo .. lo + 4
    lo.set(-2); // sum of -2..2 = 0
    EXPECT_EQ(values_1d(f, 0, 3), (std::vector<int32_t>{0, 1, 2}));
    lo.set(1);  // sum of 1..5 = 15
    EXPECT_EQ(values_1d(f, 0, 3), (std::vector<int32_t>{15, 16, 17}));

    ImageParam in(Int(32), 1, "input");
    RDom ri(in.dim(0).min(), in.width(), "ri");
    Func s("summed");
    s(col) = 0;
    EXPECT_NO_THROW(s(col) = s(col) + in(ri) * (col + 1));
    Buffer<int32_t> data(std::vector<int>{4});
    data.set_min(10);
    for (int i = 10; i < 14; i++) data(i) = i;  // 10 + 11 + 12 + 13 = 46
    in.set(data);
    EXPECT_EQ(values_1d(s, 0, 2), (std::vector<int32_t>{46, 92}));
}

// ---------------------------------------------------------------------------------------
// Rule 3: the syntactic separation restriction (the three programs of docs/semantics.md §8 rule 4,
// written with g(x) = x * x and RDom r(0, 3)).

TEST(Validity, SeparationIllegalInPlaceShift) {
    Var x("x");
    Func g("gee"), f("blurry");
    g(x) = x * x;
    f(x) = g(x);
    const std::string msg = expect_compile_error([&] { f(x) = f(x + 1); }, {"blurry", "update 0", "x + 1"});
    EXPECT_NE(msg.find("argument 0"), std::string::npos) << msg;
    EXPECT_EQ(f.num_update_definitions(), 0);
}

TEST(Validity, SeparationIllegalMixedSelfReferences) {
    Var x("x");
    Func g("gee"), f("blurry");
    g(x) = x * x;
    f(x) = g(x);
    RDom r(0, 3, "rk");
    expect_compile_error([&] { f(x) = f(x) + f(r); }, {"blurry", "update 0", "rk.x", "\"blurry\""});
}

TEST(Validity, SeparationLegalCallsToOtherFuncsAreUnrestricted) {
    Var x("x");
    Func g("gee"), f("blurry");
    g(x) = x * x;
    f(x) = 0;
    RDom r(0, 3, "rk");
    EXPECT_NO_THROW(f(x) = f(x) + g(x) + g(r));
    // f(x) = 3 x^2 + (0 + 1 + 4)
    std::vector<int32_t> want;
    for (int xx = -3; xx < 4; xx++) want.push_back(3 * xx * xx + 5);
    EXPECT_EQ(values_1d(f, -3, 7), want);
}

TEST(Validity, SeparationLegalWhenNoPureVarIsUsed) {
    // x occurs nowhere in the update, so self-references may be indexed freely.
    Var x("x");
    Func f("blurry");
    f(x) = x;
    RDom r(0, 3, "rk");
    EXPECT_NO_THROW(f(r) = f(r + 1) + 1);
    // Iterations in order r = 0, 1, 2 each read a point not yet written:
    // f(0) = f(1) + 1 = 2, f(1) = f(2) + 1 = 3, f(2) = f(3) + 1 = 4.
    EXPECT_EQ(values_1d(f, -1, 6), (std::vector<int32_t>{-1, 2, 3, 4, 3, 4}));
}

TEST(Validity, SeparationLegalPureDimensionWithReductionDimension) {
    Var x("x"), rowv("rowv");
    Func f("blurry");
    f(x, rowv) = x + rowv;
    RDom r(1, 3, "rk");
    EXPECT_NO_THROW(f(x, r) = f(x, r) + f(x, r - 1));
    Buffer<int32_t> out = f.realize({2, 5});
    for (int xx = 0; xx < 2; xx++) {
        int32_t col[5];
        for (int y = 0; y < 5; y++) col[y] = xx + y;
        for (int y = 1; y < 4; y++) col[y] += col[y - 1];
        for (int y = 0; y < 5; y++) EXPECT_EQ(out(xx, y), col[y]) << "at " << xx << ", " << y;
    }
}

TEST(Validity, SeparationSelfReferenceWithPureVarInWrongPosition) {
    Var x("x"), rowv("rowv");
    Func f("blurry");
    f(x, rowv) = x + rowv;
    expect_compile_error([&] { f(x, rowv) = f(rowv, x); }, {"blurry", "update 0", "argument 0", "rowv"});
}

TEST(Validity, SeparationSelfReferenceInAPredicate) {
    Var x("x");
    Func f("blurry");
    f(x) = x;
    RDom r(0, 3, "rk");
    r.where(f(x + 1) > 0);
    expect_compile_error([&] { f(x) = f(x) + r; }, {"blurry", "update 0", "x + 1"});
}

TEST(Validity, LeftHandSideArgumentIsAnExpressionOfAPureVar) {
    Var x("x");
    Func g("gee"), f("blurry");
    g(x) = x * x;
    f(x) = 0;
    expect_compile_error([&] { f(x + 1) = g(x); }, {"blurry", "update 0", "x + 1", "argument 0"});
    EXPECT_EQ(f.num_update_definitions(), 0);
}

// The bilateral grid's histogram: the bin of a reduction dimension is computed from the
// pure Vars and the RDom. Legal (the formal rule constrains only the pure positions and
// self-references, and Halide accepts it), beside the illegal forms that look like it.
TEST(Validity, ReductionDimensionComputedFromPureVars) {
    Buffer<int32_t> in(std::vector<int>{12, 8}, "in");
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 12; x++) in(x, y) = (x * 7 + y * 13) % 32;
    Var x("x"), y("y"), z("z"), c("c");
    RDom r(0, 4, 0, 4, "r");
    Func hist("hist");
    hist(x, y, z, c) = 0;
    Expr val = in(clamp(x * 4 + r.x, 0, 11), clamp(y * 4 + r.y, 0, 7));
    Expr zi = clamp(val / 8 + x % 2, 0, 4);
    EXPECT_NO_THROW(hist(x, y, zi, c) += select(c == 0, val, 1));
    // The self-reference in the value may use the computed bin too (z is not used).
    Func h2("h2");
    h2(x, y, z) = z;
    EXPECT_NO_THROW(h2(x, y, zi) = h2(x, y, zi) * 2 + h2(x, y, zi + 1));
    // The same, scheduled: the pure loops in parallel and as vector lanes (each lane its
    // own bin: a scatter).
    Func hs("hs");
    hs(x, y, z, c) = 0;
    hs(x, y, zi, c) += select(c == 0, val, 1);
    hs.update(0).reorder(c, x, y).parallel(y).vectorize(x, 2);
    // The bins, counted here.
    for (const Func &f : {hist, hs}) {
        SCOPED_TRACE(f.name());
        Buffer<int32_t> out = f.realize({3, 2, 5, 2});
        for (int yy = 0; yy < 2; yy++)
            for (int xx = 0; xx < 3; xx++) {
                int32_t want[5][2] = {};
                for (int ry = 0; ry < 4; ry++)
                    for (int rx = 0; rx < 4; rx++) {
                        const int v = in(std::min(std::max(xx * 4 + rx, 0), 11), std::min(std::max(yy * 4 + ry, 0), 7));
                        const int bin = std::min(std::max(v / 8 + xx % 2, 0), 4);
                        want[bin][0] += v;
                        want[bin][1] += 1;
                    }
                for (int zz = 0; zz < 5; zz++)
                    for (int cc = 0; cc < 2; cc++) EXPECT_EQ(out(xx, yy, zz, cc), want[zz][cc]) << xx << ", " << yy << ", " << zz << ", " << cc;
            }
    }
    Buffer<int32_t> o2 = h2.realize({3, 2, 6});
    for (int yy = 0; yy < 2; yy++)
        for (int xx = 0; xx < 3; xx++) {
            int32_t col[7];
            for (int zz = 0; zz < 7; zz++) col[zz] = zz;
            for (int ry = 0; ry < 4; ry++)
                for (int rx = 0; rx < 4; rx++) {
                    const int v = in(std::min(std::max(xx * 4 + rx, 0), 11), std::min(std::max(yy * 4 + ry, 0), 7));
                    const int bin = std::min(std::max(v / 8 + xx % 2, 0), 4);
                    col[bin] = col[bin] * 2 + col[bin + 1];
                }
            for (int zz = 0; zz < 6; zz++) EXPECT_EQ(o2(xx, yy, zz), col[zz]) << xx << ", " << yy << ", " << zz;
        }
    // Illegal, side by side: the computed bin in x's own position; x bare in z's position;
    // a self-reference that moves x; a Var the left-hand side lacks.
    Func bad("bad");
    bad(x, y, z) = 0;
    expect_compile_error([&] { bad(x + zi, y, z) = bad(x + zi, y, z) + 1; },
                         {"bad", "update 0", "argument 0", "pure Var x of that position", "bare"});
    expect_compile_error([&] { bad(x, y, x) += 1; }, {"bad", "update 0", "argument 2", "the Var x", "has z there"});
    expect_compile_error([&] { bad(x, y, zi) = bad(x + 1, y, zi) + 1; }, {"bad", "update 0", "x + 1", "argument 0"});
    expect_compile_error([&] { bad(x, 0, zi) += 1; }, {"bad", "update 0", "the Var y", "not a bare argument"});
    EXPECT_EQ(bad.num_update_definitions(), 0);
}

TEST(Validity, VarUsedInUpdateButNotBareOnLeftHandSide) {
    Var col("col"), rowv("rowv");
    Func g("gee"), f("blurry");
    g(col, rowv) = col * rowv;
    f(col, rowv) = 0;
    // rowv is used in the value but argument 1 of the left-hand side is the constant 0.
    expect_compile_error([&] { f(col, 0) = f(col, 0) + g(col, rowv); }, {"blurry", "update 0", "rowv"});
    // An update over an RDom that reads a pure Var it does not have on the left.
    Func h("hbuf");
    h(col) = 0;
    RDom r(0, 3, "rk");
    expect_compile_error([&] { h(r) = g(col, r); }, {"hbuf", "update 0", "col"});

    // Legal: an update at a constant coordinate that does not use rowv.
    EXPECT_NO_THROW(f(col, 0) = f(col, 0) + g(col, 3));
    Buffer<int32_t> out = f.realize({3, 2});
    for (int xx = 0; xx < 3; xx++) {
        EXPECT_EQ(out(xx, 0), 3 * xx);
        EXPECT_EQ(out(xx, 1), 0);
    }
}

TEST(Validity, PureVarsInSwappedPositionsOnUpdateLeftHandSide) {
    // docs/semantics.md §8 rule 2: each pure Var an update uses must appear bare on the
    // left-hand side "in the position it has in the pure definition": f(y, x) = ... after
    // f(x, y) = ... is an error.
    Var col("col"), rowv("rowv");
    Func g("gee"), f("blurry");
    g(col, rowv) = col * 10 + rowv;
    f(col, rowv) = 0;
    expect_compile_error([&] { f(rowv, col) = g(col, rowv); }, {"blurry", "update 0", "rowv"});
}

TEST(Validity, UpdateUsesAVarThatIsNotAnArgumentOfThePureDefinition) {
    // docs/semantics.md §8 rule 2: "An update may use only the pure definition's Vars".
    Var col("col"), zed("zed");
    Func f("blurry");
    f(col) = col;
    expect_compile_error([&] { f(zed) = f(zed) + 1; }, {"blurry", "update 0", "zed"});
    // Legal: the pure definition's own Var.
    EXPECT_NO_THROW(f(col) = f(col) + 1);
    EXPECT_EQ(values_1d(f, -1, 3), (std::vector<int32_t>{0, 1, 2}));
}

TEST(Validity, PredicateUsesAVarNotOnTheLeftHandSide) {
    Var col("col"), rowv("rowv");
    Func f("blurry");
    f(col) = 0;
    RDom r(0, 3, "rk");
    r.where(rowv > 0);
    expect_compile_error([&] { f(col) = f(col) + r; }, {"blurry", "update 0", "rowv"});
    // Legal: a predicate on the update's own Var (f(col) = sum of rk < col, rk in [0, 3)).
    RDom q(0, 3, "qk");
    q.where(q < col);
    EXPECT_NO_THROW(f(col) = f(col) + q);
    EXPECT_EQ(values_1d(f, -1, 6), (std::vector<int32_t>{0, 0, 0, 1, 3, 3}));
}

// ---------------------------------------------------------------------------------------
// Rule 5: the first definition is pure (no self-reference).

TEST(Validity, SelfReferenceInPureDefinition) {
    Var x("x");
    Func f("blurry");
    expect_compile_error([&] { f(x) = f(x - 1) + 1; }, {"blurry", "pure definition", "x - 1"});
    EXPECT_FALSE(f.defined());
    // Legal: the same recurrence written as a pure definition plus an update.
    f(x) = 0;
    RDom r(1, 4, "rk");
    EXPECT_NO_THROW(f(r) = f(r - 1) + 1);
    EXPECT_EQ(values_1d(f, 0, 6), (std::vector<int32_t>{0, 1, 2, 3, 4, 0}));
}

// ---------------------------------------------------------------------------------------
// Rule 6: define before use; no late updates.

TEST(Validity, CallOfAFuncWithNoDefinition) {
    Var x("x");
    Func g("gee"), f("blurry");
    expect_compile_error([&] { f(x) = g(x) + 1; }, {"blurry", "pure definition", "gee"});
    EXPECT_FALSE(f.defined());
    // In an update, too.
    Func h("hbuf");
    h(x) = x;
    expect_compile_error([&] { h(x) = h(x) + g(x); }, {"hbuf", "update 0", "gee"});
    // Legal once g is defined.
    g(x) = 2 * x;
    EXPECT_NO_THROW(f(x) = g(x) + 1);
    EXPECT_EQ(values_1d(f, -1, 3), (std::vector<int32_t>{-1, 1, 3}));
}

TEST(Validity, UpdateAfterAnotherFuncUsedIt) {
    Var x("x");
    Func g("gee"), f("blurry");
    g(x) = x;
    EXPECT_NO_THROW(g(x) = g(x) + 10);  // legal: nobody has used g yet
    f(x) = g(x) * 2;
    expect_compile_error([&] { g(x) = g(x) + 1; }, {"gee", "update 1"});
    EXPECT_EQ(g.num_update_definitions(), 1);
    // f sees exactly the definitions g had when f was defined.
    EXPECT_EQ(values_1d(f, 0, 3), (std::vector<int32_t>{20, 22, 24}));
}

TEST(Validity, UpdateAfterRealize) {
    Var x("x");
    Func g("gee");
    g(x) = x;
    EXPECT_EQ(values_1d(g, 0, 2), (std::vector<int32_t>{0, 1}));
    expect_compile_error([&] { g(x) = g(x) + 1; }, {"gee", "update 0"});
}

// ---------------------------------------------------------------------------------------
// Rule 7: types agree between definitions.

TEST(Validity, UpdateTypeDiffersFromPureDefinition) {
    Var x("x");
    Func f("blurry");
    f(x) = 1;
    expect_compile_error([&] { f(x) = f(x) + 0.5f; }, {"blurry", "update 0", "float32", "int32"});
    Func g("gee");
    g(x) = cast<uint8_t>(x);
    expect_compile_error([&] { g(x) = cast<int16_t>(g(x)) * 2; }, {"gee", "update 0", "int16", "uint8"});
    // Legal: += casts the value to the Func's type (1 + int32(1.7f) == 2).
    EXPECT_NO_THROW(f(x) += 1.7f);
    EXPECT_EQ(values_1d(f, 0, 2), (std::vector<int32_t>{2, 2}));
}

TEST(Validity, CallMadeBeforeTheCalleeWasDefinedWithAnotherType) {
    Var x("x");
    Func g("gee"), f("blurry");
    Expr early = g(x);  // g has no definition yet
    g(x) = cast<float>(x) * 0.5f;
    expect_compile_error([&] { f(x) = early; }, {"blurry", "pure definition", "gee"});
}

// ---------------------------------------------------------------------------------------
// Rule 8: arity.

TEST(Validity, FuncCalledWithTheWrongNumberOfArguments) {
    Var x("x"), rowv("rowv");
    Func g("gee"), f("blurry");
    g(x) = x;
    expect_compile_error([&] { f(x, rowv) = g(x, rowv); }, {"blurry", "pure definition", "gee", "2", "1"});
    Func h("hbuf");
    h(x) = x;
    expect_compile_error([&] { h(x) = h(x) + g(); }, {"hbuf", "update 0", "gee"});
    // Legal arity.
    EXPECT_NO_THROW(f(x, rowv) = g(x) + g(rowv));
    Buffer<int32_t> out = f.realize({2, 2});
    EXPECT_EQ(out(1, 1), 2);
    EXPECT_EQ(out(0, 1), 1);
}

TEST(Validity, SelfCallWithTheWrongNumberOfArguments) {
    Var x("x");
    Func f("blurry");
    f(x) = x;
    expect_compile_error([&] { f(x) = f(x, 0) + 1; }, {"blurry", "update 0", "2", "1"});
}

TEST(Validity, UpdateLeftHandSideWithTheWrongNumberOfArguments) {
    Var x("x"), rowv("rowv");
    Func f("blurry");
    f(x) = x;
    expect_compile_error([&] { f(x, rowv) = x + rowv; }, {"blurry", "update 0", "2", "1"});
    expect_compile_error([&] { f() = 3; }, {"blurry", "update 0", "0", "1"});
    EXPECT_EQ(f.num_update_definitions(), 0);
}

TEST(Validity, BufferReadWithTheWrongNumberOfCoordinates) {
    Var x("x");
    Buffer<int32_t> b(std::vector<int>{4, 4}, "pixels");
    // b(x) alone is b(x, _0), Halide's implicit argument; a definition must bind it.
    Func f("reads_pixels");
    expect_compile_error([&] { f(x) = b(x); }, {"reads_pixels", "pixels", "2 dimensions", "1 coordinate"});
}

TEST(Validity, RealizeWithTheWrongNumberOfSizes) {
    Var x("x");
    Func f("blurry");
    f(x) = x;
    expect_compile_error([&] { (void)f.realize({2, 2}); }, {"blurry", "1", "2"});
}

// ---------------------------------------------------------------------------------------
// All RVars of one update come from one RDom.

TEST(Validity, RVarsOfTwoDifferentRDomsInOneUpdate) {
    Var x("x");
    RDom ra(0, 3, "ra"), rb(0, 4, "rb");
    Func f("blurry");
    f(x) = 0;
    expect_compile_error([&] { f(x) = f(x) + ra + rb; }, {"blurry", "update 0", "ra", "rb"});
    Func g("gee");
    g(x) = 0;
    expect_compile_error([&] { g(ra) = g(ra) + rb; }, {"gee", "update 0", "ra", "rb"});
    // Legal: one RDom with both dimensions, and each RDom in its own update.
    RDom rab(0, 3, 0, 4, "rab");
    EXPECT_NO_THROW(f(x) = f(x) + rab.x + rab.y);  // 4 * (0+1+2) + 3 * (0+1+2+3) = 30
    EXPECT_NO_THROW(f(x) = f(x) + ra);             // + 3
    EXPECT_NO_THROW(f(x) = f(x) * 10 + rb);        // ((33 * 10 + 0) * 10 + 1) * 10 + 2 ...
    int32_t want = 33;
    for (int i = 0; i < 4; i++) want = want * 10 + i;
    EXPECT_EQ(values_1d(f, 5, 1), (std::vector<int32_t>{want}));
}

TEST(Validity, RVarsOfAnotherRDomInAWherePredicate) {
    // The predicate belongs to the update that iterates `ra`; an RVar of `qa` inside it is
    // a second RDom in that update.
    Var x("x");
    RDom ra(0, 5, "ra"), qa(100, 3, 0, 2, "qa");
    ra.where(qa.x > 101);
    Func f("blurry");
    f(x) = 0;
    expect_compile_error([&] { f(x) = f(x) + ra; }, {"blurry", "update 0", "ra", "qa"});

    RDom rb(0, 5, "rb");
    rb.where(qa.y > 0);  // qa.y has no counterpart in the one-dimensional rb
    Func g("gee");
    g(x) = 0;
    expect_compile_error(
        [&] {
            g(x) = g(x) + rb;
            (void)g.realize({1});
        },
        {"gee", "update 0", "rb", "qa"});

    // Legal: a predicate on the update's own RDom (5 + 6 + 7 = 18 for q in [5, 8)).
    RDom rc(0, 8, "rc");
    rc.where(rc >= 5);
    Func h("hbuf");
    h(x) = 0;
    EXPECT_NO_THROW(h(x) = h(x) + rc);
    EXPECT_EQ(values_1d(h, 0, 1), (std::vector<int32_t>{18}));
}

// A rejected definition leaves the Func as it was, so later legal definitions and
// realizations behave as if the bad one had never been attempted.
TEST(Validity, RejectedUpdateLeavesTheFuncUsable) {
    Var x("x");
    Func f("blurry");
    f(x) = x;
    RDom r(0, 3, "rk");
    expect_compile_error([&] { f(x) = f(x + 1) + r; }, {"blurry", "update 0"});
    expect_compile_error([&] { f(x) = f(x) + 0.5f; }, {"blurry", "update 0"});
    EXPECT_NO_THROW(f(x) = f(x) + r);
    EXPECT_EQ(f.num_update_definitions(), 1);
    EXPECT_EQ(values_1d(f, 0, 3), (std::vector<int32_t>{3, 4, 5}));
    // The next update is numbered 1.
    expect_compile_error([&] { f(x + 1) = 0; }, {"blurry", "update 1"});
}

}  // namespace
