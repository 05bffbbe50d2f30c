#include "driver/AOT.h"

#include <filesystem>

#include "ir/Check.h"
#include "tessera/Error.h"

namespace tessera::driver {

namespace fs = std::filesystem;
using codegen::c_function_name;
using codegen::emit_c;
using codegen::emit_header;

void compile_to_c(const ir::LoweredPipeline &p, const std::string &path, const CodeGenOptions &codegen) {
    write_file(path, emit_c(p, codegen));
}

void compile_to_header(const ir::LoweredPipeline &p, const std::string &path, const CodeGenOptions &codegen) {
    write_file(path, emit_header(p, codegen));
}

void compile_to_object(const ir::LoweredPipeline &p, const std::string &path, const CCompilerOptions &cc,
                       const CodeGenOptions &codegen) {
    const std::string fn = c_function_name(p, codegen);
    const std::string source = emit_c(p, codegen);
    const std::string dir = cache_dir_of(cc);
    compile_c(source, fn, cc, COutput::Object, dir, cache_stem(fn, "object", source, cc), path);
}

void compile_to_static_library(const ir::LoweredPipeline &p, const std::string &path, const CCompilerOptions &cc,
                               const CodeGenOptions &codegen) {
    const std::string fn = c_function_name(p, codegen);
    const std::string source = emit_c(p, codegen);
    const std::string dir = cache_dir_of(cc);
    const std::string stem = cache_stem(fn, "object", source, cc);
    // The archive member is named after the function.
    const std::string work = dir + "/" + stem + ".ar" + unique_suffix();
    std::error_code ec;
    fs::create_directories(work, ec);
    const std::string obj = work + "/" + fn + ".o";
    const std::string lib = work + "/lib.a";
    try {
        compile_c(source, fn, cc, COutput::Object, dir, stem, obj);
        std::string ar = getenv_string("AR");
        if (ar.empty()) ar = "ar";
        const std::string log = dir + "/" + stem + ".ar.log";
        const std::string command = ar + " rcs " + shell_quote(lib) + " " + shell_quote(obj);
        const int status = run_command(command, log);
        if (status != 0 || !fs::exists(lib))
            TESSERA_INTERNAL_ERROR("the archiver failed on pipeline \"" << fn << "\" (exit status " << status
                                                                       << "); its output is in " << log);
        fs::remove(log, ec);
        fs::rename(lib, path, ec);
        if (ec) {
            // Maybe another file system: copy instead.
            ec.clear();
            fs::copy_file(lib, path, fs::copy_options::overwrite_existing, ec);
            if (ec) throw CompileError("cannot write \"" + path + "\": " + ec.message());
        }
    } catch (...) {
        fs::remove_all(work, ec);
        throw;
    }
    fs::remove_all(work, ec);
}

}  // namespace tessera::driver
