// The C emitter, the JIT and the AOT entry points (src/codegen), on lowered pipelines
// built by hand with the IR constructors.
//
// * Small pipelines (Euclidean division in a loop, an allocation round trip, a failing
//   assertion, buffer checks, vectors, awkward names) run through the JIT and are checked
//   against plain C++.
// * One pipeline applies every operator to every type on a grid of edge-case values
//   (negatives, zero divisors, MIN, MAX, NaN, infinities, signed zeros, subnormals) and is
//   compared bit for bit with src/ir/Scalar.h, the single definition of each
//   operator (NaN payloads excepted).
// * The emitted C compiles with -Wall -Wextra -Werror -std=c99 and runs clean under
//   -fsanitize=undefined,address, driven by a generated main (same results, no report,
//   no leak on the error paths).
// * The disk cache hits on a second compilation; a C compilation error is an
//   InternalError naming its log file; the AOT outputs (.c, .h, .o, .a) link into a C
//   program.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/CodeGenC.h"
#include "driver/AOT.h"
#include "driver/JIT.h"
#include "codegen/Runtime.h"
#include "ir/IR.h"
#include "support/hand_lowered.h"
#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"
#include "ir/Scalar.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"
#include "support/scratch.h"

using namespace tessera;
using namespace tessera::ir;
namespace cg = tessera::codegen;
namespace sem = tessera::semantics;
namespace fs = std::filesystem;

namespace {

// --------------------------------------------------------------------------------------
// Environment: a private cache directory per test process (tests/support/scratch.h).

const std::string &scratch_dir() { return tessera::testing::scratch_dir(); }

tessera::driver::CCompilerOptions jit_options() {
    tessera::driver::CCompilerOptions o;
    o.cache_dir = scratch_dir() + "/cache";
    return o;
}

using tessera::testing::have_command;
using tessera::testing::read_text;
using tessera::testing::shell_output;
using tessera::testing::write_text;

// --------------------------------------------------------------------------------------
// IR building

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }
Expr i32(int64_t v) { return IntImm::make(Int(32), v); }
Expr i64(int64_t v) { return IntImm::make(Int(64), v); }
Expr to64(Expr e) { return Cast::make(Int(64), std::move(e)); }
Expr str(const std::string &s) { return StringImm::make(s); }

ir::PipelineArgument buffer_arg(ir::PipelineArgument::Kind k, const std::string &name, Type t, int dims) {
    ir::PipelineArgument a;
    a.kind = k;
    a.name = name;
    a.type = t;
    a.dimensions = dims;
    return a;
}
ir::PipelineArgument input(const std::string &name, Type t, int dims = 1) {
    return buffer_arg(ir::PipelineArgument::Kind::InputBuffer, name, t, dims);
}
ir::PipelineArgument output(const std::string &name, Type t, int dims = 1) {
    return buffer_arg(ir::PipelineArgument::Kind::OutputBuffer, name, t, dims);
}
ir::PipelineArgument param(const std::string &name, Type t) {
    ir::PipelineArgument a;
    a.kind = ir::PipelineArgument::Kind::Param;
    a.name = name;
    a.type = t;
    return a;
}
Expr param_var(const std::string &name, Type t) { return Variable::make(t, name, VarKind::Param); }

// The element offset of coordinate x (Int(32)) in dimension 0 of buffer b, as lowering
// computes it: (x - b.min.0) * b.stride.0 in 64 bits.
Expr offset_1d(const std::string &b, const Expr &x) {
    return Mul::make(Sub::make(to64(x), to64(var(b + ".min.0"))), var(b + ".stride.0", Int(64)));
}

std::shared_ptr<const Provenance> prov(const std::string &f, int stage, std::vector<Expr> coords) {
    auto p = std::make_shared<Provenance>();
    p->func = tessera::test::named_func(f);
    p->stage = stage;
    p->coords = std::move(coords);
    return p;
}

// A loop over dimension 0 of the output buffer `out`.
Stmt loop_over_output(const std::string &out, const std::string &x, Stmt body,
                      std::shared_ptr<const LoopId> loop = nullptr) {
    return For::make(x, var(out + ".min.0"), var(out + ".extent.0"), ForType::Serial, std::move(body), std::move(loop));
}

/** The identity of the loop over dimension x of Func `f`'s pure definition, as lowering
 * gives it. */
std::shared_ptr<const LoopId> pure_loop(const std::string &f) {
    auto id = std::make_shared<LoopId>();
    id->func = tessera::test::named_func(f);
    id->dim = id->var = "x";
    id->pure = true;
    return id;
}

ir::LoweredPipeline pipeline(const std::string &name, std::vector<ir::PipelineArgument> args, Stmt body) {
    ir::LoweredPipeline p;
    p.name = name;
    p.args = std::move(args);
    p.body = std::move(body);
    return p;
}

template<typename T>
tessera::driver::RuntimeBuffer buffer_of(std::vector<T> &v, int32_t min = 0) {
    return tessera::driver::RuntimeBuffer(v.data(), type_of<T>(), {tessera_dim_t{min, int32_t(v.size()), 1}});
}

// --------------------------------------------------------------------------------------
// Small pipelines

// out(x) = in(x) / d (Euclidean), for x over the output buffer, after checking (as
// lowering does) that the input covers the output window.
ir::LoweredPipeline division_pipeline(std::shared_ptr<const LoopId> loop = nullptr) {
    Expr x = var("out.s0.x");
    Stmt store = Store::make("out", Div::make(Load::make(Int(32), "in", offset_1d("in", x)), param_var("d", Int(32))),
                             offset_1d("out", x), prov("out", 0, {x}));
    Expr in_end = Add::make(to64(var("in.min.0")), to64(var("in.extent.0")));
    Expr out_end = Add::make(to64(var("out.min.0")), to64(var("out.extent.0")));
    Stmt check = AssertStmt::make(And::make(LE::make(var("in.min.0"), var("out.min.0")), LE::make(out_end, in_end)),
                                  {str("input \"in\" does not cover [" ), var("out.min.0"), str(", "), out_end,
                                   str(")")});
    return pipeline("divide", {input("in", Int(32)), param("d", Int(32)), output("out", Int(32))},
                    Block::make(check, loop_over_output("out", "out.s0.x", store, std::move(loop))));
}

int32_t euclid_div(int32_t a, int32_t b) {
    if (b == 0) return 0;
    const int64_t q = int64_t(a) / b, r = int64_t(a) % b;
    return int32_t(r < 0 ? (b > 0 ? q - 1 : q + 1) : q);  // wraps for MIN / -1
}

// tmp(x) = in(x) * 3 over the output window (an internal allocation), then
// out(x) = tmp(x) + 1; and an assertion inside the second loop: out(x) stays below a
// limit, failing with a message naming x and the value.
ir::LoweredPipeline allocation_pipeline() {
    Expr x = var("tmp.s0.x"), y = var("out.s0.x");
    Expr ext = to64(var("out.extent.0"));
    Expr tmp_index_x = Sub::make(to64(x), to64(var("out.min.0")));
    Expr tmp_index_y = Sub::make(to64(y), to64(var("out.min.0")));
    Stmt produce = loop_over_output(
        "out", "tmp.s0.x",
        Store::make("tmp", Mul::make(Load::make(Int(32), "in", offset_1d("in", x)), i32(3)), tmp_index_x,
                    prov("tmp", 0, {x})));
    Expr v = Add::make(Load::make(Int(32), "tmp", tmp_index_y), i32(1));
    Stmt consume = loop_over_output(
        "out", "out.s0.x",
        Block::make(AssertStmt::make(LT::make(v, param_var("limit", Int(32))),
                                     {str("value "), v, str(" at x = "), y, str(" is not below the limit "),
                                      param_var("limit", Int(32))}),
                    Store::make("out", v, offset_1d("out", y), prov("out", 0, {y}))));
    Stmt body = Allocate::make("tmp", Int(32), {ext},
                               ProducerConsumer::make("tmp", true, Block::make(produce, consume)));
    return pipeline("scale_plus_one", {input("in", Int(32)), param("limit", Int(32)), output("out", Int(32))}, body);
}

TEST(CodegenC, RuntimeHeaderFileMatchesTheEmbeddedText) {
    const fs::path file = fs::path(__FILE__).parent_path() / ".." / ".." / "src" / "codegen" / "runtime" /
                          "tessera_runtime.h";
    ASSERT_TRUE(fs::exists(file)) << file;
    EXPECT_EQ(read_text(file.string()), cg::runtime_header_text());
}

