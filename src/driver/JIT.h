#pragma once
// The JIT: a lowered pipeline compiled to a shared object (src/driver/CCompiler.h, cached
// on disk), loaded with dlopen and called. A pipeline that returns an error code is a
// tessera::RuntimeError carrying the pipeline's message.
//
// Every pipeline's code calls the JIT's runtime module (src/codegen/Runtime.h,
// jit_runtime_source), compiled once into the cache and loaded, global, before the first
// pipeline.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/CodeGenC.h"
#include "codegen/runtime/tessera_runtime.h"
#include "driver/CCompiler.h"
#include "ir/LoweredPipeline.h"
#include "tessera/Type.h"

namespace tessera::semantics {
struct ArgValue;
}

namespace tessera::driver {

using codegen::CodeGenOptions;

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
    explicit JITModule(const ir::LoweredPipeline &p, const CCompilerOptions &cc = {},
                       const CodeGenOptions &codegen = {});

    /** The same, with an index in the disk cache from `pipeline_key` (text that determines
     * the lowered pipeline: the algorithm and schedule as .tsr, and the target) to the
     * compiled object and its argument list. A warm index skips lowering and C emission:
     * `lower` runs only on a miss, and `resolve` finds each argument (by kind and name) in
     * the pipeline being compiled; an argument it cannot find makes the entry a miss. */
    using Resolver = std::function<bool(ir::PipelineArgument &)>;
    JITModule(const std::string &pipeline_key, const std::function<ir::LoweredPipeline()> &lower,
              const Resolver &resolve, const CCompilerOptions &cc = {}, const CodeGenOptions &codegen = {});

    const std::string &function_name() const;
    const std::string &c_source() const;
    /** The loaded shared object (in the cache directory). */
    const std::string &library_path() const;
    /** Whether the shared object came from the disk cache. */
    bool cache_hit() const;
    const std::vector<ir::PipelineArgument> &arguments() const;

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

}  // namespace tessera::driver
