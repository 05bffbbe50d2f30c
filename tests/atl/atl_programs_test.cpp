// ATL (docs/atl.md): the example programs of the ATL paper, run by the reference
// interpreter and compiled through Tessera, with their pad types and the truncations the
// pad check must reject. Expected values are written out by hand from each program's
// definition.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "tessera/Atl.h"
#include "tessera/Error.h"

using namespace tessera::atl;
using tessera::CompileError;
using testing::HasSubstr;

namespace {

const double P = -1;  // marks an expected pad cell in the tables below

/** The interpreter's value of `e` is `expected` (P: a pad cell), and so is the compiled
 * program's. */
void expect_both(const Tensor &e, const std::vector<int64_t> &shape, const std::vector<double> &expected,
                 const Inputs &inputs = {}) {
    SCOPED_TRACE(e.to_string());
    Program program(e);
    for (const Value &v : {evaluate(e, inputs), program.run(inputs)}) {
        ASSERT_EQ(v.shape, shape);
        ASSERT_EQ(v.data.size(), expected.size());
        for (size_t i = 0; i < expected.size(); i++) {
            EXPECT_EQ(bool(v.pad[i]), expected[i] == P) << "cell " << i;
            EXPECT_EQ(v.data[i], expected[i] == P ? 0.0 : expected[i]) << "cell " << i;
        }
    }
}

Value iota(const std::vector<int64_t> &shape, double scale = 1, double offset = 0) {
    Value v(shape);
    for (size_t i = 0; i < v.data.size(); i++) v.data[i] = offset + scale * double(i);
    return v;
}

void expect_rejected(const Tensor &e, const std::vector<std::string> &parts) {
    SCOPED_TRACE(e.to_string());
    try {
        check_pads(e);
        ADD_FAILURE() << "the pad check accepted it";
    } catch (const CompileError &err) {
        for (const std::string &p : parts) EXPECT_THAT(err.what(), HasSubstr(p));
    }
    EXPECT_THROW(Program{e}, CompileError);
}

Index i("i"), j("j"), k("k");

}  // namespace

TEST(AtlPrograms, GenStoresRowMajor) {  // T1
    expect_both(gen(i, 3, gen(j, 2, real(2 * i + j))), {3, 2}, {0, 1, 2, 3, 4, 5});
}

TEST(AtlPrograms, TransposeSwapsTheStoreIndex) {  // T2
    expect_both(transpose(gen(i, 2, gen(j, 3, real(3 * i + j)))), {3, 2}, {0, 3, 1, 4, 2, 5});
}

TEST(AtlPrograms, FlattenMergesRows) {  // T3
    Array x("x", {2, 3});
    expect_both(flatten(gen(i, 2, gen(j, 3, x(i, j)))), {6}, {10, 11, 12, 13, 14, 15}, {{"x", iota({2, 3}, 1, 10)}});
}

TEST(AtlPrograms, SplitPadsTheLastRow) {  // T4
    Tensor e = split(2, gen(i, 5, real(i)));
    expect_both(e, {3, 2}, {0, 1, 2, 3, 4, P});
    EXPECT_EQ(check_pads(e).to_string(),
              "Pad(0, 2, Pad(0, 1, Scal(false), 1, Scal(false), 0), 1, Pad(0, 0, Scal(false), 1, Scal(false), 1), 0)");
}

TEST(AtlPrograms, ConcatStoresTheRightOperandAfterTheLeft) {  // T5
    expect_both(concat(gen(i, 2, real(i)), gen(j, 3, 10 + real(j))), {5}, {0, 1, 10, 11, 12});
}

TEST(AtlPrograms, SumOutsideGenAccumulates) {  // T6
    expect_both(sum(k, 3, gen(i, 2, real(i + k))), {2}, {3, 6});
}

TEST(AtlPrograms, FalseGuardsArePad) {  // T7, T8
    Tensor e = gen(i, 4, guard(i < 2, 1.0));
    expect_both(e, {4}, {1, 1, P, P});
    EXPECT_EQ(check_pads(e).to_string(), "Pad(0, 1, Scal(false), 1, Scal(false), 2)");
    Tensor t = trunc_r(2, e);
    expect_both(t, {2}, {1, 1});
    EXPECT_EQ(check_pads(t).to_string(), "Pad(0, 1, Scal(false), 1, Scal(false), 0)");
}

