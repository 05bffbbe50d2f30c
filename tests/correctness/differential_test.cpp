// Differential tests: compiled code (`Func::realize`) against the reference interpreter
// (`Func::realize_reference`, the definition of meaning), bit for bit on the window
// (docs/semantics.md §11).
//
//   (a) every pipeline of the hand-written corpus (tests/support/pipeline_corpus.h);
//   (b) random valid pipelines from fixed seeds (tests/support/random_pipeline.h);
//   (c) the generator's own contract (deterministic, always valid), whose comment
//       documents the command for long fuzzing runs.
//
// Floats are compared by bit pattern, so -0.0 != +0.0; the only exception is NaN, whose
// sign and payload are unspecified (docs/semantics.md §3): any NaN equals any NaN.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "../support/pipeline_corpus.h"
#include "../support/random_pipeline.h"
#include "../support/differential.h"

using namespace tessera;
using tessera::testing::CorpusEntry;
using tessera::testing::CorpusPipeline;
using tessera::testing::RandomPipeline;
using namespace tessera::testing::differential;

namespace tessera::testing {
// Test names and failure messages show a corpus entry by its name.
static void PrintTo(const CorpusEntry &e, std::ostream *os) { *os << e.name; }
}  // namespace tessera::testing

namespace {

// ---------------------------------------------------------------------------------------
// Running a pipeline and comparing results
// ---------------------------------------------------------------------------------------

bool all_zero(const std::vector<int> &v) {
    for (int i : v)
        if (i != 0) return false;
    return true;
}

// ---------------------------------------------------------------------------------------
// (a) the corpus
// ---------------------------------------------------------------------------------------

class DifferentialCorpus : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(DifferentialCorpus, CompiledMatchesReference) {
    const CorpusEntry &entry = GetParam();
    CorpusPipeline p;
    try {
        p = entry.make();
    } catch (const Error &e) {
        FAIL() << "building corpus pipeline " << entry.name << " threw: " << e.what();
    }
    ASSERT_EQ(p.name, entry.name);
    ASSERT_EQ(p.mins.size(), p.extents.size());
    ASSERT_EQ(int(p.mins.size()), p.output.dimensions()) << p.name;
    std::string failure = differential_check(p.output, p.mins, p.extents, all_zero(p.mins));
    EXPECT_EQ(failure, "") << "corpus pipeline " << p.name << " (" << p.note << ")";
}

INSTANTIATE_TEST_SUITE_P(Corpus, DifferentialCorpus, ::testing::ValuesIn(tessera::testing::pipeline_corpus()),
                         [](const ::testing::TestParamInfo<CorpusEntry> &info) { return std::string(info.param.name); });

TEST(Differential, CorpusIsLargeAndNamesAreUnique) {
    const auto &corpus = tessera::testing::pipeline_corpus();
    EXPECT_GE(corpus.size(), 35u);
    std::set<std::string> names;
    for (const auto &e : corpus) EXPECT_TRUE(names.insert(e.name).second) << "duplicate name " << e.name;
}

// ---------------------------------------------------------------------------------------
// (b) random programs
// ---------------------------------------------------------------------------------------

uint64_t env_u64(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    if (!v || !*v) return fallback;
    char *end = nullptr;
    unsigned long long parsed = std::strtoull(v, &end, 0);
    if (!end || *end) {
        ADD_FAILURE() << name << "=" << v << " is not a number; using " << fallback;
        return fallback;
    }
    return parsed;
}

constexpr uint64_t kDefaultFuzzSeed = 20240601;
constexpr uint64_t kDefaultFuzzPrograms = 500;

std::string reproduce_command(uint64_t seed) {
    return "TESSERA_FUZZ_SEED=" + std::to_string(seed) +
           " TESSERA_FUZZ_PROGRAMS=1 tests/tessera_tests --gtest_filter=Differential.RandomPrograms"
           "   (from the build directory)";
}

/** Checks one random program; returns "" if it passes. */
std::string check_random_program(const RandomPipeline &p) {
    if (!p.construction_error.empty())
        return "building the program threw (every generated program must be valid): " + p.construction_error;
    Outcome reference = realize_window(p.output, p.mins, p.extents, Path::Reference);
    if (!reference.ok()) return "the reference interpreter failed on a valid program: " + reference.describe();
    Outcome compiled = realize_window(p.output, p.mins, p.extents, Path::Compiled, p.realize_by_sizes);
    if (!compiled.ok()) return "compiled code failed where the reference succeeded: " + compiled.describe();
    std::string diff = compare_window(compiled.result, reference.result, p.mins, p.extents);
    if (!diff.empty())
        return std::string(p.realize_by_sizes ? "realize(sizes)" : "realize(Buffer)") +
               " differs from the reference: " + diff;
    return "";
}

// Programs seeds TESSERA_FUZZ_SEED, TESSERA_FUZZ_SEED + 1, ... (TESSERA_FUZZ_PROGRAMS of
// them, 500 by default). Each failure prints the program and the command that reruns
// exactly that seed.
TEST(Differential, RandomPrograms) {
    const uint64_t base = env_u64("TESSERA_FUZZ_SEED", kDefaultFuzzSeed);
    const uint64_t count = env_u64("TESSERA_FUZZ_PROGRAMS", kDefaultFuzzPrograms);
    const auto start = std::chrono::steady_clock::now();
    uint64_t failures = 0;
    std::vector<uint64_t> failing_seeds;
    std::map<std::string, int> failure_kinds;
    for (uint64_t i = 0; i < count; i++) {
        const uint64_t seed = base + i;
        RandomPipeline p = tessera::testing::random_pipeline(seed);
        std::string failure = check_random_program(p);
        if (failure.empty()) continue;
        failures++;
        failing_seeds.push_back(seed);
        failure_kinds[failure.substr(0, failure.find(':'))]++;
        if (failures <= 10) {
            ADD_FAILURE() << "random program, seed " << seed << ": " << failure << "\n"
                          << "--- program ---\n"
                          << p.description << "--- reproduce with ---\n"
                          << reproduce_command(seed);
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream summary;
    summary << count << " random programs (seeds " << base << " .. " << base + count - 1 << ") in " << std::fixed
            << std::setprecision(1) << seconds << " s; " << failures << " failed";
    if (failures) {
        summary << "\nfailing seeds:";
        for (size_t k = 0; k < failing_seeds.size() && k < 200; k++) summary << " " << failing_seeds[k];
        summary << "\nby kind:";
        for (const auto &[kind, n] : failure_kinds) summary << "\n  " << n << " x " << kind;
    }
    std::cout << "[ fuzz     ] " << summary.str() << std::endl;
    EXPECT_EQ(failures, 0u) << summary.str();
}

// ---------------------------------------------------------------------------------------
// (c) the generator's contract, and long runs
// ---------------------------------------------------------------------------------------

// Long fuzzing runs. From the build directory, for example:
//
//   TESSERA_FUZZ_PROGRAMS=100000 TESSERA_FUZZ_SEED=$(date +%s) tests/tessera_tests --gtest_filter=Differential.RandomPrograms
//
// (or the same variables with `ctest -R Differential.RandomPrograms --output-on-failure`;
// raise ctest's timeout with `--timeout 0` for large counts). Runs of different seeds are
// independent, so several can run side by side with disjoint seed ranges. Every failure
// prints the program and the command that reruns only that seed:
//
//   TESSERA_FUZZ_SEED=<seed> TESSERA_FUZZ_PROGRAMS=1 tests/tessera_tests --gtest_filter=Differential.RandomPrograms
//
// This test checks what such runs rely on: a seed always gives the same program, the
// generated programs are valid (they build, and the reference interpreter realizes them),
// and together they cover every feature of the generator.
TEST(Differential, RandomGeneratorIsDeterministicValidAndCovering) {
    const uint64_t base = kDefaultFuzzSeed;  // fixed: the coverage check must not depend on the environment
    std::set<std::string> seen;
    for (uint64_t seed = base; seed < base + 400; seed++) {
        RandomPipeline a = tessera::testing::random_pipeline(seed);
        RandomPipeline b = tessera::testing::random_pipeline(seed);
        ASSERT_EQ(a.description, b.description) << "seed " << seed << " gave two different programs";
        ASSERT_EQ(a.construction_error, "") << "seed " << seed << "\n" << a.description;
        Outcome ref = realize_window(a.output, a.mins, a.extents, Path::Reference);
        ASSERT_TRUE(ref.ok()) << "seed " << seed << ": " << ref.describe() << "\n" << a.description;
        seen.insert(a.features.begin(), a.features.end());
    }
    const char *const expected[] = {
        "update:pure", "update:compound", "update:rdom", "update:scan", "update:histogram", "update:point",
        "update:data_dependent_lhs", "rdom:where", "rdom:param_extent", "rdom:empty", "index:data_dependent",
        "index:div", "index:mod", "bc:repeat_edge", "bc:constant_exterior", "bc:mirror_image", "bc:mirror_interior",
        "bc:repeat_image", "bc_func:repeat_edge", "input:clamped_read", "self_call_in_value", "type:int8",
        "type:int16", "type:int32", "type:int64", "type:uint8", "type:uint16", "type:uint32", "type:uint64",
        "type:float32", "type:float64", "type:bool", "dims:1", "dims:2", "dims:3", "op:div", "op:mod",
        "op:bitwise", "op:shift", "op:abs", "op:absd", "op:cast", "op:mixed_types", "op:reinterpret", "op:math",
        "op:math2", "op:math_of_int", "op:is_nan", "op:cast_to_bool", "op:mixed_compare", "param:int32",
        "param:float32", "param:uint8", "param:float64", "param_range", "window:negative_min"};
    for (const char *f : expected) EXPECT_TRUE(seen.count(f)) << "no program of 400 uses " << f;
}

}  // namespace
