#pragma once
// Names: readable fresh names for the user's unnamed objects, and the names a statement
// uses, to make new ones that capture nothing.

#include <set>
#include <string>

#include "ir/IR.h"

namespace tessera::ir {

/** "f0", "v3", "r1": a fresh name for an unnamed Func (prefix 'f'), Var ('v'), RDom ('r'),
 * Buffer ('b'), Param ('p') or ImageParam ('i'), unique in the process. */
std::string fresh_name(char prefix);

/** The variable and buffer names a statement binds or uses, and those it uses where no
 * binding of them is in scope (its inputs: Params, buffer arguments, descriptors). With
 * `annotations`, the expressions of stores' provenance annotations count as uses. */
struct NamesIn {
    std::set<std::string> vars, buffers, free_vars, free_buffers;
};
NamesIn names_in(const Stmt &s, bool annotations = true);

/** `base` if it is not in `taken`, else the first of base$2, base$3, ... that is not;
 * the result is added to `taken`. */
std::string unique_name(const std::string &base, std::set<std::string> &taken);

}  // namespace tessera::ir
