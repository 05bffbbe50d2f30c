// docs/halide-compatibility.md stays true: every name it marks supported (or differs) is
// used here, written as a Halide program would write it, and the results agree with the
// reference interpreter (or with values computed here).

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <tessera/tessera.h>

#include "codegen/runtime/tessera_runtime.h"
#include "support/differential.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

std::string read_file(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/** This file's code, without its comments. */
std::string code_of_this_test() {
    std::string code, line;
    std::istringstream in(read_file(std::string(TESSERA_SOURCE_DIR) + "/tests/unit/halide_compatibility_test.cpp"));
    while (std::getline(in, line)) {
        const size_t c = line.find("//");
        code += (c == std::string::npos ? line : line.substr(0, c)) + "\n";
    }
    return code;
}

void expect_matches(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents, const std::string &what) {
    EXPECT_EQ(differential_check(f, mins, extents, false), "") << what;
}

Buffer<float> image(int w, int h, int c) {
    Buffer<float> b(std::vector<int>{w, h, c}, "image");
    b.for_each_element([&](const std::vector<int> &p) { b(p) = float((p[0] * 7 + p[1] * 13 + p[2] * 29) % 31) / 31.0f; });
    return b;
}

}  // namespace

namespace {

// A Generator as Halide's apps write them (tests/correctness/generator_test.cpp runs
// generator_main on one).
class CompatGenerator : public Generator<CompatGenerator> {
public:
    GeneratorParam<int> factor{"factor", 2};
    Input<Buffer<uint8_t>> input{"input", 1};
    Input<int> bias{"bias", 1};
    Output<Buffer<int>> output{"output", 1};
    Var x{"x"};
    void generate() { output(x) = cast<int>(input(x)) * factor + bias; }
    void schedule() {
        if (get_target().is_host()) output.vectorize(x, 4, TailStrategy::GuardWithIf);
    }
};

}  // namespace

TESSERA_REGISTER_GENERATOR(CompatGenerator, compat_generator)

TEST(HalideCompatibility, AGeneratorBuildsItsPipeline) {
    std::unique_ptr<GeneratorBase> g = GeneratorRegistry::create("compat_generator");
    g->set_generator_param("factor", "5");
    Func f = g->build();
    auto &c = static_cast<CompatGenerator &>(*g);
    Buffer<uint8_t> in({6}, "gen_in");
    for (int i = 0; i < 6; i++) in(i) = uint8_t(i * 3);
    c.input.set(in);
    c.bias.set(7);
    Buffer<int> out = f.realize({6});
    for (int i = 0; i < 6; i++) EXPECT_EQ(out(i), i * 3 * 5 + 7);
}

TEST(HalideCompatibility, EverySupportedNameIsUsedHere) {
    const std::string doc = read_file(std::string(TESSERA_SOURCE_DIR) + "/docs/halide-compatibility.md");
    const std::string code = code_of_this_test();
    std::regex row(R"(^\| `([^`]+)` \| (supported|differs|not supported) \|)");
    int rows = 0, used = 0;
    std::istringstream lines(doc);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (!std::regex_search(line, m, row)) continue;
        rows++;
        if (m[2] == "not supported") continue;
        const std::string name = m[1];
        const size_t colons = name.rfind("::");
        const std::string cls = colons == std::string::npos ? "" : name.substr(0, colons).substr(name.substr(0, colons).rfind(':') + 1);
        const std::string id = colons == std::string::npos ? name : name.substr(colons + 2);
        std::vector<std::string> uses;
        if (id == "_") {
            uses = {"(_)", ", _)"};  // the placeholder, as a coordinate
        } else if (id.rfind("operator", 0) == 0) {
            uses = {" " + id.substr(8) + " ", id.substr(8) == "()" ? "(x, y)" : id.substr(8)};
        } else if (id == cls) {
            uses = {id + "(", id + "<", id + " "};
        } else {
            uses = {"." + id + "(", "::" + id + "(", " " + id + "(", "(" + id + "(", " " + id + "<", "(" + id + "<"};
        }
        bool found = false;
        for (const std::string &u : uses) found = found || code.find(u) != std::string::npos;
        EXPECT_TRUE(found) << name << " is marked " << m[2] << " in docs/halide-compatibility.md but not used here";
        used++;
    }
    EXPECT_GT(rows, 100);
    EXPECT_GT(used, 80);
}

