#pragma once
// The dynamic prophecy check (docs/architecture.md, "Identity in lowered code"): while the IR
// interpreter runs a lowered pipeline, every store that carries a provenance annotation
// (Func f, definition k, coordinates c, RDom variable values r) is checked against the
// reference semantics, i.e. the value F_k(c) that f has after its definition k at c
// (k = 0: the pure definition; k = j + 1: after update j), computed by ReferenceOracle on
// exactly the arguments the pipeline runs with.
//
// What is checked, per stored element (per lane of a vector store):
//
// 1. The annotation is well formed: f is the output or a Func it depends on, k
//    names one of f's definitions, c has one coordinate per dimension of f, and every
//    coordinate fits in int32. Otherwise: InternalError. (The interpreter has already
//    required that c and r are not poisoned: they are computed from valid data.)
// 2. A POISONED stored value is never compared: stores at points outside the region a
//    Func must compute may hold over-computed garbage derived from poisoned storage.
//    Whether poison reaches the output window is checked separately by the interpreter.
// 3. Stores of a pure definition (k = 0) and of an update WITHOUT an RDom are compared when
//    they execute: the stored value must be identical (ir::identical: bitwise for
//    floats) to F_k(c). Such a definition writes each point once, with its final value.
// 4. Other stores of an update WITH an RDom are the values after ONE iteration; only the last
//    write to a point is F_k(c). They are recorded per storage buffer as point -> last
//    (value, annotation). The record of a buffer is compared with the reference, each
//    point's last value against F_k(c), and then cleared, when
//      - a store to the same buffer with a different (Func, definition) annotation runs
//        (the update's loop nest is over: a later definition, or the next computation of
//        the Func, has started), or
//      - the buffer's allocation ends, or
//      - the run ends (the output buffer and anything still recorded).
//    A later run of the same update's loop nest before any of these events simply
//    overwrites records with its own (equally final) values.
// 5. If the reference semantics itself fails at a point (a RuntimeError: an input read
//    out of bounds in the closure of F_k(c), which happens for over-computed points), the
//    store is counted as "unknown", not a mismatch.
// 6. If the reference semantics fails at start-up (a parameter out of its range, a
//    negative RDom extent) every store is "unknown", and a run that then completes
//    without an assertion failure is an InternalError: the lowered code misses a start-up
//    check that docs/semantics.md §9 and §11 require.
//
// A mismatch is an InternalError naming the buffer, the index, the Func, the definition,
// the coordinates (and the RDom variable values), the stored and the expected values.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/LoweredPipeline.h"
#include "semantics/ReferenceInterpreter.h"
#include "ir/Scalar.h"

namespace tessera::semantics {

using ir::Scalar;

/** A value as the interpreter's messages print it: integers in decimal, bools as
 * true/false, floats with enough digits to round-trip (float32 with an "f" suffix). */
std::string scalar_to_string(Type t, Scalar v);

/** Words that the report of a mismatch (rule 3 or 4) has and no other report of the
 * check has: how a caller tells a store of a wrong value from a malformed annotation. */
inline const char *const kProphecyMismatch = "in the reference semantics";

struct ProphecyStats {
    int64_t checked = 0;        // stores compared with the reference when executed (rule 3)
    int64_t final_checked = 0;  // last stores of RDom updates compared afterwards (rule 4)
    int64_t poisoned = 0;       // annotated stores of a poisoned value, not compared (rule 2)
    int64_t unknown = 0;        // the reference failed there (rules 5 and 6)
    int64_t unannotated = 0;    // stores without an annotation (when the run allows them)
};

class ProphecyChecker {
public:
    /** `bindings` holds the run's argument values (Params, ImageParams, Buffers) for the
     * reference semantics. */
    ProphecyChecker(const ir::LoweredPipeline &p, const ReferenceBindings &bindings);
    ~ProphecyChecker();
    ProphecyChecker(const ProphecyChecker &) = delete;
    ProphecyChecker &operator=(const ProphecyChecker &) = delete;

    /** One element stored to `buffer` at `index`, annotated with `prov`: `coords` holds
     * prov.coords.size() evaluated coordinates and `rvars` prov.rvars.size() evaluated
     * RDom variable values (this lane's). `type` is the stored element type; when it
     * differs from the Func's type (e.g. bool stored as uint8), the reference value is
     * converted to it (cast) before comparing. */
    void store(const std::string &buffer, int64_t index, const ir::Provenance &prov, Type type, Scalar value,
               bool poisoned, const int64_t *coords, const int64_t *rvars);
    /** A store without an annotation (counted). */
    void unannotated_store() { stats_.unannotated++; }
    /** The allocation `buffer` ends: check what is recorded for it (rule 4). */
    void release(const std::string &buffer);
    /** The run completed: check everything still recorded (rule 4) and rule 6. */
    void finish();

    const ProphecyStats &stats() const { return stats_; }

private:
    struct Resolved {
        const ir::FunctionData *func = nullptr;
        bool deferred = false;  // an update with an RDom (rule 4)
    };
    struct Entry {
        Type type;
        Scalar value{};
        bool poisoned = false;
        int64_t index = 0;
        const ir::Provenance *prov = nullptr;
        std::vector<int64_t> rvars;
    };
    struct Pending {
        const ir::FunctionData *func = nullptr;
        int stage = 0;
        std::map<std::vector<int32_t>, Entry> points;
    };

    const Resolved &resolve(const ir::Provenance &prov);
    void flush(const std::string &buffer, Pending &pending);
    void compare(const std::string &buffer, int64_t index, const ir::Provenance &prov, const ir::FunctionData *f,
                 const int32_t *coords, Type type, Scalar value, const int64_t *rvars, bool final_value);

    std::string pipeline_;
    std::unordered_set<const ir::FunctionData *> funcs_;
    std::unordered_map<const ir::Provenance *, Resolved> resolved_;
    std::unique_ptr<ReferenceOracle> oracle_;
    std::string oracle_error_;  // the reference's start-up RuntimeError, if any (rule 6)
    std::unordered_map<std::string, Pending> pending_;
    ProphecyStats stats_;
};

}  // namespace tessera::semantics
