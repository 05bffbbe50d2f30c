#include "ir/Scalar.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "ir/Check.h"

namespace tessera::ir {


int64_t wrap_int(int bits, int64_t v) {
    if (bits >= 64) return v;
    uint64_t m = (uint64_t(1) << bits) - 1;
    uint64_t u = uint64_t(v) & m;
    uint64_t sign = uint64_t(1) << (bits - 1);
    return int64_t((u ^ sign) - sign);  // sign-extend without signed overflow
}

uint64_t wrap_uint(int bits, uint64_t v) {
    if (bits >= 64) return v;
    return v & ((uint64_t(1) << bits) - 1);
}

Scalar normalize(Type t, Scalar v) {
    if (t.is_int()) return make_int(wrap_int(t.bits, v.i));
    if (t.is_uint()) return make_uint(wrap_uint(t.bits, v.u));
    if (t.is_bool()) return make_uint(v.u != 0);
    if (t.bits == 32) return make_float(double(float(v.f)));
    return v;
}

namespace {

// Saturating, truncating conversion of a finite-or-not double to the integer type `to`.
Scalar float_to_int(Type to, double x) {
    if (std::isnan(x)) return to.is_int() ? make_int(0) : make_uint(0);
    if (to.is_int()) {
        // 2^(bits-1) is exact in double for every width.
        double hi = std::ldexp(1.0, to.bits - 1);
        if (x >= hi) return make_int(to.max_int());
        if (x <= -hi) return make_int(to.min_int());
        return make_int(int64_t(std::trunc(x)));
    }
    double hi = std::ldexp(1.0, to.bits);
    if (x >= hi) return make_uint(to.max_uint());
    if (x <= 0) return make_uint(0);
    return make_uint(uint64_t(std::trunc(x)));
}

// Euclidean division and modulo on int64 (no traps: b == 0 gives 0, MIN / -1 wraps).
int64_t euclid_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return int64_t(0 - uint64_t(a));
    int64_t q = a / b, r = a % b;
    if (r < 0) q = b > 0 ? q - 1 : q + 1;
    return q;
}

int64_t euclid_mod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    if (r < 0) r = b > 0 ? r + b : r - b;
    return r;
}

template<typename F>
double float_op(Type t, double a, double b, F op32, double (*op64)(double, double)) {
    if (t.bits == 32) return double(op32(float(a), float(b)));
    return op64(a, b);
}

Scalar shift(bool left, Type t, Scalar a, Type bt, Scalar b) {
    // Shift amount as a signed 64-bit count; negative counts shift the other way.
    int64_t n = bt.is_int() ? b.i : (b.u > uint64_t(INT64_MAX) ? INT64_MAX : int64_t(b.u));
    if (n < 0) {
        left = !left;
        n = n == INT64_MIN ? INT64_MAX : -n;
    }
    if (t.is_int()) {
        if (left) {
            if (n >= t.bits) return make_int(0);
            return make_int(wrap_int(t.bits, int64_t(uint64_t(a.i) << n)));
        }
        if (n >= t.bits) return make_int(a.i < 0 ? -1 : 0);
        return make_int(a.i >> n);  // arithmetic shift of a sign-extended value
    }
    if (n >= t.bits) return make_uint(0);
    if (left) return make_uint(wrap_uint(t.bits, a.u << n));
    return make_uint(a.u >> n);
}

}  // namespace

Scalar cast(Type to, Type from, Scalar v) {
    if (to.is_bool()) return make_uint(from.is_float() ? (v.f != 0) : (v.u != 0));
    if (from.is_float()) {
        if (to.is_float()) return to.bits == 32 ? make_float(double(float(v.f))) : v;
        return float_to_int(to, v.f);
    }
    // from is an integer or bool
    if (to.is_float()) {
        if (to.bits == 32) return make_float(double(from.is_int() ? float(v.i) : float(v.u)));
        return make_float(from.is_int() ? double(v.i) : double(v.u));
    }
    if (to.is_int()) return make_int(wrap_int(to.bits, from.is_int() ? v.i : int64_t(v.u)));
    return make_uint(wrap_uint(to.bits, from.is_int() ? uint64_t(v.i) : v.u));
}

