// Bad schedules: each one is a CompileError (never an InternalError, never a crash) whose
// message says what is wrong in the user's names. Some are caught by the directive itself,
// the others when the pipeline is compiled (realize).

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <tessera/tessera.h>

using namespace tessera;

namespace {

void expect_compile_error(const std::function<void()> &f, const std::vector<std::string> &substrings) {
    try {
        f();
        ADD_FAILURE() << "expected a CompileError mentioning \"" << substrings.front() << "\"; nothing was thrown";
    } catch (const InternalError &e) {
        ADD_FAILURE() << "an InternalError escaped: " << e.what();
    } catch (const CompileError &e) {
        const std::string msg = e.what();
        for (const std::string &s : substrings)
            EXPECT_NE(msg.find(s), std::string::npos) << "the message \"" << msg << "\" does not contain \"" << s << "\"";
    } catch (const std::exception &e) {
        ADD_FAILURE() << "expected a CompileError, got: " << e.what();
    }
}

// A small pipeline to schedule: in -> g -> f (2-D), and a histogram h with an update.
struct Pipe {
    Buffer<int32_t> in{std::vector<int>{32, 32}, "in"};
    Var x{"x"}, y{"y"}, xo{"xo"}, xi{"xi"}, yo{"yo"}, yi{"yi"}, t{"t"};
    Func g{"g"}, f{"f"};
    Pipe() {
        g(x, y) = in(x, y) * 2;
        f(x, y) = g(x, y) + g(x + 1, y);
    }
    void run() { f.realize({16, 16}); }
};

struct Reduction {
    Buffer<int32_t> in{std::vector<int>{16, 16}, "in"};
    Var x{"x"}, y{"y"}, u{"u"};
    RDom r{0, 16, 0, 16, "r"};
    Func hist{"hist"}, sum{"sum"}, fsum{"fsum"}, last{"last"};
    Reduction() {
        hist(x) = 0;
        hist(clamp(in(r.x, r.y), 0, 7)) += 1;
        sum(x) = 0;
        sum(x) += in(r.x, r.y) + x;
        fsum(x) = 0.0f;
        fsum(x) += cast<float>(in(r.x, r.y)) * 0.5f;
        last(x) = 0;
        last(x) = in(r.x, r.y) + last(x) * 3;  // order matters
    }
};

}  // namespace

// --- directives checked where they are given -----------------------------------------

