// fast_exp, fast_log, fast_pow, fast_inverse and fast_inverse_sqrt
// (include/tessera/IROperator.h): Halide's names for cheaper, vectorizable float32 math.
// Each is written out here as ordinary arithmetic (a range reduction through the float's
// bits, then a short polynomial), so that it has one meaning everywhere: the reference
// interpreter, the C code and the validator see the same operations, and the results are
// the same bits on every machine (docs/semantics.md §5.3). Halide's versions are
// approximations of their own (fast_inverse is an `rcpps` that differs between
// processors); the values here are not theirs.

#include <limits>

#include "tessera/Error.h"
#include "tessera/IROperator.h"

namespace tessera {

namespace {

/** x as a float32 (an integer converted), or a CompileError naming `name`. */
Expr float32_operand(Expr x, const char *name) {
    if (!x.defined()) throw CompileError(std::string("Use of an undefined Expr as an operand of ") + name);
    const Type t = x.type();
    if (t.is_bool()) throw CompileError(std::string(name) + " of a boolean");
    if (t.is_float() && t.bits != 32)
        throw CompileError(std::string(name) + " is defined on float32 values; got " + t.to_string() + " (use " +
                           std::string(name).substr(5) + " instead, or cast to float32)");
    return cast(Float(32, t.lanes), std::move(x));
}

Expr f32(const Expr &like, float v) { return make_const(Float(32, like.type().lanes), double(v)); }
Expr i32(const Expr &like, int v) { return make_const(Int(32, like.type().lanes), int64_t(v)); }

// ln 2 in two parts: the first has few enough bits that k * hi is exact for |k| < 256.
constexpr float kLn2Hi = 0.693145751953125f;
constexpr float kLn2Lo = 1.428606765330187e-06f;

/** 2^k for an int32 k in [-126, 127], by building the float's bits. */
Expr power_of_two(const Expr &k) { return reinterpret(Float(32, k.type().lanes), (k + 127) << 23); }

}  // namespace

Expr fast_exp(Expr x_in) {
    const Expr x = float32_operand(std::move(x_in), "fast_exp");
    // exp(x) = 2^k exp(r) with k = round(x / ln 2), |r| <= ln 2 / 2, and exp(r) by its
    // Taylor polynomial of degree 6 (the first term left out is below 2^-24 there).
    const Expr kf = floor(x * f32(x, 1.44269504f) + f32(x, 0.5f));
    const Expr r = (x - kf * f32(x, kLn2Hi)) - kf * f32(x, kLn2Lo);
    Expr p = f32(x, 1.0f / 720.0f);
    for (float c : {1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f, 1.0f}) p = p * r + f32(x, c);
    // 2^k in two factors, 2^(k >> 1) and 2^(k - (k >> 1)): k reaches 128 below exp's
    // overflow, past the largest float exponent.
    const Expr k = clamp(cast(Int(32, x.type().lanes), kf), i32(x, -126), i32(x, 128));
    const Expr half = k >> 1;
    const Expr e = (p * power_of_two(half)) * power_of_two(k - half);
    // Past the float range: +inf and 0 (NaN stays NaN: both comparisons are false).
    return select(x > f32(x, 88.72283f), f32(x, std::numeric_limits<float>::infinity()),
                  select(x < f32(x, -87.33654f), f32(x, 0.0f), e));
}

Expr fast_log(Expr x_in) {
    const Expr x = float32_operand(std::move(x_in), "fast_log");
    // x = 2^e m with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(t), t = (m - 1) / (m + 1),
    // |t| < 0.172, by its series to t^9 (the next term is below 2^-27).
    const Type it = Int(32, x.type().lanes);
    const Expr bits = reinterpret(it, x);
    const Expr m1 = reinterpret(x.type(), (bits & i32(x, 0x007fffff)) | i32(x, 0x3f800000));  // in [1, 2)
    const Expr high = m1 > f32(x, 1.41421356f);
    const Expr m = select(high, m1 * f32(x, 0.5f), m1);
    const Expr e = cast(x.type(), ((bits >> 23) & i32(x, 0xff)) - i32(x, 127) + select(high, i32(x, 1), i32(x, 0)));
    const Expr t = (m - f32(x, 1.0f)) / (m + f32(x, 1.0f));
    const Expr t2 = t * t;
    Expr s = f32(x, 1.0f / 9.0f);
    for (float c : {1.0f / 7.0f, 1.0f / 5.0f, 1.0f / 3.0f, 1.0f}) s = s * t2 + f32(x, c);
    const Expr log_m = f32(x, 2.0f) * t * s;
    const Expr l = e * f32(x, kLn2Hi) + (e * f32(x, kLn2Lo) + log_m);
    // +inf gives +inf, zero -inf, a negative value or NaN NaN (denormals are not exact).
    const float inf = std::numeric_limits<float>::infinity();
    return select(x > f32(x, 0.0f), select(x == f32(x, inf), f32(x, inf), l),
                  select(x == f32(x, 0.0f), f32(x, -inf), f32(x, std::numeric_limits<float>::quiet_NaN())));
}

Expr fast_pow(Expr x_in, Expr y_in) {
    const Expr x = float32_operand(std::move(x_in), "fast_pow");
    const Expr y = float32_operand(std::move(y_in), "fast_pow");
    // x^y = exp(y log x); any x to the power 0 is 1, as pow's.
    return select(y == f32(y, 0.0f), f32(y, 1.0f), fast_exp(y * fast_log(x)));
}

Expr fast_inverse(Expr x_in) {
    const Expr x = float32_operand(std::move(x_in), "fast_inverse");
    return f32(x, 1.0f) / x;
}

Expr fast_inverse_sqrt(Expr x_in) {
    const Expr x = float32_operand(std::move(x_in), "fast_inverse_sqrt");
    return f32(x, 1.0f) / sqrt(x);
}

}  // namespace tessera
