#pragma once
// The C emitter's internals (the interface is src/codegen/CodeGenC.h). The emitter prints:
// every transformation of the code is an IR pass before it (src/lower/), and what the C
// computes is what the lowered IR says, operation by operation. Its parts:
//
//   CodeGenC.cpp      the file and the function's interface: arguments, entry checks,
//                     the JIT's two parts, the header
//   CNames.cpp        C identifiers for IR names, and literals
//   CExpressions.cpp  scalar expressions, lane by lane
//   CVectors.cpp      native vector expressions (GCC/Clang vector extensions)
//   CGatherIndices.cpp which vector lets the indices of gathers use lane by lane
//   CStatements.cpp   statements, C blocks, temporaries and error exits
//   COutlining.cpp    parallel loops' iterations and large loops as functions of their own

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/CodeGenC.h"
#include "codegen/Runtime.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"

namespace tessera::codegen {

using namespace tessera::ir;

/** Allocations of constant size up to this many bytes are arrays in a C block (on the
 * stack, as in Halide); larger or variable-size ones are malloc'd. OpenMP's worker threads
 * have stacks of a few MiB. */
inline constexpr int64_t kStackAllocationBytes = 16 * 1024;
/** The elements of an allocation emitted as a C array in a block (constant extents, at
 * most kStackAllocationBytes), or -1 for a heap allocation. */
int64_t stack_array_elements(const ir::Allocate *a);

/** A loop inside a parallel loop's iteration with at least this many loads and stores is
 * a function of its own (see COutlining.cpp) ... */
inline constexpr int kOutlinedLoopAccesses = 4;

/** ... unless it and the loops inside it run a constant number of iterations in all, up
 * to this many: a call per execution, with its closure, would cost more than such a
 * nest's work (bilateral_grid's 8 x 8 block of pixels splatted per grid cell was a call
 * per row of 8 pixels); the loop around it is considered instead. */
inline constexpr int64_t kOutlinedNestMinIterations = 64;

/** ... but only in a parallel loop whose body has at least this many: a smaller body
 * compiles quickly in one piece, and a call per execution of its inner loops would cost
 * more run time than the split saves (bench/README.md). */
inline constexpr int kSplitParallelBodyAccesses = 32;

/** Innermost loops with at most this many loads and stores are unrolled this many times by
 * the C compiler (#pragma GCC unroll). */
inline constexpr int kUnrollSmallLoopAccesses = 8;
inline constexpr int kUnrollSmallLoops = 4;

/** A loop whose nest runs a constant number of iterations, at most this many (a 3x3
 * reduction window), is unrolled completely (`#pragma GCC unroll`): gcc weighs a window's
 * body by its C, and a vector fused multiply-add, written as one call per lane, weighs a
 * call per lane, so a 3x3 sum of them stayed a loop of six. (16, which also unrolled
 * depthwise-separable conv's 8 x 2 tile loops, measured no better there.) */
inline constexpr int kFullUnrollIterations = 9;

/** Before a function that reads and writes no memory itself (the pipeline's function, or
 * a parallel loop's iteration, whose loops are all outlined): it checks arguments,
 * computes coordinates and calls the functions that do the work, once per call or per
 * tile. GCC's -O3 spends more time on such code than on the loops it calls, for no gain
 * (bench/README.md); -O1 is enough. */
inline constexpr const char *kControlOnly = "#if defined(__GNUC__) && !defined(__clang__)\n"
                                            "__attribute__((optimize(\"O1\")))\n"
                                            "#endif\n";

// ---------------------------------------------------------------------------------------
// Names and literals (CNames.cpp)

std::string c_string_literal(const std::string &s);
/** Text that may stand inside a C comment. */
std::string comment_text(const std::string &s);
std::string int_literal(Type t, int64_t v);
std::string uint_literal(Type t, uint64_t v);
std::string float_literal(Type t, double v);
/** Whether s is a plain C identifier (usable where an lvalue is needed). */
bool is_lvalue_name(const std::string &s);
bool starts_with(const std::string &s, const std::string &prefix);

// ---------------------------------------------------------------------------------------
// The emitter

using Lanes = std::vector<std::string>;

/** The index as a ramp of stride 1 (a dense vector access: one memcpy), or null (a
 * strided or gathered access: lane by lane). */
const Ramp *dense_ramp(const Expr &index);

/** The integer vector lets used only in the indices of gathered loads and scattered
 * stores (directly or through other such lets): computed lane by lane
 * (src/codegen/CGatherIndices.cpp). */
std::set<std::string> gather_index_lets(const Stmt &s);

struct VarBinding {
    std::string ident;  // a native vector, or a C array of `type.lanes` elements
    Type type;
    bool native = false;
    /** A pure loop's int32 variable's 64-bit counter, in scope where the variable is: the
     * same integer, since a coordinate never leaves the int32 range (docs/semantics.md
     * §11). Empty otherwise. */
    std::string counter = {};
};

struct BufBinding {
    std::string ident;
    Type type;  // element type
    bool writable;
    bool on_stack = false;  // a C array (a small allocation of constant size)
    // A heap allocation of the C function being emitted (not one a closure passes in),
    // whose pointer its Free may release and clear.
    bool owned = false;
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

