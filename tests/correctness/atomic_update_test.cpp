// atomic(): an integer update whose iterations may run in any order, with parallel
// reduction loops that write one point from several iterations (a histogram), each store
// an atomic read-modify-write (docs/semantics.md §10). The results equal the reference
// interpreter's exactly; what atomic() refuses is a CompileError that says why.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "ir/IRPrinter.h"
#include "lower/Lower.h"
#include "support/differential.h"
#include "support/errors.h"

using namespace tessera;

namespace {

Buffer<uint8_t> test_image(int w, int h) {
    Buffer<uint8_t> b(std::vector<int>{w, h}, "atomic_in");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = uint8_t((x * 37 + y * 101 + (x * y) % 13) & 255);
    return b;
}

std::string message_of(const std::function<void()> &f) { return test::error_message<CompileError>(f); }

}  // namespace

TEST(AtomicUpdate, AParallelHistogramEqualsTheReference) {
    Buffer<uint8_t> in = test_image(300, 97);
    Var b("b");
    RDom r(0, 300, 0, 97, "r");
    RVar ry = r.y;
    Func hist("hist");
    hist(b) = 0;
    hist(in(r.x, r.y) / 8) += 1;
    hist.update().atomic().parallel(ry);
    const std::string stmt = [&] {
        std::ostringstream os;
        os << lower::lower(hist.data()).body;
        return os.str();
    }();
    EXPECT_NE(stmt.find("parallel"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("atomic hist.update(0)"), std::string::npos) << stmt;
    Buffer<int32_t> got = hist.realize({32});
    Buffer<int32_t> ref = hist.realize_reference({32});
    int total = 0;
    for (int i = 0; i < 32; i++) {
        EXPECT_EQ(got(i), ref(i)) << "bin " << i;
        total += got(i);
    }
    EXPECT_EQ(total, 300 * 97);
}

TEST(AtomicUpdate, MinMaxAndProductsOfSplitReductionLoops) {
    Buffer<uint8_t> in = test_image(64, 40);
    Var b("b");
    RDom r(0, 64, 0, 40, "r");
    RVar ro("ro"), ri("ri");
    Func lo("lo"), hi("hi"), bits("bits");
    lo(b) = 255;
    lo(in(r.x, r.y) % 4) = min(lo(in(r.x, r.y) % 4), cast<int32_t>(in(r.x, r.y)));
    hi(b) = 0;
    hi(in(r.x, r.y) % 4) = max(hi(in(r.x, r.y) % 4), cast<int32_t>(in(r.x, r.y)));
    bits(b) = cast<uint16_t>(0);
    bits(in(r.x, r.y) % 4) = bits(in(r.x, r.y) % 4) ^ cast<uint16_t>(in(r.x, r.y) * 3);
    lo.update().atomic().split(r.y, ro, ri, 8).parallel(ro);
    hi.update().atomic().parallel(r.x);
    bits.update().atomic().reorder(r.y, r.x).parallel(r.x);
    for (Func *f : {&lo, &hi}) {
        Buffer<int32_t> got = f->realize({4}), ref = f->realize_reference({4});
        for (int i = 0; i < 4; i++) EXPECT_EQ(got(i), ref(i)) << f->name() << " " << i;
    }
    Buffer<uint16_t> got = bits.realize({4}), ref = bits.realize_reference({4});
    for (int i = 0; i < 4; i++) EXPECT_EQ(got(i), ref(i)) << i;
}

TEST(AtomicUpdate, VectorLanesThatWriteOnePointBothCount) {
    // Vectorized over r.x: the 8 lanes of a vector mostly fall into a few bins, each lane a
    // read-modify-write of its bin, in the compiled code and in the IR interpreter.
    Buffer<uint8_t> in = test_image(203, 19);
    Var b("b");
    RDom r(0, 203, 0, 19, "r");
    Func hist("vhist");
    hist(b) = 0;
    hist(in(r.x, r.y) / 64) += cast<int32_t>(in(r.x, r.y)) + 1;
    hist.update().atomic().vectorize(r.x, 8).parallel(r.y);
    Buffer<int32_t> got = hist.realize({4}), ref = hist.realize_reference({4});
    for (int i = 0; i < 4; i++) EXPECT_EQ(got(i), ref(i)) << "bin " << i;
    EXPECT_EQ(tessera::testing::differential::prophecy_check(hist, {0}, {4}), "");
    // Every lane into one point.
    Func total("vtotal");
    total(b) = 0;
    total(Expr(0)) = total(Expr(0)) ^ cast<int32_t>(in(r.x, r.y)) * 3;
    total.update().atomic().vectorize(r.x, 16);
    Buffer<int32_t> t = total.realize({1}), tref = total.realize_reference({1});
    EXPECT_EQ(t(0), tref(0));
    EXPECT_EQ(tessera::testing::differential::prophecy_check(total, {0}, {1}), "");
    // One point from every lane with a value alike in every lane: the vectorizer stores it
    // from each lane, and each lane's update counts.
    Func same("vsame");
    same(b) = 7;
    same(r.x / 64) = same(r.x / 64) + 3;
    same.update().atomic().vectorize(r.x, 8);
    Buffer<int32_t> s = same.realize({4}), sref = same.realize_reference({4});
    for (int i = 0; i < 4; i++) EXPECT_EQ(s(i), sref(i)) << "bin " << i;
    EXPECT_EQ(tessera::testing::differential::prophecy_check(same, {0}, {4}), "");
    // What the simplifier leaves of f = f + 0 (the point alone) and of f = f * 0 (no read
    // of the point), in vector lanes and one lane.
    for (int vectorized = 0; vectorized < 2; vectorized++)
        for (int times_zero = 0; times_zero < 2; times_zero++) {
            Func g("vsimplified_" + std::to_string(vectorized) + std::to_string(times_zero));
            g(b) = b + 5;
            const Expr point = g(cast<int32_t>(in(r.x, r.y)) % 3);
            g(cast<int32_t>(in(r.x, r.y)) % 3) = times_zero ? point * 0 : point + 0;
            Stage u = g.update();
            u.atomic().parallel(r.y);
            if (vectorized) u.vectorize(r.x, 8);
            Buffer<int32_t> got = g.realize({3}), ref = g.realize_reference({3});
            for (int i = 0; i < 3; i++) EXPECT_EQ(got(i), ref(i)) << g.name() << " bin " << i;
            EXPECT_EQ(tessera::testing::differential::prophecy_check(g, {0}, {3}), "") << g.name();
        }
}

TEST(AtomicUpdate, WhatItRefusesIsACompileError) {
    Buffer<uint8_t> in = test_image(16, 8);
    Var b("b");
    RDom r(0, 16, 0, 8, "r");
    // A float sum: its iterations' order changes the rounding.
    Func fsum("fsum");
    fsum(b) = 0.0f;
    fsum(in(r.x, r.y) % 4) += cast<float>(in(r.x, r.y)) * 0.1f;
    fsum.update().atomic().parallel(r.y);
    std::string m = message_of([&] { fsum.compile_jit(); });
    EXPECT_NE(m.find("atomic()"), std::string::npos) << m;
    EXPECT_NE(m.find("float"), std::string::npos) << m;
    // Not of the form f = f op e: a running difference.
    Func diff("diff");
    diff(b) = 0;
    diff(in(r.x, r.y) % 4) = cast<int32_t>(in(r.x, r.y)) - diff(in(r.x, r.y) % 4);
    diff.update().atomic().parallel(r.y);
    m = message_of([&] { diff.compile_jit(); });
    EXPECT_NE(m.find("f(...) = f(...) op e"), std::string::npos) << m;
    // Halide's override of the associativity test, and atomic() on a pure definition.
    Func over("over");
    over(b) = 0;
    over(in(r.x, r.y) % 4) += 1;
    m = message_of([&] { over.update().atomic(true); });
    EXPECT_NE(m.find("no override"), std::string::npos) << m;
    m = message_of([&] { over.atomic(); });
    EXPECT_NE(m.find("applies to an update"), std::string::npos) << m;
    // Without atomic(), the parallel histogram is the race it always was.
    Func race("race");
    race(b) = 0;
    race(in(r.x, r.y) % 4) += 1;
    race.update().parallel(r.y);
    m = message_of([&] { race.compile_jit(); });
    EXPECT_NE(m.find("may write the same point"), std::string::npos) << m;
}

TEST(AtomicUpdate, RandomAtomicUpdatesEqualTheReference) {
    // Random histograms: an operator, a type, a number of bins, a bucket and a value made
    // from the input and the RVars, and a schedule that runs a reduction loop in parallel
    // (split, reordered or not); each compiled pipeline equals the reference exactly.
    std::mt19937 rng(20261127);
    auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
    int compared = 0;
    for (int seed = 0; seed < 24; seed++) {
        const int w = 5 + pick(40), h = 3 + pick(30), bins = 1 + pick(9);
        Buffer<uint8_t> in(std::vector<int>{w, h}, "rand_in");
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) in(x, y) = uint8_t(rng());
        const Type types[4] = {Int(32), UInt(16), Int(8), UInt(8)};
        const Type t = types[pick(4)];
        RDom r(0, w, 0, h, "r");
        Var b("b");
        Func f("rand_atomic_" + std::to_string(seed));
        const Expr bucket = (cast<int32_t>(in(r.x, r.y)) + r.x * pick(5) + r.y * pick(5)) % bins;
        const Expr v = cast(t, cast<int32_t>(in(r.x, r.y)) * (1 + pick(7)) + r.y);
        const int op = pick(7);
        f(b) = cast(t, op == 1 ? 1 : op == 2 ? 100 : 3);
        const Expr self = f(bucket);
        f(bucket) = op == 0 ? self + v : op == 1 ? self * (v | cast(t, 1)) : op == 2 ? min(self, v) : op == 3 ? max(self, v)
                  : op == 4 ? (self ^ v) : op == 5 ? (self | (v & cast(t, 3))) : (self & (v | cast(t, 0x70)));
        Stage u = f.update();
        u.atomic();
        std::string schedule = "atomic()";
        if (pick(2)) {
            const int lanes = 2 << pick(3);
            u.vectorize(r.x, lanes);
            schedule += ".vectorize(r.x, " + std::to_string(lanes) + ")";
        }
        switch (pick(2)) {
        case 0: u.parallel(r.y), schedule += ".parallel(r.y)"; break;
        case 1: {
            RVar ro("ro"), ri("ri");
            const int factor = 1 + pick(6);
            u.split(r.y, ro, ri, factor).parallel(ro);
            schedule += ".split(r.y, ro, ri, " + std::to_string(factor) + ").parallel(ro)";
            break;
        }
        }
        const std::string what = "seed " + std::to_string(seed) + ": " + t.to_string() + " op " + std::to_string(op) + ", " +
                                 std::to_string(bins) + " bins, " + std::to_string(w) + "x" + std::to_string(h) + ", " + schedule;
        Buffer<> got = f.realize({bins}), ref = f.realize_reference({bins});
        for (int i = 0; i < bins; i++) {
            int64_t g = 0, e = 0;
            std::memcpy(&g, (const uint8_t *)got.data() + size_t(i) * size_t(t.bytes()), size_t(t.bytes()));
            std::memcpy(&e, (const uint8_t *)ref.data() + size_t(i) * size_t(t.bytes()), size_t(t.bytes()));
            ASSERT_EQ(g, e) << what << ", bin " << i;
        }
        compared++;
    }
    EXPECT_EQ(compared, 24);
}
