// The validator on ATL programs (docs/atl.md, "Validation"): lowering by reindexers proved
// against ATL's meaning for the paper's programs and random ones, derivations by rewrites
// proved against their originals, and deliberate mistakes in both (src/atl/Mutation.h)
// refuted.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tessera/Validate.h>
#include <tessera/tessera.h>

#include "../atl/random_programs.h"
#include "atl/Mutation.h"
#include "ir/Function.h"

using namespace tessera;
using namespace tessera::atl;
using testing::HasSubstr;
using atl::detail::Mutation;
using atl::detail::ScopedMutation;

namespace {

Index i("i"), j("j"), k("k");

const NamedCheck &check_of(const ValidationReport &r, const std::string &name) {
    const NamedCheck *c = r.check(name);
    EXPECT_NE(c, nullptr) << name;
    static NamedCheck none;
    return c ? *c : none;
}

/** The paper's programs and the other shapes of ATL the compiler handles. */
std::vector<std::pair<std::string, Tensor>> example_programs() {
    Array v("v", {10}), A("A", {5, 2}), B("B", {2, 3}), M("M", {3, 4}), I("I", {8, 9});
    Index io("io"), ii("ii"), jo("jo"), ji("ji");
    std::vector<std::pair<std::string, Tensor>> p;
    p.emplace_back("T1 gen", gen(i, 4, real(i)));
    p.emplace_back("T2 transpose", transpose(gen(i, 3, gen(j, 2, M(i, j)))));
    p.emplace_back("T3 flatten", flatten(gen(i, 3, gen(j, 4, M(i, j) * 2.0))));
    p.emplace_back("T4 split", split(2, gen(i, 5, real(i))));
    p.emplace_back("T5 concat", concat(gen(i, 2, v(i)), gen(i, 3, v(i + 5))));
    p.emplace_back("T6 sum of gens", sum(k, 3, gen(i, 4, M(k, i))));
    p.emplace_back("T7 guards", gen(i, 6, guard(1 < i && i <= 4, v(i))));
    p.emplace_back("T9 transpose of concat", transpose(concat(gen(i, 2, gen(j, 4, M(i, j))), gen(i, 1, gen(j, 4, M(2, j))))));
    p.emplace_back("T10 trunc of split", trunc_r(1, flatten(split(2, gen(i, 5, real(i))))));
    p.emplace_back("T11 pad_l", pad_l(2, gen(i, 3, v(i))));
    p.emplace_back("trunc_l of pad_l", trunc_l(2, pad_l(3, gen(i, 1, 4, v(i)))));
    p.emplace_back("pad_r", pad_r(2, gen(i, 3, v(2 * i))));
    p.emplace_back("T12 let", let("t", gen(i, 4, v(i) + 1.0), [&](const Array &t) { return gen(j, 3, t(j) * t(j + 1)); }));
    p.emplace_back("T13 empty sum", gen(i, 3, sum(k, 0, v(k))));
    p.emplace_back("let per iteration", gen(i, 3, let("r", gen(j, 4, M(i, j) * 2.0), [&](const Array &r) {
                                            return sum(k, 4, r(k) + real(i));
                                        })));
    Tensor tile = gen(ji, 2, gen(ii, 2, guard(io * 2 + ii < 5 && jo * 2 + ji < 3,
                                              sum(k, 2, A(io * 2 + ii, k) * B(k, jo * 2 + ji)))));
    p.emplace_back("T15 tiled matmul", trunc_r(1, flatten(gen(io, 3, transpose(trunc_r(1, flatten(gen(jo, 2, tile))))))));
    p.emplace_back("T16 split tensor add",
                   split(2, split(3, gen(i, 12, M(i / 4, i % 4) + M(i / 4, (i + 1) % 4)))));
    p.emplace_back("let chain (c takes a's buffer)",
                   let("a", gen(i, 6, v(i) * 2.0), [&](const Array &a) {
                       return let("b", gen(i, 6, a(i) + 1.0), [&](const Array &b) {
                           return let("c", gen(i, 6, b(i) * b(i)), [&](const Array &c) { return gen(j, 6, c(j) - b(j)); });
                       });
                   }));
    p.emplace_back("two-stage blur",
                   let("bx", gen(i, 8, gen(j, 7, I(i, j) + I(i, j + 1) + I(i, j + 2))), [&](const Array &bx) {
                       return gen(io, 6, gen(jo, 7, bx(io, jo) + bx(io + 1, jo) + bx(io + 2, jo)));
                   }));
    return p;
}

}  // namespace

