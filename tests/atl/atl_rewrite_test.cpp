// ATL's scheduling rewrites (docs/atl.md, "Scheduling by rewrites"): each step's result
// written out by hand, its meaning compared with the original's on random inputs, its
// lowering run against the interpreter, the leaf origins each step records, and the
// steps' errors.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <regex>
#include <set>

#include "tessera/Atl.h"
#include "tessera/Error.h"

using namespace tessera::atl;
using tessera::CompileError;
using testing::HasSubstr;

namespace {

Index i("i"), j("j"), k("k");

/** The derived program means what the original does, on random inputs and compiled. */
void expect_same_meaning(const Derivation &d) {
    SCOPED_TRACE(d.program().to_string());
    Comparison c = d.check(3, 7);
    EXPECT_TRUE(c.equal) << c.mismatch;
    EXPECT_EQ(c.trials, 3);
    // The compiled derived program computes what the interpreter says the original does.
    Inputs in;
    uint64_t n = 0;
    const Program original(d.original());
    for (const Array &a : original.inputs()) {
        Value v(a.shape());
        for (double &x : v.data) x = double(int64_t(n++ * 7 % 11) - 5);
        in[a.name()] = v;
    }
    Value want = evaluate(d.original(), in), got = Program(d.program()).run(in);
    ASSERT_EQ(got.shape, want.shape);
    for (size_t c = 0; c < want.data.size(); c++) {
        EXPECT_EQ(got.data[c], want.data[c]) << "cell " << c;
        EXPECT_EQ(got.pad[c], want.pad[c]) << "cell " << c;
    }
}

void expect_step_error(const Tensor &e, const std::string &step, const std::vector<std::string> &parts) {
    Derivation d(e);
    try {
        d.apply(step);
        ADD_FAILURE() << step << " was accepted";
    } catch (const CompileError &err) {
        for (const std::string &p : parts) EXPECT_THAT(err.what(), HasSubstr(p));
    }
    EXPECT_EQ(d.program().to_string(), e.to_string()) << "a failed step changed the program";
}

}  // namespace

TEST(AtlRewrite, SplitOfAGenFlattensAndTruncatesTheTail) {
    Array A("A", {10});
    Derivation d(gen(i, 10, A(i) * 2));
    d.split("i", 4);
    EXPECT_EQ(d.program().to_string(),
              "trunc_r(2, flatten(gen io < 3: gen ii < 4: [io * 4 + ii < 10] A[io * 4 + ii] * 2.0))");
    EXPECT_EQ(d.steps(), std::vector<std::string>{"split i 4 io ii"});
    ASSERT_EQ(d.origins().size(), 1u);
    EXPECT_EQ(d.origins()[0].leaf, 0);
    EXPECT_EQ(d.origins()[0].substitution.at("i").to_string(), "io * 4 + ii");
    expect_same_meaning(d);
    // A factor that divides the extent needs neither the guard nor the truncation.
    Derivation even(gen(i, 2, 10, A(i)));
    even.split("i", 4, "a", "b");
    EXPECT_EQ(even.program().to_string(), "flatten(gen a < 2: gen b < 4: A[a * 4 + b + 2])");
    expect_same_meaning(even);
}

TEST(AtlRewrite, SplitOfASumGuardsTheTail) {
    Array A("A", {3, 7});
    Derivation d(gen(i, 3, sum(k, 7, A(i, k))));
    d.split("k", 3);
    EXPECT_EQ(d.program().to_string(), "gen i < 3: sum ko < 3: sum ki < 3: [ko * 3 + ki < 7] A[i, ko * 3 + ki]");
    expect_same_meaning(d);
}

