// Bad programs and bad inputs: each is reported as the right kind of error (CompileError for
// a wrong algorithm, RuntimeError for bad inputs), never as an InternalError, with a message
// that uses the user's own names.

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "tessera/tessera.h"

using namespace tessera;

namespace {

// Runs f, which must throw exactly an E (not an InternalError, not another error type);
// the message must contain every substring.
template<typename E>
void expect_error(const std::function<void()> &f, const std::vector<std::string> &substrings) {
    static_assert(!std::is_same_v<E, InternalError>);
    try {
        f();
        ADD_FAILURE() << "expected " << typeid(E).name() << ", but nothing was thrown";
    } catch (const InternalError &e) {
        ADD_FAILURE() << "an InternalError escaped (a user error must never be reported as one): " << e.what();
    } catch (const E &e) {
        const std::string msg = e.what();
        for (const std::string &s : substrings)
            EXPECT_NE(msg.find(s), std::string::npos) << "the message \"" << msg << "\" does not contain \"" << s << "\"";
    } catch (const std::exception &e) {
        ADD_FAILURE() << "expected " << typeid(E).name() << ", got " << typeid(e).name() << ": " << e.what();
    }
}

// EXPECT_THROW for the type, then the message check. `f` must be repeatable (it builds
// everything it needs).
#define EXPECT_USER_ERROR(E, f, ...)                   \
    do {                                               \
        EXPECT_THROW((f)(), E);                        \
        expect_error<E>((f), {__VA_ARGS__});           \
    } while (0)

TEST(BadInput, WrongArityOfAFuncCallInADefinition) {
    auto f = [] {
        Var x("x");
        Func producer("producer"), consumer("consumer");
        producer(x) = x;
        consumer(x) = producer(x, x) + 1;
    };
    EXPECT_USER_ERROR(CompileError, f, "consumer", "producer", "2 arguments", "has 1");
    // Also in an update, and for a self-reference.
    auto g = [] {
        Var x("x");
        Func producer("producer2"), consumer("consumer2");
        producer(x, Var("y")) = x;
        consumer(x) = 0;
        consumer(x) = consumer(x) + producer(x);
    };
    EXPECT_USER_ERROR(CompileError, g, "consumer2", "update 0", "producer2");
    auto h = [] {
        Var x("x");
        Func s("selfish");
        s(x) = x;
        s(x) = s(x, 1) + 1;
    };
    EXPECT_USER_ERROR(CompileError, h, "selfish", "update 0", "2 arguments");
    // Reading a Buffer with the wrong number of coordinates.
    auto b = [] {
        Var x("x");
        Buffer<int32_t> table(std::vector<int>{4, 4}, "table");
        Func f("reader");
        f(x) = table(x);
    };
    EXPECT_USER_ERROR(CompileError, b, "table", "2 dimensions", "called with 1 coordinate");
}

TEST(BadInput, UpdateArityMismatch) {
    auto f = [] {
        Var x("x");
        Func acc("acc");
        acc(x) = 0;
        acc(x, 0) = 1;
    };
    EXPECT_USER_ERROR(CompileError, f, "acc", "update 0", "2 arguments", "1 dimensions");
    auto g = [] {
        Var x("x"), y("y");
        Func img("img2d");
        img(x, y) = x + y;
        img(x) = 0;
    };
    EXPECT_USER_ERROR(CompileError, g, "img2d", "update 0", "1 arguments");
}

TEST(BadInput, UpdateTypeDiffersFromPureDefinition) {
    auto f = [] {
        Var x("x");
        Func total("total");
        total(x) = 0;
        total(x) = total(x) + 0.5f;
    };
    EXPECT_USER_ERROR(CompileError, f, "update 0", "total", "float32", "int32");
    auto g = [] {
        Var x("x");
        Func total("total_u8");
        total(x) = cast<uint8_t>(x);
        total(x) = total(x) * 2;        // update 0: still uint8
        total(x) = cast<int16_t>(total(x));  // update 1: int16
    };
    EXPECT_USER_ERROR(CompileError, g, "update 1", "total_u8", "int16", "uint8");
}

TEST(BadInput, RVarInAPureDefinition) {
    auto value = [] {
        Var x("x");
        RDom r(0, 10, "rows");
        Func f("pure_with_rvar");
        f(x) = x + r;
    };
    EXPECT_USER_ERROR(CompileError, value, "pure_with_rvar", "pure definition", "rows.x");
    auto lhs = [] {
        RDom r(0, 10, "cols");
        Func f("rvar_lhs");
        f(r) = 0;
    };
    EXPECT_USER_ERROR(CompileError, lhs, "rvar_lhs", "pure definition", "cols.x");
}

TEST(BadInput, CallToAnUndefinedFunc) {
    auto f = [] {
        Var x("x");
        Func missing("missing_producer"), user("user_func");
        user(x) = missing(x) * 2;
    };
    EXPECT_USER_ERROR(CompileError, f, "user_func", "missing_producer", "no definition");
    auto g = [] {
        Var x("x");
        Func missing("missing_in_update"), user("user_func2");
        user(x) = x;
        user(x) = user(x) + missing(x);
    };
    EXPECT_USER_ERROR(CompileError, g, "user_func2", "update 0", "missing_in_update", "no definition");
}

TEST(BadInput, RealizingAnUndefinedFunc) {
    auto f = [] {
        Func nothing("nothing_here");
        nothing.realize({4});
    };
    EXPECT_USER_ERROR(CompileError, f, "nothing_here", "no definition");
    auto g = [] {
        Func nothing("nothing_here_either");
        nothing.realize_reference({4});
    };
    EXPECT_USER_ERROR(CompileError, g, "nothing_here_either", "no definition");
    auto t = [] {
        Func nothing("typeless");
        (void)nothing.type();
    };
    EXPECT_USER_ERROR(CompileError, t, "typeless");
}

TEST(BadInput, BufferElementOutOfRange) {
    auto f = [] {
        Buffer<int32_t> samples(std::vector<int>{10}, "samples");
        (void)samples(100);
    };
    EXPECT_USER_ERROR(RuntimeError, f, "samples", "dimension 0", "100", "[0, 9]");
    auto neg = [] {
        Buffer<uint8_t> grid(std::vector<int>{4, 3}, "grid");
        (void)grid(2, -1);
    };
    EXPECT_USER_ERROR(RuntimeError, neg, "grid", "dimension 1", "-1", "[0, 2]");
    // The same read inside an algorithm: a RuntimeError when the pipeline runs.
    auto algo = [] {
        Buffer<int32_t> samples(std::vector<int>{10}, "samples_in");
        Var x("x");
        Func f("shifted");
        f(x) = samples(x + 5);
        f.realize({10});
    };
    // Compiled code checks the whole region it reads before computing anything.
    EXPECT_USER_ERROR(RuntimeError, algo, "samples_in", "dimension 0", "[5, 14]", "[0, 9]");
    // The reference interpreter computes the window in order, so the first bad read it
    // reports is samples_in(10), at x = 5.
    auto algo_reference = [] {
        Buffer<int32_t> samples(std::vector<int>{10}, "samples_in");
        Var x("x");
        Func f("shifted");
        f(x) = samples(x + 5);
        f.realize_reference({10});
    };
    EXPECT_USER_ERROR(RuntimeError, algo_reference, "samples_in", "dimension 0", "10", "[0, 9]");
    // With a non-zero min.
    auto moved = [] {
        Buffer<int32_t> samples(std::vector<int>{10}, "moved");
        samples.set_min({5});
        (void)samples(4);
    };
    EXPECT_USER_ERROR(RuntimeError, moved, "moved", "dimension 0", "[5, 14]");
}

TEST(BadInput, RealizeWithTheWrongNumberOfSizes) {
    auto f = [] {
        Var x("x"), y("y");
        Func img("image2d");
        img(x, y) = x + y;
        img.realize({4});
    };
    EXPECT_USER_ERROR(CompileError, f, "image2d", "2 dimensions", "1 sizes");
    auto g = [] {
        Var x("x");
        Func line("line1d");
        line(x) = x;
        line.realize({4, 4, 4});
    };
    EXPECT_USER_ERROR(CompileError, g, "line1d", "1 dimensions", "3 sizes");
    // Realizing into a buffer of the wrong dimensionality or type.
    auto into = [] {
        Var x("x");
        Func line("line_into");
        line(x) = x;
        Buffer<int32_t> dst(std::vector<int>{4, 4}, "dst2d");
        line.realize(dst);
    };
    EXPECT_USER_ERROR(RuntimeError, into, "line_into", "dst2d");
    auto typed = [] {
        Var x("x");
        Func line("line_typed");
        line(x) = x;
        Buffer<float> dst(std::vector<int>{4}, "dst_float");
        line.realize(dst);
    };
    EXPECT_USER_ERROR(RuntimeError, typed, "line_typed", "dst_float", "float32", "int32");
}

TEST(BadInput, ImageParamWithoutABoundBuffer) {
    auto f = [] {
        ImageParam input(Int(32), 1, "unbound_input");
        Var x("x");
        Func f("reads_unbound");
        f(x) = input(x) + 1;
        f.realize({4});
    };
    EXPECT_USER_ERROR(RuntimeError, f, "unbound_input");
    // Its shape used in an RDom bound is also unknown without a buffer.
    auto g = [] {
        ImageParam input(Float(32), 1, "unbound_shape");
        Var x("x");
        Func f("sum_unbound");
        RDom r(0, input.width(), "ur");
        f(x) = 0.0f;
        f(x) = f(x) + cast<float>(r);
        f.realize({1});
    };
    EXPECT_USER_ERROR(RuntimeError, g, "unbound_shape");
}

TEST(BadInput, ImageParamSetWithTheWrongBuffer) {
    auto type = [] {
        ImageParam input(UInt(8), 2, "photo");
        Buffer<float> b(std::vector<int>{4, 4}, "floats");
        input.set(b);
    };
    EXPECT_USER_ERROR(CompileError, type, "photo", "uint8", "float32");
    auto dims = [] {
        ImageParam input(UInt(8), 2, "photo3");
        Buffer<uint8_t> b(std::vector<int>{4, 4, 3}, "rgb");
        input.set(b);
    };
    EXPECT_USER_ERROR(CompileError, dims, "photo3", "2 dimensions", "3");
    // A correct set() works.
    ImageParam ok(UInt(8), 2, "photo_ok");
    EXPECT_NO_THROW(ok.set(Buffer<uint8_t>(std::vector<int>{4, 4})));
}

TEST(BadInput, ParamOutsideItsRange) {
    auto above = [] {
        Param<int32_t> gain("gain");
        gain.set_range(0, 10);
        gain.set(11);
        Var x("x");
        Func f("scaled");
        f(x) = x * gain;
        f.realize({4});
    };
    EXPECT_USER_ERROR(RuntimeError, above, "gain", "11", "10");
    auto below = [] {
        Param<float> sigma("sigma");
        sigma.set_range(0.5f, 4.0f);
        sigma.set(0.25f);
        Var x("x");
        Func f("blurred");
        f(x) = cast<float>(x) * sigma;
        f.realize_reference({4});
    };
    EXPECT_USER_ERROR(RuntimeError, below, "sigma", "0.25", "0.5");
    // In range: fine.
    Param<int32_t> gain("gain_ok");
    gain.set_range(0, 10);
    gain.set(10);
    Var x("x");
    Func f("scaled_ok");
    f(x) = x * gain;
    EXPECT_NO_THROW(f.realize({4}));
}

TEST(BadInput, FloatCoordinates) {
    auto call = [] {
        Var x("x");
        Func f("coords_f"), g("coords_g");
        f(x) = x;
        g(x) = f(cast<float>(x) * 0.5f);
    };
    EXPECT_USER_ERROR(CompileError, call, "coords_f", "float32", "coordinates");
    auto read = [] {
        Var x("x");
        Buffer<int32_t> in(std::vector<int>{8}, "float_read");
        Func g("coords_h");
        g(x) = in(x * 0.5);
    };
    EXPECT_USER_ERROR(CompileError, read, "float_read", "float64", "coordinates");
    auto lhs = [] {
        Var x("x");
        Func f("coords_lhs");
        f(x) = 0;
        f(cast<float>(x)) = 1;
    };
    EXPECT_USER_ERROR(CompileError, lhs, "coords_lhs", "float32", "coordinates");
    auto wide = [] {
        Var x("x");
        Func f("coords_64"), g("coords_64g");
        f(x) = x;
        g(x) = f(cast<int64_t>(x));
    };
    EXPECT_USER_ERROR(CompileError, wide, "coords_64", "int64");
}

TEST(BadInput, NegativeRealizeSize) {
    auto f = [] {
        Var x("x"), y("y");
        Func img("negative_window");
        img(x, y) = x;
        img.realize({4, -2});
    };
    EXPECT_USER_ERROR(RuntimeError, f, "negative_window", "-2", "dimension 1");
    auto buf = [] { Buffer<int32_t> b(std::vector<int>{-3}, "negative_buffer"); };
    EXPECT_USER_ERROR(RuntimeError, buf, "negative_buffer", "-3");
}

TEST(BadInput, TypedBufferFromADynamicBufferOfAnotherType) {
    auto f = [] {
        Buffer<> dynamic(Int(32), std::vector<int>{4}, "ints");
        Buffer<float> typed(dynamic);
    };
    EXPECT_USER_ERROR(RuntimeError, f, "ints", "int32", "float32");
    auto realized = [] {
        Var x("x");
        Func f("int_func");
        f(x) = x;
        Buffer<float> out = f.realize({4});
    };
    EXPECT_USER_ERROR(RuntimeError, realized, "int_func", "int32", "float32");
    auto ctor = [] { Buffer<uint8_t> b(Int(16), std::vector<int>{2}, "int16s"); };
    EXPECT_USER_ERROR(RuntimeError, ctor, "int16s", "int16", "uint8");
}

TEST(BadInput, TwoFuncsWithTheSameName) {
    auto f = [] {
        Var x("x");
        Func a("twin"), b("twin");
        a(x) = x;
        b(x) = a(x) + 1;
    };
    EXPECT_USER_ERROR(CompileError, f, "twin", "unique");
    // Met only through a third Func.
    auto g = [] {
        Var x("x");
        Func a("blur"), b("blur"), c("combine");
        a(x) = x;
        b(x) = x * 2;
        c(x) = a(x) + b(x);
    };
    EXPECT_USER_ERROR(CompileError, g, "blur", "unique");
    // A Func and a Buffer with the same name.
    auto h = [] {
        Var x("x");
        Buffer<int32_t> in(std::vector<int>{4}, "shared_name");
        Func f("shared_name");
        f(x) = in(x);
    };
    EXPECT_USER_ERROR(CompileError, h, "shared_name", "unique");
}

TEST(BadInput, UpdateAfterUse) {
    auto f = [] {
        Var x("x");
        Func producer("early"), consumer("late_user");
        producer(x) = x;
        consumer(x) = producer(x) * 2;
        producer(x) = producer(x) + 1;
    };
    EXPECT_USER_ERROR(CompileError, f, "early", "update 0");
    auto realized = [] {
        Var x("x");
        Func f("realized_first");
        f(x) = x;
        f.realize({4});
        f(x) += 1;
    };
    EXPECT_USER_ERROR(CompileError, realized, "realized_first", "update 0");
    auto second = [] {
        Var x("x");
        Func p("two_updates"), c("reader2");
        p(x) = x;
        p(x) += 1;
        c(x) = p(x);
        p(x) *= 2;
    };
    EXPECT_USER_ERROR(CompileError, second, "two_updates", "update 1");
}

TEST(BadInput, RDomWhereAfterUse) {
    auto f = [] {
        Var x("x");
        RDom r(0, 10, "dom");
        Func acc("acc_where");
        acc(x) = 0;
        acc(x) = acc(x) + r;
        r.where(r.x > 2);
    };
    EXPECT_USER_ERROR(CompileError, f, "dom", "where");
    // where() with a non-bool condition.
    auto nonbool = [] {
        RDom r(0, 10, "dom2");
        r.where(r.x + 1);
    };
    EXPECT_USER_ERROR(CompileError, nonbool, "dom2", "int32");
}

TEST(BadInput, RDomBoundDependsOnAVar) {
    auto extent = [] {
        Var x("x");
        RDom r(0, x, "tri");
        Func f("triangle");
        f(x) = 0;
        f(x) = f(x) + r;
    };
    EXPECT_USER_ERROR(CompileError, extent, "triangle", "update 0", "tri.x", "extent");
    auto min = [] {
        Var x("x");
        RDom r(x, 3, "window");
        Func f("windowed");
        f(x) = 0;
        f(x) = f(x) + r;
    };
    EXPECT_USER_ERROR(CompileError, min, "windowed", "update 0", "window.x", "min");
    // A bound that reads a Func.
    auto func = [] {
        Var x("x");
        Func n("count");
        n(x) = 5;
        RDom r(0, n(0), "counted");
        Func f("uses_count");
        f(x) = 0;
        f(x) = f(x) + r;
    };
    EXPECT_USER_ERROR(CompileError, func, "uses_count", "counted.x");
    // A float bound.
    auto flt = [] { RDom r(0, 2.5f, "fdom"); };
    EXPECT_USER_ERROR(CompileError, flt, "fdom", "float32");
}

TEST(BadInput, UpdateVarsMustBeThePureDefinitionsVars) {
    // An update's pure Vars are the pure definition's Vars, in the same positions.
    auto swapped = [] {
        Var x("x"), y("y");
        Func f("swapped");
        f(x, y) = x * 10 + y;
        f(y, x) = f(y, x) * 2;
    };
    EXPECT_USER_ERROR(CompileError, swapped, "swapped", "update 0", "argument 0", "y", "x");
    auto renamed = [] {
        Var x("x"), z("z");
        Func g("renamed");
        g(x) = x;
        g(z) = g(z) + z;
    };
    EXPECT_USER_ERROR(CompileError, renamed, "renamed", "update 0", "z", "x");
    // A Var in two left-hand-side positions.
    auto twice = [] {
        Var x("x"), y("y");
        Func f("twice");
        f(x, y) = x + y;
        f(x, x) = 0;
    };
    EXPECT_USER_ERROR(CompileError, twice, "twice", "update 0", "x", "argument 1");
    // A Var used in the value but not on the left-hand side.
    auto missing = [] {
        Var x("x"), y("y");
        Func f("not_on_lhs");
        f(x, y) = x;
        f(x, 0) = f(x, 0) + y;
    };
    EXPECT_USER_ERROR(CompileError, missing, "not_on_lhs", "update 0", "y");
    // A self-call with the Vars in other positions (the separation rule).
    auto moved = [] {
        Var x("x"), y("y");
        Func f("moved_self");
        f(x, y) = x + y;
        f(x, y) = f(y, x);
    };
    EXPECT_USER_ERROR(CompileError, moved, "moved_self", "update 0", "argument 0", "x");
    // A Var nested inside a reduction argument of the left-hand side.
    auto nested = [] {
        Var x("x");
        Func f("nested_lhs");
        f(x) = 0;
        f(x + 1) = 1;
    };
    EXPECT_USER_ERROR(CompileError, nested, "nested_lhs", "update 0", "x + 1");
    // Legal: the pure definition's Vars in their positions, reduction dimensions elsewhere.
    Var x("x"), y("y");
    Func ok("legal_update");
    ok(x, y) = x * 10 + y;
    ok(x, y) = ok(x, y) * 2 + x;
    ok(x, 0) = ok(x, 0) + 1;
    Buffer<int32_t> out = ok.realize({3, 2});
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) EXPECT_EQ(out(i, j), (i * 10 + j) * 2 + i + (j == 0 ? 1 : 0)) << i << ", " << j;
}

