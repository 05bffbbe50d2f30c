// print and print_when (docs/semantics.md §6): the value they return, and the lines they
// write, the same from the reference interpreter and from compiled code (scalar, vector
// and parallel), one per evaluation: lowering neither hoists a print out of its loop nor
// merges two of them.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "support/text.h"

using namespace tessera;

namespace {

using test::lines_of;

/** The lines f writes when realized over `sizes`, compiled or by the reference
 * interpreter, sorted if `sorted` (vector lanes and threads write in their own order). */
std::vector<std::string> printed(const Func &f, const std::vector<int> &sizes, bool reference, bool sorted = false,
                                 Buffer<> *out = nullptr) {
    ::testing::internal::CaptureStderr();
    Buffer<> r = reference ? f.realize_reference(sizes) : f.realize(sizes);
    std::vector<std::string> lines = lines_of(::testing::internal::GetCapturedStderr());
    if (out) *out = r;
    if (sorted) std::sort(lines.begin(), lines.end());
    return lines;
}

TEST(Print, ReturnsItsValueAndWritesOneLinePerEvaluation) {
    Var x("x");
    Func f("twice");
    f(x) = print(x * 2, "is twice", x, "(100%)");
    Buffer<> ref, compiled;
    const std::vector<std::string> want = {"0 is twice 0 (100%)", "2 is twice 1 (100%)", "4 is twice 2 (100%)"};
    EXPECT_EQ(printed(f, {3}, true, false, &ref), want);
    EXPECT_EQ(printed(f, {3}, false, false, &compiled), want);
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(Buffer<int>(ref)(i), 2 * i);
        EXPECT_EQ(Buffer<int>(compiled)(i), 2 * i);
    }
}

TEST(Print, TypesAreWrittenAsTheInterpretersWriteThem) {
    Var x("x");
    Func f("types");
    Expr third = cast<float>(x) / 3.0f;
    f(x) = print(third, cast<uint8_t>(x + 250), cast<int64_t>(x) - (int64_t(1) << 40), cast<double>(x) / 7.0, x > 0,
                 cast<int8_t>(x) - 100);
    const std::vector<std::string> ref = printed(f, {3}, true);
    ASSERT_EQ(ref.size(), 3u);
    EXPECT_EQ(ref[1], "0.333333343 251 -1099511627775 0.14285714285714285 1 -99");
    EXPECT_EQ(printed(f, {3}, false), ref);
}

TEST(Print, VectorLanesAndParallelIterationsEachWriteTheirLine) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("lanes");
    f(x, y) = print(x + 10 * y, "at", x, y);
    const std::vector<std::string> ref = printed(f, {16, 3}, true, true);
    EXPECT_EQ(ref.size(), 48u);
    f.split(x, xo, xi, 8).vectorize(xi).parallel(y);
    EXPECT_EQ(printed(f, {16, 3}, false, true), ref);
}

TEST(Print, PrintWhenWritesOnlyWhereItsConditionHolds) {
    Var x("x");
    Func f("when");
    f(x) = print_when(x % 4 == 3, x * x, "is a square at", x) + 1;
    f.vectorize(x, 8);
    Buffer<> out;
    const std::vector<std::string> want = {"121 is a square at 11", "225 is a square at 15", "49 is a square at 7",
                                           "9 is a square at 3"};  // sorted as text
    EXPECT_EQ(printed(f, {16}, true, true), want);
    EXPECT_EQ(printed(f, {16}, false, true, &out), want);
    for (int i = 0; i < 16; i++) EXPECT_EQ(Buffer<int>(out)(i), i * i + 1);
}

TEST(Print, APrintOfLoopInvariantValuesStaysInItsLoop) {
    // The printed values do not vary in the loop, and two prints are alike: still one
    // line per evaluation.
    Param<int> p("p", 5);
    Var x("x");
    Func f("invariant");
    f(x) = x + print(p * 3, "p times 3") * 2 + print(p * 3, "p times 3");
    EXPECT_EQ(printed(f, {6}, true).size(), 12u);
    EXPECT_EQ(printed(f, {6}, false), printed(f, {6}, true));
    Func g("constant");
    g(x) = x + print(2.5f, "a constant");
    EXPECT_EQ(printed(g, {4}, false).size(), 4u);
}

TEST(Print, Mistakes) {
    Var x("x");
    EXPECT_THROW(print(Expr()), CompileError);
    EXPECT_THROW(print_when(x, x), CompileError);  // the condition is an int
    try {
        print(std::vector<Expr>{});
        FAIL() << "no error";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("print needs a value"), std::string::npos) << e.what();
    }
}

}  // namespace

namespace {

/** The RuntimeError message of realizing f over `sizes`, or "" if none. */
std::string failure_of(const Func &f, const std::vector<int> &sizes, bool reference) {
    try {
        if (reference) f.realize_reference(sizes);
        else f.realize(sizes);
    } catch (const RuntimeError &e) {
        return e.what();
    }
    return "";
}

TEST(Require, ReturnsItsValueWhereItsConditionHolds) {
    Param<int> limit("limit", 100);
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("checked");
    f(x, y) = require(x + y < limit, x * 3 + y, "x + y =", x + y, "reaches", limit) + 1;
    f.split(x, xo, xi, 8).vectorize(xi).parallel(y);
    Buffer<int> out = f.realize({16, 4});
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 16; xx++) EXPECT_EQ(out(xx, yy), xx * 3 + yy + 1);
    EXPECT_EQ(failure_of(f, {16, 4}, true), "");
    // Where it fails, both stop with the same message.
    limit.set(10);
    const std::string ref = failure_of(f, {16, 4}, true), compiled = failure_of(f, {16, 4}, false);
    EXPECT_EQ(ref.rfind("requirement failed: x + y = ", 0), 0u) << ref;
    EXPECT_NE(ref.find(" reaches 10"), std::string::npos) << ref;
    EXPECT_NE(compiled.find("requirement failed: x + y = "), std::string::npos) << compiled;
    EXPECT_NE(compiled.find(" reaches 10"), std::string::npos) << compiled;
}

TEST(Require, UnderALetAndInAnUnchosenOperand) {
    // An operand select does not choose is still evaluated (docs/semantics.md §6): a
    // failing require there fails, in both.
    Var x("x");
    Func g("in_select");
    g(x) = select(x < 5, x, require(x < 6, x * 2, "x is", x));
    const std::string ref = failure_of(g, {8}, true), compiled = failure_of(g, {8}, false);
    EXPECT_NE(ref.find("requirement failed: x is 6"), std::string::npos) << ref;
    EXPECT_NE(compiled.find("requirement failed: x is 6"), std::string::npos) << compiled;
    EXPECT_EQ(failure_of(g, {6}, false), "");
    Func h("under_let");
    Expr v = x * x;
    h(x) = require(v < 50, v, "square", v) + 1;
    h.vectorize(x, 4);
    EXPECT_EQ(failure_of(h, {8}, false), "");  // x <= 7: 49 < 50
    const std::string fail = failure_of(h, {9}, false);
    EXPECT_NE(fail.find("requirement failed: square 64"), std::string::npos) << fail;
}

TEST(Require, Mistakes) {
    Var x("x");
    EXPECT_THROW(require(x, x), CompileError);  // the condition is an int
    EXPECT_THROW(require(x > 0, Expr()), CompileError);
}

}  // namespace
