#pragma once
// A corpus of hand-written pipelines for differential testing: each one is realized through
// `Func::realize` (compiled code) and `Func::realize_reference` (the oracle), and the two
// results must agree bit for bit on the window (docs/semantics.md §11).
//
// Every pipeline is a function that builds its own inputs (Buffers filled deterministically
// from a seed, several with non-zero mins) and Params (already set), and returns the output
// Func together with the window to realize: per-dimension mins and extents. Every input read
// of every pipeline stays inside its buffer on that window, so the reference succeeds.
//
// The same file holds the deterministic data helpers (a seeded generator and buffer
// filling) that the random pipeline generator uses too.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <tessera/tessera.h>

namespace tessera::testing {

// ---------------------------------------------------------------------------------------
// Deterministic data
// ---------------------------------------------------------------------------------------

/** SplitMix64: a tiny generator whose output depends only on the seed (unlike the
 * standard distributions, whose algorithms differ between C++ libraries). */
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}

    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /** A uniform integer in [lo, hi] (inclusive). */
    int64_t range(int64_t lo, int64_t hi) {
        uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;
        if (span == 0) return int64_t(next());  // the whole 64-bit range
        return int64_t(uint64_t(lo) + next() % span);
    }
    int irange(int lo, int hi) { return int(range(lo, hi)); }
    /** True with probability percent / 100. */
    bool chance(int percent) { return range(0, 99) < percent; }
    /** A uniform double in [0, 1). */
    double unit() { return double(next() >> 11) * 0x1.0p-53; }
    template<typename V>
    const V &pick(const std::vector<V> &v) { return v[size_t(range(0, int64_t(v.size()) - 1))]; }

private:
    uint64_t state_;
};

/** Stores the value v (given as a double or as raw 64-bit integer bits) at a point of a
 * buffer of any element type. */
inline void store_element(const Buffer<> &b, const std::vector<int> &coords, double fv, uint64_t bits,
                          bool use_bits) {
    std::vector<int32_t> c(coords.begin(), coords.end());
    const ir::BufferData &d = *b.data_handle();
    uint8_t *p = d.host + d.checked_offset(c.data(), int(c.size())) * d.type.bytes();
    const Type t = d.type;
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof(v)); };
    if (t.is_float()) {
        if (t.bits == 32) put(float(fv));
        else put(fv);
        return;
    }
    if (!use_bits) {
        // fv is an integral value that fits the type.
        bits = t.is_int() ? uint64_t(int64_t(fv)) : uint64_t(fv);
    }
    switch (t.bytes()) {
    case 1: put(uint8_t(t.is_bool() ? (bits & 1) : bits)); break;
    case 2: put(uint16_t(bits)); break;
    case 4: put(uint32_t(bits)); break;
    default: put(uint64_t(bits)); break;
    }
}

/** How to fill a buffer. */
enum class Fill {
    Small,      // integers in [lo, hi]; floats uniform in [lo, hi)
    Bits,       // integers: uniformly random bits (the whole range); floats: as Special
    Special,    // mostly Small, with extremes mixed in: integer min/max/0/-1, and for floats
                // ±0, ±inf, NaN, huge, tiny (subnormal) and exact halves
};

/** Fills every element of b from seed. */
inline void fill(const Buffer<> &b, uint64_t seed, Fill how, double lo = -20, double hi = 20) {
    Rng rng(seed);
    const Type t = b.type();
    b.for_each_element([&](const std::vector<int> &c) {
        int mode = how == Fill::Small ? 0 : how == Fill::Bits ? 1 : (rng.chance(25) ? 2 : 0);
        if (t.is_float()) {
            if (mode == 0) {
                store_element(b, c, lo + (hi - lo) * rng.unit(), 0, false);
                return;
            }
            static const double specials[] = {0.0,
                                              -0.0,
                                              std::numeric_limits<double>::infinity(),
                                              -std::numeric_limits<double>::infinity(),
                                              std::numeric_limits<double>::quiet_NaN(),
                                              1e30,
                                              -3e38,
                                              1e-40,
                                              2.5,
                                              -0.5,
                                              4294967296.0,
                                              2147483648.0,
                                              -2147483649.0,
                                              300.5,
                                              65535.75,
                                              1.0};
            store_element(b, c, specials[rng.range(0, 15)], 0, false);
            return;
        }
        if (t.is_bool()) {
            store_element(b, c, 0, rng.next() & 1, true);
            return;
        }
        if (mode == 1) {
            store_element(b, c, 0, rng.next(), true);
            return;
        }
        if (mode == 2) {
            int64_t mn = t.min_int();
            uint64_t mx = t.max_uint();
            uint64_t pickv[] = {uint64_t(mn), mx, 0, ~uint64_t(0), uint64_t(mn) + 1, mx - 1, 1};
            store_element(b, c, 0, pickv[rng.range(0, 6)], true);
            return;
        }
        double l = lo, h = hi;
        if (t.is_uint() && l < 0) l = 0;
        if (t.is_uint() && h < l) h = l;
        store_element(b, c, double(rng.range(int64_t(l), int64_t(h))), 0, false);
    });
}

