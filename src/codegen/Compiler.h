#pragma once
// Turning the C of a lowered pipeline into native code with the system C compiler:
//
// * JITModule: compiles to a shared object (cc -shared), loads it with dlopen and calls it.
//   Shared objects are cached on disk under $XDG_CACHE_HOME/tessera (default
//   ~/.cache/tessera), keyed by a 128-bit FNV-1a hash of the C source, the compiler
//   command, its flags and its `--version` output; a cache hit compiles nothing. Files
//   are written under a temporary name and renamed, so concurrent processes can share
//   the cache.
// * Ahead of time: compile_to_c (a self-contained .c), compile_to_header,
//   compile_to_object (cc -c) and compile_to_static_library (cc -c, then ar rcs).
//
// A C compilation that fails is a tessera::InternalError whose message names the log
// file (kept in the cache directory) holding the compiler's output. A pipeline that
// returns an error code is a tessera::RuntimeError carrying the pipeline's message.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/CodeGenC.h"
#include "codegen/runtime/tessera_runtime.h"
#include "lower/Lower.h"
#include "tessera/Target.h"
#include "tessera/Type.h"

namespace tessera::ir {
struct BufferData;
}
namespace tessera::semantics {
struct ArgValue;
}

namespace tessera::codegen {

/** Flags that keep IEEE-754 semantics bit-exact (no fast-math, no contraction), and
 * OpenMP for parallel loops (a program linking AOT output with parallel loops links with
 * -fopenmp too). */
inline constexpr const char *kDefaultCFlags = "-O3 -march=native -ffp-contract=off -fno-fast-math -fopenmp -fPIC";

/** The flags of kDefaultCFlags with the instruction-set flags of `target` in place of
 * -march=native, and $TESSERA_C_OPT (if set) in place of -O3. */
std::string c_flags_for(const Target &target);

/** $CC if set and not empty, else "cc". */
std::string default_c_compiler();

/** $XDG_CACHE_HOME/tessera if XDG_CACHE_HOME is an absolute path, else
 * $HOME/.cache/tessera, else <temporary directory>/tessera-cache. */
std::string default_cache_dir();

struct CCompilerOptions {
    /** The compiler command (may contain arguments, e.g. "ccache gcc"); run through
     * /bin/sh. */
    std::string cc = default_c_compiler();
    /** Compiler flags (split by /bin/sh). Anything that changes float results
     * (-ffast-math, -ffp-contract=fast) breaks bit-exactness; the generated code rejects
     * fast-math at compile time and turns contraction off by pragma. */
    std::string flags = kDefaultCFlags;
    /** The directory of the disk cache and of compiler logs; empty: default_cache_dir(). */
    std::string cache_dir;
};

/** Process-wide counts of JIT compilations served from the disk cache (hits) and of
 * compilations run (misses). */
struct JITCacheStats {
    uint64_t hits = 0;
    uint64_t misses = 0;
};
JITCacheStats jit_cache_stats();

/** A tessera_buffer_t describing a Buffer's memory (host, type, dims). Copyable: the
 * descriptor's dim pointer always points into this object's own dims. */
class RuntimeBuffer {
public:
    explicit RuntimeBuffer(const ir::BufferData &b);
    RuntimeBuffer(void *host, Type type, std::vector<tessera_dim_t> dims);
    RuntimeBuffer(const RuntimeBuffer &o);
    RuntimeBuffer &operator=(const RuntimeBuffer &o);

    tessera_buffer_t *get() { return &buffer_; }
    const tessera_buffer_t *get() const { return &buffer_; }

private:
    tessera_buffer_t buffer_{};
    std::vector<tessera_dim_t> dims_;
};

/** A compiled pipeline, loaded in this process. Copies share the loaded code. */
class JITModule {
public:
    /** Emits C for `p`, compiles it (or finds it in the disk cache) and loads it. */
    explicit JITModule(const lower::LoweredPipeline &p, const CCompilerOptions &cc = {},
                       const CodeGenOptions &codegen = {});

    /** The same, with an index in the disk cache from `pipeline_key` (text that determines
     * the lowered pipeline: the algorithm and schedule as .tsr, and the target) to the
     * compiled object and its argument list. A warm index skips lowering and C emission:
     * `lower` runs only on a miss, and `resolve` finds each argument (by kind and name) in
     * the pipeline being compiled; an argument it cannot find makes the entry a miss. */
    using Resolver = std::function<bool(lower::Argument &)>;
    JITModule(const std::string &pipeline_key, const std::function<lower::LoweredPipeline()> &lower,
              const Resolver &resolve, const CCompilerOptions &cc = {}, const CodeGenOptions &codegen = {});

    const std::string &function_name() const;
    const std::string &c_source() const;
    /** The loaded shared object (in the cache directory). */
    const std::string &library_path() const;
    /** Whether the shared object came from the disk cache. */
    bool cache_hit() const;
    const std::vector<lower::Argument> &arguments() const;

    /** Calls the pipeline. args[i] points to the tessera_buffer_t of buffer argument i or
     * to the value of scalar argument i in its exact C type (bool: uint8_t 0 or 1).
     * Returns the pipeline's code; on an error, *message (if given) receives the message
     * the pipeline reported. */
    int call(void **args, std::string *message = nullptr) const;

    /** Like call, but a non-zero code is a RuntimeError with the pipeline's message. */
    void run(void **args) const;

    /** Runs with argument values as the IR interpreter takes them (one per argument, in
     * order): buffers (a null buffer for a Buffer read by the algorithm means that
     * Buffer, for an ImageParam the Buffer bound to it) and scalars (converted to the
     * Param's type as by a cast). */
    void run(const std::vector<semantics::ArgValue> &args) const;

private:
    struct Impl;
    std::shared_ptr<const Impl> impl_;
};

/** Writes emit_c(p) to `path`. A file that cannot be written is a CompileError. */
void compile_to_c(const lower::LoweredPipeline &p, const std::string &path, const CodeGenOptions &codegen = {});

/** Writes emit_header(p) to `path`. */
void compile_to_header(const lower::LoweredPipeline &p, const std::string &path,
                       const CodeGenOptions &codegen = {});

/** Compiles the C of `p` to an object file (cc <flags> -c). */
void compile_to_object(const lower::LoweredPipeline &p, const std::string &path, const CCompilerOptions &cc = {},
                       const CodeGenOptions &codegen = {});

/** Compiles the C of `p` to an object and archives it into a static library at `path`
 * (replacing an existing file) with $AR (default "ar") rcs. */
void compile_to_static_library(const lower::LoweredPipeline &p, const std::string &path,
                               const CCompilerOptions &cc = {}, const CodeGenOptions &codegen = {});

/** The 128-bit FNV-1a hash of `data` as 32 hex digits (the JIT cache key). */
std::string fnv1a_128_hex(const std::string &data);

}  // namespace tessera::codegen
