#pragma once
// Func: a function over an integer grid, defined by a pure definition and any number of
// update definitions (Halide's names and semantics; docs/semantics.md).

#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/Argument.h"
#include "tessera/Buffer.h"
#include "tessera/Expr.h"
#include "tessera/ExternFuncArgument.h"
#include "tessera/IROperator.h"
#include "tessera/RDom.h"
#include "tessera/Realization.h"
#include "tessera/Schedule.h"
#include "tessera/Target.h"
#include "tessera/Tuple.h"

namespace tessera {

namespace ir {
struct FunctionData;
struct StageSchedule;
}

class Func;
struct ValidateOptions;

/** A definition of a Func (the pure definition, or update N), as returned by `f(x) = ...`
 * and `f.update(N)`, and the loop directives that schedule it (Halide's names). Each
 * directive checks that it is legal where it can (the loops it names exist, new names are
 * fresh); the checks that need the whole pipeline run when it is compiled. Every
 * violation is a CompileError that says what is wrong and what would be legal. */
class Stage {
public:
    Stage(std::shared_ptr<ir::FunctionData> f, int stage);
    Stage(std::shared_ptr<ir::FunctionData> f, int stage, std::shared_ptr<ir::StageSchedule> schedule);
    /** "f" for the pure definition, "f.update(0)" for the first update. */
    std::string name() const;
    /** 0 for the pure definition, N + 1 for update N. */
    int stage_index() const { return stage_; }

    /** Split the loop over `old` into `outer` and `inner` (inner of extent `factor`). */
    Stage &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                 TailStrategy tail = TailStrategy::Auto);
    /** Join the loop over `inner` and the loop directly outside it, `outer`, into one. */
    Stage &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    /** Reorder the given loops among themselves, the first innermost. */
    Stage &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    Stage &reorder(const VarOrRVar &x, const VarOrRVar &y, const Args &...rest) {
        return reorder(std::vector<VarOrRVar>{x, y, VarOrRVar(rest)...});
    }
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                TailStrategy tail = TailStrategy::Auto);
    /** tile with the outer loops keeping the names x and y. */
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    /** Run the loop as SIMD lanes (its extent must be a constant after bounds inference). */
    Stage &vectorize(const VarOrRVar &var);
    /** Split off an inner loop of `factor` iterations and vectorize it. */
    Stage &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** Replace the loop by copies of its body (constant extent). */
    Stage &unroll(const VarOrRVar &var);
    Stage &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** Run the iterations of the loop in parallel threads. */
    Stage &parallel(const VarOrRVar &var);
    /** Split the loop into tasks of `task_size` iterations and run the tasks in parallel. */
    Stage &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    Stage &serial(const VarOrRVar &var);
    Stage &rename(const VarOrRVar &old_name, const VarOrRVar &new_name);
    /** Permit parallel or vectorized reduction loops that Tessera cannot prove race-free;
     * the results may then differ from the algorithm's. */
    Stage &allow_race_conditions();
    /** Make each store of this update an atomic read-modify-write, so that its reduction
     * loops may run in parallel although iterations write the same point (a histogram).
     * The update must be f(...) = f(...) op e with op one of + * min max & | ^ on integers,
     * whose iterations may run in any order with the same result; Tessera does not reorder
     * float arithmetic, so `override_associativity_test` (Halide's escape hatch) is
     * refused. Its loops may also be vectorized: each lane is a read-modify-write of its
     * point, so lanes that write one point all count. */
    Stage &atomic(bool override_associativity_test = false);
    /** Func::compute_with, for pure definitions (stage 0 of each Func). */
    Stage &compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    /** A copy of this stage's schedule, used when `condition` (a startup expression: Params
     * and input bounds only) holds. Directives given to the returned Stage apply to that
     * copy only; the copy starts from the schedule as it is now. */
    Stage specialize(const Expr &condition);
    /** Running the stage when none of its specializations' conditions holds is an error
     * with this message. */
    void specialize_fail(const std::string &message);
    /** Split an associative and commutative integer update into an intermediate Func that
     * computes partial results for each value of the preserved RVars (now pure Vars, which
     * can be parallelized or vectorized), and a merge of those partial results. Returns the
     * intermediate. */
    Func rfactor(const RVar &r, const Var &v);
    Func rfactor(const std::vector<std::pair<RVar, Var>> &preserved);

    /** The loops of this stage, outermost first, for messages and tests ("y x"). */
    std::string dump_loops() const;