/** A named input buffer with the given extents and mins, filled from seed. */
template<typename T>
Buffer<T> make_input(const std::string &name, const std::vector<int> &extents, const std::vector<int> &mins,
                     uint64_t seed, Fill how = Fill::Small, double lo = -20, double hi = 20) {
    Buffer<T> b(extents, name);
    b.set_min(mins);
    fill(Buffer<>(b), seed, how, lo, hi);
    return b;
}

// ---------------------------------------------------------------------------------------
// The corpus
// ---------------------------------------------------------------------------------------

struct CorpusPipeline {
    std::string name;
    Func output;
    std::vector<int> mins;     // the window: one min and one extent per output dimension
    std::vector<int> extents;
    std::string note;
};

namespace corpus {

namespace BC = BoundaryConditions;

// --- image processing ------------------------------------------------------------------

inline CorpusPipeline blur3x3_u16() {
    Var x("x"), y("y");
    auto in = make_input<uint16_t>("in", {18, 14}, {-3, -2}, 101, Fill::Small, 0, 65535);
    Expr sum = cast<uint32_t>(0);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) sum = sum + cast<uint32_t>(in(x + dx, y + dy));
    Func blur("blur");
    blur(x, y) = cast<uint16_t>(sum / 9);
    return {"blur3x3_u16", blur, {-2, -1}, {16, 12},
            "3x3 box blur of a uint16 image with non-zero mins, accumulated in uint32; the "
            "window touches every edge of the input"};
}

inline CorpusPipeline separable_blur_repeat_edge() {
    Var x("x"), y("y");
    auto in = make_input<uint8_t>("in", {13, 9}, {2, -4}, 102, Fill::Small, 0, 255);
    Func clamped = BC::repeat_edge(in);
    Func bx("blur_x"), by("blur_y");
    bx(x, y) = cast<uint16_t>(clamped(x - 1, y)) + cast<uint16_t>(clamped(x, y)) * 2 + clamped(x + 1, y);
    by(x, y) = cast<uint8_t>((bx(x, y - 1) + bx(x, y) * 2 + bx(x, y + 1) + 8) / 16);
    return {"separable_blur_repeat_edge", by, {-3, -8}, {24, 20},
            "separable [1 2 1] blur through repeat_edge, window far outside the input"};
}

inline CorpusPipeline unsharp_mask_float() {
    Var x("x"), y("y");
    auto in = make_input<float>("in", {17, 12}, {-4, 5}, 103, Fill::Small, 0, 1);
    Func clamped = BC::repeat_edge(in);
    const float w[5] = {1 / 16.0f, 4 / 16.0f, 6 / 16.0f, 4 / 16.0f, 1 / 16.0f};
    Func bx("blur_x"), by("blur_y"), sharp("sharpen");
    Expr sx = 0.0f, sy = 0.0f;
    for (int i = 0; i < 5; i++) sx = sx + clamped(x + i - 2, y) * w[i];
    bx(x, y) = sx;
    for (int i = 0; i < 5; i++) sy = sy + bx(x, y + i - 2) * w[i];
    by(x, y) = sy;
    Param<float> amount("amount", 1.5f);
    sharp(x, y) = clamp(clamped(x, y) + amount * (clamped(x, y) - by(x, y)), 0.0f, 1.0f);
    return {"unsharp_mask_float", sharp, {-6, 3}, {21, 16},
            "unsharp mask in float32 with a float Param and a clamp, 5-tap Gaussian"};
}

inline CorpusPipeline histogram_clamped_index() {
    Var b("b");
    auto in = make_input<uint8_t>("in", {20, 15}, {-5, 3}, 104, Fill::Small, 0, 255);
    Func hist("hist");
    hist(b) = 0;
    RDom r(-5, 20, 3, 15, "r");
    hist(clamp(cast<int32_t>(in(r.x, r.y)) / 8 - 2, 0, 29)) += 1;
    return {"histogram_clamped_index", hist, {-3}, {36},
            "histogram over a 2-D RDom with a clamped data-dependent index; bins outside "
            "[0, 29] stay 0"};
}

inline CorpusPipeline prefix_sum_scan() {
    Var x("x");
    auto in = make_input<int32_t>("in", {30}, {-7}, 105, Fill::Small, -100, 100);
    Param<int32_t> n("n", 28);
    Func s("scan");
    s(x) = in(clamp(x, -7, 22));
    RDom r(-6, n, "r");
    s(r) = s(r) + s(r - 1);
    return {"prefix_sum_scan", s, {-10}, {40},
            "prefix sum f(r) = f(r) + f(r - 1) with a Param extent; the window extends past "
            "both ends of the RDom"};
}

inline CorpusPipeline summed_area_table() {
    Var x("x"), y("y");
    auto in = make_input<uint8_t>("in", {12, 10}, {1, -2}, 106, Fill::Small, 0, 255);
    Func sat("sat");
    sat(x, y) = cast<int32_t>(in(clamp(x, 1, 12), clamp(y, -2, 7)));
    RDom rx(2, 11, "rx");
    sat(rx, y) = sat(rx, y) + sat(rx - 1, y);
    RDom ry(-1, 9, "ry");
    sat(x, ry) += sat(x, ry - 1);
    return {"summed_area_table", sat, {0, -3}, {14, 12},
            "2-D summed-area table: a scan along x (y pure), then along y (x pure)"};
}

