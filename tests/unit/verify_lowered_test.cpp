// The contract of lowered code (src/ir/VerifyLowered.h): what lowering produces meets it,
// and each kind of violation is reported; alpha renaming (src/lower/UniquifyNames.cpp)
// makes every name bound once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tessera/tessera.h>

#include "ir/IR.h"
#include "ir/IRVisitor.h"
#include "ir/VerifyLowered.h"
#include "lower/Lower.h"
#include "lower/Pipeline.h"
#include "support/hand_lowered.h"

using namespace tessera;
using namespace tessera::ir;
using ::testing::HasSubstr;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr i64(int64_t v) { return IntImm::make(Int(64), v); }
Expr var(const std::string &n, Type t = Int(32)) { return Variable::make(t, n); }
Expr wide(const Expr &e) { return Cast::make(Int(64), e); }

/** A pipeline writing `out`, a 1-D int32 Func, and reading the 1-D int32 input `in`. */
struct Fixture {
    Func out{"out"};
    Buffer<int32_t> in{std::vector<int>{8}, "in"};
    Var x{"x"};
    Fixture() { out(x) = in(x) + 1; }

    std::shared_ptr<const LoopId> loop(const std::string &dim) const { return test::loop_of(out.data(), 0, dim); }
    std::shared_ptr<const Provenance> prov(const Expr &coord) const {
        auto p = std::make_shared<Provenance>();
        p->func = out.data();
        p->coords = {coord};
        return p;
    }
    /** for x in [out.min.0, out.min.0 + out.extent.0): out[x - out.min.0] = body-value */
    Stmt store_loop(const std::string &name, Expr value, std::shared_ptr<const Provenance> p = nullptr) const {
        Expr xv = var(name);
        return For::make(name, var("out.min.0"), var("out.extent.0"), ForType::Serial,
                         Store::make("out", value, wide(Sub::make(xv, var("out.min.0"))), p ? p : prov(xv)),
                         loop(name));
    }
    LoweredPipeline pipeline(Stmt body) const {
        LoweredPipeline p;
        p.name = "out";
        p.output = out.data();
        PipelineArgument a = test::buffer_argument(PipelineArgument::Kind::InputBuffer, "in", Int(32), 1);
        a.buffer = in.data_handle();
        p.args = {a, test::output_argument(*out.data())};
        p.body = std::move(body);
        return p;
    }
};

std::string violation(const LoweredPipeline &p, VerifyOptions o = {}) {
    try {
        verify_lowered(p, o);
    } catch (const InternalError &e) {
        return e.what();
    }
    return "";
}

TEST(VerifyLowered, LoweredPipelinesMeetTheContract) {
    // A schedule that partitions, unrolls, vectorizes and specializes: loops and lets are
    // copied, and alpha renaming gives every copy its own names.
    Buffer<uint16_t> input(std::vector<int>{40, 20}, "input");
    Var x("x"), y("y"), xo("xo"), xi("xi"), yi("yi");
    Func clamped("clamped"), blur_x("blur_x"), blur_y("blur_y");
    clamped(x, y) = input(clamp(x, 0, 39), clamp(y, 0, 19));
    blur_x(x, y) = clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y);
    blur_y(x, y) = blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1);
    blur_y.split(y, y, yi, 4).split(x, xo, xi, 8).reorder(xi, yi, xo, y).vectorize(xi).unroll(yi);
    blur_x.compute_at(blur_y, xo).vectorize(x, 8);
    lower::LowerOptions o;
    o.check_invariants = true;  // also checks after every pass from storage flattening on
    LoweredPipeline p = lower::lower(blur_y.data(), o);
    EXPECT_EQ(violation(p), "");
}