TEST(CodegenC, APureLoopsVariableWidenedIsItsLoopsCounter) {
    // The int32 loop variable is the truncation of a 64-bit counter. In a pure loop (a
    // coordinate, which never leaves int32), widened again for an element offset it is
    // the counter itself, so that the offset is affine in the counter and the C compiler
    // can vectorize the loop; through the truncation it could not. A loop that may wrap
    // (an RDom's, or one of unknown origin) keeps the truncation.
    const std::string pure = cg::emit_c(division_pipeline(pure_loop("out")));
    EXPECT_NE(pure.find("const int32_t out_s0_x = (int32_t)out_s0_x_i;"), std::string::npos) << pure;
    EXPECT_EQ(pure.find("(int64_t)out_s0_x;"), std::string::npos) << pure;
    EXPECT_EQ(pure.find("(int64_t)out_s0_x)"), std::string::npos) << pure;
    EXPECT_NE(pure.find("out_s0_x_i;"), std::string::npos) << pure;
    const std::string unknown = cg::emit_c(division_pipeline());
    EXPECT_NE(unknown.find("(int64_t)out_s0_x"), std::string::npos) << unknown;
}

TEST(CodegenC, SanitizedIdentifiers) {
    EXPECT_EQ(cg::sanitize_identifier("f.s0.x"), "f_s0_x");
    EXPECT_EQ(cg::sanitize_identifier("f$11"), "f_11");
    EXPECT_EQ(cg::sanitize_identifier("3d"), "v3d");
    EXPECT_EQ(cg::sanitize_identifier("_t0"), "v_t0");
    EXPECT_EQ(cg::sanitize_identifier("int"), "int_");
    EXPECT_EQ(cg::sanitize_identifier("class"), "class_");
    EXPECT_EQ(cg::sanitize_identifier("linux"), "linux_");
    EXPECT_EQ(cg::sanitize_identifier("NAN"), "NAN_");
    EXPECT_EQ(cg::sanitize_identifier("INT32_MAX"), "INT32_MAX_");
    EXPECT_EQ(cg::sanitize_identifier("size_t"), "size_t_");
    EXPECT_EQ(cg::sanitize_identifier("sinf"), "sinf_");
    EXPECT_EQ(cg::sanitize_identifier("tessera_div_i32"), "v_tessera_div_i32");
    EXPECT_EQ(cg::sanitize_identifier(""), "v");
    EXPECT_EQ(cg::sanitize_identifier("blur"), "blur");
    EXPECT_EQ(cg::sanitize_identifier("A"), "A");
}

TEST(CodegenC, ReadableOutput) {
    const std::string c = cg::emit_c(division_pipeline());
    // One exported function in argument order, restrict and const on the buffers, the
    // Euclidean division helper, 64-bit index arithmetic and the provenance comment.
    EXPECT_NE(c.find("int divide(const tessera_buffer_t *in_buffer, int32_t d, tessera_buffer_t *out_buffer)"),
              std::string::npos)
        << c;
    EXPECT_NE(c.find("const int32_t *restrict in = (const int32_t *)in_buffer->host;"), std::string::npos) << c;
    EXPECT_NE(c.find("int32_t *restrict out = (int32_t *)out_buffer->host;"), std::string::npos) << c;
    EXPECT_NE(c.find("static inline int32_t tessera_div_i32(int32_t a, int32_t b)"), std::string::npos) << c;
    EXPECT_NE(c.find("tessera_div_i32(_t"), std::string::npos) << c;
    EXPECT_NE(c.find("/* out(out.s0.x) */"), std::string::npos) << c;
    EXPECT_NE(c.find("const int32_t out_s0_x = (int32_t)out_s0_x_i;  /* out.s0.x */"), std::string::npos) << c;
    EXPECT_NE(c.find("int divide_argv(void **args)"), std::string::npos) << c;
    // Only the helpers it uses.
    EXPECT_EQ(c.find("tessera_mod_i32"), std::string::npos) << c;
    // Deterministic.
    EXPECT_EQ(c, cg::emit_c(division_pipeline()));
    const std::string h = cg::emit_header(division_pipeline());
    EXPECT_NE(h.find("extern \"C\""), std::string::npos);
    EXPECT_NE(h.find("int divide(const tessera_buffer_t *in_buffer, int32_t d, tessera_buffer_t *out_buffer);"),
              std::string::npos)
        << h;
}

TEST(CodegenJIT, EuclideanDivisionInALoop) {
    tessera::driver::JITModule m(division_pipeline(), jit_options());
    std::vector<int32_t> in = {7, -7, 6, -6, 1, -1, 0, INT32_MIN, INT32_MAX, INT32_MIN + 1, 100, -100};
    for (int32_t d : {2, -2, 3, -3, 1, -1, 0, 7, INT32_MIN, INT32_MAX}) {
        std::vector<int32_t> out(in.size(), 12345);
        tessera::driver::RuntimeBuffer bin = buffer_of(in, -5), bout = buffer_of(out, -5);
        void *args[] = {bin.get(), &d, bout.get()};
        m.run(args);
        for (size_t i = 0; i < in.size(); i++) EXPECT_EQ(out[i], euclid_div(in[i], d)) << in[i] << " / " << d;
    }
    // The output window [10, 22) is not inside the input's [-5, 7).
    std::vector<int32_t> out(in.size());
    tessera::driver::RuntimeBuffer bin = buffer_of(in, -5), bout = buffer_of(out, 10);
    int32_t d = 1;
    void *args[] = {bin.get(), &d, bout.get()};
    EXPECT_THROW(
        {
            try {
                m.run(args);
            } catch (const RuntimeError &e) {
                EXPECT_STREQ(e.what(), "input \"in\" does not cover [10, 22)");
                throw;
            }
        },
        RuntimeError);
}

TEST(CodegenJIT, CopiesOfAVariableAreOneInOutlinedFunctions) {
    // let k = d * 3; let k2 = k; parallel for x: out(x) = in(x) + k - k2. The parallel
    // loop's iteration is a function of its own: k2 is k there too (one closure field),
    // so that the C compiler sees that k - k2 is 0.
    Expr x = var("out.s0.x");
    Expr value = Sub::make(Add::make(Load::make(Int(32), "in", offset_1d("in", x)), var("k")), var("k2"));
    Stmt store = Store::make("out", value, offset_1d("out", x), prov("out", 0, {x}));
    Stmt loop = For::make("out.s0.x", var("out.min.0"), var("out.extent.0"), ForType::Parallel, store);
    Stmt body = LetStmt::make("k", Mul::make(param_var("d", Int(32)), i32(3)), LetStmt::make("k2", var("k"), loop));
    const ir::LoweredPipeline p =
        pipeline("copies", {input("in", Int(32)), param("d", Int(32)), output("out", Int(32))}, body);
    const std::string c = cg::emit_c(p);
    const size_t closure = c.find("_closure {");
    ASSERT_NE(closure, std::string::npos) << c;
    const std::string fields = c.substr(closure, c.find("};", closure) - closure);
    EXPECT_NE(fields.find(" k;"), std::string::npos) << fields;
    EXPECT_EQ(fields.find("k2"), std::string::npos) << fields;
    tessera::driver::JITModule m(p, jit_options());
    std::vector<int32_t> in = {7, -7, 6, -6, 1, -1, 0, INT32_MIN, INT32_MAX};
    std::vector<int32_t> out(in.size(), 12345);
    tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
    int32_t d = 1000;
    void *args[] = {bin.get(), &d, bout.get()};
    m.run(args);
    for (size_t i = 0; i < in.size(); i++) EXPECT_EQ(out[i], in[i]) << i;
}

TEST(CodegenJIT, AllocationRoundTripAndAssertion) {
    tessera::driver::JITModule m(allocation_pipeline(), jit_options());
    std::vector<int32_t> in = {1, -2, 3, 40, 5};
    std::vector<int32_t> out(in.size(), 0);
    tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
    int32_t limit = 1000;
    void *args[] = {bin.get(), &limit, bout.get()};
    m.run(args);
    for (size_t i = 0; i < in.size(); i++) EXPECT_EQ(out[i], in[i] * 3 + 1);

    // in(3) * 3 + 1 == 121 is not below 100: the assertion fails at x = 3.
    limit = 100;
    try {
        m.run(args);
        FAIL() << "expected a RuntimeError";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("value 121 at x = 3 is not below the limit 100"), std::string::npos)
            << e.what();
    }
    std::string message;
    EXPECT_EQ(m.call(args, &message), TESSERA_ERROR_ASSERTION);
    EXPECT_EQ(message, "value 121 at x = 3 is not below the limit 100");
}