inline CorpusPipeline matmul_float() {
    Var i("i"), j("j");
    auto A = make_input<float>("A", {7, 6}, {-2, 1}, 107, Fill::Small, -1, 1);
    auto B = make_input<float>("B", {5, 7}, {0, -2}, 108, Fill::Small, -1, 1);
    Func C("matmul");
    C(i, j) = 0.0f;
    RDom k(-2, 7, "k");
    C(i, j) = C(i, j) + A(k, j) * B(i, k);
    return {"matmul_float", C, {0, 1}, {5, 6},
            "float matrix product through an RDom: the summation order is the RDom order, so "
            "the result is bit-exact"};
}


inline CorpusPipeline matmul_int32() {
    Var i("i"), j("j");
    auto A = make_input<int32_t>("A", {9, 4}, {0, -3}, 109, Fill::Small, -(1 << 20), 1 << 20);
    auto B = make_input<int32_t>("B", {6, 9}, {3, 0}, 110, Fill::Bits);
    Func C("matmul");
    RDom k(0, 9, "k");
    C(i, j) += A(k, j) * B(i, k);  // C is first defined as 0 everywhere (as in Halide)
    return {"matmul_int32", C, {3, -3}, {6, 4},
            "int32 matrix product with `+=` on an undefined Func; products and sums wrap"};
}

inline CorpusPipeline conv1d_rdom_kernel() {
    Var x("x");
    auto in = make_input<int16_t>("in", {20}, {0}, 111, Fill::Small, -1000, 1000);
    auto kernel = make_input<int16_t>("kernel", {5}, {-2}, 112, Fill::Small, -8, 8);
    Func padded = BC::repeat_edge(in);
    Func conv("conv1d");
    conv(x) = 0;
    RDom r(-2, 5, "r");
    conv(x) += cast<int32_t>(kernel(r)) * padded(x + r);
    return {"conv1d_rdom_kernel", conv, {-6}, {30},
            "1-D convolution: an RDom over a kernel buffer with min -2, input through repeat_edge"};
}

inline CorpusPipeline conv2d_rdom_kernel() {
    Var x("x"), y("y");
    auto in = make_input<float>("in", {11, 9}, {-5, 0}, 113, Fill::Small, -1, 1);
    auto kernel = make_input<float>("kernel", {3, 3}, {-1, -1}, 114, Fill::Small, -0.5, 0.5);
    Func padded = BC::mirror_image(in);
    Func conv("conv2d");
    conv(x, y) = 0.0f;
    RDom r(-1, 3, -1, 3, "r");
    conv(x, y) = conv(x, y) + kernel(r.x, r.y) * padded(x - r.x, y - r.y);
    return {"conv2d_rdom_kernel", conv, {-8, -4}, {18, 16},
            "2-D float convolution over a 2-D RDom kernel, input through mirror_image"};
}

// --- boundary conditions at negative coordinates ----------------------------------------

inline CorpusPipeline boundary_condition(int kind) {
    static const char *const names[] = {"boundary_repeat_edge",   "boundary_constant_exterior",
                                        "boundary_mirror_image",  "boundary_mirror_interior",
                                        "boundary_repeat_image",  "boundary_mirror_interior_extent1"};
    Var x("x"), y("y");
    auto in = make_input<int16_t>("in", {6, kind == 5 ? 1 : 5}, {-4, 2}, 115 + uint64_t(kind), Fill::Small, -300,
                                  300);
    Func bc;
    switch (kind) {
    case 0: bc = BC::repeat_edge(in); break;
    case 1: bc = BC::constant_exterior(in, Expr(int16_t(-7))); break;
    case 2: bc = BC::mirror_image(in); break;
    case 3:
    case 5: bc = BC::mirror_interior(in); break;
    default: bc = BC::repeat_image(in); break;
    }
    Func out("out");
    out(x, y) = bc(x, y) * 2 + bc(-x, y - 7);
    return {names[kind], out, {-20, -15}, {30, 28},
            "a boundary condition read at coordinates far outside the input on both sides "
            "(several periods), including negative ones; extent1: a dimension of extent 1"};
}
inline CorpusPipeline boundary_repeat_edge() { return boundary_condition(0); }
inline CorpusPipeline boundary_constant_exterior() { return boundary_condition(1); }
inline CorpusPipeline boundary_mirror_image() { return boundary_condition(2); }
inline CorpusPipeline boundary_mirror_interior() { return boundary_condition(3); }
inline CorpusPipeline boundary_repeat_image() { return boundary_condition(4); }
inline CorpusPipeline boundary_mirror_interior_extent1() { return boundary_condition(5); }

// --- resampling -------------------------------------------------------------------------

