#pragma once
// The C text that every generated file carries: the runtime interface
// (runtime/tessera_runtime.h, as a string), the prelude of a generated .c file, and the
// small static inline helper functions that give C operations Tessera's meaning
// (docs/semantics.md §2-§4, §11), emitted on demand so that a generated file contains
// only the helpers it calls.

#include <set>
#include <string>

#include "tessera/Type.h"

namespace tessera::codegen {

/** The exact text of src/codegen/runtime/tessera_runtime.h. */
const std::string &runtime_header_text();

/** The start of every generated .c file, after its title comment: the standard headers,
 * the build-configuration checks (no fast-math, no excess precision, no contraction),
 * the runtime interface and the weak definition of tessera_error_handler (not under the
 * JIT, whose runtime module reports errors). */
const std::string &c_prelude_text(bool jit_runtime = false);

/** The C source of the JIT's runtime module: the error reporting helpers that every
 * pipeline needs (buffer checks, formatted messages), compiled once and shared by the
 * pipelines the JIT compiles, which declare them as tessera_jit_<name> (a pipeline's C
 * compiles in a fraction of the time without them). It exports those and
 * tessera_jit_set_error_handler; everything else in it is hidden. */
const std::string &jit_runtime_source();

/** The C type of a scalar Tessera type: "int32_t", "uint8_t", "float", "double"; bool is
 * "uint8_t" (holding 0 or 1). */
std::string c_type_name(Type t);

/** The suffix of helper names for a scalar type: "i32", "u8", "f32", "f64", "b". */
std::string type_suffix(Type t);

/** The set of helper functions a generated file uses. Helpers are named
 * `tessera_<family>_<suffix>` (e.g. tessera_div_i32, tessera_sat_u8, tessera_shl_i64) or
 * by a fixed name (tessera_report_error, tessera_check_buffer, ...). */
class HelperSet {
public:
    /** jit_runtime: the helpers of the JIT's runtime module are declared, not defined. */
    explicit HelperSet(bool jit_runtime = false) : jit_runtime_(jit_runtime) {}

    /** Records that the generated code calls `name`; returns the name to call (under the
     * JIT, tessera_jit_<name> for the runtime module's helpers). An unknown name is an
     * InternalError. */
    std::string use(const std::string &name);

    /** The C definitions of the used helpers and of the helpers they call, callees first,
     * in a deterministic order. */
    std::string definitions() const;

private:
    bool jit_runtime_;
    std::set<std::string> used_;
};

}  // namespace tessera::codegen
