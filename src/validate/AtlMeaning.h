#pragma once
// ATL programs checked against their meaning (docs/atl.md, "Validation"): the Funcs that
// lowering by reindexers made (src/atl/Lower.cpp) against the program's denotation, and a
// program derived by rewrites (src/atl/Rewrite.cpp) against the original.
//
// ATL's meaning gives each cell of a tensor its value by descending the expression from the
// cell: a gen fixes its variable from the cell's outermost coordinate, a reshape operator
// changes the coordinates (flatten divides, split multiplies, a truncation shifts, a pad
// excludes), a guard or a sum restricts or ranges over iterations, until a scalar leaf is
// reached. For each leaf this is a relation between the cells of its destination and the
// iterations of the loops around the leaf, which the polyhedral library represents exactly
// (the indices are affine with divisions by constants). Lowering stores the leaf's value at
// iteration v in cell θ(v); the check is that θ's graph is exactly the meaning's relation,
// read the other way, and that the stored value is the leaf's. For a derivation, each leaf of
// the derived program computes a leaf of the original at substituted iterations; the check is
// that the substitution maps the derived leaves' relations one to one onto the original's.

#include "tessera/Atl.h"
#include "tessera/ValidateOptions.h"
#include "tessera/ValidationReport.h"

namespace tessera::validator {

/** The check "atl lowering": every update of the Funcs `program` was lowered to stores its
 * leaf's value into exactly the cells ATL's meaning takes from that leaf. */
NamedCheck check_atl_lowering(const atl::Program &program, const ValidateOptions &options);

/** The check "atl rewrites": the derived program's leaves cover the original's one to one
 * under the substitutions the derivation recorded, computing the same scalars. */
NamedCheck check_atl_derivation(const atl::Derivation &derivation, const ValidateOptions &options);

}  // namespace tessera::validator