inline CorpusPipeline downsample() {
    Var x("x"), y("y");
    auto in = make_input<uint8_t>("in", {16, 12}, {-6, -5}, 121, Fill::Small, 0, 255);
    Func clamped = BC::repeat_edge(in);
    Func down("downsample");
    down(x, y) = cast<uint8_t>((cast<uint16_t>(clamped(2 * x, 2 * y)) + clamped(2 * x + 1, 2 * y) +
                                clamped(2 * x, 2 * y + 1) + clamped(2 * x + 1, 2 * y + 1) + 2) /
                               4);
    return {"downsample", down, {-6, -5}, {10, 8}, "2x2 box downsample (2 * x, 2 * x + 1) at negative coordinates"};
}

inline CorpusPipeline upsample_euclidean() {
    Var x("x");
    auto in = make_input<int32_t>("in", {9}, {-4}, 122, Fill::Small, -50, 50);
    Func coarse("coarse");
    coarse(x) = in(clamp(x, -4, 4)) * 8 + x;
    Func up("upsample");
    up(x) = select(x % 2 == 0, coarse(x / 2), (coarse(x / 2) + coarse(x / 2 + 1)) / 2) * 100 +
            coarse((x - 1) / 3) + coarse((-x) / 2) - x % -3 + x / -4;
    return {"upsample_euclidean", up, {-17}, {34},
            "upsample with x / 2, x % 2, (x - 1) / 3, (-x) / 2, x % -3, x / -4 over negative x: "
            "Euclidean division and modulo"};
}

inline CorpusPipeline bilinear_resample() {
    Var x("x"), y("y");
    auto in = make_input<float>("in", {10, 8}, {-2, 3}, 123, Fill::Small, 0, 100);
    Func src = BC::repeat_edge(in);
    Expr sx = (cast<float>(x) + 0.5f) * 0.37f - 0.5f;
    Expr sy = (cast<float>(y) + 0.5f) * 0.61f - 0.5f + 3.0f;
    // The clamps give bounds inference a bound on the float-derived coordinates.
    Expr ix = clamp(cast<int32_t>(floor(sx)), -10, 30), iy = clamp(cast<int32_t>(floor(sy)), -10, 30);
    Expr fx = sx - floor(sx), fy = sy - floor(sy);
    Func out("bilinear");
    out(x, y) = lerp(lerp(src(ix, iy), src(ix + 1, iy), fx), lerp(src(ix, iy + 1), src(ix + 1, iy + 1), fx), fy);
    return {"bilinear_resample", out, {-4, -3}, {30, 16},
            "bilinear resampling with float coordinates, floor, float->int casts and lerp"};
}

// --- updates and reductions -------------------------------------------------------------

inline CorpusPipeline multi_stage_updates() {
    Var x("x");
    Func f("f");
    f(x) = x * 3;
    f(x) += 1;
    RDom r(0, 10, "r");
    r.where(r % 3 != 0);
    f(r) = f(r) * 2 - f(r - 1);
    f(5) = 100;
    f(x) = f(x) * f(x) - x;
    RDom r2(-3, 8, "r2");
    r2.where(r2 < f(0) % 7);
    f(r2 + 1) = f(r2) + r2;
    f(-2) = f(-2) + f(7);
    return {"multi_stage_updates", f, {-5}, {20},
            "six updates: pure, RDom with where(), constant point, pure again, RDom whose where() "
            "reads the Func itself, constant point reading another point"};
}

inline CorpusPipeline non_commutative_2d_rdom() {
    Var x("x");
    auto in = make_input<int32_t>("in", {4, 3}, {1, -1}, 124, Fill::Small, -9, 9);
    Func digits("digits");
    digits(x) = 0;
    RDom r(0, 3, 0, 2, "r");
    digits(0) = digits(0) * 10 + r.x + 3 * r.y;  // 12345 at 0 (docs/semantics.md §7.4)
    Func fold("fold");
    fold(x) = x;
    RDom s(1, 4, -1, 3, "s");
    fold(x) = fold(x) * 3 - in(s.x, s.y) * (x + 2);
    Func out("out");
    out(x) = digits(x) + fold(x) * 7;
    return {"non_commutative_2d_rdom", out, {-3}, {8},
            "updates over 2-D RDoms whose result depends on the iteration order (r.x innermost)"};
}

inline CorpusPipeline non_associative_float_reduction() {
    Var x("x");
    auto in = make_input<float>("in", {5, 4}, {0, 0}, 126, Fill::Small, -1000, 1000);
    Func acc("acc");
    acc(x) = 0.1f * cast<float>(x);
    RDom r(0, 5, 0, 4, "r");
    acc(x) = acc(x) * 0.7f + in(r.x, r.y) / 3.0f + 1e-7f;
    return {"non_associative_float_reduction", acc, {-4}, {9},
            "float reduction in RDom order; any reassociation changes the bits"};
}

inline CorpusPipeline argmax_select() {
    Var x("x"), y("y");
    auto in = make_input<float>("in", {8, 11}, {0, -3}, 125, Fill::Small, 0, 4);
    Func q("quantized");
    q(x, y) = floor(in(x, y));  // small integers: many ties
    Func am("argmax");
    am(x) = -3;
    RDom r(-3, 11, "r");
    am(x) = select(q(x, r) > q(x, clamp(am(x), -3, 7)), r, am(x));
    return {"argmax_select", am, {0}, {8},
            "argmax by select over an RDom, reading the input at the current best index "
            "(data-dependent, clamped); the first of equal maxima wins"};
}

