// Readable fresh names for unnamed Funcs, Vars, RDoms and Buffers ("f0", "v3", "r1").

#include "ir/Names.h"

#include <map>
#include <mutex>

namespace tessera::ir {

std::string fresh_name(char prefix) {
    static std::mutex mutex;
    static std::map<char, int> counters;
    std::lock_guard<std::mutex> lock(mutex);
    return std::string(1, prefix) + std::to_string(counters[prefix]++);
}

}  // namespace tessera::ir