bool truncates_into(Type t, double f) {
    if (f != f) return false;
    // (bottom - 1, top): 2^(n-1) (2^n unsigned) and the bottom are exact doubles; for 64
    // bits bottom - 1 rounds to the bottom, which only leaves out the bottom itself.
    const double top = std::ldexp(1.0, t.is_int() ? t.bits - 1 : t.bits);
    const double bottom = t.is_int() ? -top : 0.0;
    return f > bottom - 1.0 && f < top;
}

Scalar binary(ExprKind op, Type t, Scalar a, Scalar b) {
    auto boolean = [](bool x) { return make_uint(x ? 1 : 0); };
    if (is_comparison(op)) {
        if (t.is_float()) return boolean(compare(op, a.f, b.f));
        if (t.is_bool()) return boolean(compare(op, a.u != 0, b.u != 0));
        if (t.is_int()) return boolean(compare(op, a.i, b.i));
        return boolean(compare(op, a.u, b.u));
    }
    if (t.is_float()) {
        double x = a.f, y = b.f;
        bool f32 = t.bits == 32;
        auto round = [&](double r) { return make_float(f32 ? double(float(r)) : r); };
        switch (op) {
        // For float32 the operation is done in float: + - * / of two floats computed in
        // double and rounded once to float give the same result, but we keep the types
        // literal so that the code reads like the C we emit.
        case ExprKind::Add: return f32 ? make_float(double(float(x) + float(y))) : make_float(x + y);
        case ExprKind::Sub: return f32 ? make_float(double(float(x) - float(y))) : make_float(x - y);
        case ExprKind::Mul: return f32 ? make_float(double(float(x) * float(y))) : make_float(x * y);
        case ExprKind::Div: return f32 ? make_float(double(float(x) / float(y))) : make_float(x / y);
        case ExprKind::Mod:
            if (f32) {
                float fx = float(x), fy = float(y);
                float q = std::floor(fx / fy);
                float p = fy * q;
                return make_float(double(fx - p));
            } else {
                double q = std::floor(x / y);
                double p = y * q;
                return make_float(x - p);
            }
        case ExprKind::Min: return round(x < y ? x : y);
        case ExprKind::Max: return round(x > y ? x : y);
        default: break;
        }
        TESSERA_INTERNAL_ERROR("binary operator " << int(op) << " on " << t.to_string());
    }
    if (t.is_bool()) {
        bool x = a.u != 0, y = b.u != 0;
        switch (op) {
        case ExprKind::And: return boolean(x && y);
        case ExprKind::Or: return boolean(x || y);
        case ExprKind::Min: return boolean(x && y);
        case ExprKind::Max: return boolean(x || y);
        default: break;
        }
        TESSERA_INTERNAL_ERROR("binary operator " << int(op) << " on bool");
    }
    if (t.is_int()) {
        int64_t x = a.i, y = b.i;
        auto w = [&](uint64_t r) { return make_int(wrap_int(t.bits, int64_t(r))); };
        switch (op) {
        case ExprKind::Add: return w(uint64_t(x) + uint64_t(y));
        case ExprKind::Sub: return w(uint64_t(x) - uint64_t(y));
        case ExprKind::Mul: return w(uint64_t(x) * uint64_t(y));
        case ExprKind::Div: return w(uint64_t(euclid_div(x, y)));
        case ExprKind::Mod: return w(uint64_t(euclid_mod(x, y)));
        case ExprKind::Min: return make_int(x < y ? x : y);
        case ExprKind::Max: return make_int(x > y ? x : y);
        default: break;
        }
        TESSERA_INTERNAL_ERROR("binary operator " << int(op) << " on " << t.to_string());
    }
    uint64_t x = a.u, y = b.u;
    auto w = [&](uint64_t r) { return make_uint(wrap_uint(t.bits, r)); };
    switch (op) {
    case ExprKind::Add: return w(x + y);
    case ExprKind::Sub: return w(x - y);
    case ExprKind::Mul: return w(x * y);
    case ExprKind::Div: return make_uint(y == 0 ? 0 : x / y);
    case ExprKind::Mod: return make_uint(y == 0 ? 0 : x % y);
    case ExprKind::Min: return make_uint(x < y ? x : y);
    case ExprKind::Max: return make_uint(x > y ? x : y);
    default: break;
    }
    TESSERA_INTERNAL_ERROR("binary operator " << int(op) << " on " << t.to_string());
}

