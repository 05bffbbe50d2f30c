#pragma once
// The parts of an atomic store (an update scheduled atomic(), docs/semantics.md §10): its
// value is `f[i] op e` (or `e op f[i]`), with f[i] the point it writes, or what the
// simplifier left of that: f[i] alone (`f + 0`), or e alone (`f * 0`). The C emitter writes
// each lane as a compare-and-swap loop that applies op to the point's current contents,
// and the IR interpreter applies it lane by lane to memory as it is, so that two lanes of
// one vector writing one point both count.

#include <optional>
#include <string>

#include "ir/IR.h"

namespace tessera::ir {

struct AtomicStoreParts {
    /** e, of the store's type (a vector for a vector store); undefined if the value is the
     * point itself. */
    Expr operand;
    /** The value on one lane, `old op operand` (or `old`, or `operand`), of the scalar
     * variables `old` (the point's contents) and `operand` (e's lane), of the element type. */
    Expr combine;
    std::string old, operand_lane;
};

/** The parts of an atomic store `st` whose value has one of these forms; nullopt otherwise. */
std::optional<AtomicStoreParts> atomic_store_parts(const Store &st);

}  // namespace tessera::ir
