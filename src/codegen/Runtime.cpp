#include "codegen/Runtime.h"

#include <sstream>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "ir/Check.h"

namespace tessera::codegen {

const std::string &runtime_header_text() {
    // Kept identical to runtime/tessera_runtime.h (a unit test compares them).
    static const std::string text =
R"TESSERA_RUNTIME(/* Tessera runtime interface: the types and the error reporting shared by every pipeline
 * that Tessera compiles to C, and by the programs that call them.
 *
 * Valid C99 and C++. Generated .c files contain this text inline (they need no Tessera
 * header); generated .h files contain it too, so that a program needs only the header of
 * its pipelines.
 *
 * A pipeline is a function
 *
 *     int NAME(const tessera_buffer_t *input..., <scalar type> param..., tessera_buffer_t *output);
 *
 * that returns TESSERA_SUCCESS (0) or one of the error codes below. On an error it first
 * calls tessera_error_handler (if it is not null) with a message naming the offending
 * buffer or parameter, and it frees everything it allocated. It never aborts. A Func with
 * several values (a Tuple) takes one output buffer per value, in order.
 */
#ifndef TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_H

/* (Code compiled by Tessera's JIT declares these types itself, to spare the parse.) */
#ifndef TESSERA_NO_SYSTEM_HEADERS
#include <stddef.h>
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One dimension of a buffer: the coordinates min .. min + extent - 1, and the distance in
 * elements between consecutive coordinates (any sign). */
typedef struct tessera_dim_t {
    int32_t min;
    int32_t extent;
    int64_t stride;
} tessera_dim_t;

/* Element type codes (tessera_buffer_t::type_code). */
#define TESSERA_TYPE_INT 0
#define TESSERA_TYPE_UINT 1
#define TESSERA_TYPE_FLOAT 2
#define TESSERA_TYPE_BOOL 3 /* type_bits is 1; each element is one byte holding 0 or 1 */

/* An N-dimensional array the caller owns. The element at coordinates (c_0, ..., c_{N-1})
 * is at element offset sum_i (c_i - dim[i].min) * dim[i].stride from host. */
typedef struct tessera_buffer_t {
    void *host;
    int32_t type_code;  /* TESSERA_TYPE_* */
    int32_t type_bits;  /* 8, 16, 32 or 64 (1 for bool) */
    int32_t dimensions;
    tessera_dim_t *dim; /* dimensions entries */
} tessera_buffer_t;

/* Return codes of a pipeline. */
#define TESSERA_SUCCESS 0
/* A check of the pipeline failed: an input buffer too small, a parameter out of range, a
 * negative reduction extent, a schedule's assertion. */
#define TESSERA_ERROR_ASSERTION 1
/* A buffer argument is null, has no memory, or has the wrong type or dimensionality. */
#define TESSERA_ERROR_BAD_BUFFER 2
/* The output buffer overlaps an input buffer. */
#define TESSERA_ERROR_BUFFER_OVERLAP 3
/* An internal allocation has a negative or unrepresentable size. */
#define TESSERA_ERROR_ALLOCATION_SIZE 4
/* An internal allocation failed (malloc returned null). */
#define TESSERA_ERROR_OUT_OF_MEMORY 5

/* The function a pipeline calls with the message of an error before it returns the error
 * code. Every generated .c file defines this variable as a weak symbol whose initial value
 * prints the message to stderr. A program may assign its own function (or null, to stay
 * silent) at any time, or define the variable itself:
 *
 *     void (*tessera_error_handler)(const char *message) = my_handler;
 */
typedef void (*tessera_error_handler_t)(const char *message);
extern tessera_error_handler_t tessera_error_handler;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_H */
)TESSERA_RUNTIME";
    return text;
}

namespace {

const char *const kSystemHeaders = R"TESSERA_PRELUDE(#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
)TESSERA_PRELUDE";

/** What the generated code uses of the standard headers, declared through the compiler's
 * predefined macros and builtins (GCC and Clang, the JIT's compilers): parsing the headers
 * is a tenth of a small pipeline's compile time. The exactly rounded math functions are
 * the compiler's builtins; the others are library_math_functions(). */
std::string freestanding_declarations() {
    std::string s = R"TESSERA_PRELUDE(#define TESSERA_NO_SYSTEM_HEADERS 1
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __SIZE_TYPE__ size_t;
#define NULL ((void *)0)
#define INT8_MIN (-__INT8_MAX__ - 1)
#define INT16_MIN (-__INT16_MAX__ - 1)
#define INT32_MIN (-__INT32_MAX__ - 1)
#define INT64_MIN (-__INT64_MAX__ - 1)
#define INT8_MAX __INT8_MAX__
#define INT16_MAX __INT16_MAX__
#define INT32_MAX __INT32_MAX__
#define INT64_MAX __INT64_MAX__
#define UINT8_MAX __UINT8_MAX__
#define UINT16_MAX __UINT16_MAX__
#define UINT32_MAX __UINT32_MAX__
#define UINT64_MAX __UINT64_MAX__
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define PTRDIFF_MAX __PTRDIFF_MAX__
#define NAN __builtin_nanf("")
#define INFINITY __builtin_inff()
#define isnan __builtin_isnan
#define isinf __builtin_isinf
#define isfinite __builtin_isfinite
#define memcpy __builtin_memcpy
void *malloc(size_t size);
void free(void *pointer);
)TESSERA_PRELUDE";
    // The exactly rounded functions are the compiler's builtins (one instruction); the
    // others are declared by library_math_functions().
    for (const char *f : {"sqrt", "floor", "ceil", "rint", "trunc", "fabs", "fma"}) {
        s += "#define " + std::string(f) + " __builtin_" + f + "\n";
        s += "#define " + std::string(f) + "f __builtin_" + f + "f\n";
    }
    return s;
}

