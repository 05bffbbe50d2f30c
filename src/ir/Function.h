#pragma once
// The internal representation of a Func: its name, type and definitions.

#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/Schedule.h"
#include "tessera/Buffer.h"
#include "tessera/Param.h"
#include "tessera/RDom.h"
#include "tessera/ValidateOptions.h"

namespace tessera::ir {

/** One definition (stage) of a Func: the pure definition (stage 0) or an update. */
struct Definition {
    std::vector<Expr> args;  // left-hand side coordinates
    Expr value;
    std::shared_ptr<RDomData> rdom;  // the RDom this update iterates, if any
    std::vector<Expr> predicates;    // the RDom's `where` conditions, frozen at definition
    /** Per dimension: true if the left-hand side argument is a bare Var (a pure dimension
     * of this stage), false if it is a reduction dimension (docs/semantics.md §7.1). */
    std::vector<bool> pure_dims;
    /** How this definition's loops run (src/ir/Schedule.h). */
    std::shared_ptr<StageSchedule> schedule;
};

struct FunctionData {
    std::string name;
    std::vector<std::string> args;  // pure variable names of the pure definition
    Type type;
    std::vector<Definition> definitions;  // [0] is the pure definition
    /** Set once another Func's definition calls this Func or it is realized: from then on
     * no update may be added (a Func only sees the definitions made before its use). */
    bool frozen = false;
    /** Where this Func is computed and stored, and its storage layout. */
    FuncSchedule schedule;
    /** The pipeline with this Func as output, compiled for `jit_target` (Func::compile_jit);
     * realize reuses it while no schedule has changed since (`jit_epoch`). It is the
     * driver's JITModule (src/driver/JIT.h), held without its type so that the IR does not
     * depend on the driver. */
    std::shared_ptr<const void> jit;
    std::string jit_target;
    uint64_t jit_epoch = 0;
    /** Set by Func::validate_on_compile: the pipeline with this Func as output is validated
     * whenever it is compiled. */
    std::shared_ptr<const ValidateOptions> validate_on_compile;

    bool defined() const { return !definitions.empty(); }
    int dimensions() const { return static_cast<int>(args.size()); }
    /** The number of values at each point: 1, or the size of its Tuple (`type` is the
     * first's type). */
    int outputs() const;
    /** The type of each value (one entry unless the Func is a Tuple). */
    std::vector<Type> types() const;
};

/** The name of the storage of value `index` of a Func with several values (`storage` is
 * the Func's): `storage.index`. A Func with one value is stored under `storage`. */
std::string tuple_storage_name(const std::string &storage, int index);

/** "the pure definition of Func \"f\"" or "update 2 of Func \"f\"" (0-based, as in
 * f.update(2)). */
std::string describe_definition(const FunctionData &f, int stage);

/** Funcs, images and parameters in a pipeline must have distinct names (CompileError
 * otherwise). `stage` is the definition being added (for the message), or -1. */
void check_unique_names(const std::shared_ptr<FunctionData> &output, int stage = -1);

/** realize(sizes) of `f`: one size per dimension (CompileError), none negative
 * (RuntimeError). */
void check_realize_sizes(const FunctionData &f, const std::vector<int> &sizes);

/** All Funcs the given Func depends on (transitively, including itself), producers
 * before consumers. */
std::vector<std::shared_ptr<FunctionData>> dependency_order(const std::shared_ptr<FunctionData> &f);

/** The Funcs that the definitions of `f` call (left-hand sides, values and predicates),
 * in the order of the calls, repeated as often as called. */
std::vector<std::shared_ptr<FunctionData>> direct_callees(const FunctionData &f);

/** dependency_order(f) and the in() wrappers of those Funcs (with what they depend on):
 * every Func a lowered pipeline of f may compute, producers before consumers. */
std::vector<std::shared_ptr<FunctionData>> pipeline_functions(const std::shared_ptr<FunctionData> &f);

}  // namespace tessera::ir
