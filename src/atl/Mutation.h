#pragma once
// Deliberate mistakes in lowering ATL by reindexers (src/atl/Lower.cpp) and in its
// scheduling rewrites (src/atl/Rewrite.cpp), for testing the validator's checks of both
// (tests/validate/atl_validate_test.cpp; docs/atl.md, "Validation"), as src/lower/Mutation.h
// does for Tessera's own lowering.
//
//     atl::detail::ScopedMutation m(atl::detail::Mutation::FlattenStrideOffByOne);
//     atl::Program p(e);   // lowered with the mistake
//
// Each mutant is a mistake the lowering could plausibly make in one reindexer or one store;
// it applies only where its construct occurs. Off by default; the switch is thread-local.

#include "ir/ScopedSwitch.h"

namespace tessera::atl::detail {

enum class Mutation {
    None,
    FlattenStrideOffByOne,   // flatten multiplies the outer index by the inner extent + 1
    SplitRemainderOfNext,    // split takes the remainder by k + 1
    TruncLeftNotShifted,     // trunc_l stores without subtracting its amount
    PadLeftShiftOffByOne,    // pad_l adds its amount - 1
    ConcatRightNotShifted,   // concat stores its right operand from 0
    TransposeIgnored,        // transpose swaps nothing
    SumStoresInsteadOfAdds,  // a leaf under a sum stores (=) instead of adding (+=)
    GuardDropped,            // the guards around a leaf are not applied
    GenLowerBoundIgnored,    // a gen over [lo, hi) stores its variable, not var - lo
    LetNotIndexedByItsLoop,  // a let computed per iteration of a loop drops that dimension
    PureDespiteGuard,        // a guard inside a gen nest is skipped, the nest made a pure definition
    UndefDespitePad,         // a destination is defined as undef although some cells are pad
    // rewrites
    SplitGuardOffByOne,      // split's tail guard is outer * k + inner <= n
    SplitInnerLoopTooLong,   // split's inner loop runs to k + 1 (tiles overlap)
    SeparateOneTooFar,       // separate's guard-free part runs one iteration too far
};

/** The mutant switched on in this thread (None by default), by reference. */
Mutation &mutation_slot();
inline Mutation mutation() { return mutation_slot(); }

/** Switches mutant `m` on in this thread until destroyed (then restores the previous one). */
using ScopedMutation = ir::ScopedSwitch<Mutation, mutation_slot>;

}  // namespace tessera::atl::detail