TEST(CodegenJIT, BufferArgumentsAreChecked) {
    tessera::driver::JITModule m(division_pipeline(), jit_options());
    std::vector<int32_t> in = {1, 2, 3}, out(3);
    std::vector<float> wrong(3);
    int32_t d = 2;
    auto message_of = [&](void **args) {
        std::string msg;
        EXPECT_NE(m.call(args, &msg), 0);
        return msg;
    };
    {
        tessera::driver::RuntimeBuffer bin = buffer_of(wrong), bout = buffer_of(out);
        void *args[] = {bin.get(), &d, bout.get()};
        EXPECT_EQ(message_of(args), "buffer \"in\": the element type is float32, expected int32");
    }
    {
        tessera::driver::RuntimeBuffer bin(in.data(), Int(32), {{0, 3, 1}, {0, 1, 3}}), bout = buffer_of(out);
        void *args[] = {bin.get(), &d, bout.get()};
        EXPECT_EQ(message_of(args), "buffer \"in\": the buffer has 2 dimensions, expected 1");
    }
    {
        tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
        void *args[] = {bin.get(), &d, nullptr};
        EXPECT_EQ(message_of(args), "buffer \"out\": the buffer argument is null");
        bout.get()->dim[0].extent = -1;
        void *args2[] = {bin.get(), &d, bout.get()};
        EXPECT_EQ(message_of(args2), "buffer \"out\": the extent of dimension 0 is negative (-1)");
    }
    {
        // In place: the output is the input.
        tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(in);
        void *args[] = {bin.get(), &d, bout.get()};
        std::string msg;
        EXPECT_EQ(m.call(args, &msg), TESSERA_ERROR_BUFFER_OVERLAP);
        EXPECT_NE(msg.find("overlaps input buffer \"in\""), std::string::npos) << msg;
    }
}

// --------------------------------------------------------------------------------------
// Every operator on every type, against src/ir/Scalar.h

const std::vector<Type> &numeric_types() {
    static const std::vector<Type> t = {Int(8),  Int(16),  Int(32),  Int(64),  UInt(8),
                                        UInt(16), UInt(32), UInt(64), Float(32), Float(64)};
    return t;
}

std::vector<ir::Scalar> grid_values(Type t) {
    std::vector<ir::Scalar> v;
    auto add = [&](ir::Scalar s) {
        s = ir::normalize(t, s);
        for (const ir::Scalar &o : v)
            if (ir::identical(t, o, s)) return;
        v.push_back(s);
    };
    if (t.is_bool()) {
        add(ir::make_uint(0));
        add(ir::make_uint(1));
    } else if (t.is_int()) {
        for (int64_t x : {0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 64, 100, -100, 1000, -1000})
            add(ir::make_int(x));
        add(ir::make_int(t.min_int()));
        add(ir::make_int(t.min_int() + 1));
        add(ir::make_int(t.max_int()));
        add(ir::make_int(t.max_int() - 1));
    } else if (t.is_uint()) {
        for (uint64_t x : {0, 1, 2, 3, 7, 31, 64, 100, 128, 255, 1000}) add(ir::make_uint(x));
        add(ir::make_uint(t.max_uint()));
        add(ir::make_uint(t.max_uint() - 1));
        add(ir::make_uint(t.max_uint() / 2));
        add(ir::make_uint(t.max_uint() / 2 + 1));
    } else {
        const double inf = std::numeric_limits<double>::infinity();
        for (double x : {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2.0, 3.0, -7.5, 7.5, 0.1, -3.7,
                         255.5, 300.5, 1e-30, -1e-30, 1e-40, 5e-324, 1e10, 1e300, -1e300,
                         std::numeric_limits<double>::max(), 3.4028234663852886e38, 16777217.0, 2147483648.0,
                         -2147483649.0, 4294967296.5, 9.3e18, -9.3e18, 1.8446744073709552e19, inf, -inf,
                         std::numeric_limits<double>::quiet_NaN()})
            add(ir::make_float(x));
    }
    return v;
}

// Shift amounts of type t: both directions, around every width.
std::vector<ir::Scalar> shift_amounts(Type t) {
    std::vector<ir::Scalar> v;
    auto add = [&](ir::Scalar s) {
        s = ir::normalize(t, s);
        for (const ir::Scalar &o : v)
            if (o.u == s.u) return;
        v.push_back(s);
    };
    for (int64_t x : {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, -1, -2, -7, -8, -9, -15, -16, -17, -31,
                      -32, -33, -63, -64, -65, -200}) {
        if (t.is_int() || x >= 0) add(t.is_int() ? ir::make_int(x) : ir::make_uint(uint64_t(x)));
    }
    if (t.is_int()) {
        add(ir::make_int(t.min_int()));
        add(ir::make_int(t.max_int()));
    } else {
        add(ir::make_uint(t.max_uint()));
    }
    return v;
}

// The bit pattern of a value of type t, zero-extended to 64 bits.
uint64_t bits_of(Type t, ir::Scalar v) {
    if (t.is_float()) {
        if (t.bits == 32) {
            const float f = float(v.f);
            uint32_t b;
            std::memcpy(&b, &f, 4);
            return b;
        }
        uint64_t b;
        std::memcpy(&b, &v.f, 8);
        return b;
    }
    if (t.is_int()) return t.bits == 64 ? uint64_t(v.i) : uint64_t(v.i) & ((uint64_t(1) << t.bits) - 1);
    return v.u;
}

// The IR of the same bit pattern, as a UInt(64).
Expr bits_expr(const Expr &v) {
    const Type t = v.type();
    if (t.is_float() || t.is_int()) {
        Expr u = Call::make_intrinsic(UInt(t.bits), Intrinsic::Reinterpret, {v});
        return t.bits == 64 ? u : Cast::make(UInt(64), u);
    }
    return t == UInt(64) ? v : Cast::make(UInt(64), v);
}

struct Grid {
    std::string name;
    Type type;
    std::vector<ir::Scalar> values;
};

struct Case {
    std::string what;
    Type result;
    std::vector<int> grids;  // operand grids (indices into OperatorSuite::grids)
    std::function<Expr(const std::vector<Expr> &)> build;
    std::function<ir::Scalar(const std::vector<ir::Scalar> &)> expect;
    int64_t base = 0, count = 0;
};

// Operand grids: the edge-case values of a type, or the shift amounts of a type.
struct GridSpec {
    Type type;
    bool shift_amounts = false;
};
GridSpec values(Type t) { return GridSpec{t, false}; }
GridSpec amounts(Type t) { return GridSpec{t, true}; }

// The operator cases, in four parts (each its own pipeline, so that the C compiler gets
// four moderate functions rather than one huge one): 0 arithmetic, comparisons, logic and
// select; 1 casts; 2 float math, abs and absd; 3 bitwise operators, bit counts, shifts
// and reinterpret. A part is one pipeline with one loop nest per case:
// out[base + flat(i, j, ...)] = bits(op(g_a[i], g_b[j], ...)).
struct OperatorSuite {
    static constexpr int kParts = 4;
    std::vector<Grid> grids;
    std::map<std::string, int> grid_index;
    std::vector<Case> cases;
    int64_t total = 0;
    ir::LoweredPipeline pipeline;
    int part;

    int grid(const GridSpec &spec) {
        const std::string name = std::string(spec.shift_amounts ? "s_" : "g_") + cg::type_suffix(spec.type);
        auto it = grid_index.find(name);
        if (it != grid_index.end()) return it->second;
        grids.push_back(Grid{name, spec.type, spec.shift_amounts ? shift_amounts(spec.type) : grid_values(spec.type)});
        return grid_index[name] = int(grids.size()) - 1;
    }

    void add(int category, std::string what, Type result, const std::vector<GridSpec> &specs,
             std::function<Expr(const std::vector<Expr> &)> build,
             std::function<ir::Scalar(const std::vector<ir::Scalar> &)> expect) {
        if (category != part) return;
        Case c{std::move(what), result, {}, std::move(build), std::move(expect)};
        c.count = 1;
        for (const GridSpec &g : specs) {
            c.grids.push_back(grid(g));
            c.count *= int64_t(grids[c.grids.back()].values.size());
        }
        c.base = total;
        total += c.count;
        cases.push_back(std::move(c));
    }