TEST(AtlValidate, ExampleProgramsAreProved) {
    for (const auto &[name, e] : example_programs()) {
        SCOPED_TRACE(name + ": " + e.to_string());
        atl::Program p(e, "atl");
        if (name.rfind("let chain", 0) == 0) {
            EXPECT_EQ(p.storage().saved(), 1);
        }
        ValidationReport r = validate(p);
        EXPECT_EQ(check_of(r, "atl lowering").verdict, Verdict::Proved) << r.to_string();
        // The compiled code against the lowered Funcs: proved, or Unknown with a reason.
        EXPECT_NE(r.verdict, Verdict::Refuted) << r.to_string();
        if (r.verdict == Verdict::Unknown) std::printf("%s: %s", name.c_str(), r.to_string().c_str());
    }
}

TEST(AtlValidate, RandomProgramsAreNeverRefuted) {
    int proved = 0, lowering_proved = 0;
    for (uint32_t seed = 1; seed <= 40; seed++) {
        Tensor e = atl::test::random_program(seed);
        SCOPED_TRACE("seed " + std::to_string(seed) + ": " + e.to_string());
        ValidationReport r = validate(atl::Program(e));
        EXPECT_NE(r.verdict, Verdict::Refuted) << r.to_string();
        const NamedCheck &lowering = check_of(r, "atl lowering");
        EXPECT_NE(lowering.verdict, Verdict::Refuted) << lowering.detail;
        if (lowering.verdict == Verdict::Unknown) {
            EXPECT_FALSE(lowering.detail.empty());
        }
        lowering_proved += lowering.verdict == Verdict::Proved;
        proved += r.verdict == Verdict::Proved;
        if (r.verdict != Verdict::Proved) std::printf("seed %u: %s", seed, r.to_string().c_str());
    }
    // The lowering check models every construct, and the code's check every store these
    // programs make (scalar results included): both prove them all.
    EXPECT_EQ(lowering_proved, 40);
    EXPECT_EQ(proved, 40);
}

namespace {

struct Mutant {
    Mutation mutation;
    const char *name;
    Tensor program;
};

std::vector<Mutant> lowering_mutants() {
    Array v("v", {10}), M("M", {3, 4});
    std::vector<Mutant> m;
    m.push_back({Mutation::FlattenStrideOffByOne, "flatten", flatten(gen(i, 3, gen(j, 4, M(i, j))))});
    m.push_back({Mutation::SplitRemainderOfNext, "split", split(3, gen(i, 7, v(i)))});
    m.push_back({Mutation::TruncLeftNotShifted, "trunc_l", trunc_l(2, pad_l(2, gen(i, 5, v(i))))});
    m.push_back({Mutation::PadLeftShiftOffByOne, "pad_l", pad_l(3, gen(i, 4, v(i)))});
    m.push_back({Mutation::ConcatRightNotShifted, "concat", concat(gen(i, 3, v(i)), gen(i, 2, v(i + 3)))});
    m.push_back({Mutation::TransposeIgnored, "transpose", transpose(gen(i, 3, gen(j, 3, M(i, j))))});
    m.push_back({Mutation::SumStoresInsteadOfAdds, "sum", gen(i, 3, sum(k, 4, M(i, k)))});
    m.push_back({Mutation::GuardDropped, "guard", gen(i, 5, guard(i < 3, v(i)))});
    m.push_back({Mutation::GenLowerBoundIgnored, "gen from 2", gen(i, 2, 6, v(i))});
    m.push_back({Mutation::PureDespiteGuard, "guard in a pure nest", gen(i, 3, gen(j, 4, guard(j < 2, M(i, j))))});
    m.push_back({Mutation::LetNotIndexedByItsLoop, "let per iteration",
                 gen(i, 3, let("r", gen(j, 4, M(i, j)), [&](const Array &r) { return sum(k, 4, r(k)); }))});
    return m;
}

/** The values of the compiled program differ from the interpreter's somewhere. */
bool output_differs(const atl::Program &p) {
    Inputs in;
    int n = 0;
    for (const Array &a : p.inputs()) {
        Value v(a.shape());
        for (double &x : v.data) x = double(++n % 13) + 1;
        in[a.name()] = v;
    }
    Value want = p.run_reference(in), got = p.run(in);
    for (size_t c = 0; c < want.data.size(); c++)
        if (want.data[c] != got.data[c]) return true;
    return false;
}

}  // namespace

