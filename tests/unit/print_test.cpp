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

using namespace tessera;

namespace {

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

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
