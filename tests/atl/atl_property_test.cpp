// ATL property tests: random well-shaped programs over every construct (gen, sum, guards,
// let, the reshape operators, truncations of padding only), evaluated by the reference
// interpreter and compiled through Tessera; the values and the pad cells must agree. The
// data are small integers, so every result is exact in float.

#include <gtest/gtest.h>

#include "random_programs.h"
#include "tessera/Error.h"

using namespace tessera::atl;

TEST(AtlProperty, RandomProgramsCompileToTheirMeaning) {
    int compared = 0;
    for (uint32_t seed = 1; seed <= 40; seed++) {
        Tensor e = test::random_program(seed);
        SCOPED_TRACE("seed " + std::to_string(seed) + ": " + e.to_string());
        Inputs in = test::random_inputs(seed);
        Value expected = evaluate(e, in);
        ASSERT_EQ(expected.shape, e.shape());
        Program p(e);
        Value got = p.run(in);
        ASSERT_EQ(got.shape, expected.shape);
        for (size_t c = 0; c < got.data.size(); c++) {
            EXPECT_EQ(got.data[c], expected.data[c]) << "cell " << c;
            EXPECT_EQ(got.pad[c], expected.pad[c]) << "cell " << c;
        }
        compared++;
    }
    EXPECT_EQ(compared, 40);
}
