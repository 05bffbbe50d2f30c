// ATL's errors: shapes checked when an expression is built, names checked before any pass,
// and bad inputs at run time; each message names the operator, the dimension and sizes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tessera/Atl.h"
#include "tessera/Error.h"

using namespace tessera::atl;
using tessera::CompileError;
using tessera::RuntimeError;
using testing::HasSubstr;

namespace {

template<typename E, typename F>
void expect_error(F &&f, const std::vector<std::string> &parts) {
    try {
        f();
        ADD_FAILURE() << "no error";
    } catch (const E &e) {
        for (const std::string &p : parts) EXPECT_THAT(e.what(), HasSubstr(p));
    }
}

Index i("i"), j("j"), k("k");

}  // namespace

TEST(AtlErrors, ShapesAreCheckedWhenBuilt) {
    expect_error<CompileError>([] { concat(gen(i, 2, gen(j, 3, 1.0)), gen(i, 1, gen(j, 2, 1.0))); },
                               {"ATL ++", "[2, 3] and [1, 2]", "below the outermost dimension"});
    expect_error<CompileError>([] { trunc_r(5, gen(i, 4, 1.0)); }, {"trunc_r 5", "only 4", "shape [4]"});
    expect_error<CompileError>([] { flatten(gen(i, 4, 1.0)); }, {"flatten", "at least 2 dimensions", "shape [4]"});
    expect_error<CompileError>([] { split(0, gen(i, 4, 1.0)); }, {"split 0", "positive"});
    expect_error<CompileError>([] { gen(i, 3, 1, 1.0); }, {"gen i", "[3, 1)"});
    expect_error<CompileError>([] { pad_l(-1, gen(i, 4, 1.0)); }, {"pad_l", "at least 0"});
    Array A("A", {3, 4});
    expect_error<CompileError>([&] { A(i); }, {"read of A", "shape [3, 4]", "gives 1 indices"});
    expect_error<CompileError>([&] { return gen(i, 3, 1.0) + 1.0; }, {"ATL +", "shape [3]"});
    expect_error<CompileError>([&] { return sum(k, 4, A(0, k)) * 2.0; }, {"ATL *", "bind it with let first"});
    expect_error<CompileError>([&] { return i / j; }, {"index /", "positive constant", "not by j"});
    expect_error<CompileError>([] { Array("B", {2, -1}); }, {"input B", "dimension 1", "-1"});
}

TEST(AtlErrors, NamesAreCheckedBeforeAnyPass) {
    expect_error<CompileError>([] { check_pads(gen(i, 3, real(j))); }, {"index variable j", "not bound"});
    expect_error<CompileError>([] { evaluate(gen(i, 3, gen(i, 2, 1.0))); }, {"gen i", "already bound"});
    Array A("A", {3});
    Tensor twice = let("x", gen(i, 3, A(i)), [&](const Array &x) {
        return let("x", gen(j, 3, x(j)), [&](const Array &y) { return gen(k, 3, y(k)); });
    });
    expect_error<CompileError>([&] { Program{twice}; }, {"let x", "two lets"});
    Tensor shadow = let("A", gen(i, 3, 1.0), [&](const Array &x) { return gen(j, 3, x(j) + A(j)); });
    expect_error<CompileError>([&] { Program{shadow}; }, {"let A", "also an input's"});
}

TEST(AtlErrors, BadInputsAtRunTime) {
    Array A("A", {3});
    Tensor e = gen(i, 3, A(i + 1));
    expect_error<RuntimeError>([&] { evaluate(e, {{"A", Value({3})}}); },
                               {"the read A[i + 1] at i = 2", "outside A, of shape [3]", "index 3 in dimension 0"});
    expect_error<RuntimeError>([&] { evaluate(e, {}); }, {"no value given for the input A"});
    expect_error<RuntimeError>([&] { evaluate(e, {{"A", Value({4})}}); }, {"declared of shape [3]", "has shape [4]"});
    Program p(gen(i, 3, A(i)));
    expect_error<RuntimeError>([&] { p.run({{"A", Value({2})}}); }, {"declared of shape [3]", "has shape [2]"});
}

TEST(AtlErrors, ScheduledProgramsKeepTheirMeaning) {
    // A schedule attached to the lowered Funcs: the loops of the update are the ATL
    // variables, by name.
    const int64_t M = 9, N = 16, K = 5;
    Array A("A", {M, K}), B("B", {K, N});
    Program p(gen(i, M, gen(j, N, sum(k, K, A(i, k) * B(k, j)))));
    ASSERT_EQ(p.updates(p.output()), 1);
    p.output().update(0).reorder(p.loop(p.output(), 0, "k"), p.loop(p.output(), 0, "j"), p.loop(p.output(), 0, "i"));
    p.output().update(0).parallel(p.loop(p.output(), 0, "i"));
    expect_error<CompileError>([&] { p.loop(p.output(), 0, "q"); }, {"no loop over q"});
    Inputs in{{"A", Value({M, K}, 2.0)}, {"B", Value({K, N}, 3.0)}};
    for (int64_t c = 0; c < M * K; c++) in["A"].data[size_t(c)] = double(c % 7);
    Value want = p.run_reference(in), got = p.run(in);
    ASSERT_EQ(got.shape, want.shape);
    for (size_t c = 0; c < got.data.size(); c++) EXPECT_EQ(got.data[c], want.data[c]) << "cell " << c;
}