/** The math functions whose results the C library rounds its own way (exp, sin, ...),
 * declared under other names bound to the library's symbols: the C compiler recognizes
 * sinhf(2.5f) as its builtin and folds it, correctly rounded, where the library (and the
 * reference interpreter, which calls it) may differ in the last bit; under another name it
 * is a call (const: hoisted and shared, never folded) for GCC. Clang folds a call of the
 * library's symbol on constants whatever it is declared as, so under Clang the argument
 * passes through an empty asm that it cannot see through. Other compilers call the
 * functions the headers declare. */
std::string library_math_functions() {
    std::string gcc, clang, defines;
    auto declare = [&](const char *f, int arity) {
        for (const std::string t : {"double", "float"}) {
            const std::string name = f + std::string(t == "float" ? "f" : ""), fn = "tessera_libm_" + name;
            const std::string params = arity == 1 ? t : t + ", " + t;
            gcc += t + " " + fn + "(" + params + ") __asm__(\"" + name + "\") __attribute__((const));\n";
            clang += t + " " + fn + "_symbol(" + params + ") __asm__(\"" + name + "\");\n";
            const std::string args = arity == 1 ? t + " a" : t + " a, " + t + " b";
            clang += "static inline __attribute__((unused)) " + t + " " + fn + "(" + args + ") {\n";
            clang += "    __asm__(\"\" : \"+m\"(a));\n";
            if (arity == 2) clang += "    __asm__(\"\" : \"+m\"(b));\n";
            clang += "    return " + fn + "_symbol(" + (arity == 1 ? "a" : "a, b") + ");\n}\n";
            defines += "#define " + name + " " + fn + "\n";
        }
    };
    for (const char *f : {"exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                          "acosh", "atanh"})
        declare(f, 1);
    for (const char *f : {"pow", "atan2"}) declare(f, 2);
    return "#if defined(__clang__)\n" + clang + "#elif defined(__GNUC__)\n" + gcc + "#endif\n#if defined(__GNUC__)\n" +
           defines + "#endif\n";
}

std::string c_prelude_common(bool jit_runtime) {
    return std::string(jit_runtime ? freestanding_declarations() : kSystemHeaders) + library_math_functions() +
           R"TESSERA_PRELUDE(
/* This code computes exactly what Tessera's semantics define, bit for bit for floats.
 * It must be compiled without fast-math and without excess precision, and a * b + c must
 * not be contracted into a fused multiply-add (the pragmas below forbid that). */
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "Tessera-generated code must be compiled without -ffast-math (IEEE-754 semantics)"
#endif
#if defined(__FLT_EVAL_METHOD__) && (__FLT_EVAL_METHOD__ == 1 || __FLT_EVAL_METHOD__ == 2)
#error "Tessera-generated code needs float arithmetic without excess precision (e.g. SSE2 on x86)"
#endif
#if UINT_MAX != 0xFFFFFFFFu
#error "Tessera-generated code needs a 32-bit int"
#endif
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

)TESSERA_PRELUDE" + runtime_header_text();
}

}  // namespace

const std::string &c_prelude_text(bool jit_runtime) {
    static const std::string standalone = c_prelude_common(false) + R"TESSERA_PRELUDE(
/* The default error handler prints the message. A program replaces it by assigning
 * tessera_error_handler, or by defining the variable itself (this definition is weak). */
static void tessera_default_error_handler(const char *message) {
    fprintf(stderr, "tessera: %s\n", message);
}
#if defined(__GNUC__)
__attribute__((weak))
#endif
tessera_error_handler_t tessera_error_handler = tessera_default_error_handler;
)TESSERA_PRELUDE";
    static const std::string jit = c_prelude_common(true) + R"TESSERA_PRELUDE(
/* Errors are reported through the JIT's runtime module (tessera_jit_*), loaded before
 * this code. */
)TESSERA_PRELUDE";
    return jit_runtime ? jit : standalone;
}

std::string c_type_name(Type t) {
    switch (t.code) {
    case TypeCode::Bool: return "uint8_t";
    case TypeCode::Float:
        TESSERA_INTERNAL_ASSERT(t.bits == 32 || t.bits == 64, "no C type for " << t.to_string());
        return t.bits == 32 ? "float" : "double";
    case TypeCode::Int:
    case TypeCode::UInt:
        TESSERA_INTERNAL_ASSERT(t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64,
                                "no C type for " << t.to_string());
        return std::string(t.is_int() ? "int" : "uint") + std::to_string(t.bits) + "_t";
    }
    TESSERA_INTERNAL_ERROR("no C type for " << t.to_string());
}

std::string type_suffix(Type t) {
    switch (t.code) {
    case TypeCode::Bool: return "b";
    case TypeCode::Float: return "f" + std::to_string(t.bits);
    case TypeCode::Int: return "i" + std::to_string(t.bits);
    case TypeCode::UInt: return "u" + std::to_string(t.bits);
    }
    return "?";
}

namespace {

struct HelperDef {
    std::string code;
    std::vector<std::string> deps;
};

// Replace every "$KEY" in `text` by its value (keys are matched longest first).
std::string subst(std::string text, const std::map<std::string, std::string> &vars) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        if (text[i] == '$') {
            const std::map<std::string, std::string>::value_type *best = nullptr;
            for (const auto &kv : vars) {
                if (text.compare(i + 1, kv.first.size(), kv.first) == 0 &&
                    (!best || kv.first.size() > best->first.size()))
                    best = &kv;
            }
            if (best) {
                out += best->second;
                i += 1 + best->first.size();
                continue;
            }
        }
        out += text[i++];
    }
    return out;
}