TEST(AtlPrograms, TransposeOfAConcatenation) {  // T9
    Tensor e = transpose(concat(gen(i, 2, gen(j, 2, 1.0)), gen(i, 1, gen(j, 2, 2.0))));
    expect_both(e, {2, 3}, {1, 1, 2, 1, 1, 2});
}

TEST(AtlPrograms, TruncationUndoesASplitsPadding) {  // T10
    expect_both(trunc_r(1, flatten(split(2, gen(i, 5, real(i))))), {5}, {0, 1, 2, 3, 4});
}

TEST(AtlPrograms, PadLeftShiftsTheStores) {  // T11
    Tensor e = pad_l(2, gen(i, 3, 1.0));
    expect_both(e, {5}, {P, P, 1, 1, 1});
    EXPECT_EQ(check_pads(e).k, 2);
}

TEST(AtlPrograms, LetBindsATensor) {  // T12
    Tensor e = let("x", gen(i, 3, real(i)), [&](const Array &x) { return gen(j, 3, x(2 - j)); });
    expect_both(e, {3}, {2, 1, 0});
}

TEST(AtlPrograms, EmptySumIsPad) {  // T13
    expect_both(sum(k, 0, 0, gen(i, 2, 1.0)), {2}, {P, P});
}

TEST(AtlPrograms, TruncationOfItsOwnPadIsTheIdentity) {  // T14
    Array x("x", {4});
    Inputs in{{"x", iota({4}, 2, 1)}};
    Tensor e = gen(i, 4, x(i));
    expect_both(trunc_r(3, pad_r(3, e)), {4}, {1, 3, 5, 7}, in);
    expect_both(trunc_l(3, pad_l(3, e)), {4}, {1, 3, 5, 7}, in);
}

namespace {

/** C = A B with A of M x K and B of K x N, naively. */
Tensor matmul(const Array &A, const Array &B) {
    int64_t M = A.shape()[0], K = A.shape()[1], N = B.shape()[1];
    return gen(i, M, gen(j, N, sum(k, K, A(i, k) * B(k, j))));
}

/** The tiled matmul of the ATL paper: tiles of C x C, the tile loops outermost, each
 * truncated back to the matrix's size; `cut_m` truncates the rows (the right amount is
 * ceil(M / C) * C - M). */
Tensor tiled_matmul(const Array &A, const Array &B, int64_t C, int64_t cut_m = -1) {
    int64_t M = A.shape()[0], K = A.shape()[1], N = B.shape()[1];
    int64_t Mt = (M + C - 1) / C, Nt = (N + C - 1) / C;
    if (cut_m < 0) cut_m = Mt * C - M;
    Index io("io"), jo("jo"), ii("ii"), ji("ji");
    Tensor tile = gen(ji, C, gen(ii, C, guard(io * C + ii < M && jo * C + ji < N,
                                                   sum(k, K, A(io * C + ii, k) * B(k, jo * C + ji)))));
    return trunc_r(cut_m, flatten(gen(io, Mt, transpose(trunc_r(Nt * C - N, flatten(gen(jo, Nt, tile)))))));
}

/** The same with loop separation: each tile loop is a guard-free main part concatenated
 * with a guarded tail. */
Tensor separated_matmul(const Array &A, const Array &B, int64_t C) {
    int64_t M = A.shape()[0], K = A.shape()[1], N = B.shape()[1];
    int64_t Mt = (M + C - 1) / C, Nt = (N + C - 1) / C;
    Index io("io"), jo("jo"), ii("ii"), ji("ji");
    auto cell = [&] { return sum(k, K, A(io * C + ii, k) * B(k, jo * C + ji)); };
    auto columns = [&](bool guarded_rows) {
        auto body = [&](bool guarded_cols) {
            Cond in = guarded_rows ? (io * C + ii < M) : (0 <= ii);
            if (guarded_cols) in = in && jo * C + ji < N;
            return gen(ji, C, gen(ii, C, guarded_rows || guarded_cols ? guard(in, cell()) : cell()));
        };
        Tensor main = gen(jo, 0, N / C, body(false));
        Tensor cols = N % C ? concat(main, gen(jo, N / C, Nt, body(true))) : main;
        return transpose(trunc_r(Nt * C - N, flatten(cols)));
    };
    Tensor rows = gen(io, 0, M / C, columns(false));
    if (M % C) rows = concat(rows, gen(io, M / C, Mt, columns(true)));
    return trunc_r(Mt * C - M, flatten(rows));
}

void expect_equal_values(const Value &a, const Value &b, double tolerance = 0) {
    ASSERT_EQ(a.shape, b.shape);
    for (size_t c = 0; c < a.data.size(); c++) {
        EXPECT_NEAR(a.data[c], b.data[c], tolerance * (1 + std::abs(a.data[c]))) << "cell " << c;
        EXPECT_EQ(a.pad[c], b.pad[c]) << "cell " << c;
    }
}

}  // namespace

