// C identifiers for IR names (unique in the function, never a C keyword, a name of the
// standard headers or of the runtime) and C literals of every type.

#include <cmath>
#include <cstdio>
#include <set>

#include "codegen/Emitter.h"

namespace tessera::codegen {

namespace {

bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ascii_alpha(c) || is_ascii_digit(c) || c == '_'; }

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
}  // namespace

bool starts_with(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

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

std::string sanitize_identifier(const std::string &name) {
    std::string s;
    for (char c : name) s += is_ident_char(c) ? c : '_';
    if (s.empty()) s = "v";
    if (is_ascii_digit(s[0]) || s[0] == '_') s = "v" + s;
    if (starts_with(s, "tessera_") || starts_with(s, "TESSERA_")) s = "v_" + s;
    if (reserved_identifiers().count(s) || ends_with(s, "_t") || all_capitals_with_underscore(s)) s += "_";
    return s;
}

std::string Emitter::issue(const std::string &base) {
    std::string id = base;
    for (int k = 1; issued_.count(id); k++) id = base + "_" + std::to_string(k);
    issued_.insert(id);
    return id;
}

std::string Emitter::name_var(const std::string &ir_name) {
    auto it = canon_var_.find(ir_name);
    if (it != canon_var_.end()) return it->second;
    return canon_var_[ir_name] = issue(sanitize_identifier(ir_name));
}

std::string Emitter::name_buffer(const std::string &ir_name) {
    auto it = canon_buf_.find(ir_name);
    if (it != canon_buf_.end()) return it->second;
    return canon_buf_[ir_name] = issue(sanitize_identifier(ir_name));
}

bool Emitter::visible(const std::string &id) const {
    for (const auto &s : scopes_)
        if (s.count(id)) return true;
    return false;
}

std::string Emitter::declare(const std::string &canonical) {
    std::string id = visible(canonical) ? issue(canonical) : canonical;
    scopes_.back().insert(id);
    return id;
}

std::string Emitter::declare_var(const std::string &ir_name, Type t) {
    const std::string id = declare(name_var(ir_name));
    vars_[ir_name].push_back(VarBinding{id, t});
    return id;
}

}  // namespace tessera::codegen
