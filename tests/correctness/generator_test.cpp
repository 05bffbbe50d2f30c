// Generators (include/tessera/Generator.h): GeneratorParams set on the command line change
// the pipeline, generator_main writes the ahead-of-time files, the compiled function takes
// the inputs in declaration order and computes what the reference interpreter does, and
// every mistake is a message (a non-zero exit), not a crash.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "driver/CCompiler.h"
#include "support/scratch.h"

using namespace tessera;
using tessera::testing::have_command;
using tessera::testing::read_text;
using tessera::testing::scratch_dir;
using tessera::testing::shell_output;
using tessera::testing::write_text;

namespace {

class ScaleAndOffset : public Generator<ScaleAndOffset> {
public:
    GeneratorParam<int> offset{"offset", 3};
    GeneratorParam<int> vector_width{"vector_width", 8};
    GeneratorParam<bool> parallel_rows{"parallel_rows", false};
    GeneratorParam<Type> accumulate{"accumulate", UInt(16)};
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<float> scale{"scale", 1.0f, 0.0f, 4.0f};
    Output<Buffer<uint8_t>> output{"output", 2};
    Var x{"x"}, y{"y"};

    void generate() {
        Expr v = cast(accumulate, input(x, y)) + cast(accumulate, input(x + 1, y)) + int(offset);
        output(x, y) = saturating_cast<uint8_t>(cast<float>(v) * scale);
    }
    void schedule() {
        Var xo("xo"), xi("xi");
        output.split(x, xo, xi, vector_width, TailStrategy::GuardWithIf).vectorize(xi);
        if (parallel_rows) output.parallel(y);
    }
};

// A Generator without schedule(), whose output is declared with the wrong type.
class WrongType : public Generator<WrongType> {
public:
    Input<Buffer<uint8_t>> input{"input", 1};
    Output<Buffer<uint16_t>> output{"output", 1};
    Var x{"x"};
    void generate() { output(x) = input(x) + 1; }  // uint8
};

class TwoOutputs : public Generator<TwoOutputs> {
public:
    Output<Buffer<int>> a{"a", 1}, b{"b", 1};
    Var x{"x"};
    void generate() { a(x) = x; b(x) = x; }
};

class Undefined : public Generator<Undefined> {
public:
    Output<Buffer<int>> out{"out", 1};
    void generate() {}
};

}  // namespace

TESSERA_REGISTER_GENERATOR(ScaleAndOffset, scale_and_offset)
TESSERA_REGISTER_GENERATOR(WrongType, wrong_type)
TESSERA_REGISTER_GENERATOR(TwoOutputs, two_outputs)
TESSERA_REGISTER_GENERATOR(Undefined, undefined_output)

namespace {

/** generator_main on the given arguments; its exit code, and stderr in `err`. */
int gengen(std::vector<std::string> args, std::string *err = nullptr) {
    args.insert(args.begin(), "gengen");
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    ::testing::internal::CaptureStderr();
    const int rc = generator_main(int(argv.size()), argv.data());
    const std::string e = ::testing::internal::GetCapturedStderr();
    if (err) *err = e;
    return rc;
}

}  // namespace

TEST(Generator, GeneratorParamsShapeThePipelineBuiltInProcess) {
    // Built in the process, the generator is an ordinary pipeline: its inputs are bound
    // and it is realized, compiled and by the reference interpreter.
    std::unique_ptr<GeneratorBase> base = GeneratorRegistry::create("scale_and_offset");
    auto &g = static_cast<ScaleAndOffset &>(*base);
    EXPECT_EQ(g.generator_name(), "scale_and_offset");
    g.set_generator_param("offset", "10");
    g.set_generator_param("vector_width", "16");
    g.set_generator_param("parallel_rows", "true");
    g.set_generator_param("accumulate", "int32");
    Func out = g.build();
    EXPECT_EQ(out.name(), "output");
    Buffer<uint8_t> in({21, 4}, "in");
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 21; xx++) in(xx, yy) = uint8_t(xx * 13 + yy * 7);
    g.input.set(in);
    g.scale.set(1.5f);
    Buffer<uint8_t> got = out.realize({20, 4}), ref = out.realize_reference({20, 4});
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 20; xx++) {
            const float v = float(int(in(xx, yy)) + int(in(xx + 1, yy)) + 10) * 1.5f;
            const int want = v > 255.0f ? 255 : int(v);
            EXPECT_EQ(int(got(xx, yy)), want) << xx << ", " << yy;
            EXPECT_EQ(int(ref(xx, yy)), want) << xx << ", " << yy;
        }
    std::vector<std::string> names;
    for (const Argument &a : g.arguments()) names.push_back(a.name);
    EXPECT_EQ(names, (std::vector<std::string>{"input", "scale"})) << "inputs in declaration order";
    EXPECT_THROW(g.set_generator_param("offset", "1"), CompileError) << "after build";
}

