// Func's compilation API: realize runs compiled code, compile_jit, infer_arguments,
// Target strings, and the ahead-of-time outputs round-tripped through the system C
// compiler into separate programs (a too-small input buffer is an error code and a
// message, never a crash).

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "driver/AOT.h"
#include "driver/JIT.h"
#include "ir/Function.h"
#include "support/scratch.h"

using namespace tessera;
using tessera::testing::have_command;
using tessera::testing::read_text;
using tessera::testing::scratch_dir;
using tessera::testing::shell_output;
using tessera::testing::write_text;

namespace {

// The pipeline of the ahead-of-time tests: an ImageParam, a Param and an embedded Buffer.
struct Brighten {
    ImageParam input{UInt(8), 2, "input"};
    Param<int32_t> scale{"scale"};
    Buffer<uint16_t> lut{std::vector<int>{4}, "lut"};
    Func out{"brighten"};
    Var x{"x"}, y{"y"};

    Brighten() {
        for (int i = 0; i < 4; i++) lut(i) = uint16_t(1000 + 7 * i);
        // A blur over x reads input(x - 1) .. input(x + 1): the caller's buffer must cover that.
        out(x, y) = cast<uint16_t>(input(x - 1, y) + input(x + 1, y)) * cast<uint16_t>(scale) + lut(x % 4);
    }
};

// Expected values of Brighten, by plain loops.
uint16_t brighten_expected(const std::vector<uint8_t> &in, int in_width, int in_min_x, int x, int y, int scale) {
    auto at = [&](int xx) { return int(in[size_t(y * in_width + (xx - in_min_x))]); };
    const uint16_t sum = uint8_t(at(x - 1) + at(x + 1));  // uint8 + uint8 wraps in uint8
    return uint16_t(uint16_t(sum * uint16_t(scale)) + uint16_t(1000 + 7 * (x % 4)));
}

}  // namespace

TEST(CompileAPI, RealizeRunsCompiledCodeAndCompileJitIsReused) {
    Var x("x");
    Func f("jit_twice");
    f(x) = x * 3 + 1;
    const auto before = driver::jit_cache_stats();
    f.compile_jit();
    const auto compiled = driver::jit_cache_stats();
    EXPECT_EQ(compiled.hits + compiled.misses, before.hits + before.misses + 1) << "compile_jit built one module";
    Buffer<int32_t> r = f.realize({5});
    Buffer<int32_t> r2 = f.realize({7});
    const auto after = driver::jit_cache_stats();
    EXPECT_EQ(after.hits + after.misses, compiled.hits + compiled.misses) << "realize reused the compiled module";
    for (int i = 0; i < 7; i++) EXPECT_EQ(r2(i), i * 3 + 1);
    EXPECT_EQ(r(4), 13);
}

TEST(CompileAPI, InferArgumentsListsInputsInCallingOrder) {
    Brighten b;
    std::vector<Argument> args = b.out.infer_arguments();
    ASSERT_EQ(args.size(), 3u);
    EXPECT_EQ(args[0].name, "input");
    EXPECT_TRUE(args[0].is_buffer());
    EXPECT_EQ(args[0].dimensions, 2);
    EXPECT_EQ(args[1].name, "lut");
    EXPECT_TRUE(args[1].is_buffer());
    EXPECT_EQ(args[2].name, "scale");
    EXPECT_TRUE(args[2].is_scalar());
    EXPECT_EQ(args[2].type, Int(32));
}

