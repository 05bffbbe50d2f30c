#pragma once
// The vocabulary of schedules (Halide's names): how a split handles a tail, loop levels
// (where a Func is computed or stored), and loop variables that are Vars or RVars.

#include <memory>
#include <string>

#include "tessera/Expr.h"
#include "tessera/RDom.h"

namespace tessera {

namespace ir {
struct FunctionData;
}

class Func;

/** What a split does when the factor does not divide the extent. */
enum class TailStrategy {
    /** Round the extent up to a multiple of the factor: the last iteration computes
     * points past the end. Fastest; only for Funcs with a single definition, never on an
     * RVar, and on the output only if the output buffer is large enough. */
    RoundUp,
    /** Guard the body with an if: exact, legal everywhere. The guard is peeled off the
     * steady-state loop (loop partitioning). */
    GuardWithIf,
    /** Shift the last iteration inwards so that it ends at the end, recomputing a few
     * points; needs extent >= factor on the output. Only for Funcs with a single
     * definition. */
    ShiftInwards,
    /** As in Halide: ShiftInwards for the pure definition of a Func with a single
     * definition (the output's included, which then needs extent >= factor),
     * GuardWithIf otherwise. */
    Auto,
};

const char *tail_strategy_name(TailStrategy t);

/** How compute_with lines up the fused loops of two stages whose ranges differ (Halide's).
 * Tessera runs each fused loop over the union of the two ranges and guards each stage's
 * body by its own range, whatever is asked: every strategy computes the same points. */
enum class LoopAlignStrategy { AlignStart, AlignEnd, NoAlign, Auto };

/** Where a Func's storage lives (Halide's store_in). Tessera chooses it itself: a small
 * allocation of constant size is an array in a C block (on the stack, its elements in
 * registers where the C compiler can), anything else is on the heap. The CPU kinds are
 * accepted as hints and the choice stays Tessera's; the others are GPU and accelerator
 * memories, a CompileError. */
enum class MemoryType { Auto, Heap, Stack, Register, GPUShared, GPUTexture, LockedCache, VTCM, AMXTile };

/** How Halide's prefetch treats the region past the end (accepted, see Func::prefetch). */
enum class PrefetchBoundStrategy { Clamp, GuardWithIf, NonFaulting };

/** A loop variable named by a Var or an RVar. */
class VarOrRVar {
public:
    VarOrRVar(const Var &v) : name_(v.name()), is_rvar_(false) {}
    VarOrRVar(const RVar &r) : name_(r.name()), is_rvar_(true) {}
    VarOrRVar(const RDom &r) : VarOrRVar(RVar(r)) {}
    VarOrRVar(const std::string &name, bool is_rvar) : name_(name), is_rvar_(is_rvar) {}
    const std::string &name() const { return name_; }
    bool is_rvar() const { return is_rvar_; }

private:
    std::string name_;
    bool is_rvar_;
};

/** A site in the loop nest: the top of the body of the loop over `var` of Func `func`
 * (in its stage `stage_index`, or in whichever stage contains every use when -1), the top
 * level (root), or inlined. Copies share one site, so `set` on one changes all (as in
 * Halide), which lets a library take a LoopLevel its caller fills in later. */
class LoopLevel {
public:
    /** An undefined level (the default schedule). */
    LoopLevel();
    LoopLevel(const Func &f, const VarOrRVar &v, int stage_index = -1);

    static LoopLevel root();
    static LoopLevel inlined();

    void set(const LoopLevel &other);

    bool defined() const;
    bool is_root() const;
    bool is_inlined() const;
    /** The Func and the loop variable (empty for root, inlined and undefined levels). */
    std::string func() const;
    std::string var() const;
    bool is_rvar() const;
    int stage_index() const;
    std::string to_string() const;

    struct Contents;
    const std::shared_ptr<Contents> &contents() const { return contents_; }

private:
    std::shared_ptr<Contents> contents_;
};

}  // namespace tessera
