// The IR interpreter and the dynamic prophecy check, on hand-lowered pipelines that follow
// the contract of src/ir/LoweredPipeline.h. Expected values come from plain C++ loops.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tessera/tessera.h>

#include "ir/IR.h"
#include "ir/IRMutator.h"
#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"
#include "semantics/Prophecy.h"
#include "support/hand_lowered.h"

using namespace tessera;
using ir::Stmt;
using semantics::ArgValue;
using semantics::RunOptions;
using semantics::RunStats;
using testing::HasSubstr;

namespace {

// --- IR construction helpers ------------------------------------------------------------

Expr i32(int64_t v) { return ir::IntImm::make(Int(32), v); }
Expr i64(int64_t v) { return ir::IntImm::make(Int(64), v); }
Expr v32(const std::string &name) { return ir::Variable::make(Int(32), name); }
Expr v64(const std::string &name) { return ir::Variable::make(Int(64), name); }
Expr wide(Expr e) { return ir::Cast::make(Int(64), std::move(e)); }
Expr add(Expr a, Expr b) { return ir::Add::make(std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return ir::Sub::make(std::move(a), std::move(b)); }
Expr mul(Expr a, Expr b) { return ir::Mul::make(std::move(a), std::move(b)); }
Expr str(const std::string &s) { return ir::StringImm::make(s); }

Expr bmin(const std::string &b, int i) { return v32(b + ".min." + std::to_string(i)); }
Expr bextent(const std::string &b, int i) { return v32(b + ".extent." + std::to_string(i)); }
Expr bstride(const std::string &b, int i) { return v64(b + ".stride." + std::to_string(i)); }

/** The element offset of point `c` in buffer argument `b`: sum (c_i - b.min.i) * b.stride.i. */
Expr offset(const std::string &b, const std::vector<Expr> &c) {
    Expr off;
    for (size_t i = 0; i < c.size(); i++) {
        Expr term = mul(wide(sub(c[i], bmin(b, int(i)))), bstride(b, int(i)));
        off = off.defined() ? add(off, term) : term;
    }
    return off;
}

Expr load(Type t, const std::string &b, Expr index) { return ir::Load::make(t, b, std::move(index)); }

// Annotations name their Func here by name, with a stand-in FunctionData that pipeline()
// replaces by the pipeline's Func of that name (a name the pipeline lacks keeps the
// stand-in, which the prophecy check rejects).
std::shared_ptr<const ir::Provenance> prov(const std::string &func, int stage, std::vector<Expr> coords,
                                           std::vector<std::pair<std::string, Expr>> rvars = {}) {
    auto p = std::make_shared<ir::Provenance>();
    p->func = std::make_shared<ir::FunctionData>();
    p->func->name = func;
    p->stage = stage;
    p->coords = std::move(coords);
    p->rvars = std::move(rvars);
    return p;
}

Stmt store(const std::string &b, Expr value, Expr index, std::shared_ptr<const ir::Provenance> p = nullptr) {
    return ir::Store::make(b, std::move(value), std::move(index), std::move(p));
}

Stmt loop(const std::string &name, Expr min, Expr extent, Stmt body) {
    return ir::For::make(name, std::move(min), std::move(extent), ir::ForType::Serial, std::move(body));
}

/** `for name in [B.min.d, B.min.d + B.extent.d)`: a loop over dimension d of buffer B. */
Stmt loop_over(const std::string &name, const std::string &b, int d, Stmt body) {
    return loop(name, bmin(b, d), bextent(b, d), std::move(body));
}

ir::PipelineArgument input_arg(const Buffer<> &b) {
    ir::PipelineArgument a;
    a.kind = ir::PipelineArgument::Kind::InputBuffer;
    a.name = b.name();
    a.type = b.type();
    a.dimensions = b.dimensions();
    a.buffer = b.data_handle();
    return a;
}

template<typename T>
ir::PipelineArgument param_arg(const Param<T> &p) {
    ir::PipelineArgument a;
    a.kind = ir::PipelineArgument::Kind::Param;
    a.name = p.name();
    a.type = p.type();
    a.param = p.data();
    return a;
}

ir::PipelineArgument output_arg(const Func &f) { return test::output_argument(*f.data()); }

ir::LoweredPipeline pipeline(const Func &out, std::vector<ir::PipelineArgument> args, Stmt body) {
    struct BindFuncs : ir::IRMutator {
        std::vector<std::shared_ptr<ir::FunctionData>> funcs;
        std::shared_ptr<const ir::Provenance> mutate_provenance(const std::shared_ptr<const ir::Provenance> &p) override {
            auto q = ir::IRMutator::mutate_provenance(p);
            if (!q) return q;
            for (const auto &f : funcs)
                if (f->name == q->func_name() && f != q->func) {
                    auto bound = std::make_shared<ir::Provenance>(*q);
                    bound->func = f;
                    return bound;
                }
            return q;
        }
    } bind;
    bind.funcs = ir::pipeline_functions(out.data());
    ir::LoweredPipeline p;
    p.name = out.name();
    p.output = out.data();
    p.args = std::move(args);
    p.body = bind.mutate(body);
    return p;
}

RunOptions prophecy(RunStats *stats = nullptr) {
    RunOptions o;
    o.prophecy = true;
    o.stats = stats;
    return o;
}

/** The prophecy check, for code that also stores to scratch allocations that belong to no
 * Func (and so carry no annotation). */
RunOptions lenient_prophecy(RunStats *stats = nullptr) {
    RunOptions o = prophecy(stats);
    o.require_provenance = false;
    return o;
}

/** Runs and returns the message of the expected exception E (fails the test otherwise). */
template<typename E>
std::string error_of(const ir::LoweredPipeline &p, const std::vector<ArgValue> &args, const RunOptions &o) {
    try {
        semantics::run(p, args, o);
    } catch (const E &e) {
        return e.what();
    } catch (const std::exception &e) {
        ADD_FAILURE() << "unexpected exception: " << e.what();
        return "";
    }
    ADD_FAILURE() << "no exception";
    return "";
}

// --- a 1-D pipeline: f(x) = x * 2 + 1 ---------------------------------------------------

struct Simple {
    Func f{"f"};
    Var x{"x"};
    Simple() { f(x) = x * 2 + 1; }

    /** for f.s0.x in f's window: f[f.s0.x] = f.s0.x * 2 + 1, with `extent_delta` added to
     * the loop extent. */
    ir::LoweredPipeline lowered(int extent_delta = 0) const {
        Expr fx = v32("f.s0.x");
        Stmt body = loop("f.s0.x", bmin("f", 0), add(bextent("f", 0), i32(extent_delta)),
                         store("f", add(mul(fx, i32(2)), i32(1)), offset("f", {fx}), prov("f", 0, {fx})));
        return pipeline(f, {output_arg(f)}, body);
    }
};

TEST(IRInterpreter, ComputesSimplePipeline) {
    Simple s;
    Buffer<int32_t> out(10);
    out.set_min(-3);
    RunStats stats;
    semantics::run(s.lowered(), {ArgValue::of_buffer(out.data_handle())}, prophecy(&stats));
    for (int x = -3; x < 7; x++) EXPECT_EQ(out(x), x * 2 + 1) << x;
    EXPECT_EQ(stats.stores, 10);
    EXPECT_EQ(stats.prophecy.checked, 10);
    EXPECT_EQ(stats.prophecy.unknown, 0);
}

TEST(IRInterpreter, EuclideanDivisionAndModulo) {
    Func f("f");
    Var x("x");
    f(x) = (x / 4) * 1000 + x % 4;
    Expr fx = v32("f.s0.x");
    Expr value = add(mul(ir::Div::make(fx, i32(4)), i32(1000)), ir::Mod::make(fx, i32(4)));
    Stmt body = loop_over("f.s0.x", "f", 0, store("f", value, offset("f", {fx}), prov("f", 0, {fx})));
    Buffer<int32_t> out(16);
    out.set_min(-8);
    semantics::run(pipeline(f, {output_arg(f)}, body), {ArgValue::of_buffer(out.data_handle())}, prophecy());
    for (int v = -8; v < 8; v++) {
        int q = v >= 0 ? v / 4 : -((-v + 3) / 4);  // floor division, written independently
        int r = v - 4 * q;
        EXPECT_EQ(out(v), q * 1000 + r) << v;
    }
}

TEST(IRInterpreter, ParamsAndInputBuffersWithStrides) {
    // out(x, y) = in(x, y) * k + y over a window with non-zero mins.
    Buffer<int32_t> in({6, 5}, "in");
    in.set_min(2, 1);
    in.for_each_element([&](const std::vector<int> &c) { in(c) = c[0] * 10 + c[1]; });
    Param<int32_t> k("k");
    Func out("out");
    Var x("x"), y("y");
    out(x, y) = in(x, y) * k + y;

    Expr ox = v32("out.s0.x"), oy = v32("out.s0.y");
    Expr value = add(mul(load(Int(32), "in", offset("in", {ox, oy})), v32("k")), oy);
    Stmt body = loop_over("out.s0.y", "out", 1,
                          loop_over("out.s0.x", "out", 0,
                                    store("out", value, offset("out", {ox, oy}), prov("out", 0, {ox, oy}))));
    auto p = pipeline(out, {input_arg(in), param_arg(k), output_arg(out)}, body);

    Buffer<int32_t> result(4, 3);
    result.set_min(3, 2);
    k.set(100);  // the reference must use the argument's value (7), not the Param's
    RunStats stats;
    semantics::run(p, {ArgValue::of_buffer(in.data_handle()), ArgValue::of_int(7), ArgValue::of_buffer(result.data_handle())},
                   prophecy(&stats));
    for (int yy = 2; yy < 5; yy++)
        for (int xx = 3; xx < 7; xx++) EXPECT_EQ(result(xx, yy), (xx * 10 + yy) * 7 + yy) << xx << "," << yy;
    EXPECT_EQ(stats.prophecy.checked, 12);

    // default_arguments takes the values from the algorithm objects.
    Buffer<int32_t> again(4, 3);
    again.set_min(3, 2);
    k.set(7);
    semantics::run(p, semantics::default_arguments(p, again.data_handle()), prophecy());
    for (int yy = 2; yy < 5; yy++)
        for (int xx = 3; xx < 7; xx++) EXPECT_EQ(again(xx, yy), result(xx, yy));
}

TEST(IRInterpreter, BadArgumentsAreRuntimeErrors) {
    Simple s;
    auto p = s.lowered();
    EXPECT_THAT(error_of<RuntimeError>(p, {}, {}), HasSubstr("takes 1 arguments but was given 0"));
    Buffer<float> wrong(10);
    EXPECT_THAT(error_of<RuntimeError>(p, {ArgValue::of_buffer(wrong.data_handle())}, {}),
                HasSubstr("has type int32 but the buffer given has type float32"));
}

// --- bounds checks -----------------------------------------------------------------------

TEST(IRInterpreter, StoreOutOfBoundsIsInternalError) {
    Simple s;
    Buffer<int32_t> out(10);
    std::string msg = error_of<InternalError>(s.lowered(1), {ArgValue::of_buffer(out.data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("Store to \"f\" at index 10 is out of bounds"));
    EXPECT_THAT(msg, HasSubstr("offsets in [0, 9]"));
}

TEST(IRInterpreter, LoadOutOfBoundsOfAnAllocationIsInternalError) {
    // allocate t[10]; for x in window: t[x] = x; f[x] = t[x - 1]   (reads t[-1])
    Simple s;
    Expr fx = v32("f.s0.x");
    Stmt body = ir::Allocate::make(
        "t", Int(32), {i64(10)},
        loop_over("f.s0.x", "f", 0,
                  ir::Block::make(store("t", fx, wide(fx)),
                                  store("f", load(Int(32), "t", wide(sub(fx, i32(1)))), offset("f", {fx})))));
    Buffer<int32_t> out(10);
    std::string msg = error_of<InternalError>(pipeline(s.f, {output_arg(s.f)}, body),
                                              {ArgValue::of_buffer(out.data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("Load from \"t\" at index -1 is out of bounds"));
    EXPECT_THAT(msg, HasSubstr("valid indices [0, 9]"));
}

TEST(IRInterpreter, AccessAfterAFreeIsInternalError) {
    // allocate t[10]; for x: t[x] = x; free t; for x: f[x] = t[x]   (t is gone)
    Simple s;
    Expr fx = v32("f.s0.x");
    auto body = [&](bool early) {
        Stmt fill = loop_over("f.s0.x", "f", 0, store("t", fx, wide(fx)));
        Stmt read = loop_over("f.s0.x", "f", 0, store("f", load(Int(32), "t", wide(fx)), offset("f", {fx})));
        return ir::Allocate::make("t", Int(32), {i64(10)},
                                  early ? ir::Block::make({fill, ir::Free::make("t"), read})
                                        : ir::Block::make({fill, read, ir::Free::make("t")}));
    };
    Buffer<int32_t> out(10);
    std::string msg = error_of<InternalError>(pipeline(s.f, {output_arg(s.f)}, body(true)),
                                              {ArgValue::of_buffer(out.data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("the allocation \"t\" is accessed after its Free"));
    // A Free after the last access changes nothing.
    semantics::run(pipeline(s.f, {output_arg(s.f)}, body(false)), {ArgValue::of_buffer(out.data_handle())}, {});
    for (int i = 0; i < 10; i++) EXPECT_EQ(out(i), i);
}

TEST(IRInterpreter, AccessBetweenTheElementsOfAStridedBufferIsInternalError) {
    // An input of 8 x 2 elements whose rows are 10 elements apart: offsets 8, 9 are gaps.
    Buffer<int32_t> in({10, 2}, "in");
    in.data_handle()->dims[0].extent = 8;
    Simple s;
    Expr fx = v32("f.s0.x");
    Stmt body = loop_over("f.s0.x", "f", 0, store("f", load(Int(32), "in", wide(fx)), offset("f", {fx})));
    auto p = pipeline(s.f, {input_arg(in), output_arg(s.f)}, body);
    Buffer<int32_t> out(10);
    std::string msg = error_of<InternalError>(
        p, {ArgValue::of_buffer(in.data_handle()), ArgValue::of_buffer(out.data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("Load from \"in\" at index 8 is out of bounds"));
    EXPECT_THAT(msg, HasSubstr("offsets in [0, 17], but not at offset 8"));
}

TEST(IRInterpreter, StoreToAnInputIsInternalError) {
    Buffer<int32_t> in({10}, "in");
    Simple s;
    Expr fx = v32("f.s0.x");
    Stmt body = loop_over("f.s0.x", "f", 0, store("in", fx, wide(fx)));
    std::string msg = error_of<InternalError>(pipeline(s.f, {input_arg(in), output_arg(s.f)}, body),
                                              {ArgValue::of_buffer(in.data_handle()),
                                               ArgValue::of_buffer(Buffer<int32_t>(10).data_handle())},
                                              {});
    EXPECT_THAT(msg, HasSubstr("Store to the input buffer \"in\""));
}

TEST(IRInterpreter, NegativeLoopExtentIsInternalError) {
    Simple s;
    Stmt body = loop("i", i32(0), i32(-1), store("f", i32(0), i64(0)));
    std::string msg = error_of<InternalError>(pipeline(s.f, {output_arg(s.f)}, body),
                                              {ArgValue::of_buffer(Buffer<int32_t>(1).data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("loop \"i\" has the negative extent -1"));
}

// A loop that is no RDom's (here: one of unknown origin) stays within its type: a
// coordinate never leaves int32 (docs/semantics.md §11), so one that would is lowering's bug.
TEST(IRInterpreter, ALoopPastTheEndOfItsTypeIsInternalError) {
    Simple s;
    Stmt body = loop("i", i32(INT32_MAX - 1), i32(4), store("f", i32(0), i64(0)));
    std::string msg = error_of<InternalError>(pipeline(s.f, {output_arg(s.f)}, body),
                                              {ArgValue::of_buffer(Buffer<int32_t>(1).data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("overflows its type int32"));
}

// --- assertions ---------------------------------------------------------------------------

TEST(IRInterpreter, FailedAssertionIsRuntimeErrorWithTheMessage) {
    Simple s;
    Param<int32_t> k("k");
    Stmt check = ir::AssertStmt::make(ir::GT::make(v32("k"), i32(0)),
                                      {str("Param k is "), v32("k"), str(" but must be positive")});
    auto inner = s.lowered();
    auto p = pipeline(s.f, {param_arg(k), output_arg(s.f)}, ir::Block::make(check, inner.body));
    Buffer<int32_t> out(4);
    EXPECT_EQ(error_of<RuntimeError>(p, {ArgValue::of_int(-3), ArgValue::of_buffer(out.data_handle())}, {}),
              "Param k is -3 but must be positive");
    semantics::run(p, {ArgValue::of_int(3), ArgValue::of_buffer(out.data_handle())}, prophecy());
    EXPECT_EQ(out(3), 7);
}

// --- poison ---------------------------------------------------------------------------------

/** allocate t[8]; for x in [0, 4): t[x] = x + 10; then `consumer` (in the allocation's scope). */
Stmt with_half_written_allocation(Stmt consumer) {
    Expr i = v32("t.x");
    return ir::Allocate::make("t", Int(32), {i64(8)},
                              ir::Block::make(loop("t.x", i32(0), i32(4), store("t", add(i, i32(10)), wide(i))),
                                              std::move(consumer)));
}

TEST(IRInterpreter, UnwrittenOutputElementsArePoison) {
    Simple s;
    Buffer<int32_t> out(10);
    std::string msg = error_of<InternalError>(s.lowered(-1), {ArgValue::of_buffer(out.data_handle())}, {});
    EXPECT_THAT(msg, HasSubstr("1 of the 10 elements of the output window \"f\" hold poison"));
    EXPECT_THAT(msg, HasSubstr("at (9)"));
    // Starting from the caller's data instead, the run succeeds.
    RunOptions o;
    o.poison_output = false;
    semantics::run(s.lowered(-1), {ArgValue::of_buffer(out.data_handle())}, o);
}

TEST(IRInterpreter, PoisonPropagatesThroughArithmeticIntoTheOutputWindow) {
    // f[x] = t[x] * 0 + 1: strict propagation, even though the value would not depend on t.
    Func f("f");
    Var x("x");
    f(x) = 1;
    Expr fx = v32("f.s0.x");
    Stmt consumer = loop_over("f.s0.x", "f", 0,
                              store("f", add(mul(load(Int(32), "t", wide(fx)), i32(0)), i32(1)), offset("f", {fx}),
                                    prov("f", 0, {fx})));
    auto p = pipeline(f, {output_arg(f)}, with_half_written_allocation(consumer));
    Buffer<int32_t> out(8);
    RunOptions o = lenient_prophecy();
    std::string msg = error_of<InternalError>(p, {ArgValue::of_buffer(out.data_handle())}, o);
    EXPECT_THAT(msg, HasSubstr("4 of the 8 elements of the output window \"f\" hold poison"));
    EXPECT_THAT(msg, HasSubstr("at (4), (5), (6), (7)"));
    // Poisoned stores are not prophecy mismatches: only the output window check fails.
    RunStats stats;
    o.check_output_poison = false;
    o.stats = &stats;
    semantics::run(p, {ArgValue::of_buffer(out.data_handle())}, o);
    EXPECT_EQ(stats.poisoned_stores, 4);
    EXPECT_EQ(stats.prophecy.poisoned, 4);
    EXPECT_EQ(stats.prophecy.checked, 4);
}

TEST(IRInterpreter, SelectPropagatesPoisonOnlyFromTheChosenOperand) {
    // f[x] = select(x < 4, t[x], 7): t[x] is read (poisoned) for x >= 4 but not chosen.
    Func f("f");
    Var x("x");
    f(x) = select(x < 4, x + 10, 7);
    Expr fx = v32("f.s0.x");
    Expr value = ir::Select::make(ir::LT::make(fx, i32(4)), load(Int(32), "t", wide(fx)), i32(7));
    Stmt consumer = loop_over("f.s0.x", "f", 0, store("f", value, offset("f", {fx}), prov("f", 0, {fx})));
    auto p = pipeline(f, {output_arg(f)}, with_half_written_allocation(consumer));
    Buffer<int32_t> out(8);
    RunStats stats;
    semantics::run(p, {ArgValue::of_buffer(out.data_handle())}, lenient_prophecy(&stats));
    for (int i = 0; i < 8; i++) EXPECT_EQ(out(i), i < 4 ? i + 10 : 7) << i;
    EXPECT_EQ(stats.poisoned_loads, 4);
    EXPECT_EQ(stats.poisoned_stores, 0);

    // With the branches swapped the poisoned operand is chosen.
    Expr swapped = ir::Select::make(ir::GE::make(fx, i32(4)), load(Int(32), "t", wide(fx)), i32(7));
    Stmt bad = loop_over("f.s0.x", "f", 0, store("f", swapped, offset("f", {fx}), prov("f", 0, {fx})));
    EXPECT_THAT(error_of<InternalError>(pipeline(f, {output_arg(f)}, with_half_written_allocation(bad)),
                                        {ArgValue::of_buffer(out.data_handle())}, {}),
                HasSubstr("hold poison"));
}

TEST(IRInterpreter, PoisonedIndexOrConditionIsInternalError) {
    Simple s;
    Expr fx = v32("f.s0.x");
    Buffer<int32_t> out(8);
    std::vector<ArgValue> args = {ArgValue::of_buffer(out.data_handle())};
    auto run_with = [&](Stmt consumer) {
        return error_of<InternalError>(pipeline(s.f, {output_arg(s.f)}, with_half_written_allocation(consumer)),
                                       args, {});
    };
    // A data-dependent index read from uninitialized memory (regression R4, docs/semantics.md §14).
    Stmt index = loop_over("f.s0.x", "f", 0,
                           store("f", i32(0), wide(sub(load(Int(32), "t", wide(fx)), i32(10)))));
    EXPECT_THAT(run_with(index), HasSubstr("Store to \"f\" has an index computed from poisoned (uninitialized) data"));
    Expr t_minus_10 = sub(load(Int(32), "t", wide(fx)), i32(10));  // x where t is written
    Stmt load_index = loop_over("f.s0.x", "f", 0,
                                store("f", load(Int(32), "t", wide(t_minus_10)), offset("f", {fx})));
    EXPECT_THAT(run_with(load_index), HasSubstr("Load from \"t\" has an index computed from poisoned"));
    Stmt cond = loop_over("f.s0.x", "f", 0,
                          ir::IfThenElse::make(ir::GT::make(load(Int(32), "t", wide(fx)), i32(0)),
                                               store("f", i32(1), offset("f", {fx}))));
    EXPECT_THAT(run_with(cond), HasSubstr("the condition of an if is computed from poisoned"));
    Stmt bound = loop("i", i32(0), load(Int(32), "t", i64(6)), store("f", i32(1), i64(0)));
    EXPECT_THAT(run_with(bound), HasSubstr("the extent of loop \"i\" is computed from poisoned"));
}

// --- vectors --------------------------------------------------------------------------------

TEST(IRInterpreter, VectorRampBroadcastLoadStoreAndSelect) {
    // v(x) = x * 3 + in(x), computed 4 lanes at a time; per-lane provenance.
    Buffer<int32_t> in({8}, "vin");
    for (int i = 0; i < 8; i++) in(i) = 100 * i;
    Func v("v");
    Var x("x");
    v(x) = x * 3 + in(x);
    Expr base = mul(v32("v.s0.x.o"), i32(4));
    Expr xs = ir::Ramp::make(base, i32(1), 4);
    Expr index = ir::Ramp::make(wide(base), i64(1), 4);
    Expr value = add(mul(xs, ir::Broadcast::make(i32(3), 4)), load(Int(32, 4), "vin", index));
    Stmt body = loop("v.s0.x.o", i32(0), i32(2), store("v", value, index, prov("v", 0, {xs})));
    auto p = pipeline(v, {input_arg(in), output_arg(v)}, body);
    Buffer<int32_t> out(8);
    RunStats stats;
    semantics::run(p, {ArgValue::of_buffer(in.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy(&stats));
    for (int i = 0; i < 8; i++) EXPECT_EQ(out(i), i * 3 + 100 * i) << i;
    EXPECT_EQ(stats.stores, 8);
    EXPECT_EQ(stats.prophecy.checked, 8);

    // Lane-wise poison: only even elements of t are written; select picks them.
    Func w("w");
    w(x) = select(x % 2 == 0, 5, 1);
    Expr lanes = ir::Ramp::make(i64(0), i64(1), 8);
    Expr even = ir::EQ::make(ir::Mod::make(lanes, ir::Broadcast::make(i64(2), 8)), ir::Broadcast::make(i64(0), 8));
    Stmt fill = store("t", ir::Broadcast::make(i32(5), 4), ir::Ramp::make(i64(0), i64(2), 4));
    auto select_from_t = [&](Expr c) {
        Expr sel = ir::Select::make(c, load(Int(32, 8), "t", lanes), ir::Broadcast::make(i32(1), 8));
        return pipeline(w, {output_arg(w)},
                        ir::Allocate::make("t", Int(32), {i64(8)},
                                           ir::Block::make(fill, store("w", sel, lanes,
                                                                       prov("w", 0, {ir::Ramp::make(i32(0), i32(1), 8)})))));
    };
    Buffer<int32_t> wout(8);
    semantics::run(select_from_t(even), {ArgValue::of_buffer(wout.data_handle())}, lenient_prophecy());
    for (int i = 0; i < 8; i++) EXPECT_EQ(wout(i), i % 2 == 0 ? 5 : 1) << i;
    EXPECT_THAT(error_of<InternalError>(select_from_t(ir::Not::make(even)), {ArgValue::of_buffer(wout.data_handle())}, {}),
                HasSubstr("at (1), (3), (5), (7)"));
}

// --- the dynamic prophecy check ------------------------------------------------------------

constexpr int kW = 8, kH = 6;

/** A separable 3x3 box blur, lowered by hand with blur_x stored over the rows the output
 * window needs. `bug` selects a deliberately wrong store. */
struct Blur {
    Buffer<int32_t> in{{kW + 10, kH + 10}, "in"};
    Func bx{"blur_x"}, by{"blur_y"};
    Var x{"x"}, y{"y"};

    Blur() {
        in.set_min(-5, -5);
        in.for_each_element([&](const std::vector<int> &c) { in(c) = (c[0] * 7 + c[1] * 13 + 256) % 256; });
        bx(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
        by(x, y) = (bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3;
    }

    enum class Bug { None, ProducerValue, ConsumerValue, ProducerAnnotation };

    ir::LoweredPipeline lowered(Bug bug) const {
        const std::string out = "blur_y";
        // blur_x over x in [out.min.0, +out.extent.0), y in [out.min.1 - 1, +out.extent.1 + 2).
        Expr ymin = sub(bmin(out, 1), i32(1));
        auto bx_index = [&](Expr xx, Expr yy) {
            return add(wide(sub(xx, bmin(out, 0))), mul(wide(sub(yy, ymin)), wide(bextent(out, 0))));
        };
        Expr px = v32("blur_x.s0.x"), py = v32("blur_x.s0.y");
        auto in_at = [&](Expr xx) { return load(Int(32), "in", offset("in", {xx, py})); };
        Expr bx_value = add(add(in_at(sub(px, i32(1))), in_at(px)), in_at(add(px, i32(1))));
        if (bug == Bug::ProducerValue)  // off by one at a single point
            bx_value = ir::Select::make(ir::And::make(ir::EQ::make(px, i32(3)), ir::EQ::make(py, i32(2))),
                                        add(bx_value, i32(1)), bx_value);
        Expr bx_coord_x = bug == Bug::ProducerAnnotation ? add(px, i32(1)) : px;
        Stmt produce = loop("blur_x.s0.y", ymin, add(bextent(out, 1), i32(2)),
                            loop_over("blur_x.s0.x", out, 0,
                                      store("blur_x", bx_value, bx_index(px, py), prov("blur_x", 0, {bx_coord_x, py}))));
        Expr cx = v32("blur_y.s0.x"), cy = v32("blur_y.s0.y");
        auto bx_at = [&](int dy) { return load(Int(32), "blur_x", bx_index(cx, add(cy, i32(dy)))); };
        Expr sum = add(add(bx_at(-1), bx_at(0)), bx_at(1));
        if (bug == Bug::ConsumerValue) sum = add(sum, i32(1));
        Stmt consume = loop_over("blur_y.s0.y", out, 1,
                                 loop_over("blur_y.s0.x", out, 0,
                                           store(out, ir::Div::make(sum, i32(3)), offset(out, {cx, cy}),
                                                 prov("blur_y", 0, {cx, cy}))));
        Stmt body = ir::Allocate::make("blur_x", Int(32), {wide(bextent(out, 0)), wide(add(bextent(out, 1), i32(2)))},
                                       ir::Block::make(produce, consume));
        return pipeline(by, {input_arg(in), output_arg(by)}, body);
    }

    /** Plain C++ blur of the window. */
    int expected(int xx, int yy) const {
        int s = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) s += in(xx + dx, yy + dy);
        return s / 3;
    }
};

TEST(IRInterpreterProphecy, CorrectHandLoweredBlurPasses) {
    Blur b;
    Buffer<int32_t> out(kW, kH);
    out.set_min(2, 1);
    RunStats stats;
    semantics::run(b.lowered(Blur::Bug::None),
                   {ArgValue::of_buffer(b.in.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy(&stats));
    for (int yy = 1; yy < 1 + kH; yy++)
        for (int xx = 2; xx < 2 + kW; xx++) EXPECT_EQ(out(xx, yy), b.expected(xx, yy)) << xx << "," << yy;
    EXPECT_EQ(stats.prophecy.checked, kW * (kH + 2) + kW * kH);
    EXPECT_EQ(stats.prophecy.unknown, 0);
    EXPECT_EQ(stats.prophecy.poisoned, 0);
    EXPECT_EQ(stats.poisoned_loads, 0);
}

TEST(IRInterpreterProphecy, WrongStoreInAProducerIsCaught) {
    Blur b;
    Buffer<int32_t> out(kW, kH);
    std::string msg = error_of<InternalError>(
        b.lowered(Blur::Bug::ProducerValue),
        {ArgValue::of_buffer(b.in.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy());
    EXPECT_THAT(msg, HasSubstr("Prophecy check"));
    EXPECT_THAT(msg, HasSubstr("the store to \"blur_x\""));
    EXPECT_THAT(msg, HasSubstr("the pure definition of Func \"blur_x\" at (3, 2)"));
    // The value written and the reference value, from plain C++.
    int want = b.in(2, 2) + b.in(3, 2) + b.in(4, 2);
    EXPECT_THAT(msg, HasSubstr("writes " + std::to_string(want + 1)));
    EXPECT_THAT(msg, HasSubstr("has the value " + std::to_string(want)));
}

TEST(IRInterpreterProphecy, WrongStoreInTheOutputIsCaught) {
    Blur b;
    Buffer<int32_t> out(kW, kH);
    std::string msg = error_of<InternalError>(
        b.lowered(Blur::Bug::ConsumerValue),
        {ArgValue::of_buffer(b.in.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy());
    EXPECT_THAT(msg, HasSubstr("the pure definition of Func \"blur_y\""));
    // Without the check the wrong values would only show up in a comparison of results.
    semantics::run(b.lowered(Blur::Bug::ConsumerValue),
                   {ArgValue::of_buffer(b.in.data_handle()), ArgValue::of_buffer(out.data_handle())}, {});
}

TEST(IRInterpreterProphecy, WrongAnnotationIsCaught) {
    Blur b;
    Buffer<int32_t> out(kW, kH);
    std::string msg = error_of<InternalError>(
        b.lowered(Blur::Bug::ProducerAnnotation),
        {ArgValue::of_buffer(b.in.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy());
    EXPECT_THAT(msg, HasSubstr("annotated blur_x(blur_x.s0.x + 1, blur_x.s0.y)"));
}

TEST(IRInterpreterProphecy, FloatsAreComparedBitwise) {
    // h(x) = float(x) * 0.0f is -0.0f for x < 0: storing +0.0f there is a mismatch.
    Func h("h");
    Var x("x");
    h(x) = cast<float>(x) * 0.0f;
    Expr hx = v32("h.s0.x");
    auto lowered = [&](Expr value) {
        return pipeline(h, {output_arg(h)},
                        loop_over("h.s0.x", "h", 0, store("h", value, offset("h", {hx}), prov("h", 0, {hx}))));
    };
    Buffer<float> out(4);
    out.set_min(-2);
    semantics::run(lowered(mul(ir::Cast::make(Float(32), hx), ir::FloatImm::make(Float(32), 0.0))),
                   {ArgValue::of_buffer(out.data_handle())}, prophecy());
    std::string msg = error_of<InternalError>(lowered(ir::FloatImm::make(Float(32), 0.0)),
                                              {ArgValue::of_buffer(out.data_handle())}, prophecy());
    EXPECT_THAT(msg, HasSubstr("at (-2) has the value -0f"));
    EXPECT_THAT(msg, HasSubstr("writes 0f"));
}

TEST(IRInterpreterProphecy, MalformedOrMissingAnnotations) {
    Simple s;
    Buffer<int32_t> out(4);
    std::vector<ArgValue> args = {ArgValue::of_buffer(out.data_handle())};
    Expr fx = v32("f.s0.x");
    auto with = [&](std::shared_ptr<const ir::Provenance> p) {
        return pipeline(s.f, {output_arg(s.f)},
                        loop_over("f.s0.x", "f", 0, store("f", add(mul(fx, i32(2)), i32(1)), offset("f", {fx}), p)));
    };
    EXPECT_THAT(error_of<InternalError>(with(prov("g", 0, {fx})), args, prophecy()),
                HasSubstr("names Func \"g\", which is not part of the pipeline"));
    EXPECT_THAT(error_of<InternalError>(with(prov("f", 1, {fx})), args, prophecy()),
                HasSubstr("names definition 1 of Func \"f\", which has 1 definitions"));
    EXPECT_THAT(error_of<InternalError>(with(prov("f", 0, {fx, fx})), args, prophecy()),
                HasSubstr("has 2 coordinates but Func \"f\" has 1 dimensions"));
    EXPECT_THAT(error_of<InternalError>(with(nullptr), args, prophecy()), HasSubstr("has no provenance annotation"));
    RunStats stats;
    RunOptions lenient = prophecy(&stats);
    lenient.require_provenance = false;
    semantics::run(with(nullptr), args, lenient);
    EXPECT_EQ(stats.prophecy.unannotated, 4);
}

TEST(IRInterpreterProphecy, ReferenceFailureAtAnOverComputedPointIsUnknown) {
    // g(x) = gin(x) is over-computed on [0, 12) from a clamped read; gin has 10 elements,
    // so the reference fails (input out of bounds) at g(10) and g(11).
    Buffer<int32_t> gin({10}, "gin");
    for (int i = 0; i < 10; i++) gin(i) = i * i;
    Func g("g"), o("o");
    Var x("x");
    g(x) = gin(x);
    o(x) = g(x);
    Expr gx = v32("g.s0.x"), ox = v32("o.s0.x");
    Stmt produce = loop("g.s0.x", i32(0), i32(12),
                        store("g", load(Int(32), "gin", wide(ir::Min::make(gx, i32(9)))), wide(gx), prov("g", 0, {gx})));
    Stmt consume = loop_over("o.s0.x", "o", 0,
                             store("o", load(Int(32), "g", wide(ox)), offset("o", {ox}), prov("o", 0, {ox})));
    auto p = pipeline(o, {input_arg(gin), output_arg(o)},
                      ir::Allocate::make("g", Int(32), {i64(12)}, ir::Block::make(produce, consume)));
    Buffer<int32_t> out(10);
    RunStats stats;
    semantics::run(p, {ArgValue::of_buffer(gin.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy(&stats));
    EXPECT_EQ(stats.prophecy.unknown, 2);
    EXPECT_EQ(stats.prophecy.checked, 20);
    for (int i = 0; i < 10; i++) EXPECT_EQ(out(i), i * i);
}

// Updates with an RDom: only the last store to a point is the stage's value.

struct PrefixSum {
    Param<int32_t> n{"n"};
    Buffer<int32_t> in{{8}, "psin"};
    Func s{"s"};
    Var x{"x"};
    RDom r{1, n - 1, "r"};

    PrefixSum() {
        for (int i = 0; i < 8; i++) in(i) = i * 3 + 1;
        s(x) = in(x);
        s(r) = s(r) + s(r - 1);
    }

    /** Stage 1 iterates r in [1, n) (or backwards, which is wrong). */
    ir::LoweredPipeline lowered(bool backwards) const {
        Expr sx = v32("s.s0.x"), rr = v32("s.s1.r");
        Stmt pure = loop_over("s.s0.x", "s", 0,
                              store("s", load(Int(32), "psin", offset("psin", {sx})), offset("s", {sx}), prov("s", 0, {sx})));
        Expr point = backwards ? sub(v32("n"), rr) : rr;
        Stmt update = loop("s.s1.r", i32(1), sub(v32("n"), i32(1)),
                           ir::LetStmt::make("p", point,
                                             store("s",
                                                   add(load(Int(32), "s", offset("s", {v32("p")})),
                                                       load(Int(32), "s", offset("s", {sub(v32("p"), i32(1))}))),
                                                   offset("s", {v32("p")}), prov("s", 1, {v32("p")}, {{"r", v32("p")}}))));
        return pipeline(s, {input_arg(in), param_arg(n), output_arg(s)}, ir::Block::make(pure, update));
    }
};

TEST(IRInterpreterProphecy, RDomUpdateChecksTheLastStoreOfEachPoint) {
    PrefixSum ps;
    ps.n.set(-5);  // ignored: the run's argument is what counts
    Buffer<int32_t> out(8);
    RunStats stats;
    std::vector<ArgValue> args = {ArgValue::of_buffer(ps.in.data_handle()), ArgValue::of_int(8),
                                  ArgValue::of_buffer(out.data_handle())};
    semantics::run(ps.lowered(false), args, prophecy(&stats));
    int sum = 0;
    for (int i = 0; i < 8; i++) {
        sum += i * 3 + 1;
        EXPECT_EQ(out(i), sum) << i;
    }
    EXPECT_EQ(stats.prophecy.checked, 8);        // the pure definition
    EXPECT_EQ(stats.prophecy.final_checked, 7);  // points 1..7 of the update

    std::string msg = error_of<InternalError>(ps.lowered(true), args, prophecy());
    EXPECT_THAT(msg, HasSubstr("the last store to \"s\""));
    // Backwards, point p gets in(p) + in(p - 1): right at 1 (in(0) + in(1) = 5), wrong at 2.
    EXPECT_THAT(msg, HasSubstr("update 0 of Func \"s\" at (2) (last iteration r = 2)"));
    EXPECT_THAT(msg, HasSubstr("writes 11"));
    EXPECT_THAT(msg, HasSubstr("has the value 12"));
}

TEST(IRInterpreterProphecy, HistogramIntermediateStoresAreNotMismatches) {
    // hist(b) = 0; hist(hin(r)) += 1: a bin is stored once per matching r; only the last
    // store of each bin holds its final count.
    Buffer<uint8_t> hin({12}, "hin");
    const int data[12] = {1, 3, 3, 0, 1, 3, 2, 3, 1, 1, 0, 3};
    for (int i = 0; i < 12; i++) hin(i) = uint8_t(data[i]);
    Func hist("hist");
    Var b("b");
    RDom r(0, 12, "r");
    hist(b) = 0;
    hist(hin(r)) += 1;
    Expr hb = v32("hist.s0.b"), rr = v32("hist.s1.r");
    Stmt pure = loop_over("hist.s0.b", "hist", 0, store("hist", i32(0), offset("hist", {hb}), prov("hist", 0, {hb})));
    Expr bin = v32("bin");
    Stmt update = loop(
        "hist.s1.r", i32(0), i32(12),
        ir::LetStmt::make("bin", ir::Cast::make(Int(32), load(UInt(8), "hin", offset("hin", {rr}))),
                          store("hist", add(load(Int(32), "hist", offset("hist", {bin})), i32(1)), offset("hist", {bin}),
                                prov("hist", 1, {bin}, {{"r", rr}}))));
    auto p = pipeline(hist, {input_arg(hin), output_arg(hist)}, ir::Block::make(pure, update));
    Buffer<int32_t> out(4);
    RunStats stats;
    semantics::run(p, {ArgValue::of_buffer(hin.data_handle()), ArgValue::of_buffer(out.data_handle())}, prophecy(&stats));
    int count[4] = {0, 0, 0, 0};
    for (int v : data) count[v]++;
    for (int i = 0; i < 4; i++) EXPECT_EQ(out(i), count[i]) << i;
    EXPECT_EQ(stats.prophecy.final_checked, 4);
}

TEST(IRInterpreterProphecy, RDomUpdateIsCheckedWhenALaterDefinitionStores) {
    // f(x) = 0; f(x) += r (r in [0, 4)); f(x) = f(x) * 2. With the RDom loop one iteration
    // short, the recorded last values of update 0 are wrong, which the first store of
    // update 1 reveals (before update 1 overwrites them).
    Func f("f");
    Var x("x");
    RDom r(0, 4, "r");
    f(x) = 0;
    f(x) += r;
    f(x) = f(x) * 2;
    auto lowered = [&](int r_extent) {
        Expr x0 = v32("f.s0.x"), x1 = v32("f.s1.x"), rr = v32("f.s1.r"), x2 = v32("f.s2.x");
        Stmt s0 = loop_over("f.s0.x", "f", 0, store("f", i32(0), offset("f", {x0}), prov("f", 0, {x0})));
        Stmt s1 = loop_over("f.s1.x", "f", 0,
                            loop("f.s1.r", i32(0), i32(r_extent),
                                 store("f", add(load(Int(32), "f", offset("f", {x1})), rr), offset("f", {x1}),
                                       prov("f", 1, {x1}, {{"r", rr}}))));
        Stmt s2 = loop_over("f.s2.x", "f", 0,
                            store("f", mul(load(Int(32), "f", offset("f", {x2})), i32(2)), offset("f", {x2}),
                                  prov("f", 2, {x2})));
        return pipeline(f, {output_arg(f)}, ir::Block::make({s0, s1, s2}));
    };
    Buffer<int32_t> out(5);
    RunStats stats;
    semantics::run(lowered(4), {ArgValue::of_buffer(out.data_handle())}, prophecy(&stats));
    for (int i = 0; i < 5; i++) EXPECT_EQ(out(i), 12);
    EXPECT_EQ(stats.prophecy.final_checked, 5);
    EXPECT_EQ(stats.prophecy.checked, 10);

    std::string msg = error_of<InternalError>(lowered(3), {ArgValue::of_buffer(out.data_handle())}, prophecy());
    EXPECT_THAT(msg, HasSubstr("the last store to \"f\""));
    EXPECT_THAT(msg, HasSubstr("update 0 of Func \"f\" at (0) (last iteration r = 2) has the value 6"));
    EXPECT_THAT(msg, HasSubstr("writes 3"));
}

TEST(IRInterpreterProphecy, MissingStartUpCheckIsCaught) {
    // g(x) = 0; g(x) += rr with rr in [0, m): m = -3 is a RuntimeError of the algorithm.
    Param<int32_t> m("m");
    Func g("g");
    Var x("x");
    RDom rr(0, m, "rr");
    g(x) = 0;
    g(x) += rr;
    Expr gx = v32("g.s0.x");
    Stmt pure = loop_over("g.s0.x", "g", 0, store("g", i32(0), offset("g", {gx}), prov("g", 0, {gx})));
    Buffer<int32_t> out(4);
    std::vector<ArgValue> args = {ArgValue::of_int(-3), ArgValue::of_buffer(out.data_handle())};
    // Lowered code without the start-up check (and, here, without the update).
    auto unchecked = pipeline(g, {param_arg(m), output_arg(g)}, pure);
    std::string msg = error_of<InternalError>(unchecked, args, prophecy());
    EXPECT_THAT(msg, HasSubstr("the reference semantics fails at start-up"));
    EXPECT_THAT(msg, HasSubstr("a start-up check is missing"));
    // With the check, the pipeline fails as it must.
    Stmt check = ir::AssertStmt::make(ir::GE::make(v32("m"), i32(0)),
                                      {str("RDom rr has extent "), v32("m"), str("; it must not be negative")});
    auto checked = pipeline(g, {param_arg(m), output_arg(g)}, ir::Block::make(check, pure));
    EXPECT_EQ(error_of<RuntimeError>(checked, args, prophecy()), "RDom rr has extent -3; it must not be negative");
}

}  // namespace