TEST(ScheduleErrors, SplitOfAnUnknownLoop) {
    Pipe p;
    expect_compile_error([&] { p.f.split(Var("z"), p.xo, p.xi, 4); }, {"Var z is not a loop", "loops are", "y, x"});
}
TEST(ScheduleErrors, SplitIntoTwoLoopsOfTheSameName) {
    Pipe p;
    expect_compile_error([&] { p.f.split(p.x, p.xi, p.xi, 4); }, {"different names"});
}
TEST(ScheduleErrors, SplitNameClash) {
    Pipe p;
    expect_compile_error([&] { p.f.split(p.x, p.y, p.xi, 4); }, {"the name y is already a loop"});
}
TEST(ScheduleErrors, SplitByZero) {
    Pipe p;
    expect_compile_error([&] { p.f.split(p.x, p.xo, p.xi, 0); }, {"split factor is 0", "must be positive"});
}
TEST(ScheduleErrors, SplitByANegativeFactor) {
    Pipe p;
    expect_compile_error([&] { p.f.split(p.x, p.xo, p.xi, -3); }, {"must be positive"});
}
TEST(ScheduleErrors, SplitByAFloat) {
    Pipe p;
    expect_compile_error([&] { p.f.split(p.x, p.xo, p.xi, 2.5f); }, {"float32", "must be an integer"});
}
TEST(ScheduleErrors, SplitByAVar) {
    Pipe p;
    expect_compile_error([&] { p.f.split(p.x, p.xo, p.xi, p.y); }, {"startup expression"});
}
TEST(ScheduleErrors, RoundUpOnAnRVar) {
    Reduction q;
    expect_compile_error([&] { q.sum.update().split(q.r.x, Var("ro"), Var("ri"), 4, TailStrategy::RoundUp); },
                         {"RoundUp is not allowed", "r.x", "GuardWithIf"});
}
TEST(ScheduleErrors, RoundUpOnAFuncWithUpdates) {
    Reduction q;
    q.sum.split(q.x, Var("xo"), Var("xi"), 4, TailStrategy::RoundUp);
    expect_compile_error([&] { q.sum.realize({8}); }, {"Func \"sum\" has 2", "RoundUp", "GuardWithIf"});
}
TEST(ScheduleErrors, ShiftInwardsOnAnUpdate) {
    Reduction q;
    q.sum.update().split(q.x, Var("xo"), Var("xi"), 4, TailStrategy::ShiftInwards);
    expect_compile_error([&] { q.sum.realize({8}); }, {"update 0 of Func \"sum\"", "ShiftInwards"});
}
TEST(ScheduleErrors, FuseOfLoopsThatAreNotAdjacent) {
    Pipe p;
    Var z("z");
    Func h3("h3");
    h3(p.x, p.y, z) = p.x + p.y + z;
    expect_compile_error([&] { h3.fuse(p.x, z, p.t); }, {"z must be the loop directly outside x", "reorder"});
}
TEST(ScheduleErrors, FuseOfAPureAndAReductionLoop) {
    Reduction q;
    expect_compile_error([&] { q.sum.update().fuse(q.r.y, q.x, Var("fused")); },
                         {"reduction loop r.y", "pure loop x", "only two pure loops or two reduction loops"});
}
TEST(ScheduleErrors, FuseIntoAnExistingName) {
    Var x("x"), y("y"), z("z");
    Func h3("h3");
    h3(x, y, z) = x + y + z;
    expect_compile_error([&] { h3.fuse(x, y, z); }, {"the name z is already a loop"});
}
TEST(ScheduleErrors, ReorderOfAnUnknownLoop) {
    Pipe p;
    expect_compile_error([&] { p.f.reorder(p.y, Var("w")); }, {"Var w is not a loop"});
}
TEST(ScheduleErrors, ReorderListingALoopTwice) {
    Pipe p;
    expect_compile_error([&] { p.f.reorder(p.y, p.y); }, {"y is listed twice"});
}
TEST(ScheduleErrors, RenameToAnExistingName) {
    Pipe p;
    expect_compile_error([&] { p.f.rename(p.x, p.y); }, {"the name y is already a loop"});
}
TEST(ScheduleErrors, VectorizeByAVariableWidth) {
    Pipe p;
    Param<int> w("w");
    expect_compile_error([&] { p.f.vectorize(p.x, w); }, {"vector width", "must be a constant"});
}
TEST(ScheduleErrors, UnrollByAVariableFactor) {
    Pipe p;
    Param<int> w("w");
    expect_compile_error([&] { p.f.unroll(p.x, w); }, {"unroll factor", "must be a constant"});
}
TEST(ScheduleErrors, SpecializeOnAVar) {
    Pipe p;
    expect_compile_error([&] { p.f.specialize(p.x > 3); }, {"specialize", "startup expression"});
}
TEST(ScheduleErrors, SpecializeOnAFloat) {
    Pipe p;
    Param<float> a("a");
    expect_compile_error([&] { p.f.specialize(a); }, {"float32", "boolean or an integer"});
}
TEST(ScheduleErrors, SpecializeFailWithoutSpecialize) {
    Pipe p;
    expect_compile_error([&] { p.f.specialize_fail("no"); }, {"needs at least one specialize()"});
}
TEST(ScheduleErrors, SpecializeAfterSpecializeFail) {
    Pipe p;
    Param<bool> b("b");
    p.f.specialize(b);
    p.f.specialize_fail("unsupported");
    expect_compile_error([&] { p.f.specialize(!b); }, {"after specialize_fail()"});
}
TEST(ScheduleErrors, ScheduleOfAnUndefinedFunc) {
    Func nothing("nothing");
    Var x("x");
    expect_compile_error([&] { nothing.vectorize(x, 4); }, {"\"nothing\"", "no definition"});
    expect_compile_error([&] { nothing.compute_root(); }, {"\"nothing\"", "no definition"});
}
TEST(ScheduleErrors, ComputeInlineOfAFuncWithUpdates) {
    Reduction q;
    expect_compile_error([&] { q.sum.compute_inline(); }, {"update definitions cannot be inlined", "compute_root"});
}
TEST(ScheduleErrors, ComputeAtItself) {
    Pipe p;
    expect_compile_error([&] { p.g.compute_at(p.g, p.x); }, {"inside its own loops"});
}
TEST(ScheduleErrors, BoundOfANonDimension) {
    Pipe p;
    expect_compile_error([&] { p.g.bound(Var("z"), 0, 4); }, {"z is not a dimension of the Func", "(x, y)"});
}
TEST(ScheduleErrors, BoundByAVar) {
    Pipe p;
    expect_compile_error([&] { p.g.bound(p.x, 0, p.y); }, {"extent", "startup expression"});
}
TEST(ScheduleErrors, AlignBoundsByZero) {
    Pipe p;
    expect_compile_error([&] { p.g.align_bounds(p.x, 0); }, {"modulus must be positive"});
}
TEST(ScheduleErrors, ReorderStorageListingADimensionTwice) {
    Pipe p;
    expect_compile_error([&] { p.g.reorder_storage(p.x, p.x); }, {"x is listed twice"});
}
TEST(ScheduleErrors, FoldStorageByZero) {
    Pipe p;
    expect_compile_error([&] { p.g.fold_storage(p.y, 0); }, {"fold extent must be positive"});
}
TEST(ScheduleErrors, WrapperOfItself) {
    Pipe p;
    expect_compile_error([&] { p.g.in(p.g); }, {"cannot wrap itself"});
}
TEST(ScheduleErrors, RFactorOfAPureDefinition) {
    Pipe p;
    expect_compile_error([&] { p.f.update(); }, {"has no update definition 0"});
    Reduction q;
    expect_compile_error([&] { Stage(q.sum.data(), 0).rfactor(q.r.y, q.u); }, {"applies to an update definition"});
}
TEST(ScheduleErrors, RFactorOfAFloatSum) {
    Reduction q;
    expect_compile_error([&] { q.fsum.update().rfactor(q.r.y, q.u); }, {"float32", "changes its result"});
}
TEST(ScheduleErrors, RFactorOfANonAssociativeUpdate) {
    Reduction q;
    expect_compile_error([&] { q.last.update().rfactor(q.r.y, q.u); }, {"not of the form"});
}
TEST(ScheduleErrors, RFactorOfAForeignRVar) {
    Reduction q;
    RDom other(0, 4, "other");
    expect_compile_error([&] { q.sum.update().rfactor(RVar(other), q.u); }, {"other.x is not a reduction loop of this update", "r.x, r.y"});
}
TEST(ScheduleErrors, RFactorOfALoopNobodyMade) {
    Reduction q;
    RVar ro("ro"), ri("ri");
    expect_compile_error([&] { q.sum.update().split(q.r.x, ro, ri, 4).rfactor(RVar("rz"), q.u); },
                         {"rz is not a reduction loop of this update", "ri, ro, r.y"});
    Reduction q2;
    expect_compile_error([&] { q2.sum.update().split(q2.r.x, ro, ri, 4, TailStrategy::ShiftInwards).rfactor(ri, q2.u); },
                         {"the split of the reduction loop r.x uses ShiftInwards", "GuardWithIf"});
}
TEST(ScheduleErrors, FreeRVarsAreLoopNames) {
    RVar named("ro"), fresh;
    EXPECT_EQ(named.name(), "ro");
    EXPECT_FALSE(fresh.name().empty());
    EXPECT_NE(fresh.name(), RVar().name());
    Func f("f");
    Var x("x");
    expect_compile_error([&] { f(x) = x + named; }, {"RVar ro is not a dimension of an RDom", "value in an expression", "split"});
    expect_compile_error([&] { (void)fresh.extent(); }, {"RVar " + fresh.name() + " is not a dimension of an RDom", "extent"});
    RDom r(0, 4, "r");
    expect_compile_error([&] { f(x) = x + r.y; }, {"RDom r has 1 dimension, so r.y does not exist"});
    RDom undefined;
    expect_compile_error([&] { f(x) = x + undefined.x; }, {"a dimension of an undefined RDom"});
}
TEST(ScheduleErrors, RFactorOntoAnExistingDimension) {
    Reduction q;
    expect_compile_error([&] { q.sum.update().rfactor(q.r.y, q.x); }, {"the Var x is already a dimension"});
}

