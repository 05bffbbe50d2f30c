#include "analysis/ConstMath.h"

#include "ir/Check.h"
#include "ir/IRVisitor.h"

namespace tessera::analysis::detail {

using namespace ir;

i128 type_min(Type t) {
    t = t.element_of();
    if (t.is_bool() || t.is_uint()) return 0;
    TESSERA_INTERNAL_ASSERT(t.is_int(), "type_min of " << t.to_string());
    return -(i128(1) << (t.bits - 1));
}

i128 type_max(Type t) {
    t = t.element_of();
    if (t.is_bool()) return 1;
    if (t.is_uint()) return (i128(1) << t.bits) - 1;
    TESSERA_INTERNAL_ASSERT(t.is_int(), "type_max of " << t.to_string());
    return (i128(1) << (t.bits - 1)) - 1;
}

bool const_int(const Expr &e, i128 &v) {
    if (!e.defined()) return false;
    if (const auto *b = as<Broadcast>(e)) return const_int(b->value, v);
    if (const auto *i = as<IntImm>(e)) {
        v = i->value;
        return true;
    }
    if (const auto *u = as<UIntImm>(e)) {
        v = u->value;
        return true;
    }
    return false;
}

bool const_scalar(const Expr &e, ir::Scalar &v) {
    if (const auto *i = as<IntImm>(e)) {
        v = ir::make_int(i->value);
        return true;
    }
    if (const auto *u = as<UIntImm>(e)) {
        v = ir::make_uint(u->value);
        return true;
    }
    if (const auto *f = as<FloatImm>(e)) {
        v = ir::make_float(f->value);
        return true;
    }
    return false;
}

bool is_const(const Expr &e) {
    if (!e.defined()) return false;
    if (const auto *b = as<Broadcast>(e)) return is_const(b->value);
    return e->kind == ExprKind::IntImm || e->kind == ExprKind::UIntImm ||
           e->kind == ExprKind::FloatImm;
}

bool is_const_true(const Expr &e) {
    i128 v;
    return e.defined() && e.type().is_bool() && const_int(e, v) && v != 0;
}

bool is_const_false(const Expr &e) {
    i128 v;
    return e.defined() && e.type().is_bool() && const_int(e, v) && v == 0;
}

i128 wrap(Type t, i128 v) {
    t = t.element_of();
    if (t.is_bool()) return v != 0;
    unsigned __int128 u = static_cast<unsigned __int128>(v);
    unsigned __int128 m = (static_cast<unsigned __int128>(1) << t.bits) - 1;
    u &= m;
    if (t.is_int() && (u >> (t.bits - 1)) != 0) return i128(u) - (i128(1) << t.bits);
    return i128(u);
}

Expr make_const(Type t, i128 v) {
    Type et = t.element_of();
    Expr c;
    if (!et.is_float()) v = wrap(et, v);
    if (et.is_int()) c = IntImm::make(et, int64_t(v));
    else if (et.is_uint() || et.is_bool()) c = UIntImm::make(et, uint64_t(v));
    else if (et.is_float()) c = FloatImm::make(et, double(v));
    else TESSERA_INTERNAL_ERROR("make_const of " << t.to_string());
    if (t.lanes > 1) c = Broadcast::make(c, t.lanes);
    return c;
}

Expr make_scalar(Type t, ir::Scalar v) {
    Type et = t.element_of();
    Expr c;
    if (et.is_int()) c = IntImm::make(et, v.i);
    else if (et.is_uint() || et.is_bool()) c = UIntImm::make(et, v.u);
    else c = FloatImm::make(et, v.f);
    if (t.lanes > 1) c = Broadcast::make(c, t.lanes);
    return c;
}

Expr make_bool_const(bool b, int lanes) {
    Expr c = UIntImm::make(Bool(), b ? 1 : 0);
    if (lanes > 1) c = Broadcast::make(c, lanes);
    return c;
}

i128 div_euclid(i128 a, i128 b) {
    if (b == 0) return 0;
    i128 m = abs128(b);
    i128 q = a / m;
    if (a % m < 0) q -= 1;  // floor(a / |b|)
    return b > 0 ? q : -q;
}

i128 mod_euclid(i128 a, i128 b) {
    if (b == 0) return 0;
    i128 m = abs128(b);
    i128 r = a % m;
    return r < 0 ? r + m : r;
}

bool mul_checked(i128 a, i128 b, i128 &r) { return !__builtin_mul_overflow(a, b, &r); }

namespace {
class SizeCounter : public IRVisitor {
public:
    explicit SizeCounter(int limit) : limit_(limit) {}
    int count = 0;
    using IRVisitor::include;
    void include_expr(const Expr &e) {
        if (count >= limit_ || !e.defined()) return;
        count++;
        include(e);
    }

protected:
    // Every child goes through include_expr, which counts it and stops at the limit.
#define TESSERA_COUNT_BINARY(N) \
    void visit(const N *op) override { include_expr(op->a); include_expr(op->b); }
    TESSERA_COUNT_BINARY(Add)
    TESSERA_COUNT_BINARY(Sub)
    TESSERA_COUNT_BINARY(Mul)
    TESSERA_COUNT_BINARY(Div)
    TESSERA_COUNT_BINARY(Mod)
    TESSERA_COUNT_BINARY(Min)
    TESSERA_COUNT_BINARY(Max)
    TESSERA_COUNT_BINARY(EQ)
    TESSERA_COUNT_BINARY(NE)
    TESSERA_COUNT_BINARY(LT)
    TESSERA_COUNT_BINARY(LE)
    TESSERA_COUNT_BINARY(GT)
    TESSERA_COUNT_BINARY(GE)
    TESSERA_COUNT_BINARY(And)
    TESSERA_COUNT_BINARY(Or)
#undef TESSERA_COUNT_BINARY
    void visit(const Cast *op) override { include_expr(op->value); }
    void visit(const Not *op) override { include_expr(op->a); }
    void visit(const Select *op) override {
        include_expr(op->condition);
        include_expr(op->true_value);
        include_expr(op->false_value);
    }
    void visit(const Call *op) override {
        for (const Expr &a : op->args) include_expr(a);
    }
    void visit(const Let *op) override {
        include_expr(op->value);
        include_expr(op->body);
    }
    void visit(const Load *op) override { include_expr(op->index); }
    void visit(const Ramp *op) override {
        include_expr(op->base);
        include_expr(op->stride);
    }
    void visit(const Broadcast *op) override { include_expr(op->value); }

private:
    int limit_;
};
}  // namespace

Expr make_binary(ExprKind op, const Expr &a, const Expr &b) {
    switch (op) {
    case ExprKind::Add: return Add::make(a, b);
    case ExprKind::Sub: return Sub::make(a, b);
    case ExprKind::Mul: return Mul::make(a, b);
    case ExprKind::Div: return Div::make(a, b);
    case ExprKind::Mod: return Mod::make(a, b);
    case ExprKind::Min: return Min::make(a, b);
    case ExprKind::Max: return Max::make(a, b);
    case ExprKind::EQ: return EQ::make(a, b);
    case ExprKind::NE: return NE::make(a, b);
    case ExprKind::LT: return LT::make(a, b);
    case ExprKind::LE: return LE::make(a, b);
    case ExprKind::GT: return GT::make(a, b);
    case ExprKind::GE: return GE::make(a, b);
    case ExprKind::And: return And::make(a, b);
    default: return Or::make(a, b);
    }
}

int expr_size(const Expr &e, int limit) {
    SizeCounter c(limit);
    c.include_expr(e);
    return c.count;
}

}  // namespace tessera::analysis::detail