TEST(HalideCompatibility, FuncDefinitionsAndQueries) {
    Var x("x"), y("y");
    Func f("f"), g, h(Expr(3));
    EXPECT_FALSE(g.defined());
    f(x, y) = x + y;
    f(x, y) += 2;
    f(x, y) -= 1;
    f(x, y) *= 3;
    f(x, y) /= 2;
    RDom r(0, 3, "r");
    f(x, r) = f(x, r) + 1;
    EXPECT_TRUE(f.defined());
    EXPECT_EQ(f.name(), "f");
    EXPECT_EQ(f.dimensions(), 2);
    EXPECT_EQ(f.type(), Int(32));
    EXPECT_EQ(f.output_type(), Int(32));
    EXPECT_EQ(f.args().size(), 2u);
    EXPECT_TRUE(f.value().defined());
    EXPECT_TRUE(f.has_update_definition());
    EXPECT_EQ(f.num_update_definitions(), 5);
    EXPECT_EQ(f.update_args(4).size(), 2u);
    EXPECT_TRUE(f.update_value(4).defined());
    f.update(4).unroll(x, 2);
    EXPECT_EQ(h.dimensions(), 0);
    expect_matches(f, {0, 0}, {5, 4}, "definitions and updates");
}

TEST(HalideCompatibility, LoopDirectives) {
    Buffer<float> in = image(37, 23, 1);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xii("xii"), t("t"), u("u");
    Func a("a"), b("b"), c("c"), out("out");
    a(x, y) = in(min(x, 36), min(y, 22), 0) * 2.0f;
    b(x, y) = a(x, y) + a(x + 1, y);
    c(x, y) = b(x, y) - b(x, y + 1);
    out(x, y) = c(x, y) * 0.5f;
    Param<int> p("p", 3);
    out.split(x, xo, xi, 8).tile(xi, y, xii, yi, 4, 2, TailStrategy::GuardWithIf).reorder(xii, yi).parallel(y);
    Func o2("o2");
    o2(x, y) = in(x, y, 0);
    o2.tile(x, y, xo, yo, xi, yi, 8, 4);
    expect_matches(o2, {0, 0}, {32, 20}, "tile with outer names");
    c.compute_at(out, y).split(x, x, xii, 8).vectorize(xii, 4).unroll(xii).serial(y);
    b.compute_root().fuse(x, y, t).parallel(t, 16).rename(t, u);
    a.compute_root().split(x, x, xi, 4).vectorize(xi).unroll(y, 2);
    a.specialize(p > 2).parallel(y);
    a.specialize_fail("p is too small");
    expect_matches(out, {0, 0}, {30, 20}, "loop directives");
    Func s("s");
    RDom r(0, 10, "r");
    s(x) = 0;
    s(x) += r;
    s.update().allow_race_conditions();
    expect_matches(s, {0}, {4}, "allow_race_conditions");
    // A histogram whose rows are counted in parallel, each store atomic.
    Func hist("hist");
    RDom px(0, 30, 0, 20, "px");
    hist(x) = 0;
    hist((px.x * 3 + px.y) % 8) += 1;
    hist.update().atomic().parallel(px.y);
    expect_matches(hist, {0}, {8}, "atomic");
}

TEST(HalideCompatibility, RFactorOfASplitRVar) {
    Buffer<int32_t> in(std::vector<int>{1000}, "in");
    for (int i = 0; i < 1000; i++) in(i) = i % 7 - 3;
    Var u("u");
    RDom r(0, 1000, "r");
    Func sum("sum");
    sum() = 0;
    sum() += in(r);
    RVar ro("ro"), ri("ri");
    Func intm = sum.update().split(r, ro, ri, 64).rfactor(ri, u);
    intm.compute_root().update().vectorize(u, 8);
    Buffer<int32_t> got = sum.realize(std::vector<int>{});
    int32_t want = 0;
    for (int i = 0; i < 1000; i++) want += in(i);
    EXPECT_EQ(got(), want);
}

