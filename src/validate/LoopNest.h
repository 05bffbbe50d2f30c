#pragma once
// The loop nest of a lowered pipeline as polyhedra (the SCHED view of docs/validation.md):
// every Store becomes a statement whose instances are the integer points of its domain
// (the values of its enclosing loops, and its lane for a vector store, under the
// conditions of the ifs around it) and whose write relation maps each instance to the
// point of the Func it computes, from the store's provenance annotation. Loop bounds,
// conditions and coordinates are translated as integer (not wrapping) arithmetic: lowering
// marks that arithmetic as staying in the int32 range and checks the buffers that make it
// so at entry (docs/semantics.md §11); what cannot be translated (a value read from
// memory, a division by a variable, a float) leaves the statement unmodelled, with the
// reason.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/LoweredPipeline.h"
#include "validate/Affine.h"
#include "validate/Isl.h"

namespace tessera::validator {

/** One Store of the lowered code, as a statement S<id>. */
struct Statement {
    int id = 0;
    const ir::Store *store = nullptr;
    std::shared_ptr<const ir::Provenance> provenance;
    /** The set dimensions of the domain: the enclosing loops, outermost first, then
     * "lane" for a vector store. */
    std::vector<std::string> dims;
    /** For each enclosing loop (not the lane): a number identifying the loop statement
     * (two statements in one loop share it), and whether it is a parallel loop. */
    std::vector<int> loop_ids;
    std::vector<bool> parallel;
    /** The type of each enclosing loop's variable. */
    std::vector<Type> loop_types;
    /** The statement's place in the program order, as the 2d+1 schedule of the polyhedral
     * model without its loop values: the position of each enclosing loop among its
     * siblings, outermost first, then the statement's own position in the innermost
     * body. Instance i of S runs before instance j of T iff (position_0, i_0, position_1,
     * i_1, ...) is lexicographically smaller. */
    std::vector<int> positions;
    /** A fused loop v, modelled as its two loops (dimensions `outer` and `inner`): the code
     * still names v, which is outer * inner_extent + inner. */
    struct Fused {
        std::string var, outer, inner;
        Expr inner_extent;  // lets expanded
        Type type;
    };
    std::vector<Fused> fused;
    /** How many of the enclosing loops are around the allocation of the storage written
     * (none for a buffer of the pipeline): each iteration of those loops allocates, and
     * writes, storage of its own. */
    int loops_around_storage = 0;
    /** { S<id>[dims] : the loop bounds and conditions hold }. Null if unmodelled. */
    Isl<isl_set> domain;
    /** { S<id>[dims] -> F[coordinates] } for the Func F of the provenance. Null if
     * unmodelled. */
    Isl<isl_map> writes;
    /** The same coordinates without the domain: equal to `writes` on it, defined (not
     * necessarily meaningfully) on a simpler set around it. */
    Isl<isl_map> coordinates;
    /** For k = 1 .. the number of enclosing loops: the instances as far as the k outermost
     * loops see them, under their bounds and the ifs around them alone (the deeper
     * dimensions free). Null if unmodelled. */
    std::vector<Isl<isl_set>> outer_domains;
    /** { S<id>[dims] -> f.s<j>[x, r] }: the iteration of definition j of the provenance's
     * Func f that each instance runs (its point x, then its RVars r; the tuple is
     * Recurrence::stage_id). Null for a final copy, or if unmodelled. */
    Isl<isl_map> iteration;
    /** Why the domain or the writes are not modelled (empty if they are). */
    std::string unmodelled;
    /** { S<id>[dims] -> B[cell] }: the cell of storage B the instance writes, one
     * coordinate per dimension of B, read off the store's flat index by its stride
     * variables (the coefficient of B.stride.k; the rest for the innermost dimension).
     * Null if not modelled, with the reason in `cells_unmodelled`. */
    Isl<isl_map> cells;
    std::string cells_unmodelled;
    /** The same cells without the domain (as `coordinates` for `writes`); null where
     * `cells` is. */
    Isl<isl_map> cell_coordinates;
    /** Where some dimension of the storage is folded (a coordinate taken modulo the fold):
     * the same cells before the modulo, which tell apart the points that share a cell. Null
     * if no dimension is folded, or if not modelled. */
    Isl<isl_map> unfolded_cells;
    /** The same without the domain (as `coordinates` for `writes`). */
    Isl<isl_map> unfolded_coordinates;
    /** The dimensions of the storage that are folded (those of unfolded_cells that the
     * cells take modulo the fold). */
    std::vector<int> folded;
    std::vector<long> folds;  // the fold of each (0: not a constant)
    /** The statement's accesses (its store, and the loads of the value it stores): for
     * each, the instances where it touches a cell outside the region bounds inference gave
     * the storage (a folded dimension, taken modulo its fold, always lies inside); null
     * if not modelled, with the reason. */
    struct Access {
        std::string what;  // "writes B" or "reads B"
        Isl<isl_set> outside;
        std::string unmodelled;
    };
    std::vector<Access> accesses;
    /** The loads of the stored value, each once: for the value check's last writers. */
    struct Read {
        std::string buffer;
        Type type;  // of one lane
        /** Identifies the load in `value`: see read_key(). */
        std::string key;
        /** { S<id>[dims] -> B[cell] }, null if not modelled, with the reason. */
        Isl<isl_map> cells;
        std::string unmodelled;
        /** As Statement::unfolded_cells, Statement::folded and Statement::folds. */
        Isl<isl_map> unfolded_cells;
        std::vector<int> folded;
        std::vector<long> folds;
        /** The same cells and unfolded cells without the domain (as
         * Statement::cell_coordinates): functions of the instance, equal to them on it. */
        Isl<isl_map> cell_coordinates, unfolded_coordinates;
    };
    std::vector<Read> reads;
    /** The storages the stored value loads from (lets expanded), for every statement,
     * modelled or not: which stores a check of this one needs modelled too. */
    std::set<std::string> loaded;
    /** For the value check, with the lets around expanded: the conditions under which an
     * instance runs (loop bounds, ifs), the stored value and the index. */
    std::vector<Expr> conditions;
    Expr value, index;
    std::vector<Expr> coords;  // the provenance's point
};

struct LoopNest {
    std::vector<Statement> statements;
    /** What the assertions checked before any loop state about the parameters (buffer
     * coordinates, extents, Param ranges), where they are affine, but for the wide ranges. */
    Isl<isl_set> context;
    /** The facts held apart from the context because their constants reach 2^30: the
     * range of each 32-bit parameter's type, and the buffers' coordinate ranges that the
     * entry checks assert (docs/semantics.md §11). isl's arithmetic on such constants
     * leaves its small integers (with them in the context, unsharp's checks took 2.4
     * times as long), and the checks prove what they prove without them: the integers
     * modelled are coordinates, which the entry checks keep far inside these bounds. A
     * check that finds a counterexample under the context asks again with them before it
     * reports it (`empty_within_wide_ranges`), and a run the validator picks satisfies
     * them (`full_context`). */
    Isl<isl_set> wide_ranges;
    /** Every affine fact of the entry checks, in their order, each with whether the
     * context so far is coalesced after it (full_context intersects them). */
    std::vector<std::pair<Isl<isl_set>, bool>> facts;
    /** A convex superset of the context (isl's simple hull): what holds for its parameters
     * holds for the context's, and relations made under it do not take on the context's
     * pieces (the cases of an entry check's clamps). Null if isl could not compute it. */
    Isl<isl_set> context_hull;
    /** The parameters the statements use, with their types: the context bounds each by
     * its type's range. */
    std::map<std::string, Type> parameters;
    /** The products of parameters among them (src/validate/Affine.h); the context holds
     * their facts. */
    Products products;
    /** The assertions checked before any loop, lets expanded (the value check's
     * hypotheses). */
    std::vector<Expr> entry_assertions;
    /** The assertions left out of the context (not affine, or inside loops). */
    std::vector<std::string> unmodelled_assertions;
};

/** The context with the wide ranges: every affine fact of the entry checks, intersected
 * in their order (whether any run satisfies them, and the runs the validator picks). */
Isl<isl_set> full_context(const LoopNest &nest);

/** Whether `s` (a set or a relation whose parameters the context has been given), found
 * not empty, is empty once the wide ranges hold too; if not, `s` keeps only its part
 * within them, where a counterexample satisfies every entry check. */
bool empty_within_wide_ranges(const LoopNest &nest, Isl<isl_set> &s);
bool empty_within_wide_ranges(const LoopNest &nest, Isl<isl_map> &m);

/** The pipeline's output buffer argument (the last one: the validator checks pipelines
 * whose output has one value, and one buffer); null if it has none. */
const ir::PipelineArgument *output_buffer(const ir::LoweredPipeline &p);

/** Whether a store with this provenance writes its point's final value: a Func's only
 * definition, or the final copy of an output (two such stores of one point agree). */
bool final_value(const ir::Provenance &p);

/** The lane of a vector store, as a variable of the expressions built for it. */
inline const char *const kLane = "<lane>";

/** A vector expression as the expression of one lane, in terms of the variable kLane:
 * ramps become base + stride * lane, broadcasts their value, operators act on lanes. */
Expr lane_of(const Expr &e);

/** The key of a load in a Statement's `reads`: its buffer and its index as one lane
 * (lane_of), printed. */
std::string read_key(const std::string &buffer, const Expr &index);

/** A flat index as the sum over stride variables of coefficient * stride: the stride
 * variable's name ("" for the part without one) -> coefficient. */
using Linear = std::map<std::string, Expr>;

/** e as a Linear in the stride variables of `buffer` (named `buffer.stride.k`, or given
 * by value in `stride_values`); throws Unsupported if a stride is used non-linearly. */
Linear linearize(const Expr &e, const std::string &buffer, const std::vector<std::pair<std::string, Expr>> &stride_values);

/** The statements of `p`'s body, each modelled if `wanted` says so (given the statement
 * with its loops and storage filled in); the others keep null domain and writes and say
 * "not needed". The isl objects live in `ctx`. */
LoopNest loop_nest_of(IslContext &ctx, const ir::LoweredPipeline &p,
                      const std::function<bool(const Statement &)> &wanted);

}  // namespace tessera::validator
