// The trampoline of an extern Func's C function (src/driver/ExternCall.h).

#include "driver/ExternCall.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <sstream>

#include "codegen/Runtime.h"
#include "ir/Check.h"
#include "tessera/Error.h"

namespace tessera::driver {

namespace {

std::string trampoline_source(const std::string &name, const std::vector<std::optional<Type>> &signature) {
    std::ostringstream params, args;
    for (size_t i = 0; i < signature.size(); i++) {
        const std::string sep = i ? ", " : "";
        if (!signature[i]) {
            params << sep << "tessera_buffer_t *";
            args << sep << "(tessera_buffer_t *)args[" << i << "]";
        } else {
            const std::string t = codegen::c_type_name(*signature[i]);
            params << sep << t;
            args << sep << "*(const " << t << " *)args[" << i << "]";
        }
    }
    std::ostringstream c;
    c << "#include <stdint.h>\n"
      << "typedef struct tessera_buffer_t tessera_buffer_t;\n"
      << "extern int " << name << "(" << (signature.empty() ? std::string("void") : params.str()) << ");\n"
      << "int tessera_extern_call(void **args) {\n"
      << "    (void)args;\n"
      << "    return " << name << "(" << args.str() << ");\n"
      << "}\n";
    return c.str();
}

}  // namespace

ExternCaller::ExternCaller(const std::string &name, const std::vector<std::optional<Type>> &signature,
                           const std::string &func, const CCompilerOptions &cc) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    const std::string source = trampoline_source(name, signature);
    const std::string dir = cache_dir_of(cc), stem = cache_stem("tessera_extern_" + name, "extern", source, cc);
    const std::string so = dir + "/" + stem + ".so";
    if (!std::filesystem::exists(so)) compile_c(source, "tessera_extern_" + name, cc, COutput::SharedObject, dir, stem, so);
    ::dlerror();
    void *h = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = ::dlerror();
        throw CompileError("Func \"" + func + "\" is computed by the C function \"" + name +
                           "\" (define_extern), which this process does not define (" + (e ? e : "dlopen failed") +
                           "); define it with C linkage (extern \"C\") and export it: link the program with "
                           "-rdynamic, or load its shared library with RTLD_GLOBAL");
    }
    void *entry = ::dlsym(h, "tessera_extern_call");
    TESSERA_INTERNAL_ASSERT(entry, "the trampoline " << so << " has no entry point");
    entry_ = reinterpret_cast<int (*)(void **)>(entry);
}

}  // namespace tessera::driver