Scalar intrinsic(Intrinsic op, Type t, const Type *arg_types, const Scalar *args, int nargs) {
    auto f1 = [&](float (*f32)(float), double (*f64)(double)) {
        TESSERA_INTERNAL_ASSERT(nargs == 1 && t.is_float(), intrinsic_name(op));
        return make_float(t.bits == 32 ? double(f32(float(args[0].f))) : f64(args[0].f));
    };
    auto f2 = [&](float (*f32)(float, float), double (*f64)(double, double)) {
        TESSERA_INTERNAL_ASSERT(nargs == 2 && t.is_float(), intrinsic_name(op));
        return make_float(t.bits == 32 ? double(f32(float(args[0].f), float(args[1].f)))
                                       : f64(args[0].f, args[1].f));
    };
    switch (op) {
    case Intrinsic::Sqrt: return f1(sqrtf, sqrt);
    case Intrinsic::Exp: return f1(expf, exp);
    case Intrinsic::Log: return f1(logf, log);
    case Intrinsic::Pow: return f2(powf, pow);
    case Intrinsic::Sin: return f1(sinf, sin);
    case Intrinsic::Cos: return f1(cosf, cos);
    case Intrinsic::Tan: return f1(tanf, tan);
    case Intrinsic::Asin: return f1(asinf, asin);
    case Intrinsic::Acos: return f1(acosf, acos);
    case Intrinsic::Atan: return f1(atanf, atan);
    case Intrinsic::Atan2: return f2(atan2f, atan2);
    case Intrinsic::Sinh: return f1(sinhf, sinh);
    case Intrinsic::Cosh: return f1(coshf, cosh);
    case Intrinsic::Tanh: return f1(tanhf, tanh);
    case Intrinsic::Asinh: return f1(asinhf, asinh);
    case Intrinsic::Acosh: return f1(acoshf, acosh);
    case Intrinsic::Atanh: return f1(atanhf, atanh);
    case Intrinsic::Floor: return f1(floorf, floor);
    case Intrinsic::Ceil: return f1(ceilf, ceil);
    case Intrinsic::Round: return f1(rintf, rint);  // half to even (default rounding mode)
    case Intrinsic::Trunc: return f1(truncf, trunc);
    case Intrinsic::Fma:
        TESSERA_INTERNAL_ASSERT(nargs == 3 && t.is_float(), "fma");
        return make_float(t.bits == 32 ? double(fmaf(float(args[0].f), float(args[1].f), float(args[2].f)))
                                       : fma(args[0].f, args[1].f, args[2].f));
    case Intrinsic::IsNan: return make_uint(std::isnan(args[0].f) ? 1 : 0);
    case Intrinsic::IsInf: return make_uint(std::isinf(args[0].f) ? 1 : 0);
    case Intrinsic::IsFinite: return make_uint(std::isfinite(args[0].f) ? 1 : 0);
    case Intrinsic::Abs: {
        Type at = arg_types[0];
        if (at.is_float()) return make_float(std::fabs(args[0].f));
        if (at.is_int()) return make_uint(wrap_uint(t.bits, args[0].i < 0 ? 0 - uint64_t(args[0].i) : uint64_t(args[0].i)));
        return args[0];
    }
    case Intrinsic::Absd: {
        Type at = arg_types[0];
        if (at.is_float()) {
            Scalar d = binary(ExprKind::Sub, at, args[0], args[1]);
            return make_float(std::fabs(d.f));
        }
        if (at.is_int()) {
            int64_t x = args[0].i, y = args[1].i;
            uint64_t d = x < y ? uint64_t(y) - uint64_t(x) : uint64_t(x) - uint64_t(y);
            return make_uint(wrap_uint(t.bits, d));
        }
        uint64_t x = args[0].u, y = args[1].u;
        return make_uint(x < y ? y - x : x - y);
    }
    case Intrinsic::BitAnd: return t.is_int() ? make_int(args[0].i & args[1].i) : make_uint(args[0].u & args[1].u);
    case Intrinsic::BitOr: return t.is_int() ? make_int(args[0].i | args[1].i) : make_uint(args[0].u | args[1].u);
    case Intrinsic::BitXor: return t.is_int() ? make_int(args[0].i ^ args[1].i) : make_uint(args[0].u ^ args[1].u);
    case Intrinsic::BitNot:
        if (t.is_bool()) return make_uint(args[0].u ? 0 : 1);
        return t.is_int() ? make_int(~args[0].i) : make_uint(wrap_uint(t.bits, ~args[0].u));
    case Intrinsic::PopCount:
    case Intrinsic::CountLeadingZeros:
    case Intrinsic::CountTrailingZeros: {
        // The n bits of the operand (an int's two's complement), counted; the result has
        // the operand's type.
        const int n = arg_types[0].bits;
        const uint64_t mask = n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
        const uint64_t bits = (arg_types[0].is_int() ? uint64_t(args[0].i) : args[0].u) & mask;
        int count = 0;
        if (op == Intrinsic::PopCount) {
            for (int b = 0; b < n; b++) count += int((bits >> b) & 1);
        } else if (op == Intrinsic::CountLeadingZeros) {
            while (count < n && !((bits >> (n - 1 - count)) & 1)) count++;
        } else {
            while (count < n && !((bits >> count) & 1)) count++;
        }
        return t.is_int() ? make_int(count) : make_uint(uint64_t(count));
    }
    case Intrinsic::Random: {
        TESSERA_INTERNAL_ASSERT(nargs >= 3, "random_hash without its coordinates");
        auto mix = [](uint32_t h, uint32_t v) {
            uint32_t x = (h ^ v) * 0x85ebca6bu;
            x ^= x >> 13;
            x *= 0xc2b2ae35u;
            return x ^ (x >> 16);
        };
        auto low32 = [&](int k) { return uint32_t(arg_types[k].is_int() ? uint64_t(args[k].i) : args[k].u); };
        uint32_t h = low32(0) ^ (low32(1) * 0x9e3779b9u);
        for (int k = 3; k < nargs; k++) h = mix(h, low32(k));
        return make_uint(mix(h, low32(2)));
    }
    case Intrinsic::Print:  // the interpreters write the line (print_part)
    case Intrinsic::Trace:
    case Intrinsic::Require: return args[1];  // the interpreters check the condition
    case Intrinsic::Undef: throw InternalError("undef is evaluated (a pure definition of undef has no values)");
    case Intrinsic::Tuple: throw InternalError("a Tuple is evaluated as one value (its values are evaluated apart)");
    case Intrinsic::Extern: throw InternalError("extern_value is evaluated (its C function computes the Func)");
    case Intrinsic::ShiftLeft: return shift(true, t, args[0], arg_types[1], args[1]);
    case Intrinsic::ShiftRight: return shift(false, t, args[0], arg_types[1], args[1]);
    case Intrinsic::Reinterpret: {
        Type from = arg_types[0];
        uint64_t bits = 0;
        if (from.is_float()) {
            if (from.bits == 32) { float f = float(args[0].f); uint32_t b; std::memcpy(&b, &f, 4); bits = b; }
            else std::memcpy(&bits, &args[0].f, 8);
        } else {
            bits = wrap_uint(from.bits, args[0].u);
        }
        if (t.is_float()) {
            if (t.bits == 32) { uint32_t b = uint32_t(bits); float f; std::memcpy(&f, &b, 4); return make_float(f); }
            double d; std::memcpy(&d, &bits, 8); return make_float(d);
        }
        if (t.is_int()) return make_int(wrap_int(t.bits, int64_t(bits)));
        return make_uint(wrap_uint(t.bits, bits));
    }
    case Intrinsic::None: break;
    }
    TESSERA_INTERNAL_ERROR("unknown intrinsic " << int(op));
}

