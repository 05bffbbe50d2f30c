// Extern Funcs (Func::define_extern, docs/semantics.md §7.6): a C function computes a Func
// over the region a pipeline reads, after a bounds query for the regions of the Funcs it
// reads. Compiled pipelines and the reference interpreter agree; what cannot be done is a
// clear error naming the Func and the function.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <tessera/tessera.h>

#include "codegen/runtime/tessera_runtime.h"
#include "support/differential.h"
#include "support/errors.h"

using namespace tessera;
using tessera::testing::differential::compare_window;

namespace {

std::atomic<int> queries{0}, calls{0};

float *element(tessera_buffer_t *b, int x, int y) {
    return static_cast<float *>(b->host) + (x - b->dim[0].min) * b->dim[0].stride + (y - b->dim[1].min) * b->dim[1].stride;
}

}  // namespace

// out(x, y) = in(x - 1, y) + k * in(x + 1, y): reads one column on each side of its
// region of a float32 Func; a bounds query says so.
extern "C" int tessera_test_extern_neighbours(tessera_buffer_t *in, int32_t k, tessera_buffer_t *out) {
    if (in->host == nullptr) {
        queries++;
        in->dim[0].min = out->dim[0].min - 1;
        in->dim[0].extent = out->dim[0].extent + 2;
        in->dim[1].min = out->dim[1].min;
        in->dim[1].extent = out->dim[1].extent;
        return 0;
    }
    calls++;
    if (in->type_code != TESSERA_TYPE_FLOAT || out->dimensions != 2) return 7;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++)
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            *element(out, x, y) = *element(in, x - 1, y) + float(k) * *element(in, x + 1, y);
    return 0;
}

// out(x) = bias + the row sum of a uint8 Buffer at x (reads the whole row; no query needed:
// it reads no Func).
extern "C" int tessera_test_extern_row_sums(tessera_buffer_t *in, float bias, tessera_buffer_t *out) {
    for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
        float s = bias;
        for (int i = 0; i < in->dim[0].extent; i++)
            s += float(static_cast<uint8_t *>(in->host)[i * in->dim[0].stride + (x - in->dim[1].min) * in->dim[1].stride]);
        static_cast<float *>(out->host)[(x - out->dim[0].min) * out->dim[0].stride] = s;
    }
    return 0;
}

extern "C" int tessera_test_extern_fails(tessera_buffer_t *out) {
    (void)out;
    return 42;
}

TEST(Extern, AFuncComputedByACFunctionInsideAScheduledPipeline) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func source("ext_source"), neighbours("ext_neighbours"), out("ext_out");
    source(x, y) = cast<float>(x * 3 + y * y) * 0.5f;
    Param<int32_t> k("ext_k");
    k.set(3);
    neighbours.define_extern("tessera_test_extern_neighbours", {source, k}, Float(32), {x, y});
    EXPECT_TRUE(neighbours.is_extern());
    out(x, y) = neighbours(x, y) * 2.0f + neighbours(x + 2, y - 1);
    out.split(x, xo, xi, 8).vectorize(xi).parallel(y);
    neighbours.compute_root();  // what it is anyway
    queries = 0;
    calls = 0;
    const Realization reference = out.realize_reference({21, 9});
    const Realization compiled = out.realize({21, 9});
    EXPECT_EQ(compare_window(compiled[0], reference[0], {0, 0}, {21, 9}), "");
    EXPECT_GT(queries.load(), 0);
    EXPECT_GT(calls.load(), 0);
    // Against plain C++.
    Buffer<float> result = compiled[0];
    auto src = [](int xx, int yy) { return float(xx * 3 + yy * yy) * 0.5f; };
    auto nb = [&](int xx, int yy) { return src(xx - 1, yy) + 3.0f * src(xx + 1, yy); };
    for (int yy = 0; yy < 9; yy++)
        for (int xx = 0; xx < 21; xx++) EXPECT_EQ(result(xx, yy), nb(xx, yy) * 2.0f + nb(xx + 2, yy - 1));
    // A window with other mins, and another k.
    k.set(-2);
    Buffer<float> shifted(std::vector<int>{11, 4}, "shifted");
    shifted.set_min({-5, 3});
    out.realize(shifted);
    Buffer<float> expected(std::vector<int>{11, 4}, "expected");
    expected.set_min({-5, 3});
    out.realize_reference(expected);
    EXPECT_EQ(compare_window(shifted, expected, {-5, 3}, {11, 4}), "");
}

TEST(Extern, AnExternFuncRealizedAloneAndOverABuffer) {
    Var x("x");
    Buffer<uint8_t> rows(std::vector<int>{5, 12}, "rows");
    rows.for_each_element([&](const std::vector<int> &p) { rows(p) = uint8_t(p[0] * 7 + p[1] * 5); });
    Param<float> bias("ext_bias");
    bias.set(0.25f);
    Func sums("ext_sums");
    sums.define_extern("tessera_test_extern_row_sums", {rows, bias}, Float(32), 1);
    Buffer<float> direct = sums.realize({12});
    Buffer<float> reference = sums.realize_reference({12});
    for (int i = 0; i < 12; i++) {
        float s = 0.25f;
        for (int c = 0; c < 5; c++) s += float(rows(c, i));
        EXPECT_EQ(direct(i), s);
        EXPECT_EQ(reference(i), s);
    }
    Func scaled("ext_scaled");
    scaled(x) = sums(11 - x) - sums(x);
    Buffer<float> a = scaled.realize({12}), b = scaled.realize_reference({12});
    EXPECT_EQ(compare_window(a, b, {0}, {12}), "");
}