TEST(AtlValidate, LoweringMutantsAreRefuted) {
    int refuted = 0, differing = 0;
    for (const Mutant &m : lowering_mutants()) {
        SCOPED_TRACE(m.name);
        {  // unmutated: proved
            atl::Program p(m.program);
            EXPECT_EQ(check_of(validate(p), "atl lowering").verdict, Verdict::Proved);
        }
        ScopedMutation on(m.mutation);
        atl::Program p(m.program);
        bool differs = false;
        try {
            differs = output_differs(p);
        } catch (const RuntimeError &) {
            differs = true;  // a store out of its Func's region, caught at run time
        }
        differing += differs;
        ValidationReport r = validate(p);
        const NamedCheck &c = check_of(r, "atl lowering");
        EXPECT_EQ(c.verdict, Verdict::Refuted) << c.detail;
        EXPECT_NE(r.verdict, Verdict::Proved);
        refuted += c.verdict == Verdict::Refuted;
    }
    EXPECT_EQ(refuted, 11);
    // Each mutant really computes something else.
    EXPECT_EQ(differing, 11);
}

TEST(AtlValidate, ARefutationNamesTheLeafAndThePoint) {
    Array M("M", {3, 4});
    ScopedMutation on(Mutation::FlattenStrideOffByOne);
    ValidationReport r = validate(atl::Program(flatten(gen(i, 3, gen(j, 4, M(i, j))))));
    const std::string d = check_of(r, "atl lowering").detail;
    EXPECT_THAT(d, HasSubstr("update 0 of Func atl"));
    EXPECT_THAT(d, HasSubstr("leaf 0 (M[i, j], stored into the output)"));
    EXPECT_THAT(d, HasSubstr("c.0 = "));
    // A guarded nest made a pure definition: the cells the guard makes pad get a value.
    ScopedMutation pure(Mutation::PureDespiteGuard);
    const std::string p = check_of(validate(atl::Program(gen(i, 3, gen(j, 4, guard(j < 2, M(i, j)))))), "atl lowering").detail;
    EXPECT_THAT(p, HasSubstr("the pure definition of Func atl"));
    EXPECT_THAT(p, HasSubstr("where ATL's meaning has pad"));
}

TEST(AtlValidate, AnUndefDestinationMustHaveEveryCellStored) {
    // Lowering defines a destination as undef where its updates store every cell (no pad,
    // no sum, no guard): a transpose and a flatten of gens. Defining one with pad cells so
    // (the mutant) leaves those cells with no value, and the lowering check names one.
    Array v("v", {10}), M("M", {3, 4});
    atl::Program flat(flatten(transpose(gen(i, 3, gen(j, 4, M(i, j))))));
    ASSERT_TRUE(ir::is_undef(flat.output().data()->definitions[0].value));
    EXPECT_EQ(validate(flat).verdict, Verdict::Proved);
    atl::Program padded(pad_r(2, gen(i, 3, v(i))));
    EXPECT_FALSE(ir::is_undef(padded.output().data()->definitions[0].value));

    ScopedMutation on(Mutation::UndefDespitePad);
    atl::Program p(pad_r(2, gen(i, 3, v(i))));
    ASSERT_TRUE(ir::is_undef(p.output().data()->definitions[0].value));
    const ValidationReport r = validate(p);
    const NamedCheck &c = check_of(r, "atl lowering");
    EXPECT_EQ(c.verdict, Verdict::Refuted);
    EXPECT_THAT(c.detail, HasSubstr("is undef, but no leaf stores its cell at c.0 = "));
}

