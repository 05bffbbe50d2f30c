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
#include "support/differential.h"

using namespace tessera;
using namespace tessera::testing;

using tessera::testing::differential::prophecy_check;

class LoweringProphecy : public ::testing::TestWithParam<CorpusEntry> {};

TEST_P(LoweringProphecy, MatchesReference) {
    CorpusPipeline p = GetParam().make();
    EXPECT_EQ(prophecy_check(p.output, p.mins, p.extents), "") << p.name << ": " << p.note;
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
        std::string diff = prophecy_check(p.output, p.mins, p.extents, kMaxStores);
        if (diff == "skipped") {
            skipped++;
            continue;
        }
        if (!diff.empty()) {
            failures++;
            ADD_FAILURE() << "seed " << seed << ": " << diff << "\n" << p.description;
        }
    }
    EXPECT_LE(skipped * 5, count) << skipped << " of " << count << " programs exceeded " << kMaxStores << " stores";
}
