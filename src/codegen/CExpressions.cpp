// Scalar expressions, lane by lane: each operation is a C temporary computed with exactly
// the meaning of src/ir/Scalar.h (wrapping integer arithmetic in unsigned types,
// Euclidean division and saturating conversions through helpers, library math calls).

#include <functional>

#include "codegen/Emitter.h"
#include "ir/Check.h"
#include "ir/IRPrinter.h"
#include "ir/Scalar.h"

namespace tessera::codegen {

std::string Emitter::scalar(const Expr &e) {
    Lanes l = emit(e);
    TESSERA_INTERNAL_ASSERT(l.size() == 1, "expected a scalar, got " << to_string(e));
    return l[0];
}

Lanes Emitter::emit(const Expr &e) {
    TESSERA_INTERNAL_ASSERT(e.defined(), "undefined expression in a lowered pipeline");
    const bool lane_by_lane = in_gather_index_ && (e.type().is_int() || e.type().is_uint());
    if (native(e.type()) && !lane_by_lane) {
        // The lanes of a native vector are its elements (a bool lane is 0 or 1).
        const std::string v = vec(e);
        Lanes l;
        for (int i = 0; i < e.type().lanes; i++) {
            const std::string x = v + "[" + std::to_string(i) + "]";
            l.push_back(e.type().is_bool() ? "(uint8_t)(" + x + " & 1)" : x);
        }
        return l;
    }
    Lanes l = emit_lanes(e);
    TESSERA_INTERNAL_ASSERT(int(l.size()) == e.type().lanes,
                            "lanes of " << to_string(e) << ": " << l.size() << " vs " << e.type().lanes);
    return l;
}

Lanes Emitter::per_lane(Type t, const std::function<std::string(int)> &rhs) {
    Lanes out;
    for (int i = 0; i < t.lanes; i++) out.push_back(temp(t.element_of(), rhs(i)));
    return out;
}

std::string Emitter::cast_rhs(Type to, Type from, const std::string &x) {
    if (to == from) return x;
    const std::string T = c_type_name(to);
    if (to.is_bool()) return "(uint8_t)(" + x + " != 0)";
    if (from.is_bool()) return "(" + T + ")" + x;
    if (from.is_float()) {
        if (to.is_float()) return "(" + T + ")" + x;
        const std::string arg = from.bits == 32 ? "(double)" + x : x;
        return helpers_.use("tessera_sat_" + type_suffix(to)) + "(" + arg + ")";
    }
    return "(" + T + ")" + x;  // int -> int (wraps), int -> float (rounds to nearest even)
}

std::string Emitter::wrap_rhs(Type t, const char *op, const std::string &a, const std::string &b) {
    if (t.is_uint() && t.bits >= 32) return a + " " + op + " " + b;
    const std::string W = t.bits <= 32 ? "uint32_t" : "uint64_t";
    // "(int64_t)17" is cast as "(uint64_t)17", not "(uint64_t)(int64_t)17".
    auto widen = [&](const std::string &x) {
        const std::string prefix = "(" + c_type_name(t) + ")";
        if (starts_with(x, prefix) && x.size() > prefix.size() &&
            x.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
            return "(" + W + ")" + x.substr(prefix.size());
        return "(" + W + ")" + x;
    };
    return "(" + c_type_name(t) + ")(" + widen(a) + " " + op + " " + widen(b) + ")";
}

std::string Emitter::binary_rhs(ExprKind k, Type t, const std::string &a, const std::string &b) {
    auto cmp = [&](const char *op) { return "(uint8_t)(" + a + " " + op + " " + b + ")"; };
    switch (k) {
    case ExprKind::EQ: return cmp("==");
    case ExprKind::NE: return cmp("!=");
    case ExprKind::LT: return cmp("<");
    case ExprKind::LE: return cmp("<=");
    case ExprKind::GT: return cmp(">");
    case ExprKind::GE: return cmp(">=");
    case ExprKind::Min:
        if (t.is_bool()) return "(uint8_t)(" + a + " & " + b + ")";
        return a + " < " + b + " ? " + a + " : " + b;
    case ExprKind::Max:
        if (t.is_bool()) return "(uint8_t)(" + a + " | " + b + ")";
        return a + " > " + b + " ? " + a + " : " + b;
    case ExprKind::And:
        TESSERA_INTERNAL_ASSERT(t.is_bool(), "&& on " << t.to_string());
        return "(uint8_t)(" + a + " & " + b + ")";
    case ExprKind::Or:
        TESSERA_INTERNAL_ASSERT(t.is_bool(), "|| on " << t.to_string());
        return "(uint8_t)(" + a + " | " + b + ")";
    default: break;
    }
    TESSERA_INTERNAL_ASSERT(!t.is_bool(), "arithmetic on bool");
    if (t.is_float()) {
        switch (k) {
        case ExprKind::Add: return a + " + " + b;
        case ExprKind::Sub: return a + " - " + b;
        case ExprKind::Mul: return a + " * " + b;
        case ExprKind::Div: return a + " / " + b;
        case ExprKind::Mod: return helpers_.use("tessera_mod_" + type_suffix(t)) + "(" + a + ", " + b + ")";
        default: break;
        }
    } else {
        switch (k) {
        case ExprKind::Add: return wrap_rhs(t, "+", a, b);
        case ExprKind::Sub: return wrap_rhs(t, "-", a, b);
        case ExprKind::Mul: return wrap_rhs(t, "*", a, b);
        case ExprKind::Div: return helpers_.use("tessera_div_" + type_suffix(t)) + "(" + a + ", " + b + ")";
        case ExprKind::Mod: return helpers_.use("tessera_mod_" + type_suffix(t)) + "(" + a + ", " + b + ")";
        default: break;
        }
    }
    TESSERA_INTERNAL_ERROR("binary operator " << int(k) << " on " << t.to_string());
}

Lanes Emitter::emit_binary(ExprKind k, Type t, const Expr &a, const Expr &b) {
    const Type ot = a.type().element_of();
    if (k == ExprKind::Mod && ot.is_int()) {
        // Euclidean modulo by a power of two is the low bits (two's complement): a folded
        // buffer's row index, say. C's % and a sign fix-up would cost a branch or two.
        const Broadcast *bb = as<Broadcast>(b);
        const IntImm *c = as<IntImm>(bb ? bb->value : b);
        if (c && c->value > 0 && (c->value & (c->value - 1)) == 0) {
            Lanes la = emit(a);
            const std::string mask = int_literal(ot, c->value - 1);
            return per_lane(t, [&](int i) { return "(" + c_type_name(ot) + ")((" + lane(la, i) + ") & " + mask + ")"; });
        }
    }
    Lanes la = emit(a), lb = emit(b);
    return per_lane(t, [&](int i) { return binary_rhs(k, ot, lane(la, i), lane(lb, i)); });
}

std::string Emitter::math_name(Intrinsic op, Type t) {
    std::string base;
    switch (op) {
    case Intrinsic::Sqrt: base = "sqrt"; break;
    case Intrinsic::Exp: base = "exp"; break;
    case Intrinsic::Log: base = "log"; break;
    case Intrinsic::Pow: base = "pow"; break;
    case Intrinsic::Sin: base = "sin"; break;
    case Intrinsic::Cos: base = "cos"; break;
    case Intrinsic::Tan: base = "tan"; break;
    case Intrinsic::Asin: base = "asin"; break;
    case Intrinsic::Acos: base = "acos"; break;
    case Intrinsic::Atan: base = "atan"; break;
    case Intrinsic::Atan2: base = "atan2"; break;
    case Intrinsic::Sinh: base = "sinh"; break;
    case Intrinsic::Cosh: base = "cosh"; break;
    case Intrinsic::Tanh: base = "tanh"; break;
    case Intrinsic::Asinh: base = "asinh"; break;
    case Intrinsic::Acosh: base = "acosh"; break;
    case Intrinsic::Atanh: base = "atanh"; break;
    case Intrinsic::Floor: base = "floor"; break;
    case Intrinsic::Ceil: base = "ceil"; break;
    case Intrinsic::Round: base = "rint"; break;  // half to even, as docs/semantics.md §3
    case Intrinsic::Trunc: base = "trunc"; break;
    case Intrinsic::Fma: base = "fma"; break;
    default: return "";
    }
    return t.bits == 32 ? base + "f" : base;
}

Lanes Emitter::emit_print(const Call *c) {
    // One dprintf per lane whose condition holds, with print_part's formats
    // (src/ir/Scalar.h), so that the line is the interpreters' line.
    const Lanes when = emit(c->args[0]);
    std::vector<Lanes> parts(c->args.size());
    std::string format;
    // print_when: the value and the parts, separated by spaces; trace: the parts alone.
    const bool trace = c->op == Intrinsic::Trace;
    if (trace) parts[1] = emit(c->args[1]);
    for (size_t k = trace ? 2 : 1; k < c->args.size(); k++) {
        if (k > 1 && !trace) format += ' ';
        if (const StringImm *text = as<StringImm>(c->args[k])) {
            for (char ch : text->value) format += ch == '%' ? std::string("%%") : std::string(1, ch);
            continue;
        }
        parts[k] = emit(c->args[k]);
        format += print_format(c->args[k].type().element_of());
    }
    format += '\n';
    const std::string print = helpers_.use("dprintf");
    for (int i = 0; i < c->type.lanes; i++) {
        std::string call = print + "(2, " + c_string_literal(format);
        for (size_t k = trace ? 2 : 1; k < c->args.size(); k++) {
            if (parts[k].empty()) continue;
            const Type t = c->args[k].type().element_of();
            const char *as = t.is_float() ? "(double)" : t.is_int() ? "(long long)" : "(unsigned long long)";
            call += ", " + std::string(as) + lane(parts[k], i);
        }
        line("if (" + lane(when, i) + ") " + call + ");");
    }
    return parts[1];
}

Lanes Emitter::emit_call(const Call *c) {
    if (c->call_kind != CallKind::Intrinsic)
        TESSERA_INTERNAL_ERROR("the call to \"" << c->name << "\" must be lowered to a Load before code generation");
    if (writes_line(c->op)) return emit_print(c);
    const Type t = c->type;
    const Type et = t.element_of();
    std::vector<Lanes> args;
    std::vector<Type> at;
    for (const Expr &a : c->args) {
        args.push_back(emit(a));
        at.push_back(a.type().element_of());
    }
    auto arg = [&](size_t k, int i) {
        TESSERA_INTERNAL_ASSERT(k < args.size(), "too few arguments of " << intrinsic_name(c->op));
        return lane(args[k], i);
    };
    const std::string fname = math_name(c->op, et);
    if (!fname.empty()) {
        TESSERA_INTERNAL_ASSERT(et.is_float(), intrinsic_name(c->op) << " of type " << t.to_string());
        return per_lane(t, [&](int i) {
            std::string s = fname + "(";
            for (size_t k = 0; k < args.size(); k++) s += (k ? ", " : "") + arg(k, i);
            return s + ")";
        });
    }
    switch (c->op) {
    case Intrinsic::IsNan:
        return per_lane(t, [&](int i) { return "(uint8_t)(isnan(" + arg(0, i) + ") != 0)"; });
    case Intrinsic::IsInf:
        return per_lane(t, [&](int i) { return "(uint8_t)(isinf(" + arg(0, i) + ") != 0)"; });
    case Intrinsic::IsFinite:
        return per_lane(t, [&](int i) { return "(uint8_t)(isfinite(" + arg(0, i) + ") != 0)"; });
    case Intrinsic::Abs:
        if (at[0].is_float())
            return per_lane(t, [&](int i) { return (at[0].bits == 32 ? "fabsf(" : "fabs(") + arg(0, i) + ")"; });
        if (at[0].is_int())
            return per_lane(t, [&](int i) {
                return helpers_.use("tessera_abs_" + type_suffix(at[0])) + "(" + arg(0, i) + ")";
            });
        TESSERA_INTERNAL_ASSERT(at[0].is_uint(), "abs of " << at[0].to_string());
        return per_lane(t, [&](int i) { return arg(0, i); });
    case Intrinsic::Absd:
        TESSERA_INTERNAL_ASSERT(at.size() == 2 && at[0] == at[1], "absd operand types");
        if (at[0].is_float()) {
            return per_lane(t, [&](int i) {
                const std::string d = temp(at[0], arg(0, i) + " - " + arg(1, i));
                return (at[0].bits == 32 ? "fabsf(" : "fabs(") + d + ")";
            });
        }
        return per_lane(t, [&](int i) {
            return helpers_.use("tessera_absd_" + type_suffix(at[0])) + "(" + arg(0, i) + ", " + arg(1, i) + ")";
        });
    case Intrinsic::BitAnd:
    case Intrinsic::BitOr:
    case Intrinsic::BitXor: {
        const char *op = c->op == Intrinsic::BitAnd ? "&" : c->op == Intrinsic::BitOr ? "|" : "^";
        return per_lane(t, [&](int i) {
            const std::string a = cast_rhs(et, at[0], arg(0, i)), b = cast_rhs(et, at[1], arg(1, i));
            if (et.is_bool()) return "(uint8_t)(" + a + " " + op + " " + b + ")";
            return wrap_rhs(et, op, a, b);
        });
    }
    case Intrinsic::BitNot:
        return per_lane(t, [&](int i) {
            if (et.is_bool()) return "(uint8_t)!" + arg(0, i);
            if (et.is_uint() && et.bits >= 32) return "~" + arg(0, i);
            const std::string W = et.bits <= 32 ? "uint32_t" : "uint64_t";
            return "(" + c_type_name(et) + ")~(" + W + ")" + arg(0, i);
        });
    case Intrinsic::ShiftLeft:
    case Intrinsic::ShiftRight: {
        TESSERA_INTERNAL_ASSERT(at.size() == 2 && et.is_integer() && at[1].is_integer(), "shift operand types");
        const std::string h =
            helpers_.use((c->op == Intrinsic::ShiftLeft ? "tessera_shl_" : "tessera_shr_") + type_suffix(et));
        return per_lane(t, [&](int i) {
            std::string amount;
            if (at[1] == UInt(64)) amount = helpers_.use("tessera_shift_amount_u64") + "(" + arg(1, i) + ")";
            else if (at[1] == Int(64)) amount = arg(1, i);
            else amount = "(int64_t)" + arg(1, i);
            return h + "(" + arg(0, i) + ", " + amount + ")";
        });
    }
    case Intrinsic::Random: {
        TESSERA_INTERNAL_ASSERT(at.size() >= 3, "random_hash without its coordinates");
        const std::string mix = helpers_.use("tessera_random_mix");
        auto u32 = [&](size_t k, int i) { return "(uint32_t)" + arg(k, i); };
        return per_lane(t, [&](int i) {
            std::string h = temp(UInt(32), u32(0, i) + " ^ (" + u32(1, i) + " * 0x9e3779b9u)");
            for (size_t k = 3; k < at.size(); k++) h = temp(UInt(32), mix + "(" + h + ", " + u32(k, i) + ")");
            return mix + "(" + h + ", " + u32(2, i) + ")";
        });
    }
    case Intrinsic::PopCount:
    case Intrinsic::CountLeadingZeros:
    case Intrinsic::CountTrailingZeros: {
        // The operand's bits as an unsigned number of 32 or 64 bits; a zero has as many
        // leading and trailing zeros as its type has bits (the builtins leave it undefined).
        TESSERA_INTERNAL_ASSERT(at.size() == 1 && at[0] == et && et.is_integer() && !et.is_bool(), "bit count types");
        const bool wide = et.bits == 64;
        const std::string U = wide ? "uint64_t" : "uint32_t", ll = wide ? "ll" : "";
        return per_lane(t, [&](int i) {
            const std::string bits = temp(wide ? UInt(64) : UInt(32), "(" + U + ")(" + c_type_name(UInt(et.bits)) + ")" + arg(0, i));
            std::string count;
            if (c->op == Intrinsic::PopCount) count = "__builtin_popcount" + ll + "(" + bits + ")";
            else if (c->op == Intrinsic::CountTrailingZeros)
                count = "(" + bits + " ? __builtin_ctz" + ll + "(" + bits + ") : " + std::to_string(et.bits) + ")";
            else
                count = "(" + bits + " ? __builtin_clz" + ll + "(" + bits + ") - " + std::to_string((wide ? 64 : 32) - et.bits) +
                        " : " + std::to_string(et.bits) + ")";
            return "(" + c_type_name(et) + ")" + count;
        });
    }
    case Intrinsic::Reinterpret: {
        TESSERA_INTERNAL_ASSERT(at.size() == 1 && at[0].bits == et.bits && !et.is_bool(), "reinterpret types");
        Lanes out;
        for (int i = 0; i < t.lanes; i++) {
            const std::string src = lvalue(at[0], arg(0, i));
            const std::string id = "_t" + std::to_string(next_temp_++);
            line(c_type_name(et) + " " + id + ";");
            line("memcpy(&" + id + ", &" + src + ", sizeof(" + id + "));");
            out.push_back(id);
        }
        return out;
    }
    default: break;
    }
    TESSERA_INTERNAL_ERROR("no C code for intrinsic " << intrinsic_name(c->op));
}

Lanes Emitter::emit_lanes(const Expr &e) {
    const Type t = e.type();
    switch (e->kind) {
    case ExprKind::IntImm: return {int_literal(t, as<IntImm>(e)->value)};
    case ExprKind::UIntImm: return {uint_literal(t, as<UIntImm>(e)->value)};
    case ExprKind::FloatImm: return {float_literal(t, as<FloatImm>(e)->value)};
    case ExprKind::StringImm:
        TESSERA_INTERNAL_ERROR("string \"" << as<StringImm>(e)->value << "\" outside an assertion message");
    case ExprKind::Variable: {
        const Variable *v = as<Variable>(e);
        auto it = vars_.find(v->name);
        TESSERA_INTERNAL_ASSERT(it != vars_.end() && !it->second.empty(),
                                "variable \"" << v->name << "\" is not bound in pipeline " << p_.name);
        const VarBinding &b = it->second.back();
        TESSERA_INTERNAL_ASSERT(b.type == t, "variable \"" << v->name << "\" has type " << t.to_string()
                                                           << " but is bound to a " << b.type.to_string());
        if (t.is_scalar()) return {b.ident};
        Lanes l;
        for (int i = 0; i < t.lanes; i++) l.push_back(b.ident + "[" + std::to_string(i) + "]");
        return l;
    }
    case ExprKind::Cast: {
        const Cast *c = as<Cast>(e);
        const Type from = c->value.type().element_of();
        // An int32 loop variable widened to 64 bits is its loop's 64-bit counter.
        if (const Variable *lv = as<Variable>(c->value); lv && t == Int(64) && from == Int(32)) {
            auto it = vars_.find(lv->name);
            if (it != vars_.end() && !it->second.empty() && !it->second.back().counter.empty()) return {it->second.back().counter};
        }
        Lanes v = emit(c->value);
        if (from == t.element_of()) return v;
        // A conversion known to be in range is C's own (defined there).
        if (c->in_range) return per_lane(t, [&](int i) { return "(" + c_type_name(t.element_of()) + ")" + lane(v, i); });
        return per_lane(t, [&](int i) { return cast_rhs(t.element_of(), from, lane(v, i)); });
    }
#define TESSERA_CG_BINARY(N) \
case ExprKind::N: return emit_binary(ExprKind::N, t, as<N>(e)->a, as<N>(e)->b);
        TESSERA_CG_BINARY(Add)
        TESSERA_CG_BINARY(Sub)
        TESSERA_CG_BINARY(Mul)
        TESSERA_CG_BINARY(Div)
        TESSERA_CG_BINARY(Mod)
        TESSERA_CG_BINARY(Min)
        TESSERA_CG_BINARY(Max)
        TESSERA_CG_BINARY(EQ)
        TESSERA_CG_BINARY(NE)
        TESSERA_CG_BINARY(LT)
        TESSERA_CG_BINARY(LE)
        TESSERA_CG_BINARY(GT)
        TESSERA_CG_BINARY(GE)
        TESSERA_CG_BINARY(And)
        TESSERA_CG_BINARY(Or)
#undef TESSERA_CG_BINARY
    case ExprKind::Not: {
        Lanes a = emit(as<Not>(e)->a);
        return per_lane(t, [&](int i) { return "(uint8_t)!" + lane(a, i); });
    }
    case ExprKind::Select: {
        const Select *s = as<Select>(e);
        // Every operand is evaluated (into temporaries) before the choice.
        Lanes c = emit(s->condition), a = emit(s->true_value), b = emit(s->false_value);
        return per_lane(t, [&](int i) { return lane(c, i) + " ? " + lane(a, i) + " : " + lane(b, i); });
    }
    case ExprKind::Call: return emit_call(as<Call>(e));
    case ExprKind::Let: {
        const Let *l = as<Let>(e);
        bind_value(l->name, l->value);
        Lanes r = emit(l->body);
        vars_[l->name].pop_back();
        return r;
    }
    case ExprKind::Load: {
        memory_accesses_++;
        const Load *ld = as<Load>(e);
        const BufBinding &b = buffer(ld->buffer);
        check_element_type(ld->buffer, b, t.element_of());
        in_gather_index_++;
        Lanes idx = emit(ld->index);
        in_gather_index_--;
        return per_lane(t, [&](int i) {
            const std::string x = b.ident + "[" + lane(idx, i) + "]";
            return t.is_bool() ? "(uint8_t)(" + x + " != 0)" : x;
        });
    }
    case ExprKind::Ramp: {
        const Ramp *r = as<Ramp>(e);
        const std::string base = scalar(r->base), stride = scalar(r->stride);
        const Type et = t.element_of();
        TESSERA_INTERNAL_ASSERT(et.is_int() || et.is_uint() || et.is_float(), "ramp of " << t.to_string());
        // Lane i is base + i * stride in the element type, as in the IR interpreter. With
        // a constant integer stride, i * stride is folded (with wrapping).
        const IntImm *cs = as<IntImm>(r->stride);
        const UIntImm *cu = as<UIntImm>(r->stride);
        Lanes out;
        for (int i = 0; i < r->lanes; i++) {
            if (et.is_float()) {
                const std::string m = temp(et, float_literal(et, double(i)) + " * " + stride);
                out.push_back(temp(et, base + " + " + m));
            } else if (i == 0) {
                out.push_back(base);
            } else if (cs || cu) {
                const ir::Scalar k = ir::binary(
                    ExprKind::Mul, et, cs ? ir::make_int(i) : ir::make_uint(uint64_t(i)),
                    cs ? ir::make_int(cs->value) : ir::make_uint(cu->value));
                const std::string lit = cs ? int_literal(et, k.i) : uint_literal(et, k.u);
                out.push_back(temp(et, wrap_rhs(et, "+", base, lit)));
            } else {
                const std::string k = et.is_int() ? int_literal(et, i) : uint_literal(et, uint64_t(i));
                const std::string m = temp(et, wrap_rhs(et, "*", k, stride));
                out.push_back(temp(et, wrap_rhs(et, "+", base, m)));
            }
        }
        return out;
    }
    case ExprKind::Broadcast: {
        const Broadcast *b = as<Broadcast>(e);
        const std::string v = scalar(b->value);
        return Lanes(b->lanes, v);
    }
    }
    TESSERA_INTERNAL_ERROR("no C code for expression " << to_string(e));
}

void Emitter::bind_value(const std::string &name, const Expr &value) {
    const Type t = value.type();
    if (const Variable *v = as<Variable>(value); v && t.is_scalar()) {
        // A copy of a scalar variable is that C variable: two names of one value (CSE names
        // a repeated whole value by its first let) stay one in the closures of outlined
        // functions too, where the C compiler could no longer see that they are equal.
        auto it = vars_.find(v->name);
        if (it != vars_.end() && !it->second.empty() && it->second.back().type == t) {
            vars_[name].push_back(it->second.back());
            return;
        }
    }
    const bool lane_by_lane = lane_lets_.count(name) > 0;
    if (native(t) && !lane_by_lane) {
        const std::string v = vec(value);
        const std::string id = declare_var(name, t);
        if (!declare_pending_as(v, id, name_comment(name, id)))
            line("const " + vtype(t) + " " + id + " = " + v + ";" + name_comment(name, id));
        vars_[name].back().native = true;
        return;
    }
    if (lane_by_lane) in_gather_index_++;
    Lanes v = emit(value);
    if (lane_by_lane) in_gather_index_--;
    const std::string id = declare_var(name, t);
    const std::string ct = c_type_name(t.element_of());
    if (t.is_scalar()) {
        if (!declare_pending_as(v[0], id, name_comment(name, id)))
            line("const " + ct + " " + id + " = " + v[0] + ";" + name_comment(name, id));
    } else {
        std::string init;
        for (size_t i = 0; i < v.size(); i++) init += (i ? ", " : "") + v[i];
        line("const " + ct + " " + id + "[" + std::to_string(t.lanes) + "] = {" + init + "};" + name_comment(name, id));
    }
}

std::string Emitter::name_comment(const std::string &ir_name, const std::string &id) {
    return ir_name == id ? "" : "  /* " + comment_text(ir_name) + " */";
}

const BufBinding &Emitter::buffer(const std::string &name) {
    auto it = bufs_.find(name);
    TESSERA_INTERNAL_ASSERT(it != bufs_.end() && !it->second.empty(),
                            "buffer \"" << name << "\" is not an argument or allocation of pipeline " << p_.name);
    return it->second.back();
}

void Emitter::check_element_type(const std::string &name, const BufBinding &b, Type t) {
    const bool byte_bool = (t.is_bool() && b.type == UInt(8)) || (b.type.is_bool() && t == UInt(8));
    TESSERA_INTERNAL_ASSERT(b.type == t || byte_bool, "access of type " << t.to_string() << " to buffer \""
                                                                         << name << "\" of type "
                                                                         << b.type.to_string());
}

}  // namespace tessera::codegen
