#pragma once
// Validation against a separate specification (docs/validation.md, "Against a
// specification"): the code compiled from one algorithm, checked against what another
// algorithm defines.
//
// Every store of lowered code names the value it writes: an iteration of a definition of a
// Func (its provenance). The validator reads that name in the algorithm the provenance
// points to. Checking the code against a specification is reading the same names in the
// specification instead: the pipeline's output stands for the specification's output, and
// every other Func the code computes for the specification's Func of the same name. The
// checks then prove that each store writes what the specification defines for the
// iteration it names, that the iterations the code runs are the specification's, and that
// the output holds the specification's final values: a mistake of the implementing
// algorithm (a reduction over the wrong extent) is refuted like a mistake of lowering.

#include <memory>

#include "ir/Function.h"
#include "ir/LoweredPipeline.h"

namespace tessera::validator {

/** `code` with every reference to a Func of its algorithm (store provenance, loop
 * identities, the output) replaced by the corresponding Func of the specification whose
 * output is `specification`. CompileError, naming both, if a Func the code computes has no
 * counterpart (same name; the output's counterpart is the specification's output) with
 * the same type, dimensions, number of definitions and RVars per definition, or if the
 * specification reads an image that is not an input of the pipeline (it must read the
 * pipeline's own ImageParams and Buffers). */
ir::LoweredPipeline against_specification(const ir::LoweredPipeline &code, const std::shared_ptr<ir::FunctionData> &specification);

}  // namespace tessera::validator
