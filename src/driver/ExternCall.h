#pragma once
// Calling an extern Func's C function (Func::define_extern) from the JIT and the reference
// interpreter: through a trampoline of C, compiled once into the disk cache
// (src/driver/CCompiler.h), that takes the arguments as an array of pointers and calls the
// function with each in its C type. The function itself is found by the dynamic linker in
// the process.

#include <optional>
#include <string>
#include <vector>

#include "driver/CCompiler.h"
#include "tessera/Type.h"

namespace tessera::driver {

class ExternCaller {
public:
    /** `signature`: per argument, nullopt for a buffer (tessera_buffer_t *), or the type
     * of a scalar. CompileError naming `func` if the process does not define `name`. */
    ExternCaller(const std::string &name, const std::vector<std::optional<Type>> &signature, const std::string &func,
                 const CCompilerOptions &cc = {});
    /** args[i]: the tessera_buffer_t * of a buffer, or a pointer to the scalar in its C
     * type (bool: uint8_t). The function's return code. */
    int call(void **args) const { return entry_(args); }

private:
    int (*entry_)(void **) = nullptr;
};

}  // namespace tessera::driver