    explicit OperatorSuite(int part_) : part(part_) {
        using K = ExprKind;
        struct Bin {
            K kind;
            const char *name;
            Expr (*make)(Expr, Expr);
        };
        const std::vector<Bin> arith = {{K::Add, "+", [](Expr a, Expr b) { return Add::make(a, b); }},
                                        {K::Sub, "-", [](Expr a, Expr b) { return Sub::make(a, b); }},
                                        {K::Mul, "*", [](Expr a, Expr b) { return Mul::make(a, b); }},
                                        {K::Div, "/", Div::make}, {K::Mod, "%", Mod::make}, {K::Min, "min", Min::make},
                                        {K::Max, "max", Max::make}};
        const std::vector<Bin> compare = {{K::EQ, "==", EQ::make}, {K::NE, "!=", NE::make}, {K::LT, "<", LT::make},
                                          {K::LE, "<=", LE::make}, {K::GT, ">", GT::make}, {K::GE, ">=", GE::make}};
        std::vector<Type> all = numeric_types();
        all.push_back(Bool());
        for (Type t : all) {
            const std::string ts = t.to_string();
            std::vector<Bin> ops = compare;
            if (t.is_bool()) {
                ops.push_back({K::And, "&&", And::make});
                ops.push_back({K::Or, "||", Or::make});
                ops.push_back({K::Min, "min", Min::make});
                ops.push_back({K::Max, "max", Max::make});
            } else {
                ops.insert(ops.end(), arith.begin(), arith.end());
            }
            for (const Bin &b : ops) {
                const bool is_cmp = b.kind == K::EQ || b.kind == K::NE || b.kind == K::LT || b.kind == K::LE ||
                                    b.kind == K::GT || b.kind == K::GE;
                add(0, std::string(b.name) + " on " + ts, is_cmp ? Bool() : t, {values(t), values(t)},
                    [b](const std::vector<Expr> &x) { return b.make(x[0], x[1]); },
                    [b, t](const std::vector<ir::Scalar> &x) { return ir::binary(b.kind, t, x[0], x[1]); });
            }
            add(0, "select on " + ts, t, {values(t), values(t)},
                [](const std::vector<Expr> &x) { return Select::make(LT::make(x[0], x[1]), x[0], x[1]); },
                [t](const std::vector<ir::Scalar> &x) {
                    return ir::binary(K::LT, t, x[0], x[1]).u ? x[0] : x[1];
                });
            for (Type to : all) {
                if (to == t) continue;
                add(1, "cast " + ts + " to " + to.to_string(), to, {values(t)},
                    [to](const std::vector<Expr> &x) { return Cast::make(to, x[0]); },
                    [to, t](const std::vector<ir::Scalar> &x) { return ir::cast(to, t, x[0]); });
            }
        }
        add(0, "! on bool", Bool(), {values(Bool())}, [](const std::vector<Expr> &x) { return Not::make(x[0]); },
            [](const std::vector<ir::Scalar> &x) { return ir::make_uint(x[0].u ? 0 : 1); });

        // An intrinsic whose arguments are the operands picked by arg_of_operand.
        auto intrinsic_case = [&](int category, Intrinsic op, Type result, std::vector<GridSpec> specs,
                                  std::vector<int> arg_of_operand = {}) {
            if (arg_of_operand.empty())
                for (size_t k = 0; k < specs.size(); k++) arg_of_operand.push_back(int(k));
            std::vector<Type> at;
            for (int k : arg_of_operand) at.push_back(specs[k].type);
            std::string what = std::string(intrinsic_name(op)) + " on";
            for (Type a : at) what += " " + a.to_string();
            add(category, what, result, specs,
                [op, result, arg_of_operand](const std::vector<Expr> &x) {
                    std::vector<Expr> args;
                    for (int k : arg_of_operand) args.push_back(x[k]);
                    return Call::make_intrinsic(result, op, args);
                },
                [op, result, arg_of_operand, at](const std::vector<ir::Scalar> &x) {
                    std::vector<ir::Scalar> args;
                    for (int k : arg_of_operand) args.push_back(x[k]);
                    return ir::intrinsic(op, result, at.data(), args.data(), int(args.size()));
                });
        };
        for (int bits : {32, 64}) {
            const Type f = Float(bits);
            for (Intrinsic op : {Intrinsic::Sqrt, Intrinsic::Exp, Intrinsic::Log, Intrinsic::Sin, Intrinsic::Cos,
                                 Intrinsic::Tan, Intrinsic::Asin, Intrinsic::Acos, Intrinsic::Atan, Intrinsic::Sinh,
                                 Intrinsic::Cosh, Intrinsic::Tanh, Intrinsic::Asinh, Intrinsic::Acosh, Intrinsic::Atanh,
                                 Intrinsic::Floor, Intrinsic::Ceil, Intrinsic::Round, Intrinsic::Trunc})
                intrinsic_case(2, op, f, {values(f)});
            for (Intrinsic op : {Intrinsic::IsNan, Intrinsic::IsInf, Intrinsic::IsFinite})
                intrinsic_case(2, op, Bool(), {values(f)});
            intrinsic_case(2, Intrinsic::Pow, f, {values(f), values(f)});
            intrinsic_case(2, Intrinsic::Atan2, f, {values(f), values(f)});
            intrinsic_case(2, Intrinsic::Fma, f, {values(f), values(f)}, {0, 1, 0});
        }
        for (Type t : numeric_types()) {
            const Type r = t.is_int() ? UInt(t.bits) : t;
            intrinsic_case(2, Intrinsic::Abs, r, {values(t)});
            intrinsic_case(2, Intrinsic::Absd, r, {values(t), values(t)});
        }
        for (Type t : numeric_types()) {
            if (t.is_float()) continue;
            for (Intrinsic op : {Intrinsic::BitAnd, Intrinsic::BitOr, Intrinsic::BitXor})
                intrinsic_case(3, op, t, {values(t), values(t)});
            intrinsic_case(3, Intrinsic::BitNot, t, {values(t)});
            for (Intrinsic op : {Intrinsic::PopCount, Intrinsic::CountLeadingZeros, Intrinsic::CountTrailingZeros})
                intrinsic_case(3, op, t, {values(t)});
            for (Type s : numeric_types()) {
                if (s.is_float()) continue;
                intrinsic_case(3, Intrinsic::ShiftLeft, t, {values(t), amounts(s)});
                intrinsic_case(3, Intrinsic::ShiftRight, t, {values(t), amounts(s)});
            }
        }
        for (Intrinsic op : {Intrinsic::BitAnd, Intrinsic::BitOr, Intrinsic::BitXor})
            intrinsic_case(3, op, Bool(), {values(Bool()), values(Bool())});
        intrinsic_case(3, Intrinsic::BitNot, Bool(), {values(Bool())});
        const std::pair<Type, Type> reinterpret_pairs[] = {
            {Int(32), Float(32)}, {Float(32), Int(32)}, {UInt(32), Float(32)}, {Float(32), UInt(32)},
            {Int(64), Float(64)}, {Float(64), Int(64)}, {UInt(64), Float(64)}, {Float(64), UInt(64)},
            {Int(8), UInt(8)},    {UInt(8), Int(8)},    {Int(16), UInt(16)},  {UInt(16), Int(16)},
            {UInt(64), Int(64)},  {Int(32), UInt(32)}};
        for (const auto &[from, to] : reinterpret_pairs) intrinsic_case(3, Intrinsic::Reinterpret, to, {values(from)});

        // The pipeline.
        std::vector<ir::PipelineArgument> args;
        for (const Grid &g : grids) args.push_back(input(g.name, g.type));
        args.push_back(output("out", UInt(64)));
        std::vector<Stmt> nests;
        for (size_t k = 0; k < cases.size(); k++) {
            const Case &c = cases[k];
            std::vector<Expr> loads;
            std::vector<std::string> loop_vars;
            Expr flat;
            for (size_t j = 0; j < c.grids.size(); j++) {
                const Grid &g = grids[c.grids[j]];
                const std::string v = "c" + std::to_string(k) + ".i" + std::to_string(j);
                loop_vars.push_back(v);
                loads.push_back(Load::make(g.type, g.name, to64(var(v))));
                flat = j == 0 ? to64(var(v)) : Add::make(Mul::make(flat, i64(int64_t(g.values.size()))), to64(var(v)));
            }
            Stmt s = Store::make("out", bits_expr(c.build(loads)), Add::make(flat, i64(c.base)),
                                 prov("out", 0, {var(loop_vars[0])}));
            for (size_t j = c.grids.size(); j-- > 0;)
                s = For::make(loop_vars[j], i32(0), i32(int64_t(grids[c.grids[j]].values.size())), ForType::Serial, s);
            nests.push_back(ProducerConsumer::make(c.what, true, s));
        }
        pipeline = ::pipeline("operators_" + std::to_string(part), args, Block::make(nests));
    }

    // The input buffers' bytes.
    std::vector<std::vector<uint8_t>> input_data() const {
        std::vector<std::vector<uint8_t>> data;
        for (const Grid &g : grids) {
            std::vector<uint8_t> bytes(g.values.size() * g.type.bytes());
            for (size_t i = 0; i < g.values.size(); i++) ir::store_scalar(g.type, &bytes[i * g.type.bytes()], g.values[i]);
            data.push_back(std::move(bytes));
        }
        return data;
    }

    // Checks the output (bit patterns); returns the number of mismatches (each reported).
    int check(const std::vector<uint64_t> &out) const {
        int failures = 0;
        for (const Case &c : cases) {
            std::vector<size_t> idx(c.grids.size(), 0);
            for (int64_t n = 0; n < c.count; n++) {
                std::vector<ir::Scalar> x;
                int64_t rest = n;
                for (size_t j = c.grids.size(); j-- > 0;) {
                    const int64_t size = int64_t(grids[c.grids[j]].values.size());
                    idx[j] = size_t(rest % size);
                    rest /= size;
                }
                for (size_t j = 0; j < c.grids.size(); j++) x.push_back(grids[c.grids[j]].values[idx[j]]);
                const ir::Scalar want = c.expect(x);
                const uint64_t got = out[size_t(c.base + n)];
                bool ok = got == bits_of(c.result, want);
                if (!ok && c.result.is_float() && std::isnan(want.f)) {
                    // NaN payloads are unspecified: any NaN matches.
                    if (c.result.bits == 32) {
                        uint32_t b = uint32_t(got);
                        float f;
                        std::memcpy(&f, &b, 4);
                        ok = std::isnan(f);
                    } else {
                        double d;
                        std::memcpy(&d, &got, 8);
                        ok = std::isnan(d);
                    }
                }
                if (!ok && ++failures <= 40) {
                    std::ostringstream os;
                    os << c.what << " (";
                    for (size_t j = 0; j < x.size(); j++)
                        os << (j ? ", " : "") << std::hex << "0x" << bits_of(grids[c.grids[j]].type, x[j]);
                    os << "): got 0x" << std::hex << got << ", expected 0x" << bits_of(c.result, want);
                    ADD_FAILURE() << os.str();
                }
            }
        }
        return failures;
    }
};

