// Vector code against the reference interpreter: every operator, on every element type,
// computed as SIMD lanes (native GCC/Clang vectors, or lane by lane where the emitter
// falls back) over all pairs of edge-case values (zero, ±1, the type's limits, NaN,
// infinities, signed zeros), bit for bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "ir/IRPrinter.h"
#include "lower/Lower.h"
#include "support/differential.h"

using namespace tessera;
using namespace tessera::testing::differential;

namespace {

std::vector<double> edge_values(Type t) {
    if (t.is_bool()) return {0, 1};
    if (t.is_float())
        return {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-40, 1e30, -1e30, 2147483648.0, -9.3e18,
                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                std::numeric_limits<double>::quiet_NaN(),
                // The bounds of the saturating conversions to each integer type, and the
                // floats beside them.
                127.99, 128.0, -128.5, 255.5, 256.0, 32768.0, -32768.75, 65535.9, 65536.0, 2147483520.0, -2147483904.0,
                4294967040.0, 4294967296.0, 9223372036854775808.0, 18446744073709551616.0};
    std::vector<double> v = {0, 1, 2, 3, 7, 64, 100};
    if (t.is_int())
        for (double x : {-1.0, -2.0, -3.0, -7.0, -100.0}) v.push_back(x);
    const double hi = t.is_int() ? std::ldexp(1.0, t.bits - 1) - 1 : std::ldexp(1.0, t.bits) - 1;
    const double lo = t.is_int() ? -std::ldexp(1.0, t.bits - 1) : 0;
    v.push_back(hi);
    v.push_back(lo);
    if (t.bits < 64) v.push_back(hi - 1);
    return v;
}

/** Two buffers holding all pairs of edge values of type t, at x = i * n + j. */
void pair_buffers(Type t, Buffer<> &a, Buffer<> &b, int &count) {
    std::vector<double> v = edge_values(t);
    const int n = int(v.size());
    // Every pair, repeated to fill at least 16 elements, so that every vector width runs
    // whole vectors (the schedules below split the output with the default ShiftInwards).
    count = std::max(n * n, 16);
    a = Buffer<>(t, {count}, "a_" + t.to_string());
    b = Buffer<>(t, {count}, "b_" + t.to_string());
    for (int k = 0; k < count; k++) {
        const int i = (k % (n * n)) / n, j = k % n;
        for (auto [buf, val] : {std::pair{&a, v[size_t(i)]}, std::pair{&b, v[size_t(j)]}}) {
            uint8_t *p = buf->data_handle()->host + size_t(k) * size_t(t.bytes());
            if (t.is_float() && t.bits == 32) {
                float f = float(val);
                std::memcpy(p, &f, 4);
            } else if (t.is_float()) {
                std::memcpy(p, &val, 8);
            } else if (t.is_int()) {
                int64_t x = val < -9.2e18 ? INT64_MIN : val > 9.2e18 ? INT64_MAX : int64_t(val);
                std::memcpy(p, &x, size_t(t.bytes()));
            } else {
                uint64_t x = val > 1.8e19 ? UINT64_MAX : uint64_t(val);
                std::memcpy(p, &x, size_t(t.bytes()));
            }
        }
    }
}

}  // namespace

TEST(VectorOps, EveryOperatorOnEveryTypeAsLanes) {
    const std::vector<Type> types = {Bool(),    Int(8),    Int(16),   Int(32),   Int(64),  UInt(8),
                                     UInt(16),  UInt(32),  UInt(64),  Float(32), Float(64)};
    int checked = 0;
    for (Type t : types) {
        Buffer<> ba, bb;
        int count = 0;
        pair_buffers(t, ba, bb, count);
        Var x("x");
        Expr a = ba(x), b = bb(x);
        std::vector<std::pair<std::string, Expr>> ops;
        if (!t.is_bool()) {
            ops = {{"+", a + b}, {"-", a - b}, {"*", a * b}, {"/", a / b}, {"%", a % b}, {"min", min(a, b)},
                   {"max", max(a, b)}, {"abs", cast(t, abs(a))}, {"absd", cast(t, absd(a, b))},
                   {"/3", a / cast(t, 3)}, {"%3", a % cast(t, 3)}, {"/4", a / cast(t, 4)}, {"%4", a % cast(t, 4)},
                   {"/7", a / cast(t, 7)}};
        }
        ops.push_back({"select", select(a == b, a, b)});
        ops.push_back({"<", a < b});
        ops.push_back({"==", a == b});
        ops.push_back({">=", a >= b});
        ops.push_back({"!=", a != b});
        if (t.is_bool()) {
            ops.push_back({"&&", a && b});
            ops.push_back({"||", a || b});
            ops.push_back({"!", !a});
        }
        if (t.is_integer()) {
            ops.push_back({"&", a & b});
            ops.push_back({"|", a | b});
            ops.push_back({"^", a ^ b});
            ops.push_back({"~", ~a});
            ops.push_back({"popcount", popcount(a)});
            ops.push_back({"count_leading_zeros", count_leading_zeros(a)});
            ops.push_back({"count_trailing_zeros", count_trailing_zeros(a)});
            ops.push_back({"<<", a << cast(t, 3)});
            ops.push_back({">>", a >> b});
        }
        if (t.is_float()) {
            ops.push_back({"sqrt", sqrt(a)});
            ops.push_back({"floor", floor(a)});
        }
        for (Type to : types) {
            if (to == t) continue;
            ops.push_back({"cast to " + to.to_string(), cast(to, a)});
        }
        // One pipeline per type and width: row k of f holds the bits of operator k, so
        // every operator runs as lanes (select evaluates all of them) in one compilation.
        Var k("k");
        Expr rows;
        for (int op = int(ops.size()) - 1; op >= 0; op--) {
            const Expr &v = ops[size_t(op)].second;
            const Type vt = v.type();
            Expr bits = vt.is_bool() ? cast(UInt(64), v)
                        : vt.is_uint() ? cast(UInt(64), v)
                                       : cast(UInt(64), reinterpret(UInt(vt.bits), v));
            rows = rows.defined() ? select(k == op, bits, rows) : bits;
        }
        for (int lanes : {4, 8, 16}) {
            Func f("ops_" + std::to_string(lanes));
            f(x, k) = rows;
            f.vectorize(x, lanes);
            std::string names;
            for (const auto &o : ops) names += o.first + "; ";
            EXPECT_EQ(differential_check(f, {0, 0}, {count, int(ops.size())}, false), "")
                << t.to_string() << ", " << lanes << " lanes; rows: " << names;
            checked += int(ops.size());
        }
    }
    EXPECT_GT(checked, 300);
}

TEST(VectorOps, LibraryMathOnConstantsIsTheLibrarysResult) {
    // sinh(2.5f) from the C library is 0x40c19b47; the correctly rounded value, which a C
    // compiler folding the call would produce, is 0x40c19b46. Compiled code calls the
    // library, as the reference interpreter does, once per pipeline call (hoisted).
    Var x("x");
    Func f("library_math");
    f(x) = sinh(Expr(2.5f)) + exp(Expr(-0.2222222f)) * cast<float>(x) + pow(Expr(1.1f), Expr(7.3f));
    f.vectorize(x, 8);
    EXPECT_EQ(differential_check(f, {0}, {16}, false), "");
    const std::string stmt = ir::to_string(lower::lower(f.data()).body);
    EXPECT_NE(stmt.find("let tessera.constant.0 = sinh(2.5f)"), std::string::npos) << stmt;
}
