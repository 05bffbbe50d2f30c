#pragma once
// Boundary conditions: wrap a Buffer, ImageParam or bounded Func so that it can be read
// anywhere. Each returns a new Func whose reads of the source always stay inside the
// given bounds (reads happen in every operand of a select, so the clamping matters).

#include "tessera/Buffer.h"
#include "tessera/Func.h"
#include "tessera/Param.h"
#include "tessera/RDom.h"

namespace tessera {
namespace BoundaryConditions {

/** Per-dimension bounds (min, extent); an undefined Range leaves that dimension unbounded
 * (the source is read there as is). */

/** Points outside the bounds read the nearest edge point. */
Func repeat_edge(const Func &source, const Region &bounds);
Func repeat_edge(const Buffer<> &source);
Func repeat_edge(const ImageParam &source);

/** Points outside the bounds read `value` (cast to each value's type for a Func with a
 * Tuple; or a Tuple of as many values, one each). */
Func constant_exterior(const Func &source, const Expr &value, const Region &bounds);
Func constant_exterior(const Func &source, const Tuple &value, const Region &bounds);
Func constant_exterior(const Buffer<> &source, const Expr &value);
Func constant_exterior(const ImageParam &source, const Expr &value);

/** Reflection including the edge point: ... 1 0 | 0 1 2 3 | 3 2 ... */
Func mirror_image(const Func &source, const Region &bounds);
Func mirror_image(const Buffer<> &source);
Func mirror_image(const ImageParam &source);

/** Reflection excluding the edge point: ... 2 1 | 0 1 2 3 | 2 1 ... */
Func mirror_interior(const Func &source, const Region &bounds);
Func mirror_interior(const Buffer<> &source);
Func mirror_interior(const ImageParam &source);

/** Periodic tiling: ... 2 3 | 0 1 2 3 | 0 1 ... */
Func repeat_image(const Func &source, const Region &bounds);
Func repeat_image(const Buffer<> &source);
Func repeat_image(const ImageParam &source);

}  // namespace BoundaryConditions
}  // namespace tessera
