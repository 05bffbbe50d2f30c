#pragma once
// The state shared by the lowering passes: which Funcs are computed, where, and their
// definitions after wrappers and inlining.

#include <functional>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "ir/IR.h"
#include "ir/LoweredPipeline.h"
#include "tessera/Argument.h"

namespace tessera::lower {

/** One computed (not inlined) Func. */
struct FuncPlan {
    std::shared_ptr<ir::FunctionData> func;
    bool is_output = false;
    /** The start of every name lowering makes for this Func: its name, unless that
     * contains a '.' or would make names that collide with another Func's or with a
     * buffer or parameter of the pipeline (then a variant of it; see inline_functions).
     * Names made from it cannot collide with names made from another Func's. */
    std::string prefix;
    /** The name of its realization: the prefix; for the output, the output buffer (its
     * name), except for an output whose updates write outside the output window, which is
     * realized as "<prefix>.tmp" and copied. Calls of the Func are renamed to it. */
    std::string storage;
    /** Its definitions with wrappers applied and every inlined Func substituted. */
    std::vector<ir::Definition> defs;
    /** The loop nest of each definition (Provides to `storage`), built by
     * schedule_functions. Loop variables are "<prefix>.s<k>.<loop>"; the pure dimensions
     * of stage k are bounded by the variables "<prefix>.s<k>.<var>.min" and ".max" that
     * bounds inference defines. */
    std::vector<ir::Stmt> stages;
    /** The loop at the top of whose body the Func is computed, and the one where its
     * storage lives (null: the top level). Loops are compared with LoopId::same_loop. */
    std::shared_ptr<const ir::LoopId> compute_site;
    std::shared_ptr<const ir::LoopId> store_site;
    /** Folded storage dimensions (var, fold extent): fold_storage, and the folds the
     * sliding window adds. */
    std::vector<std::pair<std::string, Expr>> folds;
};

struct PipelinePlan {
    std::shared_ptr<ir::FunctionData> output;
    /** Computed Funcs, producers before consumers; the output is last. */
    std::vector<FuncPlan> funcs;

