#pragma once
// Readable fresh names for unnamed Funcs, Vars, RDoms and Buffers ("f0", "v3", "r1").

#include <string>

namespace tessera::ir {

std::string fresh_name(char prefix);

}  // namespace tessera::ir
