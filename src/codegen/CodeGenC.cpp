#include "codegen/CodeGenC.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "codegen/Runtime.h"
#include "ir/Check.h"
#include "ir/IREquality.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "ir/Scalar.h"
#include "tessera/Buffer.h"
#include "tessera/Error.h"

namespace tessera::codegen {

using namespace tessera::ir;

namespace {

/** Allocations of constant size up to this many bytes are arrays in a C block (on the
 * stack, as in Halide); larger or variable-size ones are malloc'd. OpenMP's worker threads
 * have stacks of a few MiB. */
constexpr int64_t kStackAllocationBytes = 16 * 1024;

/** A loop inside a parallel loop's iteration with at least this many loads and stores is
 * a function of its own (see "outlined functions" below). */
constexpr int kOutlinedLoopAccesses = 4;

/** ... but only in a parallel loop whose body has at least this many: a smaller body
 * compiles quickly in one piece, and a call per execution of its inner loops (blur: one
 * per row of each stage) would cost more run time (6%) than the split saves. */
constexpr int kSplitParallelBodyAccesses = 32;

/** Innermost loops with at most this many loads and stores are unrolled this many times by
 * the C compiler (#pragma GCC unroll). */
constexpr int kUnrollSmallLoopAccesses = 8;
constexpr int kUnrollSmallLoops = 4;

/** Before a function that reads and writes no memory itself (the pipeline's function, or
 * a parallel loop's iteration, whose loops are all outlined): it checks arguments,
 * computes coordinates and calls the functions that do the work, once per call or per
 * tile. GCC's -O3 spends more time on such code than on the loops it calls (matmul: 12 of
 * 62 ms of a translation unit) for no gain; -O1 is enough. */
constexpr const char *kControlOnly = "#if defined(__GNUC__) && !defined(__clang__)\n"
                                     "__attribute__((optimize(\"O1\")))\n"
                                     "#endif\n";

// ---------------------------------------------------------------------------------------
// Names and literals

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ascii_alpha(c) || is_ascii_digit(c) || c == '_'; }

bool starts_with(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string &s, const std::string &p) {
    return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

const std::set<std::string> &reserved_identifiers() {
    static const std::set<std::string> words = {
        // C (C89 to C23)
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
        "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
        "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
        "union", "unsigned", "void", "volatile", "while", "alignas", "alignof", "bool", "constexpr",
        "false", "nullptr", "static_assert", "thread_local", "true", "typeof", "typeof_unqual",
        // C++ (the generated header declares the parameter names)
        "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t",
        "class", "co_await", "co_return", "co_yield", "compl", "concept", "consteval", "constinit",
        "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend",
        "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq",
        "private", "protected", "public", "reinterpret_cast", "requires", "static_cast",
        "template", "this", "throw", "try", "typeid", "typename", "using", "virtual", "wchar_t",
        "xor", "xor_eq", "main",
        // Macros and objects of the included headers and predefined GNU macros
        "NULL", "EOF", "NAN", "INFINITY", "BUFSIZ", "errno", "stdin", "stdout", "stderr",
        "assert", "offsetof", "linux", "unix", "i386", "math_errhandling", "isnan", "isinf",
        "isfinite", "signbit", "fpclassify", "isnormal",
        // Library functions the generated code calls
        "malloc", "free", "memcpy", "snprintf", "vsnprintf", "fprintf", "fputs", "va_list", "va_start",
        "va_end", "va_arg",
        "sqrt", "sqrtf", "exp", "expf", "log", "logf", "pow", "powf", "sin", "sinf", "cos", "cosf",
        "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh",
        "sinhf", "cosh", "coshf", "tanh", "tanhf", "asinh", "asinhf", "acosh", "acoshf", "atanh",
        "atanhf", "floor", "floorf", "ceil", "ceilf", "rint", "rintf", "trunc", "truncf", "fma",
        "fmaf", "fabs", "fabsf",
        // The rest of the standard and GNU functions declared by the included headers
        "abs", "labs", "llabs", "div", "ldiv", "lldiv", "atoi", "atol", "atoll", "atof", "strtol",
        "strtoll", "strtoul", "strtoull", "strtod", "strtof", "strtold", "rand", "srand", "calloc",
        "realloc", "aligned_alloc", "posix_memalign", "exit", "abort", "atexit", "qsort", "bsearch",
        "getenv", "system", "random", "srandom", "memset", "memmove", "memcmp", "memchr", "strlen",
        "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr", "strrchr", "strstr",
        "strdup", "strtok", "strerror", "index", "rindex", "printf", "sprintf", "vprintf",
        "vfprintf", "vsnprintf", "puts", "putchar", "fopen", "fclose", "fread", "fwrite", "fflush",
        "remove", "rename", "tmpfile", "getchar", "fgets", "fgetc", "fputc", "perror", "scanf",
        "sscanf", "fscanf", "fseek", "ftell", "rewind", "setbuf", "setvbuf",
    };
    static const std::set<std::string> all = [] {
        std::set<std::string> w = words;
        // <math.h>: each function in its double, float and long double forms.
        for (const char *f : {"acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh",
                              "cosh", "sinh", "tanh", "exp", "exp2", "expm1", "exp10", "pow10", "frexp", "ilogb",
                              "ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "scalbn", "scalbln",
                              "scalb", "cbrt", "fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma",
                              "gamma", "ceil", "floor", "nearbyint", "rint", "lrint", "llrint", "round", "lround",
                              "llround", "trunc", "fmod", "remainder", "drem", "remquo", "copysign", "nan",
                              "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma", "j0", "j1", "jn", "y0",
                              "y1", "yn", "significand", "finite", "sincos", "isinf", "isnan", "fmaxmag",
                              "fminmag", "roundeven", "canonicalize"}) {
            w.insert(f);
            w.insert(std::string(f) + "f");
            w.insert(std::string(f) + "l");
        }
        return w;
    }();
    return all;
}

bool all_capitals_with_underscore(const std::string &s) {
    bool underscore = false;
    for (char c : s) {
        if (c >= 'a' && c <= 'z') return false;
        if (c == '_') underscore = true;
    }
    return underscore;
}

// A C string literal; '?' is escaped so that no trigraph can form.
std::string c_string_literal(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '?': out += "\\?"; break;
        default:
            if (c < 0x20 || c >= 0x7f) {
                char buf[8];
                std::snprintf(buf, sizeof(buf), "\\%03o", unsigned(c));
                out += buf;
            } else {
                out += char(c);
            }
        }
    }
    return out + "\"";
}

// Text that is safe inside a /* */ comment.
std::string comment_text(const std::string &s) {
    std::string t;
    for (unsigned char c : s) t += (c == '\n' || c == '\r' || c == '\t') ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : char(c);
    bool changed = true;
    while (changed) {
        changed = false;
        for (const char *bad : {"*/", "/*", "??"}) {
            size_t p = t.find(bad);
            if (p != std::string::npos) {
                t.insert(p + 1, " ");
                changed = true;
            }
        }
    }
    return t;
}

std::string int_literal(Type t, int64_t v) {
    const std::string s = std::to_string(v);
    switch (t.bits) {
    case 32:
        if (v == INT32_MIN) return "(-2147483647 - 1)";
        return v < 0 ? "(" + s + ")" : s;
    case 64:
        if (v == INT64_MIN) return "((int64_t)-9223372036854775807 - 1)";
        return v < 0 ? "((int64_t)" + s + ")" : "(int64_t)" + s;
    default: return v < 0 ? "(" + c_type_name(t) + ")(" + s + ")" : "(" + c_type_name(t) + ")" + s;
    }
}

std::string uint_literal(Type t, uint64_t v) {
    const std::string s = std::to_string(v);
    if (t.is_bool()) return v ? "(uint8_t)1" : "(uint8_t)0";
    switch (t.bits) {
    case 32: return s + "u";
    case 64: return "(uint64_t)" + s + (v > 0xFFFFFFFFull ? "ull" : "u");
    default: return "(" + c_type_name(t) + ")" + s;
    }
}

std::string float_literal(Type t, double v) {
    const bool f32 = t.bits == 32;
    if (std::isnan(v)) return f32 ? "NAN" : "(double)NAN";
    if (std::isinf(v)) {
        if (v > 0) return f32 ? "INFINITY" : "(double)INFINITY";
        return f32 ? "(-INFINITY)" : "(-(double)INFINITY)";
    }
    // The shortest decimal that reads back as the same value.
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        std::snprintf(buf, sizeof(buf), "%.*g", prec, v);
        if (f32 ? std::strtof(buf, nullptr) == float(v) : std::strtod(buf, nullptr) == v) break;
    }
    std::string s = buf;
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    if (f32) s += "f";
    if (s[0] == '-') s = "(" + s + ")";
    return s;
}

bool is_lvalue_name(const std::string &s) {
    if (s.empty() || !(is_ascii_alpha(s[0]) || s[0] == '_')) return false;
    for (char c : s) {
        if (!(is_ident_char(c) || c == '[' || c == ']')) return false;
    }
    return true;
}

// ---------------------------------------------------------------------------------------
// Free variables and used buffers of the pipeline body

class UseCollector : public IRVisitor {
public:
    std::set<std::string> free_vars, free_buffers;

protected:
    std::map<std::string, int> bound_vars_, bound_buffers_;

    void visit(const Variable *op) override {
        if (bound_vars_[op->name] == 0) free_vars.insert(op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        bound_vars_[op->name]++;
        include(op->body);
        bound_vars_[op->name]--;
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        bound_vars_[op->name]++;
        include(op->body);
        bound_vars_[op->name]--;
    }
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        bound_vars_[op->name]++;
        include(op->body);
        bound_vars_[op->name]--;
    }
    void visit(const Load *op) override {
        if (bound_buffers_[op->buffer] == 0) free_buffers.insert(op->buffer);
        include(op->index);
    }
    void visit(const Store *op) override {
        if (bound_buffers_[op->buffer] == 0) free_buffers.insert(op->buffer);
        include(op->value);
        include(op->index);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) include(e);
        bound_buffers_[op->name]++;
        include(op->body);
        bound_buffers_[op->name]--;
    }
};