TEST(AtlPrograms, TiledMatmulEqualsTheNaiveOne) {  // T15
    for (auto [M, N, K, C] : std::vector<std::array<int64_t, 4>>{{5, 3, 2, 2}, {8, 8, 3, 4}, {7, 10, 4, 3}}) {
        Array A("A", {M, K}), B("B", {K, N});
        Inputs in{{"A", iota({M, K}, 1, -3)}, {"B", iota({K, N}, 2, 1)}};
        Value naive = evaluate(matmul(A, B), in);
        for (const Tensor &t : {tiled_matmul(A, B, C), separated_matmul(A, B, C)}) {
            SCOPED_TRACE(t.to_string());
            PadType type = check_pads(t);
            EXPECT_EQ(type.k, 0);
            EXPECT_EQ(type.c, 0);
            expect_equal_values(evaluate(t, in), naive);
            expect_equal_values(Program(t).run(in), naive);
        }
    }
}

TEST(AtlPrograms, TiledMatmulAtTheArtifactsSizes) {  // T15: 64^3 with C = 4; 50 x 70 x 30 separated
    Array A("A", {64, 64}), B("B", {64, 64});
    check_pads(tiled_matmul(A, B, 4));
    check_pads(separated_matmul(A, B, 4));
    Array A2("A", {50, 30}), B2("B", {30, 70});
    Tensor t = separated_matmul(A2, B2, 4);
    check_pads(t);
    Inputs in{{"A", iota({50, 30}, 0.5)}, {"B", iota({30, 70}, 0.25)}};
    expect_equal_values(Program(t).run(in), evaluate(matmul(A2, B2), in), 1e-6);
}

TEST(AtlPrograms, SplitTensorAddIsOneLoop) {  // T16
    const int64_t M = 2, K = 3, N = 2, C = 2, S = M * K * N * C;
    Array t1("t1", {M, K, N, C}), t2("t2", {M, K, N, C});
    Index m("m"), q("q"), n("n"), c("c");
    Tensor nested = gen(m, M, gen(q, K, gen(n, N, gen(c, C, t1(m, q, n, c) + t2(m, q, n, c)))));
    auto at = [&](const Array &t) { return t(i / (N * K * C), i / (N * C) % K, i / C % N, i % C); };
    Tensor one_loop = split(K, split(N, split(C, gen(i, S, at(t1) + at(t2)))));
    // split K (split N (split C v)) of a vector of M K N C: shape [M, K, N, C] again.
    ASSERT_EQ(one_loop.shape(), (std::vector<int64_t>{S / (K * N * C), K, N, C}));
    Inputs in{{"t1", iota({M, K, N, C}, 1)}, {"t2", iota({M, K, N, C}, 10, 7)}};
    Value expected = evaluate(nested, in);
    expect_equal_values(evaluate(one_loop, in), expected);
    Program p(one_loop);
    EXPECT_EQ(p.updates(p.output()), 1);
    expect_equal_values(p.run(in), expected);
}

TEST(AtlPrograms, ReindexersComposeAsInTheTilingWalkthrough) {  // T17
    // flatten(gen io (flatten(gen jo (gen ii gen ji e)^T))^T) stores e(io, jo, ii, ji) at
    // [(io k1 + ii); (jo k2 + ji)]: the tiled loop order, the row-major layout.
    const int64_t N1 = 2, M2 = 3, k1 = 2, k2 = 2;
    Index io("io"), jo("jo"), ii("ii"), ji("ji");
    Tensor e = flatten(gen(io, N1, transpose(flatten(gen(jo, M2, transpose(
                   gen(ii, k1, gen(ji, k2, real(100 * (io * k1 + ii) + jo * k2 + ji)))))))));
    ASSERT_EQ(e.shape(), (std::vector<int64_t>{N1 * k1, M2 * k2}));
    std::vector<double> expected;
    for (int64_t r = 0; r < N1 * k1; r++)
        for (int64_t c = 0; c < M2 * k2; c++) expected.push_back(double(100 * r + c));
    expect_both(e, {N1 * k1, M2 * k2}, expected);
}

