// The user-facing operators and functions on Expr (include/tessera/IROperator.h): the
// coercion rules of docs/semantics.md, then the IR node.

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/ConstMath.h"
#include "ir/IR.h"
#include "tessera/Error.h"
#include "tessera/IROperator.h"

namespace tessera {

using namespace ir;

namespace {

[[noreturn]] void user_error(const std::string &msg) { throw CompileError(msg); }

void require_defined(const Expr &e, const char *what) {
    if (!e.defined()) user_error(std::string("Use of an undefined Expr as an operand of ") + what);
}

// Booleans take part in coercion as 1-bit unsigned integers (as in Halide).
Type coercion_view(Type t) { return t.is_bool() ? UInt(1, t.lanes) : t; }

bool is_int32_literal(const Expr &e) {
    const IntImm *imm = as<IntImm>(e);
    return imm && e.type() == Int(32);
}

Expr cast_literal(const IntImm *imm, Type t, const char *what) {
    if (t.is_float()) return FloatImm::make(t, double(imm->value));
    if (!t.can_represent(imm->value))
        user_error("Integer constant " + std::to_string(imm->value) + " in " + what +
                   " cannot be represented in type " + t.to_string() +
                   ", the type of the other operand; cast one of them explicitly");
    if (t.is_int()) return IntImm::make(t, imm->value);
    return UIntImm::make(t, uint64_t(imm->value));
}

const char *op_name(detail::BinOp op) {
    switch (op) {
    case detail::BinOp::Add: return "+";
    case detail::BinOp::Sub: return "-";
    case detail::BinOp::Mul: return "*";
    case detail::BinOp::Div: return "/";
    case detail::BinOp::Mod: return "%";
    case detail::BinOp::Min: return "min";
    case detail::BinOp::Max: return "max";
    case detail::BinOp::EQ: return "==";
    case detail::BinOp::NE: return "!=";
    case detail::BinOp::LT: return "<";
    case detail::BinOp::LE: return "<=";
    case detail::BinOp::GT: return ">";
    case detail::BinOp::GE: return ">=";
    case detail::BinOp::And: return "&&";
    case detail::BinOp::Or: return "||";
    }
    return "?";
}

Expr to_float(Expr e) {
    if (e.type().is_float()) return e;
    return cast(Float(32), std::move(e));
}

Expr float_call(Intrinsic op, Expr x, const char *name) {
    require_defined(x, name);
    x = to_float(std::move(x));
    Type t = x.type();
    return Call::make_intrinsic(t, op, {std::move(x)});
}

Expr float_call2(Intrinsic op, Expr x, Expr y, const char *name) {
    require_defined(x, name);
    require_defined(y, name);
    x = to_float(std::move(x));
    y = cast(x.type(), std::move(y));  // the second argument takes the first one's type
    Type t = x.type();
    return Call::make_intrinsic(t, op, {std::move(x), std::move(y)});
}

Expr integer_bitwise(Intrinsic op, Expr a, Expr b, const char *name) {
    require_defined(a, name);
    require_defined(b, name);
    if (a.type().is_float() || b.type().is_float())
        user_error(std::string("Operator ") + name + " needs integer operands, got " +
                   a.type().to_string() + " and " + b.type().to_string());
    match_types(a, b);
    Type t = a.type();
    return Call::make_intrinsic(t, op, {std::move(a), std::move(b)});
}

}  // namespace

void match_types(Expr &a, Expr &b) {
    Type ta = a.type(), tb = b.type();
    if (ta == tb) return;
    Type va = coercion_view(ta), vb = coercion_view(tb);
    if (va.is_float() || vb.is_float()) {
        if (va.is_float() && vb.is_float()) {
            if (va.bits < vb.bits) a = cast(tb, a);
            else b = cast(ta, b);
        } else if (va.is_float()) {
            b = cast(ta, b);
        } else {
            a = cast(tb, a);
        }
        return;
    }
    if (va.code == vb.code) {  // both signed or both unsigned: widen the narrower
        if (va.bits < vb.bits) a = cast(tb, a);
        else b = cast(ta, b);
        return;
    }
    // One signed, one unsigned: both become a signed integer of the greater width.
    Type t = Int(std::max<int>(std::max<int>(va.bits, vb.bits), 8), ta.lanes);
    a = cast(t, a);
    b = cast(t, b);
}

Expr undef(Type t) {
    if (t.lanes != 1) user_error("undef takes a scalar type; got " + t.to_string());
    return ir::Call::make_intrinsic(t, Intrinsic::Undef, {});
}

namespace detail {

Expr int_literal_like(const Expr &other, int64_t v, bool is_unsigned_64, uint64_t uv) {
    require_defined(other, "an arithmetic operator");
    Type t = other.type().element_of();
    // Rounded once, from the exact integer (not via double, which would round twice).
    if (t.is_float()) return FloatImm::make(t, t.bits == 32 ? double(is_unsigned_64 ? float(uv) : float(v)) : (is_unsigned_64 ? double(uv) : double(v)));
    if (is_unsigned_64) {
        if (t.is_uint() && t.bits == 64) return UIntImm::make(t, uv);
        if (uv > uint64_t(INT64_MAX))
            user_error("Integer constant " + std::to_string(uv) +
                       " cannot be represented in type " + t.to_string() +
                       ", the type of the other operand; cast one of them explicitly");
        v = int64_t(uv);
    }
    if (!t.can_represent(v))
        user_error("Integer constant " + std::to_string(v) + " cannot be represented in type " +
                   t.to_string() + ", the type of the other operand; cast one of them explicitly");
    if (t.is_int()) return IntImm::make(t, v);
    return UIntImm::make(t, uint64_t(v));
}

Expr binary(BinOp op, Expr a, Expr b) {
    require_defined(a, op_name(op));
    require_defined(b, op_name(op));
    if (op == BinOp::And || op == BinOp::Or) {
        if (!a.type().is_bool() || !b.type().is_bool())
            user_error(std::string("Operands of ") + op_name(op) + " must be booleans, got " +
                       a.type().to_string() + " and " + b.type().to_string());
        return op == BinOp::And ? And::make(a, b) : Or::make(a, b);
    }
    match_types(a, b);
    bool arithmetic = op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul ||
                      op == BinOp::Div || op == BinOp::Mod;
    if (arithmetic && a.type().is_bool())
        user_error(std::string("Arithmetic operator ") + op_name(op) +
                   " applied to booleans; cast them to an integer type first");
    switch (op) {
    case BinOp::Add: return Add::make(a, b);
    case BinOp::Sub: return Sub::make(a, b);
    case BinOp::Mul: return Mul::make(a, b);
    case BinOp::Div: return Div::make(a, b);
    case BinOp::Mod: return Mod::make(a, b);
    case BinOp::Min: return Min::make(a, b);
    case BinOp::Max: return Max::make(a, b);
    case BinOp::EQ: return EQ::make(a, b);
    case BinOp::NE: return NE::make(a, b);
    case BinOp::LT: return LT::make(a, b);
    case BinOp::LE: return LE::make(a, b);
    case BinOp::GT: return GT::make(a, b);
    case BinOp::GE: return GE::make(a, b);
    default: break;
    }
    user_error("unknown operator");
}

}  // namespace detail

#define TESSERA_DEFINE_BINARY_OPERATOR(OP, NAME) \
    Expr operator OP(Expr a, Expr b) { return detail::binary(detail::BinOp::NAME, std::move(a), std::move(b)); }
TESSERA_DEFINE_BINARY_OPERATOR(+, Add)
TESSERA_DEFINE_BINARY_OPERATOR(-, Sub)
TESSERA_DEFINE_BINARY_OPERATOR(*, Mul)
TESSERA_DEFINE_BINARY_OPERATOR(/, Div)
TESSERA_DEFINE_BINARY_OPERATOR(%, Mod)
TESSERA_DEFINE_BINARY_OPERATOR(==, EQ)
TESSERA_DEFINE_BINARY_OPERATOR(!=, NE)
TESSERA_DEFINE_BINARY_OPERATOR(<, LT)
TESSERA_DEFINE_BINARY_OPERATOR(<=, LE)
TESSERA_DEFINE_BINARY_OPERATOR(>, GT)
TESSERA_DEFINE_BINARY_OPERATOR(>=, GE)
#undef TESSERA_DEFINE_BINARY_OPERATOR

Expr operator-(Expr a) {
    require_defined(a, "unary -");
    Type t = a.type();
    if (t.is_bool()) user_error("Unary - applied to a boolean; cast it to an integer type first");
    // For floats -x flips the sign bit (also of zeros); (-1) * x does exactly that.
    if (t.is_float()) return Mul::make(make_const(t, int64_t(-1)), a);
    return Sub::make(make_zero(t), a);
}

Expr &operator+=(Expr &a, Expr b) { a = a + cast(a.type(), std::move(b)); return a; }
Expr &operator-=(Expr &a, Expr b) { a = a - cast(a.type(), std::move(b)); return a; }
Expr &operator*=(Expr &a, Expr b) { a = a * cast(a.type(), std::move(b)); return a; }
Expr &operator/=(Expr &a, Expr b) { a = a / cast(a.type(), std::move(b)); return a; }

Expr operator&&(Expr a, Expr b) { return detail::binary(detail::BinOp::And, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return detail::binary(detail::BinOp::Or, std::move(a), std::move(b)); }
Expr operator&&(Expr a, bool b) { return std::move(a) && make_bool(b); }
Expr operator&&(bool a, Expr b) { return make_bool(a) && std::move(b); }
Expr operator||(Expr a, bool b) { return std::move(a) || make_bool(b); }
Expr operator||(bool a, Expr b) { return make_bool(a) || std::move(b); }
Expr operator!(Expr a) {
    require_defined(a, "!");
    if (!a.type().is_bool()) user_error("Operand of ! must be a boolean, got " + a.type().to_string());
    return Not::make(std::move(a));
}

Expr operator&(Expr a, Expr b) {
    if (a.defined() && b.defined() && a.type().is_bool() && b.type().is_bool()) return And::make(a, b);
    return integer_bitwise(Intrinsic::BitAnd, std::move(a), std::move(b), "&");
}
Expr operator|(Expr a, Expr b) {
    if (a.defined() && b.defined() && a.type().is_bool() && b.type().is_bool()) return Or::make(a, b);
    return integer_bitwise(Intrinsic::BitOr, std::move(a), std::move(b), "|");
}
Expr operator^(Expr a, Expr b) {
    if (a.defined() && b.defined() && a.type().is_bool() && b.type().is_bool()) return NE::make(a, b);
    return integer_bitwise(Intrinsic::BitXor, std::move(a), std::move(b), "^");
}
Expr operator~(Expr a) {
    require_defined(a, "~");
    if (a.type().is_bool()) return Not::make(a);
    if (a.type().is_float()) user_error("Operator ~ needs an integer operand, got " + a.type().to_string());
    Type t = a.type();
    return Call::make_intrinsic(t, Intrinsic::BitNot, {std::move(a)});
}

namespace {
Expr shift(Intrinsic op, Expr a, Expr b, const char *name) {
    require_defined(a, name);
    require_defined(b, name);
    if (!a.type().is_integer() || !b.type().is_integer())
        user_error(std::string("Operator ") + name + " needs integer operands, got " +
                   a.type().to_string() + " and " + b.type().to_string());
    Type t = a.type();
    return Call::make_intrinsic(t, op, {std::move(a), std::move(b)});
}
}  // namespace

Expr operator<<(Expr a, Expr b) { return shift(Intrinsic::ShiftLeft, std::move(a), std::move(b), "<<"); }
Expr operator>>(Expr a, Expr b) { return shift(Intrinsic::ShiftRight, std::move(a), std::move(b), ">>"); }

Expr cast(Type t, Expr a) {
    require_defined(a, "cast");
    if (a.type() == t) return a;
    return Cast::make(t, std::move(a));
}

Expr saturating_cast(Type t, Expr a) {
    require_defined(a, "saturating_cast");
    const Type from = a.type();
    if (t.is_float() && from.is_float() && from.bits > t.bits) {
        const double limit = t.bits == 32 ? double(std::numeric_limits<float>::max()) : double(std::numeric_limits<double>::max());
        return cast(t, clamp(std::move(a), make_const(from, -limit), make_const(from, limit)));
    }
    if (t.is_float() || from.is_float() || from.is_bool() || t.is_bool()) return cast(t, std::move(a));
    // Integers: the part of t's range that `from` can hold, in `from`.
    using analysis::detail::i128, analysis::detail::type_min, analysis::detail::type_max;
    const i128 lo = std::max(type_min(t), type_min(from)), hi = std::min(type_max(t), type_max(from));
    if (lo > type_min(from)) a = max(a, make_const(from, int64_t(lo)));
    if (hi < type_max(from)) a = min(a, make_const(from, int64_t(hi)));
    return cast(t, std::move(a));
}

Expr mux(Expr index, const std::vector<Expr> &values) {
    require_defined(index, "mux");
    if (values.empty()) user_error("mux needs at least one value");
    Expr result = values.back();
    for (size_t k = values.size() - 1; k-- > 0;)
        result = select(k == 0 ? (index <= 0) : (index == int(k)), values[k], result);
    return result;
}

Expr likely(Expr e) {
    require_defined(e, "likely");
    return e;
}

Expr reinterpret(Type t, Expr a) {
    require_defined(a, "reinterpret");
    if (a.type().bits != t.bits || a.type().is_bool() || t.is_bool())
        user_error("reinterpret from " + a.type().to_string() + " to " + t.to_string() +
                   ": the types must have the same bit width");
    if (a.type() == t) return a;
    return Call::make_intrinsic(t, Intrinsic::Reinterpret, {std::move(a)});
}

Expr select(Expr c, Expr a, Expr b) {
    require_defined(c, "select");
    require_defined(a, "select");
    require_defined(b, "select");
    if (!c.type().is_bool())
        user_error("The condition of select must be a boolean, got " + c.type().to_string());
    // As in Halide, an int32 constant adapts to the type of the other value.
    if (a.type() != b.type()) {
        if (is_int32_literal(a)) a = cast_literal(as<IntImm>(a), b.type(), "select");
        else if (is_int32_literal(b)) b = cast_literal(as<IntImm>(b), a.type(), "select");
    }
    if (a.type() != b.type())
        user_error("The values of select have different types: " + a.type().to_string() +
                   " and " + b.type().to_string() + "; cast one of them");
    return Select::make(std::move(c), std::move(a), std::move(b));
}

Expr min(Expr a, Expr b) { return detail::binary(detail::BinOp::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return detail::binary(detail::BinOp::Max, std::move(a), std::move(b)); }

Expr clamp(Expr a, Expr lo, Expr hi) {
    require_defined(a, "clamp");
    require_defined(lo, "clamp");
    require_defined(hi, "clamp");
    Type t = a.type();
    auto adapt = [&](Expr e) {
        if (is_int32_literal(e) && t != e.type()) return cast_literal(as<IntImm>(e), t, "clamp");
        return cast(t, std::move(e));
    };
    lo = adapt(std::move(lo));
    hi = adapt(std::move(hi));
    return Min::make(Max::make(std::move(a), std::move(lo)), std::move(hi));
}

Expr abs(Expr a) {
    require_defined(a, "abs");
    Type t = a.type();
    if (t.is_bool()) user_error("abs of a boolean");
    Type r = t.is_int() ? UInt(t.bits, t.lanes) : t;
    return Call::make_intrinsic(r, Intrinsic::Abs, {std::move(a)});
}

Expr absd(Expr a, Expr b) {
    require_defined(a, "absd");
    require_defined(b, "absd");
    match_types(a, b);
    Type t = a.type();
    if (t.is_bool()) user_error("absd of booleans");
    Type r = t.is_int() ? UInt(t.bits, t.lanes) : t;
    return Call::make_intrinsic(r, Intrinsic::Absd, {std::move(a), std::move(b)});
}

namespace {
/** popcount, count_leading_zeros, count_trailing_zeros: of an integer, in its own type. */
Expr bit_count(Intrinsic op, Expr x, const char *name) {
    require_defined(x, name);
    const Type t = x.type();
    if (!t.is_int() && !t.is_uint())
        user_error(std::string(name) + " of a " + t.to_string() + ": it counts the bits of an integer");
    return Call::make_intrinsic(t, op, {std::move(x)});
}
}  // namespace

Expr popcount(Expr x) { return bit_count(Intrinsic::PopCount, std::move(x), "popcount"); }
Expr count_leading_zeros(Expr x) { return bit_count(Intrinsic::CountLeadingZeros, std::move(x), "count_leading_zeros"); }
Expr count_trailing_zeros(Expr x) { return bit_count(Intrinsic::CountTrailingZeros, std::move(x), "count_trailing_zeros"); }

Expr sqrt(Expr x) { return float_call(Intrinsic::Sqrt, std::move(x), "sqrt"); }
Expr exp(Expr x) { return float_call(Intrinsic::Exp, std::move(x), "exp"); }
Expr log(Expr x) { return float_call(Intrinsic::Log, std::move(x), "log"); }
Expr pow(Expr x, Expr y) { return float_call2(Intrinsic::Pow, std::move(x), std::move(y), "pow"); }
Expr sin(Expr x) { return float_call(Intrinsic::Sin, std::move(x), "sin"); }
Expr cos(Expr x) { return float_call(Intrinsic::Cos, std::move(x), "cos"); }
Expr tan(Expr x) { return float_call(Intrinsic::Tan, std::move(x), "tan"); }
Expr asin(Expr x) { return float_call(Intrinsic::Asin, std::move(x), "asin"); }
Expr acos(Expr x) { return float_call(Intrinsic::Acos, std::move(x), "acos"); }
Expr atan(Expr x) { return float_call(Intrinsic::Atan, std::move(x), "atan"); }
Expr atan2(Expr y, Expr x) { return float_call2(Intrinsic::Atan2, std::move(y), std::move(x), "atan2"); }
Expr sinh(Expr x) { return float_call(Intrinsic::Sinh, std::move(x), "sinh"); }
Expr cosh(Expr x) { return float_call(Intrinsic::Cosh, std::move(x), "cosh"); }
Expr tanh(Expr x) { return float_call(Intrinsic::Tanh, std::move(x), "tanh"); }
Expr asinh(Expr x) { return float_call(Intrinsic::Asinh, std::move(x), "asinh"); }
Expr acosh(Expr x) { return float_call(Intrinsic::Acosh, std::move(x), "acosh"); }
Expr atanh(Expr x) { return float_call(Intrinsic::Atanh, std::move(x), "atanh"); }
Expr floor(Expr x) { return float_call(Intrinsic::Floor, std::move(x), "floor"); }
Expr ceil(Expr x) { return float_call(Intrinsic::Ceil, std::move(x), "ceil"); }
Expr round(Expr x) { return float_call(Intrinsic::Round, std::move(x), "round"); }
Expr trunc(Expr x) { return float_call(Intrinsic::Trunc, std::move(x), "trunc"); }
Expr fract(Expr x) {
    require_defined(x, "fract");
    x = to_float(std::move(x));
    return x - trunc(x);
}

namespace {
Expr float_predicate(Intrinsic op, Expr x, const char *name) {
    require_defined(x, name);
    if (!x.type().is_float()) user_error(std::string(name) + " needs a float operand, got " + x.type().to_string());
    Type t = Bool(x.type().lanes);  // before x is moved: argument evaluation order is unspecified
    return Call::make_intrinsic(t, op, {std::move(x)});
}
}  // namespace

Expr is_nan(Expr x) { return float_predicate(Intrinsic::IsNan, std::move(x), "is_nan"); }
Expr is_inf(Expr x) { return float_predicate(Intrinsic::IsInf, std::move(x), "is_inf"); }
Expr is_finite(Expr x) { return float_predicate(Intrinsic::IsFinite, std::move(x), "is_finite"); }

Expr lerp(Expr a, Expr b, Expr w) {
    require_defined(a, "lerp");
    require_defined(b, "lerp");
    require_defined(w, "lerp");
    match_types(a, b);
    if (!a.type().is_float())
        user_error("lerp is defined on float values here; got " + a.type().to_string() +
                   " (cast the values to float first)");
    // Halide's definition of a float lerp, so that ported code computes the same values:
    // the weights of both ends, each rounded once. (It is exact at the ends: lerp(a, b, 1)
    // is b for a finite a, where a + (b - a) * 1 may not be.)
    Type t = a.type();
    w = cast(t, std::move(w));
    return a * (cast(t, 1.0f) - w) + b * w;
}

namespace detail {

Expr print_part(const std::string &text) { return StringImm::make(text); }

namespace {
/** op(condition, value, parts...) of print_when or require, once `parts` starts with a
 * value (the callers check that, with their own messages). */
Expr effect_call(Intrinsic op, const char *name, const char *condition_of, Expr condition, std::vector<Expr> parts) {
    require_defined(condition, condition_of);
    if (!condition.type().is_bool())
        user_error(std::string("The condition of ") + condition_of + " must be a boolean, got " + condition.type().to_string());
    for (const Expr &p : parts) require_defined(p, name);
    const Type t = parts[0].type();
    parts.insert(parts.begin(), std::move(condition));
    return Call::make_intrinsic(t, op, std::move(parts));
}
}  // namespace

Expr make_print(Expr condition, std::vector<Expr> parts) {
    if (parts.empty() || !parts[0].defined()) user_error("print needs a value to return (its first argument)");
    if (as<StringImm>(parts[0]))
        user_error("print returns its first argument, which must be a value, not the text \"" + as<StringImm>(parts[0])->value +
                   "\" (print(x, \"text\") prints both)");
    return effect_call(Intrinsic::Print, "print", "print_when", std::move(condition), std::move(parts));
}

Expr make_require(Expr condition, std::vector<Expr> parts) {
    if (parts.empty() || !parts[0].defined() || as<StringImm>(parts[0]))
        user_error("require needs the value to return after its condition (require(condition, value, message...))");
    return effect_call(Intrinsic::Require, "require", "require", std::move(condition), std::move(parts));
}

}  // namespace detail

Expr print(const std::vector<Expr> &parts) {
    if (parts.empty()) user_error("print needs a value to return (its first argument)");
    return detail::make_print(make_bool(true), parts);
}

}  // namespace tessera