// docs/semantics.md §8 rule 2: all RVars of an update come from one RDom, including those of
// its `where` predicates (otherwise the predicate would silently read the update's own RDom
// variable of the same index).
TEST(BadInput, WherePredicateWithAnotherRDomsRVar) {
    auto f = [] {
        Var x("x");
        RDom r(0, 10, "own"), s(5, 3, "foreign");
        r.where(s.x < 7);
        Func g("mixed_rdoms");
        g(x) = 0;
        g(0) = g(0) + r.x;
    };
    EXPECT_USER_ERROR(CompileError, f, "mixed_rdoms", "update 0", "own", "foreign");
}

TEST(BadInput, NegativeRDomExtent) {
    auto f = [] {
        Param<int32_t> n("n_items", -3);
        Var x("x");
        RDom r(0, n, "items");
        Func out("summed");
        out(x) = 0;
        out(x) += r;
        out.realize({2});
    };
    EXPECT_USER_ERROR(RuntimeError, f, "summed", "update 0", "items", "-3");
}

}  // namespace

// A Buffer made without a name is described by what the user can recognize: its type, its
// size and its place among the pipeline's inputs; a named one by its name alone.
TEST(BadInput, AnUnnamedBufferReadPastItsEndIsDescribed) {
    auto run = [] {
        Buffer<float> a(std::vector<int>{10, 4}), b(std::vector<int>{16, 3, 3, 8});
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = b(x, y, 0, 0) + a(x + 1, y);
        f.realize({16, 3});
    };
    expect_error<RuntimeError>(run, {"(an unnamed float32 Buffer of 10 x 4, the pipeline's 2nd input buffer) is read at [1, 16] in dimension 0, but it covers only [0, 9]"});
    auto named = [] {
        Buffer<float> a(std::vector<int>{10, 4}, "weights");
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = a(x + 1, y);
        f.realize({16, 3});
    };
    expect_error<RuntimeError>(named, {"Input buffer \"weights\" is read at [1, 16] in dimension 0"});
    try {
        named();
    } catch (const RuntimeError &e) {
        EXPECT_EQ(std::string(e.what()).find("unnamed"), std::string::npos) << e.what();
    }
}