bool identical(Type t, Scalar a, Scalar b) {
    if (t.is_float()) {
        if (t.bits == 32) {
            float x = float(a.f), y = float(b.f);
            return std::memcmp(&x, &y, 4) == 0;
        }
        return std::memcmp(&a.f, &b.f, 8) == 0;
    }
    return a.u == b.u;
}

}  // namespace tessera::ir

namespace tessera::ir {

Scalar load_scalar(Type t, const void *p) {
    switch (t.code) {
    case TypeCode::Bool: return make_uint(*static_cast<const uint8_t *>(p) != 0);
    case TypeCode::Float:
        if (t.bits == 32) return make_float(*static_cast<const float *>(p));
        return make_float(*static_cast<const double *>(p));
    case TypeCode::Int:
        switch (t.bits) {
        case 8: return make_int(*static_cast<const int8_t *>(p));
        case 16: return make_int(*static_cast<const int16_t *>(p));
        case 32: return make_int(*static_cast<const int32_t *>(p));
        default: return make_int(*static_cast<const int64_t *>(p));
        }
    case TypeCode::UInt:
        switch (t.bits) {
        case 8: return make_uint(*static_cast<const uint8_t *>(p));
        case 16: return make_uint(*static_cast<const uint16_t *>(p));
        case 32: return make_uint(*static_cast<const uint32_t *>(p));
        default: return make_uint(*static_cast<const uint64_t *>(p));
        }
    }
    return make_uint(0);
}

void store_scalar(Type t, void *p, Scalar v) {
    switch (t.code) {
    case TypeCode::Bool: *static_cast<uint8_t *>(p) = v.u != 0; return;
    case TypeCode::Float:
        if (t.bits == 32) *static_cast<float *>(p) = float(v.f);
        else *static_cast<double *>(p) = v.f;
        return;
    case TypeCode::Int:
        switch (t.bits) {
        case 8: *static_cast<int8_t *>(p) = int8_t(v.i); return;
        case 16: *static_cast<int16_t *>(p) = int16_t(v.i); return;
        case 32: *static_cast<int32_t *>(p) = int32_t(v.i); return;
        default: *static_cast<int64_t *>(p) = v.i; return;
        }
    case TypeCode::UInt:
        switch (t.bits) {
        case 8: *static_cast<uint8_t *>(p) = uint8_t(v.u); return;
        case 16: *static_cast<uint16_t *>(p) = uint16_t(v.u); return;
        case 32: *static_cast<uint32_t *>(p) = uint32_t(v.u); return;
        default: *static_cast<uint64_t *>(p) = v.u; return;
        }
    }
}

const char *print_format(Type t) {
    if (t.is_float()) return t.bits == 32 ? "%.9g" : "%.17g";
    return t.is_int() ? "%lld" : "%llu";
}

std::string print_part(Type t, Scalar v) {
    char text[64];
    if (t.is_float()) std::snprintf(text, sizeof text, print_format(t), v.f);
    else if (t.is_int()) std::snprintf(text, sizeof text, print_format(t), static_cast<long long>(v.i));
    else std::snprintf(text, sizeof text, print_format(t), static_cast<unsigned long long>(v.u));
    return text;
}

}  // namespace tessera::ir
