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
#include "tessera/IROperator.h"
#include "tessera/RDom.h"
#include "tessera/Target.h"

namespace tessera {

namespace ir {
struct FunctionData;
}

class Func;

/** A definition of a Func (the pure definition, or update N), as returned by `f(x) = ...`
 * and `f.update(N)`. Scheduling directives will be methods of Stage. */
class Stage {
public:
    Stage(std::shared_ptr<ir::FunctionData> f, int stage) : func_(std::move(f)), stage_(stage) {}
    /** "f" for the pure definition, "f.update(0)" for the first update. */
    std::string name() const;
    /** 0 for the pure definition, N + 1 for update N. */
    int stage_index() const { return stage_; }

private:
    std::shared_ptr<ir::FunctionData> func_;
    int stage_;
};

/** `f(args)`: a call when used as an Expr, a definition when assigned to. */
class FuncRef {
public:
    FuncRef(std::shared_ptr<ir::FunctionData> f, std::vector<Expr> args)
        : func_(std::move(f)), args_(std::move(args)) {}

    /** Define f: the pure definition if f has none yet, otherwise an update. */
    Stage operator=(const Expr &e);
    Stage operator=(const FuncRef &e);
    /** Updates f(args) = f(args) op e, with e cast to f's type. Without a pure definition,
     * f is first defined as 0 (1 for *= and /=) everywhere, as in Halide. */
    Stage operator+=(const Expr &e);
    Stage operator-=(const Expr &e);
    Stage operator*=(const Expr &e);
    Stage operator/=(const Expr &e);

    operator Expr() const;
    const std::vector<Expr> &args() const { return args_; }

private:
    Stage update_with(int op, const Expr &e);
    std::shared_ptr<ir::FunctionData> func_;
    std::vector<Expr> args_;
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
    /** The element type of the Func's values (CompileError if undefined). */
    Type type() const;
    Type output_type() const { return type(); }
    /** The pure definition's arguments and value. */
    std::vector<Var> args() const;
    Expr value() const;
    int num_update_definitions() const;
    bool has_update_definition() const { return num_update_definitions() > 0; }
    /** The value and left-hand side arguments of update `i`. */
    Expr update_value(int i = 0) const;
    std::vector<Expr> update_args(int i = 0) const;

    template<typename... Args>
    FuncRef operator()(const Args &...args) const {
        return FuncRef(data_, std::vector<Expr>{Expr(args)...});
    }
    FuncRef operator()(const std::vector<Expr> &args) const { return FuncRef(data_, args); }
    FuncRef operator()(const std::vector<Var> &args) const;

    /** The pure definition, or update i (CompileError if there is no such update). */
    Stage update(int i = 0) const;

    /** Compute the Func over [0, sizes[0]) x [0, sizes[1]) x ... with compiled code (see
     * compile_jit) and return the result. */
    Buffer<> realize(const std::vector<int> &sizes = {},
                     const Target &target = get_jit_target_from_environment()) const;
    Buffer<> realize(std::initializer_list<int> sizes) const { return realize(std::vector<int>(sizes)); }
    /** Compute the Func over the window of `dst` (which may have non-zero mins), into it. */
    void realize(Buffer<> dst, const Target &target = get_jit_target_from_environment()) const;

    /** Lower the pipeline computing this Func, emit C, and build and load it with the
     * system C compiler ($CC, default cc), through the disk cache
     * ($XDG_CACHE_HOME/tessera). realize calls this; calling it first moves the
     * compilation out of the first realize. Compiling again for the same target is free. */
    void compile_jit(const Target &target = get_jit_target_from_environment()) const;

    /** The inputs the pipeline reads, in the order compiled code takes them when no list is
     * given: ImageParams and Buffers in order of first use, then Params by name. */
    std::vector<Argument> infer_arguments() const;

    // Ahead-of-time compilation. The generated function is
    //     int fn_name(<args in the order given>, tessera_buffer_t *output)
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
    Buffer<> realize_reference(const std::vector<int> &sizes = {}) const;
    Buffer<> realize_reference(std::initializer_list<int> sizes) const {
        return realize_reference(std::vector<int>(sizes));
    }
    void realize_reference(Buffer<> dst) const;

    const std::shared_ptr<ir::FunctionData> &data() const { return data_; }
    explicit Func(std::shared_ptr<ir::FunctionData> d) : data_(std::move(d)) {}

private:
    std::shared_ptr<ir::FunctionData> data_;
};

}  // namespace tessera