TEST(HalideCompatibility, WhereValuesLive) {
    Buffer<float> in = image(30, 20, 1);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func a("a"), b("b"), c("c"), out("out");
    a(x, y) = in(clamp(x, 0, 29), clamp(y, 0, 19), 0);
    b(x, y) = a(x, y - 1) + a(x, y + 1);
    c(x, y) = b(x, y) * 2.0f;
    out(x, y) = c(x, y) + b(x, y);
    out.split(y, yo, yi, 8);
    a.store_root().compute_at(out, yi).fold_storage(y, 4);
    b.store_at(out, yo).compute_at(LoopLevel(out, yi)).reorder_storage(y, x);
    c.compute_inline();
    out.bound(x, 0, 24).bound_extent(y, 16).align_bounds(x, 4);
    Func wrapped = a.in(b);
    wrapped.compute_at(b, y);
    Func all = c.in();
    (void)all;
    Func both = b.in({c, out});
    (void)both;
    expect_matches(out, {0, 0}, {24, 16}, "compute and store levels");
    Func r("r");
    r(x, y) = in(x, y, 0);
    r.compute_root();
    expect_matches(r, {0, 0}, {30, 20}, "compute_root");
    // Hints Tessera accepts and decides itself: the values stay the algorithm's.
    Func h("hinted"), g("g");
    g(x, y) = in(x, y, 0) * 3.0f;
    h(x, y) = g(x, y) + g(x + 1, y);
    g.compute_at(h, y).store_in(MemoryType::Stack);
    h.memoize().prefetch(g, y, y, 2).store_in(MemoryType::Heap);
    g.async();
    h.set_estimate(x, 0, 29).set_estimates({{0, 29}, {0, 20}});
    Param<float> gain("gain", 1.0f);
    gain.set_estimate(2.0f);
    ImageParam estimated(Float(32), 2, "estimated");
    estimated.set_estimates({{0, 640}, {0, 480}});
    expect_matches(h, {0, 0}, {29, 20}, "store_in, memoize, prefetch, async and estimates");
    EXPECT_THROW(h.set_estimates({{0, 29}}), CompileError);         // one estimate per dimension
    EXPECT_THROW(h.set_estimate(Var("q"), 0, 4), CompileError);       // not a dimension of h
    EXPECT_THROW(estimated.set_estimates({{0, 640}}), CompileError);
    EXPECT_THROW(g.store_in(MemoryType::GPUShared), CompileError);
    Func other("other");
    other(x) = cast<float>(x);
    try {
        h.prefetch(other, y, y);
        ADD_FAILURE() << "a prefetch of a Func that is not called was accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("\"other\" is not called"), std::string::npos) << e.what();
    }
}

// clone_in, after Halide's tutorial lesson 20: the consumers named call a copy of the Func,
// scheduled on its own.
TEST(HalideCompatibility, ClonesServeTheirConsumers) {
    Var x("x"), y("y");
    {
        Func f("f_single"), g("g_single"), h("h_single");
        f(x, y) = x + y;
        g(x, y) = 2 * f(x, y) + 3;
        h(x, y) = f(x, y) + g(x, y) + 10;
        f.compute_root();
        g.compute_root();
        Func f_clone_in_g = f.clone_in(g);
        EXPECT_EQ(f_clone_in_g.name(), "f_single_clone_in_g_single");
        EXPECT_TRUE(f.clone_in(g).data() == f_clone_in_g.data()) << "the same consumer again gives the same copy";
        f_clone_in_g.compute_at(g, y).vectorize(x, 4);  // its own schedule; f keeps compute_root
        Buffer<int> r = h.realize({7, 5});
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 7; i++) EXPECT_EQ(r(i, j), (i + j) + (2 * (i + j) + 3) + 10) << i << ", " << j;
        expect_matches(h, {0, 0}, {7, 5}, "a clone in one consumer");
        const std::string printed = print_program(h);
        EXPECT_NE(printed.find("func f_single_clone_in_g_single(x, y) = x + y"), std::string::npos) << printed;
        EXPECT_NE(printed.find("f_single_clone_in_g_single(x, y)"), std::string::npos) << printed;
        Program parsed = parse_program(printed, "printed");
        EXPECT_EQ(print_program(parsed), printed);
    }
    {
        Func f("f_group"), g("g_group"), h("h_group"), out("out_group");
        f(x, y) = x + y;
        g(x, y) = 2 * f(x, y);
        h(x, y) = f(x, y) + 10;
        out(x, y) = f(x, y) + g(x, y) + h(x, y);
        f.compute_root();
        g.compute_root();
        h.compute_root();
        Func both = f.clone_in({g, h});
        EXPECT_EQ(both.name(), "f_group_clone_in_g_group_h_group");
        both.compute_root();
        expect_matches(out, {0, 0}, {6, 4}, "one clone in two consumers");
    }
    {
        // Consumers of disjoint regions: each computes only the points it reads.
        Func f("f_far"), g("g_far"), h("h_far"), both("both_far");
        f(x) = x;
        g(x) = 2 * f(0);
        h(x) = f(99) + 10;
        both(x) = g(x) + h(x);
        f.compute_root();
        f.clone_in(g).compute_root();
        Buffer<int> r = both.realize({3});
        for (int i = 0; i < 3; i++) EXPECT_EQ(r(i), 0 + 99 + 10);
        expect_matches(both, {0}, {3}, "clones of disjoint regions");
        EXPECT_THROW(f.clone_in(f), CompileError);
        Func stranger("stranger");
        stranger(x) = x * 3;
        try {
            f.clone_in(stranger);
            ADD_FAILURE() << "a clone in a Func that does not call it was accepted";
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find("\"stranger\" does not call"), std::string::npos) << e.what();
        }
    }
}

