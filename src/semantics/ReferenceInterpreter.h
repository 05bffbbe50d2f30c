#pragma once
// The reference interpreter: the algorithm semantics of docs/semantics.md, executed
// directly on Func definitions. It is the oracle every compiled pipeline is checked
// against, so it follows the definition literally: lazy, pointwise, memoized per
// (Func, definition, point), RDoms replayed in lexicographic order with r.x innermost.

#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/Function.h"
#include "ir/Scalar.h"

namespace tessera::semantics {

using ir::Scalar;

/** Values of `f` over [0, sizes[0]) x ...; a new buffer of each of f's types (one per
 * value of a Tuple). */
std::vector<std::shared_ptr<ir::BufferData>> reference_realize(const std::shared_ptr<ir::FunctionData> &f,
                                                               const std::vector<int> &sizes);

/** Values of `f` over the window of `dsts` (whose mins may be non-zero), stored in them:
 * one buffer per value of f, all of one window. */
void reference_realize_into(const std::shared_ptr<ir::FunctionData> &f,
                            const std::vector<std::shared_ptr<ir::BufferData>> &dsts);

/** Values that replace, for one oracle, what the algorithm objects currently hold: the
 * value of a Param, the Buffer bound to an ImageParam, the memory of a Buffer read by the
 * algorithm. Used to evaluate the algorithm on exactly the arguments a compiled or
 * interpreted pipeline was run with. Entries absent from a map keep the usual meaning. */
struct ReferenceBindings {
    std::unordered_map<const ir::ParamData *, Scalar> params;
    std::unordered_map<const ir::InputData *, std::shared_ptr<ir::BufferData>> inputs;
    std::unordered_map<const ir::BufferData *, std::shared_ptr<ir::BufferData>> buffers;
};

/** Per-definition queries of the reference semantics for the pipeline computing `output`:
 * the value a Func has after one of its definitions, memoized per (Func, definition,
 * point) across queries. Construction performs the start-up checks (parameter ranges,
 * RDom extents) and throws RuntimeError if one fails. */
class ReferenceOracle {
public:
    explicit ReferenceOracle(const std::shared_ptr<ir::FunctionData> &output,
                             const ReferenceBindings &bindings = {});
    ~ReferenceOracle();
    ReferenceOracle(const ReferenceOracle &) = delete;
    ReferenceOracle &operator=(const ReferenceOracle &) = delete;

    /** Value `value_index` (0 unless f is a Tuple) of `f` (the output or a Func it
     * depends on) at `coords` (f->dimensions() entries) after definition `stage`: 0 = the
     * pure definition, k = after update k-1.
     * Throws RuntimeError if the reference semantics of that value reads an input out of
     * bounds (docs/semantics.md §9); InternalError for an unknown Func or stage. */
    Scalar value(const ir::FunctionData *f, int stage, const int32_t *coords, int value_index = 0);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::semantics