    std::string signature() const;

    std::string argument_comment() const;

    std::string argv_wrapper() const;

    const std::string &function_name() const { return fn_; }

    /** File-scope definitions of a Buffer compiled into the code: its elements, densely
     * (dimension 0 innermost) as literals of the element type, its dimensions and its
     * descriptor `descriptor`. */
    std::string embedded_buffer(const ir::PipelineArgument &a, const std::string &descriptor);

    std::string source();

    std::string header() const;

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
    // The vector helper functions, by name, printed after the typedefs: the element-wise
    // conversions convert_vector uses and the fused multiply-adds (fused_multiply_add).
    std::map<std::string, std::string> vector_helpers_;

    std::ostringstream body_;
    // The outlined functions: parallel loops' iterations and the large loops inside them.
    struct Outlined {
        std::string type, definition, prototype;
    };
    std::vector<Outlined> outlined_;
    int in_parallel_function_ = 0, in_outlined_loop_ = 0;
    // The lets computed lane by lane (gather_index_lets), and whether an index of a
    // gather is being emitted (its integer vectors lane by lane too).
    std::set<std::string> lane_lets_;
    int in_gather_index_ = 0;
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

    std::string issue(const std::string &base);

    std::string name_var(const std::string &ir_name);

    std::string name_buffer(const std::string &ir_name);

    bool visible(const std::string &id) const;

    // An identifier for a new binding of `ir_name` in the current C block: its canonical
    // identifier unless that is visible here (C would see the outer one, or reject a
    // redeclaration), else a fresh one.
    std::string declare(const std::string &canonical);

    std::string declare_var(const std::string &ir_name, Type t);

    // --- output ------------------------------------------------------------------------

    void line(const std::string &s);
    /** Text written as it is (preprocessor lines). */
    void raw(const std::string &s);
    void write_line(int indent, const std::string &s);

    /** The declaration of the last temporary is held back until the next line, so that a
     * let whose value it is declares the let's identifier instead of copying the
     * temporary (declare_pending_as). Nothing can have used the temporary yet. */
    struct PendingTemp {
        bool active = false;
        std::string type, id, rhs, comment;
        int indent = 0;
    };
    PendingTemp pending_;
    void flush_temp();
    std::string hold_temp(const std::string &type, const std::string &rhs);
    /** If `value` is the temporary just computed, declares it as `id` instead. */
    bool declare_pending_as(const std::string &value, const std::string &id, const std::string &comment);

    void open_block(const std::string &head);

    void close_block(const std::string &tail = "}");

    /** A C block: the identifiers declared in it. */
    void enter_scope() { scopes_.emplace_back(); }
    void leave_scope() { scopes_.pop_back(); }

    std::string temp(Type t, const std::string &rhs) { return hold_temp(c_type_name(t), rhs); }

    std::string lvalue(Type t, const std::string &x) { return is_lvalue_name(x) ? x : temp(t, x); }

    void fail_to(const std::string &code, const std::string &message_var_or_literal);

    /** Ends the pipeline (or, inside a parallel loop, the iteration) with the error code
     * that `report` (a C call that reports the error) returns. */
    void fail_with(const std::string &report);

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
    void fail_with_message(const std::string &code, const ErrorMessage &m);

    static std::string type_code_macro(Type t);

    // --- expressions -------------------------------------------------------------------

    std::string scalar(const Expr &e);

    Lanes emit(const Expr &e);
    /** print_when's lines (one per lane whose condition holds), then its value. */
    Lanes emit_print(const Call *c);

    Lanes per_lane(Type t, const std::function<std::string(int)> &rhs);

    static std::string lane(const Lanes &l, int i) { return l.size() == 1 ? l[0] : l[i]; }

    std::string cast_rhs(Type to, Type from, const std::string &x);

    // a op b in the type t, wrapping: computed in uint32_t or uint64_t (no promotion to a
    // signed int) and converted back.
    std::string wrap_rhs(Type t, const char *op, const std::string &a, const std::string &b);

    std::string binary_rhs(ExprKind k, Type t, const std::string &a, const std::string &b);

    Lanes emit_binary(ExprKind k, Type t, const Expr &a, const Expr &b);

    static std::string math_name(Intrinsic op, Type t);

    Lanes emit_call(const Call *c);

    Lanes emit_lanes(const Expr &e);

    // Declares a C variable (an array for a vector) holding `value`, bound to `name`.
    void bind_value(const std::string &name, const Expr &value);

    static std::string name_comment(const std::string &ir_name, const std::string &id);

    const BufBinding &buffer(const std::string &name);

    void check_element_type(const std::string &name, const BufBinding &b, Type t);

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

    std::string vtype(Type t);

    /** The signed or unsigned integer vector type with t's lane width and count. */
    std::string vint(Type t, bool is_signed);