// The substitution variables of an integer type: T (C type), U (unsigned C type of the
// same width), W (uint32_t or uint64_t: the unsigned type in which arithmetic on T wraps
// without promotion to int), S (suffix), BITS, MIN/MAX (stdint macros), and the double
// bounds of saturating conversions.
std::map<std::string, std::string> int_vars(Type t) {
    std::map<std::string, std::string> v;
    const int bits = t.bits;
    v["T"] = c_type_name(t);
    v["U"] = "uint" + std::to_string(bits) + "_t";
    v["W"] = bits <= 32 ? "uint32_t" : "uint64_t";
    v["S"] = type_suffix(t);
    v["BITS"] = std::to_string(bits);
    v["MIN"] = std::string(t.is_int() ? "INT" : "UINT") + std::to_string(bits) + "_MIN";
    v["MAX"] = std::string(t.is_int() ? "INT" : "UINT") + std::to_string(bits) + "_MAX";
    static const char *half[] = {"128.0", "32768.0", "2147483648.0", "9223372036854775808.0"};
    static const char *full[] = {"256.0", "65536.0", "4294967296.0", "18446744073709551616.0"};
    const int k = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
    v["HALF"] = half[k];
    v["FULL"] = full[k];
    return v;
}

std::map<std::string, HelperDef> build_registry() {
    std::map<std::string, HelperDef> r;
    auto add = [&](const std::string &name, std::string code, std::vector<std::string> deps = {}) {
        r[name] = HelperDef{std::move(code), std::move(deps)};
    };

    const Type int_types[] = {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), UInt(64)};
    for (Type t : int_types) {
        auto v = int_vars(t);
        const std::string s = v["S"];
        if (t.is_int()) {
            add("tessera_div_" + s, subst(R"C(/* Euclidean division (the remainder is never negative); x / 0 == 0;
 * MIN / -1 == MIN. */
static inline $T tessera_div_$S($T a, $T b) {
    $T q, r;
    if (b == 0) return 0;
    if (b == -1) return ($T)(($W)0 - ($W)a);
    q = ($T)(a / b);
    r = ($T)(a % b);
    if (r < 0) q = ($T)(b > 0 ? q - 1 : q + 1);
    return q;
}
)C", v));
            add("tessera_mod_" + s, subst(R"C(/* Euclidean modulo: 0 <= a % b < |b|; x % 0 == 0. */
static inline $T tessera_mod_$S($T a, $T b) {
    $T r;
    if (b == 0 || b == -1) return 0;
    r = ($T)(a % b);
    if (r < 0) r = ($T)(b > 0 ? r + b : r - b);
    return r;
}
)C", v));
            add("tessera_sat_" + s, subst(R"C(/* Float to $T: truncate toward zero, saturate; NaN -> 0. */
static inline $T tessera_sat_$S(double x) {
    if (x != x) return 0;
    if (x >= $HALF) return $MAX;
    if (x <= -$HALF) return $MIN;
    return ($T)x;
}
)C", v));
            add("tessera_shl_pos_" + s, subst(R"C(static inline $T tessera_shl_pos_$S($T a, int64_t n) {
    return n >= $BITS ? 0 : ($T)(($W)a << n);
}
)C", v));
            add("tessera_shr_pos_" + s, subst(R"C(/* Arithmetic shift right by n >= 0 (floor(a / 2^n)), without shifting a
 * negative value. */
static inline $T tessera_shr_pos_$S($T a, int64_t n) {
    if (n >= $BITS) return ($T)(a < 0 ? -1 : 0);
    return ($T)(a < 0 ? ~(~a >> n) : a >> n);
}
)C", v));
            add("tessera_abs_" + s, subst(R"C(static inline $U tessera_abs_$S($T a) {
    return ($U)(a < 0 ? ($W)0 - ($W)a : ($W)a);
}
)C", v));
        } else {
            add("tessera_div_" + s, subst(R"C(static inline $T tessera_div_$S($T a, $T b) {
    return ($T)(b == 0 ? 0 : a / b);
}
)C", v));
            add("tessera_mod_" + s, subst(R"C(static inline $T tessera_mod_$S($T a, $T b) {
    return ($T)(b == 0 ? 0 : a % b);
}
)C", v));
            add("tessera_sat_" + s, subst(R"C(/* Float to $T: truncate toward zero, saturate; NaN -> 0. */
static inline $T tessera_sat_$S(double x) {
    if (x != x) return 0;
    if (x >= $FULL) return $MAX;
    if (x <= 0.0) return 0;
    return ($T)x;
}
)C", v));
            add("tessera_shl_pos_" + s, subst(R"C(static inline $T tessera_shl_pos_$S($T a, int64_t n) {
    return n >= $BITS ? 0 : ($T)(($W)a << n);
}
)C", v));
            add("tessera_shr_pos_" + s, subst(R"C(static inline $T tessera_shr_pos_$S($T a, int64_t n) {
    return n >= $BITS ? 0 : ($T)(a >> n);
}
)C", v));
        }
        add("tessera_absd_" + s, subst(R"C(/* |a - b|, exact, in the unsigned type of the same width. */
static inline $U tessera_absd_$S($T a, $T b) {
    return ($U)(a < b ? ($W)b - ($W)a : ($W)a - ($W)b);
}
)C", v));
        add("tessera_shl_" + s, subst(R"C(/* a << n; a negative n shifts right by -n; n >= $BITS gives 0. */
static inline $T tessera_shl_$S($T a, int64_t n) {
    return n < 0 ? tessera_shr_pos_$S(a, n == INT64_MIN ? INT64_MAX : -n) : tessera_shl_pos_$S(a, n);
}
)C", v), {"tessera_shl_pos_" + s, "tessera_shr_pos_" + s});
        add("tessera_shr_" + s, subst(R"C(/* a >> n; a negative n shifts left by -n. */
static inline $T tessera_shr_$S($T a, int64_t n) {
    return n < 0 ? tessera_shl_pos_$S(a, n == INT64_MIN ? INT64_MAX : -n) : tessera_shr_pos_$S(a, n);
}
)C", v), {"tessera_shl_pos_" + s, "tessera_shr_pos_" + s});
    }

    add("tessera_mod_f32", R"C(/* Float modulo: a - b * floor(a / b), every step rounded to float. */
static inline float tessera_mod_f32(float a, float b) {
    const float q = floorf(a / b);
    const float p = b * q;
    return a - p;
}
)C");
    add("tessera_mod_f64", R"C(/* Float modulo: a - b * floor(a / b), every step rounded to double. */
static inline double tessera_mod_f64(double a, double b) {
    const double q = floor(a / b);
    const double p = b * q;
    return a - p;
}
)C");
    add("dprintf", R"C(/* print's output: a line to stderr (POSIX; declared here, as strict C99 does not). */
int dprintf(int fd, const char *format, ...);
)C");
    add("tessera_random_mix", R"C(/* One round of random_hash (docs/semantics.md): v mixed into h. */
static inline uint32_t tessera_random_mix(uint32_t h, uint32_t v) {
    uint32_t x = (h ^ v) * 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    return x ^ (x >> 16);
}
)C");
    add("tessera_shift_amount_u64", R"C(/* A uint64 shift amount as a (saturated) int64 count. */
static inline int64_t tessera_shift_amount_u64(uint64_t n) {
    return n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n;
}
)C");

    // Messages and error reporting. The error paths are kept out of line (and marked cold,
    // where the compiler understands it): inlined, every assertion's message building
    // would double the code the C compiler optimizes, and its compile time with it.
    add("tessera_attributes", R"C(#ifndef TESSERA_COLD
#if defined(__GNUC__)
#define TESSERA_COLD __attribute__((noinline, cold, unused))
#define TESSERA_NOINLINE __attribute__((noinline, unused))
#else
#define TESSERA_COLD
#define TESSERA_NOINLINE
#endif
#endif
)C");
    add("tessera_message_t", R"C(/* An error message under construction (truncated at 1023 characters). */
typedef struct tessera_message_t {
    char text[1024];
    size_t length;
} tessera_message_t;
)C", {"tessera_attributes"});
    add("tessera_message_init", R"C(TESSERA_COLD static void tessera_message_init(tessera_message_t *m) {
    m->text[0] = 0;
    m->length = 0;
}
)C", {"tessera_message_t"});
    add("tessera_message_append", R"C(TESSERA_COLD static void tessera_message_append(tessera_message_t *m, const char *s) {
    while (*s != 0 && m->length + 1 < sizeof(m->text)) m->text[m->length++] = *s++;
    m->text[m->length] = 0;
}
)C", {"tessera_message_t"});
    add("tessera_message_append_int", R"C(TESSERA_COLD static void tessera_message_append_int(tessera_message_t *m, int64_t v) {
    char digits[32];
    snprintf(digits, sizeof(digits), "%lld", (long long)v);
    tessera_message_append(m, digits);
}
)C", {"tessera_message_append"});
    add("tessera_message_append_type",
        R"C(TESSERA_COLD static void tessera_message_append_type(tessera_message_t *m, int32_t code, int32_t bits) {
    if (code == TESSERA_TYPE_BOOL && bits == 1) {
        tessera_message_append(m, "bool");
        return;
    }
    if (code == TESSERA_TYPE_INT || code == TESSERA_TYPE_UINT || code == TESSERA_TYPE_FLOAT) {
        tessera_message_append(m, code == TESSERA_TYPE_INT ? "int" : code == TESSERA_TYPE_UINT ? "uint" : "float");
        tessera_message_append_int(m, bits);
        return;
    }
    tessera_message_append(m, "(type code ");
    tessera_message_append_int(m, code);
    tessera_message_append(m, ", ");
    tessera_message_append_int(m, bits);
    tessera_message_append(m, " bits)");
}
)C", {"tessera_message_append", "tessera_message_append_int"});
    add("tessera_report_error", R"C(/* Calls the error handler (if any) with the message and returns the error code. */
TESSERA_COLD static int tessera_report_error(int code, const char *message) {
    const tessera_error_handler_t handler = tessera_error_handler;
    if (handler != NULL) handler(message);
    return code;
}
)C", {"tessera_attributes"});
    add("tessera_format_error", R"C(/* Formats a message (printf-style, truncated at 1023 characters), calls the error
 * handler with it and returns the error code. */
TESSERA_COLD static int tessera_format_error(int code, const char *format, ...) {
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    return tessera_report_error(code, text);
}
)C", {"tessera_report_error"});
    add("tessera_check_buffer", R"C(/* TESSERA_SUCCESS if b is a buffer of the given element type and dimensionality with
 * memory (or empty) and non-negative extents; otherwise reports why. */
TESSERA_NOINLINE static int tessera_check_buffer(const tessera_buffer_t *b, const char *name, int32_t type_code,
                                                 int32_t type_bits, int32_t dimensions) {
    tessera_message_t m;
    int32_t i;
    int empty = 0;
    tessera_message_init(&m);
    tessera_message_append(&m, "buffer \"");
    tessera_message_append(&m, name);
    tessera_message_append(&m, "\": ");
    if (b == NULL) {
        tessera_message_append(&m, "the buffer argument is null");
    } else if (b->type_code != type_code || b->type_bits != type_bits) {
        tessera_message_append(&m, "the element type is ");
        tessera_message_append_type(&m, b->type_code, b->type_bits);
        tessera_message_append(&m, ", expected ");
        tessera_message_append_type(&m, type_code, type_bits);
    } else if (b->dimensions != dimensions) {
        tessera_message_append(&m, "the buffer has ");
        tessera_message_append_int(&m, b->dimensions);
        tessera_message_append(&m, " dimensions, expected ");
        tessera_message_append_int(&m, dimensions);
    } else if (dimensions > 0 && b->dim == NULL) {
        tessera_message_append(&m, "the dimensions are missing (dim is null)");
    } else {
        for (i = 0; i < dimensions; i++) {
            if (b->dim[i].extent < 0) {
                tessera_message_append(&m, "the extent of dimension ");
                tessera_message_append_int(&m, i);
                tessera_message_append(&m, " is negative (");
                tessera_message_append_int(&m, b->dim[i].extent);
                tessera_message_append(&m, ")");
                return tessera_report_error(TESSERA_ERROR_BAD_BUFFER, m.text);
            }
            if (b->dim[i].extent == 0) empty = 1;
        }
        if (b->host != NULL || empty) return TESSERA_SUCCESS;
        tessera_message_append(&m, "the buffer has no memory (host is null)");
    }
    return tessera_report_error(TESSERA_ERROR_BAD_BUFFER, m.text);
}
)C", {"tessera_message_init", "tessera_message_append", "tessera_message_append_int",
      "tessera_message_append_type", "tessera_report_error"});
    add("tessera_buffer_span", R"C(/* The first byte address and one past the last byte address of the elements of b
 * (wrapping arithmetic); 0 if b has no elements. */
static inline int tessera_buffer_span(const tessera_buffer_t *b, uint64_t element_bytes, uint64_t *first, uint64_t *end) {
    uint64_t below = 0, above = 0;
    int32_t i;
    for (i = 0; i < b->dimensions; i++) {
        const tessera_dim_t d = b->dim[i];
        uint64_t reach;
        if (d.extent <= 0) return 0;
        reach = (uint64_t)(d.stride < 0 ? (uint64_t)0 - (uint64_t)d.stride : (uint64_t)d.stride);
        reach *= (uint64_t)(d.extent - 1) * element_bytes;
        if (d.stride < 0) {
            below += reach;
        } else {
            above += reach;
        }
    }
    *first = (uint64_t)(uintptr_t)b->host - below;
    *end = (uint64_t)(uintptr_t)b->host + above + element_bytes;
    return 1;
}
)C");
    add("tessera_check_overlap", R"C(/* The output of a pipeline must not share memory with an input (the generated code
 * declares buffer pointers restrict). */
TESSERA_NOINLINE static int tessera_check_overlap(const tessera_buffer_t *output, const char *output_name, uint64_t output_bytes,
                                                  const tessera_buffer_t *input, const char *input_name, uint64_t input_bytes) {
    uint64_t a0, a1, b0, b1;
    tessera_message_t m;
    if (!tessera_buffer_span(output, output_bytes, &a0, &a1) || !tessera_buffer_span(input, input_bytes, &b0, &b1)) {
        return TESSERA_SUCCESS;
    }
    if (a0 >= b1 || b0 >= a1) return TESSERA_SUCCESS;
    tessera_message_init(&m);
    tessera_message_append(&m, "output buffer \"");
    tessera_message_append(&m, output_name);
    tessera_message_append(&m, "\" overlaps input buffer \"");
    tessera_message_append(&m, input_name);
    tessera_message_append(&m, "\": the output must not share memory with an input");
    return tessera_report_error(TESSERA_ERROR_BUFFER_OVERLAP, m.text);
}
)C", {"tessera_buffer_span", "tessera_message_init", "tessera_message_append", "tessera_report_error"});
    add("tessera_size_mul", R"C(/* *bytes *= extent, if extent >= 0 and the product stays within PTRDIFF_MAX. */
static inline int tessera_size_mul(uint64_t *bytes, int64_t extent) {
    const uint64_t limit = (uint64_t)PTRDIFF_MAX;
    if (extent < 0) return 0;
    if (extent != 0 && *bytes > limit / (uint64_t)extent) return 0;
    *bytes *= (uint64_t)extent;
    return 1;
}
)C");

    // Heap allocations are aligned to a cache line: a row of a tile then starts on a line,
    // so that no vector load or store of a row straddles two (malloc aligns to 16 bytes;
    // bench/README.md measures what rows at 16 mod 64 cost).
    add("tessera_malloc", R"C(/* A block of `bytes` (<= PTRDIFF_MAX) aligned to 64 bytes, or NULL; the pointer that
 * malloc returned is kept just before it, for tessera_free. */
static inline void *tessera_malloc(uint64_t bytes) {
    unsigned char *raw = (unsigned char *)malloc((size_t)bytes + 64);
    unsigned char *block;
    if (raw == NULL) return NULL;
    block = raw + (64 - ((uintptr_t)raw & 63));
    ((void **)block)[-1] = raw;
    return block;
}
)C");
    add("tessera_free", R"C(/* Frees a block of tessera_malloc (or nothing, for NULL). */
static inline void tessera_free(void *block) {
    if (block != NULL) free(((void **)block)[-1]);
}
)C");

    add("tessera_parallel_for", R"C(/* Runs fn(closure, i) for i in [0, n) on OpenMP threads (serially without OpenMP);
 * returns TESSERA_SUCCESS or the error code of a failed iteration. */
static int tessera_parallel_for(int (*fn)(const void *, int64_t), const void *closure, int64_t n) {
    int status = TESSERA_SUCCESS;
    int64_t i;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
    for (i = 0; i < n; i++) {
        const int e = fn(closure, i);
        if (e != TESSERA_SUCCESS) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            status = e;
        }
    }
    return status;
}
)C");

    // Under the JIT these are not compiled into every pipeline: its runtime module
    // (jit_runtime_source) defines them once, as tessera_jit_<name>, and the generated
    // code declares them.
    add("tessera_jit_report_error", "int tessera_jit_report_error(int code, const char *message);\n");
    add("tessera_jit_parallel_for",
        "int tessera_jit_parallel_for(int (*fn)(const void *, int64_t), const void *closure, int64_t n);\n");
    add("tessera_jit_format_error", "int tessera_jit_format_error(int code, const char *format, ...);\n");
    add("tessera_jit_malloc", "void *tessera_jit_malloc(uint64_t bytes);\n");
    add("tessera_jit_free", "void tessera_jit_free(void *block);\n");
    add("tessera_jit_check_buffer",
        "int tessera_jit_check_buffer(const tessera_buffer_t *b, const char *name, int32_t type_code, int32_t type_bits,\n"
        "                             int32_t dimensions);\n");
    add("tessera_jit_check_overlap",
        "int tessera_jit_check_overlap(const tessera_buffer_t *output, const char *output_name, uint64_t output_bytes,\n"
        "                              const tessera_buffer_t *input, const char *input_name, uint64_t input_bytes);\n");
    return r;
}

