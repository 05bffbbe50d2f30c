#pragma once
// Inline reductions, as Halide's: sum, product, maximum and minimum of an expression over
// the RDom it uses.
//
//     Func blurred;
//     RDom r(-2, 5, -2, 5);
//     blurred(x, y) = sum(in(x + r.x, y + r.y)) / 25;
//
// Each call defines a new Func over the free Vars of the expression, in the order they
// first appear (x, y above): its pure definition is the operation's identity and its
// update folds the expression in over the RDom, in the RDom's order (r.x innermost). The
// call returns that Func applied to those Vars. Like any Func with an update, it is
// computed at the innermost loop of its consumer unless scheduled otherwise; it is named
// `name` with a number ("sum_0", "sum_1", ...), which the printed program and the lowered
// code show.
//
// The result has the expression's type (no widening: a sum of uint8 wraps as uint8 does).
// maximum starts from the type's lowest value (-infinity for floats) and minimum from its
// highest (+infinity).
//
// argmin and argmax return a Tuple (include/tessera/Tuple.h): the coordinates of the first
// point of the RDom, in its order, where `e` is smallest (largest), one per RDom
// dimension, then that value. Over an empty RDom, or where no value is below +infinity
// (above -infinity), they give the RDom's mins and the identity.

#include <string>

#include "tessera/Expr.h"
#include "tessera/RDom.h"
#include "tessera/Tuple.h"

namespace tessera {

/** The sum of `e` over the RDom it uses (CompileError if it uses none, or two). */
Expr sum(Expr e, const std::string &name = "sum");
/** The sum of `e` over `r`, which `e` need not use (a count: sum(r, 1)). */
Expr sum(const RDom &r, Expr e, const std::string &name = "sum");
Expr product(Expr e, const std::string &name = "product");
Expr product(const RDom &r, Expr e, const std::string &name = "product");
Expr maximum(Expr e, const std::string &name = "maximum");
Expr maximum(const RDom &r, Expr e, const std::string &name = "maximum");
Expr minimum(Expr e, const std::string &name = "minimum");
Expr minimum(const RDom &r, Expr e, const std::string &name = "minimum");
Tuple argmax(Expr e, const std::string &name = "argmax");
Tuple argmax(const RDom &r, Expr e, const std::string &name = "argmax");
Tuple argmin(Expr e, const std::string &name = "argmin");
Tuple argmin(const RDom &r, Expr e, const std::string &name = "argmin");

}  // namespace tessera