TEST(AtlRewrite, TileNestsTheTileLoopsAndStoresRowMajor) {
    Array A("A", {5, 2}), B("B", {2, 3});
    Derivation d(gen(i, 5, gen(j, 3, sum(k, 2, A(i, k) * B(k, j)))));
    d.tile("i", "j", 2, 2);
    // Rows of 2 x 2 tiles: io < 3 and jo < 2 tile loops, the last of each ragged.
    EXPECT_EQ(d.program().to_string(),
              "trunc_r(1, flatten(gen io < 3: transpose(trunc_r(1, flatten(gen jo < 2: transpose(gen ii < 2: "
              "gen ji < 2: [io * 2 + ii < 5 && jo * 2 + ji < 3] sum k < 2: A[io * 2 + ii, k] * B[k, jo * 2 + ji]))))))");
    EXPECT_EQ(d.origins()[0].substitution.at("i").to_string(), "io * 2 + ii");
    EXPECT_EQ(d.origins()[0].substitution.at("j").to_string(), "jo * 2 + ji");
    EXPECT_EQ(d.origins()[0].substitution.at("k").to_string(), "k");
    expect_same_meaning(d);
    // The loops of the lowered update, outermost first, are the tile order.
    Program p(d.program());
    for (const char *v : {"io", "jo", "ii", "ji", "k"}) EXPECT_NO_THROW(p.loop(p.output(), 0, v)) << v;
}

TEST(AtlRewrite, InterchangeSwapsLoopsAndTransposesGens) {
    Array A("A", {3, 4});
    Derivation gens(gen(i, 3, gen(j, 4, A(i, j))));
    gens.interchange("i");
    EXPECT_EQ(gens.program().to_string(), "transpose(gen j < 4: gen i < 3: A[i, j])");
    expect_same_meaning(gens);

    Derivation sum_gen(sum(k, 4, gen(i, 3, A(i, k))));
    sum_gen.interchange("k");
    EXPECT_EQ(sum_gen.program().to_string(), "gen i < 3: sum k < 4: A[i, k]");
    expect_same_meaning(sum_gen);

    // A guard between the loops moves inside both.
    Derivation gen_sum(gen(i, 3, guard(i < 2, sum(k, 4, A(i, k)))));
    gen_sum.interchange("i");
    EXPECT_EQ(gen_sum.program().to_string(), "sum k < 4: gen i < 3: [i < 2] A[i, k]");
    expect_same_meaning(gen_sum);

    Derivation sums(sum(i, 3, sum(k, 1, 4, A(i, k) * 2.0)));
    sums.interchange("i");
    EXPECT_EQ(sums.program().to_string(), "sum k in 1 .. 4: sum i < 3: A[i, k] * 2.0");
    expect_same_meaning(sums);
}

TEST(AtlRewrite, FuseMakesOneLoopStoredThroughASplit) {
    // The ATL paper's one-loop tensor add: two gens fused, the storage order kept by split.
    Array A("A", {3, 4}), B("B", {3, 4});
    Derivation d(gen(i, 3, gen(j, 4, A(i, j) + B(i, j))));
    d.fuse("i", "j");
    EXPECT_EQ(d.program().to_string(), "split(4, gen ij < 12: A[ij / 4, ij % 4] + B[ij / 4, ij % 4])");
    EXPECT_EQ(d.origins()[0].substitution.at("i").to_string(), "ij / 4");
    expect_same_meaning(d);
    // Sums fuse as they are; lower bounds are added back.
    Derivation sums(gen(i, 3, sum(j, 1, 3, sum(k, 4, A(i, k) * real(j)))));
    sums.fuse("j", "k", "jk");
    EXPECT_EQ(sums.program().to_string(), "gen i < 3: sum jk < 8: A[i, jk % 4] * real(jk / 4 + 1)");
    expect_same_meaning(sums);
    expect_step_error(gen(i, 3, sum(k, 4, A(i, k))), "fuse i k", {"the gen over i must have a gen over k directly inside it"});
}

