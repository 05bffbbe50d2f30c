// vectorize_loops: a vectorized loop becomes vector expressions, and every store keeps an
// annotation of the points its lanes compute.

#include <gtest/gtest.h>

#include "ir/IR.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"
#include "support/hand_lowered.h"

using namespace tessera;
using namespace tessera::ir;

namespace {

Expr i32(int v) { return IntImm::make(Int(32), v); }

}  // namespace

TEST(VectorizeLoops, AStoreAlikeInEveryLaneIsOnePerLaneEachAnnotatedWithItsPoint) {
    // Storage folded to one cell, a value that does not vary: f[0] = 7 for the points x of
    // a vectorized loop. Every lane stores the same value into the same cell, but each for
    // its own point: the store becomes a vector store (its value and index broadcast) whose
    // annotation names each lane's point (once, the store stayed scalar while its
    // annotation named the vector loop's variable; fuzz seeds 10100680 and 15100740).
    auto prov = std::make_shared<Provenance>();
    prov->func = test::named_func("f");
    prov->coords = {Variable::make(Int(32), "f.s0.x")};
    Stmt store = Store::make("f", i32(7), i32(0), prov);
    Stmt s = For::make("f.s0.x", i32(0), i32(8), ForType::Vectorized, store, test::loop_of(prov->func, 0, "x"));
    Stmt v = lower::vectorize_loops(s);
    struct Stores : IRVisitor {
        std::vector<const Store *> found;
        using IRVisitor::include;
        void visit(const Store *op) override { found.push_back(op); }
    } stores;
    stores.include(v);
    ASSERT_EQ(stores.found.size(), 1u) << v;
    const Store *st = stores.found[0];
    EXPECT_EQ(st->value.type().lanes, 8) << v;
    EXPECT_EQ(st->index.type().lanes, 8) << v;
    ASSERT_TRUE(st->provenance);
    EXPECT_EQ(st->provenance->coords.at(0).type().lanes, 8) << v;
}