namespace {

Tensor matmul(int64_t M, int64_t N, int64_t K) {
    Array A("A", {M, K}), B("B", {K, N});
    return gen(i, M, gen(j, N, sum(k, K, A(i, k) * B(k, j))));
}

Tensor blur() {
    Array I("I", {8, 9});
    Index y("y"), x("x");
    return let("bx", gen(y, 8, gen(x, 7, I(y, x) + I(y, x + 1) + I(y, x + 2))), [&](const Array &bx) {
        return gen(i, 6, gen(j, 7, bx(i, j) + bx(i + 1, j) + bx(i + 2, j)));
    });
}

}  // namespace

TEST(AtlValidate, DerivationsAreProved) {
    std::vector<std::pair<Tensor, std::vector<std::string>>> cases = {
        {matmul(7, 10, 4), {"tile i j 3 3", "separate io", "separate jo"}},
        {matmul(5, 4, 7), {"split k 3", "interchange i", "split j 2 jo ji"}},
        {matmul(4, 4, 4), {"interchange k"}},  // a sum with nothing inside to swap: an error below
        {blur(), {"tile i j 4 4", "inline bx"}},
        {blur(), {"split y 3", "separate yo"}},
        {matmul(4, 6, 5), {"fuse i j", "split k 2"}},
    };
    for (auto &[e, steps] : cases) {
        Derivation d(e);
        for (const std::string &s : steps) {
            try {
                d.apply(s);
            } catch (const CompileError &) {
                EXPECT_EQ(s, "interchange k");  // the only step above that does not apply
            }
        }
        SCOPED_TRACE(d.program().to_string());
        ValidationReport r = validate(d);
        EXPECT_EQ(check_of(r, "atl rewrites").verdict, Verdict::Proved) << check_of(r, "atl rewrites").detail;
        EXPECT_EQ(check_of(r, "atl lowering").verdict, Verdict::Proved) << check_of(r, "atl lowering").detail;
        EXPECT_NE(r.verdict, Verdict::Refuted) << r.to_string();
    }
}

TEST(AtlValidate, RewriteMutantsAreRefuted) {
    struct Case {
        Mutation mutation;
        Tensor program;
        std::vector<std::string> steps;
        const char *says;
    };
    Array v("v", {10});
    std::vector<Case> cases = {
        {Mutation::SplitGuardOffByOne, gen(j, 2, sum(k, 10, v(k) * real(j))), {"split k 4"}, "which the original does not"},
        {Mutation::SplitInnerLoopTooLong, gen(j, 2, sum(k, 9, v(k) + real(j))), {"split k 3"}, "two of its iterations"},
        {Mutation::SeparateOneTooFar, gen(i, 6, guard(i < 4, v(i))), {"separate i"}, "which the original does not"},
    };
    for (const Case &c : cases) {
        Derivation d(c.program);
        {
            ScopedMutation on(c.mutation);
            for (const std::string &s : c.steps) d.apply(s);
        }
        SCOPED_TRACE(d.program().to_string());
        const NamedCheck rewrites = check_of(validate(d), "atl rewrites");
        EXPECT_EQ(rewrites.verdict, Verdict::Refuted) << rewrites.detail;
        EXPECT_THAT(rewrites.detail, HasSubstr(c.says));
    }
}

TEST(AtlValidate, ARewriteThatKeepsTheMeaningButCutsLiveDataDoesNotLower) {
    // With the split's guard one too wide, the leaf also computes cell 10, which the
    // truncation then drops: the meaning is unchanged (proved), but the truncation cuts a
    // live cell, which the pad check rejects, as lowering by reindexers needs.
    Array v("v", {11});
    Derivation d(gen(i, 10, v(i) * 2.0));
    {
        ScopedMutation on(Mutation::SplitGuardOffByOne);
        d.split("i", 4);
    }
    EXPECT_TRUE(d.check().equal);
    EXPECT_EQ(check_of(validate(atl::Program(d.original())), "atl lowering").verdict, Verdict::Proved);
    try {
        validate(d);
        ADD_FAILURE() << "the derived program was lowered";
    } catch (const CompileError &e) {
        EXPECT_THAT(e.what(), HasSubstr("trunc_r 2"));
        EXPECT_THAT(e.what(), HasSubstr("element 10 holds live data"));
    }
}