private:
    ir::StageSchedule &schedule() const;
    std::shared_ptr<ir::FunctionData> func_;
    int stage_;
    std::shared_ptr<ir::StageSchedule> schedule_;
};

class FuncTupleElementRef;

/** `f(args)`: a call when used as an Expr, a definition when assigned to. */
class FuncRef {
public:
    FuncRef(std::shared_ptr<ir::FunctionData> f, std::vector<Expr> args)
        : func_(std::move(f)), args_(std::move(args)) {}
    FuncRef(const FuncRef &) = default;  // assignment defines the Func; copying copies the call

    /** Define f: the pure definition if f has none yet, otherwise an update. */
    Stage operator=(const Expr &e);
    Stage operator=(const FuncRef &e);
    /** Define f with several values at each point (a Tuple); every definition of f then
     * gives as many, of the same types. */
    Stage operator=(const Tuple &t);
    /** Updates f(args) = f(args) op e, with e cast to f's type. Without a pure definition,
     * f is first defined as 0 (1 for *= and /=) everywhere, as in Halide. */
    Stage operator+=(const Expr &e);
    Stage operator-=(const Expr &e);
    Stage operator*=(const Expr &e);
    Stage operator/=(const Expr &e);
    /** The same on each value of a Func with several values (a Tuple). */
    Stage operator+=(const Tuple &t);
    Stage operator-=(const Tuple &t);
    Stage operator*=(const Tuple &t);
    Stage operator/=(const Tuple &t);

    /** The call, for a Func with one value (CompileError for a Tuple: take f(x)[i]). */
    operator Expr() const;
    /** Value i of a Func with several values (a Tuple), or value 0 of any Func: a call
     * when used as an Expr, an update of that value alone when assigned to. */
    FuncTupleElementRef operator[](int i) const;
    /** The number of values of the Func called (1 unless it is a Tuple). */
    size_t size() const;
    /** The call of value i (CompileError naming the Func if there is none). */
    Expr element(int i) const;
    const std::vector<Expr> &args() const { return args_; }

private:
    Stage update_with(int op, const Expr &e);
    Stage update_with(int op, const Tuple &t);
    std::shared_ptr<ir::FunctionData> func_;
    std::vector<Expr> args_;
};

/** `f(args)[i]`: value i of a Func with several values (a Tuple). As an Expr, the call;
 * assigned to, an update of that value alone: `f(x)[0] += 1` is
 * `f(x) = Tuple(f(x)[0] + 1, f(x)[1], ...)`. */
class FuncTupleElementRef {
public:
    FuncTupleElementRef(FuncRef ref, int index) : ref_(std::move(ref)), index_(index) {}
    operator Expr() const;
    Stage operator=(const Expr &e);
    Stage operator+=(const Expr &e);
    Stage operator-=(const Expr &e);
    Stage operator*=(const Expr &e);
    Stage operator/=(const Expr &e);
    int index() const { return index_; }

private:
    Stage update_with(int op, const Expr &e);
    FuncRef ref_;
    int index_;
};

class Func {
public:
    /** A Func with a fresh readable name ("f0", "f1", ...). */
    Func();
    explicit Func(const std::string &name);
    /** A zero-dimensional Func equal to e. */
    explicit Func(const Expr &e);