    FuncPlan &plan_of(const ir::FunctionData *f);
    const FuncPlan *find(const ir::FunctionData *f) const;
    const FuncPlan *find(const std::string &func_name) const;
    /** The plan whose storage is named `storage`, or null. */
    const FuncPlan *find_storage(const std::string &storage) const;
};

/** Is `loop` the site `site` (null: the root, which no loop is)? */
bool is_site(const ir::For *loop, const std::shared_ptr<const ir::LoopId> &site);
/** Are two sites the same loop (both null: the root)? */
bool same_site(const std::shared_ptr<const ir::LoopId> &a, const std::shared_ptr<const ir::LoopId> &b);

/** Names of the lowered loop variables and their bounds: "<prefix>.s<stage>.<loop>",
 * with ".min" and ".max". */
std::string loop_var(const FuncPlan &p, int stage, const std::string &loop);
std::string loop_min(const FuncPlan &p, int stage, const std::string &loop);
std::string loop_max(const FuncPlan &p, int stage, const std::string &loop);

/** The name of the pure variable at dimension i of definition k (its LHS Var). */
std::string dim_var_name(const ir::Definition &d, int i);

/** The tail strategy a split of stage `stage` uses: Auto resolves to ShiftInwards for the
 * pure definition of a single-definition Func that is not the output, GuardWithIf
 * otherwise. */
TailStrategy resolve_tail(const FuncPlan &p, int stage, const ir::Split &s, bool rvar);
/** Whether the pure definition's loops over `var` compute past the region required of
 * them (a RoundUp or ShiftInwards split of `var` or of a loop made from it). */
bool computes_past_region(const FuncPlan &p, const std::string &var);

/** An int64 bound back in int32: coordinate arithmetic with small constants is computed in
 * int32 again; anything else is saturated to [INT32_MIN + 1, INT32_MAX - 1] (for an int32
 * loop variable a bound beyond is as good as that one, and +1 or -1 of it cannot wrap). */
Expr saturate_to_int32(const Expr &e);

/** An input buffer in a message: `Input buffer "in"`; for a Buffer made without a name,
 * also what the user can recognize it by: `Input buffer "b1" (an unnamed float32 Buffer of
 * 128 x 3 x 3 x 16, the pipeline's 2nd input buffer)`. `position` counts the pipeline's
 * input buffers in the order of their first use (the order of its arguments) from 0. */
std::string describe_input_buffer(const std::string &name, const ir::BufferData *buffer, int position);

/** A piece of text in an assertion's message or a trace line. */
inline Expr text(const std::string &s) { return ir::StringImm::make(s); }

/** Buffer descriptor variables of a pipeline argument or allocation (src/ir/LoweredPipeline.h). */
Expr buffer_min(const std::string &buffer, int dim);
Expr buffer_extent(const std::string &buffer, int dim);
Expr buffer_stride(const std::string &buffer, int dim);

// The passes, in the order lower() runs them (src/lower/Lower.cpp).

/** Apply in() wrappers, decide which Funcs are inlined (compute_inline, and by default
 * every Func with only a pure definition except the output) and substitute them into the
 * others. */
PipelinePlan inline_functions(const std::shared_ptr<ir::FunctionData> &output);

/** The legality rules that need the whole pipeline: tail strategies against the Func's
 * definitions, races of parallel and vectorized reduction loops, reordered RVars,
 * directives on inlined Funcs. */
void check_schedules(const PipelinePlan &plan);

/** Build each computed Func's loop nests from its schedule (splits, fusions, order, loop
 * kinds, specializations) and place its realization at its store and compute levels. */
ir::Stmt schedule_functions(PipelinePlan &plan);

/** The lines trace_stores, trace_loads and trace_realizations ask for: each store or load
 * of a traced Func's value, and each of its realizations, writes one (the trace intrinsic),
 * between a line that begins the pipeline and one that ends it (src/lower/AddTracing.cpp). */
ir::Stmt add_tracing(const PipelinePlan &plan, ir::Stmt s);

/** Each require in a statement's expressions becomes its value, and an assertion of its
 * condition before the statement (src/lower/LiftRequirements.cpp). */
ir::Stmt lift_requirements(ir::Stmt s);

/** Define every loop bound and realization bound variable (symbolic interval analysis
 * over the uses of each Func; docs/architecture.md), honouring bound() and
 * align_bounds(). */
ir::Stmt bounds_inference(const PipelinePlan &plan, ir::Stmt s);

/** A Func stored outside its compute level computes, in each iteration, only what the
 * previous iterations have not (sliding window), and its storage is folded to the rows
 * one iteration needs (explicit fold_storage, and automatically after sliding). */
ir::Stmt sliding_window(PipelinePlan &plan, ir::Stmt s);

/** The body of the first produce (`producer`) or consume node of `storage` in s; undefined
 * if there is none. */
ir::Stmt realization_part(const ir::Stmt &s, const std::string &storage, bool producer);

/** compute_with: the loop nests of Funcs computed with others fused
 * (src/lower/FuseComputeWith.cpp). */
ir::Stmt fuse_compute_with(const PipelinePlan &plan, ir::Stmt s);

/** Entry checks: parameter ranges, RDom extents, input buffers covering what is read, the
 * output buffer covering what is written. */
ir::Stmt add_image_checks(const PipelinePlan &plan, ir::Stmt s, std::vector<ir::ExternRegion> *extern_regions = nullptr);

/** The arguments of the pipeline (src/ir/LoweredPipeline.h) in the default order: input
 * buffers in order of first use, Params by name, then the output buffer. */
std::vector<ir::PipelineArgument> pipeline_arguments(const ir::FunctionData &output, const ir::Stmt &s);

/** The arguments in an ahead-of-time caller's order (LowerOptions::arguments), then the
 * output: CompileError for an undefined or repeated argument, or a Param or ImageParam that
 * is used but not listed; Buffers used but not listed are embedded. */
std::vector<ir::PipelineArgument> order_arguments(const std::string &pipeline,
                                                  const std::vector<ir::PipelineArgument> &used,
                                                  const std::vector<tessera::Argument> &listed);

/** Entry checks of the buffer arguments: their coordinates lie in [-2^30, 2^30) (what
 * the index arithmetic lowering marks needs), and dimension 0 is dense (its stride is then
 * the constant 1 in the code). */
ir::Stmt check_buffer_arguments(const std::vector<ir::PipelineArgument> &args, ir::Stmt s);

/** The mins, extents and strides of the input Buffers whose shapes are known when the code
 * is compiled become constants, checked on entry: embedded Buffers (dense), and with
 * `fixed_buffer_shapes` (the JIT) every Buffer the pipeline reads. */
ir::Stmt specialize_buffer_shapes(const std::vector<ir::PipelineArgument> &args, bool fixed_buffer_shapes, ir::Stmt s);

/** Realize/Provide/Call on Funcs and images become Allocate/Store/Load on flat memory,
 * in each Func's storage order and with its storage folds. */
ir::Stmt storage_flattening(const PipelinePlan &plan, ir::Stmt s);

/** "the loop over x of Func \"f\"" (LoopId::describe), or "the loop <name>" for a loop
 * without an identity. */
std::string describe_loop(const ir::For *loop);

/** Vectorized and unrolled loops of variable extent with a constant upper bound get a
 * constant-extent version for the case where the extent reaches the bound. */
ir::Stmt bound_constant_extent_loops(const PipelinePlan &plan, ir::Stmt s);

/** Ifs comparing coordinates that hold in every iteration of the enclosing loops are
 * removed (index arithmetic: coordinates do not overflow). */
ir::Stmt eliminate_guards(ir::Stmt s);

/** Lets at the top of a loop's body that do not vary in the loop (and read no memory) are
 * moved out of it. */
ir::Stmt hoist_loop_invariant_lets(ir::Stmt s);

/** Small loop nests of constant extents with the same loops, independent of each other,
 * that read a buffer in common run as one nest (src/lower/FuseSmallLoopNests.cpp). */
ir::Stmt fuse_small_loop_nests(ir::Stmt s);

/** Unrolled loops become copies of their bodies. */
ir::Stmt unroll_loops(ir::Stmt s);

/** An int32 coordinate as an int64, with the widening pushed through +, - and * by a
 * constant; `variable`, if given, widens its int32 variables (src/lower/WidenIndices.cpp). */
Expr widen_coordinate(const Expr &e, const std::function<Expr(const Expr &)> &variable = nullptr);

/** Element offsets: int64(x + 8) as int64(x) + 8 (coordinates do not overflow), so the C
 * compiler sees accesses a constant distance apart (src/lower/WidenIndices.cpp). */
ir::Stmt widen_indices(ir::Stmt s);

/** Guards and boundary clamps are peeled off the steady state of loops. */
ir::Stmt partition_loops(ir::Stmt s);

/** Float products added at once become fused multiply-adds (opt-in: LowerOptions). */
ir::Stmt contract_floats(ir::Stmt s);

/** An allocation that begins after the last access of an enclosing one of the same type
 * and at least its (constant) size takes its memory; each (allocation, the one whose
 * memory it takes) is appended to `reused`. */
ir::Stmt reuse_allocations(ir::Stmt s, std::vector<std::pair<std::string, std::string>> &reused);

/** Each allocation is freed after its last access, where a loop follows it in its body
 * (src/lower/FreeAfterLastUse.cpp). */
ir::Stmt free_after_last_use(ir::Stmt s);

/** Math-library calls on constant arguments are computed once, in lets at the top. */
ir::Stmt hoist_constant_calls(ir::Stmt s);

/** The guards inside a vector loop that partitioning cannot peel are decided once for all
 * lanes: a copy of the loop without them runs when they hold for every lane. */
ir::Stmt specialize_guards(ir::Stmt s);

/** Vectorized loops become vector expressions and stores. */
ir::Stmt vectorize_loops(ir::Stmt s);

/** Every name is bound once (alpha renaming of later bindings of a name). */
ir::Stmt uniquify_names(ir::Stmt s);

/** A let's scope reaches the end of its block, as a C declaration's does (names must be
 * bound once). */
ir::Stmt extend_let_scopes(ir::Stmt s);

/** A value computed again while an earlier computation of it is available and valid (for
 * a load: no store to its buffer in between) is bound once by a let (names must be bound
 * once; src/lower/CommonSubexpressions.cpp). */
ir::Stmt common_subexpressions(ir::Stmt s);

/** The lets of s whose values flow into indices, loop bounds, allocation extents or
 * conditions: the lets of coordinates. */
std::set<std::string> index_lets(const ir::Stmt &s);

/** Marks the index arithmetic that lowering assumes stays in the int32 range
 * (Add/Sub/Mul::no_overflow; src/lower/MarkIndexArithmetic.cpp). */
ir::Stmt mark_index_arithmetic(ir::Stmt s);

/** Marks the float-to-integer conversions whose values are known to be numbers the integer
 * type holds (Cast::in_range; src/lower/MarkInRangeConversions.cpp). */
ir::Stmt mark_in_range_conversions(ir::Stmt s);

}  // namespace tessera::lower