TEST(CompileAPI, TargetStrings) {
    EXPECT_EQ(Target().to_string(), "host");
    EXPECT_TRUE(Target("host").is_host());
    EXPECT_EQ(Target().c_flags(), "-march=native");
    Target t("x86-64-linux-sse41-avx2-fma-avx2");
    EXPECT_EQ(t.to_string(), "x86-64-linux-avx2-fma-sse41");
    EXPECT_TRUE(t.has_feature("fma"));
    EXPECT_EQ(t.c_flags(), "-march=x86-64 -mavx2 -mfma -msse4.1");
    EXPECT_EQ(Target("x86-64-linux-avx2-avx512-avx512_skylake-f16c-fma-sse41").to_string(),
              "x86-64-linux-avx2-avx512-avx512_skylake-f16c-fma-sse41");
    EXPECT_EQ(Target("arm-64-linux").c_flags(), "-march=armv8-a");
    for (const char *bad : {"x86", "mips-64-linux", "x86-48-linux", "x86-64-beos", "x86-64-linux-avx3"}) {
        try {
            Target t2(bad);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        }
    }
    try {
        Target t3("x86-64-linux-avx3");
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("avx2"), std::string::npos) << "lists the known features: " << e.what();
    }
}

TEST(CompileAPI, RealizeForAnExplicitTarget) {
    Var x("x");
    Func f("for_target");
    f(x) = cast<float>(x) * 0.5f;
    Buffer<float> r = f.realize({4}, Target("x86-64-linux-sse41"));
    EXPECT_EQ(r(3), 1.5f);
}

TEST(CompileAPI, ArgumentListErrors) {
    Brighten b;
    const std::string dir = scratch_dir() + "/argument_errors";
    std::filesystem::create_directories(dir);
    try {
        b.out.compile_to_c(dir + "/b.c", {b.input});
        ADD_FAILURE() << "a Param the pipeline reads was missing from the list";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("Param \"scale\""), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("brighten"), std::string::npos) << e.what();
    }
    try {
        b.out.compile_to_c(dir + "/b.c", {b.scale});
        ADD_FAILURE() << "an ImageParam the pipeline reads was missing from the list";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("ImageParam \"input\""), std::string::npos) << e.what();
    }
    try {
        b.out.compile_to_c(dir + "/b.c", {b.input, b.scale, b.input});
        ADD_FAILURE() << "an argument listed twice";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
    }
    EXPECT_THROW(b.out.compile_to_c("/nonexistent/dir/b.c", {b.input, b.scale}), CompileError);
    Func undefined("never_defined");
    EXPECT_THROW(undefined.compile_to_c(dir + "/u.c", {}), CompileError);
}

