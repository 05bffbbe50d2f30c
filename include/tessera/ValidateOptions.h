#pragma once
// What the translation validator is asked to prove, and how hard it may try
// (docs/validation.md): the options of tessera::validate (<tessera/Validate.h>) and of
// validation when a pipeline is compiled (Func::validate_on_compile).
//
// This header is part of the core library, so that a Func can carry the options; the
// validator itself is the library Tessera::validator (tessera_validator), which a program
// links and makes available by including <tessera/Validate.h>. The core library never
// depends on it: it calls the validator through a hook that <tessera/Validate.h> installs.

#include <functional>
#include <string>
#include <vector>

#include "tessera/Expr.h"

namespace tessera {

class Func;
struct ValidationReport;

struct ValidateOptions {
    /** Conditions the pipeline may take for granted, besides the checks its own code makes
     * on entry: bool Exprs over its Params and the bounds of its inputs and output, e.g.
     * `n >= 16`, `in.width() % 8 == 0`, `output_extent(f, 0) >= 16` (<tessera/Validate.h>).
     * A verdict then holds for the runs where they hold, and lists them among what it
     * rests on. Contradictory assumptions never give Proved. */
    std::vector<Expr> assumptions;
    /** The polyhedral library's operation limit per step (modelling the loop nest, each
     * check); a step past it answers Unknown. A limit, unlike a timeout, gives the same
     * answer on every machine. */
    unsigned long max_operations = 2'000'000;
    /** Z3's resource limit per query of the value check (deterministic, like the above). */
    unsigned rlimit = 5'000'000;
    /** When compiling: fail on Unknown too, not only on Refuted. */
    bool strict = false;
    /** Debugging lowering: validate the code after each lowering pass from storage
     * flattening on as well, and say which pass first turned the verdict into Refuted.
     * $TESSERA_VALIDATE_PASSES=1 turns this on for every validation. */
    bool after_each_pass = false;
    /** When compiling: called with the report of each validation. Without it, a verdict
     * other than Proved is printed to stderr. */
    std::function<void(const ValidationReport &)> on_report = nullptr;
    /** Called with what the validator is doing as each step starts ("lowering f", "coverage",
     * ...), for a progress display. */
    std::function<void(const std::string &)> on_progress = nullptr;
    /** Validate the code as compiled for a target with the fp_contract feature: its float
     * multiply-adds fused (docs/semantics.md). Compiling for such a target with
     * validate_on_compile sets it. */
    bool contract_floats = false;
    /** The compiled code has the mins, extents and strides of Buffers it reads as constants
     * (checked on entry), put in by lowering's last pass after the code the validator checks:
     * every Buffer read, for the JIT; the embedded ones, ahead of time. The report says that
     * it rests on that substitution. Compiling with validate_on_compile sets it. */
    bool fixed_buffer_shapes = false;
};

namespace detail {
/** Validates the pipeline computing `output` when it is compiled: throws CompileError if
 * the code is refuted (or, with `strict`, not proved). */
using ValidationHook = void (*)(const Func &output, const ValidateOptions &options);
/** Installed by the validator library (<tessera/Validate.h> does it). */
void set_validation_hook(ValidationHook hook);
ValidationHook validation_hook();
}  // namespace detail

}  // namespace tessera