TEST(VerifyLowered, EachViolationIsReported) {
    Fixture f;
    const Expr one = i32(1);
    EXPECT_EQ(violation(f.pipeline(f.store_loop("x", one))), "");

    // A store without provenance, and with the wrong number of lanes in it.
    Stmt no_prov = For::make("x", var("out.min.0"), var("out.extent.0"), ForType::Serial,
                             Store::make("out", one, wide(var("x")), nullptr), f.loop("x"));
    EXPECT_THAT(violation(f.pipeline(no_prov)), HasSubstr("has no provenance annotation"));
    Expr ramp = Ramp::make(var("x"), i32(1), 4);
    Stmt lanes = For::make("x", i32(0), i32(2), ForType::Serial,
                           Store::make("out", Broadcast::make(one, 4), Ramp::make(wide(var("x")), i64(1), 4),
                                       f.prov(var("x"))),
                           f.loop("x"));
    EXPECT_THAT(violation(f.pipeline(lanes)), HasSubstr("is a int32 (int32 with as many lanes expected)"));
    Stmt lanes_ok = For::make("x", i32(0), i32(2), ForType::Serial,
                              Store::make("out", Broadcast::make(one, 4), Ramp::make(wide(var("x")), i64(1), 4),
                                          f.prov(ramp)),
                              f.loop("x"));
    EXPECT_EQ(violation(f.pipeline(lanes_ok)), "");

    // A name bound twice, in sequence: fine before alpha renaming, not after.
    Stmt twice = Block::make(f.store_loop("x", one), f.store_loop("x", one));
    EXPECT_THAT(violation(f.pipeline(twice)), HasSubstr("the variable name \"x\" is bound twice"));
    EXPECT_EQ(violation(f.pipeline(twice), VerifyOptions{false, ""}), "");
    EXPECT_EQ(violation(f.pipeline(lower::uniquify_names(twice))), "");

    // A let that rebinds a Param's name, an unbound variable, a Func call, a loop without
    // its identity, a load of the wrong type, a store into an input.
    Stmt rebinds = LetStmt::make("out.extent.0", i32(3), f.store_loop("x", one));
    EXPECT_THAT(violation(f.pipeline(rebinds)), HasSubstr("is also an argument of the pipeline"));
    EXPECT_THAT(violation(f.pipeline(f.store_loop("x", var("y")))), HasSubstr("\"y\" is used where it is not bound"));
    Expr call = Call::make_func(f.out.data(), {var("x")});
    EXPECT_THAT(violation(f.pipeline(f.store_loop("x", call))), HasSubstr("Func call out(...) is left"));
    Stmt anonymous = For::make("x", i32(0), i32(4), ForType::Serial,
                               Store::make("out", one, wide(var("x")), f.prov(var("x"))));
    EXPECT_THAT(violation(f.pipeline(anonymous)), HasSubstr("does not say which loop of the algorithm it is"));
    Expr bad_load = Load::make(Float(32), "in", i64(0));
    EXPECT_THAT(violation(f.pipeline(f.store_loop("x", Cast::make(Int(32), bad_load)))),
                HasSubstr("an access of type float32 to the buffer \"in\" of type int32"));
    Stmt into_input = For::make("x", i32(0), i32(4), ForType::Serial,
                                Store::make("in", one, wide(var("x")), f.prov(var("x"))), f.loop("x"));
    EXPECT_THAT(violation(f.pipeline(into_input)), HasSubstr("a store to the input buffer \"in\""));

    // Unflattened code.
    Stmt provide = Provide::make("out", one, {i32(0)}, f.prov(i32(0)));
    EXPECT_THAT(violation(f.pipeline(provide)), HasSubstr("the Provide to \"out\" is left"));

    // A final copy into an allocation.
    auto copy = std::make_shared<Provenance>(*f.prov(var("x")));
    copy->kind = Provenance::Kind::FinalCopy;
    Stmt copy_loop = Allocate::make("tmp", Int(32), {i64(4)},
                                    For::make("x", i32(0), i32(4), ForType::Serial,
                                              Store::make("tmp", one, wide(var("x")), copy), f.loop("x")));
    EXPECT_THAT(violation(f.pipeline(copy_loop)), HasSubstr("is stored to \"tmp\", not to the output"));
}