TEST(CompileAPI, LoweredStatementAndHeaderWithAnUnusedArgument) {
    Brighten b;
    Param<float> unused("unused_gain");
    const std::string dir = scratch_dir() + "/stmt";
    std::filesystem::create_directories(dir);
    b.out.compile_to_lowered_stmt(dir + "/b.stmt", {b.input, b.scale});
    const std::string stmt = read_text(dir + "/b.stmt");
    EXPECT_NE(stmt.find("for"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("brighten"), std::string::npos) << stmt;
    b.out.compile_to_header(dir + "/b.h", {b.scale, unused, b.input}, "brighten_with_gain");
    const std::string h = read_text(dir + "/b.h");
    EXPECT_NE(h.find("int brighten_with_gain(int32_t scale, float unused_gain, const tessera_buffer_t *input_buffer, "
                     "tessera_buffer_t *brighten_buffer)"),
              std::string::npos)
        << h;
}

TEST(CompileAPI, StaticLibraryAndCSourceRoundTripIntoSeparatePrograms) {
    if (!have_command(driver::default_c_compiler())) GTEST_SKIP() << "no C compiler";
    Brighten b;
    const std::string dir = scratch_dir() + "/aot_round_trip";
    std::filesystem::create_directories(dir);
    b.out.compile_to_static_library(dir + "/brighten", {b.input, b.scale}, "brighten");
    b.out.compile_to_c(dir + "/brighten_src.c", {b.input, b.scale}, "brighten_src");
    b.out.compile_to_header(dir + "/brighten_src.h", {b.input, b.scale}, "brighten_src");
    ASSERT_TRUE(std::filesystem::exists(dir + "/brighten.a"));
    ASSERT_TRUE(std::filesystem::exists(dir + "/brighten.h"));

    // The program reads an 8x3 input with min x = -1 (so it covers x - 1 for x = 0),
    // computes a 6x3 output with each function, prints it, then passes an input that is
    // one column too narrow.
    write_text(dir + "/main.c", R"(#include "brighten.h"
#include "brighten_src.h"
#include <stdio.h>
#include <string.h>

static char last_message[1024];
static void keep(const char *m) { strncpy(last_message, m, sizeof(last_message) - 1); }
tessera_error_handler_t tessera_error_handler = keep;

int main(void) {
    uint8_t in[8 * 3];
    for (int i = 0; i < 8 * 3; i++) in[i] = (uint8_t)(i * 37 + 11);
    uint16_t out[6 * 3], out2[6 * 3];
    tessera_dim_t din[2] = {{-1, 8, 1}, {0, 3, 8}}, dout[2] = {{0, 6, 1}, {0, 3, 6}};
    tessera_buffer_t bin = {in, TESSERA_TYPE_UINT, 8, 2, din};
    tessera_buffer_t bout = {out, TESSERA_TYPE_UINT, 16, 2, dout}, bout2 = {out2, TESSERA_TYPE_UINT, 16, 2, dout};
    int rc = brighten(&bin, 3, &bout);
    int rc2 = brighten_src(&bin, 3, &bout2);
    printf("%d %d", rc, rc2);
    for (int i = 0; i < 6 * 3; i++) printf(" %u", (unsigned)out[i]);
    printf(" %d\n", memcmp(out, out2, sizeof out) == 0);
    tessera_dim_t narrow[2] = {{-1, 7, 1}, {0, 3, 8}};
    tessera_buffer_t bnarrow = {in, TESSERA_TYPE_UINT, 8, 2, narrow};
    rc = brighten(&bnarrow, 3, &bout);
    printf("%d %s\n", rc, last_message);
    return 0;
}
)");
    int status = 0;
    const std::string cc = driver::default_c_compiler();
    std::string log = shell_output("cd '" + dir + "' && " + cc +
                                       " -std=c99 -O1 -Wall -Wextra -Werror main.c brighten_src.c brighten.a -lm -o program",
                                   &status);
    ASSERT_EQ(status, 0) << log;
    const std::string out = shell_output("'" + dir + "/program'", &status);
    ASSERT_EQ(status, 0) << out;

    std::vector<uint8_t> in(8 * 3);
    for (int i = 0; i < 8 * 3; i++) in[size_t(i)] = uint8_t(i * 37 + 11);
    std::string expected = "0 0";
    for (int yy = 0; yy < 3; yy++)
        for (int xx = 0; xx < 6; xx++) expected += " " + std::to_string(brighten_expected(in, 8, -1, xx, yy, 3));
    expected += " 1\n";
    const size_t line = out.find('\n');
    ASSERT_NE(line, std::string::npos) << out;
    EXPECT_EQ(out.substr(0, line + 1), expected);
    const std::string failure = out.substr(line + 1);
    EXPECT_EQ(failure.substr(0, 2), "1 ") << "a too-small input is TESSERA_ERROR_ASSERTION: " << failure;
    EXPECT_NE(failure.find("\"input\""), std::string::npos) << failure;
    EXPECT_NE(failure.find("[-1, 6]"), std::string::npos) << "the region read: " << failure;
    EXPECT_NE(failure.find("[-1, 5]"), std::string::npos) << "the region given: " << failure;
}

TEST(CompileAPI, APipelineCompiledBeforeIsFoundByItsPrintedFormWithoutLowering) {
    // Two separately built but identical pipelines: the second compile_jit is served by
    // the disk cache's index (a hit, no compilation), and runs on its own input.
    auto build = [](Buffer<uint8_t> in) {
        Var x("x"), y("y");
        Func f("index_probe");
        f(x, y) = cast<uint16_t>(in(x, y)) * 3 + cast<uint16_t>(in(x + 1, y));
        f.vectorize(x, 8);
        return f;
    };
    Buffer<uint8_t> a(std::vector<int>{33, 5}, "probe_in"), b(std::vector<int>{33, 5}, "probe_in");
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 33; x++) {
            a(x, y) = uint8_t(x * 7 + y);
            b(x, y) = uint8_t(200 - x - y * 3);
        }
    Func fa = build(a);
    fa.compile_jit();
    const driver::JITCacheStats before = driver::jit_cache_stats();
    Func fb = build(b);
    fb.compile_jit();
    const driver::JITCacheStats after = driver::jit_cache_stats();
    EXPECT_EQ(after.misses, before.misses);
    EXPECT_EQ(after.hits, before.hits + 1);
    Buffer<uint16_t> out = fb.realize({32, 5});
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 32; x++) ASSERT_EQ(out(x, y), uint16_t(b(x, y) * 3 + b(x + 1, y))) << x << ", " << y;
    // A different schedule is a different pipeline, with its own compiled code.
    Func fc = build(b);
    fc.parallel(Var("y"));
    Buffer<uint16_t> out2 = fc.realize({32, 5});
    auto jit_of = [](const Func &f) { return std::static_pointer_cast<const tessera::driver::JITModule>(f.data()->jit); };
    EXPECT_NE(jit_of(fc)->library_path(), jit_of(fb)->library_path());
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 32; x++) ASSERT_EQ(out2(x, y), out(x, y));
}

