#pragma once
// Schedules as data. Every directive of the scheduling language (src/lang/Scheduling.cpp)
// records itself here, after its own legality check; lowering (src/lower/) reads these
// records and never the directives' order. A Func has a FuncSchedule (where it is computed
// and stored, its storage layout, bound hints, wrappers); each of its definitions has a
// StageSchedule (its loops: splits, fusions, order, and how each loop runs).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "tessera/Schedule.h"

namespace tessera {

/** The shared site behind a LoopLevel handle. */
struct LoopLevel::Contents {
    enum class Kind { Undefined, Root, Inlined, At };
    Kind kind = Kind::Undefined;
    std::string func;  // Kind::At
    std::string var;
    bool is_rvar = false;
    int stage = -1;
};

namespace ir {

/** One loop of a stage. */
struct Dim {
    std::string var;       // the user's name of the loop: a Var, an RVar, or a split's new name
    /** The loop's name inside the stage, unique in it: the user's name, made unique with a
     * "$n" suffix when a split reuses a name (split(x, x, xi, 8) makes a new loop "x$1"). */
    std::string loop;
    ForType for_type = ForType::Serial;
    /** A pure loop (a pure dimension, or made from pure loops by split or fuse); otherwise
     * a reduction loop (made from an RVar, or from a reduction loop by a split or a fuse). */
    bool pure = true;
    /** Made from an RVar (for messages: "RVar r.x" rather than "Var x"). */
    bool rvar = false;
};

/** One loop rewrite, in the order the directives were given. */
struct Split {
    enum class Kind { SplitVar, FuseVars, RenameVar };
    Kind kind = Kind::SplitVar;
    /** Loop names (Dim::loop). SplitVar: old -> (outer, inner) by `factor`. FuseVars:
     * (inner, outer) -> old (the fused loop). RenameVar: old -> outer. */
    std::string old_var, outer, inner;
    Expr factor;
    TailStrategy tail = TailStrategy::Auto;
};

struct StageSchedule;

/** A specialized copy of a stage's schedule, used when `condition` holds (checked in
 * order; the first that holds wins). A specialize_fail has no schedule: reaching it is a
 * run-time error with `failure_message`. */
struct Specialization {
    Expr condition;
    std::shared_ptr<StageSchedule> schedule;
    std::string failure_message;
};

struct StageSchedule {
    /** The loops, innermost first. */
    std::vector<Dim> dims;
    std::vector<Split> splits;
    std::vector<Specialization> specializations;
    bool allow_race_conditions = false;
    /** atomic(): the stage's parallel reduction loops may write one point from several
     * iterations; each store is an atomic read-modify-write (docs/semantics.md §10). */
    bool atomic = false;
    /** Whether any loop directive changed this stage (an inlined Func must have none). */
    bool touched = false;
    /** The directives applied, in the user's words, for messages ("vectorize(x, 8)"). */
    std::vector<std::string> history;
    /** Every loop name this stage has had (Dim::loop is unique among them). */
    std::vector<std::string> loop_names;

    std::shared_ptr<StageSchedule> copy() const;
};

/** bound(), bound_extent() and align_bounds() on one pure dimension. */
struct Bound {
    std::string var;
    Expr min;      // undefined: not fixed
    Expr extent;   // undefined: not fixed
    Expr modulus;  // align_bounds; undefined: none
    Expr remainder;
};

/** fold_storage(var, extent, fold_forward). */
struct StorageFold {
    std::string var;
    Expr extent;
    bool forward = true;
};

struct FuncSchedule {
    LoopLevel compute_level;  // undefined: the default
    LoopLevel store_level;    // undefined: the compute level
    std::vector<Bound> bounds;
    /** reorder_storage: the pure variables, innermost first (empty: the definition's
     * order). */
    std::vector<std::string> storage_order;
    std::vector<StorageFold> folds;
    /** in() wrappers: consumer name ("" = every consumer) -> the wrapper Func. */
    std::map<std::string, std::shared_ptr<FunctionData>> wrappers;
    /** Set on a wrapper made by in(): the Func it wraps. */
    std::string wraps;
    /** Copies made by clone_in: "_g_h" (the consumers' names) -> the copy they call. */
    std::map<std::string, std::shared_ptr<FunctionData>> clones;
    /** compute_with: the Func whose loops this Func's share, from the outermost down to
     * its loop `compute_with_var` (src/lower/FuseComputeWith.cpp). Not owned: the Funcs
     * of a pipeline keep each other alive through their calls. */
    std::weak_ptr<FunctionData> compute_with;
    std::string compute_with_var;
    /** trace_stores, trace_loads, trace_realizations (src/lower/AddTracing.cpp). */
    bool trace_stores = false, trace_loads = false, trace_realizations = false;
};

/** The default schedule of a new definition: its pure loops (dimension 0 innermost)
 * outside its RDom loops (r.x innermost). */
std::shared_ptr<StageSchedule> default_stage_schedule(const std::vector<std::string> &pure_vars,
                                                      const std::vector<std::string> &rvars);

}  // namespace ir
}  // namespace tessera