const OperatorSuite &operator_suite(int part) {
    static const std::vector<OperatorSuite> parts = [] {
        std::vector<OperatorSuite> v;
        for (int p = 0; p < OperatorSuite::kParts; p++) v.emplace_back(p);
        return v;
    }();
    return parts[size_t(part)];
}

TEST(CodegenJIT, EveryOperatorOnEveryTypeMatchesTheScalarSemantics) {
    // Compile the parts in parallel.
    std::vector<std::future<tessera::driver::JITModule>> modules;
    for (int part = 0; part < OperatorSuite::kParts; part++)
        modules.push_back(std::async(std::launch::async, [part] {
            // The default flags, plus warnings as errors at -O3.
            tessera::driver::CCompilerOptions o = jit_options();
            o.flags += " -std=c99 -Wall -Wextra -Werror";
            return tessera::driver::JITModule(operator_suite(part).pipeline, o);
        }));
    for (int part = 0; part < OperatorSuite::kParts; part++) {
        const OperatorSuite &s = operator_suite(part);
        tessera::driver::JITModule m = modules[size_t(part)].get();
        std::vector<std::vector<uint8_t>> data = s.input_data();
        std::vector<tessera::driver::RuntimeBuffer> buffers;
        for (size_t i = 0; i < s.grids.size(); i++)
            buffers.emplace_back(data[i].data(), s.grids[i].type,
                                 std::vector<tessera_dim_t>{{0, int32_t(s.grids[i].values.size()), 1}});
        std::vector<uint64_t> out(size_t(s.total), 0xdeadbeefdeadbeefull);
        buffers.emplace_back(out.data(), UInt(64), std::vector<tessera_dim_t>{{0, int32_t(s.total), 1}});
        std::vector<void *> args;
        for (tessera::driver::RuntimeBuffer &b : buffers) args.push_back(b.get());
        m.run(args.data());
        EXPECT_EQ(s.check(out), 0) << "part " << part << ": " << s.cases.size() << " cases, " << s.total << " values";
    }
}

// --------------------------------------------------------------------------------------
// Names that are not C identifiers, shadowing, vectors, if/else, 64-bit loops

constexpr int kWeirdN = 3;  // groups of 4 lanes

// out$1 has 4 * kWeirdN + 2 elements: element 4i + l (l < 4) is, if b,
//   in.put[4i + l] < 0 ? in.put[4i + l] * x.y$z : float(4i + 11 + l) + float(int + linux)
// and x.y$z otherwise; element 4 * kWeirdN + k (k < 2) is float(k) (a 64-bit loop).
ir::LoweredPipeline weird_pipeline() {
    const Type f32 = Float(32), f32x4 = Float(32, 4);
    Expr t = var("t");
    Expr xyz = var("x_y_z");  // sanitizes like the Param "x.y$z"
    Expr p_xyz = param_var("x.y$z", f32), p_int = param_var("int", Int(16)), p_linux = param_var("linux", UInt(8)),
         p_b = param_var("b", Bool());
    Expr index = Ramp::make(to64(xyz), i64(1), 4);
    Expr v = Variable::make(f32x4, "v");
    Expr w = Cast::make(f32x4, Ramp::make(Add::make(xyz, t), i32(1), 4));
    Expr offset = Cast::make(f32, Add::make(Cast::make(Int(32), p_int), Cast::make(Int(32), p_linux)));
    Expr chosen = Select::make(LT::make(v, Broadcast::make(FloatImm::make(f32, 0.0), 4)),
                               Mul::make(v, Broadcast::make(p_xyz, 4)), Add::make(w, Broadcast::make(offset, 4)));
    Expr value = Let::make("v", Load::make(f32x4, "in.put", index), chosen);
    Stmt body = Block::make({
        IfThenElse::make(p_b, Store::make("out$1", value, index, prov("out$1", 0, {xyz})),
                         Store::make("out$1", Broadcast::make(p_xyz, 4), index, prov("out$1", 0, {xyz}))),
        // Sibling and nested bindings of one name.
        LetStmt::make("u", i32(1), Evaluate::make(var("u"))),
        LetStmt::make("u", i32(2), LetStmt::make("u", Add::make(var("u"), i32(1)), Evaluate::make(var("u")))),
        Evaluate::make(Let::make("t", Mul::make(t, i32(2)), Add::make(t, i32(1)))),
    });
    Stmt loop = For::make("for", i32(0), i32(kWeirdN), ForType::Parallel,
                          LetStmt::make("x_y_z", Mul::make(var("for"), i32(4)), body));
    Expr k = var("k64", Int(64));
    Stmt loop64 = For::make("k64", Sub::make(to64(t), i64(11)), i64(2), ForType::Unrolled,
                            Store::make("out$1", Cast::make(f32, k), Add::make(k, i64(4 * kWeirdN)), nullptr));
    Stmt all = LetStmt::make("t", i32(10), LetStmt::make("t", Add::make(t, i32(1)), Block::make(loop, loop64)));
    return pipeline("weird$pipeline",
                    {input("in.put", f32), param("b", Bool()), param("int", Int(16)), param("linux", UInt(8)),
                     param("x.y$z", f32), output("out$1", f32)},
                    all);
}

std::vector<float> weird_expected(const std::vector<float> &in, bool b, int16_t i, uint8_t lx, float p) {
    std::vector<float> out(4 * kWeirdN + 2);
    for (int e = 0; e < 4 * kWeirdN; e++) {
        if (!b) out[e] = p;
        else out[e] = in[e] < 0 ? in[e] * p : float(e + 11) + float(int32_t(i) + int32_t(lx));
    }
    out[4 * kWeirdN] = 0.0f;
    out[4 * kWeirdN + 1] = 1.0f;
    return out;
}

TEST(CodegenJIT, NamesShadowingVectorsAndBranches) {
    const ir::LoweredPipeline p = weird_pipeline();
    tessera::driver::JITModule m(p, jit_options());
    EXPECT_EQ(m.function_name(), "weird_pipeline");
    const std::string &c = m.c_source();
    EXPECT_NE(c.find("int weird_pipeline(const tessera_buffer_t *in_put_buffer, uint8_t b, int16_t int_, "
                     "uint8_t linux_, float x_y_z, tessera_buffer_t *out_1_buffer)"),
              std::string::npos)
        << c;
    // The parallel loop's iteration is a function that the JIT runtime runs on its threads,
    // compiled apart from the pipeline's function.
    EXPECT_NE(c.find("tessera_jit_parallel_for(weird_pipeline_par, "), std::string::npos) << c;
    EXPECT_NE(c.find("#if !defined(TESSERA_PART) || TESSERA_PART == 2"), std::string::npos) << c;
    std::vector<float> in = {1, -2, 3, -4, -0.5f, 6, 7, -8, 9, 10, -11, 12};
    for (bool b : {true, false}) {
        std::vector<float> out(4 * kWeirdN + 2, -1.0f);
        tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
        uint8_t bb = b;
        int16_t i = -300;
        uint8_t lx = 200;
        float px = 1.5f;
        void *args[] = {bin.get(), &bb, &i, &lx, &px, bout.get()};
        m.run(args);
        EXPECT_EQ(out, weird_expected(in, b, i, lx, px));
    }
}

// Ramps with a variable stride, a float ramp, and a wrapping uint8 ramp; lane i of a
// ramp is base + i * stride in its type (docs of ir::Ramp), and a vector store writes lanes
// in order.
TEST(CodegenJIT, RampsOfEveryKind) {
    const Type f32x4 = Float(32, 4);
    Expr base = param_var("base", Int(32)), step = param_var("step", Int(32));
    Expr fbase = param_var("fbase", Float(32)), fstep = param_var("fstep", Float(32));
    auto at = [](int group) { return Ramp::make(i64(4 * group), i64(1), 4); };
    Stmt body = Block::make({
        Store::make("out", Cast::make(f32x4, Ramp::make(base, step, 4)), at(0), nullptr),
        Store::make("out", Ramp::make(fbase, fstep, 4), at(1), nullptr),
        Store::make("out", Cast::make(f32x4, Ramp::make(UIntImm::make(UInt(8), 200), UIntImm::make(UInt(8), 30), 4)),
                    at(2), nullptr),
        Store::make("out", Cast::make(f32x4, Ramp::make(base, i32(-7), 4)), at(3), nullptr),
    });
    tessera::driver::JITModule m(pipeline("ramps",
                             {param("base", Int(32)), param("fbase", Float(32)), param("fstep", Float(32)),
                              param("step", Int(32)), output("out", Float(32))},
                             body),
                    jit_options());
    std::vector<float> out(16);
    tessera::driver::RuntimeBuffer bout = buffer_of(out);
    int32_t b = INT32_MAX - 1, st = 1;
    float fb = 0.1f, fs = 1e-8f;
    void *args[] = {&b, &fb, &fs, &st, bout.get()};
    m.run(args);
    std::vector<float> want;
    for (int i = 0; i < 4; i++) want.push_back(float(int32_t(uint32_t(b) + uint32_t(i * st))));
    for (int i = 0; i < 4; i++) want.push_back(fb + float(i) * fs);
    for (int i = 0; i < 4; i++) want.push_back(float(uint8_t(200 + 30 * i)));
    for (int i = 0; i < 4; i++) want.push_back(float(int32_t(uint32_t(b) - uint32_t(7 * i))));
    EXPECT_EQ(out, want);
}

