// Tuples: Funcs with several values at each point (docs/semantics.md §12). Compiled code,
// the IR interpreter (with the prophecy check, value by value) and the reference
// interpreter agree on pure Tuples, Tuple reductions (argmin, argmax, a running sum with
// its count), Tuples computed at a consumer's loop, vectorized and parallel, read by other
// Funcs, and realized as the output; what a Tuple may not do is a CompileError with the
// user's names.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"
#include "support/differential.h"
#include "support/errors.h"

using namespace tessera;
using tessera::testing::differential::compare_window;

namespace {

Buffer<float> test_input(int w, int h) {
    Buffer<float> b(std::vector<int>{w, h}, "tuple_in");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) b(x, y) = float((x * 37 + y * 101 + (x * y) % 13) % 97) - 40.0f;
    return b;
}

/** Every value of f over [0, sizes): compiled, then through the IR interpreter with the
 * prophecy check, each against the reference interpreter bit for bit. */
void expect_matches_reference(const Func &f, const std::vector<int> &sizes) {
    const Realization reference = f.realize_reference(sizes);
    const Realization compiled = f.realize(sizes);
    ASSERT_EQ(compiled.size(), reference.size());
    const std::vector<int> mins(sizes.size(), 0);
    for (size_t k = 0; k < reference.size(); k++)
        EXPECT_EQ(compare_window(compiled[k], reference[k], mins, sizes), "") << "value " << k << " of " << f.name();

    std::vector<std::shared_ptr<ir::BufferData>> outputs;
    std::vector<Buffer<>> interpreted;
    for (const Type &t : f.types()) {
        interpreted.emplace_back(t, sizes);
        outputs.push_back(interpreted.back().data_handle());
    }
    semantics::RunOptions options;
    options.prophecy = true;
    options.reverse_parallel = true;
    semantics::RunStats stats;
    options.stats = &stats;
    auto lowered = lower::lower(f.data());
    semantics::run(lowered, semantics::default_arguments(lowered, outputs), options);
    for (size_t k = 0; k < reference.size(); k++)
        EXPECT_EQ(compare_window(interpreted[k], reference[k], mins, sizes), "") << "IR interpreter, value " << k;
    EXPECT_GT(stats.prophecy.checked + stats.prophecy.final_checked, 0);
}

std::string compile_error_of(const std::function<void()> &f) { return test::error_message<CompileError>(f); }

}  // namespace

TEST(Tuple, PureTupleOfTwoTypes) {
    Func f("pair");
    Var x("x"), y("y");
    f(x, y) = Tuple(x + y * 3, sin(cast<float>(x)) * cast<float>(y));
    EXPECT_EQ(f.outputs(), 2);
    EXPECT_EQ(f.types()[0], Int(32));
    EXPECT_EQ(f.types()[1], Float(32));
    expect_matches_reference(f, {9, 5});
    Realization r = f.realize({4, 3});
    Buffer<int32_t> first = r[0];
    Buffer<float> second = r[1];
    EXPECT_EQ(first(2, 1), 5);
    EXPECT_EQ(second(3, 2), sinf(3.0f) * 2.0f);
}

TEST(Tuple, ArgminOfARowIsTheFirstMinimum) {
    Buffer<float> in = test_input(37, 6);
    Func arg("row_argmin");
    Var y("y");
    RDom r(0, 37, "r");
    arg(y) = Tuple(0, in(0, y));
    arg(y) = select(in(r, y) < arg(y)[1], Tuple(r.x, in(r, y)), Tuple(arg(y)[0], arg(y)[1]));
    expect_matches_reference(arg, {6});
    Realization out = arg.realize({6});
    Buffer<int32_t> index = out[0];
    Buffer<float> value = out[1];
    for (int row = 0; row < 6; row++) {
        int best = 0;
        for (int x = 1; x < 37; x++)
            if (in(x, row) < in(best, row)) best = x;
        EXPECT_EQ(index(row), best) << "row " << row;
        EXPECT_EQ(value(row), in(best, row));
    }
}

