// A call into a higher layer without its header (a hand-written declaration): the layer's
// link check must reject it, since nothing at or below the layer defines the function.
#include <string>

namespace tessera::codegen {
std::string sanitize_identifier(const std::string &name);
}

std::string lowering_probe() { return tessera::codegen::sanitize_identifier("x"); }
