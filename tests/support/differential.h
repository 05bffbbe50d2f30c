#pragma once
// Differential checking of a pipeline against the reference interpreter (the definition of
// meaning), shared by the differential, schedule and fuzz tests:
//   * realize_window / compare_window: compiled code against realize_reference, bit for
//     bit on the window (any NaN equals any NaN, docs/semantics.md §3);
//   * prophecy_check: the lowered code run by the IR interpreter with the dynamic prophecy
//     check (every store writes the reference value of its provenance annotation, no
//     poison reaches the window), parallel loops run last to first.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include <tessera/tessera.h>

#include "lower/Lower.h"
#include "semantics/IRInterpreter.h"

namespace tessera::testing::differential {

/** The outcome of one realization: a buffer, or the kind and message of the error. */
struct Outcome {
    Buffer<> result;
    std::string error_kind;  // empty on success
    std::string message;
    bool ok() const { return error_kind.empty(); }
    std::string describe() const { return ok() ? "success" : error_kind + ": " + message; }
};

enum class Path { Compiled, Reference };

/** Realizes `f` over the window into a fresh buffer with the window's mins (or, with
 * `by_sizes`, through realize(sizes), which needs all-zero mins). */
inline Outcome realize_window(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents, Path path,
                       bool by_sizes = false) {
    Outcome out;
    try {
        if (by_sizes) {
            out.result = path == Path::Compiled ? f.realize(extents) : f.realize_reference(extents);
        } else {
            Buffer<> dst(f.type(), extents, f.name() + (path == Path::Compiled ? "_compiled" : "_reference"));
            dst.set_min(mins);
            if (path == Path::Compiled) f.realize(dst);
            else f.realize_reference(dst);
            out.result = dst;
        }
    } catch (const CompileError &e) {
        out.error_kind = "CompileError";
        out.message = e.what();
    } catch (const RuntimeError &e) {
        out.error_kind = "RuntimeError";
        out.message = e.what();
    } catch (const InternalError &e) {
        out.error_kind = "InternalError";
        out.message = e.what();
    } catch (const std::exception &e) {
        out.error_kind = "std::exception";
        out.message = e.what();
    }
    return out;
}

inline const uint8_t *element_address(const Buffer<> &b, const std::vector<int> &coords) {
    std::vector<int32_t> c(coords.begin(), coords.end());
    const ir::BufferData &d = *b.data_handle();
    return d.host + d.checked_offset(c.data(), int(c.size())) * d.type.bytes();
}

inline uint64_t element_bits(const Buffer<> &b, const std::vector<int> &coords) {
    uint64_t bits = 0;
    std::memcpy(&bits, element_address(b, coords), size_t(b.type().bytes()));  // little-endian hosts
    return bits;
}

inline bool is_nan_bits(Type t, uint64_t bits) {
    if (!t.is_float()) return false;
    if (t.bits == 32) {
        float f;
        uint32_t u = uint32_t(bits);
        std::memcpy(&f, &u, 4);
        return std::isnan(f);
    }
    double d;
    std::memcpy(&d, &bits, 8);
    return std::isnan(d);
}

inline std::string element_text(Type t, uint64_t bits) {
    std::ostringstream os;
    if (t.is_float() && t.bits == 32) {
        float f;
        uint32_t u = uint32_t(bits);
        std::memcpy(&f, &u, 4);
        os << std::setprecision(9) << f << " (0x" << std::hex << u << ")";
    } else if (t.is_float()) {
        double d;
        std::memcpy(&d, &bits, 8);
        os << std::setprecision(17) << d << " (0x" << std::hex << bits << ")";
    } else if (t.is_int()) {
        int shift = 64 - t.bits;
        os << (int64_t(bits << shift) >> shift);
    } else {
        os << bits;
    }
    return os.str();
}

inline std::string coords_text(const std::vector<int> &c) {
    std::string s = "(";
    for (size_t i = 0; i < c.size(); i++) s += (i ? ", " : "") + std::to_string(c[i]);
    return s + ")";
}

/** Compares the window of two results bit for bit (any NaN equals any NaN). Returns an
 * empty string if they agree, else a description of the first mismatches. */
inline std::string compare_window(const Buffer<> &compiled, const Buffer<> &reference, const std::vector<int> &mins,
                           const std::vector<int> &extents) {
    std::ostringstream os;
    if (compiled.type() != reference.type())
        return "compiled result has type " + compiled.type().to_string() + ", the reference " +
               reference.type().to_string();
    if (compiled.dimensions() != reference.dimensions())
        return "compiled result has " + std::to_string(compiled.dimensions()) + " dimensions, the reference " +
               std::to_string(reference.dimensions());
    Buffer<> window(reference.type(), extents, "window");
    window.set_min(mins);
    const Type t = reference.type();
    int64_t mismatches = 0;
    window.for_each_element([&](const std::vector<int> &c) {
        if (!compiled.contains(c)) {
            if (mismatches++ < 8) os << "  at " << coords_text(c) << ": outside the compiled result\n";
            return;
        }
        uint64_t a = element_bits(compiled, c), b = element_bits(reference, c);
        if (a == b || (is_nan_bits(t, a) && is_nan_bits(t, b))) return;
        if (mismatches++ < 8)
            os << "  at " << coords_text(c) << ": compiled " << element_text(t, a) << ", reference "
               << element_text(t, b) << "\n";
    });
    if (mismatches == 0) return "";
    return std::to_string(mismatches) + " of " + std::to_string(window.number_of_elements()) +
           " window points differ (type " + t.to_string() + "):\n" + os.str();
}

/** Runs the differential check of one pipeline. Returns "" on agreement, else the
 * failure. The reference must succeed: every pipeline given here is valid and error-free. */
inline std::string differential_check(const Func &output, const std::vector<int> &mins, const std::vector<int> &extents,
                               bool also_by_sizes) {
    Outcome reference = realize_window(output, mins, extents, Path::Reference);
    if (!reference.ok()) return "the reference interpreter failed: " + reference.describe();
    Outcome compiled = realize_window(output, mins, extents, Path::Compiled);
    if (!compiled.ok()) return "compiled code failed where the reference succeeded: " + compiled.describe();
    std::string diff = compare_window(compiled.result, reference.result, mins, extents);
    if (!diff.empty()) return "realize(Buffer) differs from the reference: " + diff;
    if (also_by_sizes) {
        Outcome sized = realize_window(output, mins, extents, Path::Compiled, true);
        if (!sized.ok()) return "realize(sizes) failed where the reference succeeded: " + sized.describe();
        diff = compare_window(sized.result, reference.result, mins, extents);
        if (!diff.empty()) return "realize(sizes) differs from the reference: " + diff;
    }
    return "";
}

/** Lowers `f` and runs it in the IR interpreter with the prophecy check on, over the
 * window. Returns "" if every check passed, "skipped" if the run exceeded `max_stores`
 * stores (0: no limit), else the failure. */
inline std::string prophecy_check(const Func &f, const std::vector<int> &mins, const std::vector<int> &extents,
                                  int64_t max_stores = 0) {
    Buffer<> expected(f.type(), extents);
    expected.set_min(mins);
    f.realize_reference(expected);
    Buffer<> actual(f.type(), extents);
    actual.set_min(mins);
    semantics::RunOptions options;
    options.prophecy = true;
    // Parallel loops last to first: compiled code runs them roughly first to last, so a
    // result that depends on the order shows here or in the differential check.
    options.reverse_parallel = true;
    semantics::RunStats stats;
    options.stats = &stats;
    options.max_stores = max_stores;
    try {
        auto lowered = lower::lower(f.data());
        semantics::run(lowered, semantics::default_arguments(lowered, actual.data_handle()), options);
    } catch (const semantics::WorkLimitExceeded &) {
        return "skipped";
    } catch (const std::exception &e) {
        return std::string("exception: ") + e.what();
    }
    std::string diff = compare_window(actual, expected, mins, extents);
    if (!diff.empty()) return "the IR interpreter's window differs from the reference: " + diff;
    if (stats.stores > 0 && stats.prophecy.checked + stats.prophecy.final_checked == 0)
        return "the prophecy check compared no store";
    return "";
}

}  // namespace tessera::testing::differential