/** The helpers that the JIT's runtime module provides. */
const char *const kJitRuntimeHelpers[] = {"tessera_report_error", "tessera_format_error", "tessera_check_buffer",
                                          "tessera_check_overlap", "tessera_parallel_for", "tessera_malloc",
                                          "tessera_free"};

bool in_jit_runtime(const std::string &name) {
    return std::find(std::begin(kJitRuntimeHelpers), std::end(kJitRuntimeHelpers), name) != std::end(kJitRuntimeHelpers);
}

const std::map<std::string, HelperDef> &registry() {
    static const std::map<std::string, HelperDef> r = build_registry();
    return r;
}

}  // namespace

std::string HelperSet::use(const std::string &name) {
    TESSERA_INTERNAL_ASSERT(registry().count(name), "unknown runtime helper " << name);
    const std::string called = jit_runtime_ && in_jit_runtime(name) ? "tessera_jit_" + name.substr(8) : name;
    used_.insert(called);
    return called;
}

std::string HelperSet::definitions() const {
    const auto &reg = registry();
    std::set<std::string> done;
    std::string out;
    std::function<void(const std::string &)> visit = [&](const std::string &name) {
        if (done.count(name)) return;
        done.insert(name);
        const HelperDef &d = reg.at(name);
        for (const std::string &dep : d.deps) visit(dep);
        out += d.code;
        out += "\n";
    };
    for (const std::string &name : used_) visit(name);
    return out;
}