// --- rules checked when the pipeline is compiled --------------------------------------

TEST(ScheduleErrors, ParallelHistogramRaces) {
    Reduction q;
    q.hist.update().parallel(q.r.y);
    expect_compile_error([&] { q.hist.realize({8}); },
                         {"reduction loop r.y is parallel", "may write the same point", "rfactor()",
                          "allow_race_conditions()"});
}
TEST(ScheduleErrors, VectorizedHistogramRaces) {
    Reduction q;
    q.hist.update().vectorize(q.r.x);
    expect_compile_error([&] { q.hist.realize({8}); }, {"reduction loop r.x is vectorized"});
}
TEST(ScheduleErrors, ReductionLoopsWriteDistinctPointsOnlyAgainstTheLoopsInsideThem) {
    // g(r.y * 8 + r.x) = ...: while the loop over r.x runs, r.y is fixed (a tile's offset),
    // so r.x's iterations write distinct points: vectorizing it is legal, and the result is
    // the algorithm's.
    Buffer<int32_t> in(std::vector<int>{64}, "in");
    for (int i = 0; i < 64; i++) in(i) = i * 7 % 11;
    RDom r(0, 8, 0, 8, "r");
    Var x("x");
    Func g("tiles");
    g(x) = 0;
    g(r.y * 8 + r.x) = in(r.y * 8 + r.x) * 2;
    g.update().vectorize(r.x);
    Buffer<int32_t> out = g.realize({64});
    Buffer<int32_t> want = g.realize_reference({64});
    for (int i = 0; i < 64; i++) EXPECT_EQ(out(i), want(i)) << i;
    // Its rows are disjoint too: r.y * 8 + r.x with r.x < 8 moves by less than 8 while a
    // row runs, so the loop over r.y may be parallel.
    Func rows("rows");
    rows(x) = 0;
    rows(r.y * 8 + r.x) = in(r.y * 8 + r.x) + 1;
    rows.update().parallel(r.y);
    Buffer<int32_t> rows_out = rows.realize({64});
    Buffer<int32_t> rows_want = rows.realize_reference({64});
    for (int i = 0; i < 64; i++) EXPECT_EQ(rows_out(i), rows_want(i)) << i;
    // Rows of 8 at a stride of 4 overlap.
    Func overlap("overlap");
    overlap(x) = 0;
    overlap(r.y * 4 + r.x) = in(r.x);
    overlap.update().parallel(r.y);
    expect_compile_error([&] { overlap.realize({40}); }, {"reduction loop r.y is parallel", "may write the same point"});
    // But against r.y, which changes while the loop over r.y runs, r.x is not fixed:
    // h(r.y + r.x) with r.y parallel writes the same point from two iterations.
    Func h("diagonals");
    h(x) = 0;
    h(r.y + r.x) = in(r.x);
    h.update().parallel(r.y);
    expect_compile_error([&] { h.realize({16}); },
                         {"reduction loop r.y is parallel", "plus terms that move by less than that constant"});
}
TEST(ScheduleErrors, ParallelRDomWhosePredicateReadsAnotherPoint) {
    // Regression R5 (docs/semantics.md §14): f(x) = 1; r.where(f(0) == 1); f(r) = 2; parallel(r).
    Var x("x");
    Func f("f75");
    f(x) = 1;
    RDom r(0, 10, "r");
    r.where(f(0) == 1);
    f(r) = 2;
    f.update().parallel(r);
    expect_compile_error([&] { f.realize({10}); }, {"reads Func \"f75\" at points other than the one it writes",
                                                     "where() predicates"});
}
TEST(ScheduleErrors, ReorderedRVarsOfAFloatSum) {
    Reduction q;
    q.fsum.update().reorder(q.r.y, q.r.x);
    expect_compile_error([&] { q.fsum.realize({4}); }, {"changes the order in which the update runs its RVars"});
}
TEST(ScheduleErrors, ReorderedRVarsOfAnOrderDependentUpdate) {
    Reduction q;
    q.last.update().reorder(q.r.y, q.r.x);
    expect_compile_error([&] { q.last.realize({4}); }, {"update 0 of Func \"last\"", "r.x"});
}
TEST(ScheduleErrors, FusedRVarsTheWrongWayRound) {
    Reduction q;
    q.last.update().reorder(q.r.y, q.r.x).fuse(q.r.y, q.r.x, Var("rr"));
    expect_compile_error([&] { q.last.realize({4}); }, {"changes the order"});
}
TEST(ScheduleErrors, VectorizeOfAVariableExtent) {
    Pipe p;
    p.f.vectorize(p.x);
    expect_compile_error([&] { p.run(); }, {"Can't vectorize the loop over x of Func \"f\"", "not a constant",
                                            "vectorize(var, width)"});
}
TEST(ScheduleErrors, UnrollOfAVariableExtent) {
    Pipe p;
    p.f.unroll(p.y);
    expect_compile_error([&] { p.run(); }, {"Can't unroll the loop over y of Func \"f\"", "not a constant"});
}
TEST(ScheduleErrors, VectorizeWiderThan64Lanes) {
    Pipe p;
    p.f.vectorize(p.x, 128);
    expect_compile_error([&] { p.run(); }, {"at most 64 lanes"});
}
TEST(ScheduleErrors, ComputeAtAFuncThatDoesNotUseIt) {
    Pipe p;
    Func other("other");
    other(p.x, p.y) = p.x;
    p.g.compute_at(other, p.x);
    expect_compile_error([&] { p.run(); }, {"Func \"g\" is scheduled compute_at(other, x)", "not computed in this pipeline",
                                            "the legal levels are: compute_root()"});
}
TEST(ScheduleErrors, ComputeAtALoopThatDoesNotEncloseEveryUse) {
    // g is used by f and by h; compute_at(f, x) would leave h without g.
    Pipe p;
    Func h("h"), out("out");
    h(p.x, p.y) = p.g(p.x, p.y) * 3;
    p.f.compute_root();
    h.compute_root();
    out(p.x, p.y) = p.f(p.x, p.y) + h(p.x, p.y);
    p.g.compute_at(p.f, p.x);
    expect_compile_error([&] { out.realize({8, 8}); },
                         {"does not contain every use of Func \"g\"", "used by \"f\", \"h\"", "compute_root()"});
}
TEST(ScheduleErrors, ComputeAtALoopThatIsNotThere) {
    Pipe p;
    p.g.compute_at(p.f, Var("nope"));
    expect_compile_error([&] { p.run(); }, {"nope is not a loop of Func \"f\"", "legal levels", "compute_at(f, y)",
                                            "compute_at(f, x)"});
}
TEST(ScheduleErrors, ComputeAtAnInlinedFunc) {
    Pipe p;
    Func mid("mid"), top("top");
    mid(p.x, p.y) = p.g(p.x, p.y) + 1;  // inlined by default
    top(p.x, p.y) = mid(p.x, p.y);
    p.g.compute_at(mid, p.x);
    expect_compile_error([&] { top.realize({4, 4}); }, {"Func \"mid\" is not computed in this pipeline", "inlined"});
}
TEST(ScheduleErrors, StorageInsideTheComputeLevel) {
    Pipe p;
    p.f.split(p.y, p.yo, p.yi, 4);
    p.g.compute_at(p.f, p.yo).store_at(p.f, p.yi);
    expect_compile_error([&] { p.run(); }, {"stored at", "computed at", "outside it", "storage level must be at or outside"});
}
TEST(ScheduleErrors, ComputeAtOfTheOutput) {
    Pipe p;
    p.f.compute_at(p.g, p.x);
    expect_compile_error([&] { p.run(); }, {"pipeline's output", "always computed at the root"});
}
TEST(ScheduleErrors, StorageOutsideAParallelLoopThatComputesIt) {
    // Every iteration of the parallel loop would compute into the one shared allocation.
    Pipe p;
    p.f.split(p.y, p.yo, p.yi, 4).parallel(p.yo);
    p.g.compute_at(p.f, p.yi).store_root();
    expect_compile_error([&] { p.run(); }, {"Func \"g\" is stored outside the parallel loop over yo of Func \"f\"",
                                            "race", "g.store_at(f, yo)"});
}
TEST(ScheduleErrors, LoopDirectivesOnAnInlinedFunc) {
    Pipe p;
    p.g.vectorize(p.x, 4);  // g stays inlined (the default)
    expect_compile_error([&] { p.run(); }, {"Func \"g\" is computed inline", "vectorize(x, 4)", "compute_root()"});
}
TEST(ScheduleErrors, StorageLevelOfAnInlinedFunc) {
    Pipe p;
    p.g.store_root();
    expect_compile_error([&] { p.run(); }, {"Func \"g\" is computed inline but has a storage level"});
}
TEST(ScheduleErrors, FoldStorageOfTheOutput) {
    Pipe p;
    p.f.fold_storage(p.y, 4);
    expect_compile_error([&] { p.run(); }, {"output", "cannot be folded"});
}
