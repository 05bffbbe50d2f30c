#pragma once
// The pad check of src/atl/PadCheck.cpp, for lowering: which cells of a program's result
// are the pad value (after proving every truncation drops only pad; CompileError if not).

#include <cstdint>
#include <vector>

#include "atl/Tree.h"

namespace tessera::atl::detail {

/** Per cell of the program's result, row-major: 1 where it is the pad value. */
std::vector<uint8_t> pad_cells(const TensorNode &program);
/** The pad type, in the ATL paper's form, of cells of this shape. */
PadType pad_type_of(const std::vector<int64_t> &shape, const std::vector<uint8_t> &cells);

}  // namespace tessera::atl::detail
