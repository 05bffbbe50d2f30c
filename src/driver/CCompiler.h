#pragma once
// The system C compiler, as the driver runs it: its flags, the disk cache its outputs are
// kept in, and the compilation of one generated C file into a shared object or an object
// file (src/driver/JIT.h and src/driver/AOT.h use it).
//
// Outputs are cached on disk under $XDG_CACHE_HOME/tessera (default ~/.cache/tessera),
// keyed by a 128-bit FNV-1a hash of the C source, the compiler command, its flags, its
// `--version` output and the host's CPU; files are written under a temporary name and
// renamed, so concurrent processes can share the cache. A C compilation that fails is a
// tessera::InternalError whose message names the log file (kept in the cache directory)
// holding the compiler's output.

#include <string>

#include "tessera/Target.h"

namespace tessera::driver {

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
     * /bin/sh unless it is plain words. */
    std::string cc = default_c_compiler();
    /** Compiler flags (split by /bin/sh); the driver adds flags that work around known
     * miscompilations of the compiler (GCC: -fno-predictive-commoning; src/driver/CCompiler.cpp).
     * Anything that changes float results
     * (-ffast-math, -ffp-contract=fast) breaks bit-exactness; the generated code rejects
     * fast-math at compile time and turns contraction off by pragma. */
    std::string flags = kDefaultCFlags;
    /** The directory of the disk cache and of compiler logs; empty: default_cache_dir(). */
    std::string cache_dir;
};

/** The 128-bit FNV-1a hash of `data` as 32 hex digits (the cache key). */
std::string fnv1a_128_hex(const std::string &data);

// ---------------------------------------------------------------------------------------
// For the driver's own files.

/** What compile_c produces: a pipeline's shared object for the JIT; the JIT's runtime
 * module (also shared, but linked with the system libraries: it is the one that uses
 * OpenMP, whose library the compiler picks); an object file. */
enum class COutput { SharedObject, RuntimeModule, Object };

/** Compiles `source` (kept in the cache directory `dir` as <stem>.c) into `final_path`,
 * through a temporary file beside it and a rename. `stem` is "<function>-<hash>"
 * (cache_stem); a failure keeps the compiler's output in <stem>.log. */
void compile_c(const std::string &source, const std::string &fn, const CCompilerOptions &o, COutput kind,
               const std::string &dir, const std::string &stem, const std::string &final_path);

/** "<function>-<hash of what, the compiler, its flags and version, the host, the source>". */
std::string cache_stem(const std::string &fn, const std::string &what, const std::string &source,
                       const CCompilerOptions &o);

/** The cache directory of `o`, created if needed (InternalError if it cannot be). */
std::string cache_dir_of(const CCompilerOptions &o);

/** What the machine code may depend on besides the compiler and its flags
 * (-march=native): the architecture and the CPU's feature flags. */
const std::string &host_identity();

std::string getenv_string(const char *name);
/** A suffix for a temporary file name, unique in the process and among processes. */
std::string unique_suffix();
/** Writes `text` to `path` (CompileError if it cannot). */
void write_file(const std::string &path, const std::string &text);
/** Writes through a temporary file and a rename, so that readers never see part of it. */
void write_file_atomically(const std::string &path, const std::string &text);
std::string read_file(const std::string &path);
std::string shell_quote(const std::string &s);
/** Runs a command (without a shell when it is plain words), its output appended to
 * `log_path`; returns its exit status. */
int run_command(const std::string &command, const std::string &log_path);

}  // namespace tessera::driver
