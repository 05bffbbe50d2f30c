// The same kind of file, calling only what it defines: links with --no-undefined.
#include <string>

namespace {
std::string local_name(const std::string &name) { return name + "_"; }
}  // namespace

std::string lowering_probe() { return local_name("x"); }
