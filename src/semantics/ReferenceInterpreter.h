#pragma once
// The reference interpreter: the algorithm semantics of docs/semantics.md, executed
// directly on Func definitions. It is the oracle every compiled pipeline is checked
// against, so it follows the definition literally: lazy, pointwise, memoized per
// (Func, definition, point), RDoms replayed in lexicographic order with r.x innermost.

#include <memory>
#include <vector>

#include "lang/Function.h"

namespace tessera::semantics {

/** Values of `f` over [0, sizes[0]) x ...; a new buffer of f's type. */
std::shared_ptr<ir::BufferData> reference_realize(const std::shared_ptr<ir::FunctionData> &f,
                                                  const std::vector<int> &sizes);

/** Values of `f` over the window of `dst` (whose mins may be non-zero), stored in dst. */
void reference_realize_into(const std::shared_ptr<ir::FunctionData> &f,
                            const std::shared_ptr<ir::BufferData> &dst);

}  // namespace tessera::semantics
