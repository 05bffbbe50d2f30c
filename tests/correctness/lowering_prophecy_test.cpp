// Lowered code, run by the IR interpreter with the dynamic prophecy check on, against the
// reference interpreter: every store must write the reference value of its provenance
// annotation, no poisoned value may reach the output window, and the window must be
// bit-identical to realize_reference. This checks the lowering passes independently of
// the C backend.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"
#include "support/pipeline_corpus.h"
#include "support/random_pipeline.h"

using namespace tessera;
using namespace tessera::testing;

namespace {

Buffer<> window_buffer(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents) {
    Buffer<> b(f.type(), extents);
    b.set_min(mins);
    return b;
}

/** Runs `f` over the window both ways; returns a description of the first difference. */
std::string compare_lowered(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents,
                            int64_t max_stores = 0) {
    Buffer<> expected = window_buffer(f, mins, extents);
    f.realize_reference(expected);
    Buffer<> actual = window_buffer(f, mins, extents);
    auto lowered = lower::lower(f.data());
    semantics::RunOptions options;
    options.prophecy = true;
    semantics::RunStats stats;
    options.stats = &stats;
    options.max_stores = max_stores;
    semantics::run(lowered, semantics::default_arguments(lowered, actual.data_handle()), options);
    const int64_t bytes = expected.number_of_elements() * expected.type().bytes();
    if (std::memcmp(expected.data(), actual.data(), size_t(bytes)) != 0) return "window differs from the reference";
    if (stats.stores > 0 && stats.prophecy.checked + stats.prophecy.final_checked == 0)
        return "the prophecy check compared no store";
    return "";
}

}  // namespace

class LoweringProphecy : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(LoweringProphecy, MatchesReference) {
    CorpusPipeline p = GetParam().make();
    EXPECT_EQ(compare_lowered(p.output, p.mins, p.extents), "") << p.name << ": " << p.note;
}

INSTANTIATE_TEST_SUITE_P(Corpus, LoweringProphecy, ::testing::ValuesIn(pipeline_corpus()),
                         [](const ::testing::TestParamInfo<CorpusEntry> &info) { return std::string(info.param.name); });

// Random programs (fixed seeds): TESSERA_LOWERING_PROGRAMS sets the count. The default
// schedule computes a Func with updates per point of its consumer, so a few programs do
// billions of interpreted stores; those past a budget of stores are skipped (and counted:
// at most a fifth may be). The compiled-code fuzzers run every program to completion.
TEST(LoweringProphecyRandom, FixedSeeds) {
    int count = 200;
    if (const char *env = std::getenv("TESSERA_LOWERING_PROGRAMS")) count = std::atoi(env);
    constexpr int64_t kMaxStores = 200000;
    int failures = 0, skipped = 0;
    for (int i = 0; i < count && failures < 5; i++) {
        uint64_t seed = 0x5eed0000u + uint64_t(i);
        RandomPipeline p = random_pipeline(seed);
        ASSERT_TRUE(p.construction_error.empty()) << "seed " << seed << ": " << p.construction_error << "\n"
                                                  << p.description;
        std::string diff;
        try {
            diff = compare_lowered(p.output, p.mins, p.extents, kMaxStores);
        } catch (const semantics::WorkLimitExceeded &) {
            skipped++;
            continue;
        } catch (const std::exception &e) {
            diff = std::string("exception: ") + e.what();
        }
        if (!diff.empty()) {
            failures++;
            ADD_FAILURE() << "seed " << seed << ": " << diff << "\n" << p.description;
        }
    }
    EXPECT_LE(skipped * 5, count) << skipped << " of " << count << " programs exceeded " << kMaxStores << " stores";
}