TEST(Tuple, ArgmaxInlineReductionOverTwoDimensions) {
    Buffer<float> in = test_input(23, 17);
    Func best("best");
    RDom r(0, 23, 0, 17, "r");
    best() = argmax(in(r.x, r.y));
    ASSERT_EQ(best.outputs(), 3);  // r.x, r.y and the value
    expect_matches_reference(best, {});
    Realization out = best.realize(std::vector<int>{});
    Buffer<int32_t> bx = out[0], by = out[1];
    Buffer<float> bv = out[2];
    int ex = 0, ey = 0;
    for (int y = 0; y < 17; y++)
        for (int x = 0; x < 23; x++)
            if (in(x, y) > in(ex, ey)) ex = x, ey = y;
    EXPECT_EQ(bx(), ex);
    EXPECT_EQ(by(), ey);
    EXPECT_EQ(bv(), in(ex, ey));
}

TEST(Tuple, ARunningSumAndCountUpdatedTogether) {
    // Each value of the update reads both values before it: the count and the sum of the
    // positive entries of a row, and a mean computed from them by a consumer.
    Buffer<float> in = test_input(40, 12);
    Func stats("stats"), mean("mean");
    Var y("y");
    RDom r(0, 40, "r");
    stats(y) = Tuple(0, 0.0f);
    stats(y) = select(in(r, y) > 0, Tuple(stats(y)[0] + 1, stats(y)[1] + in(r, y)), Tuple(stats(y)[0], stats(y)[1]));
    mean(y) = stats(y)[1] / cast<float>(max(stats(y)[0], 1));
    stats.compute_root();
    expect_matches_reference(mean, {12});
    expect_matches_reference(stats, {12});
}

TEST(Tuple, ComputedAtAConsumerLoopVectorizedAndParallel) {
    Buffer<float> in = test_input(67, 29);
    Func minmax("minmax"), range("range");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    minmax(x, y) = Tuple(min(in(x, y), in(x + 1, y)), max(in(x, y), in(x + 1, y)));
    range(x, y) = minmax(x, y)[1] - minmax(x, y)[0] + minmax(x + 1, y)[1] - minmax(x + 1, y)[0];
    range.split(x, xo, xi, 8).vectorize(xi).parallel(y);
    minmax.compute_at(range, y).vectorize(x, 8);
    expect_matches_reference(range, {64, 29});
}

TEST(Tuple, InlinedTupleIsSubstitutedValueByValue) {
    Func polar("polar"), out("out");
    Var x("x"), y("y");
    polar(x, y) = Tuple(cast<float>(x * x + y * y), atan2(cast<float>(y), cast<float>(x) + 0.5f));
    out(x, y) = polar(x, y)[0] * cos(polar(x, y)[1]);
    expect_matches_reference(out, {13, 11});
}

TEST(Tuple, OutputTupleScheduledAndUpdatedWithTupleOperators) {
    Func acc("acc");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    RDom r(0, 5, "r");
    acc(x, y) = Tuple(x, cast<uint8_t>(y));
    acc(x, y) += Tuple(r.x * x, cast<uint8_t>(r.x + 250));
    acc.split(y, yo, yi, 4).parallel(yo).vectorize(x, 8).unroll(yi);
    acc.update(0).vectorize(x, 8).unroll(r.x);
    expect_matches_reference(acc, {21, 10});
}

TEST(Tuple, SlidingWindowOverATupleStoredPerStrip) {
    Buffer<float> in = test_input(50, 40);
    Func grad("grad"), mag("mag");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    grad(x, y) = Tuple(in(x + 1, y) - in(x, y), in(x, y + 1) - in(x, y));
    mag(x, y) = grad(x, y)[0] * grad(x, y)[0] + grad(x, y + 1)[1] * grad(x, y)[1];
    mag.split(y, yo, yi, 8).parallel(yo);
    grad.store_at(mag, yo).compute_at(mag, yi);
    expect_matches_reference(mag, {48, 38});
}

TEST(Tuple, ATupleOfAFuncCopiesEveryValue) {
    Func f("f"), g("g");
    Var x("x");
    f(x) = Tuple(x * 2, cast<int16_t>(x - 7));
    g(x) = f(x + 1);  // a Func of two values: g has them too
    EXPECT_EQ(g.outputs(), 2);
    Func h("h");
    h(x) = Tuple(f(x));
    EXPECT_EQ(h.outputs(), 2);
    expect_matches_reference(g, {10});
    expect_matches_reference(h, {10});
}