// --------------------------------------------------------------------------------------
// The generated C under -Wall -Wextra -Werror and the sanitizers

std::string c_array(const std::string &name, const std::vector<uint64_t> &v) {
    std::ostringstream os;
    os << "static const uint64_t " << name << "[" << std::max<size_t>(v.size(), 1) << "] = {";
    for (size_t i = 0; i < v.size(); i++)
        os << (i ? ", " : "") << (i % 8 == 0 ? "\n    " : "") << "0x" << std::hex << v[i] << "ull";
    os << (v.empty() ? "0" : "") << "};\n";
    return os.str();
}

// A C program that runs every operator part and prints its output as hex, then runs the
// other sample pipelines on their success and error paths.
std::string sanitizer_main() {
    std::ostringstream m;
    for (int part = 0; part < OperatorSuite::kParts; part++) m << "#include \"operators_" << part << ".h\"\n";
    m << R"(#include "divide.h"
#include "scale_plus_one.h"
#include "weird_pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_message[1024];

static void capture(const char *message) {
    strncpy(last_message, message, sizeof(last_message) - 1);
    last_message[sizeof(last_message) - 1] = 0;
}

static void put(void *p, int64_t i, int size, uint64_t v) {
    char *c = (char *)p + i * size;
    if (size == 1) { uint8_t x = (uint8_t)v; memcpy(c, &x, 1); }
    if (size == 2) { uint16_t x = (uint16_t)v; memcpy(c, &x, 2); }
    if (size == 4) { uint32_t x = (uint32_t)v; memcpy(c, &x, 4); }
    if (size == 8) { memcpy(c, &v, 8); }
}

static void *make_data(const uint64_t *bits, int32_t n, int size) {
    void *p = malloc((size_t)n * (size_t)size);
    int32_t i;
    for (i = 0; i < n; i++) put(p, i, size, bits[i]);
    return p;
}

)";
    for (int part = 0; part < OperatorSuite::kParts; part++) {
        const OperatorSuite &s = operator_suite(part);
        const std::vector<std::vector<uint8_t>> data = s.input_data();
        for (size_t g = 0; g < s.grids.size(); g++) {
            std::vector<uint64_t> bits;
            for (const ir::Scalar &x : s.grids[g].values) bits.push_back(bits_of(s.grids[g].type, x));
            m << c_array("part" + std::to_string(part) + "_grid" + std::to_string(g), bits);
        }
        m << "static int run_part" << part << "(void) {\n";
        m << "    tessera_dim_t dims[" << s.grids.size() + 1 << "];\n";
        m << "    tessera_buffer_t bufs[" << s.grids.size() + 1 << "];\n";
        m << "    uint64_t *out = (uint64_t *)malloc(" << s.total << " * sizeof(uint64_t));\n";
        m << "    int rc, i;\n";
        for (size_t g = 0; g < s.grids.size(); g++) {
            const Grid &gr = s.grids[g];
            m << "    dims[" << g << "].min = 0; dims[" << g << "].extent = " << gr.values.size() << "; dims[" << g
              << "].stride = 1;\n";
            m << "    bufs[" << g << "].host = make_data(part" << part << "_grid" << g << ", " << gr.values.size()
              << ", " << gr.type.bytes() << ");\n";
            m << "    bufs[" << g << "].type_code = " << int(gr.type.code) << "; bufs[" << g
              << "].type_bits = " << int(gr.type.bits) << "; bufs[" << g << "].dimensions = 1; bufs[" << g
              << "].dim = &dims[" << g << "];\n";
        }
        const size_t o = s.grids.size();
        m << "    dims[" << o << "].min = 0; dims[" << o << "].extent = " << s.total << "; dims[" << o
          << "].stride = 1;\n";
        m << "    bufs[" << o << "].host = out; bufs[" << o << "].type_code = TESSERA_TYPE_UINT; bufs[" << o
          << "].type_bits = 64; bufs[" << o << "].dimensions = 1; bufs[" << o << "].dim = &dims[" << o << "];\n";
        m << "    rc = operators_" << part << "(";
        for (size_t g = 0; g <= o; g++) m << (g ? ", " : "") << "&bufs[" << g << "]";
        m << ");\n";
        m << "    if (rc == 0) for (i = 0; i < " << s.total
          << "; i++) printf(\"%016llx\\n\", (unsigned long long)out[i]);\n";
        m << "    for (i = 0; i < " << o << "; i++) free(bufs[i].host);\n";
        m << "    free(out);\n    return rc;\n}\n\n";
    }
    m << R"(int main(void) {
    int32_t in[5] = {1, -2, 3, 40, 5}, out[5];
    tessera_dim_t din = {0, 5, 1}, dout = {0, 5, 1};
    tessera_buffer_t bin = {0, TESSERA_TYPE_INT, 32, 1, 0}, bout = {0, TESSERA_TYPE_INT, 32, 1, 0};
    float win[12] = {1, -2, 3, -4, -0.5f, 6, 7, -8, 9, 10, -11, 12}, wout[14];
    tessera_dim_t dwin = {0, 12, 1}, dwout = {0, 14, 1};
    tessera_buffer_t bwin = {0, TESSERA_TYPE_FLOAT, 32, 1, 0}, bwout = {0, TESSERA_TYPE_FLOAT, 32, 1, 0};
    int rc, i;
    tessera_error_handler = capture;
)";
    for (int part = 0; part < OperatorSuite::kParts; part++)
        m << "    if ((rc = run_part" << part << "()) != 0) { printf(\"part " << part
          << " failed: %d %s\\n\", rc, last_message); return 1; }\n";
    m << R"(    bin.host = in; bin.dim = &din; bout.host = out; bout.dim = &dout;
    rc = scale_plus_one(&bin, 1000, &bout);
    printf("scale_plus_one %d:", rc);
    for (i = 0; i < 5; i++) printf(" %d", out[i]);
    printf("\n");
    rc = scale_plus_one(&bin, 100, &bout);
    printf("scale_plus_one %d: %s\n", rc, last_message);
    dout.min = 3;
    rc = divide(&bin, -2, &bout);
    printf("divide %d: %s\n", rc, last_message);
    dout.min = 0;
    rc = divide(&bin, -2, &bout);
    printf("divide %d:", rc);
    for (i = 0; i < 5; i++) printf(" %d", out[i]);
    printf("\n");
    bwin.host = win; bwin.dim = &dwin; bwout.host = wout; bwout.dim = &dwout;
    rc = weird_pipeline(&bwin, 1, -300, 200, 1.5f, &bwout);
    printf("weird_pipeline %d:", rc);
    for (i = 0; i < 14; i++) printf(" %g", (double)wout[i]);
    printf("\n");
    return 0;
}
)";
    return m.str();
}

struct CompiledProgram {
    std::string exe;
    std::string log;
    bool ok = false;
};

// Writes the sample pipelines' .c and .h files and the main into dir, compiles each .c
// (in parallel) with `cc flags -c` and links them (with `link`; otherwise the flags
// should contain -fsyntax-only).
CompiledProgram build_sample_program(const std::string &dir, const std::string &cc, const std::string &flags,
                                     bool link = true) {
    fs::create_directories(dir);
    std::vector<ir::LoweredPipeline> ps;
    for (int part = 0; part < OperatorSuite::kParts; part++) ps.push_back(operator_suite(part).pipeline);
    ps.push_back(division_pipeline());
    ps.push_back(allocation_pipeline());
    ps.push_back(weird_pipeline());
    std::vector<std::string> sources;
    for (const ir::LoweredPipeline &p : ps) {
        const std::string fn = cg::c_function_name(p);
        tessera::driver::compile_to_c(p, dir + "/" + fn + ".c");
        tessera::driver::compile_to_header(p, dir + "/" + fn + ".h");
        sources.push_back(fn);
    }
    write_text(dir + "/main.c", sanitizer_main());
    sources.push_back("main");
    std::string script = "cd '" + dir + "' && fail=0 && pids=''";
    for (const std::string &s : sources)
        script += " && { " + cc + " " + flags + " -c " + s + ".c" + (link ? " -o " + s + ".o" : "") + " > " + s +
                  ".log 2>&1 & pids=\"$pids $!\"; }";
    script += " && for p in $pids; do wait $p || fail=1; done; cat *.log; test $fail = 0";
    if (link) script += " && " + cc + " " + flags + " *.o -o program -lm";
    CompiledProgram r;
    int status = 0;
    r.log = shell_output(script, &status);
    r.ok = status == 0;
    r.exe = dir + "/program";
    return r;
}

