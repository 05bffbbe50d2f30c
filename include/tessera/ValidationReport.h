#pragma once
// The translation validator's answer about a compiled pipeline (docs/validation.md): an
// overall verdict, each check's verdict with its detail, and what the verdicts rest on.
// Produced by tessera::validate (<tessera/Validate.h>); its functions are defined in the
// validator library (Tessera::validator).

#include <string>
#include <vector>

namespace tessera {

/** Proved: for every run the entry checks and the assumptions allow. Refuted: with a
 * counterexample. Unknown: with the reason (a construct not modelled, a limit reached). */
enum class Verdict { Proved, Refuted, Unknown };
/** "Proved", "Refuted" or "Unknown". */
const char *verdict_name(Verdict v);

/** One check's answer: what was proved, the counterexample, or why it is Unknown. */
struct CheckResult {
    Verdict verdict = Verdict::Unknown;
    std::string detail;
};

/** A check of a report, by name: "coverage" (every point of the output window is
 * written), "races" (parallel iterations write distinct cells), "bounds" (accesses stay in
 * their storage), "values" (each store writes the value the algorithm defines). */
struct NamedCheck : CheckResult {
    std::string name;
};

/** The verdict on the code as one lowering pass left it (ValidateOptions::after_each_pass). */
struct PassVerdict {
    std::string pass;
    Verdict verdict = Verdict::Unknown;
    /** For Refuted, the check that refuted it and its counterexample. */
    std::string detail;
};

struct ValidationReport {
    /** The pipeline's name (the output Func's, or the .tsr file's `pipeline`). */
    std::string pipeline;
    /** Proved when every check is; Refuted when one is; Unknown otherwise. */
    Verdict verdict = Verdict::Unknown;
    std::vector<NamedCheck> checks;
    /** What the verdict rests on: the trusted base, the user's assumptions, and each entry
     * check of the code that could not be used as a hypothesis. */
    std::vector<std::string> rests_on;
    /** Stores the checks looked at, how many of them are modelled, and why the others
     * are not. */
    int statements = 0, modelled = 0;
    std::vector<std::string> unmodelled;
    /** With ValidateOptions::after_each_pass: the verdict after each pass from storage
     * flattening on, and the first pass after which the code was Refuted where it was
     * not before (empty if none). */
    std::vector<PassVerdict> passes;
    std::string first_refuted_pass;

    /** The check called `name`, or nullptr. */
    const NamedCheck *check(const std::string &name) const;
    /** Readable, one check per line. */
    std::string to_string() const;
    /** One JSON object. */
    std::string to_json() const;
};

}  // namespace tessera