    std::string splat(Type t, const std::string &x);

    std::string vtemp(Type t, const std::string &rhs) { return hold_temp(vtype(t), rhs); }

    std::string vec(const Expr &e) { return vector_of(e); }

    /** Packs per-lane scalars into a vector (bool lanes 0/1 become mask lanes 0/-1). */
    std::string pack(Type t, const Lanes &l);

    /** The constant value of a Broadcast of an integer constant. */
    static bool broadcast_const(const Expr &e, int64_t &c);

    /** The vector x, of lanes `from`, converted lane by lane to `to` as C converts (no
     * saturation). gcc 12 compiles __builtin_convertvector between integer widths as
     * halves, or lane by lane (16 uint16 lanes to uint32: load, two widenings, an extract
     * and an insert; 16 int32 lanes to int8: 63 instructions), but a vector built from
     * its converted elements as the one instruction (vpmovzxwd with its load, vpmovdb).
     * Integer width changes therefore go through a helper that builds the vector from its
     * elements; an integer converted to a wider float is first widened to the float's
     * width. */
    std::string convert_vector(Type to, const std::string &x, Type from);

    /** The helper that computes a * b + c with one rounding, lane by lane, for vectors
     * of type t (declared with the conversion helpers). */
    std::string fused_multiply_add(Type t);

    /** A comparison result (an integer vector of the operands' width) as a mask. */
    std::string to_mask(Type t, const std::string &cmp, Type operand);

    /** A mask widened to the lanes of type t (all bits set or clear). */
    std::string mask_as(Type t, const std::string &mask);

    std::string blend(Type t, const std::string &mask_wide, const std::string &a, const std::string &b);

    std::string vector_of(const Expr &e);
    /** The float vector v converted to the integer vector type t, saturating as the
     * scalar conversion does. */
    std::string saturating_vector(const Expr &v, Type t);
    /** The float vector x (of type ft), whose lanes truncate into the integer type t,
     * converted to t. */
    std::string truncating_vector(const std::string &x, Type ft, Type t);

    static std::string int_or_uint_literal(Type t, int64_t c);

    // --- statements --------------------------------------------------------------------

    void emit_stmt(const Stmt &s);

    void emit_assert(const AssertStmt *a);

    void emit_for(const For *f, const Stmt &self);

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
    bool captures_of(const Stmt &s, const std::string &skip, std::vector<Capture> &captures);

    /** Declares the closure struct of an outlined function `fn` (with `extra` fields first)
     * and its value here, from the captured identifiers; returns the value's identifier. */
    std::string closure_here(const std::string &fn, const std::vector<Capture> &captures,
                             const std::vector<std::pair<std::string, std::string>> &extra, std::string &type);

    /** Emits the body of an outlined function apart, with none of the enclosing C blocks'
     * identifiers or values: only the captured ones, rebound from the closure `ci` of type
     * `closure`. `emit` emits its statements; errors end the function with their code. */
    std::string outlined_body(const std::string &closure, const std::string &ci, const std::vector<Capture> &captures,
                              const std::function<void()> &emit, bool &control_only);

    /** The outermost parallel loop as a function of its iteration. False (nothing emitted)
     * if a value it uses cannot be captured. */
    bool emit_outlined_parallel_loop(const For *f, const std::string &mn, const std::string &ex);

    /** A statement (a large loop, or a small array and the block that uses it) inside the
     * parallel loop's function, as a function of its own, so that the C compiler's work is
     * split more evenly between the translation units. */
    bool emit_outlined_statement(const Stmt &loop, const std::string &what);

    /** The steady state of an innermost loop with a small body: GCC is asked to unroll it
     * (as LLVM does by itself, for Halide and under Clang), so that the loop's own instructions
     * (counter, compare, branch) are spread over several iterations' work. The pieces that
     * loop partitioning left around a steady state (tails, boundaries: they keep the guards
     * and the clamped or shifted coordinates) run a few iterations and are left alone, as
     * are loops of a few iterations. */
    static bool worth_unrolling(const For *f);
    /** The loop's extent if its nest is to be unrolled completely, else 0. */
    static int full_unroll_count(const For *f);

    /** Whether a statement here may become a function of its own: inside the function of
     * a large parallel loop's iteration, not already in an outlined statement. */
    bool may_outline_here() const { return in_parallel_function_ > 0 && in_outlined_loop_ == 0 && split_parallel_body_; }

    /** A loop with kOutlinedLoopAccesses loads and stores or more, whose inner loops of
     * as many have none inside them: the loops around the innermost large loops are
     * outlined (or those loops, where nothing large is around them), so that the work of
     * compiling them divides between the translation units. */
    bool worth_outlining(const Stmt &loop);

    void emit_store(const Store *st);
    /** A store of an atomic update: one compare-and-swap loop over the point it writes. */
    void emit_atomic_store(const Store *st, const BufBinding &b, const std::string &prov);

    void emit_allocate(const Allocate *a, const Stmt &self);
    void emit_free(const Free *f);
};

}  // namespace tessera::codegen