// Checks the output of the sample program.
void check_sample_output(const std::string &output) {
    std::istringstream in(output);
    std::string line;
    for (int part = 0; part < OperatorSuite::kParts; part++) {
        const OperatorSuite &s = operator_suite(part);
        std::vector<uint64_t> out;
        for (int64_t i = 0; i < s.total && std::getline(in, line); i++)
            out.push_back(std::strtoull(line.c_str(), nullptr, 16));
        ASSERT_EQ(int64_t(out.size()), s.total) << "part " << part << ": " << line;
        EXPECT_EQ(s.check(out), 0) << "part " << part;
    }
    std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(rest,
              "scale_plus_one 0: 4 -5 10 121 16\n"
              "scale_plus_one 1: value 121 at x = 3 is not below the limit 100\n"
              "divide 1: input \"in\" does not cover [3, 8)\n"
              "divide 0: 0 1 -1 -20 -2\n"
              "weird_pipeline 0: -89 -3 -87 -6 -0.75 -84 -83 -12 -81 -80 -16.5 -78 0 1\n");
}

TEST(CodegenC, WarningFreeUnderWallWextraWerror) {
    // Every sample as strict C99, with each compiler available. (The JIT test of the
    // operators compiles them with -O3 -Wall -Wextra -Werror too, for the warnings that
    // depend on optimization.)
    for (const std::string cc : {"gcc", "clang"}) {
        if (!have_command(cc)) continue;
        const std::string dir = scratch_dir() + "/warnings-" + cc;
        CompiledProgram p = build_sample_program(dir, cc, "-std=c99 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only",
                                                 /*link=*/false);
        EXPECT_TRUE(p.ok) << cc << ":\n" << p.log.substr(0, 20000);
    }
    // The small samples optimized.
    const std::string dir = scratch_dir() + "/warnings-optimized";
    fs::create_directories(dir);
    for (const ir::LoweredPipeline &p : {division_pipeline(), allocation_pipeline(), weird_pipeline()}) {
        const std::string file = dir + "/" + cg::c_function_name(p) + ".c";
        tessera::driver::compile_to_c(p, file);
        int status = 0;
        const std::string log = shell_output(tessera::driver::default_c_compiler() + " -std=c99 -O2 -Wall -Wextra -Werror -c " + file +
                                                 " -o " + file + ".o",
                                             &status);
        EXPECT_EQ(status, 0) << log;
    }
}

// Heap allocations of compiled pipelines start on a cache line (rows of a tile then do not
// straddle lines); the block is freed through the pointer malloc returned (under
// AddressSanitizer, so that a wrong free is an error).
TEST(CodegenC, HeapAllocationsAreCacheLineAligned) {
    cg::HelperSet helpers;
    helpers.use("tessera_malloc");
    helpers.use("tessera_free");
    const std::string dir = scratch_dir() + "/aligned-malloc";
    fs::create_directories(dir);
    std::ofstream(dir + "/main.c") << "#include <stdio.h>\n#include <string.h>\n"
                                   << cg::c_prelude_text() << helpers.definitions() << R"C(
int main(void) {
    uint64_t bytes;
    for (bytes = 1; bytes <= 300; bytes++) {
        unsigned char *p = (unsigned char *)tessera_malloc(bytes);
        if (p == NULL || ((uintptr_t)p & 63) != 0) { printf("misaligned %p for %d bytes\n", (void *)p, (int)bytes); return 1; }
        memset(p, 0xab, (size_t)bytes);
        tessera_free(p);
    }
    tessera_free(NULL);
    printf("ok\n");
    return 0;
}
)C";
    int status = 0;
    const std::string log = shell_output(tessera::driver::default_c_compiler() + " -std=c99 -Wall -Wextra -Werror -O1 -g " +
                                             "-fsanitize=address -fno-sanitize-recover=all " + dir + "/main.c -o " + dir +
                                             "/main && ASAN_OPTIONS=detect_leaks=0 " + dir + "/main",
                                         &status);
    EXPECT_EQ(status, 0) << log;
    EXPECT_NE(log.find("ok"), std::string::npos) << log;
}

TEST(CodegenC, CleanUnderUndefinedBehaviourAndAddressSanitizers) {
    const std::string cc = tessera::driver::default_c_compiler();
    const std::string dir = scratch_dir() + "/sanitize";
    CompiledProgram p = build_sample_program(
        dir, cc, "-std=c99 -Wall -Wextra -Werror -O0 -g -fsanitize=undefined,address -fno-sanitize-recover=all");
    ASSERT_TRUE(p.ok) << p.log.substr(0, 20000);
    int status = 0;
    std::string out = shell_output("UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 " + p.exe, &status);
    if (out.find("LeakSanitizer has encountered a fatal error") != std::string::npos) {
        // LeakSanitizer cannot run here (e.g. under ptrace); keep the other checks.
        out = shell_output("ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 " + p.exe,
                           &status);
    }
    ASSERT_EQ(status, 0) << out.substr(out.size() > 20000 ? out.size() - 20000 : 0);
    EXPECT_EQ(out.find("runtime error"), std::string::npos);
    EXPECT_EQ(out.find("Sanitizer"), std::string::npos);
    check_sample_output(out);
}

// --------------------------------------------------------------------------------------
// The JIT's disk cache and compile errors

TEST(CodegenJIT, DiskCacheHitCompilesNothing) {
    tessera::driver::CCompilerOptions o = jit_options();
    o.cache_dir = scratch_dir() + "/cache-test";
    const ir::LoweredPipeline p = division_pipeline();
    std::string path;
    {
        const tessera::driver::JITCacheStats s0 = tessera::driver::jit_cache_stats();
        tessera::driver::JITModule a(p, o);
        const tessera::driver::JITCacheStats s1 = tessera::driver::jit_cache_stats();
        EXPECT_FALSE(a.cache_hit());
        EXPECT_EQ(s1.misses, s0.misses + 1);
        EXPECT_EQ(s1.hits, s0.hits);
        tessera::driver::JITModule b(p, o);
        const tessera::driver::JITCacheStats s2 = tessera::driver::jit_cache_stats();
        EXPECT_TRUE(b.cache_hit());
        EXPECT_EQ(s2.misses, s1.misses);
        EXPECT_EQ(s2.hits, s1.hits + 1);
        path = b.library_path();
        EXPECT_EQ(a.library_path(), path);
        EXPECT_EQ(fs::path(path).parent_path(), fs::path(o.cache_dir));
        EXPECT_EQ(fs::path(path).filename().string().rfind("divide-", 0), 0u) << path;

        std::vector<int32_t> in = {-7, 7}, out(2);
        tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
        int32_t d = 2;
        void *args[] = {bin.get(), &d, bout.get()};
        b.run(args);
        EXPECT_EQ(out, (std::vector<int32_t>{-4, 3}));

        // Other flags are another entry.
        tessera::driver::CCompilerOptions o2 = o;
        o2.flags += " -DTESSERA_CACHE_TEST_VARIANT=1";
        tessera::driver::JITModule c(p, o2);
        EXPECT_FALSE(c.cache_hit());
        EXPECT_NE(c.library_path(), path);
    }
    // With every module unloaded, a damaged entry is rebuilt (a miss).
    write_text(path + ".damaged", "not a shared object");
    fs::rename(path + ".damaged", path);
    const tessera::driver::JITCacheStats s3 = tessera::driver::jit_cache_stats();
    tessera::driver::JITModule d(p, o);
    EXPECT_FALSE(d.cache_hit());
    EXPECT_EQ(tessera::driver::jit_cache_stats().misses, s3.misses + 1);
    std::vector<int32_t> in = {-7}, out(1);
    tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
    int32_t divisor = -2;
    void *args[] = {bin.get(), &divisor, bout.get()};
    d.run(args);
    EXPECT_EQ(out[0], 4);
}

