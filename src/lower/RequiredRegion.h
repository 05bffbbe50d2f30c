#pragma once
// The region of a Func or image that a statement touches: the box, per dimension, of the
// coordinates of every read (and optionally write), over all iterations of the loops in
// the statement. Variables bound outside the statement stay symbolic, so a region
// computed inside a loop is per-iteration (docs/architecture.md, "What bounds inference
// guarantees", item 8).

#include <string>
#include <vector>

#include "analysis/Interval.h"
#include "ir/IR.h"

namespace tessera::lower {

struct RequiredRegion {
    std::vector<analysis::Interval> box;  // empty if never touched
    /** Definitions, in order, of the variables `box` may use for the bounds of bindings
     * (required_regions_with_lets; the same for every region of one call): the box holds
     * only where these lets are in scope. */
    std::vector<std::pair<std::string, Expr>> lets;
    /** Per dimension: the Func whose definition made that dimension unbounded. */
    std::vector<std::string> unbounded_by;
    bool touched() const { return !box.empty(); }
};

/** Reads of the Func or image called `name` (and Provides to it if `writes`) in s. */
RequiredRegion required_region(const ir::Stmt &s, const std::string &name, int dims, bool writes);

/** The regions of several Funcs or images, in one walk of s (which bounds every let and
 * loop once for all of them). */
struct RegionQuery {
    std::string name;
    int dims = 0;
    bool writes = false;
};
std::vector<RequiredRegion> required_regions(const ir::Stmt &s, const std::vector<RegionQuery> &queries);

/** As required_regions, for a region of the whole statement (where nothing the statement
 * binds is in scope): the bounds of a binding whose bound expressions are large get a name
 * of their own (RequiredRegion::lets). The bounds of a binding are written in terms of the
 * bounds of the bindings it uses, so that without names a chain of n bindings that each use
 * the one before twice (the levels of a pyramid, each from two taps of the last) makes
 * bounds of size 2^n. */
std::vector<RequiredRegion> required_regions_with_lets(const ir::Stmt &s, const std::vector<RegionQuery> &queries);

}  // namespace tessera::lower