TEST(CompileApi, VectorCodeTheCCompilerCompilesWell) {
    // What the C emitter writes so that gcc emits the instructions a vector loop needs
    // (bench/README.md measures each): a conversion between integer widths as a vector
    // built from its converted elements (one vpmovzxwd, where __builtin_convertvector
    // widens in halves), an integer converted to a wider float widened first, and a
    // constant nest of at most 9 iterations (a 3x3 window) unrolled completely.
    ImageParam in(UInt(16), 2, "in");
    Var x("x"), y("y");
    RDom box(-1, 3, -1, 3, "box");
    Func wide("wide"), window("window");
    wide(x, y) = cast<uint32_t>(in(x, y)) + cast<uint32_t>(cast<float>(cast<uint8_t>(in(x, y))) * 0.5f);
    window(x, y) = sum(cast<float>(wide(x + box.x + 1, y + box.y + 1)));
    wide.compute_root().vectorize(x, 16);
    window.vectorize(x, 8);
    const std::string file = scratch_dir() + "/vector_code.c";
    window.compile_to_c(file, {in}, "vector_code");
    const std::string c = tessera::testing::read_text(file);
    EXPECT_NE(c.find("tessera_convert_vu16x16_vu32x16("), std::string::npos) << c;
    EXPECT_NE(c.find("tessera_convert_vu8x16_vi32x16("), std::string::npos) << c;  // u8 -> f32 through int32
    EXPECT_NE(c.find("#pragma GCC unroll 3"), std::string::npos) << c;
    // The code computes what the reference interpreter does.
    Buffer<uint16_t> b(std::vector<int>{40, 12}, "vector_code_in");
    for (int yy = 0; yy < 12; yy++)
        for (int xx = 0; xx < 40; xx++) b(xx, yy) = uint16_t(xx * 977 + yy * 131);
    in.set(b);
    Buffer<float> out = window.realize({32, 8});
    for (int yy = 0; yy < 8; yy++)
        for (int xx = 0; xx < 32; xx++) {
            float s = 0.0f;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) {
                    const uint16_t v = b(xx + i + 1, yy + j + 1);
                    s += float(uint32_t(v) + uint32_t(float(uint8_t(v)) * 0.5f));
                }
            ASSERT_EQ(out(xx, yy), s) << xx << ", " << yy;
        }
}
