#pragma once
// The translation validator's entry point on lowered code: a pipeline's lowered code
// checked against its algorithm, with a verdict and what it rests on (docs/validation.md).
// The report is the public one (tessera/ValidationReport.h); tessera::validate
// (tessera/Validate.h) lowers a Func and calls this.

#include <optional>
#include <string>
#include <vector>

#include "ir/LoweredPipeline.h"
#include "tessera/ValidationReport.h"
#include "validate/StructureChecks.h"

namespace tessera::validator {

using tessera::NamedCheck;
using tessera::ValidationReport;

/** The verdict of a report with these checks: Refuted when one is, Proved when all are,
 * Unknown otherwise. */
Verdict overall_verdict(const std::vector<NamedCheck> &checks);

/** The checks of the pipeline's structure and values (src/validate/StructureChecks.h),
 * under the code's entry assertions and the user's `assumptions` (checked by
 * checked_assumptions), which are taken as entry assertions of the code. A context that no
 * run satisfies (contradictory assumptions, or entry checks that always fail) is never
 * Proved: the verdict is Unknown and the checks are not run. */
ValidationReport validate_lowered(const ir::LoweredPipeline &p, const StructureOptions &options = {},
                                  const std::vector<Expr> &assumptions = {});

/** The assertions the code of `p` checks at entry (before any loop), lets expanded; none
 * if the code could not be read (the operation limit). */
std::optional<std::vector<Expr>> entry_assertions(const ir::LoweredPipeline &p, const StructureOptions &options = {});

/** The user's assumptions about the pipeline whose output is Func `output` (with `dims`
 * dimensions), as conditions on the variables of its lowered code: the Params keep their
 * names, and the bounds of inputs and output are the buffer fields `B.min.d` and
 * `B.extent.d`. An assumption that is not a bool, or that reads an image, a Func, a Var or
 * anything but the pipeline's Params and the bounds of its inputs and output, is a
 * CompileError naming it. */
std::vector<Expr> checked_assumptions(const std::string &output, int dims, const std::vector<Expr> &assumptions);

}  // namespace tessera::validator