TEST(VerifyLowered, AFreeEndsItsAllocationOnceAndForAll) {
    // allocate tmp[8] { for x: tmp[x] = 1; <free>; for x: out[x] = <value> }
    Fixture f;
    auto fill = For::make("x", i32(0), i32(8), ForType::Serial,
                          Store::make("tmp", i32(1), wide(var("x")), f.prov(var("x"))), f.loop("x"));
    auto with = [&](std::vector<Stmt> body) {
        return f.pipeline(lower::uniquify_names(Allocate::make("tmp", Int(32), {i64(8)}, Block::make(body))));
    };
    const Stmt free_tmp = Free::make("tmp");
    const Stmt read_in = f.store_loop("y", Load::make(Int(32), "in", i64(0)));
    const Stmt read_tmp = f.store_loop("y", Load::make(Int(32), "tmp", i64(0)));
    EXPECT_EQ(violation(with({fill, free_tmp, read_in})), "");
    EXPECT_EQ(violation(with({fill, read_tmp, free_tmp})), "");
    EXPECT_THAT(violation(with({fill, free_tmp, read_tmp})), HasSubstr("a load from \"tmp\" after its Free"));
    EXPECT_THAT(violation(with({fill, free_tmp, free_tmp})), HasSubstr("the allocation \"tmp\" is freed twice"));
    // In a loop of the body it would run once per iteration; in a branch, only sometimes.
    Stmt in_loop = For::make("z", i32(0), i32(2), ForType::Serial, free_tmp, f.loop("x"));
    EXPECT_THAT(violation(with({fill, in_loop})), HasSubstr("inside a loop or branch of its allocation's body"));
    Stmt in_branch = IfThenElse::make(LT::make(var("out.min.0"), i32(0)), free_tmp);
    EXPECT_THAT(violation(with({fill, in_branch})), HasSubstr("inside a loop or branch of its allocation's body"));
    // Only allocations are freed.
    EXPECT_THAT(violation(f.pipeline(Block::make(f.store_loop("x", i32(1)), Free::make("in")))),
                HasSubstr("a Free of \"in\", which is not an allocation in scope"));
}

TEST(UniquifyNames, LaterBindingsGetFreshNamesAndTheirUsesFollow) {
    // let a = 1 in (for x { out[x] = a + x }; let a = 2 in for x { let x = x + 1 in out[x] = a })
    Fixture f;
    auto store = [&](Expr v, Expr idx) { return Store::make("out", v, wide(idx), f.prov(idx)); };
    Stmt first = For::make("x", i32(0), i32(4), ForType::Serial, store(Add::make(var("a"), var("x")), var("x")),
                           f.loop("x"));
    Stmt second = LetStmt::make(
        "a", i32(2),
        For::make("x", i32(0), i32(4), ForType::Serial,
                  LetStmt::make("x", Add::make(var("x"), i32(1)), store(var("a"), var("x"))), f.loop("x")));
    Stmt s = LetStmt::make("a", i32(1), Block::make(first, second));
    Stmt u = lower::uniquify_names(s);
    EXPECT_EQ(violation(f.pipeline(u)), "");

    // The binders and what each use refers to.
    struct Names : IRVisitor {
        std::vector<std::string> bound, used;
        using IRVisitor::include;
        void visit(const LetStmt *op) override {
            bound.push_back(op->name);
            IRVisitor::visit(op);
        }
        void visit(const For *op) override {
            bound.push_back(op->name);
            IRVisitor::visit(op);
        }
        void visit(const Variable *op) override { used.push_back(op->name); }
    } n;
    n.include(u);
    EXPECT_EQ(n.bound, (std::vector<std::string>{"a", "x", "a$2", "x$2", "x$3"}));
    // First loop: a + x, index x; second: x$2 + 1 (the inner let), a$2 (value), x$3 (index).
    EXPECT_EQ(n.used, (std::vector<std::string>{"a", "x", "x", "x$2", "a$2", "x$3"}));
}

}  // namespace