// random_float, random_uint, random_int: pure functions of the definition's coordinates,
// the call and the seed; the same whatever the schedule, in the compiled code and in the
// reference interpreter.
TEST(HalideCompatibility, RandomNumbersArePureFunctionsOfTheCoordinates) {
    Var x("x"), y("y");
    Func noise("noise"), twice("twice"), seeded("seeded"), ints("ints");
    noise(x, y) = random_float();
    twice(x, y) = random_float() - random_float();  // two calls: two numbers
    seeded(x, y) = random_float(7) - random_float(8);
    ints(x, y) = random_int() ^ cast<int>(random_uint(3));
    Func all("random_all");
    all(x, y) = noise(x, y) + twice(x, y) + seeded(x, y) + cast<float>(ints(x, y) & 1023);
    noise.compute_root().vectorize(x, 8).parallel(y);
    expect_matches(all, {-3, -2}, {40, 30}, "random numbers");
    // Printed as random_hash(seed, call site, n, coordinates...), one call each: the text
    // stays small and parses back to the same pipeline.
    const std::string printed = print_program(all);
    EXPECT_LT(printed.size(), 2000u) << printed;
    EXPECT_EQ(print_program(parse_program(printed, "printed")), printed);
    const Buffer<float> n = noise.realize({64, 64}), again = noise.realize_reference({64, 64});
    double sum = 0;
    int zero_differences = 0, repeats = 0;
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 64; i++) {
            EXPECT_GE(n(i, j), 0.0f);
            EXPECT_LT(n(i, j), 1.0f);
            EXPECT_EQ(n(i, j), again(i, j)) << "the compiled code computes the reference's number";
            sum += n(i, j);
            if (i > 0) repeats += n(i, j) == n(i - 1, j);
        }
    EXPECT_NEAR(sum / 4096.0, 0.5, 0.03) << "uniform in [0, 1)";
    EXPECT_LT(repeats, 4) << "neighbours get different numbers";
    const Buffer<float> t = twice.realize({16, 16});
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++) zero_differences += t(i, j) == 0.0f;
    EXPECT_LT(zero_differences, 3) << "two calls in one definition give two numbers";
    // In an update over an RDom, the RVars are coordinates too: each iteration draws
    // anew, so a running maximum over 64 draws is near 1 and a running minimum near 0.
    Func hi("hi"), lo("lo");
    RDom r(0, 64, "r");
    hi(x) = 0.0f;
    hi(x) = max(hi(x), select(r >= 0, random_float(), 0.0f));
    lo(x) = 1.0f;
    lo(x) = min(lo(x), select(r >= 0, random_float(), 1.0f));
    const Buffer<float> h = hi.realize({8}), l = lo.realize({8});
    for (int i = 0; i < 8; i++) {
        EXPECT_GT(h(i), 0.8f) << i;
        EXPECT_LT(l(i), 0.2f) << i;
    }
    EXPECT_THROW(random_float(0.5f), CompileError);  // the seed is an integer
    Func bad("random_lhs");
    EXPECT_THROW(bad(random_int() & 3) = 1, CompileError);
}

