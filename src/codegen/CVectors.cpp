// Native vectors: a vector of 2 to 64 lanes (a power of two) is a GCC/Clang vector type
// (vector_size), so that the C compiler emits SIMD instructions for it without
// auto-vectorizing anything; a vector of bools is a mask of int8 lanes, 0 or -1. Integer
// + - * are done in the unsigned vector type (wrapping), Euclidean division by a constant
// with a shift or a corrected truncating division, min/max/select as masked blends, dense
// loads and stores with memcpy. Anything else is computed lane by lane (CExpressions.cpp)
// and packed.

#include "codegen/Emitter.h"
#include "ir/Check.h"

#include <cmath>

namespace tessera::codegen {

const Ramp *dense_ramp(const Expr &index) {
    const Ramp *r = as<Ramp>(index);
    const IntImm *stride = r ? as<IntImm>(r->stride) : nullptr;
    return stride && stride->value == 1 ? r : nullptr;
}

std::string Emitter::vtype(Type t) {
    const Type et = t.element_of();
    const std::string name =
        "tessera_v" + (et.is_bool() ? std::string("mask") : type_suffix(et)) + "x" + std::to_string(t.lanes);
    if (!vector_typedefs_.count(name)) {
        const int bytes = (et.is_bool() ? 1 : et.bytes()) * t.lanes;
        vector_typedefs_[name] = "typedef " + (et.is_bool() ? std::string("int8_t") : c_type_name(et)) + " " + name +
                                 " __attribute__((vector_size(" + std::to_string(bytes) + ")));";
    }
    return name;
}

std::string Emitter::vint(Type t, bool is_signed) {
    const Type et = t.element_of();
    const int bits = et.is_bool() ? 8 : et.bits;
    return vtype((is_signed ? Int(bits) : UInt(bits)).with_lanes(t.lanes));
}

std::string Emitter::splat(Type t, const std::string &x) {
    std::string s = "(" + vtype(t) + "){";
    for (int i = 0; i < t.lanes; i++) s += (i ? ", " : "") + x;
    return s + "}";
}

std::string Emitter::pack(Type t, const Lanes &l) {
    std::string s = "(" + vtype(t) + "){";
    for (int i = 0; i < t.lanes; i++) {
        const std::string x = l.size() == 1 ? l[0] : l[size_t(i)];
        s += (i ? ", " : "") + (t.is_bool() ? "(int8_t)-(int8_t)" + x : x);
    }
    return vtemp(t, s + "}");
}

bool Emitter::broadcast_const(const Expr &e, int64_t &c) {
    const Broadcast *b = as<Broadcast>(e);
    if (!b) return false;
    if (const IntImm *i = as<IntImm>(b->value)) return c = i->value, true;
    if (const UIntImm *u = as<UIntImm>(b->value)) return u->value <= uint64_t(INT64_MAX) && (c = int64_t(u->value), true);
    return false;
}

std::string Emitter::convert_vector(Type to, const std::string &x, Type from) {
    const Type ft = from.element_of(), tt = to.element_of();
    const int from_bits = ft.is_bool() ? 8 : ft.bits, to_bits = tt.is_bool() ? 8 : tt.bits;
    const bool from_int = !ft.is_float(), to_int = !tt.is_float();
    if (from_int && to_int && from_bits == to_bits) return "(" + vtype(to) + ")(" + x + ")";
    if (from_int && !to_int && from_bits < to_bits) {
        // Exact: an integer narrower than the float's width fits its signed integer type.
        const Type wide = Int(to_bits).with_lanes(to.lanes);
        return "__builtin_convertvector(" + convert_vector(wide, x, from) + ", " + vtype(to) + ")";
    }
    if (!(from_int && to_int)) return "__builtin_convertvector(" + x + ", " + vtype(to) + ")";
    const std::string FV = vtype(from), TV = vtype(to);
    const std::string name = "tessera_convert_" + FV.substr(std::string("tessera_").size()) + "_" +
                             TV.substr(std::string("tessera_").size());
    if (!vector_helpers_.count(name)) {
        const std::string elem = tt.is_bool() ? "int8_t" : c_type_name(tt);
        std::string def = "static inline __attribute__((always_inline, unused)) " + TV + " " + name + "(" + FV +
                          " v) {\n    return (" + TV + "){";
        for (int i = 0; i < to.lanes; i++) def += (i ? ", " : "") + std::string("(") + elem + ")v[" + std::to_string(i) + "]";
        vector_helpers_[name] = def + "};\n}";
    }
    return name + "(" + x + ")";
}

std::string Emitter::fused_multiply_add(Type t) {
    const std::string V = vtype(t);
    const std::string name = "tessera_fma_" + V.substr(std::string("tessera_").size());
    if (vector_helpers_.count(name)) return name;
    const Type et = t.element_of();
    // Lane by lane, the C library's fused multiply-add, which gcc vectorizes: as a vector
    // built from its elements, not a loop over them (a loop inside a reduction's loop keeps
    // gcc from unrolling that loop). C has no vector fma, and a * b + c would not be fused
    // (-ffp-contract=off). Where the target has the instruction, the compiler's builtin for
    // it instead: the same value (one rounding), without the C compiler rebuilding the vector
    // from its lanes (in a register-blocked kernel, a third of its time).
    std::string lanes;
    for (int i = 0; i < t.lanes; i++) {
        const std::string k = "[" + std::to_string(i) + "]";
        lanes += (i ? ", " : "") + std::string(et.bits == 32 ? "__builtin_fmaf(" : "__builtin_fma(") + "a" + k + ", b" +
                 k + ", c" + k + ")";
    }
    const std::string ps = et.bits == 32 ? "ps" : "pd";
    const int bits = et.bits * t.lanes;
    std::string builtin, guard;
    if (bits == 512) {
        guard = "defined(__AVX512F__)";
        builtin = "__builtin_ia32_vfmadd" + ps + "512_mask(a, b, c, " + (t.lanes == 16 ? "(unsigned short)-1" : "(unsigned char)-1") + ", 4)";
    } else if (bits == 256 || bits == 128) {
        guard = "defined(__FMA__)";
        builtin = "__builtin_ia32_vfmadd" + ps + (bits == 256 ? "256" : "") + "(a, b, c)";
    }
    std::string def = "static inline __attribute__((always_inline, unused)) " + V + " " + name + "(" + V + " a, " + V +
                      " b, " + V + " c) {\n";
    if (!guard.empty())
        def += "#if " + guard + " && (defined(__GNUC__) || defined(__clang__))\n    return (" + V + ")" + builtin +
               ";\n#else\n";
    def += "    return (" + V + "){" + lanes + "};\n";
    if (!guard.empty()) def += "#endif\n";
    vector_helpers_[name] = def + "}";
    return name;
}

std::string Emitter::to_mask(Type t, const std::string &cmp, Type operand) {
    return vtemp(Bool().with_lanes(t.lanes),
                 convert_vector(Bool().with_lanes(t.lanes), "(" + cmp + ")", Int(operand.is_bool() ? 8 : operand.bits).with_lanes(t.lanes)));
}

std::string Emitter::mask_as(Type t, const std::string &mask) {
    return convert_vector(Int(t.is_bool() ? 8 : t.bits).with_lanes(t.lanes), mask, Bool().with_lanes(t.lanes));
}

std::string Emitter::blend(Type t, const std::string &mask_wide, const std::string &a, const std::string &b) {
    const std::string vi = vint(t, true);
    return vtemp(t, "(" + vtype(t) + ")(((" + vi + ")" + a + " & " + mask_wide + ") | ((" + vi + ")" + b + " & ~" +
                        mask_wide + "))");
}

std::string Emitter::truncating_vector(const std::string &x, Type ft, Type t) {
    // Into a narrower type through the float's width (the lanes fit its signed integers),
    // whose conversion is one instruction, then narrowed (convert_vector).
    const Type from = ft.element_of();
    const Type same_width = Int(from.bits).with_lanes(t.lanes);
    if (t.element_of().bits < from.bits)
        return vtemp(t, convert_vector(t, vtemp(same_width, "__builtin_convertvector(" + x + ", " + vtype(same_width) + ")"), same_width));
    return vtemp(t, "__builtin_convertvector(" + x + ", " + vtype(t) + ")");
}

std::string Emitter::saturating_vector(const Expr &v, Type t) {
    // A float to an integer type of n bits truncates toward zero, takes NaN to 0 and
    // saturates (docs/semantics.md): values at or past 2^(n-1) (2^n unsigned) become the
    // maximum, those at or below the minimum the minimum. The lanes are first brought into
    // the range the conversion is defined on (NaN to 0; clamped to the minimum, which every
    // float type holds, and to the largest float below the top bound, whose truncation is
    // at most the maximum), converted, and the lanes at or past the top bound then set to
    // the maximum, which the float type may not hold.
    const Type ft = v.type(), from = ft.element_of(), et = t.element_of();
    const int n = et.bits;
    const double top = std::ldexp(1.0, et.is_int() ? n - 1 : n);
    const double below_top = from.bits == 32 ? double(std::nextafter(float(top), 0.0f)) : std::nextafter(top, 0.0);
    const double minimum = et.is_int() ? -top : 0.0;
    const Type fmask = Int(from.bits).with_lanes(t.lanes);
    const std::string FI = vint(ft, true);
    auto where = [&](const std::string &cmp) { return vtemp(fmask, "(" + FI + ")(" + cmp + ")"); };
    const std::string x = vec(v), zero = splat(ft, float_literal(from, 0.0)), lo = splat(ft, float_literal(from, minimum)),
                      hi = splat(ft, float_literal(from, below_top));
    std::string y = blend(ft, where(x + " == " + x), x, zero);
    y = blend(ft, where(y + " > " + lo), y, lo);
    y = blend(ft, where(y + " < " + hi), y, hi);
    const std::string converted = truncating_vector(y, ft, t);
    const std::string past = to_mask(t, x + " >= " + splat(ft, float_literal(from, top)), from);
    const std::string maximum = et.is_int() ? int_literal(et, int64_t((uint64_t(1) << (n - 1)) - 1))
                                            : uint_literal(et, n == 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1);
    return blend(t, vtemp(Int(n).with_lanes(t.lanes), mask_as(t, past)), splat(t, maximum), converted);
}

std::string Emitter::vector_of(const Expr &e) {
    const Type t = e.type();
    const Type et = t.element_of();
    const std::string VT = vtype(t);
    switch (e->kind) {
    case ExprKind::Broadcast: {
        std::string x = scalar(as<Broadcast>(e)->value);
        if (et.is_bool()) x = temp(Int(8), "(int8_t)-(int8_t)" + x);
        return vtemp(t, splat(t, x));
    }
    case ExprKind::Variable: {
        auto it = vars_.find(as<Variable>(e)->name);
        if (it != vars_.end() && !it->second.empty() && it->second.back().native) return it->second.back().ident;
        break;
    }
    case ExprKind::Cast: {
        const Expr &v = as<Cast>(e)->value;
        const Type from = v.type().element_of();
        if (from == et) return vec(v);
        if (et.is_bool()) {
            const std::string x = vec(v);
            return to_mask(t, x + " != " + splat(v.type(), "0"), from);
        }
        if (from.is_bool()) {
            // A mask lane (0 or -1) as 0 or 1, then converted.
            const Type i8 = Int(8).with_lanes(t.lanes);
            const std::string ones = vtemp(i8, "(" + vtype(i8) + ")" + vec(v) + " & " + splat(i8, "1"));
            return vtemp(t, convert_vector(t, ones, i8));
        }
        if (from.is_float() && !et.is_float())
            return as<Cast>(e)->in_range ? truncating_vector(vec(v), v.type(), t) : saturating_vector(v, t);
        return vtemp(t, convert_vector(t, vec(v), v.type()));
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul: {
        const Expr &ea = e->kind == ExprKind::Add ? as<Add>(e)->a : e->kind == ExprKind::Sub ? as<Sub>(e)->a : as<Mul>(e)->a;
        const Expr &eb = e->kind == ExprKind::Add ? as<Add>(e)->b : e->kind == ExprKind::Sub ? as<Sub>(e)->b : as<Mul>(e)->b;
        const char *op = e->kind == ExprKind::Add ? " + " : e->kind == ExprKind::Sub ? " - " : " * ";
        const std::string a = vec(ea), b = vec(eb);
        if (et.is_float()) return vtemp(t, a + op + b);
        if (et.is_bool()) break;
        const std::string vu = vint(t, false);
        return vtemp(t, "(" + VT + ")((" + vu + ")" + a + op + "(" + vu + ")" + b + ")");
    }
    case ExprKind::Div:
    case ExprKind::Mod: {
        const bool div = e->kind == ExprKind::Div;
        const Expr &ea = div ? as<Div>(e)->a : as<Mod>(e)->a;
        const Expr &eb = div ? as<Div>(e)->b : as<Mod>(e)->b;
        if (et.is_float()) {
            if (div) return vtemp(t, vec(ea) + " / " + vec(eb));
            break;
        }
        int64_t c;
        if (et.is_bool() || !broadcast_const(eb, c) || c <= 0) break;
        const std::string a = vec(ea), C = splat(t, int_or_uint_literal(et, c));
        if (et.is_uint()) return vtemp(t, a + (div ? " / " : " % ") + C);
        if ((c & (c - 1)) == 0) {
            int k = 0;
            while ((int64_t(1) << k) < c) k++;
            // Euclidean division by 2^k is the arithmetic shift; the remainder the low bits.
            if (div) return vtemp(t, a + " >> " + splat(t, std::to_string(k)));
            return vtemp(t, a + " & " + splat(t, int_or_uint_literal(et, c - 1)));
        }
        const std::string vu = vint(t, false);
        const std::string q = vtemp(t, a + " / " + C);
        const std::string r = vtemp(t, "(" + VT + ")((" + vu + ")" + a + " - (" + vu + ")" + q + " * (" + vu + ")" + C + ")");
        const std::string neg = vtemp(t, "(" + VT + ")(" + r + " < " + splat(t, "0") + ")");  // -1 where r < 0
        if (div) return vtemp(t, "(" + VT + ")((" + vu + ")" + q + " + (" + vu + ")" + neg + ")");
        return vtemp(t, r + " + (" + neg + " & " + C + ")");
    }
    case ExprKind::Min:
    case ExprKind::Max: {
        const bool mn = e->kind == ExprKind::Min;
        const std::string a = vec(mn ? as<Min>(e)->a : as<Max>(e)->a), b = vec(mn ? as<Min>(e)->b : as<Max>(e)->b);
        if (et.is_bool()) return vtemp(t, a + (mn ? " & " : " | ") + b);
        // Exactly a < b ? a : b (a > b ? a : b), NaN included.
        const std::string m = vtemp(Int(et.bits).with_lanes(t.lanes), std::string("(") + vint(t, true) + ")(" + a +
                                                                        (mn ? " < " : " > ") + b + ")");
        return blend(t, m, a, b);
    }
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE: {
        Expr ea, eb;
        const char *op = "";
        switch (e->kind) {
        case ExprKind::EQ: ea = as<EQ>(e)->a, eb = as<EQ>(e)->b, op = " == "; break;
        case ExprKind::NE: ea = as<NE>(e)->a, eb = as<NE>(e)->b, op = " != "; break;
        case ExprKind::LT: ea = as<LT>(e)->a, eb = as<LT>(e)->b, op = " < "; break;
        case ExprKind::LE: ea = as<LE>(e)->a, eb = as<LE>(e)->b, op = " <= "; break;
        case ExprKind::GT: ea = as<GT>(e)->a, eb = as<GT>(e)->b, op = " > "; break;
        default: ea = as<GE>(e)->a, eb = as<GE>(e)->b, op = " >= "; break;
        }
        const Type ot = ea.type().element_of();
        if (ot.is_bool()) break;
        return to_mask(t, vec(ea) + op + vec(eb), ot);
    }
    case ExprKind::And: return vtemp(t, vec(as<And>(e)->a) + " & " + vec(as<And>(e)->b));
    case ExprKind::Or: return vtemp(t, vec(as<Or>(e)->a) + " | " + vec(as<Or>(e)->b));
    case ExprKind::Not: return vtemp(t, "~" + vec(as<Not>(e)->a));
    case ExprKind::Select: {
        const Select *sel = as<Select>(e);
        const std::string c = vec(sel->condition), a = vec(sel->true_value), b = vec(sel->false_value);
        if (et.is_bool()) return vtemp(t, "(" + c + " & " + a + ") | (~" + c + " & " + b + ")");
        const std::string m = vtemp(Int(et.bits).with_lanes(t.lanes), mask_as(t, c));
        return blend(t, m, a, b);
    }
    case ExprKind::Load: {
        memory_accesses_++;
        const Load *ld = as<Load>(e);
        const Ramp *r = dense_ramp(ld->index);
        if (!r) break;  // strided and gathered loads: lane by lane
        const BufBinding &b = buffer(ld->buffer);
        check_element_type(ld->buffer, b, et);
        const std::string base = scalar(r->base);
        const Type mem = et.is_bool() ? UInt(8).with_lanes(t.lanes) : t;
        const std::string id = "_t" + std::to_string(next_temp_++);
        line(vtype(mem) + " " + id + ";");
        line("memcpy(&" + id + ", &" + b.ident + "[" + base + "], sizeof(" + id + "));");
        if (et.is_bool()) return vtemp(t, "(" + VT + ")(" + splat(mem, "0") + " - " + id + ")");
        return id;
    }
    case ExprKind::Call: {
        const Call *c = as<Call>(e);
        if (c->call_kind != CallKind::Intrinsic) break;
        if ((c->op == Intrinsic::BitAnd || c->op == Intrinsic::BitOr || c->op == Intrinsic::BitXor) &&
            c->args.size() == 2 && c->args[0].type() == t && c->args[1].type() == t) {
            const char *op = c->op == Intrinsic::BitAnd ? " & " : c->op == Intrinsic::BitOr ? " | " : " ^ ";
            return vtemp(t, vec(c->args[0]) + op + vec(c->args[1]));
        }
        if (c->op == Intrinsic::BitNot && !et.is_bool()) return vtemp(t, "~" + vec(c->args[0]));
        if (c->op == Intrinsic::Fma && et.is_float() && c->args.size() == 3)
            return vtemp(t, fused_multiply_add(t) + "(" + vec(c->args[0]) + ", " + vec(c->args[1]) + ", " +
                                vec(c->args[2]) + ")");
        if (c->op == Intrinsic::Reinterpret && !et.is_bool() && !c->args[0].type().is_bool())
            return vtemp(t, "(" + VT + ")" + vec(c->args[0]));
        break;
    }
    case ExprKind::Let: {
        const Let *l = as<Let>(e);
        bind_value(l->name, l->value);
        const std::string r = vec(l->body);
        vars_[l->name].pop_back();
        return r;
    }
    default: break;
    }
    // Lane by lane, then packed.
    return pack(t, emit_lanes(e));
}

std::string Emitter::int_or_uint_literal(Type t, int64_t c) {
    return t.is_int() ? int_literal(t, c) : uint_literal(t, uint64_t(c));
}

}  // namespace tessera::codegen