const std::string &jit_runtime_source() {
    static const std::string text = [] {
        HelperSet helpers;
        // (Its parallel loops are its own thread pool, below, not the OpenMP helper.)
        for (const char *name : kJitRuntimeHelpers)
            if (std::string(name) != "tessera_parallel_for") helpers.use(name);
        return "/* Tessera's JIT runtime: the error reporting of every JIT-compiled pipeline. */\n" +
               c_prelude_text(false) + "\n" + helpers.definitions() + R"C(
#define TESSERA_EXPORT __attribute__((visibility("default")))

/* Sets the error handler of every JIT-compiled pipeline. */
TESSERA_EXPORT void tessera_jit_set_error_handler(tessera_error_handler_t handler) {
    tessera_error_handler = handler;
}

TESSERA_EXPORT int tessera_jit_report_error(int code, const char *message) {
    return tessera_report_error(code, message);
}

/* The variadic one is the helper itself, under the exported name. */
TESSERA_EXPORT TESSERA_COLD int tessera_jit_format_error(int code, const char *format, ...)
    __attribute__((alias("tessera_format_error")));

TESSERA_EXPORT int tessera_jit_check_buffer(const tessera_buffer_t *b, const char *name, int32_t type_code,
                                            int32_t type_bits, int32_t dimensions) {
    return tessera_check_buffer(b, name, type_code, type_bits, dimensions);
}

/* The JIT's parallel loops run on this module's own threads, not OpenMP's: when other
 * processes keep the cores busy, an OpenMP loop ends only when every thread of its team
 * has run (its closing barrier), and a thread that waits for a core holds the loop up. Here
 * a loop's iterations are claimed one at a time, by the calling thread and by whichever
 * workers wake while some are left; the caller waits only for iterations that were
 * claimed, never for a worker that has none (a worker that wakes late finds nothing to
 * claim and sleeps again). Between loops, and before the caller blocks at a loop's end, a
 * thread polls briefly, then sleeps on a condition variable.
 *
 * One loop runs at a time, described by tessera_pool_loop. Its caller writes the
 * description, then publishes the number of unclaimed iterations (tessera_pool_unclaimed);
 * a thread claims one by decrementing that count while it is positive, and only then
 * reads the description, which cannot change while an iteration it claimed is unfinished
 * (the caller returns, and the next loop starts, only once every iteration is done). A
 * thread that looked for work in one loop and claims in the next therefore runs the next
 * loop's iteration with the next loop's function.
 *
 * The number of threads is $TESSERA_NUM_THREADS, else $OMP_NUM_THREADS, else the number
 * of cores online. A parallel loop inside an iteration, or one started while another
 * thread's loop runs, runs serially in its thread. */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

typedef struct tessera_pool_loop {
    int (*fn)(const void *, int64_t);
    const void *closure;
    int64_t n;
    int64_t done;    /* iterations finished (atomic) */
    int status;      /* the error code of a failed iteration (atomic) */
} tessera_pool_loop;

static pthread_mutex_t tessera_pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tessera_pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t tessera_pool_done = PTHREAD_COND_INITIALIZER;
static tessera_pool_loop tessera_pool_current;
static int64_t tessera_pool_unclaimed;  /* atomic; set under the mutex */
static int tessera_pool_running;        /* a loop runs (under the mutex) */
static pthread_once_t tessera_pool_once = PTHREAD_ONCE_INIT;
static int tessera_pool_workers;
static __thread int tessera_pool_inside;

/* Claims an iteration of the running loop: its index, or -1 when none is left. */
static int64_t tessera_pool_claim(void) {
    int64_t left = __atomic_load_n(&tessera_pool_unclaimed, __ATOMIC_ACQUIRE);
    while (left > 0)
        if (__atomic_compare_exchange_n(&tessera_pool_unclaimed, &left, left - 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return tessera_pool_current.n - left;
    return -1;
}

static void tessera_pool_run(void) {
    int64_t i;
    while ((i = tessera_pool_claim()) >= 0) {
        tessera_pool_loop *loop = &tessera_pool_current;
        /* Read while the iteration is held, before `done` counts it: once the count is
         * complete the caller may return and write the next loop's description. */
        const int64_t n = loop->n;
        const int e = loop->fn(loop->closure, i);
        if (e != TESSERA_SUCCESS) __atomic_store_n(&loop->status, e, __ATOMIC_RELAXED);
        if (__atomic_add_fetch(&loop->done, 1, __ATOMIC_ACQ_REL) == n) {
            /* The last one: nothing of the loop is read after this. */
            pthread_mutex_lock(&tessera_pool_mutex);
            pthread_cond_broadcast(&tessera_pool_done);
            pthread_mutex_unlock(&tessera_pool_mutex);
        }
    }
}

/* How long a thread polls before it blocks: a loop that follows another in the same
 * pipeline starts without the cost of waking a sleeping thread. It polls by yielding the
 * core (under a microsecond a call when no other thread wants it) rather than spinning
 * with the pause hint, so that when other processes are busy they run meanwhile and this
 * thread's share of the core is left for the iterations it will run: with one busy
 * process, unsharp 6.8-8.9 ms a run against 8.7-10.7 ms polling with 4096 pauses, harris
 * and iir_blur 2-15 % faster, depthwise_sep_conv the same, quiet runs the same
 * (bench/README.md). */
#define TESSERA_POOL_POLLS 64

static void *tessera_pool_worker(void *unused) {
    (void)unused;
    tessera_pool_inside = 1;
    for (;;) {
        int k;
        for (k = 0; k < TESSERA_POOL_POLLS && __atomic_load_n(&tessera_pool_unclaimed, __ATOMIC_ACQUIRE) == 0; k++)
            sched_yield();
        pthread_mutex_lock(&tessera_pool_mutex);
        while (__atomic_load_n(&tessera_pool_unclaimed, __ATOMIC_ACQUIRE) == 0)
            pthread_cond_wait(&tessera_pool_wake, &tessera_pool_mutex);
        pthread_mutex_unlock(&tessera_pool_mutex);
        tessera_pool_run();
    }
    return NULL;
}

static int tessera_pool_threads_wanted(void) {
    const char *names[2] = {"TESSERA_NUM_THREADS", "OMP_NUM_THREADS"};
    int k;
    long cores;
    for (k = 0; k < 2; k++) {
        const char *v = getenv(names[k]);
        if (v != NULL && atoi(v) > 0) return atoi(v);
    }
    cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

static void tessera_pool_start(void) {
    const int threads = tessera_pool_threads_wanted();
    int k;
    for (k = 1; k < threads; k++) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, tessera_pool_worker, NULL) == 0) tessera_pool_workers++;
        pthread_attr_destroy(&attr);
    }
}

static int tessera_serial_for(int (*fn)(const void *, int64_t), const void *closure, int64_t n) {
    int status = TESSERA_SUCCESS;
    int64_t i;
    for (i = 0; i < n; i++) {
        const int e = fn(closure, i);
        if (e != TESSERA_SUCCESS) status = e;
    }
    return status;
}

TESSERA_EXPORT int tessera_jit_parallel_for(int (*fn)(const void *, int64_t), const void *closure, int64_t n) {
    tessera_pool_loop *loop = &tessera_pool_current;
    int status, k;
    if (n <= 1 || tessera_pool_inside) return tessera_serial_for(fn, closure, n);
    pthread_once(&tessera_pool_once, tessera_pool_start);
    if (tessera_pool_workers == 0) return tessera_serial_for(fn, closure, n);
    pthread_mutex_lock(&tessera_pool_mutex);
    if (tessera_pool_running) {
        pthread_mutex_unlock(&tessera_pool_mutex);
        return tessera_serial_for(fn, closure, n);
    }
    tessera_pool_running = 1;
    /* No iteration can be claimed now (none is unclaimed), so nobody reads the
     * description while it is written; the release store publishes it. */
    loop->fn = fn;
    loop->closure = closure;
    loop->n = n;
    __atomic_store_n(&loop->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&loop->status, TESSERA_SUCCESS, __ATOMIC_RELAXED);
    __atomic_store_n(&tessera_pool_unclaimed, n, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&tessera_pool_wake);
    pthread_mutex_unlock(&tessera_pool_mutex);
    tessera_pool_inside = 1;
    tessera_pool_run();
    tessera_pool_inside = 0;
    for (k = 0; k < TESSERA_POOL_POLLS && __atomic_load_n(&loop->done, __ATOMIC_ACQUIRE) < n; k++) sched_yield();
    pthread_mutex_lock(&tessera_pool_mutex);
    while (__atomic_load_n(&loop->done, __ATOMIC_ACQUIRE) < n) pthread_cond_wait(&tessera_pool_done, &tessera_pool_mutex);
    status = __atomic_load_n(&loop->status, __ATOMIC_RELAXED);
    tessera_pool_running = 0;
    pthread_mutex_unlock(&tessera_pool_mutex);
    return status;
}

/* The JIT's heap allocations keep a few freed blocks per thread for the next allocation
 * of about their size. A pipeline allocates the same buffers run after run (and, in a
 * parallel loop, iteration after iteration); freed to malloc, a block at the top of the
 * heap goes back to the system once more than the trim threshold is free there (128 KiB,
 * until a large free raises it), and the next run faults its pages in again. harris's
 * rows per strip measured 330 page faults a run and 1.4x the time of a process whose
 * heap a compilation had grown. A thread keeps at most TESSERA_CACHED_BLOCKS blocks of
 * TESSERA_CACHED_BYTES in all; they are freed when it exits. A block's size is kept
 * just before the pointer tessera_malloc keeps (malloc aligns to 16 bytes, so the gap
 * before a 64-byte aligned block is at least 16 bytes). */
#define TESSERA_CACHED_BLOCKS 8
#define TESSERA_CACHED_BYTES ((uint64_t)64 << 20)

typedef struct tessera_block_cache {
    void *blocks[TESSERA_CACHED_BLOCKS];  /* oldest first */
    int count;
    uint64_t bytes;
} tessera_block_cache;

static pthread_key_t tessera_cache_key;
static pthread_once_t tessera_cache_once = PTHREAD_ONCE_INIT;
static int tessera_cache_ready;

static inline uint64_t tessera_block_bytes(void *block) { return ((uint64_t *)block)[-2]; }

static void tessera_cache_release(void *cache) {
    tessera_block_cache *c = (tessera_block_cache *)cache;
    int i;
    for (i = 0; i < c->count; i++) tessera_free(c->blocks[i]);
    free(c);
}

static void tessera_cache_start(void) {
    tessera_cache_ready = pthread_key_create(&tessera_cache_key, tessera_cache_release) == 0;
}

/* This thread's cache, or NULL where there is none to be had. */
static tessera_block_cache *tessera_cache(void) {
    tessera_block_cache *c;
    pthread_once(&tessera_cache_once, tessera_cache_start);
    if (!tessera_cache_ready) return NULL;
    c = (tessera_block_cache *)pthread_getspecific(tessera_cache_key);
    if (c == NULL) {
        c = (tessera_block_cache *)calloc(1, sizeof(*c));
        if (c != NULL && pthread_setspecific(tessera_cache_key, c) != 0) {
            free(c);
            c = NULL;
        }
    }
    return c;
}

/* Takes block i out of the cache (its size is read here, before anyone frees it). */
static void *tessera_cache_take(tessera_block_cache *c, int i) {
    void *block = c->blocks[i];
    c->bytes -= tessera_block_bytes(block);
    for (; i + 1 < c->count; i++) c->blocks[i] = c->blocks[i + 1];
    c->count--;
    return block;
}

/* A cached block of `bytes` to twice as many (the smallest), else a new one. */
TESSERA_EXPORT void *tessera_jit_malloc(uint64_t bytes) {
    tessera_block_cache *c = tessera_cache();
    void *block;
    if (c != NULL) {
        int best = -1, i;
        for (i = 0; i < c->count; i++) {
            const uint64_t have = tessera_block_bytes(c->blocks[i]);
            if (have >= bytes && have / 2 <= bytes && (best < 0 || have < tessera_block_bytes(c->blocks[best]))) best = i;
        }
        if (best >= 0) return tessera_cache_take(c, best);
    }
    block = tessera_malloc(bytes);
    if (block != NULL) ((uint64_t *)block)[-2] = bytes;
    return block;
}

/* Keeps the block for a next allocation (the oldest go to make room), or frees it. */
TESSERA_EXPORT void tessera_jit_free(void *block) {
    tessera_block_cache *c;
    uint64_t bytes;
    if (block == NULL) return;
    bytes = tessera_block_bytes(block);
    c = bytes <= TESSERA_CACHED_BYTES ? tessera_cache() : NULL;
    if (c == NULL) {
        tessera_free(block);
        return;
    }
    while (c->count == TESSERA_CACHED_BLOCKS || c->bytes + bytes > TESSERA_CACHED_BYTES)
        tessera_free(tessera_cache_take(c, 0));
    c->blocks[c->count++] = block;
    c->bytes += bytes;
}

TESSERA_EXPORT int tessera_jit_check_overlap(const tessera_buffer_t *output, const char *output_name,
                                             uint64_t output_bytes, const tessera_buffer_t *input,
                                             const char *input_name, uint64_t input_bytes) {
    return tessera_check_overlap(output, output_name, output_bytes, input, input_name, input_bytes);
}
)C";
    }();
    return text;
}

}  // namespace tessera::codegen