// --- types and operators ----------------------------------------------------------------

template<typename T>
CorpusPipeline element_type(const char *name, uint64_t seed) {
    Var x("x"), k("k");
    auto in = make_input<T>("in", {16}, {-3}, seed, std::is_floating_point_v<T> ? Fill::Special : Fill::Bits, -50,
                            50);
    Func load("load");
    load(x) = in(clamp(x, -3, 12));
    Expr a = load(x), b = load(x + 1), c = load(x - 1);
    const Expr big = Expr(std::numeric_limits<T>::max()), lowest = Expr(std::numeric_limits<T>::lowest());
    // One operation per row k, so that each is compared on its own.
    Func out(name);
    out(x, k) = select(k == 0, a * b + big,                                   // wraps / overflows to inf
                       k == 1, c / (b - a),                                   // division by zero
                       k == 2, c % (a - 7),                                   // Euclidean / float modulo
                       k == 3, cast<T>(x) * Expr(T(101)) - a,
                       k == 4, cast<T>(cast<int64_t>(a) * 1000003),           // float->int saturates
                       k == 5, cast<T>(cast<uint8_t>(a) + cast<int8_t>(b)),   // int8 + uint8 is int8
                       k == 6, select(a < b, a - b, -(a - b)),                // negation of the minimum
                       k == 7, max(a, lowest) + (b - c) * (b - c),
                       k == 8, min(a, b) - max(b, c) * a,
                       a + b + c);
    return {name, out, {-6, 0}, {24, 10},
            "each arithmetic operation of one element type on full-range data (row k): "
            "wrap-around (integers), inf/NaN/-0 (floats), division and modulo by zero, narrowing "
            "casts, mixed int8/uint8 coercion, negation"};
}
inline CorpusPipeline type_int8() { return element_type<int8_t>("type_int8", 130); }
inline CorpusPipeline type_int16() { return element_type<int16_t>("type_int16", 131); }
inline CorpusPipeline type_int32() { return element_type<int32_t>("type_int32", 132); }
inline CorpusPipeline type_int64() { return element_type<int64_t>("type_int64", 133); }
inline CorpusPipeline type_uint8() { return element_type<uint8_t>("type_uint8", 134); }
inline CorpusPipeline type_uint16() { return element_type<uint16_t>("type_uint16", 135); }
inline CorpusPipeline type_uint32() { return element_type<uint32_t>("type_uint32", 136); }
inline CorpusPipeline type_uint64() { return element_type<uint64_t>("type_uint64", 137); }
inline CorpusPipeline type_float32() { return element_type<float>("type_float32", 138); }
inline CorpusPipeline type_float64() { return element_type<double>("type_float64", 139); }

inline CorpusPipeline float_to_int_casts() {
    Var x("x");
    auto in = make_input<float>("in", {24}, {-12}, 140, Fill::Special, -1e10, 1e10);
    Func v("v");
    v(x) = in(x);
    Expr a = v(x);
    Expr d = cast<double>(a) * 1e10;
    Func out("casts");
    out(x) = (cast<int64_t>(a) ^ (cast<int64_t>(cast<uint8_t>(a)) << 8) ^ (cast<int64_t>(cast<int8_t>(a)) << 16) ^
              (cast<int64_t>(cast<int32_t>(a)) * 3) ^ (cast<int64_t>(cast<uint16_t>(a)) << 40) ^
              cast<int64_t>(cast<uint32_t>(d)) ^ cast<int64_t>(cast<uint64_t>(a))) +
             cast<int64_t>(d) + cast<int64_t>(cast<int16_t>(d)) * 5;
    return {"float_to_int_casts", out, {-12}, {24},
            "float->int conversions of NaN, ±inf, ±0, huge, subnormal and half values into every "
            "integer width: truncation and saturation"};
}

inline CorpusPipeline bitwise_and_shifts() {
    Var x("x");
    auto ain = make_input<int32_t>("a", {20}, {0}, 141, Fill::Bits);
    auto bin = make_input<int8_t>("b", {20}, {0}, 142, Fill::Small, -40, 40);
    auto cin = make_input<uint8_t>("c", {20}, {0}, 143, Fill::Bits);
    Expr a = ain(x), b = bin(x), c = cin(x);
    Expr s = (a << b) ^ (a >> (b / 4)) ^ ((a & 0x0f0f0f0f) | (~a & 0x70000000));
    Expr u = cast<int32_t>(((c << (b % 12)) | (c >> cast<uint8_t>(b & 15))) ^ ~c);
    Expr n = cast<int32_t>(cast<int8_t>(a) >> 10) + cast<int32_t>(cast<int8_t>(1) << b) +
             cast<int32_t>(cast<uint64_t>(a) >> 33) + cast<int32_t>(cast<int64_t>(a) << 40 >> 45);
    Func out("bits");
    out(x) = s + u * 7 + n + (a >> -3) + (a << -40) + (a >> 31) + (cast<uint16_t>(c) << 12);
    return {"bitwise_and_shifts", out, {0}, {20},
            "& | ^ ~ and shifts by negative, zero, in-range and >= width amounts (signed "
            "amounts of another type), arithmetic vs logical right shifts"};
}

