#include "lower/Mutation.h"

#include <stdexcept>

namespace tessera::lower::testing {

namespace {

thread_local Mutation t_active = Mutation::None;

}  // namespace

const std::vector<MutationInfo> &all_mutations() {
    using M = Mutation;
    static const std::vector<MutationInfo> table = {
        {M::ShiftInwardsTailOffByOne, "ShiftInwardsTailOffByOne", "schedule functions",
         "a ShiftInwards split's last tile starts one point late (max + 2 - F instead of max + 1 - F) when the "
         "extent is not a multiple of F: it writes one point past the end",
         false},
        {M::GuardWithIfTailOffByOne, "GuardWithIfTailOffByOne", "schedule functions",
         "a GuardWithIf split's guard is x < max instead of x <= max: the last point is never computed", false},
        {M::SplitOuterExtentRoundsDown, "SplitOuterExtentRoundsDown", "schedule functions",
         "a split's outer loop runs extent / F tiles instead of ceil(extent / F): a partial last tile is never "
         "computed",
         false},
        {M::FusedLoopWrongDivisor, "FusedLoopWrongDivisor", "schedule functions",
         "a fused loop takes its two variables apart by the outer loop's extent instead of the inner one's", false},
        {M::UpdatesSwapped, "UpdatesSwapped", "schedule functions",
         "a Func's last two update definitions run in the opposite order", false},
        {M::LastUpdateDropped, "LastUpdateDropped", "schedule functions",
         "a Func's last update definition is never run", false},
        {M::ReductionLastIterationDropped, "ReductionLastIterationDropped", "schedule functions",
         "the loop over an RDom's first dimension runs extent - 1 iterations", false},
        {M::ReductionLoopParallel, "ReductionLoopParallel", "schedule functions",
         "an update's outermost reduction loop runs in parallel, as if its legality check had passed: its "
         "iterations update the same points concurrently",
         true},
        {M::ShiftInwardsOnUpdate, "ShiftInwardsOnUpdate", "schedule functions",
         "a split of an update's pure variable shifts its last tile inwards (as a pure definition's may): the "
         "points the last tile shares with the one before are updated twice",
         false},
        {M::ProducerAfterConsumer, "ProducerAfterConsumer", "schedule functions",
         "a computed Func's production is placed after its consumption: the consumer reads storage not yet written",
         false},
        {M::ComputeAtRegionOneRowShort, "ComputeAtRegionOneRowShort", "bounds inference",
         "the region a Func computed inside a loop must cover ends one row (its last dimension) early", false},
        {M::PureRegionIgnoresUpdateReads, "PureRegionIgnoresUpdateReads", "bounds inference",
         "a definition covers only the next definition's region, not the points that definition reads or writes "
         "elsewhere",
         false},
        {M::RealizationOneRowShort, "RealizationOneRowShort", "bounds inference",
         "a Func's storage is allocated one row (its last dimension) short of what is written and read", false},
        {M::SlidingWindowStartOffByOne, "SlidingWindowStartOffByOne", "sliding window",
         "after the first iteration, a slid Func starts computing at the previous max + 2: one row is skipped", false},
        {M::SlidingWindowSkipsWarmUp, "SlidingWindowSkipsWarmUp", "sliding window",
         "the first iteration of a slid Func's loop also starts after the previous iteration's max: the rows "
         "before are never computed",
         false},
        {M::FoldFactorHalved, "FoldFactorHalved", "sliding window",
         "an automatic storage fold holds half the rows (the power of two below the footprint's)", false},
        {M::FoldIgnoresRowsComputed, "FoldIgnoresRowsComputed", "sliding window",
         "an automatic fold counts the rows one iteration needs but not those it computes (fuzzer seed 921100057): "
         "rows computed by one iteration's parallel loop share a slot",
         true},
        {M::SlidingFuncWithUpdates, "SlidingFuncWithUpdates", "sliding window",
         "a Func with update definitions slides: its pure definition computes only the new rows, its updates run "
         "again on all of them",
         false},
        {M::StrideFromWrongDimension, "StrideFromWrongDimension", "storage flattening",
         "an allocation's stride k is the product of the extents of dimensions 1 to k instead of 0 to k - 1", false},
        {M::FullTileTestOffByOne, "FullTileTestOffByOne", "bound constant extent loops",
         "a vectorized or unrolled loop of variable extent runs its constant-extent copy when the extent is one "
         "short of the constant",
         false},
        {M::UnrollDropsLastCopy, "UnrollDropsLastCopy", "unroll loops",
         "an unrolled loop makes extent - 1 copies of its body: its last iteration never runs", false},
        {M::ClampPeeledOneIterationEarly, "ClampPeeledOneIterationEarly", "partition loops",
         "the steady state, which reads without the boundary clamp, starts one iteration before the clamp stops "
         "clamping",
         false},
        {M::GuardPeeledOneIterationLate, "GuardPeeledOneIterationLate", "partition loops",
         "the steady state, which runs without the GuardWithIf guard, ends one iteration late: the last tile runs "
         "unguarded",
         false},
        {M::VectorLoadLanesReversed, "VectorLoadLanesReversed", "vectorize loops",
         "a vector load at a ramp of addresses gives its lanes in reverse order", false},
        {M::VectorRampStrideNotScaled, "VectorRampStrideNotScaled", "vectorize loops",
         "a ramp times a constant keeps its stride (ramp(b, s) * k = ramp(b * k, s)): a strided access reads "
         "consecutive elements",
         false},
    };
    return table;
}

const MutationInfo &mutation_info(Mutation m) {
    for (const MutationInfo &i : all_mutations())
        if (i.mutation == m) return i;
    throw std::invalid_argument("no such mutation");
}

Mutation &active_mutation_slot() { return t_active; }

}  // namespace tessera::lower::testing
