// rfactor: placeholder replaced below.
#include "tessera/Func.h"
namespace tessera {
Func Stage::rfactor(const RVar &r, const Var &v) { return rfactor({{r, v}}); }
Func Stage::rfactor(const std::vector<std::pair<RVar, Var>> &) { throw CompileError("rfactor: TODO"); }
}  // namespace tessera
