#pragma once
// The C emitter: a lowered pipeline (src/ir/LoweredPipeline.h) becomes one self-contained C
// translation unit, and a header declaring it.
//
// The .c file needs only a C99 compiler and libm: it carries the runtime interface
// (runtime/tessera_runtime.h) and the helper functions it calls inline. It defines
//
//     int NAME(const tessera_buffer_t *in_buffer, ..., int32_t param, ..., tessera_buffer_t *out_buffer);
//     int NAME_argv(void **args);
//
// with the arguments in the order of LoweredPipeline::args: one tessera_buffer_t per input
// and output buffer, and each scalar Param by value in its exact C type (bool as uint8_t,
// 0 or 1). NAME_argv has a fixed signature for callers that build the argument list at
// run time (the JIT): args[i] points to the tessera_buffer_t of a buffer argument, or to
// the value of a scalar argument. Both return TESSERA_SUCCESS (0) or an error code, after
// calling tessera_error_handler with a message (runtime/tessera_runtime.h).
//
// The emitter prints: every transformation of the code is a pass of src/lower/ (values
// computed twice are bound by lets before the emitter sees them), and each operation of the
// lowered IR becomes one C temporary (src/codegen/Emitter.h lists the emitter's parts).
//
// Meaning (docs/semantics.md §11): the C code computes exactly what
// src/ir/Scalar.h computes, with no undefined behaviour for any input:
//  * signed + - * wrap (done in the unsigned type and converted back);
//  * / and % are Euclidean with x / 0 == 0 and MIN / -1 == MIN (static inline helpers);
//  * shifts accept any amount (negative amounts shift the other way, oversized ones give
//    0 or -1); float -> int conversions saturate with NaN -> 0;
//  * float min/max are exactly `a < b ? a : b` / `a > b ? a : b`, float % is
//    a - b * floor(a / b) in the operand type, math functions are the C library's
//    function of the operand type (sinf for float32; round is rint);
//  * every operand of select, && and || is evaluated (each operator's value is a
//    temporary computed before it is used);
//  * the file refuses to compile with -ffast-math or excess precision and turns off
//    floating-point contraction.
// Buffer arguments are checked on entry (null, element type, dimensionality, negative
// extents, the output overlapping an input), internal allocations are checked for size
// and failure, and every exit after an error frees what was allocated.
//
// Vectorized code is GCC/Clang vector-extension code (lane by lane where a value has no
// native vector type). The outermost parallel loop's iteration is a function of its own,
// run by tessera_parallel_for (OpenMP); when its body is large, so are the large loops
// inside it (and small arrays with the blocks that use them), their outside values passed
// in closure structs. A function that reads and writes no memory itself (it checks,
// computes coordinates and calls) is compiled at GCC's -O1. The steady state of a small
// innermost loop carries `#pragma GCC unroll`. Small allocations of constant size are C
// arrays; the others are aligned to 64 bytes (tessera_malloc).
//
// Under the JIT (CodeGenOptions::jit_runtime) the file declares the standard library's
// functions through compiler builtins instead of including its headers, calls the JIT
// runtime module's tessera_jit_* helpers instead of defining them, and splits into two
// translation units (TESSERA_PART=1/2) that the JIT compiles at once.

#include <string>

#include "ir/LoweredPipeline.h"

namespace tessera::codegen {

struct CodeGenOptions {
    /** The name of the C function. Empty: the pipeline's name, made a valid C identifier
     * (sanitize_identifier). A name that sanitize_identifier would change is a
     * CompileError. */
    std::string function_name;
    /** Code for the JIT: the error reporting helpers are the JIT runtime module's
     * (jit_runtime_source), declared and not defined, and there is no
     * tessera_error_handler. */
    bool jit_runtime = false;
};

/** The name of the function that emit_c defines for `p`. */
std::string c_function_name(const ir::LoweredPipeline &p, const CodeGenOptions &options = {});

/** A C translation unit computing `p` (see the top of this file). An IR construct the C
 * emitter does not accept (a Provide, Realize or Func call left by lowering, an unbound
 * variable or buffer, a store into an input) is an InternalError. */
std::string emit_c(const ir::LoweredPipeline &p, const CodeGenOptions &options = {});

/** A header declaring the functions of emit_c(p, options) and the runtime types; valid C
 * and C++ (extern "C"), and includable together with the headers of other pipelines. */
std::string emit_header(const ir::LoweredPipeline &p, const CodeGenOptions &options = {});

/** A valid C identifier for an arbitrary name, deterministic: characters other than
 * letters, digits and '_' become '_'; a name that starts with a digit or '_' or with
 * "tessera_" gets a "v" prefix; a C or C++ keyword, a name the generated code or the
 * standard headers it includes may use (libm functions, stdint types, macros such as
 * NAN, linux, errno), a name ending in "_t" and an all-capitals name with '_' get a '_'
 * suffix. Distinct names that sanitize alike are made unique by the emitter. */
std::string sanitize_identifier(const std::string &name);

}  // namespace tessera::codegen