TEST(Tuple, MisuseIsACompileErrorWithTheFuncsName) {
    Func f("twovals"), g("user");
    Var x("x");
    f(x) = Tuple(x, x * 2.0f);
    EXPECT_NE(compile_error_of([&] { g(x) = f(x) + 1; }).find("twovals"), std::string::npos);
    EXPECT_NE(compile_error_of([&] { g(x) = f(x)[2]; }).find("no value 2"), std::string::npos);
    EXPECT_NE(compile_error_of([&] { (void)f.type(); }).find("types()"), std::string::npos);
    EXPECT_NE(compile_error_of([&] { f(x) = Tuple(x, x, x); }).find("the same number of values"), std::string::npos);
    EXPECT_NE(compile_error_of([&] { f(x) = Tuple(x, x); }).find("value 1 of the Tuple has type int32"),
              std::string::npos);
    EXPECT_NE(compile_error_of([&] { f(x) += 1; }).find("Tuple"), std::string::npos);
    EXPECT_NE(compile_error_of([&] { (void)select(x > 0, Tuple(x, x), Tuple(x, x, x)); }).find("different sizes"),
              std::string::npos);
    EXPECT_NE(compile_error_of([&] { (void)Tuple(std::vector<Expr>{}); }).find("at least one"), std::string::npos);
    // Realizing into the wrong number of buffers is a RuntimeError that says how many.
    try {
        f.realize(Buffer<int32_t>(std::vector<int>{4}));
        ADD_FAILURE() << "no error";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("2 value(s)"), std::string::npos) << e.what();
    }
}

TEST(Tuple, WrappersAndClonesOfATupleKeepEachValue) {
    Func f("tf"), g("tg"), h("th");
    Var x("x"), y("y");
    f(x, y) = Tuple(x * 3 - y, cast<float>(x + y) * 0.5f);
    g(x, y) = f(x, y)[1] + cast<float>(f(x, y)[0]);
    h(x, y) = f(x + 1, y)[0] * 2 + g(x, y);  // an int32 plus a float32: a float32
    f.compute_root();
    f.in(g).compute_at(g, y).vectorize(x, 4);
    f.clone_in(h).compute_at(h, y);
    g.compute_root();
    expect_matches_reference(h, {11, 6});
}

TEST(Tuple, AnOutputWhoseUpdateWritesOutsideTheWindowIsCopiedValueByValue) {
    // The update writes at r, past the window: the output is computed in storage of its
    // own and every value copied out (a final copy per value).
    Func f("spill");
    Var x("x");
    RDom r(0, 12, "r");
    f(x) = Tuple(x, cast<float>(x) * 0.25f);
    f(r) = Tuple(f(r)[0] + f(r + 1)[0], f(r)[1] - f(r + 1)[1]);
    expect_matches_reference(f, {5});

    // Into buffers with non-zero mins; buffers of different windows are refused.
    Buffer<int32_t> a(std::vector<int>{4}, "a");
    Buffer<float> b(std::vector<int>{4}, "b");
    a.set_min({3});
    b.set_min({3});
    f.realize(Realization({a, b}));
    Realization reference = f.realize_reference({12});
    for (int i = 3; i < 7; i++) {
        EXPECT_EQ(a(i), Buffer<int32_t>(reference[0])(i));
        EXPECT_EQ(b(i), Buffer<float>(reference[1])(i));
    }
    Buffer<float> shifted(std::vector<int>{4}, "shifted");
    try {
        f.realize(Realization({a, shifted}));
        ADD_FAILURE() << "realized into buffers of different windows";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("windows differ"), std::string::npos) << e.what();
    }
    // The compiled function itself checks the windows at entry (for callers of the C
    // function): here through the IR interpreter, which runs the same lowered code.
    auto lowered = lower::lower(f.data());
    Buffer<float> other(std::vector<int>{4}, "other");
    try {
        semantics::run(lowered, semantics::default_arguments(lowered, {a.data_handle(), other.data_handle()}));
        ADD_FAILURE() << "ran with output buffers of different windows";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("must cover one window"), std::string::npos) << e.what();
    }
}

