#pragma once
// Deliberate miscompilations, for testing the translation validator (mutation testing:
// tests/validate/mutation_test.cpp, docs/validation.md "Mutation testing").
//
// A test switches one mutant on for the lowerings it runs while a ScopedMutation lives:
//
//     lower::testing::ScopedMutation m(lower::testing::Mutation::ShiftInwardsTailOffByOne);
//     ir::LoweredPipeline p = lower::lower(f.data());   // lowered with the mistake
//
// Each mutant is a mistake one pass could plausibly make (an off-by-one in a split's tail,
// a fold too small, a reduction loop run in parallel, ...), made by that pass on the IR it
// builds, as the pass's own bug would be: the stores keep the provenance annotations the
// pass gives them, so that the mutant changes what the code does, never only what it
// claims to do. A mutant applies only where its construct occurs (a ShiftInwards split, a
// slid Func, ...); elsewhere the code is unchanged.
//
// Off by default, and then free but for the question: the passes ask `injects(m)` where a
// mutant could go in, a call that reads a thread-local value; nothing else changes.
// The switch is thread-local, so that other threads' compilations are not mutated; the JIT
// neither serves nor keeps a mutated pipeline as the unmutated one (src/lang/FuncCompile.cpp).

#include <vector>

#include "ir/ScopedSwitch.h"

namespace tessera::lower::testing {

enum class Mutation {
    None,
    // schedule functions (loop-nest synthesis)
    ShiftInwardsTailOffByOne,
    GuardWithIfTailOffByOne,
    SplitOuterExtentRoundsDown,
    FusedLoopWrongDivisor,
    UpdatesSwapped,
    LastUpdateDropped,
    ReductionLastIterationDropped,
    ReductionLoopParallel,
    ShiftInwardsOnUpdate,
    ProducerAfterConsumer,
    // bounds inference
    ComputeAtRegionOneRowShort,
    PureRegionIgnoresUpdateReads,
    RealizationOneRowShort,
    // sliding window and storage folding
    SlidingWindowStartOffByOne,
    SlidingWindowSkipsWarmUp,
    FoldFactorHalved,
    FoldIgnoresRowsComputed,
    SlidingFuncWithUpdates,
    // storage flattening
    StrideFromWrongDimension,
    // bound constant extent loops
    FullTileTestOffByOne,
    // unroll loops
    UnrollDropsLastCopy,
    // partition loops
    ClampPeeledOneIterationEarly,
    GuardPeeledOneIterationLate,
    // vectorize loops
    VectorLoadLanesReversed,
    VectorRampStrideNotScaled,
};

struct MutationInfo {
    Mutation mutation;
    const char *name;  // the enumerator's name
    const char *pass;  // the pass that makes the mistake (as src/lower/Lower.cpp names it)
    const char *description;
    /** The mutant makes iterations of a parallel loop race (where the pipeline has the
     * parallel loop it needs), whether or not a run shows a different output. */
    bool race;
};

/** Every mutant (None excluded), in the order of the passes. */
const std::vector<MutationInfo> &all_mutations();
const MutationInfo &mutation_info(Mutation m);

/** The mutant switched on in this thread (None by default), by reference. */
Mutation &active_mutation_slot();
inline Mutation active_mutation() { return active_mutation_slot(); }
/** Whether mutant `m` is the one switched on (for the passes). */
inline bool injects(Mutation m) { return m != Mutation::None && active_mutation() == m; }

/** Switches mutant `m` on in this thread until destroyed (then restores the previous one). */
using ScopedMutation = ir::ScopedSwitch<Mutation, active_mutation_slot>;

}  // namespace tessera::lower::testing
