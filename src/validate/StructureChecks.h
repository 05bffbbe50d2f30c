#pragma once
// The checks of a lowered pipeline's structure that need no values, on its loop nest as
// polyhedra (src/validate/LoopNest.h):
//
// * coverage: every point of the output window is written, for every value of the
//   parameters that the entry assertions allow;
// * races: no two iterations of a parallel loop (in the same iteration of the loops
//   around it) write the same cell of storage, unless both write the same point's final
//   value (a Func's only definition, or an output's final copy): those agree, given the
//   value check, and are what a ShiftInwards split of a parallel loop does. Cells are read
//   off the stores' flat indices, so that a folded dimension, whose points share cells,
//   is seen as it is;
// * bounds: every store looked at writes inside the region bounds inference gave its
//   storage (memory safety of those stores).
//
// Each answers Proved, Refuted with a concrete counterexample (parameter values and the
// point), or Unknown with the reason (a construct not modelled, an assertion left out
// of the context, the operation limit). Not checked yet: that no iteration of a parallel
// loop reads what another writes, and the bounds of loads. The value equalities, which
// make a pipeline Proved as a whole, are the translation validator's next part
// (docs/validation.md).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/LoweredPipeline.h"
#include "tessera/ValidationReport.h"
#include "validate/Isl.h"

namespace tessera::validator {

// Verdicts and check results are those of the public report (tessera/ValidationReport.h).
using tessera::CheckResult;
using tessera::Verdict;
using tessera::verdict_name;

struct StructureReport {
    CheckResult coverage, races, bounds, values;
    int statements = 0;  // stores the checks look at (to the output, or in a parallel loop)
    int modelled = 0;    // of which are modelled as polyhedra
    /** The stores not modelled, each with the reason. */
    std::vector<std::string> unmodelled;
    /** Assertions left out of the parameters' context. */
    std::vector<std::string> unmodelled_assertions;
    /** Where the value check refuted a store: the integer parameters of its
     * counterexample that the solver's model gives (the run to replay it at). */
    std::map<std::string, int64_t> values_run;
    /** The same for a bounds refutation: the parameters of its example. */
    std::map<std::string, int64_t> bounds_run;
};

struct LoopNest;

/** Counterexamples in words. "name = value, ..." for the parameters of point `pt` of `set`. */
std::string describe_params(isl_set *set, isl_point *pt);
/** "(c0, c1, ...)": `count` set coordinates of `pt` from `first` on. */
std::string describe_coords(isl_point *pt, int first, int count);
/** A point of `set`, with small parameter values where there is one, so that a
 * counterexample reads like a case a user would try. */
Isl<isl_point> small_sample(const Isl<isl_set> &set, const char *what);

/** A counterexample found under the context of `nest`: Refuted, or Unknown if some entry
 * assertion was left out of the context (it might rule the counterexample out). */
CheckResult refuted_unless_unmodelled(const LoopNest &nest, const std::string &counterexample);

struct StructureOptions {
    /** The isl operation limit of each step (modelling the loop nest, each check):
     * deterministic, unlike a timeout. */
    unsigned long max_operations = 2'000'000;
    /** Z3's resource limit per query of the value check (deterministic). */
    unsigned rlimit = 5'000'000;
    /** Called as each step starts ("modelling the loop nest", "checking coverage", ...),
     * for progress reports. */
    std::function<void(const std::string &)> progress;
};

/** The four checks. Code of several outermost loop nests is checked in parts, each on a
 * loop nest and isl context of its own, two at a time where the machine has the cores;
 * the parts, and so the verdicts, depend on the code alone (src/validate/StructureChecks.cpp). */
StructureReport check_structure(const ir::LoweredPipeline &p, const StructureOptions &options = {});

}  // namespace tessera::validator