    const std::string &name() const;
    bool defined() const;
    /** Number of dimensions (arguments); 0 if undefined. */
    int dimensions() const;
    /** The element type of the Func's values (CompileError if undefined, or if the Func
     * has several values: see types()). */
    Type type() const;
    Type output_type() const { return type(); }
    /** The type of each of the Func's values: one, or one per value of a Tuple. */
    std::vector<Type> types() const;
    std::vector<Type> output_types() const { return types(); }
    /** The number of values at each point: 1, or the size of the Func's Tuple. */
    int outputs() const;
    /** Define the Func by a C function, as Halide's define_extern (docs/semantics.md §7.6):
     *     extern "C" int function_name(tessera_buffer_t *input..., <scalar>...,
     *                                  tessera_buffer_t *output)
     * with `params` in order (Funcs, Buffers and ImageParams as buffers, Exprs by value),
     * over `dimensionality` dimensions (or the Vars given) of type t. The function is
     * found in the process (export it: link the program with -rdynamic, or load its library
     * RTLD_GLOBAL). Realize computes the Func with it before the pipeline that reads it,
     * over the region that pipeline reads; compile_to_* of such a pipeline is a
     * CompileError (the JIT only). */
    void define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                       int dimensionality, NameMangling mangling = NameMangling::Default);
    void define_extern(const std::string &function_name, const std::vector<ExternFuncArgument> &params, Type t,
                       const std::vector<Var> &arguments, NameMangling mangling = NameMangling::Default);
    /** Whether the Func is computed by a C function (define_extern). */
    bool is_extern() const;
    const std::string &extern_function_name() const;

    /** The pure definition's arguments and value (values() for a Tuple). */
    std::vector<Var> args() const;
    Expr value() const;
    Tuple values() const;
    int num_update_definitions() const;
    bool has_update_definition() const { return num_update_definitions() > 0; }
    /** The value and left-hand side arguments of update `i`. */
    Expr update_value(int i = 0) const;
    Tuple update_values(int i = 0) const;
    std::vector<Expr> update_args(int i = 0) const;

    template<typename... Args>
    FuncRef operator()(const Args &...args) const {
        return FuncRef(data_, std::vector<Expr>{Expr(args)...});
    }
    FuncRef operator()(const std::vector<Expr> &args) const { return FuncRef(data_, args); }
    FuncRef operator()(const std::vector<Var> &args) const;

    /** The pure definition, or update i (CompileError if there is no such update). */
    Stage update(int i = 0) const;

    // Loop directives on the pure definition (see Stage).
    Func &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner, const Expr &factor,
                TailStrategy tail = TailStrategy::Auto);
    Func &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    Func &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    Func &reorder(const VarOrRVar &x, const VarOrRVar &y, const Args &...rest) {
        return reorder(std::vector<VarOrRVar>{x, y, VarOrRVar(rest)...});
    }
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
               const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
               TailStrategy tail = TailStrategy::Auto);
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
               const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    Func &vectorize(const VarOrRVar &var);
    Func &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &unroll(const VarOrRVar &var);
    Func &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &parallel(const VarOrRVar &var);
    Func &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    Func &serial(const VarOrRVar &var);
    Func &rename(const VarOrRVar &old_name, const VarOrRVar &new_name);
    Func &allow_race_conditions();
    /** atomic() applies to an update: f.update(i).atomic(); on a Func it is a
     * CompileError that says so (the pure definition writes each point once). */
    Func &atomic(bool override_associativity_test = false);
    Stage specialize(const Expr &condition);
    void specialize_fail(const std::string &message);

    // Where the Func is computed and stored.

    /** Compute all of the Func that is needed, before the pipeline's output. */
    Func &compute_root();
    /** Compute the part of the Func needed by each iteration of the loop over `var` of `f`
     * (at the top of its body). */
    Func &compute_at(const Func &f, const VarOrRVar &var);
    Func &compute_at(const LoopLevel &level);
    /** Fuse this Func's loops, from the outermost down to the loop over `var`, with those
     * of Func `f` (Halide's compute_with): in each iteration of the fused loops, f's body
     * runs, then this Func's. Both have only a pure definition, are computed at the same
     * level, do not read each other, and have as many loops outside `var` (inclusive),
     * each serial or parallel alike; each fused loop runs over the union of the two ranges
     * and each body is guarded by its own. */
    Func &compute_with(const Func &f, const VarOrRVar &var, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    /** Substitute the Func's definition into its callers (only for a Func with a single,
     * pure definition). */
    Func &compute_inline();
    /** Keep the Func's storage at the top level, or at the top of the loop over `var` of
     * `f`: at or outside its compute level. Storage outside the compute level lets each
     * iteration compute only the values the previous ones have not (sliding window). */
    Func &store_root();
    Func &store_at(const Func &f, const VarOrRVar &var);
    Func &store_at(const LoopLevel &level);
    /** Compute exactly [min, min + extent) of dimension `var` (a run-time error if more is
     * needed). */
    Func &bound(const Var &var, const Expr &min, const Expr &extent);
    /** Compute exactly `extent` points of dimension `var`, starting where needed. */
    Func &bound_extent(const Var &var, const Expr &extent);
    /** Compute a region of dimension `var` whose min is `remainder` modulo `modulus` and
     * whose extent is a multiple of `modulus`. */
    Func &align_bounds(const Var &var, const Expr &modulus, const Expr &remainder = 0);
    /** The storage layout: the listed dimensions in this order, the first innermost. */
    Func &reorder_storage(const std::vector<Var> &dims);
    template<typename... Args>
    Func &reorder_storage(const Var &x, const Var &y, const Args &...rest) {
        return reorder_storage(std::vector<Var>{x, y, Var(rest)...});
    }
    /** Store only `extent` consecutive values of dimension `var`, as a circular buffer
     * (valid while every iteration needs at most `extent` of them). */
    Func &fold_storage(const Var &var, const Expr &extent, bool fold_forward = true);
    /** Halide's choice of memory for the Func's storage: Auto, Heap, Stack and Register
     * are accepted, and Tessera still chooses (see MemoryType); a GPU or accelerator
     * memory is a CompileError. */
    Func &store_in(MemoryType memory);
    /** Halide's cache of a Func's values between realizations: accepted, and nothing is
     * cached; every realization computes the Func (the values are the same). */
    Func &memoize();
    /** Halide's software prefetch of `f`'s values `offset` iterations of `from` ahead, at
     * `at`: checked (`f` must be called by this Func) and accepted; no prefetch
     * instruction is emitted. */
    Func &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, const Expr &offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    /** Halide's estimates of the region realized, for its autoscheduler: checked (a
     * dimension of the Func; startup expressions) and accepted; Tessera has no
     * autoscheduler, so nothing uses them. */
    Func &set_estimate(const Var &var, const Expr &min, const Expr &extent);
    Func &set_estimates(const Region &estimates);
    /** Halide's asynchronous production: accepted; the Func is computed where its
     * schedule says, before its consumers, on the same thread. */
    Func &async();
    /** Tracing, as Halide's (without its trace callback): the compiled pipeline writes a
     * line to stderr for each value of this Func it stores ("Store f.0(3, 4) = 17"), each
     * it loads ("Load f.0(3, 4) = 17"), or each of its realizations ("Begin realization
     * f.0(min, extent, ...)" and "End realization ..."), between "Begin pipeline out.0()"
     * and "End pipeline out.0()". Values are written in Tessera's print formats
     * (docs/semantics.md §6), one line per lane of a vector store. */
    Func &trace_stores();
    Func &trace_loads();
    Func &trace_realizations();

    /** A Func that wraps this one in `f` (or in every caller), scheduled on its own: calls
     * of this Func in `f` become calls of the wrapper. */
    Func in(const Func &f);
    Func in(const std::vector<Func> &fs);
    Func in();
    /** A copy of this Func (its definitions and, as they are now, its schedule) that the
     * calls of it in `f` (in each of `fs`) call instead, scheduled on its own from then
     * on: f's definitions are rewritten to call the copy, named `<this>_clone_in_<f>`. The
     * same consumers again give the same copy. */
    Func clone_in(const Func &f);
    Func clone_in(const std::vector<Func> &fs);

    /** Compute the Func over [0, sizes[0]) x [0, sizes[1]) x ... with compiled code (see
     * compile_jit) and return the result: one Buffer per value (a Realization converts to
     * a Buffer where the Func has one value). */
    Realization realize(const std::vector<int> &sizes = {},
                        const Target &target = get_jit_target_from_environment()) const;
    Realization realize(std::initializer_list<int> sizes) const { return realize(std::vector<int>(sizes)); }
    /** Compute the Func over the window of `dst` (which may have non-zero mins), into it. */
    void realize(Buffer<> dst, const Target &target = get_jit_target_from_environment()) const;
    /** The same for a Func with several values: one Buffer per value, all of one window. */
    void realize(const Realization &dst, const Target &target = get_jit_target_from_environment()) const;

    /** Lower the pipeline computing this Func, emit C, and build and load it with the
     * system C compiler ($CC, default cc), through the disk cache
     * ($XDG_CACHE_HOME/tessera). realize calls this; calling it first moves the
     * compilation out of the first realize. Compiling again for the same target is free. */
    void compile_jit(const Target &target = get_jit_target_from_environment()) const;

    /** Validate the pipeline computing this Func whenever it is compiled (compile_jit,
     * realize, compile_to_c, compile_to_header, compile_to_object,
     * compile_to_static_library), before any code is generated, also when the JIT finds the
     * code in its disk cache: the translation validator (docs/validation.md) checks the
     * lowered code against the algorithm. A Refuted verdict fails the compilation with a
     * CompileError that names the Func and gives the counterexample; Unknown is reported
     * (ValidateOptions::on_report, stderr by default) and fails only with
     * ValidateOptions::strict. The program must include <tessera/Validate.h> and link
     * Tessera::validator; otherwise compiling is a CompileError that says so. */
    Func &validate_on_compile();
    Func &validate_on_compile(const ValidateOptions &options);

    /** The inputs the pipeline reads, in the order compiled code takes them when no list is
     * given: ImageParams and Buffers in order of first use, then Params by name. */
    std::vector<Argument> infer_arguments() const;

    // Ahead-of-time compilation. The generated function is
    //     int fn_name(<args in the order given>, tessera_buffer_t *output)
    // (one output buffer per value, in order, for a Func with several values: a Tuple)
    // with each ImageParam and Buffer listed as a `const tessera_buffer_t *` and each Param
    // by value. Every Param and ImageParam the pipeline reads must be listed; Buffers it
    // reads but that are not listed are compiled into the code. fn_name defaults to the
    // Func's name.

    /** A self-contained C source file (needs only a C99 compiler and libm). */
    void compile_to_c(const std::string &filename, const std::vector<Argument> &args,
                      const std::string &fn_name = "") const;
    /** A header declaring the function (valid C and C++). */
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "") const;
    /** An object file built by the system C compiler for `target`. */
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name = "", const Target &target = get_host_target()) const;
    /** filename_prefix.a and filename_prefix.h. */
    void compile_to_static_library(const std::string &filename_prefix, const std::vector<Argument> &args,
                                   const std::string &fn_name = "",
                                   const Target &target = get_host_target()) const;
    /** The lowered statement, as text. */
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args = {}) const;

    /** The same, always through the reference interpreter (the definition of meaning). */
    Realization realize_reference(const std::vector<int> &sizes = {}) const;
    Realization realize_reference(std::initializer_list<int> sizes) const {
        return realize_reference(std::vector<int>(sizes));
    }
    void realize_reference(Buffer<> dst) const;
    void realize_reference(const Realization &dst) const;

    const std::shared_ptr<ir::FunctionData> &data() const { return data_; }
    explicit Func(std::shared_ptr<ir::FunctionData> d) : data_(std::move(d)) {}

private:
    std::shared_ptr<ir::FunctionData> data_;
};

}  // namespace tessera