TEST(AtlRewrite, SeparateSplitsOffTheGuardFreeSteadyState) {
    Array A("A", {10});
    Derivation d(gen(i, 10, A(i) * 2.0));
    d.split("i", 4).separate("io");
    EXPECT_EQ(d.program().to_string(),
              "trunc_r(2, flatten((gen io < 2: gen ii < 4: A[io * 4 + ii] * 2.0) ++ "
              "(gen io in 2 .. 3: gen ii < 4: [io * 4 + ii < 10] A[io * 4 + ii] * 2.0)))");
    ASSERT_EQ(d.origins().size(), 2u);  // the leaf is in both parts
    EXPECT_EQ(d.origins()[0].leaf, 0);
    EXPECT_EQ(d.origins()[1].leaf, 0);
    EXPECT_EQ(d.steps(), (std::vector<std::string>{"split i 4 io ii", "separate io"}));
    expect_same_meaning(d);
}

TEST(AtlRewrite, TiledAndSeparatedMatmulIsThePapersTiledWithTails) {
    Array A("A", {7, 4}), B("B", {4, 10});
    Derivation d(gen(i, 7, gen(j, 10, sum(k, 4, A(i, k) * B(k, j)))));
    d.tile("i", "j", 3, 3).separate("io").separate("jo");
    // Two parts of io, each with two parts of jo: four copies of the leaf.
    EXPECT_EQ(d.origins().size(), 4u);
    const std::string text = d.program().to_string();
    EXPECT_THAT(text, HasSubstr("gen io < 2:"));
    EXPECT_THAT(text, HasSubstr("gen io in 2 .. 3:"));
    EXPECT_THAT(text, HasSubstr("gen jo < 3:"));
    EXPECT_THAT(text, HasSubstr("gen jo in 3 .. 4:"));
    expect_same_meaning(d);
    EXPECT_EQ(check_pads(d.program()).c, 0);
}

TEST(AtlRewrite, InlineReplacesReadsOfALetByItsValue) {
    Array A("A", {5});
    Derivation d(let("t", gen(i, 4, A(i) + 1.0), [&](const Array &t) { return gen(j, 3, t(j + 1) * 2.0); }));
    d.inline_let("t");
    EXPECT_EQ(d.program().to_string(), "gen j < 3: (A[j + 1] + 1.0) * 2.0");
    ASSERT_EQ(d.origins().size(), 1u);
    EXPECT_EQ(d.origins()[0].leaf, 1);  // the let's value is leaf 0
    EXPECT_EQ(d.origins()[0].inlined, std::vector<std::string>{"t"});
    expect_same_meaning(d);
}

TEST(AtlRewrite, StepsThatDoNotApplyAreErrorsThatChangeNothing) {
    Array A("A", {6, 4});
    Tensor e = gen(i, 6, gen(j, 4, A(i, j)));
    expect_step_error(e, "split q 2", {"split q 2 qo qi", "no loop over q", "its loops: i, j"});
    expect_step_error(e, "split i 2 j x", {"already has a loop over j"});
    expect_step_error(e, "split i 2 a a", {"two names"});
    expect_step_error(e, "split i 0", {"factor must be positive"});
    expect_step_error(e, "tile j i 2 2", {"gen over j must have the gen over i directly inside it"});
    expect_step_error(e, "interchange j", {"no loop directly inside", "A[i, j]"});
    expect_step_error(e, "separate i", {"no guard inside the gen over i mentions i"});
    expect_step_error(gen(i, 6, guard(i > 2, A(i, 0))), "separate i", {"no guard inside the gen over i holds for a first part"});
    expect_step_error(e, "twist i", {"expected one of"});
    expect_step_error(e, "split i two", {"expected an integer, found `two`"});
    Tensor summed = let("s", gen(i, 2, sum(k, 3, A(i, k))), [&](const Array &s) { return gen(j, 2, s(j)); });
    expect_step_error(summed, "inline s", {"value of s must be gens around a scalar expression", "sum"});
    expect_step_error(summed, "inline r", {"no let named r"});
}