TEST(AtlPrograms, TruncationsThatCutLiveDataAreRejected) {
    // R1: the first elements are live.
    expect_rejected(trunc_l(1, gen(i, 3, 1.0)), {"trunc_l 1", "only the first 0 are padding", "element 0"});
    // R2: inside a gen; every row's last element is live.
    expect_rejected(gen(i, 2, trunc_r(1, gen(j, 3, 1.0))), {"trunc_r 1", "element 2 holds live data"});
    // R3: only two pads.
    expect_rejected(trunc_r(3, gen(i, 4, guard(i < 2, 1.0))), {"trunc_r 3", "only the last 2 are padding", "element 1"});
    // R4: a computed zero is not a pad.
    expect_rejected(trunc_r(1, gen(i, 3, 0.0)), {"trunc_r 1", "only the last 0 are padding"});
    // R5: the split left one pad.
    expect_rejected(trunc_r(2, flatten(split(2, gen(i, 5, real(i))))), {"trunc_r 2", "only the last 1 is padding"});
    // R6 (the artifact's tests): two pads are not three.
    Array v("v", {14});
    expect_rejected(trunc_l(3, gen(i, 10, guard(1 < i, v(i + 4)))), {"trunc_l 3", "only the first 2 are padding"});
    expect_rejected(trunc_l(3, gen(i, 10, v(i))), {"trunc_l 3"});
    Tensor ok = trunc_l(3, gen(i, 10, guard(2 < i, v(i + 4))));
    EXPECT_EQ(check_pads(ok).to_string(), "Pad(0, 6, Scal(false), 1, Scal(false), 0)");
    std::vector<double> expected;
    for (int r = 3; r < 10; r++) expected.push_back(r + 4);
    expect_both(ok, {7}, expected, {{"v", iota({14})}});
    // R7: the paper's truncation C - M % C over-truncates when C divides M.
    Array A("A", {8, 2}), B("B", {2, 8});
    expect_rejected(tiled_matmul(A, B, 4, 4 - 8 % 4), {"trunc_r 4", "only the last 0 are padding"});
    // A truncation under a guarded loop names the loop variable's value.
    expect_rejected(gen(i, 3, trunc_r(1, gen(j, 2, guard(i + j < 2, 1.0)))), {"at i = 0"});
}

TEST(AtlPrograms, BlurVariantsTypeAndAgree) {
    const int64_t N = 6, M = 5;
    Array in("in", {N, M});
    Index y("y"), x("x");
    // Fused: a 3 x 3 box, edges guarded per tap by summing over the taps.
    Index dy("dy"), dx("dx");
    Tensor fused = gen(y, N, gen(x, M, sum(dy, 3, sum(dx, 3, guard(0 <= y + dy - 1 && y + dy - 1 < N && 0 <= x + dx - 1 &&
                                                                         x + dx - 1 < M,
                                                                     in(y + dy - 1, x + dx - 1))))));
    // Two-stage (the artifact's Blur.v): rows blurred into a padded let, then columns.
    Tensor staged = let("bx", gen(y, N + 2, gen(x, M, guard(1 <= y && y < N + 1,
                                                              sum(dx, 3, guard(0 <= x + dx - 1 && x + dx - 1 < M,
                                                                                in(y - 1, x + dx - 1)))))),
                        [&](const Array &bx) { return gen(y, N, gen(x, M, bx(y, x) + bx(y + 1, x) + bx(y + 2, x))); });
    Inputs inputs{{"in", iota({N, M}, 1, 1)}};
    Value a = evaluate(fused, inputs), b = evaluate(staged, inputs);
    expect_equal_values(a, b);
    EXPECT_EQ(a.at({0, 0}), 1 + 2 + 6 + 7);
    check_pads(fused);
    check_pads(staged);
    expect_equal_values(Program(fused).run(inputs), a);
    expect_equal_values(Program(staged).run(inputs), a);
}
