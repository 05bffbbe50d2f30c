// Buffer reuse in lowered ATL programs (docs/atl.md, "Buffer reuse"): a let whose
// computation begins after the last use of another let of the same size takes that let's
// buffer, and a let that reads a dying one only at the cell it computes takes it in place;
// Program::storage() reports it, and the results are unchanged.

#include <gtest/gtest.h>

#include "tessera/Atl.h"

using namespace tessera::atl;

namespace {

Index i("i"), j("j");

}  // namespace

TEST(AtlStorage, ALetAfterTheLastUseOfAnotherTakesItsBuffer) {
    // a is last read by b (at two cells, so not in place); c begins after that and takes
    // a's buffer. b is read by the result, after c, and keeps its own.
    Array A("A", {64});
    Tensor e = let("a", gen(i, 64, A(i) * 2.0), [&](const Array &a) {
        return let("b", gen(i, 64, a(i) + a(i / 2)), [&](const Array &b) {
            return let("c", gen(i, 64, b(i) * b(i)), [&](const Array &c) { return gen(j, 64, c(j) - b(j)); });
        });
    });
    Program p(e);
    Program::Storage s = p.storage();
    // The lets' three buffers (the result, a pure definition, is computed into the
    // caller's buffer).
    EXPECT_EQ(s.allocations, 3);
    EXPECT_EQ(s.saved(), 1);
    EXPECT_EQ(s.reused, (std::vector<std::pair<std::string, std::string>>{{"c", "a"}}));
    Value in(std::vector<int64_t>{64});
    for (int k = 0; k < 64; k++) in.data[size_t(k)] = k % 9 - 4;
    Value got = p.run({{"A", in}}), want = p.run_reference({{"A", in}});
    EXPECT_EQ(got.data, want.data);
}

TEST(AtlStorage, AMapOverADyingLetTakesItsBufferInPlace) {
    // b reads a only at the cell it computes, and a is dead after b: b overwrites a's
    // cells as it reads them. c does the same with b: one buffer for the three lets.
    Array A("A", {64});
    Tensor e = let("a", gen(i, 64, A(i) * 2.0), [&](const Array &a) {
        return let("b", gen(i, 64, a(i) + 1.0), [&](const Array &b) {
            return let("c", gen(i, 64, b(i) * b(i)), [&](const Array &c) { return gen(j, 64, c(j) * 0.5); });
        });
    });
    Program p(e);
    Program::Storage s = p.storage();
    EXPECT_EQ(s.allocations, 3);
    EXPECT_EQ(s.saved(), 2);
    EXPECT_EQ(s.reused, (std::vector<std::pair<std::string, std::string>>{{"b", "a"}, {"c", "a"}}));
    Value in(std::vector<int64_t>{64});
    for (int k = 0; k < 64; k++) in.data[size_t(k)] = k % 9 - 4;
    Value got = p.run({{"A", in}}), want = p.run_reference({{"A", in}});
    EXPECT_EQ(got.data, want.data);
}

TEST(AtlStorage, LetsOfOtherSizesOrStillLiveKeepTheirBuffers) {
    Array A("A", {64});
    // d is larger than b: it cannot take b's buffer (b takes a's in place).
    Tensor e = let("a", gen(i, 32, A(i) * 2.0), [&](const Array &a) {
        return let("b", gen(i, 32, a(i) + 1.0), [&](const Array &b) {
            return let("d", gen(i, 64, b(i / 2) * 3.0), [&](const Array &d) { return gen(j, 64, d(j) + b(j / 2)); });
        });
    });
    EXPECT_EQ(Program(e).storage().reused, (std::vector<std::pair<std::string, std::string>>{{"b", "a"}}));
    // The result reads a: a is live to the end, and no let takes its buffer, in place or
    // after; c takes b's in place.
    Tensor live = let("a", gen(i, 64, A(i) * 2.0), [&](const Array &a) {
        return let("b", gen(i, 64, a(i) + 1.0), [&](const Array &b) {
            return let("c", gen(i, 64, b(i) * a(i)), [&](const Array &c) { return gen(j, 64, c(j) - a(j)); });
        });
    });
    Program p(live);
    EXPECT_EQ(p.storage().reused, (std::vector<std::pair<std::string, std::string>>{{"c", "b"}}));
    Value in(std::vector<int64_t>{64});
    for (int k = 0; k < 64; k++) in.data[size_t(k)] = k % 7 - 3;
    EXPECT_EQ(p.run({{"A", in}}).data, p.run_reference({{"A", in}}).data);
}

TEST(AtlStorage, ALetPerIterationHoldsOneIterationAtATime) {
    // r depends on i: ATL computes it once per iteration of i. As a pure definition read
    // by the one update that loops over i, it is computed inside that loop, its buffer
    // one row (4 cells) instead of all 8 rows.
    Index k("k");
    Array M("M", {8, 4});
    Tensor e = gen(i, 8, let("r", gen(j, 4, M(i, j) * 2.0), [&](const Array &r) { return sum(k, 4, r(k) * real(k)); }));
    Program p(e);
    EXPECT_EQ(p.storage().per_iteration, std::vector<std::string>{"r per iteration of i"});
    Value m(std::vector<int64_t>{8, 4});
    for (int c = 0; c < 32; c++) m.data[size_t(c)] = c % 5;
    Value got = p.run({{"M", m}}), want = p.run_reference({{"M", m}});
    EXPECT_EQ(got.data, want.data);
    // Read by two stages (both sides of a concatenation), it stays at the root.
    Tensor twice = gen(i, 8, let("r", gen(j, 4, M(i, j) * 2.0), [&](const Array &r) {
                          return concat(gen(j, 2, r(j)), gen(j, 2, r(j + 2) * 3.0));
                      }));
    Program q(twice);
    EXPECT_TRUE(q.storage().per_iteration.empty());
    Value got2 = q.run({{"M", m}}), want2 = q.run_reference({{"M", m}});
    EXPECT_EQ(got2.data, want2.data);
}