namespace {

/** A random expression of type `t` over the leaves given (each a value of any type). */
Expr random_value(std::mt19937 &rng, const std::vector<Expr> &leaves, Type t, int depth) {
    auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
    if (depth == 0 || pick(3) == 0) {
        if (pick(4) == 0) return cast(t, pick(7) - 3);
        return cast(t, leaves[size_t(pick(int(leaves.size())))]);
    }
    Expr a = random_value(rng, leaves, t, depth - 1), b = random_value(rng, leaves, t, depth - 1);
    switch (pick(6)) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return min(a, b);
    case 4: return max(a, b);
    default: return select(a < b, b - a, a);
    }
}

}  // namespace

TEST(Tuple, RandomTupleUpdatesAndSchedulesEqualTheReference) {
    // Tuples of two or three values of mixed types, with a pure update, a reduction over
    // an RDom (sometimes an argmin-like select), or a scan along y, whose values read each
    // other; computed at the root, at the consumer's rows, or per strip, vectorized,
    // parallel and unrolled. Each is compared with the reference interpreter, compiled and
    // through the IR interpreter's prophecy check.
    const std::vector<Type> kinds = {Int(32), Float(32), UInt(8), Int(16)};
    Buffer<float> in = test_input(30, 20);
    for (uint32_t seed = 1; seed <= 24; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func t("rt" + std::to_string(seed)), out("rout" + std::to_string(seed));
        Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
        const int n = 2 + pick(2);
        std::vector<Type> types;
        for (int k = 0; k < n; k++) types.push_back(kinds[size_t(pick(int(kinds.size())))]);
        const std::vector<Expr> pure_leaves = {x, y, clamped(x, y), clamped(x + 1, y - 1)};
        std::vector<Expr> pure;
        for (int k = 0; k < n; k++) pure.push_back(random_value(rng, pure_leaves, types[size_t(k)], 2));
        t(x, y) = Tuple(pure);
        const int update = pick(4);  // 0: none, 1: pure, 2: RDom over x, 3: scan along y
        RDom r(0, 5, "r");
        RDom s(1, 19, "s");
        if (update == 1 || update == 2) {
            std::vector<Expr> leaves = {x, y};
            for (int k = 0; k < n; k++) leaves.push_back(t(x, y)[k]);
            if (update == 2) leaves.push_back(clamped(x + r, y));
            std::vector<Expr> values;
            for (int k = 0; k < n; k++) values.push_back(random_value(rng, leaves, types[size_t(k)], 2));
            if (update == 2) values[0] = values[0] + cast(types[0], clamped(x + r, y));  // over r
            if (update == 2 && pick(2) == 0) {
                // Keep the values where value 0 does not grow (argmin-like).
                std::vector<Expr> kept;
                for (int k = 0; k < n; k++) kept.push_back(t(x, y)[k]);
                t(x, y) = select(values[0] < t(x, y)[0], Tuple(values), Tuple(kept));
            } else {
                t(x, y) = Tuple(values);
            }
        } else if (update == 3) {
            std::vector<Expr> leaves = {x, s};
            for (int k = 0; k < n; k++) {
                leaves.push_back(t(x, s)[k]);
                leaves.push_back(t(x, s - 1)[k]);
            }
            std::vector<Expr> values;
            for (int k = 0; k < n; k++) values.push_back(random_value(rng, leaves, types[size_t(k)], 2));
            values[0] = values[0] + cast(types[0], t(x, s - 1)[n - 1]);  // along s
            t(x, s) = Tuple(values);
        }
        Expr sum = cast<float>(t(x, y)[0]);
        for (int k = 1; k < n; k++) sum = sum + cast<float>(t(x + (k % 2), y)[k]);
        out(x, y) = sum;
        const int where = pick(3);
        if (where == 0) {
            t.compute_root();
            if (pick(2)) t.parallel(y);
        } else if (where == 1) {
            out.split(y, yo, yi, 4).parallel(yo);
            t.compute_at(out, yi).store_at(out, yo);
        } else {
            t.compute_at(out, y);
        }
        if (pick(2)) t.vectorize(x, 4);
        if (update == 1 || update == 2) {
            if (pick(2)) t.update(0).vectorize(x, 4);
            if (update == 2 && pick(2)) t.update(0).unroll(r.x);
        }
        if (pick(2)) out.split(x, xo, xi, 8).vectorize(xi);
        expect_matches_reference(out, {24, 12});
    }
}