// Restores an environment variable when it goes out of scope.
struct ScopedEnv {
    std::string name;
    bool had;
    std::string old;
    ScopedEnv(const char *n, const char *value) : name(n), had(std::getenv(n) != nullptr) {
        if (had) old = std::getenv(n);
        if (value) ::setenv(n, value, 1);
        else ::unsetenv(n);
    }
    ~ScopedEnv() {
        if (had) ::setenv(name.c_str(), old.c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

TEST(CodegenJIT, DefaultCompilerAndCacheDirectoryFollowTheEnvironment) {
    {
        ScopedEnv xdg("XDG_CACHE_HOME", "/somewhere/cache");
        EXPECT_EQ(tessera::driver::default_cache_dir(), "/somewhere/cache/tessera");
    }
    {
        // A relative XDG_CACHE_HOME is ignored, as the XDG specification says.
        ScopedEnv xdg("XDG_CACHE_HOME", "relative");
        ScopedEnv home("HOME", "/home/someone");
        EXPECT_EQ(tessera::driver::default_cache_dir(), "/home/someone/.cache/tessera");
    }
    {
        ScopedEnv cc("CC", "my-cc --flag");
        EXPECT_EQ(tessera::driver::default_c_compiler(), "my-cc --flag");
        EXPECT_EQ(tessera::driver::CCompilerOptions().cc, "my-cc --flag");
    }
    {
        ScopedEnv cc("CC", nullptr);
        EXPECT_EQ(tessera::driver::default_c_compiler(), "cc");
    }
    EXPECT_EQ(tessera::driver::CCompilerOptions().flags, "-O3 -march=native -ffp-contract=off -fno-fast-math -fopenmp -fPIC");
    EXPECT_EQ(tessera::driver::fnv1a_128_hex(""), "6c62272e07bb014262b821756295c58d");
    EXPECT_EQ(tessera::driver::fnv1a_128_hex("a"), "d228cb696f1a8caf78912b704e4a8964");
}

TEST(CodegenJIT, ConcurrentCompilationsOfOnePipelineShareTheCache) {
    tessera::driver::CCompilerOptions o = jit_options();
    o.cache_dir = scratch_dir() + "/cache-concurrent";
    const ir::LoweredPipeline p = allocation_pipeline();
    std::vector<std::future<std::string>> results;
    for (int i = 0; i < 3; i++)
        results.push_back(std::async(std::launch::async, [&] { return tessera::driver::JITModule(p, o).library_path(); }));
    std::set<std::string> paths;
    for (auto &r : results) paths.insert(r.get());
    EXPECT_EQ(paths.size(), 1u);
    // No temporary files are left behind.
    for (const auto &entry : fs::directory_iterator(o.cache_dir))
        EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
}

// The compiler commands run without a shell when they are plain words; flags that need
// the shell's quoting, and a compiler command that starts with an environment assignment,
// still mean what the shell makes of them.
TEST(CodegenJIT, CompilerCommandsWithShellSyntaxGoThroughTheShell) {
    for (int variant = 0; variant < 2; variant++) {
        tessera::driver::CCompilerOptions o = jit_options();
        o.cache_dir = scratch_dir() + "/cache-shell-words";
        fs::remove_all(o.cache_dir);  // compiled now, not found in the cache
        if (variant == 0) o.flags += " -DTESSERA_TEST_WORDS=\"two words\"";  // one argument, as sh -c reads it
        else o.cc = "LC_ALL=C " + o.cc;
        const ir::LoweredPipeline p = weird_pipeline();  // two translation units, then a link
        tessera::driver::JITModule m(p, o);
        std::vector<float> in = {1, -2, 3, -4, -0.5f, 6, 7, -8, 9, 10, -11, 12};
        std::vector<float> out(4 * kWeirdN + 2, -1.0f);
        tessera::driver::RuntimeBuffer bin = buffer_of(in), bout = buffer_of(out);
        uint8_t b = 1;
        int16_t i = -300;
        uint8_t lx = 200;
        float px = 1.5f;
        void *args[] = {bin.get(), &b, &i, &lx, &px, bout.get()};
        m.run(args);
        EXPECT_EQ(out, weird_expected(in, true, i, lx, px)) << o.cc << " " << o.flags;
    }
}

TEST(CodegenJIT, CCompileErrorIsAnInternalErrorNamingTheLogFile) {
    tessera::driver::CCompilerOptions o = jit_options();
    o.flags += " -include /nonexistent/tessera_missing_header.h";
    try {
        tessera::driver::JITModule m(division_pipeline(), o);
        FAIL() << "expected an InternalError";
    } catch (const InternalError &e) {
        const std::string msg = e.what();
        const size_t at = msg.find(o.cache_dir);
        ASSERT_NE(at, std::string::npos) << msg;
        const size_t end = msg.find(".log", at);
        ASSERT_NE(end, std::string::npos) << msg;
        const std::string log = msg.substr(at, end + 4 - at);
        ASSERT_TRUE(fs::exists(log)) << msg;
        EXPECT_NE(read_text(log).find("tessera_missing_header.h"), std::string::npos) << read_text(log);
        EXPECT_NE(msg.find("divide"), std::string::npos) << msg;
    }
}

TEST(CodegenJIT, RunWithInterpreterArgumentValues) {
    // The argument form the IR interpreter takes: Buffers and scalars of any type
    // (converted to the Param's type).
    tessera::driver::JITModule m(division_pipeline(), jit_options());
    auto in = std::make_shared<BufferData>();
    in->type = Int(32);
    in->dims = {BufferDim{0, 3, 1}};
    std::vector<int32_t> in_data = {9, -9, 4};
    in->host = reinterpret_cast<uint8_t *>(in_data.data());
    auto out = std::make_shared<BufferData>(*in);
    std::vector<int32_t> out_data(3);
    out->host = reinterpret_cast<uint8_t *>(out_data.data());
    std::vector<sem::ArgValue> args(3);
    args[0].buffer = in;
    args[1].type = Int(64);
    args[1].scalar = ir::make_int(-4);
    args[2].buffer = out;
    m.run(args);
    EXPECT_EQ(out_data, (std::vector<int32_t>{-2, 3, -1}));
    args[2].buffer = nullptr;
    EXPECT_THROW(m.run(args), RuntimeError);
}

// --------------------------------------------------------------------------------------
// Ahead of time: .c, .h, .o and .a files in a C (and C++) program

TEST(CodegenAOT, ObjectStaticLibraryAndHeadersLinkIntoAProgram) {
    const std::string dir = scratch_dir() + "/aot";
    fs::create_directories(dir);
    tessera::driver::CCompilerOptions o = jit_options();
    o.flags = "-O2 -ffp-contract=off -fno-fast-math";
    tessera::driver::compile_to_header(allocation_pipeline(), dir + "/scale_plus_one.h");
    tessera::driver::compile_to_static_library(allocation_pipeline(), dir + "/libscale.a", o);
    tessera::driver::compile_to_header(division_pipeline(), dir + "/divide.h");
    tessera::driver::compile_to_object(division_pipeline(), dir + "/divide.o", o);
    ASSERT_TRUE(fs::exists(dir + "/libscale.a"));
    ASSERT_TRUE(fs::exists(dir + "/divide.o"));
    // The program replaces the weak default handler with its own definition.
    write_text(dir + "/main.c", R"(#include "divide.h"
#include "scale_plus_one.h"
#include <stdio.h>

static void my_handler(const char *message) { printf("handler: %s\n", message); }
tessera_error_handler_t tessera_error_handler = my_handler;

int main(void) {
    int32_t in[3] = {7, -7, 40}, out[3];
    tessera_dim_t din = {0, 3, 1}, dout = {0, 3, 1};
    tessera_buffer_t bin = {in, TESSERA_TYPE_INT, 32, 1, &din}, bout = {out, TESSERA_TYPE_INT, 32, 1, &dout};
    int rc = divide(&bin, 2, &bout);
    printf("divide %d: %d %d %d\n", rc, out[0], out[1], out[2]);
    rc = scale_plus_one(&bin, 100, &bout);
    printf("scale_plus_one %d\n", rc);
    return 0;
}
)");
    int status = 0;
    const std::string cc = tessera::driver::default_c_compiler();
    std::string log = shell_output("cd '" + dir + "' && " + cc +
                                       " -std=c99 -Wall -Wextra -Werror main.c divide.o -L. -lscale -lm -o program",
                                   &status);
    ASSERT_EQ(status, 0) << log;
    const std::string out = shell_output("'" + dir + "/program'", &status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(out, "divide 0: 3 -4 20\nhandler: value 121 at x = 2 is not below the limit 100\nscale_plus_one 1\n");

    // The headers are valid C++ too, together.
    if (have_command("c++")) {
        write_text(dir + "/main.cpp", "#include \"divide.h\"\n#include \"scale_plus_one.h\"\n"
                                      "int main() { return divide_argv(nullptr) + scale_plus_one_argv(nullptr); }\n");
        log = shell_output("cd '" + dir + "' && c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only main.cpp", &status);
        EXPECT_EQ(status, 0) << log;
    }
}

TEST(CodegenAOT, UnwritablePathAndUnusableFunctionNameAreCompileErrors) {
    EXPECT_THROW(tessera::driver::compile_to_c(division_pipeline(), "/nonexistent/dir/divide.c"), CompileError);
    cg::CodeGenOptions named;
    named.function_name = "my_divide";
    EXPECT_NE(cg::emit_c(division_pipeline(), named).find("int my_divide_argv(void **args)"), std::string::npos);
    for (const char *bad : {"main", "int", "two words", "sinf", "3d"}) {
        named.function_name = bad;
        EXPECT_THROW(cg::emit_c(division_pipeline(), named), CompileError) << bad;
    }
}

}  // namespace