inline CorpusPipeline min_max_abs_absd() {
    Var x("x"), c("c");
    auto ai = make_input<int8_t>("a", {24}, {-5}, 144, Fill::Special, -128, 127);
    auto fi = make_input<float>("f", {24}, {-5}, 145, Fill::Special, -3, 3);
    Expr a = ai(x), b = ai(clamp(x + 3, -5, 18));
    Expr fa = fi(x), fb = fi(clamp(13 - x, -5, 18));
    Func out("minmax");
    out(x, c) = select(c == 0, cast<float>(min(a, b)), c == 1, cast<float>(max(a, b)), c == 2, cast<float>(abs(a)),
                       c == 3, cast<float>(absd(a, b)), c == 4, min(fa, fb), c == 5, max(fa, fb), c == 6, abs(fa),
                       c == 7, absd(fa, fb), c == 8, min(fa, -0.0f), c == 9, max(-0.0f, fa), c == 10,
                       cast<float>(absd(cast<uint8_t>(a), cast<uint8_t>(b))), c == 11,
                       cast<float>(clamp(a, -100, 50)), c == 12, clamp(fa, -1.0f, 1.0f), fa);
    return {"min_max_abs_absd", out, {-5, 0}, {24, 14},
            "min/max/abs/absd/clamp on int8 extremes (abs(-128) == 128 unsigned) and floats with "
            "NaN and -0 (min/max are not commutative)"};
}

template<typename T>
CorpusPipeline math_functions(const char *name, uint64_t seed) {
    Var x("x"), c("c");
    auto in = make_input<T>("in", {32}, {-16}, seed, Fill::Special, -4, 4);
    Expr a = in(x), b = in(clamp(15 - x, -16, 15));
    Func out(name);
    out(x, c) = select(c == 0, sqrt(a), c == 1, exp(a), c == 2, log(a), c == 3, sin(a), c == 4, cos(a), c == 5,
                       pow(a, b), c == 6, floor(a), c == 7, round(floor(a * T(2)) * T(0.5)), c == 8, ceil(a),
                       c == 9, trunc(a), c == 10, fract(a), c == 11, atan2(a, b), c == 12, tanh(a), c == 13,
                       round(a), c == 14, tan(a), c == 15, asin(a / T(4)), c == 16, acos(a / T(4)), c == 17,
                       atan(a), c == 18, sinh(a), c == 19, cosh(a), c == 20, asinh(a), c == 21,
                       acosh(abs(a) + T(1)), c == 22, atanh(a / T(5)), lerp(a, b, T(0.25)));
    return {name, out, {-16, 0}, {32, 24},
            "every math function on values including NaN, ±inf, ±0, huge values and exact "
            "halves (round is half to even)"};
}
inline CorpusPipeline math_float32() { return math_functions<float>("math_float32", 146); }
inline CorpusPipeline math_float64() { return math_functions<double>("math_float64", 147); }

inline CorpusPipeline select_chains() {
    Var x("x"), y("y");
    auto in = make_input<int16_t>("in", {12, 10}, {-6, -5}, 148, Fill::Small, -20, 20);
    Expr v = in(x, y);
    Func out("select_chain");
    out(x, y) = select(v < -10, Expr(x), v < 0, -y, v == 0, 1000, v < 10 && x > y, x * y, v >= 15 || y == 2,
                       cast<int32_t>(v) * 2, !(x == 0), x - y, -1);
    return {"select_chains", out, {-6, -5}, {12, 10}, "a seven-way select chain with && || ! in the conditions"};
}

inline CorpusPipeline params_of_many_types() {
    Var x("x");
    Param<uint8_t> pu("pu", 200);
    Param<double> pd("pd", -2.75);
    Param<int16_t> pi("pi", -300);
    pi.set_range(Expr(int16_t(-1000)), Expr(int16_t(1000)));
    Param<int32_t> n("n", 4);
    Param<float> pf("pf", 0.125f);
    Func f("f");
    f(x) = cast<double>(x * pi) * pd + pu + cast<double>(pf);
    RDom r(0, n, "r");
    f(x) = f(x) * pd + cast<double>(r + pu);
    return {"params_of_many_types", f, {-3}, {11},
            "Params of types uint8, int16 (with set_range), int32 (an RDom extent), float32 and "
            "float64 used in values"};
}

// --- DAG shapes -------------------------------------------------------------------------

inline CorpusPipeline func_with_two_consumers() {
    Var x("x"), y("y");
    auto in = make_input<int32_t>("in", {14, 10}, {0, 0}, 149, Fill::Small, -500, 500);
    Func g("shared");
    g(x, y) = in(clamp(x, 0, 13), clamp(y, 0, 9)) * 3 + x;
    Func a("left"), b("right"), out("out");
    a(x, y) = g(x - 1, y) + g(x + 1, y);
    b(x, y) = g(x, y * 2) - g(y, x);
    out(x, y) = a(x, y) * 2 + b(x, y);
    return {"func_with_two_consumers", out, {-2, -1}, {12, 8}, "one Func read by two consumers at different points"};
}

