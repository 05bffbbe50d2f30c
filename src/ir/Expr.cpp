// The public Expr handle (include/tessera/Expr.h): literals, its type, and constants of a
// given type (include/tessera/IROperator.h).

#include "ir/IR.h"
#include "tessera/Error.h"
#include "tessera/Expr.h"
#include "tessera/IROperator.h"

namespace tessera {

using namespace ir;

Expr::Expr(int8_t v) : Expr(IntImm::make(Int(8), v)) {}
Expr::Expr(int16_t v) : Expr(IntImm::make(Int(16), v)) {}
Expr::Expr(int32_t v) : Expr(IntImm::make(Int(32), v)) {}
Expr::Expr(int64_t v) : Expr(IntImm::make(Int(64), v)) {}
Expr::Expr(uint8_t v) : Expr(UIntImm::make(UInt(8), v)) {}
Expr::Expr(uint16_t v) : Expr(UIntImm::make(UInt(16), v)) {}
Expr::Expr(uint32_t v) : Expr(UIntImm::make(UInt(32), v)) {}
Expr::Expr(uint64_t v) : Expr(UIntImm::make(UInt(64), v)) {}
Expr::Expr(float v) : Expr(FloatImm::make(Float(32), v)) {}
Expr::Expr(double v) : Expr(FloatImm::make(Float(64), v)) {}

Type Expr::type() const {
    if (!node_) throw CompileError("Use of an undefined Expr");
    return node_->type;
}

Expr make_bool(bool b) { return UIntImm::make(Bool(), b ? 1 : 0); }

Expr make_const(Type t, int64_t v) {
    if (t.is_float()) return FloatImm::make(t, double(v));
    if (t.is_int()) return IntImm::make(t, v);
    return UIntImm::make(t, uint64_t(v));
}

Expr make_const(Type t, double v) {
    if (t.is_float()) return FloatImm::make(t, v);
    return Cast::make(t, FloatImm::make(Float(64), v));
}

Expr make_zero(Type t) { return make_const(t, int64_t(0)); }
Expr make_one(Type t) { return make_const(t, int64_t(1)); }

}  // namespace tessera
