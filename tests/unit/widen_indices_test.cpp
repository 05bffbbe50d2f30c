// widen_indices: the int32 coordinates in element offsets are widened operation by
// operation, and a variable bound to another coordinate plus a constant (an unrolled
// loop's copy of its variable) is widened as its value, so that offsets relative to the
// same coordinate become constants; lets of other values, and lets whose variables have
// been bound again, keep their variable.

#include <gtest/gtest.h>

#include "analysis/Simplify.h"
#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "lower/Pipeline.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }
Expr var(const char *n) { return Variable::make(Int(32), n); }
Expr i64(const Expr &e) { return Cast::make(Int(64), e); }

/** out[int64(a) - int64(b)] = 0 */
Stmt store_at_difference(const char *a, const char *b) {
    return Store::make("out", i32(0), Sub::make(i64(var(a)), i64(var(b))), nullptr);
}

/** The index of the one store in s after widen_indices and simplification. */
std::string widened_index(const Stmt &s) {
    Stmt t = analysis::simplify(lower::widen_indices(s));
    while (true) {
        if (const LetStmt *l = as<LetStmt>(t)) t = l->body;
        else if (const For *f = as<For>(t)) t = f->body;
        else break;
    }
    const Store *st = as<Store>(t);
    return st ? to_string(st->index) : "no store: " + to_string(t);
}

TEST(WidenIndices, AnUnrolledCopyOfAVariableIsAConstantAwayFromIt) {
    // let x$2 = x.min + 1; let x$3 = x$2 + 1; out[int64(x$3) - int64(x.min)]
    Stmt s = LetStmt::make("x$2", Add::make(var("x.min"), i32(1)),
                           LetStmt::make("x$3", Add::make(var("x$2"), i32(1)), store_at_difference("x$3", "x.min")));
    EXPECT_EQ(widened_index(s), "int64(2)");
}

TEST(WidenIndices, AMinPlusAConstantIsWidenedAroundTheMin) {
    // let x = min(xo * 8, n) + 3; out[int64(x) - int64(min(xo * 8, n))]: the clamp of a
    // ShiftInwards tile, as unrolling copies it.
    Expr base = Min::make(Mul::make(var("xo"), i32(8)), var("n"));
    Stmt s = LetStmt::make("x", Add::make(base, i32(3)),
                           Store::make("out", i32(0), Sub::make(i64(var("x")), i64(base)), nullptr));
    EXPECT_EQ(widened_index(s), "int64(3)");
}

TEST(WidenIndices, OtherLetsKeepTheirVariable) {
    // let y = a + b: a loop that starts at y counts from it; substituting would hide that.
    Stmt s = LetStmt::make("y", Add::make(var("a"), var("b")), store_at_difference("y", "a"));
    EXPECT_EQ(widened_index(s), to_string(analysis::simplify(Sub::make(i64(var("y")), i64(var("a"))))));
}

TEST(WidenIndices, ALetOfALoadedValueKeepsItsVariable) {
    // let t = in[0] + 1: the load repeated at the use could read another value.
    Expr loaded = Load::make(Int(32), "in", IntImm::make(Int(64), 0));
    Stmt s = LetStmt::make("t", Add::make(loaded, i32(1)), store_at_difference("t", "u"));
    EXPECT_EQ(widened_index(s), to_string(analysis::simplify(Sub::make(i64(var("t")), i64(var("u"))))));
}

TEST(WidenIndices, ALetWhoseVariableIsBoundAgainKeepsItsVariable) {
    // let x$2 = x + 1; for x { out[int64(x$2) - int64(x)] }: inside the loop, x is another
    // variable, and x$2 is not x + 1 of it.
    Stmt s = LetStmt::make("x$2", Add::make(var("x"), i32(1)),
                           For::make("x", i32(0), i32(4), ForType::Serial, store_at_difference("x$2", "x")));
    EXPECT_EQ(widened_index(s), to_string(analysis::simplify(Sub::make(i64(var("x$2")), i64(var("x"))))));
}

/** let x$2 = x.min + 1; allocate tile[n] { tile[int64(x$2) - int64(x.min)] = 0 }: the index
 * of the store after widening and simplification. */
std::string index_into_allocation_of(int n) {
    Stmt s = LetStmt::make(
        "x$2", Add::make(var("x.min"), i32(1)),
        Allocate::make("tile", Float(32), {i32(n)},
                       Store::make("tile", FloatImm::make(Float(32), 0.0), Sub::make(i64(var("x$2")), i64(var("x.min"))),
                                   nullptr)));
    Stmt t = analysis::simplify(lower::widen_indices(s));
    while (const LetStmt *l = as<LetStmt>(t)) t = l->body;
    const Allocate *a = as<Allocate>(t);
    const Store *st = a ? as<Store>(a->body) : nullptr;
    return st ? to_string(st->index) : "no store: " + to_string(t);
}

TEST(WidenIndices, OnlyARegisterTilesIndicesAreWidenedThroughLets) {
    // 128 floats (8 vectors of 16) are a register tile; 384 (a matmul's 24 accumulators) are
    // not: the C compiler spills such a tile inside its loop when it sees every index.
    EXPECT_EQ(index_into_allocation_of(128), "int64(1)");
    EXPECT_NE(index_into_allocation_of(384), "int64(1)");
    EXPECT_NE(index_into_allocation_of(384).find("x$2"), std::string::npos) << index_into_allocation_of(384);
}

}  // namespace
