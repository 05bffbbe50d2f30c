#pragma once
// The internal representation of a Func: its name, type and definitions.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "ir/LoweredPipeline.h"
#include "ir/Scalar.h"
#include "ir/Schedule.h"
#include "tessera/Buffer.h"
#include "tessera/Param.h"
#include "tessera/RDom.h"
#include "tessera/Target.h"
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

/** One argument of an extern Func's C function (Func::define_extern), in order: a Func
 * (realized over the region the function asks for), a Buffer or an ImageParam (its
 * memory), or a scalar startup expression (Params and constants). */
struct ExternArgument {
    std::shared_ptr<FunctionData> func;
    std::shared_ptr<BufferData> buffer;
    std::shared_ptr<InputData> input;
    Expr value;
};

/** A value passed to an extern Func's C function: a buffer (a bounds query: `host` null,
 * the function sets its dims), or a scalar of `type`. */
struct ExternValue {
    std::shared_ptr<BufferData> buffer;
    Scalar scalar{};
    Type type;
};

/** A Func whose values a C function computes (Halide's define_extern): called as
 *     int name(tessera_buffer_t *input..., <scalar>..., tessera_buffer_t *output)
 * over any region of the output; with an input's host null (a bounds query) it sets the
 * region of that input it reads and computes nothing. Its values must not depend on the
 * region asked for (docs/semantics.md §7.6). A pipeline reads it as an input image,
 * `image`, whose buffer realize computes with the function over the region the pipeline
 * reads, before running it (src/lang/Extern.cpp). */
struct ExternDefinition {
    std::string function_name;
    std::vector<ExternArgument> args;
    std::shared_ptr<InputData> image;
    /** Calls the C function with these values (inputs, scalars, then the output); its
     * return code. Set by the front end, which compiles a call of it; the reference
     * interpreter calls it too. */
    std::function<int(const std::vector<ExternValue> &)> invoke;
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
    /** The pipeline with this Func as output, compiled for `jit_target` with the lowering
     * mutant `jit_mutation` on (0: none; src/lower/Mutation.h) (Func::compile_jit); realize
     * reuses it while no schedule has changed since (`jit_epoch`). It is the driver's
     * JITModule (src/driver/JIT.h), held without its type so that the IR does not depend on
     * the driver. */
    std::shared_ptr<const void> jit;
    Target jit_target;
    int jit_mutation = 0;
    uint64_t jit_epoch = 0;
    /** The Buffers that pipeline reads, with the shapes it was compiled for (their mins,
     * extents and strides are constants of its code): it is compiled again when one has
     * changed (Buffer::set_min). */
    std::vector<std::pair<std::shared_ptr<BufferData>, std::vector<BufferDim>>> jit_buffer_shapes;
    /** The extern Funcs that pipeline reads, and the regions (LoweredPipeline). */
    std::vector<ExternRegion> jit_extern_regions;
    /** Set by Func::validate_on_compile: the pipeline with this Func as output is validated
     * whenever it is compiled. */
    std::shared_ptr<const ValidateOptions> validate_on_compile;
    /** Set for a Func that a C function computes (define_extern); its one pure definition
     * is then the placeholder extern_value() (Intrinsic::Extern). */
    std::shared_ptr<ExternDefinition> extern_definition;

    bool defined() const { return !definitions.empty(); }
    int dimensions() const { return static_cast<int>(args.size()); }
    /** The number of values at each point: 1, or the size of its Tuple (`type` is the
     * first's type). */
    int outputs() const;
    /** The type of each value (one entry unless the Func is a Tuple). */
    std::vector<Type> types() const;
};

/** The names of the storages of a Func's values: `storage` itself for one value, and
 * `storage.0`, `storage.1`, ... for several (a Tuple). */
std::vector<std::string> value_storages(const std::string &storage, int values);

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