TEST(AtlRewrite, CompareFindsADifferentMeaning) {
    Array A("A", {4});
    Comparison same = compare(gen(i, 4, A(i) * 2.0), gen(i, 4, A(i) + A(i)));
    EXPECT_TRUE(same.equal) << same.mismatch;
    Comparison differ = compare(gen(i, 4, A(i)), gen(i, 4, guard(i < 3, A(i))));
    EXPECT_FALSE(differ.equal);
    EXPECT_THAT(differ.mismatch, HasSubstr("cell 3"));
    // The ATL paper's over-truncating tiled loop (C - n % C when C divides n) changes the shape.
    Comparison cut = compare(gen(i, 4, A(i)), trunc_r(2, flatten(gen(Index("io"), 2, gen(Index("ii"), 2,
                                                         A(Index("io") * 2 + Index("ii")))))));
    EXPECT_FALSE(cut.equal);
    EXPECT_THAT(cut.mismatch, HasSubstr("shapes differ"));
}

namespace {

/** Random step sequences on a few programs: every step that applies keeps the meaning. */
struct Workload {
    const char *name;
    Tensor program;
};

std::vector<Workload> workloads() {
    Array A("A", {7, 5}), B("B", {5, 6}), I("I", {9, 8});
    Index x("x"), y("y");
    std::vector<Workload> w;
    w.push_back({"matmul", gen(i, 7, gen(j, 6, sum(k, 5, A(i, k) * B(k, j))))});
    w.push_back({"blur", let("bx", gen(y, 9, gen(x, 6, I(y, x) + I(y, x + 1) + I(y, x + 2))), [&](const Array &bx) {
                     return gen(Index("v"), 7, gen(Index("u"), 6, bx(Index("v"), Index("u")) + bx(Index("v") + 1, Index("u")) +
                                                                    bx(Index("v") + 2, Index("u"))));
                 })});
    w.push_back({"row sums", gen(i, 1, 7, guard(i < 6, sum(k, 5, A(i, k) * 2.0)))});
    return w;
}

}  // namespace

TEST(AtlRewrite, RandomStepSequencesKeepTheMeaning) {
    int applied = 0, derivations = 0;
    std::mt19937 rng(2024);
    for (const Workload &w : workloads()) {
        for (int trial = 0; trial < 6; trial++) {
            Derivation d(w.program);
            for (int s = 0; s < 5; s++) {
                // The loop variables of the current program, in order of appearance.
                std::set<std::string> vars;
                std::vector<std::string> loops;
                const std::string text = d.program().to_string();
                static const std::regex binder("(gen|sum) (\\w+)");
                for (auto m = std::sregex_iterator(text.begin(), text.end(), binder); m != std::sregex_iterator(); ++m)
                    if (vars.insert((*m)[2]).second) loops.push_back((*m)[2]);
                const std::string var = loops[rng() % loops.size()];
                std::string step;
                const size_t at = size_t(std::find(loops.begin(), loops.end(), var) - loops.begin());
                const std::string next = at + 1 < loops.size() ? loops[at + 1] : var;
                switch (rng() % 5) {
                case 0:
                    step = "split " + var + " " + std::to_string(2 + rng() % 3) + " " + var + "o" + std::to_string(s) +
                           " " + var + "i" + std::to_string(s);
                    break;
                case 1: step = "interchange " + var; break;
                case 2: step = "separate " + var; break;
                case 3: step = "fuse " + var + " " + next + " f" + std::to_string(s); break;
                default: step = "inline bx"; break;
                }
                try {
                    d.apply(step);
                    applied++;
                } catch (const CompileError &) {
                }
            }
            SCOPED_TRACE(std::string(w.name) + ": " + d.program().to_string());
            expect_same_meaning(d);
            derivations++;
        }
    }
    EXPECT_EQ(derivations, 18);
    EXPECT_GE(applied, 30);
}