inline CorpusPipeline diamond_dag() {
    Var x("x"), y("y");
    auto in = make_input<float>("in", {9, 9}, {-3, -3}, 150, Fill::Small, -2, 2);
    Func src("src"), l("l"), r("r"), out("out");
    src(x, y) = BC::repeat_edge(in)(x, y) * 1.5f;
    l(x, y) = src(x - 1, y) * 0.25f + src(x, y);
    r(x, y) = src(x, y + 1) - src(x, y - 1) * 0.5f;
    out(x, y) = l(x, y) * r(x, y) + src(x, y);
    return {"diamond_dag", out, {-5, -4}, {13, 12}, "src -> (l, r) -> out, with out also reading src"};
}

inline CorpusPipeline updates_consumed() {
    Var x("x");
    auto in = make_input<int32_t>("in", {12}, {-2}, 151, Fill::Small, -30, 30);
    Func g("accum");
    g(x) = x * x;
    RDom r(0, 5, "r");
    g(x) = g(x) + in(clamp(x + r, -2, 9));
    g(x) = g(x) * 2 - 1;
    Func out("out");
    out(x) = g(x - 1) + g(x) * 10 + g(x + 2) * 100;
    return {"updates_consumed", out, {-4}, {16},
            "a Func with an RDom update and a pure update, read at three points by its consumer "
            "(by default it is computed inside the consumer's innermost loop)"};
}

inline CorpusPipeline scan_consumed() {
    Var x("x"), y("y");
    auto in = make_input<int16_t>("in", {7, 9}, {0, -4}, 152, Fill::Small, -100, 100);
    Func s("column_scan");
    s(x, y) = cast<int32_t>(in(clamp(x, 0, 6), clamp(y, -4, 4)));
    RDom r(-3, 8, "r");
    s(x, r) = s(x, r) + s(x, r - 1);
    Func out("out");
    out(x, y) = s(x, y + 1) - s(x, y - 2) + s(6 - x, 0);
    return {"scan_consumed", out, {-1, -5}, {9, 10}, "a column-wise scan (x pure) read by a consumer at shifted rows"};
}

inline CorpusPipeline zero_dimensional() {
    auto in = make_input<int32_t>("in", {7, 3}, {-2, 1}, 153, Fill::Small, -9, 9);
    Param<int32_t> k("k", 5);
    Func total("total");
    total() = k * 3;
    RDom r(-2, 7, 1, 3, "r");
    total() = total() * 2 + in(r.x, r.y);
    return {"zero_dimensional", total, {}, {}, "a zero-dimensional Func with an RDom update, realized as a scalar"};
}

inline CorpusPipeline zero_dimensional_consumed() {
    Var x("x");
    auto in = make_input<uint8_t>("in", {6}, {3}, 154, Fill::Small, 0, 255);
    Func total("total");
    total() = cast<uint32_t>(0);
    RDom r(3, 6, "r");
    total() += in(r);
    Func out("out");
    out(x) = cast<int32_t>(total()) - x;
    return {"zero_dimensional_consumed", out, {-2}, {5}, "a zero-dimensional reduction read by a 1-D Func"};
}

inline CorpusPipeline four_dimensional() {
    Var x("x"), y("y"), c("c"), w("w");
    auto in = make_input<uint8_t>("in", {3, 4, 2, 2}, {-1, 0, 2, -3}, 155, Fill::Small, 0, 255);
    Func f("f4");
    f(x, y, c, w) = cast<int32_t>(in(x, y, c, w)) + x + 10 * y + 100 * c + 1000 * w;
    f(x, y, c, w) += w * c - y;
    Func g("g4");
    g(x, y, c, w) = f(x, y, c, w) * 2 - f(x, clamp(y + 1, 0, 3), c, w);
    return {"four_dimensional", g, {-1, 0, 2, -3}, {3, 4, 2, 2}, "4-D Funcs with an update and non-zero mins"};
}

inline CorpusPipeline realize_nonzero_mins() {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x * y - 7 + (x / 3) * (y % 5);
    return {"realize_nonzero_mins", f, {-100, 37}, {13, 9}, "realize into a Buffer whose mins are far from zero"};
}

// --- the regressions of docs/semantics.md §14 --------------------------------------------------------

inline CorpusPipeline impure_identity() {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = 1;
    g(x, y) = 1 + f(x, y);
    RDom r(-10, 15, -10, 15, "r");
    g(r.x, r.y) = g(r.x, r.y) + 1;
    return {"impure_identity", g, {0, 0}, {3, 3}, "R2: an output whose update writes outside the window"};
}

inline CorpusPipeline impure_identity_through_h() {
    Var x("x"), y("y");
    Func f("f"), g("g"), h("h");
    f(x, y) = 1;
    g(x, y) = 1 + f(x, y);
    RDom r(-10, 15, -10, 15, "r");
    g(r.x, r.y) = g(r.x, r.y) + 1;
    h(x, y) = g(x, y);
    return {"impure_identity_through_h", h, {0, 0}, {3, 3}, "R2 with an identity Func appended"};
}

inline CorpusPipeline division_by_27_minus_x() {
    Var x("x");
    Func out("out");
    out(x) = 100 / (27 - x) + (x - 30) % (27 - x) * 1000;
    return {"division_by_27_minus_x", out, {-10}, {50},
            "R3: 100 / (27 - x) on a window containing x = 27 (division and modulo "
            "by zero are 0), with negative operands"};
}