TEST(HalideCompatibility, StagingCopiesOfInputs) {
    // Halide's conv_layer: staging copies of the filter and the input with ImageParam::in(),
    // scheduled with their implicit Vars _0, _1, ...
    const int CI = 4, CO = 16, W = 6, H = 3;
    ImageParam input(Float(32), 3, "input"), filter(Float(32), 4, "filter");
    Buffer<float> in_b(std::vector<int>{CI, W + 2, H + 2}, "in_b"), filter_b(std::vector<int>{CO, 3, 3, CI}, "filter_b");
    in_b.for_each_element([&](const std::vector<int> &p) { in_b(p) = float((p[0] * 3 + p[1] * 5 + p[2] * 7) % 11) - 5.0f; });
    filter_b.for_each_element([&](const std::vector<int> &p) { filter_b(p) = float((p[0] + p[1] * 2 + p[2] * 3 + p[3]) % 5) * 0.5f; });
    input.set(in_b);
    filter.set(filter_b);
    Var c("c"), x("x"), y("y"), _0("_0"), _3("_3");
    RDom r(0, CI, 0, 3, 0, 3, "r");
    Func conv("conv");
    conv(c, x, y) = 0.0f;
    conv(c, x, y) += filter(c, r.y, r.z, r.x) * input(r.x, x + r.y, y + r.z);
    conv.bound(c, 0, CO).vectorize(c, 8);
    conv.update().reorder(c, x, r.x, r.y, r.z, y).vectorize(c, 8);
    Func staged_filter = filter.in(), staged_input = input.in();
    EXPECT_EQ(staged_filter.dimensions(), 4);
    EXPECT_TRUE(filter.in().data() == staged_filter.data());  // the same Func on every call
    staged_filter.compute_at(conv, r.x).vectorize(_0, 8).unroll(_3);
    staged_input.compute_at(conv, x).unroll(_0);
    expect_matches(conv, {0, 0, 0}, {CO, W, H}, "staging copies of ImageParams");
    // The copies are computed where the schedule says, and the update reads them.
    const std::string stmt_file = ::testing::TempDir() + "/compat_staged.stmt";
    conv.compile_to_lowered_stmt(stmt_file, {input, filter});
    const std::string stmt = read_file(stmt_file);
    EXPECT_NE(stmt.find("allocate filter_global_wrapper"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("allocate input_global_wrapper"), std::string::npos) << stmt;
}

TEST(HalideCompatibility, CompilingAndRunning) {
    ImageParam input(Float(32), 2, "input");
    Param<float> scale("scale", 2.0f);
    scale.set_range(0.0f, 10.0f);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = input(x, y) * scale + cast<float>(input.width() + input.height() + input.dim(0).min() + input.dim(1).extent());
    Buffer<float> b(std::vector<int>{8, 4}, "b");
    input.set(b);
    scale.set(3.0f);
    EXPECT_EQ(scale.get(), 3.0f);
    f.compile_jit(get_jit_target_from_environment());
    Buffer<> out = f.realize({8, 4});
    EXPECT_EQ(Buffer<float>(out)(1, 1), 0.0f * 3.0f + 8 + 4 + 0 + 4);
    Buffer<float> into(std::vector<int>{8, 4});
    f.realize(into);
    EXPECT_EQ(into(2, 3), 16.0f);
    EXPECT_EQ(f.infer_arguments().size(), 2u);
    const std::string dir = ::testing::TempDir();
    const std::vector<Argument> args = {input, scale};
    f.compile_to_c(dir + "/compat_f.c", args, "compat_f");
    f.compile_to_header(dir + "/compat_f.h", args, "compat_f");
    f.compile_to_object(dir + "/compat_f.o", args, "compat_f", get_host_target());
    f.compile_to_static_library(dir + "/compat_f_lib", args, "compat_f");
    f.compile_to_lowered_stmt(dir + "/compat_f.stmt", args);
    EXPECT_FALSE(read_file(dir + "/compat_f.h").empty());
    EXPECT_EQ(Target("x86-64-linux-avx2-fma").to_string().find("avx2") != std::string::npos, true);
}

TEST(HalideCompatibility, PipelinesOfSeveralOutputs) {
    Var x("x"), y("y");
    Func shared("shared"), sum_of("sum_of"), difference("difference");
    shared(x, y) = x * 10 + y;
    shared.compute_root();
    sum_of(x, y) = shared(x, y) + shared(x + 1, y);
    difference(x, y) = shared(x + 1, y) - shared(x, y);
    Pipeline p({sum_of, difference});
    ASSERT_EQ(p.outputs().size(), 2u);
    p.compile_jit();
    Realization r = p.realize({5, 3});
    ASSERT_EQ(r.size(), 2u);
    Buffer<int32_t> a = r[0], b = r[1];
    for (int yy = 0; yy < 3; yy++)
        for (int xx = 0; xx < 5; xx++) {
            EXPECT_EQ(a(xx, yy), (xx * 10 + yy) + ((xx + 1) * 10 + yy));
            EXPECT_EQ(b(xx, yy), 10);
        }
    // Into buffers with their own windows.
    Buffer<int32_t> c(std::vector<int>{4, 2}, "c"), d(std::vector<int>{4, 2}, "d");
    c.set_min({-2, 5});
    p.realize(Realization({c, d}));
    EXPECT_EQ(c(-2, 5), (-20 + 5) + (-10 + 5));
    EXPECT_EQ(d(3, 1), 10);
    // One output converts to a Buffer; mismatches are errors.
    Buffer<int32_t> one = Pipeline(sum_of).realize({2, 2});
    EXPECT_EQ(one(1, 1), 11 + 21);
    EXPECT_THROW(p.realize(std::vector<Buffer<>>{c}), CompileError);
    EXPECT_THROW((void)Buffer<int32_t>(r), RuntimeError);
    EXPECT_THROW(Pipeline({sum_of, sum_of}), CompileError);
}

TEST(HalideCompatibility, TuplesAndArgReductions) {
    // As Halide's tutorial on Tuples writes them.
    Var x("x"), y("y");
    Func multi_valued("multi_valued");
    multi_valued(x, y) = Tuple(x + y, sin(x * y));
    EXPECT_EQ(multi_valued.outputs(), 2);
    EXPECT_EQ(multi_valued.output_types()[1], Float(32));
    Realization r = multi_valued.realize({8, 6});
    Buffer<int32_t> im0 = r[0];
    Buffer<float> im1 = r[1];
    EXPECT_EQ(im0(3, 2), 5);
    EXPECT_EQ(im1(3, 2), sinf(6.0f));

    // A Tuple reduction: the position and value of the maximum, by hand and by argmax.
    Func input_func("input_func");
    input_func(x) = sin(x);
    Func arg_max("arg_max");
    arg_max() = Tuple(0, input_func(0));
    RDom r1(1, 99);
    Expr old_index = arg_max()[0], old_max = arg_max()[1];
    Expr new_index = select(old_max < input_func(r1), r1, old_index);
    Expr new_max = max(input_func(r1), old_max);
    arg_max() = Tuple(new_index, new_max);
    Func by_argmax("by_argmax");
    RDom r2(0, 100);
    by_argmax() = argmax(input_func(r2));
    Func by_argmin("by_argmin");
    by_argmin() = Tuple(argmin(r2, input_func(r2)));
    Realization a = arg_max.realize(std::vector<int>{}), b = by_argmax.realize(std::vector<int>{});
    Realization c = by_argmin.realize(std::vector<int>{});
    int best = 0, worst = 0;
    for (int i = 1; i < 100; i++) {
        if (std::sin(float(i)) > std::sin(float(best))) best = i;
        if (std::sin(float(i)) < std::sin(float(worst))) worst = i;
    }
    EXPECT_EQ(Buffer<int32_t>(a[0])(), best);
    EXPECT_EQ(Buffer<int32_t>(b[0])(), best);
    EXPECT_EQ(Buffer<float>(b[1])(), Buffer<float>(a[1])());
    EXPECT_EQ(Buffer<int32_t>(c[0])(), worst);

    // Tuples of a user-defined kind: complex numbers, squared by a Tuple update.
    Func complex_sq("complex_sq");
    complex_sq(x, y) = Tuple(cast<float>(x) / 4.0f, cast<float>(y) / 4.0f);
    Tuple z = Tuple(complex_sq(x, y));
    complex_sq(x, y) = Tuple(z[0] * z[0] - z[1] * z[1], 2.0f * z[0] * z[1]);
    Pipeline p({complex_sq, multi_valued});
    Realization both = p.realize({4, 4});
    ASSERT_EQ(both.size(), 4u);
    EXPECT_EQ(Buffer<float>(both[0])(3, 1), 0.75f * 0.75f - 0.25f * 0.25f);
    EXPECT_EQ(Buffer<float>(both[1])(3, 1), 2.0f * 0.75f * 0.25f);
    Realization reference = complex_sq.realize_reference({4, 4});
    for (int k = 0; k < 2; k++) EXPECT_EQ(compare_window(both[size_t(k)], reference[size_t(k)], {0, 0}, {4, 4}), "");
}

// A C function for define_extern, written as Halide's extern stages are (with Tessera's
// buffer type): a bounds query first, then the values.
extern "C" int tessera_compat_extern_doubled(tessera_buffer_t *in, tessera_buffer_t *out) {
    if (in->host == nullptr) {
        in->dim[0] = out->dim[0];
        return 0;
    }
    for (int x = 0; x < out->dim[0].extent; x++)
        static_cast<int32_t *>(out->host)[x * out->dim[0].stride] =
            2 * static_cast<const int32_t *>(in->host)[(out->dim[0].min + x - in->dim[0].min) * in->dim[0].stride];
    return 0;
}

TEST(HalideCompatibility, ExternStages) {
    Var x("x");
    Func producer("compat_producer"), doubled("compat_doubled"), consumer("compat_consumer");
    producer(x) = x * x;
    doubled.define_extern("tessera_compat_extern_doubled", {producer}, Int(32), 1);
    consumer(x) = doubled(x) + doubled(x + 1);
    Buffer<int32_t> out = consumer.realize({10});
    for (int i = 0; i < 10; i++) EXPECT_EQ(out(i), 2 * i * i + 2 * (i + 1) * (i + 1));
    expect_matches(consumer, {-3}, {6}, "a consumer of an extern stage");
}

TEST(HalideCompatibility, FusedLoopNests) {
    Var x("x"), y("y");
    Func a("compat_a"), b("compat_b"), sum_ab("compat_sum_ab");
    a(x, y) = x * 2 + y;
    b(x, y) = x - 3 * y;
    sum_ab(x, y) = a(x, y) + b(x + 1, y);
    a.compute_root();
    b.compute_root();
    b.compute_with(a, y, LoopAlignStrategy::AlignStart);
    expect_matches(sum_ab, {0, 0}, {9, 4}, "compute_with");
}

TEST(HalideCompatibility, VariablesDomainsAndParameters) {
    Var x, y("y");
    Func f("f");
    Buffer<int32_t> k(std::vector<int>{3, 2}, "k");
    k.fill(2);
    RDom over_k(k);
    RDom r(Region{{0, 4}, {1, 2}}, "r");
    r.where(r.x != r.y);
    EXPECT_EQ(r.dimensions(), 2);
    f(x, y) = x * y;
    f(x, y) += r.x * r[1];
    f(x, y) += over_k.x + over_k.y;
    expect_matches(f, {0, 0}, {3, 3}, "RDoms");
}

TEST(HalideCompatibility, BuffersAndBoundaryConditions) {
    Buffer<float> in = image(9, 7, 2);
    Buffer<float> copy = in.copy();
    copy.set_min({1, 1, 0});
    EXPECT_EQ(copy.dim(0).min(), 1);
    EXPECT_EQ(copy.dim(0).max(), 9);
    EXPECT_EQ(in.dim(1).stride(), 9);
    EXPECT_EQ(in.number_of_elements(), 9 * 7 * 2);
    EXPECT_EQ(in.cropped(0, 2, 3).sliced(2, 1).embedded(2, 0).transposed(0, 1).dimensions(), 3);
    Buffer<> dynamic(Float(32), std::vector<int>{4});
    EXPECT_EQ(dynamic.type(), Float(32));
    Var x("x"), y("y"), c("c");
    Func sum("sum");
    namespace BC = BoundaryConditions;
    sum(x, y, c) = BC::repeat_edge(in)(x, y, c) + BC::constant_exterior(in, 0.5f)(x, y, c) +
                   BC::mirror_image(in)(x, y, c) + BC::mirror_interior(in)(x, y, c) + BC::repeat_image(in)(x, y, c);
    expect_matches(sum, {-3, -2, 0}, {15, 11, 2}, "boundary conditions");
}

// `_`: in a call, the callee's remaining dimensions; on the left, the implicit Vars the
// value uses; fewer coordinates than dimensions are implicit too. Values against ones
// computed here, and the compiled code against the reference interpreter.
TEST(HalideCompatibility, ImplicitArguments) {
    Buffer<float> in = image(6, 5, 3);
    Var x("x"), y("y");
    Func twice("twice"), plus("plus"), rows("rows"), edge("edge");
    twice(x, _) = in(x, _) * 2.0f;  // twice(x, _0, _1)
    EXPECT_EQ(twice.dimensions(), 3);
    EXPECT_EQ(twice.args()[1].name(), "_0");
    plus(_) = twice(_) + 1.0f;  // plus(_0, _1, _2)
    EXPECT_EQ(plus.dimensions(), 3);
    rows(x, y, _) = twice(x, y) - 0.5f;  // twice(x, y, _0): a coordinate left out is implicit
    rows(x, y, _) += plus(x, y, _);
    Func clamped = BoundaryConditions::repeat_edge(in);
    edge(x, y, _) = clamped(x - 1, y + 1, _);
    edge.vectorize(x, 4).reorder(_0, x, y);
    Buffer<float> r = rows.realize({6, 5, 3}), e = edge.realize({6, 5, 3});
    for (int c = 0; c < 3; c++)
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 6; i++) {
                const float v = in(i, j, c);
                EXPECT_EQ(r(i, j, c), v * 2.0f - 0.5f + (v * 2.0f + 1.0f)) << i << ", " << j << ", " << c;
                EXPECT_EQ(e(i, j, c), in(std::max(i - 1, 0), std::min(j + 1, 4), c)) << i << ", " << j << ", " << c;
            }
    expect_matches(rows, {0, 0, 0}, {6, 5, 3}, "implicit arguments and an update");
    expect_matches(edge, {-2, -2, 0}, {9, 8, 3}, "implicit arguments of a boundary condition");
    EXPECT_TRUE(_.is_placeholder());
    EXPECT_EQ(Var::implicit(3).name(), "_3");
    // Mistakes, each a CompileError that says what is wrong.
    auto expect_error = [](const std::function<void()> &f, const std::string &needle) {
        try {
            f();
            ADD_FAILURE() << "expected a CompileError mentioning " << needle;
        } catch (const CompileError &err) {
            EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
        }
    };
    expect_error([&] { Func k("k"); k(x) = twice(x, _); }, "k(..., _)");
    expect_error([&] { Func k("k2"); k(_) = twice(_, _); }, "twice");
    expect_error([&] { Func u("undefined_yet"), k("k3"); k(_) = u(_); }, "undefined_yet");
}

