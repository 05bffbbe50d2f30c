#pragma once
// The translation validator (docs/validation.md): a proof that a pipeline's compiled code
// computes exactly what its algorithm defines on the output window, for every run that its
// entry checks and the user's assumptions allow, or a counterexample.
//
//     #include <tessera/Validate.h>          // and link Tessera::validator
//
//     ValidationReport r = validate(f, {.assumptions = {n >= 16}});
//     if (r.verdict != Verdict::Proved) std::cerr << r.to_string();
//
//     f.validate_on_compile();               // every compilation of f is validated too
//     f.compile_jit();                       // CompileError if the code is refuted
//
// This header is not part of the umbrella header <tessera/tessera.h>: it belongs to the
// validator library, which needs isl and Z3, and including it is what makes
// Func::validate_on_compile find the validator.

#include "tessera/Atl.h"
#include "tessera/Func.h"
#include "tessera/Program.h"
#include "tessera/ValidateOptions.h"
#include "tessera/ValidationReport.h"

namespace tessera {

/** Lowers the pipeline computing `output` as compiling it would (the schedule's errors are
 * the same CompileErrors) and checks the lowered code against the algorithm. A mistake in
 * the options (an assumption that is not a condition, or that names something other than
 * the pipeline's Params and the bounds of its inputs and output) is a CompileError. */
ValidationReport validate(const Func &output, const ValidateOptions &options = {});
/** The same, against a separate specification (docs/validation.md, "Against a
 * specification"): the code compiled for `output` is checked against what `specification`
 * defines. `specification` stands for `output`, and each other Func the code computes for
 * the specification's Func of the same name (same type, dimensions, definitions and RVars
 * per definition); it reads the pipeline's own ImageParams, Buffers and Params. A
 * mistake of `output`'s algorithm is then refuted like a mistake of the compiler. A
 * specification that does not match in this way is a CompileError naming the Funcs. */
ValidationReport validate(const Func &output, const Func &specification, const ValidateOptions &options = {});
/** The same for a pipeline read from a .tsr file; the report carries its name. */
ValidationReport validate(const Program &pipeline, const ValidateOptions &options = {});

/** An ATL program (docs/atl.md, "Validation"): the check "atl lowering" proves that the
 * Funcs lowering by reindexers made store each scalar leaf's value into exactly the cells
 * ATL's meaning takes from that leaf; the usual checks then prove the compiled code against
 * those Funcs. Together: the code computes the program's meaning. */
ValidationReport validate(const atl::Program &program, const ValidateOptions &options = {});
/** A program derived by rewrites: the check "atl rewrites" proves that the derived
 * program means what the original does (each derived leaf computes an original leaf at
 * the iterations its recorded substitution names, one to one), then the derived program
 * is validated as above. */
ValidationReport validate(const atl::Derivation &derivation, const ValidateOptions &options = {});

/** The min and extent of dimension `dim` of the output of the pipeline computing `output`
 * (the window realize or the compiled function computes), for assumptions:
 * `output_extent(f, 0) % 8 == 0`. */
Expr output_min(const Func &output, int dim);
Expr output_extent(const Func &output, int dim);

namespace detail {
/** Func::validate_on_compile's validation: validate, report, and throw CompileError on a
 * refutation (or, in strict mode, on Unknown). */
void validate_when_compiled(const Func &output, const ValidateOptions &options);
/** Including this header installs the validator for Func::validate_on_compile: the
 * initializer runs when the program starts, and referring to validate_when_compiled is what
 * links the validator's objects from its library. */
inline const bool validator_installed = (set_validation_hook(&validate_when_compiled), true);
}  // namespace detail

}  // namespace tessera