TEST(Generator, GeneratorMainWritesFilesThatComputeThePipeline) {
    if (!have_command(driver::default_c_compiler())) GTEST_SKIP() << "no C compiler";
    const std::string dir = scratch_dir() + "/generator_main";
    std::filesystem::remove_all(dir);
    std::string err;
    ASSERT_EQ(gengen({"-g", "scale_and_offset", "-o", dir, "-e", "c_source,c_header,stmt,static_library", "-f", "sao",
                      "target=host", "offset=1", "vector_width=4"},
                     &err),
              0)
        << err;
    for (const char *f : {"sao.c", "sao.h", "sao.stmt", "sao.a"}) EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
    const std::string header = read_text(dir + "/sao.h");
    EXPECT_NE(header.find("int sao(const tessera_buffer_t *input_buffer, float scale, tessera_buffer_t *output_buffer)"), std::string::npos)
        << header;
    EXPECT_NE(read_text(dir + "/sao.stmt").find("x4("), std::string::npos) << "vector_width=4 gives 4-lane vectors";
    write_text(dir + "/main.c", R"(#include "sao.h"
#include <stdio.h>
static void quiet(const char *message) { (void)message; }
tessera_error_handler_t tessera_error_handler = quiet;
int main(void) {
    uint8_t in[9 * 2], out[8 * 2];
    for (int i = 0; i < 9 * 2; i++) in[i] = (uint8_t)(i * 29 + 5);
    tessera_dim_t din[2] = {{0, 9, 1}, {0, 2, 9}}, dout[2] = {{0, 8, 1}, {0, 2, 8}};
    tessera_buffer_t bin = {in, TESSERA_TYPE_UINT, 8, 2, din}, bout = {out, TESSERA_TYPE_UINT, 8, 2, dout};
    int rc = sao(&bin, 0.5f, &bout);
    printf("%d", rc);
    for (int i = 0; i < 8 * 2; i++) printf(" %u", (unsigned)out[i]);
    printf("\n");
    rc = sao(&bin, 9.0f, &bout);  /* outside the declared range [0, 4] */
    printf("%d\n", rc);
    return 0;
}
)");
    int status = 0;
    std::string log = shell_output("cd '" + dir + "' && " + driver::default_c_compiler() +
                                       " -std=c99 -O1 -Wall -Werror main.c sao.c -lm -o program",
                                   &status);
    ASSERT_EQ(status, 0) << log;
    const std::string out = shell_output("'" + dir + "/program'", &status);
    ASSERT_EQ(status, 0) << out;
    std::string want = "0";
    for (int yy = 0; yy < 2; yy++)
        for (int xx = 0; xx < 8; xx++) {
            const int a = uint8_t((yy * 9 + xx) * 29 + 5), b = uint8_t((yy * 9 + xx + 1) * 29 + 5);
            want += " " + std::to_string(int(float(uint16_t(a + b + 1)) * 0.5f));
        }
    const size_t nl = out.find('\n');
    ASSERT_NE(nl, std::string::npos) << out;
    EXPECT_EQ(out.substr(0, nl), want);
    EXPECT_NE(out.substr(nl + 1, 1), "0") << "a scale outside the Input's range is an error code: " << out;
}

TEST(Generator, MistakesAreMessages) {
    const std::string dir = scratch_dir() + "/generator_errors";
    auto fails_with = [&](std::vector<std::string> args, const std::string &text) {
        std::string err;
        EXPECT_EQ(gengen(args, &err), 1) << text;
        EXPECT_NE(err.find(text), std::string::npos) << err;
    };
    fails_with({"-g", "scale_and_offset", "-o", dir, "offest=1"},
               "Generator \"scale_and_offset\" has no GeneratorParam \"offest\" (its GeneratorParams: offset, vector_width, "
               "parallel_rows, accumulate)");
    fails_with({"-g", "scale_and_offset", "-o", dir, "offset=one"},
               "the value \"one\" of GeneratorParam \"offset\" does not parse as its type (its default is 3)");
    fails_with({"-g", "scale_and_offset", "-o", dir, "accumulate=uint12"}, "GeneratorParam \"accumulate\"");
    fails_with({"-g", "no_such", "-o", dir}, "No generator is registered as \"no_such\" (registered: ");
    fails_with({"-o", dir}, "-g names the generator to compile");
    fails_with({"-g", "scale_and_offset"}, "-o names the directory");
    fails_with({"-g", "scale_and_offset", "-o", dir, "-e", "assembly"}, "-e: unknown output kind \"assembly\"");
    fails_with({"-g", "scale_and_offset", "-o", dir, "target=x86-64-linux-avx9"}, "avx9");
    fails_with({"-g", "wrong_type", "-o", dir},
               "Output \"output\" is declared as Buffer<uint16>, but generate() defines it as uint8");
    fails_with({"-g", "two_outputs", "-o", dir}, "declares 2 Outputs");
    fails_with({"-g", "undefined_output", "-o", dir}, "generate() does not define its Output \"out\"");
    // Members outside a Generator.
    EXPECT_THROW(GeneratorParam<int>("loose", 1), CompileError);
    EXPECT_THROW((Input<Buffer<uint8_t>>("loose", 2)), CompileError);
}