TEST(HalideCompatibility, Expressions) {
    Var x("x"), y("y");
    Func i("i"), f("f");
    Expr a = x - 3, b = y + 1;
    i(x, y) = a + b - a * b / 2 % 3 + (a << 1) + (b >> 1) + (a & 7) + (a | 1) + (a ^ b) + ~a +
              select((a < b && !(a == 2)) || a >= 4, min(a, b), max(a, b)) + clamp(a, -1, 1) + abs(a) +
              cast<int>(absd(a, b)) + select(a < 0, 1, a > 2, 2, 0) + reinterpret<int32_t>(cast<uint32_t>(a)) +
              popcount(a) + count_leading_zeros(b) + count_trailing_zeros(a * b);
    Expr v = cast<float>(x) * 0.25f + 0.1f, w = cast(Float(32), y) * 0.5f + 0.2f;
    f(x, y) = lerp(v, w, 0.25f) + sqrt(v) + exp(-v) + log(v) + pow(v, w) + sin(v) + cos(v) + tan(v) + asin(v * 0.1f) +
              acos(v * 0.1f) + atan(v) + atan2(v, w) + sinh(v) + cosh(v) + tanh(v) + asinh(v) + acosh(v + 1.0f) +
              atanh(v * 0.1f) + floor(v) + ceil(v) + round(v) + trunc(v) + fract(v) +
              select(is_nan(v) || is_inf(w) || !is_finite(v), 1.0f, 0.0f) + fast_exp(-v) + fast_log(v) + fast_pow(v, w) +
              fast_inverse(v) + fast_inverse_sqrt(v) + print_when(v < -1.0f, 0.0f, "never") - print_when(w < -1.0f, 0.0f) +
              print(std::vector<Expr>{0.0f}) * 0.0f + require(v > -1.0f, 0.0f, "v is", v);
    expect_matches(i, {-4, -3}, {9, 8}, "integer expressions");
    // saturating_cast, mux and likely, against values computed here.
    Func sat("sat");
    sat(x) = cast<int32_t>(saturating_cast<uint8_t>(x * 40 - 100)) + cast<int32_t>(saturating_cast<int8_t>(cast<uint32_t>(x * 30))) +
             mux(x - 2, {Expr(1000), Expr(2000), Expr(3000)}) + likely(x);
    Buffer<int32_t> got = sat.realize({10});
    for (int xx = 0; xx < 10; xx++) {
        const int u8 = std::min(std::max(xx * 40 - 100, 0), 255), i8 = std::min(xx * 30, 127);
        const int chosen = xx - 2 <= 0 ? 1000 : xx - 2 == 1 ? 2000 : 3000;
        EXPECT_EQ(got(xx), u8 + i8 + chosen + xx) << "at " << xx;
    }
    expect_matches(sat, {-3}, {12}, "saturating_cast, mux, likely");
    // lerp computes Halide's a*(1 - w) + b*w, each operation rounded: exactly b at w = 1
    // (a + (b - a)*w gives 0 for a = 1e8, b = 1), and Halide's value elsewhere.
    Buffer<float> ends(std::vector<int>{4}, "ends");
    const float av[4] = {1e8f, 0.1f, -3.7f, 255.0f}, bv[4] = {1.0f, 0.7f, 1e-3f, 0.0f};
    for (int k = 0; k < 4; k++) ends(k) = av[k];
    Func lerped("lerped");
    lerped(x, y) = lerp(ends(x), select(x == 0, 1.0f, x == 1, 0.7f, x == 2, 1e-3f, 0.0f), cast<float>(y) / 3.0f);
    Buffer<float> l = lerped.realize({4, 4});
    for (int xx = 0; xx < 4; xx++)
        for (int yy = 0; yy < 4; yy++) {
            volatile float w = float(yy) / 3.0f, one_minus = 1.0f - w, left = av[xx] * one_minus, right = bv[xx] * w;
            const float halide = left + right;
            EXPECT_EQ(l(xx, yy), halide) << "lerp(" << av[xx] << ", " << bv[xx] << ", " << yy << "/3)";
        }
    EXPECT_EQ(l(0, 3), 1.0f);
    // Tracing: the lines of a traced Func's stores (tests/correctness/tracing_test.cpp
    // checks loads and realizations too).
    Func traced("traced");
    traced(x) = x * 2;
    traced.trace_stores().trace_loads().trace_realizations();
    ::testing::internal::CaptureStderr();
    traced.realize({1});
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "Begin pipeline traced.0()\nStore traced.0(0) = 0\nEnd pipeline traced.0()\n");
    // undef: the updates write every point of the window.
    Func und("und");
    RDom ur(0, 6, "ur");
    und(x) = undef<int32_t>();
    und(5 - ur) = ur * 3;
    Buffer<int32_t> reversed = und.realize({6});
    for (int xx = 0; xx < 6; xx++) EXPECT_EQ(reversed(xx), (5 - xx) * 3) << "at " << xx;
    // Inline reductions (tests/unit/inline_reductions_test.cpp checks their values).
    RDom r(-1, 3, "r");
    Func red("red");
    red(x, y) = sum(x * r + y) + product(r + 3, "p") + maximum(r, y * r) - minimum(x - r) + sum(r, 1);
    expect_matches(red, {-2, -2}, {6, 5}, "inline reductions");
    expect_matches(f, {0, 0}, {8, 8}, "float expressions");
}