// ---------------------------------------------------------------------------------------
// The emitter

using Lanes = std::vector<std::string>;

struct VarBinding {
    std::string ident;  // a native vector, or a C array of `type.lanes` elements
    Type type;
    bool native = false;
};

struct BufBinding {
    std::string ident;
    Type type;  // element type
    bool writable;
    bool on_stack = false;  // a C array (a small allocation of constant size)
};

class Emitter {
public:
    Emitter(const ir::LoweredPipeline &p, const CodeGenOptions &o)
        : p_(p), jit_runtime_(o.jit_runtime), helpers_(o.jit_runtime) {
        fn_ = c_function_name(p, o);
        scopes_.emplace_back();
        for (const ir::PipelineArgument &a : p.args) {
            ArgNames n;
            if (a.kind == ir::PipelineArgument::Kind::Param) {
                n.ident = name_var(a.name);
            } else {
                n.ident = name_buffer(a.name);
                n.descriptor = issue(n.ident + "_buffer");
            }
            scopes_[0].insert(n.ident);
            if (!n.descriptor.empty()) scopes_[0].insert(n.descriptor);
            arg_names_.push_back(n);
        }
    }

    std::string signature() const {
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

    std::string argument_comment() const {
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

    std::string argv_wrapper() const {
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

    const std::string &function_name() const { return fn_; }

    /** File-scope definitions of a Buffer compiled into the code: its elements, densely
     * (dimension 0 innermost) as literals of the element type, its dimensions and its
     * descriptor `descriptor`. */
    std::string embedded_buffer(const ir::PipelineArgument &a, const std::string &descriptor) {
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

    std::string source() {
        TESSERA_INTERNAL_ASSERT(p_.body.defined(), "pipeline " << p_.name << " has no body");
        // Which descriptor variables, parameters and buffer pointers the body uses.
        UseCollector uses;
        uses.include(p_.body);

        // Function-scope bindings, and the contents of embedded buffers.
        std::ostringstream entry, embedded;
        const int output_index = find_output();
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
        if (output_index >= 0) {
            const ir::PipelineArgument &out = p_.args[output_index];
            for (size_t i = 0; i < p_.args.size(); i++) {
                const ir::PipelineArgument &a = p_.args[i];
                if (a.kind != ir::PipelineArgument::Kind::InputBuffer) continue;
                entry << "    if (" << helpers_.use("tessera_check_overlap") << "("
                      << arg_names_[output_index].descriptor << ", " << c_string_literal(out.name) << ", "
                      << out.type.bytes() << ", " << arg_names_[i].descriptor << ", " << c_string_literal(a.name)
                      << ", " << a.type.bytes() << ")) return TESSERA_ERROR_BUFFER_OVERLAP;\n";
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
            for (const auto &id : allocation_idents_) fn << "    tessera_free(" << id << ");\n";
            fn << "    return _status;\n";
        }
        fn << "}\n";

        std::ostringstream file;
        file << "/* Generated by Tessera from pipeline \"" << comment_text(p_.name) << "\": " << fn_ << "(), "
             << fn_ << "_argv(). Do not edit. */\n";
        file << c_prelude_text(jit_runtime_) << "\n";
        for (const auto &[name, td] : vector_typedefs_) file << td << "\n";
        if (!vector_typedefs_.empty()) file << "\n";
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

    std::string header() const {
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

private:
    struct ArgNames {
        std::string ident;       // the Param, or the host pointer of a buffer
        std::string descriptor;  // the tessera_buffer_t parameter of a buffer
    };

    const ir::LoweredPipeline &p_;
    bool jit_runtime_;
    std::string fn_;
    std::vector<ArgNames> arg_names_;

    // Identifiers: every identifier issued in the function, the canonical identifier of
    // each IR variable and buffer name, and the identifiers declared in each open C block.
    std::set<std::string> issued_;
    std::map<std::string, std::string> canon_var_, canon_buf_;
    std::vector<std::set<std::string>> scopes_;

    // What IR names mean at the current point.
    std::map<std::string, std::vector<VarBinding>> vars_;
    std::map<std::string, std::vector<BufBinding>> bufs_;

    std::map<std::string, std::string> vector_typedefs_;

    std::ostringstream body_;
    // The outlined functions: parallel loops' iterations and the large loops inside them.
    struct Outlined {
        std::string type, definition, prototype;
    };
    std::vector<Outlined> outlined_;
    int in_parallel_function_ = 0, in_outlined_loop_ = 0;
    bool split_parallel_body_ = false;  // the parallel loop's body is split into functions
    // Loads and stores emitted in the function being emitted (the pipeline's or an outlined
    // one): a function without any only checks, computes coordinates and calls.
    int memory_accesses_ = 0;
    int indent_ = 1;
    int next_temp_ = 0;
    HelperSet helpers_;
    bool uses_cleanup_ = false;
    std::vector<std::string> allocations_;        // function-scope declarations
    std::vector<std::string> allocation_idents_;  // freed at tessera_cleanup
    /** The parallel loop being emitted (only the outermost one runs threads): its error
     * status, the label that ends an iteration, and the allocations of one iteration. */
    struct ParallelScope {
        std::string status, end_label;
        std::vector<std::string> allocations, idents;
        bool label_used = false;
        bool shared_status = true;  // the status is shared by OpenMP threads (not a function's own)
    };
    std::vector<ParallelScope> parallel_;

    // --- identifiers -------------------------------------------------------------------

    std::string issue(const std::string &base) {
        std::string id = base;
        for (int k = 1; issued_.count(id); k++) id = base + "_" + std::to_string(k);
        issued_.insert(id);
        return id;
    }

    std::string name_var(const std::string &ir_name) {
        auto it = canon_var_.find(ir_name);
        if (it != canon_var_.end()) return it->second;
        return canon_var_[ir_name] = issue(sanitize_identifier(ir_name));
    }

    std::string name_buffer(const std::string &ir_name) {
        auto it = canon_buf_.find(ir_name);
        if (it != canon_buf_.end()) return it->second;
        return canon_buf_[ir_name] = issue(sanitize_identifier(ir_name));
    }

    bool visible(const std::string &id) const {
        for (const auto &s : scopes_)
            if (s.count(id)) return true;
        return false;
    }

    // An identifier for a new binding of `ir_name` in the current C block: its canonical
    // identifier unless that is visible here (C would see the outer one, or reject a
    // redeclaration), else a fresh one.
    std::string declare(const std::string &canonical) {
        std::string id = visible(canonical) ? issue(canonical) : canonical;
        scopes_.back().insert(id);
        return id;
    }

    std::string declare_var(const std::string &ir_name, Type t) {
        const std::string id = declare(name_var(ir_name));
        vars_[ir_name].push_back(VarBinding{id, t});
        return id;
    }

    // --- output ------------------------------------------------------------------------

    void line(const std::string &s) {
        flush_temp();
        write_line(indent_, s);
    }
    /** Text written as it is (preprocessor lines). */
    void raw(const std::string &s) {
        flush_temp();
        body_ << s;
    }
    void write_line(int indent, const std::string &s) {
        for (int i = 0; i < indent; i++) body_ << "    ";
        body_ << s << "\n";
    }

    /** The declaration of the last temporary is held back until the next line, so that a
     * let whose value it is declares the let's identifier instead of copying the
     * temporary (declare_pending_as). Nothing can have used the temporary yet. */
    struct PendingTemp {
        bool active = false;
        std::string type, id, rhs, comment;
        int indent = 0;
    };
    PendingTemp pending_;
    void flush_temp() {
        if (!pending_.active) return;
        pending_.active = false;
        write_line(pending_.indent, "const " + pending_.type + " " + pending_.id + " = " + pending_.rhs + ";" +
                                        pending_.comment);
    }
    std::string hold_temp(const std::string &type, const std::string &rhs) {
        flush_temp();
        const std::string id = "_t" + std::to_string(next_temp_++);
        pending_ = PendingTemp{true, type, id, rhs, "", indent_};
        return id;
    }
    /** If `value` is the temporary just computed, declares it as `id` instead. */
    bool declare_pending_as(const std::string &value, const std::string &id, const std::string &comment) {
        if (!pending_.active || pending_.id != value) return false;
        pending_.id = id;
        pending_.comment = comment;
        flush_temp();
        return true;
    }

    void open_block(const std::string &head) {
        line(head + " {");
        indent_++;
        enter_scope();
    }

    void close_block(const std::string &tail = "}") {
        leave_scope();
        indent_--;
        line(tail);
    }

    /** A C block: the identifiers declared in it. */
    void enter_scope() { scopes_.emplace_back(); }
    void leave_scope() { scopes_.pop_back(); }

    std::string temp(Type t, const std::string &rhs) { return hold_temp(c_type_name(t), rhs); }

    std::string lvalue(Type t, const std::string &x) { return is_lvalue_name(x) ? x : temp(t, x); }

    void fail_to(const std::string &code, const std::string &message_var_or_literal) {
        fail_with(helpers_.use("tessera_report_error") + "(" + code + ", " + message_var_or_literal + ")");
    }

    /** Ends the pipeline (or, inside a parallel loop, the iteration) with the error code
     * that `report` (a C call that reports the error) returns. */
    void fail_with(const std::string &report) {
        if (!parallel_.empty()) {
            // Inside a parallel loop: record the error for the thread that waits for the
            // loop, and end this iteration (freeing what it allocated).
            ParallelScope &p = parallel_.back();
            const std::string e = "_e" + std::to_string(next_temp_++);
            line("const int " + e + " = " + report + ";");
            if (p.shared_status) raw("#ifdef _OPENMP\n#pragma omp atomic write\n#endif\n");
            line(p.status + " = " + e + ";");
            line("goto " + p.end_label + ";");
            p.label_used = true;
            return;
        }
        uses_cleanup_ = true;
        line("_status = " + report + ";");
        line("goto tessera_cleanup;");
    }

    /** An error message built by one out-of-line call, tessera_format_error: literal text
     * and values (printed as the reference interpreter prints them). */
    struct ErrorMessage {
        std::string format, args;
        void text(const std::string &t) {
            for (char c : t) format += c == '%' ? std::string("%%") : std::string(1, c);
        }
        void value(Type t, const std::string &x) {
            if (t.is_bool()) {
                format += "%s";
                args += ", " + x + " ? \"true\" : \"false\"";
            } else if (t.is_float()) {
                format += t.bits == 32 ? "%.9gf" : "%.17g";
                args += ", (double)" + x;
            } else if (t.is_int()) {
                format += "%lld";
                args += ", (long long)" + x;
            } else {
                format += "%llu";
                args += ", (unsigned long long)" + x;
            }
        }
    };
    void fail_with_message(const std::string &code, const ErrorMessage &m) {
        fail_with(helpers_.use("tessera_format_error") + "(" + code + ", " + c_string_literal(m.format) + m.args + ")");
    }

    int find_output() const {
        for (size_t i = 0; i < p_.args.size(); i++)
            if (p_.args[i].kind == ir::PipelineArgument::Kind::OutputBuffer) return int(i);
        return -1;
    }

    static std::string type_code_macro(Type t) {
        switch (t.code) {
        case TypeCode::Int: return "TESSERA_TYPE_INT";
        case TypeCode::UInt: return "TESSERA_TYPE_UINT";
        case TypeCode::Float: return "TESSERA_TYPE_FLOAT";
        case TypeCode::Bool: return "TESSERA_TYPE_BOOL";
        }
        return "?";
    }

    // --- expressions -------------------------------------------------------------------

    std::string scalar(const Expr &e) {
        Lanes l = emit(e);
        TESSERA_INTERNAL_ASSERT(l.size() == 1, "expected a scalar, got " << to_string(e));
        return l[0];
    }

    Lanes emit(const Expr &e) {
        TESSERA_INTERNAL_ASSERT(e.defined(), "undefined expression in a lowered pipeline");
        if (native(e.type())) {
            // The lanes of a native vector are its elements (a bool lane is 0 or 1).
            const std::string v = vec(e);
            Lanes l;
            for (int i = 0; i < e.type().lanes; i++) {
                const std::string x = v + "[" + std::to_string(i) + "]";
                l.push_back(e.type().is_bool() ? "(uint8_t)(" + x + " & 1)" : x);
            }
            return l;
        }
        Lanes l = emit_uncached(e);
        TESSERA_INTERNAL_ASSERT(int(l.size()) == e.type().lanes,
                                "lanes of " << to_string(e) << ": " << l.size() << " vs " << e.type().lanes);
        return l;
    }

    Lanes per_lane(Type t, const std::function<std::string(int)> &rhs) {
        Lanes out;
        for (int i = 0; i < t.lanes; i++) out.push_back(temp(t.element_of(), rhs(i)));
        return out;
    }

    static std::string lane(const Lanes &l, int i) { return l.size() == 1 ? l[0] : l[i]; }

    std::string cast_rhs(Type to, Type from, const std::string &x) {
        if (to == from) return x;
        const std::string T = c_type_name(to);
        if (to.is_bool()) return "(uint8_t)(" + x + " != 0)";
        if (from.is_bool()) return "(" + T + ")" + x;
        if (from.is_float()) {
            if (to.is_float()) return "(" + T + ")" + x;
            const std::string arg = from.bits == 32 ? "(double)" + x : x;
            return helpers_.use("tessera_sat_" + type_suffix(to)) + "(" + arg + ")";
        }
        return "(" + T + ")" + x;  // int -> int (wraps), int -> float (rounds to nearest even)
    }

    // a op b in the type t, wrapping: computed in uint32_t or uint64_t (no promotion to a
    // signed int) and converted back.
    std::string wrap_rhs(Type t, const char *op, const std::string &a, const std::string &b) {
        if (t.is_uint() && t.bits >= 32) return a + " " + op + " " + b;
        const std::string W = t.bits <= 32 ? "uint32_t" : "uint64_t";
        // "(int64_t)17" is cast as "(uint64_t)17", not "(uint64_t)(int64_t)17".
        auto widen = [&](const std::string &x) {
            const std::string prefix = "(" + c_type_name(t) + ")";
            if (starts_with(x, prefix) && x.size() > prefix.size() &&
                x.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
                return "(" + W + ")" + x.substr(prefix.size());
            return "(" + W + ")" + x;
        };
        return "(" + c_type_name(t) + ")(" + widen(a) + " " + op + " " + widen(b) + ")";
    }

    std::string binary_rhs(ExprKind k, Type t, const std::string &a, const std::string &b) {
        auto cmp = [&](const char *op) { return "(uint8_t)(" + a + " " + op + " " + b + ")"; };
        switch (k) {
        case ExprKind::EQ: return cmp("==");
        case ExprKind::NE: return cmp("!=");
        case ExprKind::LT: return cmp("<");
        case ExprKind::LE: return cmp("<=");
        case ExprKind::GT: return cmp(">");
        case ExprKind::GE: return cmp(">=");
        case ExprKind::Min:
            if (t.is_bool()) return "(uint8_t)(" + a + " & " + b + ")";
            return a + " < " + b + " ? " + a + " : " + b;
        case ExprKind::Max:
            if (t.is_bool()) return "(uint8_t)(" + a + " | " + b + ")";
            return a + " > " + b + " ? " + a + " : " + b;
        case ExprKind::And:
            TESSERA_INTERNAL_ASSERT(t.is_bool(), "&& on " << t.to_string());
            return "(uint8_t)(" + a + " & " + b + ")";
        case ExprKind::Or:
            TESSERA_INTERNAL_ASSERT(t.is_bool(), "|| on " << t.to_string());
            return "(uint8_t)(" + a + " | " + b + ")";
        default: break;
        }
        TESSERA_INTERNAL_ASSERT(!t.is_bool(), "arithmetic on bool");
        if (t.is_float()) {
            switch (k) {
            case ExprKind::Add: return a + " + " + b;
            case ExprKind::Sub: return a + " - " + b;
            case ExprKind::Mul: return a + " * " + b;
            case ExprKind::Div: return a + " / " + b;
            case ExprKind::Mod: return helpers_.use("tessera_mod_" + type_suffix(t)) + "(" + a + ", " + b + ")";
            default: break;
            }
        } else {
            switch (k) {
            case ExprKind::Add: return wrap_rhs(t, "+", a, b);
            case ExprKind::Sub: return wrap_rhs(t, "-", a, b);
            case ExprKind::Mul: return wrap_rhs(t, "*", a, b);
            case ExprKind::Div: return helpers_.use("tessera_div_" + type_suffix(t)) + "(" + a + ", " + b + ")";
            case ExprKind::Mod: return helpers_.use("tessera_mod_" + type_suffix(t)) + "(" + a + ", " + b + ")";
            default: break;
            }
        }
        TESSERA_INTERNAL_ERROR("binary operator " << int(k) << " on " << t.to_string());
    }

    Lanes emit_binary(ExprKind k, Type t, const Expr &a, const Expr &b) {
        Lanes la = emit(a), lb = emit(b);
        const Type ot = a.type().element_of();
        return per_lane(t, [&](int i) { return binary_rhs(k, ot, lane(la, i), lane(lb, i)); });
    }

    static std::string math_name(Intrinsic op, Type t) {
        std::string base;
        switch (op) {
        case Intrinsic::Sqrt: base = "sqrt"; break;
        case Intrinsic::Exp: base = "exp"; break;
        case Intrinsic::Log: base = "log"; break;
        case Intrinsic::Pow: base = "pow"; break;
        case Intrinsic::Sin: base = "sin"; break;
        case Intrinsic::Cos: base = "cos"; break;
        case Intrinsic::Tan: base = "tan"; break;
        case Intrinsic::Asin: base = "asin"; break;
        case Intrinsic::Acos: base = "acos"; break;
        case Intrinsic::Atan: base = "atan"; break;
        case Intrinsic::Atan2: base = "atan2"; break;
        case Intrinsic::Sinh: base = "sinh"; break;
        case Intrinsic::Cosh: base = "cosh"; break;
        case Intrinsic::Tanh: base = "tanh"; break;
        case Intrinsic::Asinh: base = "asinh"; break;
        case Intrinsic::Acosh: base = "acosh"; break;
        case Intrinsic::Atanh: base = "atanh"; break;
        case Intrinsic::Floor: base = "floor"; break;
        case Intrinsic::Ceil: base = "ceil"; break;
        case Intrinsic::Round: base = "rint"; break;  // half to even, as docs/semantics.md §3
        case Intrinsic::Trunc: base = "trunc"; break;
        case Intrinsic::Fma: base = "fma"; break;
        default: return "";
        }
        return t.bits == 32 ? base + "f" : base;
    }

    Lanes emit_call(const Call *c) {
        if (c->call_kind != CallKind::Intrinsic)
            TESSERA_INTERNAL_ERROR("the call to \"" << c->name << "\" must be lowered to a Load before code generation");
        const Type t = c->type;
        const Type et = t.element_of();
        std::vector<Lanes> args;
        std::vector<Type> at;
        for (const Expr &a : c->args) {
            args.push_back(emit(a));
            at.push_back(a.type().element_of());
        }
        auto arg = [&](size_t k, int i) {
            TESSERA_INTERNAL_ASSERT(k < args.size(), "too few arguments of " << intrinsic_name(c->op));
            return lane(args[k], i);
        };
        const std::string fname = math_name(c->op, et);
        if (!fname.empty()) {
            TESSERA_INTERNAL_ASSERT(et.is_float(), intrinsic_name(c->op) << " of type " << t.to_string());
            return per_lane(t, [&](int i) {
                std::string s = fname + "(";
                for (size_t k = 0; k < args.size(); k++) s += (k ? ", " : "") + arg(k, i);
                return s + ")";
            });
        }
        switch (c->op) {
        case Intrinsic::IsNan:
            return per_lane(t, [&](int i) { return "(uint8_t)(isnan(" + arg(0, i) + ") != 0)"; });
        case Intrinsic::IsInf:
            return per_lane(t, [&](int i) { return "(uint8_t)(isinf(" + arg(0, i) + ") != 0)"; });
        case Intrinsic::IsFinite:
            return per_lane(t, [&](int i) { return "(uint8_t)(isfinite(" + arg(0, i) + ") != 0)"; });
        case Intrinsic::Abs:
            if (at[0].is_float())
                return per_lane(t, [&](int i) { return (at[0].bits == 32 ? "fabsf(" : "fabs(") + arg(0, i) + ")"; });
            if (at[0].is_int())
                return per_lane(t, [&](int i) {
                    return helpers_.use("tessera_abs_" + type_suffix(at[0])) + "(" + arg(0, i) + ")";
                });
            TESSERA_INTERNAL_ASSERT(at[0].is_uint(), "abs of " << at[0].to_string());
            return per_lane(t, [&](int i) { return arg(0, i); });
        case Intrinsic::Absd:
            TESSERA_INTERNAL_ASSERT(at.size() == 2 && at[0] == at[1], "absd operand types");
            if (at[0].is_float()) {
                return per_lane(t, [&](int i) {
                    const std::string d = temp(at[0], arg(0, i) + " - " + arg(1, i));
                    return (at[0].bits == 32 ? "fabsf(" : "fabs(") + d + ")";
                });
            }
            return per_lane(t, [&](int i) {
                return helpers_.use("tessera_absd_" + type_suffix(at[0])) + "(" + arg(0, i) + ", " + arg(1, i) + ")";
            });
        case Intrinsic::BitAnd:
        case Intrinsic::BitOr:
        case Intrinsic::BitXor: {
            const char *op = c->op == Intrinsic::BitAnd ? "&" : c->op == Intrinsic::BitOr ? "|" : "^";
            return per_lane(t, [&](int i) {
                const std::string a = cast_rhs(et, at[0], arg(0, i)), b = cast_rhs(et, at[1], arg(1, i));
                if (et.is_bool()) return "(uint8_t)(" + a + " " + op + " " + b + ")";
                return wrap_rhs(et, op, a, b);
            });
        }
        case Intrinsic::BitNot:
            return per_lane(t, [&](int i) {
                if (et.is_bool()) return "(uint8_t)!" + arg(0, i);
                if (et.is_uint() && et.bits >= 32) return "~" + arg(0, i);
                const std::string W = et.bits <= 32 ? "uint32_t" : "uint64_t";
                return "(" + c_type_name(et) + ")~(" + W + ")" + arg(0, i);
            });
        case Intrinsic::ShiftLeft:
        case Intrinsic::ShiftRight: {
            TESSERA_INTERNAL_ASSERT(at.size() == 2 && et.is_integer() && at[1].is_integer(), "shift operand types");
            const std::string h =
                helpers_.use((c->op == Intrinsic::ShiftLeft ? "tessera_shl_" : "tessera_shr_") + type_suffix(et));
            return per_lane(t, [&](int i) {
                std::string amount;
                if (at[1] == UInt(64)) amount = helpers_.use("tessera_shift_amount_u64") + "(" + arg(1, i) + ")";
                else if (at[1] == Int(64)) amount = arg(1, i);
                else amount = "(int64_t)" + arg(1, i);
                return h + "(" + arg(0, i) + ", " + amount + ")";
            });
        }
        case Intrinsic::Reinterpret: {
            TESSERA_INTERNAL_ASSERT(at.size() == 1 && at[0].bits == et.bits && !et.is_bool(), "reinterpret types");
            Lanes out;
            for (int i = 0; i < t.lanes; i++) {
                const std::string src = lvalue(at[0], arg(0, i));
                const std::string id = "_t" + std::to_string(next_temp_++);
                line(c_type_name(et) + " " + id + ";");
                line("memcpy(&" + id + ", &" + src + ", sizeof(" + id + "));");
                out.push_back(id);
            }
            return out;
        }
        default: break;
        }
        TESSERA_INTERNAL_ERROR("no C code for intrinsic " << intrinsic_name(c->op));
    }

    Lanes emit_uncached(const Expr &e) {
        const Type t = e.type();
        switch (e->kind) {
        case ExprKind::IntImm: return {int_literal(t, as<IntImm>(e)->value)};
        case ExprKind::UIntImm: return {uint_literal(t, as<UIntImm>(e)->value)};
        case ExprKind::FloatImm: return {float_literal(t, as<FloatImm>(e)->value)};
        case ExprKind::StringImm:
            TESSERA_INTERNAL_ERROR("string \"" << as<StringImm>(e)->value << "\" outside an assertion message");
        case ExprKind::Variable: {
            const Variable *v = as<Variable>(e);
            auto it = vars_.find(v->name);
            TESSERA_INTERNAL_ASSERT(it != vars_.end() && !it->second.empty(),
                                    "variable \"" << v->name << "\" is not bound in pipeline " << p_.name);
            const VarBinding &b = it->second.back();
            TESSERA_INTERNAL_ASSERT(b.type == t, "variable \"" << v->name << "\" has type " << t.to_string()
                                                               << " but is bound to a " << b.type.to_string());
            if (t.is_scalar()) return {b.ident};
            Lanes l;
            for (int i = 0; i < t.lanes; i++) l.push_back(b.ident + "[" + std::to_string(i) + "]");
            return l;
        }
        case ExprKind::Cast: {
            const Cast *c = as<Cast>(e);
            Lanes v = emit(c->value);
            const Type from = c->value.type().element_of();
            if (from == t.element_of()) return v;
            return per_lane(t, [&](int i) { return cast_rhs(t.element_of(), from, lane(v, i)); });
        }
#define TESSERA_CG_BINARY(N) \
    case ExprKind::N: return emit_binary(ExprKind::N, t, as<N>(e)->a, as<N>(e)->b);
            TESSERA_CG_BINARY(Add)
            TESSERA_CG_BINARY(Sub)
            TESSERA_CG_BINARY(Mul)
            TESSERA_CG_BINARY(Div)
            TESSERA_CG_BINARY(Mod)
            TESSERA_CG_BINARY(Min)
            TESSERA_CG_BINARY(Max)
            TESSERA_CG_BINARY(EQ)
            TESSERA_CG_BINARY(NE)
            TESSERA_CG_BINARY(LT)
            TESSERA_CG_BINARY(LE)
            TESSERA_CG_BINARY(GT)
            TESSERA_CG_BINARY(GE)
            TESSERA_CG_BINARY(And)
            TESSERA_CG_BINARY(Or)
#undef TESSERA_CG_BINARY
        case ExprKind::Not: {
            Lanes a = emit(as<Not>(e)->a);
            return per_lane(t, [&](int i) { return "(uint8_t)!" + lane(a, i); });
        }
        case ExprKind::Select: {
            const Select *s = as<Select>(e);
            // Every operand is evaluated (into temporaries) before the choice.
            Lanes c = emit(s->condition), a = emit(s->true_value), b = emit(s->false_value);
            return per_lane(t, [&](int i) { return lane(c, i) + " ? " + lane(a, i) + " : " + lane(b, i); });
        }
        case ExprKind::Call: return emit_call(as<Call>(e));
        case ExprKind::Let: {
            const Let *l = as<Let>(e);
            bind_value(l->name, l->value);
            Lanes r = emit(l->body);
            vars_[l->name].pop_back();
            return r;
        }
        case ExprKind::Load: {
            memory_accesses_++;
            const Load *ld = as<Load>(e);
            const BufBinding &b = buffer(ld->buffer);
            check_element_type(ld->buffer, b, t.element_of());
            Lanes idx = emit(ld->index);
            return per_lane(t, [&](int i) {
                const std::string x = b.ident + "[" + lane(idx, i) + "]";
                return t.is_bool() ? "(uint8_t)(" + x + " != 0)" : x;
            });
        }
        case ExprKind::Ramp: {
            const Ramp *r = as<Ramp>(e);
            const std::string base = scalar(r->base), stride = scalar(r->stride);
            const Type et = t.element_of();
            TESSERA_INTERNAL_ASSERT(et.is_int() || et.is_uint() || et.is_float(), "ramp of " << t.to_string());
            // Lane i is base + i * stride in the element type, as in the IR interpreter. With
            // a constant integer stride, i * stride is folded (with wrapping).
            const IntImm *cs = as<IntImm>(r->stride);
            const UIntImm *cu = as<UIntImm>(r->stride);
            Lanes out;
            for (int i = 0; i < r->lanes; i++) {
                if (et.is_float()) {
                    const std::string m = temp(et, float_literal(et, double(i)) + " * " + stride);
                    out.push_back(temp(et, base + " + " + m));
                } else if (i == 0) {
                    out.push_back(base);
                } else if (cs || cu) {
                    const ir::Scalar k = ir::binary(
                        ExprKind::Mul, et, cs ? ir::make_int(i) : ir::make_uint(uint64_t(i)),
                        cs ? ir::make_int(cs->value) : ir::make_uint(cu->value));
                    const std::string lit = cs ? int_literal(et, k.i) : uint_literal(et, k.u);
                    out.push_back(temp(et, wrap_rhs(et, "+", base, lit)));
                } else {
                    const std::string k = et.is_int() ? int_literal(et, i) : uint_literal(et, uint64_t(i));
                    const std::string m = temp(et, wrap_rhs(et, "*", k, stride));
                    out.push_back(temp(et, wrap_rhs(et, "+", base, m)));
                }
            }
            return out;
        }
        case ExprKind::Broadcast: {
            const Broadcast *b = as<Broadcast>(e);
            const std::string v = scalar(b->value);
            return Lanes(b->lanes, v);
        }
        }
        TESSERA_INTERNAL_ERROR("no C code for expression " << to_string(e));
    }

    // Declares a C variable (an array for a vector) holding `value`, bound to `name`.
    void bind_value(const std::string &name, const Expr &value) {
        const Type t = value.type();
        if (native(t)) {
            const std::string v = vec(value);
            const std::string id = declare_var(name, t);
            if (!declare_pending_as(v, id, name_comment(name, id)))
                line("const " + vtype(t) + " " + id + " = " + v + ";" + name_comment(name, id));
            vars_[name].back().native = true;
            return;
        }
        Lanes v = emit(value);
        const std::string id = declare_var(name, t);
        const std::string ct = c_type_name(t.element_of());
        if (t.is_scalar()) {
            if (!declare_pending_as(v[0], id, name_comment(name, id)))
                line("const " + ct + " " + id + " = " + v[0] + ";" + name_comment(name, id));
        } else {
            std::string init;
            for (size_t i = 0; i < v.size(); i++) init += (i ? ", " : "") + v[i];
            line("const " + ct + " " + id + "[" + std::to_string(t.lanes) + "] = {" + init + "};" + name_comment(name, id));
        }
    }

    static std::string name_comment(const std::string &ir_name, const std::string &id) {
        return ir_name == id ? "" : "  /* " + comment_text(ir_name) + " */";
    }

    const BufBinding &buffer(const std::string &name) {
        auto it = bufs_.find(name);
        TESSERA_INTERNAL_ASSERT(it != bufs_.end() && !it->second.empty(),
                                "buffer \"" << name << "\" is not an argument or allocation of pipeline " << p_.name);
        return it->second.back();
    }

    void check_element_type(const std::string &name, const BufBinding &b, Type t) {
        const bool byte_bool = (t.is_bool() && b.type == UInt(8)) || (b.type.is_bool() && t == UInt(8));
        TESSERA_INTERNAL_ASSERT(b.type == t || byte_bool, "access of type " << t.to_string() << " to buffer \""
                                                                             << name << "\" of type "
                                                                             << b.type.to_string());
    }

    // --- native vectors ----------------------------------------------------------------
    //
    // A vector of 2 to 64 lanes (a power of two) is a GCC/Clang vector type
    // (vector_size), so that the C compiler emits SIMD instructions for it without
    // auto-vectorizing anything; a vector of bools is a mask of int8 lanes, 0 or -1.
    // Integer + - * are done in the unsigned vector type (wrapping), Euclidean division by
    // a constant with a shift or a corrected truncating division, min/max/select as masked
    // blends, dense loads and stores with memcpy. Anything else is computed lane by lane
    // (with the scalar helpers) and packed.

    static bool native(Type t) { return t.lanes >= 2 && t.lanes <= 64 && (t.lanes & (t.lanes - 1)) == 0; }

    std::string vtype(Type t) {
        const Type et = t.element_of();
        const std::string name =
            "tessera_v" + (et.is_bool() ? std::string("mask") : type_suffix(et)) + "x" + std::to_string(t.lanes);
        if (!vector_typedefs_.count(name)) {
            const int bytes = (et.is_bool() ? 1 : et.bytes()) * t.lanes;
            vector_typedefs_[name] = "typedef " + (et.is_bool() ? std::string("int8_t") : c_type_name(et)) + " " + name +
                                     " __attribute__((vector_size(" + std::to_string(bytes) + ")));";
        }
        return name;
    }

    /** The signed or unsigned integer vector type with t's lane width and count. */
    std::string vint(Type t, bool is_signed) {
        const Type et = t.element_of();
        const int bits = et.is_bool() ? 8 : et.bits;
        return vtype((is_signed ? Int(bits) : UInt(bits)).with_lanes(t.lanes));
    }

    std::string splat(Type t, const std::string &x) {
        std::string s = "(" + vtype(t) + "){";
        for (int i = 0; i < t.lanes; i++) s += (i ? ", " : "") + x;
        return s + "}";
    }

    std::string vtemp(Type t, const std::string &rhs) { return hold_temp(vtype(t), rhs); }

    std::string vec(const Expr &e) { return vec_uncached(e); }

    /** Packs per-lane scalars into a vector (bool lanes 0/1 become mask lanes 0/-1). */
    std::string pack(Type t, const Lanes &l) {
        std::string s = "(" + vtype(t) + "){";
        for (int i = 0; i < t.lanes; i++) {
            const std::string x = l.size() == 1 ? l[0] : l[size_t(i)];
            s += (i ? ", " : "") + (t.is_bool() ? "(int8_t)-(int8_t)" + x : x);
        }
        return vtemp(t, s + "}");
    }

    /** The constant value of a Broadcast of an integer constant. */
    static bool broadcast_const(const Expr &e, int64_t &c) {
        const Broadcast *b = as<Broadcast>(e);
        if (!b) return false;
        if (const IntImm *i = as<IntImm>(b->value)) return c = i->value, true;
        if (const UIntImm *u = as<UIntImm>(b->value)) return u->value <= uint64_t(INT64_MAX) && (c = int64_t(u->value), true);
        return false;
    }

    /** A comparison result (an integer vector of the operands' width) as a mask. */
    std::string to_mask(Type t, const std::string &cmp, Type operand) {
        const std::string m = vtype(Bool().with_lanes(t.lanes));
        if ((operand.is_bool() ? 8 : operand.bits) == 8) return vtemp(Bool().with_lanes(t.lanes), "(" + m + ")(" + cmp + ")");
        return vtemp(Bool().with_lanes(t.lanes), "__builtin_convertvector(" + cmp + ", " + m + ")");
    }

    /** A mask widened to the lanes of type t (all bits set or clear). */
    std::string mask_as(Type t, const std::string &mask) {
        const std::string vi = vint(t, true);
        if ((t.is_bool() ? 8 : t.bits) == 8) return "(" + vi + ")" + mask;
        return "__builtin_convertvector(" + mask + ", " + vi + ")";
    }

    std::string blend(Type t, const std::string &mask_wide, const std::string &a, const std::string &b) {
        const std::string vi = vint(t, true);
        return vtemp(t, "(" + vtype(t) + ")(((" + vi + ")" + a + " & " + mask_wide + ") | ((" + vi + ")" + b + " & ~" +
                            mask_wide + "))");
    }

    std::string vec_uncached(const Expr &e) {
        const Type t = e.type();
        const Type et = t.element_of();
        const std::string VT = vtype(t);
        switch (e->kind) {
        case ExprKind::Broadcast: {
            std::string x = scalar(as<Broadcast>(e)->value);
            if (et.is_bool()) x = temp(Int(8), "(int8_t)-(int8_t)" + x);
            return vtemp(t, splat(t, x));
        }
        case ExprKind::Variable: {
            auto it = vars_.find(as<Variable>(e)->name);
            if (it != vars_.end() && !it->second.empty() && it->second.back().native) return it->second.back().ident;
            break;
        }
        case ExprKind::Cast: {
            const Expr &v = as<Cast>(e)->value;
            const Type from = v.type().element_of();
            if (from == et) return vec(v);
            if (et.is_bool()) {
                const std::string x = vec(v);
                return to_mask(t, x + " != " + splat(v.type(), "0"), from);
            }
            if (from.is_bool()) {
                // A mask lane (0 or -1) as 0 or 1, then converted.
                const Type i8 = Int(8).with_lanes(t.lanes);
                const std::string ones = vtemp(i8, "(" + vtype(i8) + ")" + vec(v) + " & " + splat(i8, "1"));
                return vtemp(t, "__builtin_convertvector(" + ones + ", " + VT + ")");
            }
            if (from.is_float() && !et.is_float()) break;  // saturating: lane by lane
            return vtemp(t, "__builtin_convertvector(" + vec(v) + ", " + VT + ")");
        }
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul: {
            const Expr &ea = e->kind == ExprKind::Add ? as<Add>(e)->a : e->kind == ExprKind::Sub ? as<Sub>(e)->a : as<Mul>(e)->a;
            const Expr &eb = e->kind == ExprKind::Add ? as<Add>(e)->b : e->kind == ExprKind::Sub ? as<Sub>(e)->b : as<Mul>(e)->b;
            const char *op = e->kind == ExprKind::Add ? " + " : e->kind == ExprKind::Sub ? " - " : " * ";
            const std::string a = vec(ea), b = vec(eb);
            if (et.is_float()) return vtemp(t, a + op + b);
            if (et.is_bool()) break;
            const std::string vu = vint(t, false);
            return vtemp(t, "(" + VT + ")((" + vu + ")" + a + op + "(" + vu + ")" + b + ")");
        }
        case ExprKind::Div:
        case ExprKind::Mod: {
            const bool div = e->kind == ExprKind::Div;
            const Expr &ea = div ? as<Div>(e)->a : as<Mod>(e)->a;
            const Expr &eb = div ? as<Div>(e)->b : as<Mod>(e)->b;
            if (et.is_float()) {
                if (div) return vtemp(t, vec(ea) + " / " + vec(eb));
                break;
            }
            int64_t c;
            if (et.is_bool() || !broadcast_const(eb, c) || c <= 0) break;
            const std::string a = vec(ea), C = splat(t, int_or_uint_literal(et, c));
            if (et.is_uint()) return vtemp(t, a + (div ? " / " : " % ") + C);
            if ((c & (c - 1)) == 0) {
                int k = 0;
                while ((int64_t(1) << k) < c) k++;
                // Euclidean division by 2^k is the arithmetic shift; the remainder the low bits.
                if (div) return vtemp(t, a + " >> " + splat(t, std::to_string(k)));
                return vtemp(t, a + " & " + splat(t, int_or_uint_literal(et, c - 1)));
            }
            const std::string vu = vint(t, false);
            const std::string q = vtemp(t, a + " / " + C);
            const std::string r = vtemp(t, "(" + VT + ")((" + vu + ")" + a + " - (" + vu + ")" + q + " * (" + vu + ")" + C + ")");
            const std::string neg = vtemp(t, "(" + VT + ")(" + r + " < " + splat(t, "0") + ")");  // -1 where r < 0
            if (div) return vtemp(t, "(" + VT + ")((" + vu + ")" + q + " + (" + vu + ")" + neg + ")");
            return vtemp(t, r + " + (" + neg + " & " + C + ")");
        }
        case ExprKind::Min:
        case ExprKind::Max: {
            const bool mn = e->kind == ExprKind::Min;
            const std::string a = vec(mn ? as<Min>(e)->a : as<Max>(e)->a), b = vec(mn ? as<Min>(e)->b : as<Max>(e)->b);
            if (et.is_bool()) return vtemp(t, a + (mn ? " & " : " | ") + b);
            // Exactly a < b ? a : b (a > b ? a : b), NaN included.
            const std::string m = vtemp(Int(et.bits).with_lanes(t.lanes), std::string("(") + vint(t, true) + ")(" + a +
                                                                            (mn ? " < " : " > ") + b + ")");
            return blend(t, m, a, b);
        }
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE: {
            Expr ea, eb;
            const char *op = "";
            switch (e->kind) {
            case ExprKind::EQ: ea = as<EQ>(e)->a, eb = as<EQ>(e)->b, op = " == "; break;
            case ExprKind::NE: ea = as<NE>(e)->a, eb = as<NE>(e)->b, op = " != "; break;
            case ExprKind::LT: ea = as<LT>(e)->a, eb = as<LT>(e)->b, op = " < "; break;
            case ExprKind::LE: ea = as<LE>(e)->a, eb = as<LE>(e)->b, op = " <= "; break;
            case ExprKind::GT: ea = as<GT>(e)->a, eb = as<GT>(e)->b, op = " > "; break;
            default: ea = as<GE>(e)->a, eb = as<GE>(e)->b, op = " >= "; break;
            }
            const Type ot = ea.type().element_of();
            if (ot.is_bool()) break;
            return to_mask(t, vec(ea) + op + vec(eb), ot);
        }
        case ExprKind::And: return vtemp(t, vec(as<And>(e)->a) + " & " + vec(as<And>(e)->b));
        case ExprKind::Or: return vtemp(t, vec(as<Or>(e)->a) + " | " + vec(as<Or>(e)->b));
        case ExprKind::Not: return vtemp(t, "~" + vec(as<Not>(e)->a));
        case ExprKind::Select: {
            const Select *sel = as<Select>(e);
            const std::string c = vec(sel->condition), a = vec(sel->true_value), b = vec(sel->false_value);
            if (et.is_bool()) return vtemp(t, "(" + c + " & " + a + ") | (~" + c + " & " + b + ")");
            const std::string m = vtemp(Int(et.bits).with_lanes(t.lanes), mask_as(t, c));
            return blend(t, m, a, b);
        }
        case ExprKind::Load: {
            memory_accesses_++;
            const Load *ld = as<Load>(e);
            const Ramp *r = as<Ramp>(ld->index);
            const IntImm *stride = r ? as<IntImm>(r->stride) : nullptr;
            if (!stride || stride->value != 1) break;  // strided and gathered loads: lane by lane
            const BufBinding &b = buffer(ld->buffer);
            check_element_type(ld->buffer, b, et);
            const std::string base = scalar(r->base);
            const Type mem = et.is_bool() ? UInt(8).with_lanes(t.lanes) : t;
            const std::string id = "_t" + std::to_string(next_temp_++);
            line(vtype(mem) + " " + id + ";");
            line("memcpy(&" + id + ", &" + b.ident + "[" + base + "], sizeof(" + id + "));");
            if (et.is_bool()) return vtemp(t, "(" + VT + ")(" + splat(mem, "0") + " - " + id + ")");
            return id;
        }
        case ExprKind::Call: {
            const Call *c = as<Call>(e);
            if (c->call_kind != CallKind::Intrinsic) break;
            if ((c->op == Intrinsic::BitAnd || c->op == Intrinsic::BitOr || c->op == Intrinsic::BitXor) &&
                c->args.size() == 2 && c->args[0].type() == t && c->args[1].type() == t) {
                const char *op = c->op == Intrinsic::BitAnd ? " & " : c->op == Intrinsic::BitOr ? " | " : " ^ ";
                return vtemp(t, vec(c->args[0]) + op + vec(c->args[1]));
            }
            if (c->op == Intrinsic::BitNot && !et.is_bool()) return vtemp(t, "~" + vec(c->args[0]));
            if (c->op == Intrinsic::Reinterpret && !et.is_bool() && !c->args[0].type().is_bool())
                return vtemp(t, "(" + VT + ")" + vec(c->args[0]));
            break;
        }
        case ExprKind::Let: {
            const Let *l = as<Let>(e);
            bind_value(l->name, l->value);
            const std::string r = vec(l->body);
            vars_[l->name].pop_back();
            return r;
        }
        default: break;
        }
        // Lane by lane, then packed.
        return pack(t, emit_uncached(e));
    }

    static std::string int_or_uint_literal(Type t, int64_t c) {
        return t.is_int() ? int_literal(t, c) : uint_literal(t, uint64_t(c));
    }

    // --- statements --------------------------------------------------------------------

    void emit_stmt(const Stmt &s) {
        if (!s.defined()) return;
        switch (s->kind) {
        case StmtKind::LetStmt: {
            const LetStmt *l = as<LetStmt>(s);
            bind_value(l->name, l->value);
            emit_stmt(l->body);
            vars_[l->name].pop_back();
            return;
        }
        case StmtKind::AssertStmt: emit_assert(as<AssertStmt>(s)); return;
        case StmtKind::For: emit_for(as<For>(s), s); return;
        case StmtKind::Store: emit_store(as<Store>(s)); return;
        case StmtKind::Allocate: emit_allocate(as<Allocate>(s), s); return;
        case StmtKind::Block: {
            const Block *b = as<Block>(s);
            emit_stmt(b->first);
            emit_stmt(b->rest);
            return;
        }
        case StmtKind::IfThenElse: {
            const IfThenElse *i = as<IfThenElse>(s);
            const std::string c = scalar(i->condition);
            open_block("if (" + c + ")");
            emit_stmt(i->then_case);
            if (i->else_case.defined()) {
                close_block("} else {");
                indent_++;
                enter_scope();
                emit_stmt(i->else_case);
            }
            close_block();
            return;
        }
        case StmtKind::Evaluate: {
            for (const std::string &x : emit(as<Evaluate>(s)->value)) line("(void)" + x + ";");
            return;
        }
        case StmtKind::ProducerConsumer: {
            const ProducerConsumer *pc = as<ProducerConsumer>(s);
            line(std::string("/* ") + (pc->is_producer ? "produce " : "consume ") + comment_text(pc->name) + " */");
            emit_stmt(pc->body);
            return;
        }
        case StmtKind::Provide:
            TESSERA_INTERNAL_ERROR("Provide to \"" << as<Provide>(s)->name
                                                   << "\" must be flattened to a Store before code generation");
        case StmtKind::Realize:
            TESSERA_INTERNAL_ERROR("Realize of \"" << as<Realize>(s)->name
                                                   << "\" must be flattened to an Allocate before code generation");
        }
        TESSERA_INTERNAL_ERROR("no C code for statement kind " << int(s->kind));
    }

    void emit_assert(const AssertStmt *a) {
        Lanes c = emit(a->condition);
        std::string cond;
        for (size_t i = 0; i < c.size(); i++) cond += (i ? " && " : "") + c[i];
        if (c.size() > 1) cond = "(" + cond + ")";
        open_block("if (!" + cond + ")");
        ErrorMessage m;
        for (const Expr &part : a->message) {
            if (const StringImm *str = as<StringImm>(part)) {
                m.text(str->value);
                continue;
            }
            Lanes v = emit(part);
            for (size_t i = 0; i < v.size(); i++) {
                if (i > 0) m.text(", ");
                m.value(part.type().element_of(), v[i]);
            }
        }
        fail_with_message("TESSERA_ERROR_ASSERTION", m);
        close_block();
    }

    void emit_for(const For *f, const Stmt &self) {
        if (may_outline_here() && f->for_type == ForType::Serial && worth_outlining(self) &&
            emit_outlined_statement(self, f->name))
            return;
        const std::string mn = scalar(f->min), ex = scalar(f->extent);
        const Type t = f->min.type();
        const std::string T = c_type_name(t);
        // The outermost parallel loop runs its iterations on OpenMP threads; parallel loops
        // inside it, and every vectorized or unrolled loop that lowering left as a loop,
        // run serially in their thread.
        const bool threads = f->for_type == ForType::Parallel && parallel_.empty();
        if (f->for_type != ForType::Serial && !threads) {
            line(std::string("/* ") + for_type_name(f->for_type) + " loop " + comment_text(f->name) +
                 ": emitted as a serial loop */");
        }
        if (threads && emit_outlined_parallel_loop(f, mn, ex)) return;
        std::string status;
        if (threads) {
            status = issue("_par_status");
            line("int " + status + " = TESSERA_SUCCESS;");
        }
        const IntImm *cmin = as<IntImm>(f->min), *cext = as<IntImm>(f->extent);
        std::string header, first_line;
        enter_scope();
        if (t == Int(32) && cmin && cext && cext->value >= 0 && cmin->value + cext->value <= INT32_MAX) {
            // Constant bounds: the counter never overflows.
            const std::string x = declare_var(f->name, t);
            header = "for (int32_t " + x + " = " + mn + "; " + x + " < " + int_literal(t, cmin->value + cext->value) +
                     "; " + x + "++) {" + name_comment(f->name, x);
        } else if (t.bits <= 32) {
            // The end is computed once, in 64 bits (min + extent may exceed the type); the
            // counter is 64-bit so that it never overflows.
            leave_scope();
            const std::string end = temp(Int(64), "(int64_t)" + mn + " + (int64_t)" + ex);
            enter_scope();
            const std::string counter = declare(issue(sanitize_identifier(f->name) + "_i"));
            header = "for (int64_t " + counter + " = " + mn + "; " + counter + " < " + end + "; " + counter + "++) {";
            const std::string x = declare_var(f->name, t);
            first_line = "const " + T + " " + x + " = (" + T + ")" + counter + ";" + name_comment(f->name, x);
        } else {
            // 64-bit loop variable: count iterations and wrap (min + i).
            const std::string counter = declare(issue(sanitize_identifier(f->name) + "_i"));
            header = "for (int64_t " + counter + " = 0; " + counter + " < " + ex + "; " + counter + "++) {";
            const std::string x = declare_var(f->name, t);
            first_line = "const " + T + " " + x + " = (" + T + ")((uint64_t)" + mn + " + (uint64_t)" + counter + ");" +
                         name_comment(f->name, x);
        }
        if (threads) raw("#ifdef _OPENMP\n#pragma omp parallel for schedule(dynamic, 1)\n#endif\n");
        // (Clang unrolls such loops itself, and warns where a pragma asks for what it cannot do.)
        if (!threads && worth_unrolling(f))
            raw("#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC unroll " + std::to_string(kUnrollSmallLoops) +
                "\n#endif\n");
        line(header);
        indent_++;
        if (!threads) {
            if (!first_line.empty()) line(first_line);
            emit_stmt(f->body);
        } else {
            // The iteration's body is emitted apart, so that the pointers of the
            // allocations it makes can be declared at its top and freed at its end.
            parallel_.push_back(ParallelScope{status, issue("_par_end"), {}, {}, false});
            std::ostringstream outer;
            flush_temp();
            std::swap(outer, body_);
            if (!first_line.empty()) line(first_line);
            emit_stmt(f->body);
            flush_temp();
            std::swap(outer, body_);
            const ParallelScope p = parallel_.back();
            parallel_.pop_back();
            for (const std::string &a : p.allocations) line(a);
            raw(outer.str());
            if (p.label_used) line(p.end_label + ":;");
            for (const std::string &id : p.idents) line("tessera_free(" + id + ");");
        }
        vars_[f->name].pop_back();
        close_block();
        if (threads) {
            open_block("if (" + status + " != TESSERA_SUCCESS)");
            uses_cleanup_ = true;
            line("_status = " + status + ";");
            line("goto tessera_cleanup;");
            close_block();
        }
    }

    // --- outlined functions ------------------------------------------------------------
    //
    // The outermost parallel loop's iteration is a function, run by tessera_parallel_for
    // (OpenMP in a generated file; the JIT runtime module's threads under the JIT, so that a
    // pipeline compiles without OpenMP's outlining), and so is each large loop inside it.
    // The values a function uses from outside are passed in a closure struct and bound, in
    // the function, to identifiers of the same names. Under the JIT the functions are
    // compiled in two translation units at once, balanced by size (source()).

    /** A value or buffer an outlined function uses from outside. */
    struct Capture {
        std::string ir_name, field, ctype;
        bool buffer;
        VarBinding var;
        BufBinding buf;
    };

    /** The captures of s; false if one of them is not a scalar or a native vector. */
    bool captures_of(const Stmt &s, const std::string &skip, std::vector<Capture> &captures) {
        UseCollector uses;
        uses.include(s);
        for (const std::string &name : uses.free_vars) {
            auto it = vars_.find(name);
            if (it == vars_.end() || it->second.empty() || name == skip) continue;
            const VarBinding &b = it->second.back();
            if (!b.type.is_scalar() && !b.native) return false;
            captures.push_back(Capture{name, b.ident, b.type.is_scalar() ? c_type_name(b.type) : vtype(b.type), false, b,
                                       BufBinding{}});
        }
        for (const std::string &name : uses.free_buffers) {
            auto it = bufs_.find(name);
            if (it == bufs_.end() || it->second.empty()) continue;
            const BufBinding &b = it->second.back();
            const std::string q = b.writable ? "" : "const ";
            captures.push_back(Capture{name, b.ident, q + c_type_name(b.type) + " *restrict", true, VarBinding{}, b});
        }
        return true;
    }

    /** Declares the closure struct of an outlined function `fn` (with `extra` fields first)
     * and its value here, from the captured identifiers; returns the value's identifier. */
    std::string closure_here(const std::string &fn, const std::vector<Capture> &captures,
                             const std::vector<std::pair<std::string, std::string>> &extra, std::string &type) {
        std::ostringstream t;
        t << "struct " << fn << "_closure {\n";
        for (size_t k = 0; k < extra.size(); k++) t << "    " << extra[k].first << " _" << k << ";\n";
        for (const Capture &c : captures) t << "    " << c.ctype << " " << c.field << ";\n";
        if (extra.empty() && captures.empty()) t << "    int _unused;\n";
        t << "};\n";
        type = t.str();
        std::string init;
        for (const auto &[ctype, value] : extra) init += (init.empty() ? "" : ", ") + value;
        for (const Capture &c : captures) init += (init.empty() ? "" : ", ") + c.field;
        if (init.empty()) init = "0";
        const std::string cv = issue("_c");
        line("const struct " + fn + "_closure " + cv + " = {" + init + "};");
        return cv;
    }

    /** Emits the body of an outlined function apart, with none of the enclosing C blocks'
     * identifiers or values: only the captured ones, rebound from the closure `ci` of type
     * `closure`. `emit` emits its statements; errors end the function with their code. */
    std::string outlined_body(const std::string &closure, const std::string &ci, const std::vector<Capture> &captures,
                              const std::function<void()> &emit, bool &control_only) {
        std::ostringstream saved_body;
        flush_temp();
        std::swap(saved_body, body_);
        const int saved_indent = indent_;
        std::vector<std::set<std::string>> saved_scopes(1);
        std::swap(saved_scopes, scopes_);
        const int saved_accesses = memory_accesses_;
        memory_accesses_ = 0;
        indent_ = 1;
        scopes_.back().insert(ci);
        for (const Capture &c : captures) {
            const std::string id = declare(c.field);
            line((c.buffer ? "" : "const ") + c.ctype + " " + id + " = ((const struct " + closure + " *)" + ci + ")->" +
                 c.field + ";");
            line("(void)" + id + ";");
            if (c.buffer) {
                bufs_[c.ir_name].push_back(BufBinding{id, c.buf.type, c.buf.writable});
            } else {
                VarBinding b = c.var;
                b.ident = id;
                vars_[c.ir_name].push_back(b);
            }
        }
        parallel_.push_back(ParallelScope{issue("_par_status"), issue("_par_end"), {}, {}, false, false});
        emit();
        flush_temp();
        const ParallelScope ps = parallel_.back();
        parallel_.pop_back();
        for (const Capture &c : captures) {
            if (c.buffer) bufs_[c.ir_name].pop_back();
            else vars_[c.ir_name].pop_back();
        }
        std::ostringstream fun;
        fun << "    int " << ps.status << " = TESSERA_SUCCESS;\n";
        for (const std::string &a : ps.allocations) fun << "    " << a << "\n";
        fun << body_.str();
        if (ps.label_used) fun << ps.end_label << ":;\n";
        for (const std::string &id : ps.idents) fun << "    tessera_free(" << id << ");\n";
        fun << "    return " << ps.status << ";\n}\n";

        std::swap(saved_body, body_);
        indent_ = saved_indent;
        std::swap(saved_scopes, scopes_);
        control_only = memory_accesses_ == 0;
        memory_accesses_ = saved_accesses;
        return fun.str();
    }

    /** The outermost parallel loop as a function of its iteration. False (nothing emitted)
     * if a value it uses cannot be captured. */
    bool emit_outlined_parallel_loop(const For *f, const std::string &mn, const std::string &ex) {
        std::vector<Capture> captures;
        if (!captures_of(f->body, f->name, captures)) return false;
        const Type t = f->min.type();
        const std::string T = c_type_name(t);
        const std::string fn = issue(fn_ + "_par");
        std::string type;
        const std::string cv = closure_here(fn, captures, {{T, mn}}, type);
        const std::string status = issue("_par_status");
        line("const int " + status + " = " + helpers_.use("tessera_parallel_for") + "(" + fn + ", (const void *)&" + cv +
             ", (int64_t)" + ex + ");");
        open_block("if (" + status + " != TESSERA_SUCCESS)");
        uses_cleanup_ = true;
        line("_status = " + status + ";");
        line("goto tessera_cleanup;");
        close_block();

        const std::string closure = fn + "_closure", ci = issue("_closure");
        const std::string counter = issue(sanitize_identifier(f->name) + "_i");
        in_parallel_function_++;
        const bool saved_split = split_parallel_body_;
        split_parallel_body_ = ir::memory_accesses(f->body) >= kSplitParallelBodyAccesses;
        bool control_only = false;
        const std::string body = outlined_body(closure, ci, captures, [&] {
            scopes_.back().insert(counter);
            const std::string x = declare_var(f->name, t);
            line("const " + T + " " + x + " = (" + T + ")((uint64_t)((const struct " + closure + " *)" + ci +
                 ")->_0 + (uint64_t)" + counter + ");" + name_comment(f->name, x));
            emit_stmt(f->body);
            vars_[f->name].pop_back();
        }, control_only);
        in_parallel_function_--;
        split_parallel_body_ = saved_split;
        outlined_.push_back(Outlined{type,
                                     "/* An iteration of the parallel loop " + comment_text(f->name) + " of " + fn_ +
                                         ". */\n" + (control_only ? kControlOnly : "") + "TESSERA_OUTLINED int " + fn +
                                         "(const void *" + ci + ", int64_t " + counter + ") {\n" + body,
                                     "TESSERA_OUTLINED int " + fn + "(const void *, int64_t);\n"});
        return true;
    }

    /** A statement (a large loop, or a small array and the block that uses it) inside the
     * parallel loop's function, as a function of its own, so that the C compiler's work is
     * split more evenly between the translation units. */
    bool emit_outlined_statement(const Stmt &loop, const std::string &what) {
        std::vector<Capture> captures;
        if (!captures_of(loop, "", captures)) return false;
        const std::string fn = issue(fn_ + "_" + sanitize_identifier(what));
        std::string type;
        const std::string cv = closure_here(fn, captures, {}, type);
        const std::string e = issue("_e");
        line("const int " + e + " = " + fn + "((const void *)&" + cv + ");");
        open_block("if (" + e + " != TESSERA_SUCCESS)");
        fail_with(e);
        close_block();

        const std::string closure = fn + "_closure", ci = issue("_closure");
        in_outlined_loop_++;
        bool control_only = false;
        const std::string body = outlined_body(closure, ci, captures, [&] { emit_stmt(loop); }, control_only);
        in_outlined_loop_--;
        outlined_.push_back(Outlined{type,
                                     "/* " + comment_text(what) + " of " + fn_ + ". */\n" +
                                         (control_only ? kControlOnly : "") + "TESSERA_OUTLINED int " + fn +
                                         "(const void *" + ci + ") {\n" + body,
                                     "TESSERA_OUTLINED int " + fn + "(const void *);\n"});
        return true;
    }

    /** The steady state of an innermost loop with a small body: GCC is asked to unroll it
     * (as LLVM does by itself, for Halide and under Clang), so that the loop's own instructions
     * (counter, compare, branch) are spread over several iterations' work. The pieces that
     * loop partitioning left around a steady state (tails, boundaries: they keep the guards
     * and the clamped or shifted coordinates) run a few iterations and are left alone, as
     * are loops of a few iterations. */
    static bool worth_unrolling(const For *f) {
        const IntImm *extent = as<IntImm>(f->extent);
        if (extent && extent->value <= kUnrollSmallLoops) return false;
        struct Find : IRVisitor {
            bool loop_or_guard = false, clamped_index = false;
            int in_index = 0;
            using IRVisitor::include;
            void visit(const For *) override { loop_or_guard = true; }
            void visit(const IfThenElse *) override { loop_or_guard = true; }
            // A clamp, in an index or in a let (which may be one), marks a boundary piece.
            void visit(const Min *) override { clamped_index = clamped_index || in_index > 0; }
            void visit(const Max *) override { clamped_index = clamped_index || in_index > 0; }
            void visit(const Select *) override { clamped_index = clamped_index || in_index > 0; }
            void index(const Expr &e) {
                in_index++;
                include(e);
                in_index--;
            }
            void visit(const Load *op) override { index(op->index); }
            void visit(const Store *op) override {
                include(op->value);
                index(op->index);
            }
            void visit(const LetStmt *op) override {
                index(op->value);
                include(op->body);
            }
            void visit(const Let *op) override {
                index(op->value);
                include(op->body);
            }
        } find;
        find.include(f->body);
        const int accesses = ir::memory_accesses(f->body);
        return !find.loop_or_guard && !find.clamped_index && accesses > 0 && accesses <= kUnrollSmallLoopAccesses;
    }

    /** Whether a statement here may become a function of its own: inside the function of
     * a large parallel loop's iteration, not already in an outlined statement. */
    bool may_outline_here() const { return in_parallel_function_ > 0 && in_outlined_loop_ == 0 && split_parallel_body_; }

    /** A loop with kOutlinedLoopAccesses loads and stores or more, none of whose inner
     * loops has as many: the innermost large loops are outlined, so that the work of
     * compiling them divides between the translation units. */
    bool worth_outlining(const Stmt &loop) {
        if (ir::memory_accesses(loop) < kOutlinedLoopAccesses) return false;
        UseCollector uses;
        uses.include(loop);
        for (const std::string &b : uses.free_buffers) {
            auto it = bufs_.find(b);
            if (it != bufs_.end() && !it->second.empty() && it->second.back().on_stack) return false;
        }
        struct Inner : IRVisitor {
            bool large = false;
            using IRVisitor::include;
            void visit(const For *op) override {
                large = large || ir::memory_accesses(op->body) >= kOutlinedLoopAccesses;
                IRVisitor::visit(op);
            }
        } inner;
        inner.include(as<For>(loop)->body);
        return !inner.large;
    }

    void emit_store(const Store *st) {
        memory_accesses_++;
        const BufBinding &b = buffer(st->buffer);
        TESSERA_INTERNAL_ASSERT(b.writable, "store into the input buffer \"" << st->buffer << "\"");
        check_element_type(st->buffer, b, st->value.type().element_of());
        const std::string prov =
            st->provenance ? "  /* " + comment_text(to_string(*st->provenance)) + " */" : std::string();
        const int lanes = st->value.type().lanes;
        const Ramp *dense = as<Ramp>(st->index);
        if (native(st->value.type()) && dense && as<IntImm>(dense->stride) && as<IntImm>(dense->stride)->value == 1) {
            const Type vt = st->value.type();
            std::string v = vec(st->value);
            if (vt.is_bool()) v = vtemp(UInt(8).with_lanes(lanes), "(" + vtype(UInt(8).with_lanes(lanes)) + ")" + v + " & " +
                                                                    splat(UInt(8).with_lanes(lanes), "1"));
            const std::string base = scalar(dense->base);
            line("memcpy(&" + b.ident + "[" + base + "], &" + v + ", sizeof(" + v + "));" + prov);
            return;
        }
        Lanes idx = emit(st->index);
        Lanes val = emit(st->value);
        for (int i = 0; i < lanes; i++)
            line(b.ident + "[" + lane(idx, i) + "] = " + lane(val, i) + ";" + (i == 0 ? prov : std::string()));
    }

    void emit_allocate(const Allocate *a, const Stmt &self) {
        TESSERA_INTERNAL_ASSERT(a->type.is_scalar(), "allocation \"" << a->name << "\" of vector type "
                                                                     << a->type.to_string());
        const std::string ct = c_type_name(a->type);
        std::vector<std::string> extents;
        for (const Expr &e : a->extents) {
            const Type et = e.type();
            TESSERA_INTERNAL_ASSERT(et.is_scalar() && et.is_integer(), "allocation extent of type " << et.to_string());
            const std::string x = scalar(e);
            extents.push_back(et == Int(64) ? x : "(int64_t)" + x);
        }
        // A small allocation of constant size is an array in a C block (as Halide puts it
        // on the stack): nothing to check, to free or to fail, and the C compiler may keep
        // its elements in registers (the accumulators of an unrolled tile).
        int64_t elements = 1;
        for (const Expr &e : a->extents) {
            const IntImm *c = as<IntImm>(e);
            if (!c || c->value < 0 || c->value > kStackAllocationBytes) {
                elements = -1;
                break;
            }
            elements = std::min(elements * c->value, kStackAllocationBytes + 1);
        }
        if (elements >= 0 && elements * a->type.bytes() <= kStackAllocationBytes) {
            // Inside a parallel loop's function, an array whose block holds a large loop is
            // outlined with it (a loop alone would see the array through a pointer, and the
            // C compiler would no longer keep its elements in registers).
            if (may_outline_here() && ir::memory_accesses(a->body) >= kOutlinedLoopAccesses &&
                emit_outlined_statement(self, a->name))
                return;
            std::string dims;
            for (size_t i = 0; i < a->extents.size(); i++) dims += (i ? " x " : "") + std::to_string(as<IntImm>(a->extents[i])->value);
            line("/* allocate " + comment_text(a->name) + ": " + a->type.to_string() + "[" + comment_text(dims) +
                 "], in this block */");
            line("{");
            indent_++;
            enter_scope();
            std::string id = name_buffer(a->name);
            if (visible(id)) id = issue(id);
            scopes_.back().insert(id);
            line(ct + " " + id + "[" + std::to_string(std::max<int64_t>(elements, 1)) + "];" + name_comment(a->name, id));
            bufs_[a->name].push_back(BufBinding{id, a->type, true, true});
            emit_stmt(a->body);
            bufs_[a->name].pop_back();
            close_block();
            return;
        }
        // The pointer lives at function scope (or at the top of the parallel loop's
        // iteration) so that an error exit can free it.
        std::string id = name_buffer(a->name);
        if (visible(id) || std::count(allocation_idents_.begin(), allocation_idents_.end(), id)) id = issue(id);
        if (parallel_.empty()) {
            scopes_[0].insert(id);
            allocations_.push_back(ct + " *restrict " + id + " = NULL;" + name_comment(a->name, id));
            allocation_idents_.push_back(id);
        } else {
            id = issue(id);
            parallel_.back().allocations.push_back(ct + " *restrict " + id + " = NULL;" + name_comment(a->name, id));
            parallel_.back().idents.push_back(id);
        }

        std::string dims;
        for (size_t i = 0; i < extents.size(); i++) dims += (i ? " x " : "") + extents[i];
        line("/* allocate " + comment_text(a->name) + ": " + a->type.to_string() + "[" + comment_text(dims) + "] */");
        const std::string bytes = "_t" + std::to_string(next_temp_++);
        line("uint64_t " + bytes + " = " + std::to_string(a->type.bytes()) + ";");
        if (!extents.empty()) {
            std::string cond;
            for (size_t i = 0; i < extents.size(); i++)
                cond += (i ? " || !" : "!") + helpers_.use("tessera_size_mul") + "(&" + bytes + ", " + extents[i] + ")";
            open_block("if (" + cond + ")");
            ErrorMessage m;
            m.text("allocation \"" + a->name + "\": the size (");
            for (size_t i = 0; i < extents.size(); i++) {
                if (i) m.text(" x ");
                m.value(Int(64), extents[i]);
            }
            m.text(" elements) is negative or too large");
            fail_with_message("TESSERA_ERROR_ALLOCATION_SIZE", m);
            close_block();
        }
        line(id + " = (" + ct + " *)" + helpers_.use("tessera_malloc") + "(" + bytes + ");");
        open_block("if (" + id + " == NULL)");
        fail_to("TESSERA_ERROR_OUT_OF_MEMORY", c_string_literal("allocation \"" + a->name + "\": out of memory"));
        close_block();

        bufs_[a->name].push_back(BufBinding{id, a->type, true});
        emit_stmt(a->body);
        bufs_[a->name].pop_back();
        line(helpers_.use("tessera_free") + "(" + id + ");");
        line(id + " = NULL;");
    }
};

}  // namespace

std::string sanitize_identifier(const std::string &name) {
    std::string s;
    for (char c : name) s += is_ident_char(c) ? c : '_';
    if (s.empty()) s = "v";
    if (is_ascii_digit(s[0]) || s[0] == '_') s = "v" + s;
    if (starts_with(s, "tessera_") || starts_with(s, "TESSERA_")) s = "v_" + s;
    if (reserved_identifiers().count(s) || ends_with(s, "_t") || all_capitals_with_underscore(s)) s += "_";
    return s;
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
