#pragma once
// The translation validator's entry point: a pipeline's lowered code checked against its
// algorithm, with a verdict and what it rests on (docs/validation.md). So far the checks
// are those of the pipeline's structure (src/validate/StructureChecks.h); the comparison
// of values is the next part, and until it exists no pipeline is Proved as a whole: the
// verdict is Refuted when a check finds a counterexample, Unknown otherwise.

#include <string>
#include <vector>

#include "ir/LoweredPipeline.h"
#include "validate/StructureChecks.h"

namespace tessera::validator {

struct NamedCheck {
    std::string name;  // "coverage", "races", "values"
    CheckResult result;
};

struct ValidationReport {
    std::string pipeline;
    Verdict verdict = Verdict::Unknown;
    std::vector<NamedCheck> checks;
    /** What a verdict rests on (the trusted base and the assumptions). */
    std::vector<std::string> rests_on;
    int statements = 0, modelled = 0;
    std::vector<std::string> unmodelled;

    /** Readable, one check per line. */
    std::string to_string() const;
    /** One JSON object. */
    std::string to_json() const;
};

ValidationReport validate_lowered(const ir::LoweredPipeline &p, const StructureOptions &options = {});

}  // namespace tessera::validator
