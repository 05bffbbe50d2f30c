// Buffer reuse in lowered ATL programs (docs/atl.md, "Buffer reuse"): a let whose
// computation begins after the last use of another let of the same size takes that let's
// buffer, and a let that reads a dying one only at the cell it computes takes it in place;
// Program::storage() reports it, and the results are unchanged.

#include <gtest/gtest.h>

#include "ir/Function.h"
#include "ir/IRVisitor.h"
#include "lower/Lower.h"
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

TEST(AtlStorage, ATiledProgramWithGuardedTailsFillsTheCallersBufferOnly) {
    // A blur tiled by rewrites with ragged tiles (20 = 2 x 8 + 4): the tails' guards and the
    // truncations leave no cell unstored, so the result is undef before its updates (no
    // zeros), and its stores stay inside its shape (the guards compare the coordinates
    // themselves), so it is computed in the caller's buffer (no copy).
    Index y("y"), x("x");
    Array I("I", {22, 22});
    Tensor blur = let("bx", gen(y, 22, gen(x, 20, I(y, x) + I(y, x + 1) + I(y, x + 2))), [&](const Array &bx) {
        return gen(i, 20, gen(j, 20, bx(i, j) + bx(i + 1, j) + bx(i + 2, j)));
    });
    Derivation d(blur);
    d.tile("i", "j", 8, 8).separate("io").separate("jo");
    Program p(d.program());
    EXPECT_TRUE(tessera::ir::is_undef(p.output().data()->definitions[0].value));
    struct Stores : tessera::ir::IRVisitor {
        std::map<std::string, int> n;
        using tessera::ir::IRVisitor::include;
        void visit(const tessera::ir::Store *op) override {
            n[op->buffer]++;
            tessera::ir::IRVisitor::visit(op);
        }
    } stores;
    stores.include(tessera::lower::lower(p.output().data()).body);
    EXPECT_EQ(stores.n.size(), 2u);  // bx, and the caller's buffer
    EXPECT_GE(stores.n[p.output().name()], 4);
    Value in(std::vector<int64_t>{22, 22});
    for (int c = 0; c < 22 * 22; c++) in.data[size_t(c)] = c % 11 - 5;
    EXPECT_EQ(p.run({{"I", in}}).data, p.run_reference({{"I", in}}).data);
    // The same tiles without the separation: one update, its guards over every tile; the
    // iterations are enumerated to count the stores, and every cell is stored.
    Derivation once(blur);
    once.tile("i", "j", 8, 8);
    Program q(once.program());
    EXPECT_TRUE(tessera::ir::is_undef(q.output().data()->definitions[0].value));
    EXPECT_EQ(q.run({{"I", in}}).data, q.run_reference({{"I", in}}).data);
}
