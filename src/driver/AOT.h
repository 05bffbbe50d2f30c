#pragma once
// Ahead-of-time output of a lowered pipeline: a self-contained C file, its header, an
// object file (the system C compiler, src/driver/CCompiler.h) and a static library.

#include <string>

#include "codegen/CodeGenC.h"
#include "driver/CCompiler.h"
#include "ir/LoweredPipeline.h"

namespace tessera::driver {

using codegen::CodeGenOptions;

/** Writes emit_c(p) to `path`. A file that cannot be written is a CompileError. */
void compile_to_c(const ir::LoweredPipeline &p, const std::string &path, const CodeGenOptions &codegen = {});

/** Writes emit_header(p) to `path`. */
void compile_to_header(const ir::LoweredPipeline &p, const std::string &path,
                       const CodeGenOptions &codegen = {});

/** Compiles the C of `p` to an object file (cc <flags> -c). */
void compile_to_object(const ir::LoweredPipeline &p, const std::string &path, const CCompilerOptions &cc = {},
                       const CodeGenOptions &codegen = {});

/** Compiles the C of `p` to an object and archives it into a static library at `path`
 * (replacing an existing file) with $AR (default "ar") rcs. */
void compile_to_static_library(const ir::LoweredPipeline &p, const std::string &path,
                               const CCompilerOptions &cc = {}, const CodeGenOptions &codegen = {});

}  // namespace tessera::driver
