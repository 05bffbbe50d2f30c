#pragma once
// The state shared by the lowering passes: which Funcs are computed, where, and their
// definitions after inlining.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "lang/Function.h"

namespace tessera::lower {

/** One computed (not inlined) Func. */
struct FuncPlan {
    std::shared_ptr<ir::FunctionData> func;
    bool is_output = false;
    /** The name of its realization: the Func's name, except for an output whose updates
     * write outside the output window, which is realized as "<name>.tmp" and copied. */
    std::string storage;
    /** Its definitions with every inlined Func substituted. */
    std::vector<ir::Definition> defs;
    /** The loop nest of each definition (Provides to `storage`), built by
     * schedule_functions. Loop variables are "<f>.s<k>.<var>", bounded by the variables
     * "<f>.s<k>.<var>.min" and ".max" that bounds inference defines. */
    std::vector<ir::Stmt> stages;
    /** The loop whose body holds the realization ("" for the top level). */
    std::string compute_site;
};

struct PipelinePlan {
    std::shared_ptr<ir::FunctionData> output;
    /** Computed Funcs, producers before consumers; the output is last. */
    std::vector<FuncPlan> funcs;

    FuncPlan &plan_of(const std::string &func_name);
};

/** Names of the lowered loop variables and their bounds. */
std::string loop_var(const std::string &func, int stage, const std::string &var);
std::string loop_min(const std::string &func, int stage, const std::string &var);
std::string loop_max(const std::string &func, int stage, const std::string &var);
/** The name of the pure variable at dimension i of definition k (its LHS Var). */
std::string dim_var_name(const ir::Definition &d, int i);

/** Buffer descriptor variables of a pipeline argument (src/lower/Lower.h). */
Expr buffer_min(const std::string &buffer, int dim);
Expr buffer_extent(const std::string &buffer, int dim);
Expr buffer_stride(const std::string &buffer, int dim);

// The passes, in the order lower() runs them (src/lower/Lower.cpp).

/** Decide which Funcs are inlined (the default schedule: every Func with only a pure
 * definition, except the output) and substitute them into the others. */
PipelinePlan inline_functions(const std::shared_ptr<ir::FunctionData> &output);

/** Build each computed Func's loop nests and place its realization at its compute site
 * (the default schedule: the innermost loop enclosing all its uses; the output at the top
 * level). */
ir::Stmt schedule_functions(PipelinePlan &plan);

/** Define every loop bound and realization bound variable (symbolic interval analysis
 * over the uses of each Func; notes/seed002.md §5.5). */
ir::Stmt bounds_inference(const PipelinePlan &plan, ir::Stmt s);

/** Entry checks: parameter ranges, RDom extents, input buffers covering what is read. */
ir::Stmt add_image_checks(const PipelinePlan &plan, ir::Stmt s);

/** Realize/Provide/Call on Funcs and images become Allocate/Store/Load on flat memory. */
ir::Stmt storage_flattening(const PipelinePlan &plan, ir::Stmt s);

}  // namespace tessera::lower