inline CorpusPipeline division_by_g() {
    Var x("x");
    Func g("g"), f("f"), out("out");
    g(x) = 5;
    f(x) = 100 / g(x);
    out(x) = f(x);
    return {"division_by_g", out, {0}, {25}, "R3: 100 / g(x) with g = 5"};
}

inline CorpusPipeline index_through_func() {
    Var x("x");
    Func h("h"), g("g"), f("f");
    h(x) = 10;
    g(x) = x * x;
    f(x) = g(clamp(h(x), 0, 100));
    return {"index_through_func", f, {0}, {10}, "R4: f(x) = g(clamp(h(x), 0, 100)); expected 100"};
}

}  // namespace corpus

/** A corpus entry: its name (a valid test name) and the function that builds it. */
/** Halide's conv_layer algorithm (before its schedule): relu(c, x, y, n) of a 3x3
 * convolution over CI input channels plus a bias, reading the input and the filter through
 * staging copies (Funcs that only copy them, for a schedule to place). */
struct ConvLayer {
    Var x{"x"}, y{"y"}, c{"c"}, n{"n"};
    Func staged_input{"staged_input"}, staged_filter{"staged_filter"}, conv{"conv"}, relu{"relu"};
    RDom r;
    ConvLayer(const Buffer<float> &input, const Buffer<float> &filter, const Buffer<float> &bias, int CI)
        : r(0, CI, 0, 3, 0, 3, "r") {
        staged_input(c, x, y, n) = input(c, x, y, n);
        staged_filter(c, x, y, n) = filter(c, x, y, n);
        conv(c, x, y, n) = bias(c);
        conv(c, x, y, n) += staged_filter(c, r.y, r.z, r.x) * staged_input(r.x, x + r.y, y + r.z, n);
        relu(c, x, y, n) = max(0.0f, conv(c, x, y, n));
    }
};

struct CorpusEntry {
    const char *name;
    CorpusPipeline (*make)();
};

/** Every pipeline of the corpus. Each call of `make` builds fresh Funcs and inputs. */
inline const std::vector<CorpusEntry> &pipeline_corpus() {
    using namespace corpus;
    static const std::vector<CorpusEntry> entries = {
        {"blur3x3_u16", blur3x3_u16},
        {"separable_blur_repeat_edge", separable_blur_repeat_edge},
        {"unsharp_mask_float", unsharp_mask_float},
        {"histogram_clamped_index", histogram_clamped_index},
        {"prefix_sum_scan", prefix_sum_scan},
        {"summed_area_table", summed_area_table},
        {"matmul_float", matmul_float},
        {"matmul_int32", matmul_int32},
        {"conv1d_rdom_kernel", conv1d_rdom_kernel},
        {"conv2d_rdom_kernel", conv2d_rdom_kernel},
        {"boundary_repeat_edge", boundary_repeat_edge},
        {"boundary_constant_exterior", boundary_constant_exterior},
        {"boundary_mirror_image", boundary_mirror_image},
        {"boundary_mirror_interior", boundary_mirror_interior},
        {"boundary_repeat_image", boundary_repeat_image},
        {"boundary_mirror_interior_extent1", boundary_mirror_interior_extent1},
        {"downsample", downsample},
        {"upsample_euclidean", upsample_euclidean},
        {"bilinear_resample", bilinear_resample},
        {"multi_stage_updates", multi_stage_updates},
        {"non_commutative_2d_rdom", non_commutative_2d_rdom},
        {"non_associative_float_reduction", non_associative_float_reduction},
        {"argmax_select", argmax_select},
        {"type_int8", type_int8},
        {"type_int16", type_int16},
        {"type_int32", type_int32},
        {"type_int64", type_int64},
        {"type_uint8", type_uint8},
        {"type_uint16", type_uint16},
        {"type_uint32", type_uint32},
        {"type_uint64", type_uint64},
        {"type_float32", type_float32},
        {"type_float64", type_float64},
        {"float_to_int_casts", float_to_int_casts},
        {"bitwise_and_shifts", bitwise_and_shifts},
        {"min_max_abs_absd", min_max_abs_absd},
        {"math_float32", math_float32},
        {"math_float64", math_float64},
        {"select_chains", select_chains},
        {"params_of_many_types", params_of_many_types},
        {"func_with_two_consumers", func_with_two_consumers},
        {"diamond_dag", diamond_dag},
        {"updates_consumed", updates_consumed},
        {"scan_consumed", scan_consumed},
        {"zero_dimensional", zero_dimensional},
        {"zero_dimensional_consumed", zero_dimensional_consumed},
        {"four_dimensional", four_dimensional},
        {"realize_nonzero_mins", realize_nonzero_mins},
        {"impure_identity", impure_identity},
        {"impure_identity_through_h", impure_identity_through_h},
        {"division_by_27_minus_x", division_by_27_minus_x},
        {"division_by_g", division_by_g},
        {"index_through_func", index_through_func},
    };
    return entries;
}

}  // namespace tessera::testing