TEST(Tuple, AssigningOneValueUpdatesItAlone) {
    // f(x)[i] = e and f(x)[i] += e: an update of value i, the others unchanged.
    Func f("one_value");
    Var x("x");
    RDom r(0, 6, "r");
    f(x) = Tuple(x, cast<float>(x) * 0.5f, cast<uint8_t>(x + 200));
    f(x)[1] = f(x)[1] + cast<float>(f(x)[0]);
    f(x)[2] += cast<uint8_t>(r.x * 20);
    f(r)[0] *= 3;
    ASSERT_EQ(f.num_update_definitions(), 3);
    expect_matches_reference(f, {9});
    Realization out = f.realize({9});
    Buffer<int32_t> a = out[0];
    Buffer<float> b = out[1];
    Buffer<uint8_t> c = out[2];
    for (int i = 0; i < 9; i++) {
        EXPECT_EQ(a(i), i < 6 ? 3 * i : i);
        EXPECT_EQ(b(i), float(i) * 0.5f + float(i));
        EXPECT_EQ(c(i), uint8_t(i + 200 + 20 * (0 + 1 + 2 + 3 + 4 + 5)));
    }
    EXPECT_NE(compile_error_of([&] { f(x)[3] = 1; }).find("no value 3"), std::string::npos);
}

TEST(Tuple, BoundaryConditionsApplyToEveryValue) {
    Func pair("bc_pair"), edge, outside, out("bc_out");
    Var x("x"), y("y");
    pair(x, y) = Tuple(x * 10 + y, cast<float>(x - y) * 0.5f);
    pair.compute_root();
    edge = BoundaryConditions::repeat_edge(pair, {{0, 6}, {0, 4}});
    outside = BoundaryConditions::constant_exterior(pair, -1, {{0, 6}, {0, 4}});
    ASSERT_EQ(edge.outputs(), 2);
    out(x, y) = cast<float>(edge(x - 2, y + 1)[0]) + edge(x, y)[1] + outside(x + 3, y - 1)[1] +
                cast<float>(outside(x, y)[0]);
    expect_matches_reference(out, {9, 6});
    // A Tuple of exterior values, one per value.
    Func each = BoundaryConditions::constant_exterior(pair, Tuple(-7, 2.5f), {{0, 6}, {0, 4}}), both("bc_both");
    both(x, y) = cast<float>(each(x - 1, y + 2)[0]) * each(x + 1, y)[1];
    expect_matches_reference(both, {7, 5});
    EXPECT_NE(compile_error_of([&] { (void)BoundaryConditions::constant_exterior(pair, Tuple(1, 2, 3), {{0, 6}, {0, 4}}); })
                  .find("3 exterior values"),
              std::string::npos);
    Buffer<float> r = out.realize({9, 6});
    auto inside = [](int xx, int yy) { return xx >= 0 && xx < 6 && yy >= 0 && yy < 4; };
    auto cl = [](int v, int hi) { return std::min(std::max(v, 0), hi); };
    for (int yy = 0; yy < 6; yy++)
        for (int xx = 0; xx < 9; xx++) {
            const float a = float(cl(xx - 2, 5) * 10 + cl(yy + 1, 3));
            const float b = float(cl(xx, 5) - cl(yy, 3)) * 0.5f;
            const float c = inside(xx + 3, yy - 1) ? float(xx + 3 - (yy - 1)) * 0.5f : -1.0f;
            const float d = inside(xx, yy) ? float(xx * 10 + yy) : -1.0f;
            EXPECT_EQ(r(xx, yy), a + b + c + d) << xx << ", " << yy;
        }
}