TEST(Extern, ErrorsNameTheFuncAndTheFunction) {
    Var x("x");
    Func failing("ext_failing");
    failing.define_extern("tessera_test_extern_fails", {}, Int(32), 1);
    std::string m = test::error_message<RuntimeError>([&] { failing.realize({4}); });
    EXPECT_NE(m.find("tessera_test_extern_fails"), std::string::npos) << m;
    EXPECT_NE(m.find("returned 42"), std::string::npos) << m;

    Func missing("ext_missing");
    missing.define_extern("tessera_test_no_such_function", {}, Int(32), 1);
    m = test::error_message<CompileError>([&] { missing.realize({4}); });
    EXPECT_NE(m.find("ext_missing"), std::string::npos) << m;
    EXPECT_NE(m.find("-rdynamic"), std::string::npos) << m;

    Func twice("ext_twice");
    twice(x) = x;
    EXPECT_NE(test::error_message<CompileError>([&] { twice.define_extern("f", {}, Int(32), 1); }).find("already has a definition"),
              std::string::npos);
    Func bad_name("ext_bad_name");
    EXPECT_NE(test::error_message<CompileError>([&] { bad_name.define_extern("not a name", {}, Int(32), 1); }).find("C identifier"),
              std::string::npos);
    Func not_startup("ext_not_startup");
    EXPECT_NE(test::error_message<CompileError>([&] { not_startup.define_extern("f", {x + 1}, Int(32), 1); })
                  .find("startup expression"),
              std::string::npos);

    // An extern Func takes no schedule but compute_root().
    Func scheduled("ext_scheduled"), user("ext_user");
    scheduled.define_extern("tessera_test_extern_fails", {}, Int(32), {x});
    user(x) = scheduled(x) * 2;
    scheduled.compute_root();
    scheduled.compute_at(user, x);
    m = test::error_message<CompileError>([&] { user.realize({4}); });
    EXPECT_NE(m.find("ext_scheduled"), std::string::npos) << m;
    EXPECT_NE(m.find("no schedule but compute_root()"), std::string::npos) << m;

    // Ahead of time: only realize computes extern Funcs.
    Func reader("ext_reader");
    reader(x) = failing(x) + 1;
    m = test::error_message<CompileError>([&] { reader.compile_to_c("/dev/null", {}); });
    EXPECT_NE(m.find("ext_failing"), std::string::npos) << m;
    EXPECT_NE(m.find("ahead of time"), std::string::npos) << m;
}

TEST(Extern, ExternsReadingExternsAndImageParams) {
    // neighbours of (the row sums of an ImageParam's rows, as a 2-D Func): an extern whose
    // Func argument reads another extern, each computed over the region asked for.
    Var x("x"), y("y");
    ImageParam rows(UInt(8), 2, "ext_rows");
    Buffer<uint8_t> data(std::vector<int>{4, 30}, "ext_rows_data");
    data.for_each_element([&](const std::vector<int> &p) { data(p) = uint8_t(p[0] * 11 + p[1] * 3); });
    rows.set(data);
    Func sums("ext_row_sums"), grid("ext_grid"), nb("ext_nb"), out("ext_nested_out");
    sums.define_extern("tessera_test_extern_row_sums", {rows, 1.5f}, Float(32), 1);
    grid(x, y) = sums(clamp(x + y, 0, 29));
    nb.define_extern("tessera_test_extern_neighbours", {grid, 2}, Float(32), {x, y});
    out(x, y) = nb(x, y) - grid(x, y);
    const Realization reference = out.realize_reference({12, 6});
    const Realization compiled = out.realize({12, 6});
    EXPECT_EQ(compare_window(compiled[0], reference[0], {0, 0}, {12, 6}), "");
    Buffer<float> r = compiled[0];
    auto sum = [&](int i) {
        float s = 1.5f;
        for (int c = 0; c < 4; c++) s += float(data(c, std::min(std::max(i, 0), 29)));
        return s;
    };
    for (int yy = 0; yy < 6; yy++)
        for (int xx = 0; xx < 12; xx++)
            EXPECT_EQ(r(xx, yy), sum(xx - 1 + yy) + 2.0f * sum(xx + 1 + yy) - sum(xx + yy)) << xx << ", " << yy;
}

TEST(Extern, ConcurrentRealizationsOfOnePipeline) {
    // Each realization computes the extern Func for its own window and passes it to the
    // pipeline as that run's buffer: runs at once do not see each other's.
    Var x("x"), y("y");
    Func source("ext_conc_source"), nb("ext_conc_nb"), out("ext_conc_out");
    source(x, y) = cast<float>(x - 2 * y);
    nb.define_extern("tessera_test_extern_neighbours", {source, 5}, Float(32), {x, y});
    out(x, y) = nb(x, y) + 1.0f;
    out.compile_jit();
    std::vector<std::thread> threads;
    std::vector<std::string> results(4);
    for (int t = 0; t < 4; t++)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 5; round++) {
                Buffer<float> got(std::vector<int>{5 + t, 3 + round}, "got");
                got.set_min({t * 7 - 3, round});
                out.realize(got);
                for (int yy = round; yy < round + 3 + round; yy++)
                    for (int xx = t * 7 - 3; xx < t * 7 + 2 + t; xx++) {
                        const float want = float(xx - 1 - 2 * yy) + 5.0f * float(xx + 1 - 2 * yy) + 1.0f;
                        if (got(xx, yy) != want && results[size_t(t)].empty())
                            results[size_t(t)] = "at (" + std::to_string(xx) + ", " + std::to_string(yy) + ")";
                    }
            }
        });
    for (auto &th : threads) th.join();
    for (int t = 0; t < 4; t++) EXPECT_EQ(results[size_t(t)], "") << "thread " << t;
}
