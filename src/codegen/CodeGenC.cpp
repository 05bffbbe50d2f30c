// The C file of a lowered pipeline and its header: the function's interface (its
// arguments, the argv wrapper, embedded buffers), the entry checks of its buffers, and the
// file's layout (the prelude, vector types, helpers, outlined functions and, under the JIT,
// the two translation units).

#include <algorithm>
#include <sstream>

#include "codegen/Emitter.h"
#include "ir/Check.h"
#include "ir/Scalar.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"

namespace tessera::codegen {

std::string Emitter::signature() const {
    std::string s = "int " + fn_ + "(";
    bool first = true;
    for (size_t i = 0; i < p_.args.size(); i++) {
        const ir::PipelineArgument &a = p_.args[i];
        if (a.embedded) continue;
        if (!first) s += ", ";
        first = false;
        switch (a.kind) {
        case ir::PipelineArgument::Kind::InputBuffer: s += "const tessera_buffer_t *" + arg_names_[i].descriptor; break;
        case ir::PipelineArgument::Kind::OutputBuffer: s += "tessera_buffer_t *" + arg_names_[i].descriptor; break;
        case ir::PipelineArgument::Kind::Param: s += c_type_name(a.type) + " " + arg_names_[i].ident; break;
        }
    }
    if (first) s += "void";
    return s + ")";
}

std::string Emitter::argument_comment() const {
    std::string s = "/* Arguments, in order:\n";
    for (size_t i = 0; i < p_.args.size(); i++) {
        const ir::PipelineArgument &a = p_.args[i];
        if (a.embedded) continue;
        s += " *   ";
        switch (a.kind) {
        case ir::PipelineArgument::Kind::InputBuffer:
            s += arg_names_[i].descriptor + ": input buffer \"" + comment_text(a.name) + "\", " +
                 a.type.to_string() + ", " + std::to_string(a.dimensions) + " dimension(s)";
            break;
        case ir::PipelineArgument::Kind::OutputBuffer:
            s += arg_names_[i].descriptor + ": output buffer \"" + comment_text(a.name) + "\", " +
                 a.type.to_string() + ", " + std::to_string(a.dimensions) + " dimension(s)";
            break;
        case ir::PipelineArgument::Kind::Param:
            s += arg_names_[i].ident + ": parameter \"" + comment_text(a.name) + "\", " + a.type.to_string();
            break;
        }
        s += "\n";
    }
    for (const ir::PipelineArgument &a : p_.args)
        if (a.embedded)
            s += " * The contents of the buffer \"" + comment_text(a.name) + "\" are compiled in.\n";
    return s + " * Returns TESSERA_SUCCESS (0) or an error code after calling tessera_error_handler. */\n";
}

std::string Emitter::argv_wrapper() const {
    std::string call;
    int k = 0;
    for (size_t i = 0; i < p_.args.size(); i++) {
        const ir::PipelineArgument &a = p_.args[i];
        if (a.embedded) continue;
        if (k > 0) call += ", ";
        const std::string ai = "args[" + std::to_string(k++) + "]";
        std::string &s = call;
        switch (a.kind) {
        case ir::PipelineArgument::Kind::InputBuffer: s += "(const tessera_buffer_t *)" + ai; break;
        case ir::PipelineArgument::Kind::OutputBuffer: s += "(tessera_buffer_t *)" + ai; break;
        case ir::PipelineArgument::Kind::Param: s += "*(const " + c_type_name(a.type) + " *)" + ai; break;
        }
    }
    return "int " + fn_ + "_argv(void **args) {\n" + (k == 0 ? "    (void)args;\n" : "") + "    return " + fn_ +
           "(" + call + ");\n}\n";
}

std::string Emitter::embedded_buffer(const ir::PipelineArgument &a, const std::string &descriptor) {
    TESSERA_INTERNAL_ASSERT(a.buffer, "embedded argument " << a.name << " without its Buffer");
    const ir::BufferData &b = *a.buffer;
    int64_t count = 1;
    for (const auto &d : b.dims) count *= d.extent;
    std::ostringstream o;
    o << "/* The contents of the buffer \"" << comment_text(a.name) << "\". */\n";
    o << "static " << c_type_name(b.type) << " " << descriptor << "_host[" << std::max<int64_t>(count, 1) << "] = {";
    std::vector<int32_t> c(b.dims.size());
    for (size_t d = 0; d < c.size(); d++) c[d] = b.dims[d].min;
    for (int64_t e = 0; e < count; e++) {
        const ir::Scalar v =
            ir::load_scalar(b.type, b.host + b.checked_offset(c.data(), int(c.size())) * b.type.bytes());
        o << (e % 8 == 0 ? "\n    " : " ")
          << (b.type.is_float() ? float_literal(b.type, v.f)
                                : b.type.is_int() ? int_literal(b.type, v.i) : uint_literal(b.type, v.u))
          << ",";
        for (size_t d = 0; d < c.size(); d++) {
            if (++c[d] < b.dims[d].min + b.dims[d].extent) break;
            c[d] = b.dims[d].min;
        }
    }
    if (count <= 0) o << "0";
    o << "\n};\n";
    o << "static tessera_dim_t " << descriptor << "_dim[" << std::max<size_t>(b.dims.size(), 1) << "] = {";
    int64_t stride = 1;
    for (size_t d = 0; d < b.dims.size(); d++) {
        o << (d ? ", " : "") << "{" << b.dims[d].min << ", " << b.dims[d].extent << ", " << stride << "}";
        stride *= b.dims[d].extent;
    }
    if (b.dims.empty()) o << "{0, 0, 0}";
    o << "};\n";
    o << "static const tessera_buffer_t " << descriptor << " = {" << descriptor << "_host, " << type_code_macro(b.type)
      << ", " << int(b.type.bits) << ", " << b.dims.size() << ", " << descriptor << "_dim};\n\n";
    return o.str();
}

std::string Emitter::source() {
    TESSERA_INTERNAL_ASSERT(p_.body.defined(), "pipeline " << p_.name << " has no body");
    lane_lets_ = gather_index_lets(p_.body);
    // Which descriptor variables, parameters and buffer pointers the body uses.
    const NamesIn uses = names_in(p_.body, false);

    // Function-scope bindings, and the contents of embedded buffers.
    std::ostringstream entry, embedded;
    for (size_t i = 0; i < p_.args.size(); i++) {
        const ir::PipelineArgument &a = p_.args[i];
        const ArgNames &n = arg_names_[i];
        if (a.kind == ir::PipelineArgument::Kind::Param) {
            vars_[a.name].push_back(VarBinding{n.ident, a.type});
            if (!uses.free_vars.count(a.name)) entry << "    (void)" << n.ident << ";\n";
            continue;
        }
        TESSERA_INTERNAL_ASSERT(a.type.is_scalar(), "buffer " << a.name << " of vector type");
        if (a.embedded) {
            embedded << embedded_buffer(a, n.descriptor + "_contents");
            entry << "    const tessera_buffer_t *" << n.descriptor << " = &" << n.descriptor << "_contents;\n";
        }
        entry << "    if (" << helpers_.use("tessera_check_buffer") << "(" << n.descriptor << ", "
              << c_string_literal(a.name) << ", " << type_code_macro(a.type) << ", " << int(a.type.bits) << ", "
              << a.dimensions << ")) return TESSERA_ERROR_BAD_BUFFER;\n";
    }
    // Every output buffer (one per value of a Tuple) against every input, and the outputs
    // against each other.
    for (size_t o = 0; o < p_.args.size(); o++) {
        const ir::PipelineArgument &out = p_.args[o];
        if (out.kind != ir::PipelineArgument::Kind::OutputBuffer) continue;
        for (size_t i = 0; i < p_.args.size(); i++) {
            const ir::PipelineArgument &a = p_.args[i];
            const bool other_output = a.kind == ir::PipelineArgument::Kind::OutputBuffer && i > o;
            if (a.kind != ir::PipelineArgument::Kind::InputBuffer && !other_output) continue;
            entry << "    if (" << helpers_.use("tessera_check_overlap") << "(" << arg_names_[o].descriptor << ", "
                  << c_string_literal(out.name) << ", " << out.type.bytes() << ", " << arg_names_[i].descriptor << ", "
                  << c_string_literal(a.name) << ", " << a.type.bytes() << ")) return TESSERA_ERROR_BUFFER_OVERLAP;\n";
        }
    }
    for (size_t i = 0; i < p_.args.size(); i++) {
        const ir::PipelineArgument &a = p_.args[i];
        const ArgNames &n = arg_names_[i];
        if (a.kind == ir::PipelineArgument::Kind::Param) continue;
        const bool writable = a.kind == ir::PipelineArgument::Kind::OutputBuffer;
        bufs_[a.name].push_back(BufBinding{n.ident, a.type, writable});
        if (uses.free_buffers.count(a.name)) {
            const std::string ct = c_type_name(a.type);
            const std::string q = writable ? "" : "const ";
            entry << "    " << q << ct << " *restrict " << n.ident << " = (" << q << ct << " *)" << n.descriptor
                  << "->host;\n";
        }
        for (int d = 0; d < a.dimensions; d++) {
            struct Field {
                const char *ir, *c;
                Type t;
            } fields[] = {{"min", "min", Int(32)}, {"extent", "extent", Int(32)}, {"stride", "stride", Int(64)}};
            for (const Field &f : fields) {
                const std::string name = a.name + "." + f.ir + "." + std::to_string(d);
                if (!uses.free_vars.count(name)) continue;
                const std::string id = declare_var(name, f.t);
                entry << "    const " << c_type_name(f.t) << " " << id << " = " << n.descriptor << "->dim[" << d
                      << "]." << f.c << ";\n";
            }
        }
    }

    indent_ = 1;
    emit_stmt(p_.body);
    flush_temp();

    // Assemble the file.
    std::ostringstream fn;
    fn << argument_comment();
    if (memory_accesses_ == 0) fn << kControlOnly;
    fn << signature() << " {\n";
    if (uses_cleanup_) fn << "    int _status = TESSERA_SUCCESS;\n";
    for (const auto &alloc : allocations_) fn << "    " << alloc << "\n";
    fn << entry.str();
    fn << body_.str();
    fn << "    return TESSERA_SUCCESS;\n";
    if (uses_cleanup_) {
        fn << "tessera_cleanup:\n";
        for (const auto &id : allocation_idents_) fn << "    " << helpers_.use("tessera_free") << "(" << id << ");\n";
        fn << "    return _status;\n";
    }
    fn << "}\n";

    std::ostringstream file;
    file << "/* Generated by Tessera from pipeline \"" << comment_text(p_.name) << "\": " << fn_ << "(), "
         << fn_ << "_argv(). Do not edit. */\n";
    file << c_prelude_text(jit_runtime_) << "\n";
    for (const auto &[name, td] : vector_typedefs_) file << td << "\n";
    if (!vector_typedefs_.empty()) file << "\n";
    for (const auto &[name, def] : vector_helpers_) file << def << "\n";
    if (!vector_helpers_.empty()) file << "\n";
    // Under the JIT, a pipeline with outlined functions is compiled as two translation
    // units at once, from this one file: TESSERA_PART=1 has the pipeline's function and
    // TESSERA_PART=2 the largest outlined ones, as balanced in size as they come.
    const bool parts = !outlined_.empty() && jit_runtime_;
    if (parts)
        file << "#if defined(TESSERA_PART) && defined(__GNUC__)\n/* A part may not use every helper. */\n"
                "#pragma GCC diagnostic ignored \"-Wunused-function\"\n#endif\n";
    file << helpers_.definitions();
    std::string part1, part2;
    if (!outlined_.empty()) {
        file << "#if defined(TESSERA_PART)\n#define TESSERA_OUTLINED __attribute__((visibility(\"hidden\")))\n"
                "#else\n#define TESSERA_OUTLINED static\n#endif\n\n";
        for (const Outlined &o : outlined_) file << o.type << "\n";
        for (const Outlined &o : outlined_) file << o.prototype;
        file << "\n";
        std::vector<const Outlined *> bySize;
        for (const Outlined &o : outlined_) bySize.push_back(&o);
        std::stable_sort(bySize.begin(), bySize.end(), [](const Outlined *a, const Outlined *b) {
            return a->definition.size() > b->definition.size();
        });
        size_t size1 = fn.str().size(), size2 = 0;
        for (const Outlined *o : bySize) {
            std::string &part = size2 <= size1 ? part2 : part1;
            (size2 <= size1 ? size2 : size1) += o->definition.size();
            part += o->definition + "\n";
        }
        if (parts) file << "#if !defined(TESSERA_PART) || TESSERA_PART == 2\n";
        file << part2;
        if (parts) file << "#endif\n\n#if !defined(TESSERA_PART) || TESSERA_PART == 1\n";
        file << part1;
    }
    file << embedded.str();
    file << fn.str() << "\n";
    file << "/* " << fn_ << " with its arguments passed as an array of pointers: args[i] points to the\n"
         << " * tessera_buffer_t of a buffer argument or to the value of a scalar argument. */\n";
    file << argv_wrapper();
    if (parts) file << "#endif\n";
    return file.str();
}

std::string Emitter::header() const {
    const std::string guard = "TESSERA_PIPELINE_" + fn_ + "_H";
    std::ostringstream h;
    h << "/* Generated by Tessera from pipeline \"" << comment_text(p_.name) << "\". Do not edit. */\n";
    h << "#ifndef " << guard << "\n#define " << guard << "\n\n";
    h << runtime_header_text() << "\n";
    h << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
    h << argument_comment();
    h << signature() << ";\n\n";
    h << "/* " << fn_ << " with its arguments passed as an array of pointers: args[i] points to the\n"
      << " * tessera_buffer_t of a buffer argument or to the value of a scalar argument. */\n";
    h << "int " << fn_ << "_argv(void **args);\n\n";
    h << "#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* " << guard << " */\n";
    return h.str();
}

std::string c_function_name(const ir::LoweredPipeline &p, const CodeGenOptions &options) {
    if (!options.function_name.empty()) {
        const std::string &n = options.function_name;
        if (sanitize_identifier(n) != n)
            throw CompileError("the function name \"" + n + "\" cannot be used for a C function (\"" +
                               sanitize_identifier(n) + "\" can)");
        return n;
    }
    return sanitize_identifier(p.name.empty() ? std::string("pipeline") : p.name);
}

std::string emit_c(const ir::LoweredPipeline &p, const CodeGenOptions &options) {
    return Emitter(p, options).source();
}

std::string emit_header(const ir::LoweredPipeline &p, const CodeGenOptions &options) {
    return Emitter(p, options).header();
}

}  // namespace tessera::codegen
