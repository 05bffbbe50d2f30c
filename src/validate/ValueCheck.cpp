#include "validate/ValueCheck.h"

#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include <isl/constraint.h>

#include "analysis/ConstMath.h"
#include "ir/Function.h"
#include "ir/IRPrinter.h"
#include "validate/Isl.h"
#include "ir/IRVisitor.h"
#include "validate/Affine.h"
#include "validate/LastWriter.h"
#include "validate/Recurrence.h"
#include "validate/Smt.h"
#include "semantics/Prophecy.h"

namespace tessera::validator {

using namespace ir;

namespace {

/** The tag of a value's name (src/validate/Recurrence.h) for a cell no store wrote. */
constexpr int kUnwritten = -2;

/** Expressions of lowered code and of the algorithm as Z3 terms. Variables are constants
 * of their type's width; the pipeline's input buffers are uninterpreted functions of their
 * coordinates (int32 each); so are the Funcs the code computes into storage (`realized`):
 * such a function stands for the Func's values as the algorithm defines them, and each
 * store of the Func is checked against its definition. The algorithm's calls of other
 * Funcs (inlined ones) are their definitions with the arguments substituted. The values
 * loads read from the pipeline's storage are given by `set_load`. */
/** Thrown where a difference found with floats as uninterpreted operations is to be
 * decided with IEEE terms. */
struct WithIeeeFloats {};

class Encoder {
public:
    /** `ieee`: floats as IEEE terms (src/validate/Smt.h), else as uninterpreted operations. */
    Encoder(z3::context &c, const LoweredPipeline &p, const std::set<const FunctionData *> &realized, bool ieee = false)
        : c_(c), smt_(c), p_(p), realized_(realized), ieee_(ieee) {}

    /** e, in which the variables named in `env` are the terms given there. */
    z3::expr code(const Expr &e, std::map<std::string, z3::expr> *env = nullptr) { return encode(e, env); }

    /** The value of a load of lowered code (by read_key) from storage the code writes. */
    void set_load(const std::string &key, const z3::expr &value) { loads_.insert_or_assign(key, value); }

    /** The values of realized Func f: an uninterpreted function of its coordinates. */
    z3::expr realized(const FunctionData &f, const std::vector<z3::expr> &coords) {
        z3::sort_vector domain(c_);
        for (size_t i = 0; i < coords.size(); i++) domain.push_back(c_.bv_sort(32));
        return apply(z3::function(("Func " + f.name).c_str(), domain, sort_of(f.type)), coords);
    }

    /** The value of input buffer `buffer` at `coords` (int32 terms). */
    z3::expr input_value(const std::string &buffer, Type t, const std::vector<z3::expr> &coords) {
        return apply(input(buffer, t, coords.size()), coords);
    }

    /** The sort of values of type t: bit-vectors for integers, Booleans, and for floats an
     * IEEE format, or an uninterpreted sort per float width (floats are then modelled by
     * the terms that compute them: equal terms, equal values). */
    z3::sort sort_of(Type t) {
        if (t.is_bool()) return c_.bool_sort();
        if (t.is_float() && ieee_) return smt_.sort(t);
        if (t.is_float()) return c_.uninterpreted_sort(("float" + std::to_string(t.bits)).c_str());
        return c_.bv_sort(unsigned(t.bits));
    }

    /** A fresh constant of type t (a value nothing constrains yet). */
    z3::expr fresh(const std::string &name, Type t) { return c_.constant(name.c_str(), sort_of(t)); }

    /** The variable `name` of type t as a 64-bit term (sign- or zero-extended). */
    z3::expr wide(const z3::expr &v, Type t) {
        const unsigned bits = v.get_sort().bv_size();
        return bits == 64 ? v : (t.is_int() ? z3::sext(v, 64 - bits) : z3::zext(v, 64 - bits));
    }
    z3::expr variable64(const std::string &name, Type t) { return wide(variable(name, t), t); }

    /** The value the algorithm defines for Func f at `coords` (an inlined Func: a pure
     * definition). */
    z3::expr algorithm(const FunctionData &f, const std::vector<z3::expr> &coords) {
        if (f.definitions.size() != 1)
            throw Unsupported("Func " + f.name + " has update definitions but is not computed into storage");
        if (++depth_ > 64) throw Unsupported("the algorithm's Funcs nest too deeply to unfold");
        z3::expr r = definition(f, 0, coords, {});
        depth_--;
        return r;
    }

    /** The value definition `stage` of Func f gives iteration (point, rvars); its calls of f
     * itself are the values given by set_call. */
    z3::expr definition(const FunctionData &f, int stage, const std::vector<z3::expr> &point, const std::vector<z3::expr> &rvars) {
        const Definition &d = f.definitions.at(size_t(stage));
        std::map<std::string, z3::expr> env;
        for (size_t i = 0; i < point.size() && i < f.args.size(); i++) {
            if (stage == 0) env.emplace(f.args[i], point[i]);
            else if (const Variable *v = as<Variable>(d.args[i]); v && d.pure_dims[i]) env.emplace(v->name, point[i]);
        }
        for (size_t k = 0; d.rdom && k < d.rdom->dims.size() && k < rvars.size(); k++) env.emplace(d.rdom->dims[k].name, rvars[k]);
        return encode(d.value, &env);
    }

    /** The value named by `name` (its tag, then its coordinates: src/validate/Recurrence.h)
     * among Func f's values: tag -1 its final value at the point, the same uninterpreted
     * function as `realized`; tag j the value an iteration of definition j computes. */
    z3::expr named(const FunctionData &f, const std::vector<z3::expr> &name, const std::string &garbage = "") {
        const size_t n = f.args.size();
        const z3::expr unwritten = garbage.empty() ? c_.bv_val(0, 1) : c_.constant(("the content of " + garbage).c_str(), sort_of(f.type));
        auto stage = [&](size_t j) {
            const Definition &d = f.definitions[j];
            const size_t k = d.rdom ? d.rdom->dims.size() : 0;
            z3::sort_vector domain(c_);
            for (size_t i = 0; i < n + k; i++) domain.push_back(c_.bv_sort(32));
            const z3::func_decl value = z3::function(("Func " + f.name + " definition " + std::to_string(j)).c_str(), domain, sort_of(f.type));
            return apply(value, std::vector<z3::expr>(name.begin() + 1, name.begin() + 1 + long(n + k)));
        };
        const z3::expr final_value = realized(f, std::vector<z3::expr>(name.begin() + 1, name.begin() + 1 + long(n)));
        // The tag is a constant in each piece: the value it names, directly (the same terms
        // on both sides of a comparison, for the congruence).
        const z3::expr tag = name[0].simplify();
        if (tag.is_numeral()) {
            const int64_t t = int64_t(int32_t(uint32_t(tag.get_numeral_uint64())));
            if (t == kUnwritten && !garbage.empty()) return unwritten;
            if (t >= 0 && size_t(t) < f.definitions.size() && f.definitions.size() > 1) return stage(size_t(t));
            return final_value;
        }
        // Tag -2: a cell no store wrote; its content is any value.
        z3::expr v = final_value;
        if (!garbage.empty()) v = z3::ite(name[0] == c_.bv_val(kUnwritten, 32), unwritten, v);
        if (f.definitions.size() == 1) return v;
        for (size_t j = 0; j < f.definitions.size(); j++) v = z3::ite(name[0] == c_.bv_val(int(j), 32), stage(j), v);
        return v;
    }

    /** The fused loops around the statement, and how to tell that a divisor is the extent
     * of a fused loop's inner loop. */
    void set_fused(std::vector<Statement::Fused> fused, std::function<bool(const Expr &, const Expr &)> same) {
        fused_ = std::move(fused);
        same_ = std::move(same);
    }

    /** The value a call of the algorithm reads (a self-call of an update). */
    void set_call(const Call *call, const z3::expr &value) { calls_.insert_or_assign(call, value); }

    /** The constants made for variables, by name (a counterexample's values). */
    const std::map<std::string, std::pair<z3::expr, Type>> &variables() const { return variables_; }

private:
    z3::expr variable(const std::string &name, Type t) {
        if (name == kLane) {
            // One lane variable for every width it is used at (index ramps are int64,
            // coordinate ramps int32): 64 bits, and its low bits where narrower (a lane is
            // small and non-negative).
            z3::expr lane = c_.bv_const(kLane, 64);
            return t.bits == 64 ? lane : lane.extract(unsigned(t.bits) - 1, 0);
        }
        auto it = variables_.find(name);
        if (it != variables_.end()) return it->second.first;
        z3::expr v = c_.constant(name.c_str(), sort_of(t));
        variables_.emplace(name, std::make_pair(v, t));
        return v;
    }

    /** The uninterpreted function of an input buffer, by its argument name. */
    z3::func_decl input(const std::string &buffer, Type t, size_t dims) {
        auto it = inputs_.find(buffer);
        if (it != inputs_.end()) return it->second;
        z3::sort_vector domain(c_);
        for (size_t i = 0; i < dims; i++) domain.push_back(c_.bv_sort(32));
        z3::sort range = sort_of(t);
        z3::func_decl f = z3::function(("input " + buffer).c_str(), domain, range);
        inputs_.emplace(buffer, f);
        return f;
    }

    const PipelineArgument *argument(const std::string &name) const {
        for (const PipelineArgument &a : p_.args)
            if (a.name == name) return &a;
        return nullptr;
    }

    z3::expr apply(const z3::func_decl &f, const std::vector<z3::expr> &args) {
        z3::expr_vector v(c_);
        for (const z3::expr &a : args) v.push_back(a);
        return f(v);
    }

    /** An int32 coordinate as a 32-bit term. */
    z3::expr coordinate(const Expr &e, std::map<std::string, z3::expr> *env) {
        if (e.type() != Int(32)) throw Unsupported("the coordinate " + brief(e) + " is not an int32");
        return encode(e, env);
    }

public:
    /** The coordinates (int32 terms) of the element of pipeline buffer `buffer` (with
     * `dims` dimensions) at flat index `index`: the coefficient of each stride variable,
     * the rest for dimension 0, plus the buffer's min. A coordinate is within int32 (the
     * buffer checks at entry), so its low 32 bits are it. */
    std::vector<z3::expr> point_at(const std::string &buffer, int dims, const Expr &index) {
        const Linear lin = linearize(index, buffer, {});
        const std::string prefix = buffer + ".stride.";
        for (const auto &entry : lin)
            if (!entry.first.empty() && entry.first.compare(0, prefix.size(), prefix) != 0)
                throw Unsupported("the index " + brief(index) + " into " + buffer);
        std::vector<z3::expr> point;
        for (int k = 0; k < std::max(dims, 1); k++) {
            auto it = lin.find(k == 0 ? "" : prefix + std::to_string(k));
            const z3::expr cell = it == lin.end() ? c_.bv_val(0, 64) : encode64(it->second);
            point.push_back(cell.extract(31, 0) + variable(buffer + ".min." + std::to_string(k), Int(32)));
        }
        return point;
    }

    /** For each +, - and * of the code marked as index arithmetic (Add::no_overflow) that
     * was encoded: that its exact value lies in the int32 range. Lowering computes such
     * arithmetic as on integers and the code's correctness rests on it (docs/semantics.md
     * §11: the IR interpreter checks it of every evaluated operation, select operands
     * included); a run where it does not hold is outside what the pipeline promises,
     * not a counterexample. */
    const std::vector<z3::expr> &index_arithmetic_in_range() const { return in_range_; }
    /** Whether an uninterpreted function stood for an operation (floats, intrinsics): a
     * difference found then may not be a real one. */
    bool used_uninterpreted() const { return uninterpreted_; }
    /** Whether float operations were among them (the IEEE terms may then decide). */
    bool floats_uninterpreted() const { return floats_uninterpreted_; }

private:
    /** The uninterpreted function `name` applied to args, with result type t. */
    z3::expr uninterpreted(const std::string &name, Type t, const std::vector<z3::expr> &args) {
        uninterpreted_ = true;
        z3::sort_vector domain(c_);
        for (const z3::expr &a : args) domain.push_back(a.get_sort());
        return apply(z3::function(name.c_str(), domain, sort_of(t)), args);
    }

    z3::expr encode(const Expr &e, std::map<std::string, z3::expr> *env) {
        const Type t = e.type();
        if (t.lanes > 1) throw Unsupported("the vector expression " + brief(e) + " (lanes are taken apart first)");
        if (!t.is_int() && !t.is_uint() && !t.is_bool() && !t.is_float())
            throw Unsupported("the " + t.to_string() + " value " + brief(e));
        switch (e->kind) {
        case ExprKind::FloatImm: {
            if (ieee_) return smt_.constant(t, ir::make_float(as<FloatImm>(e)->value));
            // A constant by its bits (two constants with different bits are not assumed
            // different: only equal terms are known equal).
            const double v = as<FloatImm>(e)->value;
            uint64_t bits = 0;
            if (t.bits == 32) {
                const float f = float(v);
                uint32_t b32 = 0;
                std::memcpy(&b32, &f, 4);
                bits = b32;
            } else {
                std::memcpy(&bits, &v, 8);
            }
            return uninterpreted(t.to_string() + " constant " + std::to_string(bits), t, {});
        }
        case ExprKind::IntImm: return smt_.constant(t, make_int(as<IntImm>(e)->value));
        case ExprKind::UIntImm: return smt_.constant(t, make_uint(as<UIntImm>(e)->value));
        case ExprKind::Variable: {
            const Variable *v = as<Variable>(e);
            if (env)
                if (auto it = env->find(v->name); it != env->end()) return fit(it->second, t);
            if (v->var_kind == VarKind::Reduction) throw Unsupported("the reduction variable " + v->name);
            return variable(v->name, t);
        }
        case ExprKind::Cast: {
            const Cast *c = as<Cast>(e);
            const Type from = c->value.type();
            // A constant converted to a float type is the constant of that type (lowering
            // folds such conversions; they are exact, or round as the C conversion does).
            if (t.is_float() && (t.bits == 32 || t.bits == 64)) {
                if (const FloatImm *f = as<FloatImm>(c->value))
                    return encode(FloatImm::make(t, t.bits == 32 ? double(float(f->value)) : f->value), env);
                if (const IntImm *i = as<IntImm>(c->value))
                    return encode(FloatImm::make(t, t.bits == 32 ? double(float(i->value)) : double(i->value)), env);
                if (const UIntImm *u = as<UIntImm>(c->value); u && !from.is_bool())
                    return encode(FloatImm::make(t, t.bits == 32 ? double(float(u->value)) : double(u->value)), env);
            }
            if ((t.is_float() || from.is_float()) && ieee_) return smt_.cast(t, from, encode(c->value, env));
            if (t.is_float() || from.is_float()) {
                floats_uninterpreted_ = true;
                return uninterpreted("cast " + t.to_string() + " from " + from.to_string(), t, {encode(c->value, env)});
            }
            return smt_.cast(t, from, encode(c->value, env));
        }
        case ExprKind::Not: return !encode(as<Not>(e)->a, env);
        case ExprKind::Let: {
            // A value bound to a name (a traced store's or load's, src/lower/AddTracing.cpp):
            // the body with the name standing for the value's term.
            const Let *l = as<Let>(e);
            std::map<std::string, z3::expr> bound = env ? *env : std::map<std::string, z3::expr>{};
            bound.insert_or_assign(l->name, encode(l->value, env));
            return encode(l->body, &bound);
        }
        case ExprKind::Select: {
            const Select *s = as<Select>(e);
            return z3::ite(encode(s->condition, env), encode(s->true_value, env), encode(s->false_value, env));
        }
        case ExprKind::Load: {
            // Lowered code reads storage it writes (the value the last writer stored), or an
            // input: its coordinates from the flat index.
            const Load *l = as<Load>(e);
            if (auto it = loads_.find(read_key(l->buffer, l->index)); it != loads_.end()) {
                if (!z3::eq(it->second.get_sort(), sort_of(t)))
                    throw Unsupported("the value read from " + l->buffer + " has another type than the Func stored there");
                return it->second;
            }
            const PipelineArgument *a = argument(l->buffer);
            if (!a || a->kind != PipelineArgument::Kind::InputBuffer)
                throw Unsupported("the value read from " + l->buffer + " at " + brief(l->index) + " has no known writer");
            const std::vector<z3::expr> coords = point_at(l->buffer, a->dimensions, l->index);
            return apply(input(l->buffer, t, coords.size()), coords);
        }
        case ExprKind::Call: {
            const Call *c = as<Call>(e);
            if (auto it = calls_.find(c); it != calls_.end()) return it->second;
            if (c->call_kind == CallKind::Func && c->func) {
                std::vector<z3::expr> coords;
                for (const Expr &a : c->args) coords.push_back(coordinate(a, env));
                if (realized_.count(c->func.get())) return realized(*c->func, coords);
                return algorithm(*c->func, coords);
            }
            if (c->call_kind == CallKind::Image) {
                // The algorithm reads an input: the argument holding this Buffer or
                // ImageParam.
                for (const PipelineArgument &a : p_.args) {
                    if (a.kind != PipelineArgument::Kind::InputBuffer) continue;
                    if ((c->buffer && a.buffer == c->buffer) || (c->input && a.input == c->input)) {
                        std::vector<z3::expr> coords;
                        for (const Expr &x : c->args) coords.push_back(coordinate(x, env));
                        return apply(input(a.name, t, coords.size()), coords);
                    }
                }
                throw Unsupported("the input " + c->name + " is not an argument of the pipeline");
            }
            if (c->call_kind == CallKind::Intrinsic && has_effect(c->op))
                return encode(c->args[1], env);  // its value (a print's line is not checked; a
                                                 // require's condition is an assertion of the code)
            if (c->call_kind == CallKind::Intrinsic) {
                // Math and bit operations by name: the same operation on the same terms.
                std::vector<z3::expr> args;
                std::vector<Type> types;
                std::string name = "intrinsic " + std::to_string(int(c->op)) + " " + t.to_string();
                for (const Expr &a : c->args) {
                    args.push_back(encode(a, env));
                    types.push_back(a.type());
                    name += " " + a.type().to_string();
                }
                // With IEEE terms, those the theory has exactly (floor, sqrt, ...); the C
                // library's own functions stay uninterpreted.
                if (ieee_ && !types.empty() && types[0].is_float()) {
                    try {
                        return smt_.intrinsic(c->op, t, types, args);
                    } catch (const Unsupported &) {
                    }
                }
                if (!types.empty() && types[0].is_float()) floats_uninterpreted_ = true;
                return uninterpreted(name, t, args);
            }
            throw Unsupported("the call " + brief(e));
        }
        default: {
            // + - * / % min max, the comparisons, && and ||.
            const Expr *a = nullptr, *b = nullptr;
            if (analysis::detail::binary_operands(e, a, b)) {
                // v / inner and v % inner of a fused loop v: its outer and inner loops (the
                // polyhedra's dimensions), not a division by a variable.
                if (e->kind == ExprKind::Div || e->kind == ExprKind::Mod)
                    if (const Variable *v = as<Variable>(*a))
                        for (const Statement::Fused &f : fused_)
                            if (f.var == v->name && same_(*b, f.inner_extent))
                                return fit(variable(e->kind == ExprKind::Div ? f.outer : f.inner, f.type), t);
                if (a->type().is_float() && ieee_) return smt_.binary(e->kind, a->type(), encode(*a, env), encode(*b, env));
                if (a->type().is_float()) {
                    floats_uninterpreted_ = true;
                    return uninterpreted(a->type().to_string() + " operator " + std::to_string(int(e->kind)), t,
                                         {encode(*a, env), encode(*b, env)});
                }
                const z3::expr x = encode(*a, env), y = encode(*b, env), r = smt_.binary(e->kind, a->type(), x, y);
                if (a->type().is_int() && marked_index_arithmetic(e)) note_in_range(e->kind, x, y, r);  // (only code is marked)
                return r;
            }
            throw Unsupported("the expression " + brief(e) + " is not modelled yet");
        }
        }
    }

    static bool marked_index_arithmetic(const Expr &e) {
        if (const Add *op = as<Add>(e)) return op->no_overflow;
        if (const Sub *op = as<Sub>(e)) return op->no_overflow;
        if (const Mul *op = as<Mul>(e)) return op->no_overflow;
        return false;
    }

    /** Records that x op y = r (signed, of x's width) is exact and in the int32 range. */
    void note_in_range(ExprKind op, const z3::expr &x, const z3::expr &y, const z3::expr &r) {
        z3::expr exact = c_.bool_val(true);
        if (op == ExprKind::Add) exact = z3::bvadd_no_overflow(x, y, true) && z3::bvadd_no_underflow(x, y);
        if (op == ExprKind::Sub) exact = z3::bvsub_no_overflow(x, y) && z3::bvsub_no_underflow(x, y, true);
        if (op == ExprKind::Mul) exact = z3::bvmul_no_overflow(x, y, true) && z3::bvmul_no_underflow(x, y);
        const unsigned bits = r.get_sort().bv_size();
        if (bits > 32)
            exact = exact && z3::sge(r, c_.bv_val(int64_t(INT32_MIN), bits)) && z3::sle(r, c_.bv_val(int64_t(INT32_MAX), bits));
        if (noted_.insert(exact.id()).second) in_range_.push_back(exact);
    }

    /** An int64 index term (its coefficients may mix widths: widened as they are). */
    z3::expr encode64(const Expr &e) { return wide(encode(e, nullptr), e.type()); }

    /** A bit-vector term at the width of type t (a lane, 64 bits, used as an int32). */
    z3::expr fit(const z3::expr &v, Type t) {
        if (!v.is_bv() || t.is_bool() || t.is_float()) return v;
        const unsigned bits = v.get_sort().bv_size(), want = unsigned(t.bits);
        if (bits == want) return v;
        return bits > want ? v.extract(want - 1, 0) : wide(v, t);
    }

    z3::context &c_;
    SmtScalars smt_;
    const LoweredPipeline &p_;
    std::map<std::string, std::pair<z3::expr, Type>> variables_;
    std::map<std::string, z3::func_decl> inputs_;
    const std::set<const FunctionData *> &realized_;
    std::map<std::string, z3::expr> loads_;
    std::map<const Call *, z3::expr> calls_;
    std::vector<Statement::Fused> fused_;
    std::function<bool(const Expr &, const Expr &)> same_;
    int depth_ = 0;
    bool ieee_ = false;
    bool uninterpreted_ = false;
    bool floats_uninterpreted_ = false;
    std::vector<z3::expr> in_range_;
    std::set<unsigned> noted_;
};

/** A bit-vector numeral of the model as the value of integer type t (sign-extended for a
 * signed type). */
int64_t integer_of(const z3::expr &value, Type t) {
    const uint64_t bits = value.get_numeral_uint64();
    const int n = t.bits;
    return t.is_int() && n < 64 ? int64_t(bits << (64 - n)) >> (64 - n) : int64_t(bits);
}

std::string model_values(const z3::model &m, const std::map<std::string, std::pair<z3::expr, Type>> &vars) {
    std::ostringstream o;
    bool first = true;
    for (const auto &[name, v] : vars) {
        const z3::expr value = m.eval(v.first, true);
        o << (first ? "" : ", ") << name << " = ";
        first = false;
        if (v.second.is_bool()) o << (value.is_true() ? "true" : "false");
        else if (value.is_numeral() && v.second.is_int()) o << integer_of(value, v.second);
        else if (value.is_numeral()) o << value.get_numeral_uint64();
        else o << value;
    }
    return o.str();
}

/** " f(x, y)": the point (32-bit coordinate terms) of Func `func` in model m; "" where a
 * coordinate has no value there. */
std::string point_in(const z3::model &m, const std::string &func, const std::vector<z3::expr> &point) {
    std::string text;
    for (const z3::expr &x : point) {
        const z3::expr v = m.eval(x, true).simplify();
        if (!v.is_numeral()) return "";
        const uint64_t bits = v.get_numeral_uint64();
        text += (text.empty() ? "" : ", ") + std::to_string(int64_t(int32_t(uint32_t(bits))));
    }
    return " " + func + "(" + text + ")";
}

/** ", where the code stores a and the algorithm defines b" for terms of type t in model
 * m, where both are values there (not those of uninterpreted floats); else "". */
std::string values_in(const z3::model &m, const z3::expr &stored, const z3::expr &defined, Type t) {
    try {
        z3::context &c = stored.ctx();
        const SmtScalars smt(c);
        // As the interpreter's messages print values (the replays' reports beside it).
        auto shown = [&](const z3::expr &e) { return semantics::scalar_to_string(t, smt.value(t, m.eval(e, true))); };
        if (t.is_float() && stored.get_sort().sort_kind() != Z3_FLOATING_POINT_SORT) return "";
        return " (the code stores " + shown(stored) + " where the algorithm defines " + shown(defined) + ")";
    } catch (const Unsupported &) {
        return "";
    }
}

/** A model of the satisfied `solver` whose integer parameters are small where there is
 * one (extents from 1 to B, the others within [-B, B], for B = 8, 64, 512 in turn), else
 * its model: a counterexample that reads like a case a user would try, and that the IR
 * interpreter can replay. */
z3::model small_model(z3::solver &solver, const std::map<std::string, std::pair<z3::expr, Type>> &vars,
                      const std::map<std::string, Type> &parameters) {
    for (int64_t bound : {8, 64, 512}) {
        solver.push();
        for (const auto &[name, v] : vars) {
            auto it = parameters.find(name);
            if (it == parameters.end() || !it->second.is_int() || !v.first.is_bv() || v.first.get_sort().bv_size() < 16) continue;
            z3::context &c = v.first.ctx();
            const unsigned bits = v.first.get_sort().bv_size();
            const bool extent = name.find(".extent.") != std::string::npos;
            solver.add(z3::sge(v.first, c.bv_val(extent ? 1 : -bound, bits)));
            solver.add(z3::sle(v.first, c.bv_val(bound, bits)));
        }
        const z3::check_result r = solver.check();
        if (r == z3::sat) {
            z3::model m = solver.get_model();
            solver.pop();
            return m;
        }
        solver.pop();
    }
    // The last check answered another question: check the original again for its model.
    solver.check();
    return solver.get_model();
}

/** The integer parameters of the nest (of at most 32 bits) that the model gives values. */
std::map<std::string, int64_t> model_parameters(const z3::model &m, const std::map<std::string, std::pair<z3::expr, Type>> &vars,
                                                const std::map<std::string, Type> &parameters) {
    std::map<std::string, int64_t> values;
    for (const auto &[name, v] : vars) {
        auto it = parameters.find(name);
        if (it == parameters.end() || !(it->second.is_int() || it->second.is_uint()) || it->second.bits > 32) continue;
        const z3::expr value = m.eval(v.first, true);
        if (value.is_numeral()) values[name] = integer_of(value, v.second);
    }
    return values;
}

/** An isl relation (or set, as a relation from nothing) as a Z3 formula: a disjunction over
 * its basic relations of their constraints, on 64-bit terms given by `term` for the input,
 * output and parameter dimensions. The constraints are evaluated on 128 bits, where no sum
 * of the terms times the coefficients isl keeps overflows. Existentially quantified
 * (local) dimensions become fresh constants, bounded so that their products do not
 * overflow either; the formula is meant as a hypothesis, where such constants are
 * existential. (On 64 bits, a local times 6 wrapped around, and the hypothesis held at
 * points outside the relation: a value check refuted a store at an instance that does not
 * read what it was said to.) */
class RelationFormula {
public:
    using Term = std::function<z3::expr(isl_dim_type, unsigned)>;
    RelationFormula(z3::context &c, Term term) : c_(c), term_(std::move(term)) {}

    z3::expr of(const Isl<isl_map> &m) {
        result_ = c_.bool_val(false);
        if (isl_map_foreach_basic_map(m.get(), &RelationFormula::basic, this) != isl_stat_ok || failed_)
            throw Unsupported("a relation has coefficients too large to encode");
        return result_;
    }

private:
    static isl_stat basic(isl_basic_map *bm, void *user) {
        auto *self = static_cast<RelationFormula *>(user);
        self->conjunction_ = self->c_.bool_val(true);
        self->locals_.clear();
        const isl_size n = isl_basic_map_dim(bm, isl_dim_div);
        const int64_t bound = int64_t(1) << 62;
        for (isl_size k = 0; k < n; k++) {
            z3::expr d = self->c_.bv_const(("local " + std::to_string(self->next_local_++)).c_str(), kBits);
            self->conjunction_ = self->conjunction_ && z3::sge(d, self->c_.bv_val(-bound, kBits)) &&
                                 z3::sle(d, self->c_.bv_val(bound, kBits));
            self->locals_.push_back(d);
        }
        const isl_stat r = isl_basic_map_foreach_constraint(bm, &RelationFormula::constraint, self);
        isl_basic_map_free(bm);
        self->result_ = self->result_ || self->conjunction_;
        return r;
    }

    static isl_stat constraint(isl_constraint *c, void *user) {
        auto *self = static_cast<RelationFormula *>(user);
        z3::expr sum = self->c_.bv_val(0, kBits);
        auto add = [&](isl_val *v, const z3::expr *t) {
            const bool integer = isl_val_is_int(v) == isl_bool_true, zero = isl_val_is_zero(v) == isl_bool_true;
            const long limit = t ? (1L << 40) : (1L << 62);  // coefficients, constants
            const long k = integer ? isl_val_get_num_si(v) : 0;
            if (!integer || isl_val_eq_si(v, k) != isl_bool_true || k > limit || k < -limit) self->failed_ = true;
            isl_val_free(v);
            if (!integer || zero) return;
            const z3::expr kv = self->c_.bv_val(int64_t(k), kBits);
            sum = sum + (t ? kv * *t : kv);
        };
        for (isl_dim_type type : {isl_dim_param, isl_dim_in, isl_dim_out}) {
            const isl_size n = isl_constraint_dim(c, type);
            for (isl_size k = 0; k < n; k++) {
                isl_val *v = isl_constraint_get_coefficient_val(c, type, int(k));
                if (isl_val_is_zero(v) == isl_bool_true) {
                    isl_val_free(v);
                    continue;
                }
                const z3::expr t = widened(self->term_(type, unsigned(k)));
                add(v, &t);
            }
        }
        const isl_size n = isl_constraint_dim(c, isl_dim_div);
        for (isl_size k = 0; k < n; k++) add(isl_constraint_get_coefficient_val(c, isl_dim_div, int(k)), &self->locals_[size_t(k)]);
        add(isl_constraint_get_constant_val(c), nullptr);
        const z3::expr zero = self->c_.bv_val(0, kBits);
        self->conjunction_ = self->conjunction_ && (isl_constraint_is_equality(c) ? sum == zero : z3::sge(sum, zero));
        isl_constraint_free(c);
        return isl_stat_ok;
    }

    /** A term on kBits bits, its value kept. */
    static z3::expr widened(const z3::expr &t) {
        const unsigned n = t.get_sort().bv_size();
        return n < kBits ? z3::sext(t, kBits - n) : t;
    }

    static constexpr unsigned kBits = 128;
    z3::context &c_;
    Term term_;
    z3::expr result_{c_}, conjunction_{c_};
    std::vector<z3::expr> locals_;
    int next_local_ = 0;
    bool failed_ = false;
};

/** An isl affine expression (integer-valued, with floors of affine expressions inside) as a
 * 64-bit term over the terms `term` gives for its domain's dimensions and parameters; the
 * coefficients are kept small enough that nothing overflows for int32-range terms. A
 * division becomes a fresh constant q bound by m * q <= n < m * q + m (`constraints`, to
 * be conjoined where the term is used, as a hypothesis): multiplications by constants are
 * much cheaper for the solver than division circuits. */
class AffineTerm {
public:
    using Term = std::function<z3::expr(isl_dim_type, unsigned)>;
    /** `quotients` numbers the fresh quotients: one counter per solver context, so that
     * their names are unique there and the same on every run (the solver's choices, and
     * so whether a query ends within its resource limit, depend on names). */
    AffineTerm(z3::context &c, int &quotients, Term term)
        : c_(c), quotients_(quotients), term_(std::move(term)), constraints_(c.bool_val(true)) {}

    /** The value of an integer-valued aff. */
    z3::expr value(isl_aff *aff) {
        const auto [numerator, denominator] = scaled(aff);
        if (denominator == 1) return numerator;
        const z3::expr q = quotient();
        constraints_ = constraints_ && c_.bv_val(denominator, 64) * q == numerator;  // exact
        return q;
    }

    /** What the quotients satisfy. */
    const z3::expr &constraints() const { return constraints_; }

private:
    /** aff as numerator / denominator, the numerator a term. */
    std::pair<z3::expr, int64_t> scaled(isl_aff *aff) {
        Isl<isl_val> d(isl_aff_get_denominator_val(aff));
        const int64_t denominator = integer(d.copy());
        z3::expr sum = c_.bv_val(int64_t(0), 64);
        auto coefficient = [&](isl_val *v) { return integer(isl_val_mul(v, d.copy())); };
        for (isl_dim_type type : {isl_dim_param, isl_dim_in}) {
            const isl_size n = isl_aff_dim(aff, type);
            for (isl_size k = 0; k < n; k++) {
                const int64_t a = coefficient(isl_aff_get_coefficient_val(aff, type, int(k)));
                if (a != 0) sum = sum + c_.bv_val(a, 64) * term_(type, unsigned(k));
            }
        }
        const isl_size divs = isl_aff_dim(aff, isl_dim_div);
        for (isl_size k = 0; k < divs; k++) {
            const int64_t a = coefficient(isl_aff_get_coefficient_val(aff, isl_dim_div, int(k)));
            if (a == 0) continue;
            Isl<isl_aff> inner(isl_aff_get_div(aff, int(k)));
            if (!inner) throw Unsupported("an affine expression with an unknown division");
            const auto [n, m] = scaled(inner.get());
            sum = sum + c_.bv_val(a, 64) * floor_div(n, m);
        }
        const int64_t constant = coefficient(isl_aff_get_constant_val(aff));
        if (constant != 0) sum = sum + c_.bv_val(constant, 64);
        return {sum, denominator};
    }

    z3::expr floor_div(const z3::expr &n, int64_t m) {
        if (m == 1) return n;
        if (m < 0) throw Unsupported("an affine expression with a negative divisor");
        const z3::expr q = quotient(), k = c_.bv_val(m, 64);
        constraints_ = constraints_ && z3::sle(k * q, n) && z3::slt(n, k * q + k);
        return q;
    }

    /** A fresh quotient, within a range where m * q does not overflow. */
    z3::expr quotient() {
        const z3::expr q = c_.bv_const(("quotient " + std::to_string(quotients_++)).c_str(), 64);
        const int64_t bound = int64_t(1) << 40;
        constraints_ = constraints_ && z3::sge(q, c_.bv_val(-bound, 64)) && z3::sle(q, c_.bv_val(bound, 64));
        return q;
    }

    static int64_t integer(isl_val *v) {
        Isl<isl_val> val(v);
        const bool ok = v && isl_val_is_int(v) == isl_bool_true;
        const long k = ok ? isl_val_get_num_si(v) : 0;
        if (!ok || isl_val_eq_si(v, k) != isl_bool_true || k > (1L << 30) || k < -(1L << 30))
            throw Unsupported("an affine expression with a coefficient too large to encode");
        return k;
    }

    z3::context &c_;
    int &quotients_;
    Term term_;
    z3::expr constraints_;
};

/** Calls `each` on every piece of a piecewise multi-affine function: its domain and the
 * affine functions there. */
void for_each_piece(const Isl<isl_pw_multi_aff> &pieces, const std::function<void(Isl<isl_set>, Isl<isl_multi_aff>)> &each) {
    struct Visit {
        const std::function<void(Isl<isl_set>, Isl<isl_multi_aff>)> &each;
        std::exception_ptr failed;
        static isl_stat piece(isl_set *set, isl_multi_aff *ma, void *user) {
            // Exceptions do not cross isl's C frames: kept, and rethrown after.
            auto *self = static_cast<Visit *>(user);
            Isl<isl_set> s(set);
            Isl<isl_multi_aff> m(ma);
            if (self->failed) return isl_stat_ok;
            try {
                self->each(std::move(s), std::move(m));
            } catch (...) {
                self->failed = std::current_exception();
            }
            return isl_stat_ok;
        }
    } visit{each, nullptr};
    if (isl_pw_multi_aff_foreach_piece(pieces.get(), &Visit::piece, &visit) != isl_stat_ok)
        throw Unsupported("the polyhedral library could not list the pieces of a point");
    if (visit.failed) std::rethrow_exception(visit.failed);
}

/** A single-valued relation on `domain` as a piecewise affine function, simplified within
 * the domain where that keeps it single-valued (a gist may let pieces overlap outside
 * the domain, with other values there). */
Isl<isl_pw_multi_aff> function_on(Isl<isl_map> relation, const Isl<isl_set> &domain) {
    Isl<isl_map> simple = check(isl_map_coalesce(isl_map_gist_domain(relation.copy(), domain.copy())), "a point");
    if (isl_map_is_single_valued(simple.get()) == isl_bool_true)
        return check(isl_pw_multi_aff_from_map(simple.release()), "a point");
    return check(isl_pw_multi_aff_from_map(isl_map_intersect_domain(relation.release(), domain.copy())), "a point");
}

/** What an instance of a statement touches, as functions of the instance that isl
 * computes exactly (piecewise affine): the iteration it runs (its point, and its RVars in
 * an update), the cell it writes (for the output), the value each load from storage reads
 * (named as in src/validate/Recurrence.h), the value each self-call of the algorithm's
 * update reads, and the cell of an input a load reads. */
struct Points {
    struct Part {
        enum class Kind { Iteration, Cell, Stored, SelfCall, Input } kind;
        std::string key;                       // Stored, Input: the load's read_key
        const FunctionData *func = nullptr;    // Stored: the Func whose values it reads
        std::string buffer;                    // Stored, Input, Cell: the buffer
        Type type;
        const Call *call = nullptr;            // SelfCall: the call
        size_t first = 0, dims = 0;            // in the combined function's output

        Part(Kind k, std::string load = "", const FunctionData *f = nullptr, std::string storage = "", Type t = Type())
            : kind(k), key(std::move(load)), func(f), buffer(std::move(storage)), type(t) {}
    };
    std::vector<Part> parts;
    /** { S[i] -> [all parts' coordinates] }, on the common refinement of their pieces. */
    Isl<isl_pw_multi_aff> all;
    /** Where each part is known: `all`'s domain is their intersection. */
    std::vector<Isl<isl_set>> known;

    void add(Part part, Isl<isl_map> relation, const Isl<isl_set> &domain) {
        add(std::move(part), function_on(std::move(relation), domain));
    }
    void add(Part part, Isl<isl_pw_multi_aff> f) {
        part.first = all ? size_t(isl_pw_multi_aff_dim(all.get(), isl_dim_out)) : 0;
        part.dims = size_t(isl_pw_multi_aff_dim(f.get(), isl_dim_out));
        known.push_back(check(isl_pw_multi_aff_domain(f.copy()), "a point's domain"));
        f = check(isl_pw_multi_aff_reset_tuple_id(f.release(), isl_dim_out), "a point");
        all = all ? check(isl_pw_multi_aff_coalesce(isl_pw_multi_aff_flat_range_product(all.release(), f.release())), "the points")
                  : std::move(f);
        parts.push_back(std::move(part));
    }
};

/** The recurrences of the Funcs the code computes into storage, each made when first
 * needed (src/validate/Recurrence.h), and the names of the values their stores write. */
class Recurrences {
public:
    Recurrences(IslContext &ctx, std::map<std::string, Type> &parameters) : ctx_(ctx), parameters_(parameters) {}

    const Recurrence &of(const FunctionData &f) {
        if (auto it = made_.find(&f); it != made_.end()) {
            if (!it->second.second.empty()) throw Unsupported(it->second.second);
            return *it->second.first;
        }
        try {
            auto r = std::make_unique<Recurrence>(ctx_.get(), f, parameters_);
            return *made_.emplace(&f, std::make_pair(std::move(r), std::string())).first->second.first;
        } catch (const Unsupported &u) {
            const std::string why = ctx_.exhausted() ? "the operation limit was reached modelling Func " + f.name : u.what();
            made_.emplace(&f, std::make_pair(nullptr, why));
            throw Unsupported(why);
        }
    }

    /** { W[i] -> V_f[...] }: the value each instance of statement w stores. */
    Isl<isl_map> stored_by(const Statement &w) {
        const Provenance &prov = *w.provenance;
        const Recurrence &r = of(*prov.func);
        if (final_value(prov)) return check(isl_map_apply_range(w.writes.copy(), r.final_names().release()), "a value stored");
        if (!w.iteration) throw Unsupported("the iterations statement S" + std::to_string(w.id) + " runs are not modelled");
        return check(isl_map_apply_range(w.iteration.copy(), r.names(prov.stage).copy()), "a value stored");
    }

private:
    IslContext &ctx_;
    std::map<std::string, Type> &parameters_;
    std::map<const FunctionData *, std::pair<std::unique_ptr<Recurrence>, std::string>> made_;
};

/** The set coordinates of a point. */
std::vector<long> coordinates_of(isl_point *pt, isl_size dims) {
    std::vector<long> v;
    for (isl_size k = 0; k < dims; k++) {
        Isl<isl_val> x(isl_point_get_coordinate_val(pt, isl_dim_set, int(k)));
        v.push_back(isl_val_get_num_si(x.get()));
    }
    return v;
}

/** "name = v" for each dimension and parameter of `set` at its point `pt`. */
std::string describe_point(const Isl<isl_set> &set, isl_point *pt) {
    std::string text;
    const std::vector<long> x = coordinates_of(pt, isl_set_dim(set.get(), isl_dim_set));
    for (size_t k = 0; k < x.size(); k++) {
        const char *name = isl_set_get_dim_name(set.get(), isl_dim_set, unsigned(k));
        text += (k ? ", " : "") + std::string(name ? name : "?") + " = " + std::to_string(x[k]);
    }
    const std::string params = describe_params(set.get(), pt);
    return text + (text.empty() || params.empty() ? "" : ", ") + params;
}

/** describe_point at a small sample of a non-empty set. */
std::string describe_sample(const Isl<isl_set> &set) {
    const Isl<isl_point> pt = small_sample(set, "a sample");
    return describe_point(set, pt.get());
}

/** `stored != defined` with the float terms that both sides compute alike (the same
 * operations on the same operands: Z3 shares equal terms) replaced by fresh constants, the
 * largest first. It is weaker than the question itself (every model of that is one of
 * this), so where this has none, neither has that; and the IEEE operations left to
 * reason about are only those where the two sides differ (x * 1.0f against x, for the x
 * both compute), not the whole computation. Null where nothing is shared. */
std::optional<z3::expr> shared_floats_abstracted(z3::context &c, const z3::expr &stored, const z3::expr &defined) {
    auto subterms = [](const z3::expr &root) {
        std::set<unsigned> ids;
        std::vector<z3::expr> work{root};
        while (!work.empty()) {
            const z3::expr e = work.back();
            work.pop_back();
            if (!ids.insert(e.id()).second || !e.is_app()) continue;
            for (unsigned i = 0; i < e.num_args(); i++) work.push_back(e.arg(i));
        }
        return ids;
    };
    const std::set<unsigned> in_stored = subterms(stored), in_defined = subterms(defined);
    z3::expr_vector from(c), to(c);
    std::set<unsigned> taken;
    // Top-down on each side: a shared float term is replaced whole (its own subterms are
    // then not visited).
    for (int side = 0; side < 2; side++) {
        const std::set<unsigned> &other = side == 0 ? in_defined : in_stored;
        std::vector<z3::expr> work{side == 0 ? stored : defined};
        std::set<unsigned> seen;
        while (!work.empty()) {
            const z3::expr e = work.back();
            work.pop_back();
            if (!seen.insert(e.id()).second || !e.is_app()) continue;
            if (e.get_sort().sort_kind() == Z3_FLOATING_POINT_SORT && e.num_args() > 0 && other.count(e.id())) {
                if (taken.insert(e.id()).second) {
                    from.push_back(e);
                    to.push_back(c.constant(("shared " + std::to_string(taken.size())).c_str(), e.get_sort()));
                }
                continue;
            }
            for (unsigned i = 0; i < e.num_args(); i++) work.push_back(e.arg(i));
        }
    }
    if (from.empty()) return std::nullopt;
    z3::expr a = stored, b = defined;
    return a.substitute(from, to) != b.substitute(from, to);
}

/** Two terms as the same operations on operands of which some differ: the equalities of
 * those operands (integers and bools without uninterpreted functions in them) that make
 * the terms equal, by congruence. An operand of an uninterpreted function (the point of
 * an input or a Func) is a coordinate. */
class Congruence {
public:
    explicit Congruence(z3::context &c) : obligations(c) {}

    /** Whether a and b are the same operations down to operands that `obligations` (added
     * to) equate; false if they differ where no such equality is enough. */
    bool unify(const z3::expr &a, const z3::expr &b, bool coordinate = false) {
        if (z3::eq(a, b)) return true;
        // Integer and bool terms without uninterpreted functions are compared whole (their
        // operands need not match one by one: a sum may be arranged otherwise).
        if ((a.is_bv() || a.is_bool()) && z3::eq(a.get_sort(), b.get_sort()) && !uninterpreted(a) && !uninterpreted(b)) {
            obligations.push_back(a == b);
            coordinates.push_back(coordinate);
            return true;
        }
        if (a.is_app() && b.is_app() && a.num_args() == b.num_args() && a.num_args() > 0 &&
            Z3_is_eq_func_decl(a.ctx(), a.decl(), b.decl())) {
            const bool point = a.decl().decl_kind() == Z3_OP_UNINTERPRETED;
            for (unsigned i = 0; i < a.num_args(); i++)
                if (!unify(a.arg(i), b.arg(i), coordinate || point)) return false;
            return true;
        }
        return false;
    }

    z3::expr_vector obligations;
    std::vector<bool> coordinates;  // per obligation: between coordinates

private:
    bool uninterpreted(const z3::expr &e) {
        auto it = seen_.find(e.id());
        if (it != seen_.end()) return it->second.second;
        bool found = e.is_app() && e.decl().decl_kind() == Z3_OP_UNINTERPRETED && e.num_args() > 0;
        for (unsigned i = 0; !found && e.is_app() && i < e.num_args(); i++) found = uninterpreted(e.arg(i));
        seen_.emplace(e.id(), std::make_pair(e, found));  // e kept alive: its id is not reused
        return found;
    }
    std::map<unsigned, std::pair<z3::expr, bool>> seen_;
};

/** Bit-vector terms of coordinate arithmetic as terms over the integers: exact where no
 * operation wraps, which is what lowering guarantees for coordinates and the pipeline
 * checks at entry (docs/semantics.md §11), as the loop nest model assumes. Sums,
 * differences, products by constants, signed comparisons, selects, extensions and
 * truncations, and divisions and remainders by positive constants (Euclidean); anything
 * else (an unsigned comparison, a product of two variables) has no integer view. The
 * solver decides linear integer arithmetic far better than wide bit-vector arithmetic. */
class IntegerView {
public:
    explicit IntegerView(z3::context &c) : c_(c) {}

    /** The integer view of e, or nothing. */
    std::optional<z3::expr> of(const z3::expr &e) {
        if (auto it = memo_.find(e.id()); it != memo_.end()) return it->second.second;
        std::optional<z3::expr> r = translate(e);
        memo_.emplace(e.id(), std::make_pair(e, r));  // e kept alive: its id is not reused
        return r;
    }

private:
    std::optional<z3::expr> translate(const z3::expr &e) {
        if (!e.is_app()) return std::nullopt;
        const Z3_decl_kind k = e.decl().decl_kind();
        if (e.is_bv() && e.is_numeral()) {
            const unsigned n = e.get_sort().bv_size();
            if (n > 64) {
                // (The relations' constraints, on 128 bits: their numerals are small.)
                const z3::expr v = z3::bv2int(e, true).simplify();
                int64_t small = 0;
                if (n > 128 || !v.is_numeral_i64(small)) return std::nullopt;
                return c_.int_val(small);
            }
            const uint64_t bits = e.get_numeral_uint64();
            const int64_t v = n == 64 ? int64_t(bits) : int64_t(bits << (64 - n)) >> (64 - n);
            return c_.int_val(v);
        }
        if (k == Z3_OP_UNINTERPRETED && e.num_args() == 0) {
            if (e.is_bool()) return e;
            if (!e.is_bv()) return std::nullopt;
            return c_.int_const(("integer " + e.decl().name().str()).c_str());
        }
        if (k == Z3_OP_TRUE || k == Z3_OP_FALSE) return e;
        std::vector<z3::expr> args;
        for (unsigned i = 0; i < e.num_args(); i++) {
            std::optional<z3::expr> a = of(e.arg(i));
            if (!a) return std::nullopt;
            args.push_back(*a);
        }
        // Integer operations need integer operands; a bit-vector wider than 64 bits, or
        // anything else, has no view.
        const bool arithmetic = k == Z3_OP_BADD || k == Z3_OP_BSUB || k == Z3_OP_BNEG || k == Z3_OP_BMUL ||
                                k == Z3_OP_BASHR || k == Z3_OP_BAND || k == Z3_OP_SIGN_EXT || k == Z3_OP_EXTRACT ||
                                k == Z3_OP_SLT || k == Z3_OP_SLEQ || k == Z3_OP_SGT || k == Z3_OP_SGEQ;
        for (const z3::expr &a : args)
            if (arithmetic && !a.is_int()) return std::nullopt;
        if ((k == Z3_OP_EQ || k == Z3_OP_DISTINCT) && !z3::eq(args[0].get_sort(), args[1].get_sort())) return std::nullopt;
        if (k == Z3_OP_ITE && !z3::eq(args[1].get_sort(), args[2].get_sort())) return std::nullopt;
        auto constant = [&](unsigned i) -> std::optional<int64_t> {
            if (!e.arg(i).is_numeral()) return std::nullopt;
            int64_t v = 0;
            if (!args[i].is_numeral_i64(v)) return std::nullopt;
            return v;
        };
        switch (k) {
        case Z3_OP_BADD: {
            z3::expr r = args[0];
            for (size_t i = 1; i < args.size(); i++) r = r + args[i];
            return r;
        }
        case Z3_OP_BSUB: return args[0] - args[1];
        case Z3_OP_BNEG: return -args[0];
        case Z3_OP_BMUL: {
            int constants = 0;
            z3::expr r = args[0];
            for (size_t i = 0; i < args.size(); i++) constants += e.arg(unsigned(i)).is_numeral();
            if (constants + 1 < int(args.size())) return std::nullopt;  // a product of variables
            for (size_t i = 1; i < args.size(); i++) r = r * args[i];
            return r;
        }
        case Z3_OP_BSDIV:
        case Z3_OP_BSDIV_I:
        case Z3_OP_BASHR: {
            std::optional<int64_t> d = constant(1);
            if (!d) return std::nullopt;
            const int64_t divisor = k == Z3_OP_BASHR ? (*d >= 0 && *d < 62 ? int64_t(1) << *d : 0) : *d;
            // bvsdiv truncates; floor division equals it only for a non-negative dividend:
            // only the shift (a floor division) is taken.
            if (k != Z3_OP_BASHR || divisor <= 0) return std::nullopt;
            return args[0] / c_.int_val(divisor);  // Z3's integer division floors for a positive divisor
        }
        case Z3_OP_BAND: {
            std::optional<int64_t> m = constant(1);
            if (!m || *m < 0 || ((*m + 1) & *m) != 0) return std::nullopt;
            return z3::mod(args[0], c_.int_val(*m + 1));
        }
        case Z3_OP_SIGN_EXT:
        case Z3_OP_EXTRACT: return args[0];  // no wrap-around: the value itself
        case Z3_OP_ITE: return z3::ite(args[0], args[1], args[2]);
        case Z3_OP_EQ: return args[0] == args[1];
        case Z3_OP_DISTINCT: return args[0] != args[1];
        case Z3_OP_SLT: return args[0] < args[1];
        case Z3_OP_SLEQ: return args[0] <= args[1];
        case Z3_OP_SGT: return args[0] > args[1];
        case Z3_OP_SGEQ: return args[0] >= args[1];
        case Z3_OP_NOT: return !args[0];
        case Z3_OP_AND: {
            z3::expr_vector v(c_);
            for (const z3::expr &a : args) v.push_back(a);
            return z3::mk_and(v);
        }
        case Z3_OP_OR: {
            z3::expr_vector v(c_);
            for (const z3::expr &a : args) v.push_back(a);
            return z3::mk_or(v);
        }
        default: return std::nullopt;
        }
    }

    z3::context &c_;
    std::map<unsigned, std::pair<z3::expr, std::optional<z3::expr>>> memo_;
};

/** The calls of Func f itself in e (the self-calls of an update's value). */
std::vector<const Call *> self_calls(const Expr &e, const FunctionData &f) {
    struct Find : IRVisitor {
        const FunctionData &f;
        std::vector<const Call *> found;
        explicit Find(const FunctionData &g) : f(g) {}
        using IRVisitor::include;
        void visit(const Call *op) override {
            if (op->call_kind == CallKind::Func && op->func.get() == &f) found.push_back(op);
            IRVisitor::visit(op);
        }
    } find(f);
    find.include(e);
    return find.found;
}

/** The output's window as read after the pipeline: a statement after all others that reads
 * every point of the window, whose last writers say which stored value each point holds. */
struct WindowRead {
    Statement reader;
    Isl<isl_set> window;
    std::vector<ReadSources> sources;

    /** The instances of statement s that write the value a window point keeps (all of
     * them where the last writers say only which point's value each point holds). */
    Isl<isl_set> kept_from(const Statement &s) const {
        Isl<isl_set> kept = check(isl_set_empty(isl_set_get_space(s.domain.get())), "the kept values");
        for (const ReadSources &rs : sources) {
            if (rs.point && rs.sources.empty() && s.store->buffer == rs.read->buffer) return s.domain;
            for (const Source &src : rs.sources)
                if (src.writer->id == s.id)  // (the window may be read off another nest of the same code)
                    kept = check(isl_set_union(kept.release(), isl_map_range(src.instances.copy())), "the kept values");
        }
        return kept;
    }
};

std::unique_ptr<WindowRead> read_window(IslContext &ctx, const LoweredPipeline &p, const PipelineArgument &out,
                                        const LoopNest &nest, std::map<std::string, Type> &parameters,
                                        LastWriterCache &last_writes) {
    ctx.reset_operations();
    auto w = std::make_unique<WindowRead>();
    Statement &reader = w->reader;
    reader.id = int(nest.statements.size());
    reader.positions = {1 << 20};
    const std::map<std::string, Expr> no_lets;
    for (int k = 0; k < out.dimensions; k++) reader.dims.push_back("c" + std::to_string(k));
    Affine affine(ctx.get(), "window", reader.dims, -1, no_lets, parameters);
    Isl<isl_set> window = affine.universe();
    Isl<isl_map> cells;
    for (int k = 0; k < out.dimensions; k++) {
        const Expr c = Variable::make(Int(32), reader.dims[size_t(k)]);
        const Expr mn = Variable::make(Int(32), out.name + ".min." + std::to_string(k));
        const Expr ex = Variable::make(Int(32), out.name + ".extent." + std::to_string(k));
        window = check(isl_set_intersect(window.release(), affine.condition(And::make(GE::make(c, mn), LT::make(c, Add::make(mn, ex)))).release()), "the window");
        Isl<isl_map> m = check(isl_map_from_pw_aff(affine.expr(Sub::make(c, mn)).release()), "a cell");
        cells = cells ? check(isl_map_flat_range_product(cells.release(), m.release()), "a cell") : std::move(m);
    }
    if (!cells) cells = check(isl_map_from_domain(window.copy()), "a cell");
    cells = check(isl_map_set_tuple_name(isl_map_intersect_domain(cells.release(), window.copy()), isl_dim_out, out.name.c_str()), "the cells");
    reader.domain = window;
    reader.reads.push_back({out.name, p.output->type, "the window", std::move(cells), "", Isl<isl_map>(), {}, {}, Isl<isl_map>(), Isl<isl_map>()});
    w->window = std::move(window);
    w->sources = last_writers(ctx, nest, reader, &last_writes);
    return w;
}

/** The output's final values: after the pipeline, each point of the output's window holds
 * the value of the algorithm's last iteration that writes it (checked where the output
 * Func has updates: a pure output's stores each write their own point's value, and
 * coverage says every point is written). */
CheckResult check_final_values(IslContext &ctx, const LoweredPipeline &p, const PipelineArgument &out, const LoopNest &nest,
                               Recurrences &recurrences, const WindowRead &read) {
    ctx.reset_operations();
    const Isl<isl_set> &window = read.window;
    const Recurrence &r = recurrences.of(*p.output);
    // { window[c] -> V[-1, c, 0 ...] }: the final value of the output at c.
    Isl<isl_map> at_point = check(isl_map_from_domain_and_range(
                                      window.copy(), isl_set_universe(isl_space_set_alloc(ctx.get(), 0, unsigned(out.dimensions)))),
                                  "the window's points");
    for (int k = 0; k < out.dimensions; k++) at_point = check(isl_map_equate(at_point.release(), isl_dim_in, k, isl_dim_out, k), "the window's points");
    at_point = check(isl_map_set_tuple_id(at_point.release(), isl_dim_out, Recurrence::func_id(ctx.get(), *p.output)), "the window's points");
    const Isl<isl_map> expected = check(isl_map_apply_range(at_point.copy(), r.final_names().release()), "the final values");
    for (const ReadSources &rs : read.sources) {
        if (!rs.unknown.empty()) throw Unsupported(rs.unknown);
        if (rs.point) {
            // Every point of the window is written, with the final value of the point
            // rs.point names (last_writers): that must be its own.
            if (rs.point_of != p.output.get()) throw Unsupported("the output " + out.name + " holds another Func's values");
            Isl<isl_map> wrong = check(isl_map_subtract(isl_map_intersect_domain(rs.point.copy(), window.copy()), at_point.copy()),
                                       "the values held");
            wrong = check(isl_map_intersect_params(wrong.release(), nest.context.copy()), "the values held");
            if (isl_map_is_empty(wrong.get()) == isl_bool_true || empty_within_wide_ranges(nest, wrong)) continue;
            const Isl<isl_set> where = check(isl_map_domain(wrong.release()), "the values held");
            return {Verdict::Refuted, "after the pipeline, the output " + out.name + " holds, at " + describe_sample(where) +
                                          ", the final value of another point"};
        }
        Isl<isl_set> unwritten = check(isl_set_intersect_params(rs.unwritten.copy(), nest.context.copy()), "the unwritten points");
        if (isl_set_is_empty(unwritten.get()) != isl_bool_true && !empty_within_wide_ranges(nest, unwritten))
            return {Verdict::Refuted, "no store writes the output " + out.name + " at " + describe_sample(unwritten)};
        for (const Source &src : rs.sources) {
            Isl<isl_map> holds = check(isl_map_apply_range(src.instances.copy(), recurrences.stored_by(*src.writer).release()), "the values held");
            holds = check(isl_map_intersect_domain(holds.release(), window.copy()), "the values held");
            Isl<isl_map> wrong = check(isl_map_subtract(holds.release(), expected.copy()), "the values held");
            wrong = check(isl_map_intersect_params(wrong.release(), nest.context.copy()), "the values held");
            if (isl_map_is_empty(wrong.get()) == isl_bool_true || empty_within_wide_ranges(nest, wrong)) continue;
            Isl<isl_set> where = check(isl_map_domain(wrong.copy()), "the values held");
            const Isl<isl_point> pt = small_sample(where, "a sample");
            const std::vector<long> at = coordinates_of(pt.get(), isl_set_dim(where.get(), isl_dim_set));
            Isl<isl_map> one = check(isl_map_intersect_params(wrong.copy(), isl_set_params(isl_set_from_point(pt.copy()))), "a sample");
            for (size_t k = 0; k < at.size(); k++) one = check(isl_map_fix_si(one.release(), isl_dim_in, unsigned(k), int(at[k])), "a sample");
            Isl<isl_set> names = check(isl_map_range(one.release()), "a sample");
            const Isl<isl_point> name = check(isl_set_sample_point(names.copy()), "a sample");
            return {Verdict::Refuted, "after the pipeline, the output " + out.name + " holds, at " + describe_point(where, pt.get()) +
                                          " (statement S" + std::to_string(src.writer->id) + "'s store), " +
                                          r.describe(coordinates_of(name.get(), isl_set_dim(names.get(), isl_dim_set))) +
                                          " instead of its final value"};
        }
    }
    return {Verdict::Proved, ""};
}

}  // namespace

std::string values_proved(const ValueTally &t) {
    return "each of the " + std::to_string(t.stores) +
           " store(s) writes the value the algorithm defines at its point (the output's into that point's cell), "
           "given the values its " + std::to_string(t.loads) + " load(s) read, in " + std::to_string(t.cases) + " case(s)" +
           (t.final_values ? ", and the output holds its final values" : "");
}

CheckResult check_values(IslContext &ctx, const LoweredPipeline &p, const LoopNest &nest, unsigned rlimit,
                         std::map<std::string, int64_t> *run, const ValueCheckScope &scope, ValueTally *tally) {
    const PipelineArgument *out = output_buffer(p);
    if (!out || !p.output) return {Verdict::Unknown, "the pipeline has no output"};
    // The Funcs the code computes into storage: their values are what their stores wrote.
    std::set<const FunctionData *> realized;
    for (const Statement &s : nest.statements)
        if (s.provenance) realized.insert(s.provenance->func.get());
    std::map<std::string, Type> parameters = nest.parameters;
    Recurrences recurrences(ctx, parameters);
    LastWriterCache last_writes;
    std::unique_ptr<WindowRead> window;  // made when first needed
    LastWriterCache window_writes;       // its last writers' (of the output's writers' nest)
    auto output_writers = [&]() -> const LoopNest & { return scope.output_writers ? scope.output_writers() : nest; };
    auto window_read = [&] {
        const LoopNest &writers = output_writers();
        return read_window(ctx, p, *out, writers, parameters, &writers == &nest ? last_writes : window_writes);
    };
    if (!nest.context_hull) return {Verdict::Unknown, "the polyhedral library could not compute the context's hull"};
    const Isl<isl_set> &context_hull = nest.context_hull;
    bool output_read = false;  // whether a statement reads the output buffer back
    for (const Statement &s : nest.statements) output_read = output_read || s.loaded.count(out->name);
    int checked = 0, cases = 0, reads = 0;
    for (const Statement &s : nest.statements) {
        if (scope.checks && !scope.checks(s)) continue;
        if (scope.cancelled && scope.cancelled()) return {Verdict::Unknown, "not checked: an earlier store is not proved"};
        const std::string name = "statement S" + std::to_string(s.id);
        if (!s.writes || !s.value.defined()) return {Verdict::Unknown, name + " is not modelled: " + s.unmodelled};
        const Provenance &prov = *s.provenance;
        const FunctionData &func = *prov.func;
        const std::string what = name + " (a store of " + prov.func_name() +
                                 (prov.stage > 0 ? ", update " + std::to_string(prov.stage - 1) + "," : "") + " to " + s.store->buffer + ")";
        const bool to_output = s.store->buffer == out->name;
        if (to_output && prov.func != p.output)
            return {Verdict::Unknown, what + " stores to the output another Func's values"};
        // An iteration of a Func with updates: its point and RVars, and the values its
        // self-calls read, from the recurrence.
        const bool recurrent = prov.kind == Provenance::Kind::Iteration && func.definitions.size() > 1;
        std::vector<const Call *> calls;
        if (recurrent) calls = self_calls(func.definitions.at(size_t(prov.stage)).value, func);
        // What each instance touches: its point, its cell, and where each load's value comes
        // from (the value its last writer stored, for storage the code writes; the cell, for
        // inputs).
        Points points;
        Isl<isl_set> instances;  // the domain, under the context's hull
        Isl<isl_set> exact;      // the domain, under the context
        // A store whose instances the wide ranges (LoopNest.h) rule out never runs, and its
        // failure is none; asked only on a failure, as their constants cost isl's big
        // integers.
        auto never_runs = [&] {
            if (!exact) return false;
            ctx.reset_operations();
            Isl<isl_set> within = exact;
            try {
                return empty_within_wide_ranges(nest, within);
            } catch (const Unsupported &) {
                return false;
            }
        };
        auto skip = [&] {
            checked++;
            if (scope.store_done) scope.store_done();
        };
        std::string runs_other;
        try {
            ctx.reset_operations();
            // The instances under the context decide what is refuted; the functions of the
            // instances are made under the context's hull (a superset: what holds there
            // holds under the context, whose pieces, the cases of an entry check's
            // clamps, would multiply every function's), and the queries have the entry
            // assertions themselves as hypotheses.
            exact = check(isl_set_intersect_params(s.domain.copy(), nest.context.copy()), "the domain");
            const Isl<isl_set> domain = check(isl_set_intersect_params(s.domain.copy(), context_hull.copy()), "the domain");
            instances = domain;
            if (isl_set_is_empty(exact.get()) == isl_bool_true) {
                skip();  // no instance runs (a part of a partitioned loop the context rules out)
                continue;
            }
            if (recurrent) {
                if (!s.iteration) throw Unsupported("the iterations it runs are not modelled");
                const Recurrence &r = recurrences.of(func);
                // The code runs only iterations the algorithm has (its RDom, its predicate).
                Isl<isl_set> ran = check(isl_map_range(isl_map_intersect_domain(s.iteration.copy(), exact.copy())), "the iterations run");
                Isl<isl_set> extra = check(isl_set_subtract(ran.release(), r.iterations(prov.stage).copy()), "the iterations run");
                if (isl_set_is_empty(extra.get()) != isl_bool_true) {
                    runs_other = what + " runs the iteration " + describe_sample(extra) + ", which the RDom or its predicate excludes";
                    throw Unsupported(runs_other);
                }
                points.add({Points::Part::Kind::Iteration}, s.iteration, domain);
                for (const Call *call : calls) {
                    Isl<isl_map> read = check(isl_map_apply_range(s.iteration.copy(), r.read_by(prov.stage, *call).release()), "a self-call");
                    Points::Part part{Points::Part::Kind::SelfCall};
                    part.call = call;
                    points.add(std::move(part), std::move(read), domain);
                }
            } else {
                points.add({Points::Part::Kind::Iteration}, s.writes, domain);
            }
            if (to_output) {
                if (!s.cells) throw Unsupported("the cells it writes are not modelled: " + s.cells_unmodelled);
                points.add({Points::Part::Kind::Cell, "", nullptr, out->name}, s.cells, domain);
            }
            const std::vector<ReadSources> sources = last_writers(ctx, nest, s, &last_writes);
            for (const ReadSources &r : sources) {
                ctx.reset_operations();  // as last_writers, a budget per load
                if (!r.unknown.empty()) throw Unsupported(r.unknown);
                Isl<isl_set> unwritten;
                if (r.unwritten) {
                    unwritten = check(isl_set_intersect(r.unwritten.copy(), exact.copy()), "the unwritten reads");
                    if (isl_set_is_empty(unwritten.get()) == isl_bool_true || empty_within_wide_ranges(nest, unwritten))
                        unwritten = Isl<isl_set>();
                }
                // Reads of cells no store wrote (their content is any value) are followed
                // where they can reach the window only through the store itself: a store to
                // the output that nothing reads back. Its instances that write what the
                // window keeps must then not depend on that content.
                if (unwritten && (!to_output || output_read))
                    throw Unsupported("it reads cells of " + r.read->buffer +
                                      " that no store wrote before (memory whose content the check does not follow)");
                Isl<isl_pw_multi_aff> read;
                const FunctionData *from = nullptr;
                // Where the point read is known whichever source wrote it, its value; else
                // each source's.
                const bool by_point = r.point && r.point_of && !unwritten;
                if (by_point) {
                    from = r.point_of;
                    read = function_on(check(isl_map_apply_range(r.point.copy(), recurrences.of(*from).final_names().release()),
                                             "the value read"),
                                       domain);
                }
                static const std::vector<Source> none;
                for (const Source &src : by_point ? none : r.sources) {
                    const Provenance &wp = *src.writer->provenance;
                    if (from && from != wp.func.get())
                        throw Unsupported("it reads values of two Funcs from " + r.read->buffer);
                    from = wp.func.get();
                    Isl<isl_map> value = check(isl_map_apply_range(src.instances.copy(), recurrences.stored_by(*src.writer).release()),
                                               "the value read");
                    Isl<isl_pw_multi_aff> f = function_on(std::move(value), domain);
                    read = read ? check(isl_pw_multi_aff_union_add(read.release(), f.release()), "the values read") : std::move(f);
                }
                if (unwritten) {
                    if (!from)
                        for (const Statement &w : nest.statements)
                            if (w.store->buffer == r.read->buffer && w.provenance) from = w.provenance->func.get();
                    if (!from) throw Unsupported("it reads " + r.read->buffer + " where no store writes");
                    const Isl<isl_map> names = recurrences.of(*from).final_names();
                    Isl<isl_map> content = check(isl_map_from_domain_and_range(unwritten.copy(), isl_set_universe(isl_space_range(isl_map_get_space(names.get())))),
                                                 "the unwritten reads");
                    const int width = isl_map_dim(content.get(), isl_dim_out);
                    for (int k = 0; k < width; k++)
                        content = check(isl_map_fix_si(content.release(), isl_dim_out, unsigned(k), k == 0 ? kUnwritten : 0), "the unwritten reads");
                    Isl<isl_pw_multi_aff> f = check(isl_pw_multi_aff_from_map(content.release()), "the unwritten reads");
                    read = read ? check(isl_pw_multi_aff_union_add(read.release(), f.release()), "the values read") : std::move(f);
                }
                if (!read) throw Unsupported("it reads " + r.read->buffer + " where no store writes");
                // Writes of other iterations of a parallel loop to the cells read: a race
                // (the value read depends on the threads' timing) unless they store the
                // value the load sees within its own iteration.
                for (const ReadSources::Race &race : r.races) {
                    const std::string about = "it reads cells of " + r.read->buffer + " that another iteration of parallel loop " +
                                              race.loop + " writes (statement S" + std::to_string(race.writer->id) + ")";
                    if (unwritten) throw Unsupported(about + ", where its own iteration has not written them");
                    Isl<isl_map> racing = check(isl_map_apply_range(race.instances.copy(), recurrences.stored_by(*race.writer).release()),
                                                "a race");
                    Isl<isl_map> seen = check(isl_map_from_pw_multi_aff(read.copy()), "a race");
                    seen = check(isl_map_set_tuple_id(seen.release(), isl_dim_out, isl_map_get_tuple_id(racing.get(), isl_dim_out)), "a race");
                    Isl<isl_map> differ = check(isl_map_subtract(racing.release(), seen.release()), "a race");
                    differ = check(isl_map_intersect_domain(differ.release(), exact.copy()), "a race");
                    if (isl_map_is_empty(differ.get()) == isl_bool_true || empty_within_wide_ranges(nest, differ)) continue;
                    runs_other = what + " reads cells of " + r.read->buffer + " that another iteration of parallel loop " + race.loop +
                                 " writes with another value (statement S" + std::to_string(race.writer->id) + "), at " +
                                 describe_sample(check(isl_map_domain(differ.release()), "a race")) + ": a race";
                    throw Unsupported(runs_other);
                }
                // Sources that store the same value name (two writers of one point, as in
                // the overlap of a ShiftInwards split) make pieces with one expression.
                read = check(isl_pw_multi_aff_coalesce(read.release()), "the values read");
                points.add({Points::Part::Kind::Stored, r.read->key, from, r.read->buffer, r.read->type}, std::move(read));
            }
            // Loads from inputs: the input at the cell's coordinates (the cell plus the
            // buffer's min), where isl gives the cell in a few pieces; a clamped load, in
            // many, would multiply the cases: the encoder reads its coordinates off the
            // index instead.
            for (const Statement::Read &r : s.reads) {
                ctx.reset_operations();  // a budget per load, as above
                bool input = false;
                for (const PipelineArgument &a : p.args)
                    input = input || (a.name == r.buffer && a.kind == PipelineArgument::Kind::InputBuffer);
                if (!input || !r.cells || isl_map_n_basic_map(r.cells.get()) > 12) continue;
                Isl<isl_pw_multi_aff> f = function_on(r.cells, domain);
                if (isl_pw_multi_aff_n_piece(f.get()) <= 4)
                    points.add({Points::Part::Kind::Input, r.key, nullptr, r.buffer, r.type}, std::move(f));
            }
            // Every instance is covered by the pieces (else some would go unchecked): by
            // each part's, one at a time (their intersection has all their pieces at once).
            // The instances under the context's hull first; where that is too wide (a
            // disjunction of the context, such as an empty window or a bound one), those
            // under the context itself.
            for (const Isl<isl_set> &known : points.known) {
                ctx.reset_operations();
                if (isl_set_is_subset(domain.get(), known.get()) != isl_bool_true &&
                    isl_set_is_subset(exact.get(), known.get()) != isl_bool_true)
                    throw Unsupported("the values it reads are not known on all of its instances");
            }
        } catch (const Unsupported &u) {
            const std::string why = ctx.exhausted() ? std::string("the operation limit was reached") : std::string(u.what());
            if (never_runs()) {
                skip();
                continue;
            }
            if (!runs_other.empty()) return refuted_unless_unmodelled(nest, runs_other);
            return {Verdict::Unknown, what + ": " + why};
        }
        // The values in Z3: floats first as uninterpreted operations (equal terms, equal
        // values: quick, and enough where the code computes what the algorithm writes, as
        // written); where that model shows a difference, again with floats as IEEE terms
        // (x * 1.0f is x), which decide it, or show a difference in IEEE arithmetic.
        std::string refuted;
        std::optional<CheckResult> unknown;
        for (const bool ieee : {false, true}) {
            z3::context c;
            int quotients = 0;  // (AffineTerm)
            z3::params params(c);
            params.set("rlimit", rlimit);
            z3::solver solver(c);
            solver.set(params);
            Encoder enc(c, p, realized, ieee);
            int weakened = 0;
            try {
                // Hypotheses: the entry assertions, the conditions of the instance, its lane.
                for (const Expr &a : nest.entry_assertions) {
                    try {
                        solver.add(enc.code(a));
                    } catch (const Unsupported &) {
                        weakened++;  // only the hypotheses get weaker; a refutation then says so
                    }
                }
                for (const Expr &cond : s.conditions) solver.add(enc.code(lane_of(cond)));
                const int lanes = s.store->value.type().lanes;
                if (lanes > 1) {
                    const z3::expr lane = c.bv_const(kLane, 64);
                    solver.add(z3::sge(lane, c.bv_val(0, 64)) && z3::slt(lane, c.bv_val(lanes, 64)));
                }
                // A fused loop's variable is its outer loop times the inner extent plus its
                // inner loop (the dimensions the polyhedra use).
                std::map<std::string, Type> scratch = nest.parameters;
                const std::map<std::string, Expr> no_lets;
                Affine parameter_values(ctx.get(), "parameters", {}, -1, no_lets, scratch);
                enc.set_fused(s.fused, [&](const Expr &a, const Expr &b) { return parameter_values.same_value(a, b); });
                for (const Statement::Fused &f : s.fused)
                    solver.add(enc.code(Variable::make(f.type, f.var)) ==
                               enc.code(Variable::make(f.type, f.outer)) * enc.code(f.inner_extent) +
                                   enc.code(Variable::make(f.type, f.inner)));
                // For the congruence obligations: the piece's own constraints (which isl derived
                // from all the hypotheses), far fewer terms to reason about, and the lane's range.
                IntegerView integers(c);
                z3::expr lanes_in_range = c.bool_val(true);
                if (lanes > 1) {
                    const z3::expr lane = c.bv_const(kLane, 64);
                    lanes_in_range = z3::sge(lane, c.bv_val(0, 64)) && z3::slt(lane, c.bv_val(lanes, 64));
                }
                // The statement's dimensions and the parameters as 64-bit terms.
                auto dimension = [&](unsigned k) {
                    if (lanes > 1 && k + 1 == s.dims.size()) return c.bv_const(kLane, 64);
                    return enc.variable64(s.dims[k], s.loop_types[k]);
                };
                auto parameter = [&](isl_id *id) {
                    const std::string n = isl_id_get_name(id);
                    isl_id_free(id);
                    if (auto product = nest.products.exprs.find(n); product != nest.products.exprs.end())
                        return enc.wide(enc.code(product->second), product->second.type());
                    auto it = nest.parameters.find(n);
                    if (it == nest.parameters.end()) throw Unsupported("the parameter " + n + " has no type");
                    return enc.variable64(n, it->second);
                };
                // One query per piece of the points: there, each is an affine function of the
                // instance, so that the solver compares the values of points, not the integer
                // arithmetic that found them. Each load from storage reads the value its last
                // writer stored, which (checked for that writer, by induction on the program
                // order) is the algorithm's value at the writer's point.
                Isl<isl_set> kept;  // the instances that write what the window keeps
                for_each_piece(points.all, [&](Isl<isl_set> set, Isl<isl_multi_aff> ma) {
                    if (!refuted.empty()) return;
                    if (!ieee) cases++;
                    // A piece reading a cell no store wrote matters only where the window keeps
                    // what the instance stores (elsewhere it is over-compute, which may hold
                    // anything: docs/semantics.md §11).
                    bool reads_garbage = false;
                    for (const Points::Part &part : points.parts) {
                        if (part.kind != Points::Part::Kind::Stored) continue;
                        Isl<isl_aff> tag(isl_multi_aff_get_at(ma.get(), int(part.first)));
                        if (isl_aff_is_cst(tag.get()) != isl_bool_true) continue;
                        Isl<isl_val> v(isl_aff_get_constant_val(tag.get()));
                        reads_garbage = reads_garbage || isl_val_cmp_si(v.get(), kUnwritten) == 0;
                    }
                    if (reads_garbage) {
                        // (A piece's domain is simplified on the instances: first, whether
                        // any of them is in it.)
                        set = check(isl_set_intersect(set.release(), instances.copy()), "the instances");
                        if (isl_set_is_empty(set.get()) == isl_bool_true) return;
                        if (!window) window = window_read();
                        if (!kept) kept = window->kept_from(s);
                        set = check(isl_set_intersect(set.release(), kept.copy()), "the kept values");
                        if (isl_set_is_empty(set.get()) == isl_bool_true) return;
                    }
                    RelationFormula where(c, [&](isl_dim_type type, unsigned k) -> z3::expr {
                        if (type == isl_dim_out) return dimension(k);
                        return parameter(isl_set_get_dim_id(set.get(), type, k));
                    });
                    AffineTerm affine(c, quotients, [&](isl_dim_type type, unsigned k) -> z3::expr {
                        if (type == isl_dim_in) return dimension(k);
                        return parameter(isl_multi_aff_get_dim_id(ma.get(), type, k));
                    });
                    auto coordinates = [&](const Points::Part &part) {
                        std::vector<z3::expr> x;
                        for (size_t k = part.first; k < part.first + part.dims; k++) {
                            Isl<isl_aff> coord(isl_multi_aff_get_at(ma.get(), int(k)));
                            x.push_back(affine.value(coord.get()).extract(31, 0));
                        }
                        return x;
                    };
                    auto plus_min = [&](std::vector<z3::expr> cell, const std::string &buffer) {
                        for (size_t k = 0; k < cell.size(); k++)
                            cell[k] = cell[k] + enc.code(Variable::make(Int(32), buffer + ".min." + std::to_string(k)));
                        return cell;
                    };
                    std::vector<z3::expr> point, rvars, cell;
                    for (const Points::Part &part : points.parts) {
                        switch (part.kind) {
                        case Points::Part::Kind::Iteration: {
                            const std::vector<z3::expr> x = coordinates(part);
                            const size_t n = func.args.size();
                            point.assign(x.begin(), x.begin() + long(std::min(n, x.size())));
                            if (x.size() > n) rvars.assign(x.begin() + long(n), x.end());
                            break;
                        }
                        case Points::Part::Kind::Cell: cell = plus_min(coordinates(part), part.buffer); break;
                        case Points::Part::Kind::Stored: {
                            const z3::expr v = enc.named(*part.func, coordinates(part), part.key);
                            if (!z3::eq(v.get_sort(), enc.sort_of(part.type)))
                                throw Unsupported("the value read from " + part.buffer + " has another type than its writer stored");
                            enc.set_load(part.key, v);
                            break;
                        }
                        case Points::Part::Kind::SelfCall: enc.set_call(part.call, enc.named(func, coordinates(part))); break;
                        case Points::Part::Kind::Input:
                            enc.set_load(part.key, enc.input_value(part.buffer, part.type, plus_min(coordinates(part), part.buffer)));
                            break;
                        }
                    }
                    const z3::expr stored = enc.code(lane_of(s.value));
                    const z3::expr defined = prov.kind == Provenance::Kind::FinalCopy ? enc.realized(func, point)
                                                                                      : enc.definition(func, prov.stage, point, rvars);
                    z3::expr wrong = stored != defined;
                    for (size_t k = 0; k < cell.size() && k < point.size(); k++) wrong = wrong || cell[k] != point[k];
                    // First by congruence: where the stored and the defined values are the same
                    // operations on the same loads, inputs and Funcs, it is enough that the
                    // integer operands where they differ (coordinates, mostly) are equal: a
                    // query without uninterpreted functions, far easier for the solver.
                    {
                        Congruence congruence(c);
                        bool matched = congruence.unify(stored, defined);
                        for (size_t k = 0; matched && k < cell.size() && k < point.size(); k++) matched = congruence.unify(cell[k], point[k]);
                        // One obligation at a time, each a small question under the piece's
                        // constraints alone (coordinates over the integers first); where one
                        // is not proved so, the whole question goes to the solver with every
                        // hypothesis.
                        // Each piece its own solvers (fresh ones: pushing and popping a long-lived
                        // solver costs more than the questions), each obligation checked under
                        // an assumption of its own.
                        if (matched && congruence.obligations.size() > 0) {
                            // The piece within the domain (its constraints were simplified
                            // against the domain, which the full query has as the code's
                            // conditions).
                            Isl<isl_set> exact = check(isl_set_intersect(set.copy(), instances.copy()), "a piece");
                            RelationFormula within(c, [&](isl_dim_type type, unsigned k) -> z3::expr {
                                if (type == isl_dim_out) return dimension(k);
                                return parameter(isl_set_get_dim_id(exact.get(), type, k));
                            });
                            const z3::expr hypotheses = within.of(Isl<isl_map>(isl_map_from_range(exact.copy()))) && affine.constraints();
                            z3::solver light(c), integer(c);
                            light.set(params);
                            integer.set(params);
                            light.add(lanes_in_range && hypotheses);
                            // The same hypotheses over the integers, for coordinates.
                            const std::optional<z3::expr> integer_hypotheses = integers.of(hypotheses);
                            if (integer_hypotheses) integer.add(*integer_hypotheses);
                            for (unsigned k = 0; matched && k < congruence.obligations.size(); k++) {
                                const z3::expr &obligation = congruence.obligations[int(k)];
                                // (Most are the same affine term on both sides: no solver needed.)
                                if (obligation.simplify().is_true()) continue;
                                const z3::expr assumed = c.bool_const(("obligation " + std::to_string(k)).c_str());
                                z3::expr_vector assumption(c);
                                assumption.push_back(assumed);
                                if (congruence.coordinates[k] && integer_hypotheses) {
                                    if (std::optional<z3::expr> goal = integers.of(obligation)) {
                                        integer.add(z3::implies(assumed, !*goal));
                                        if (integer.check(assumption) == z3::unsat) continue;
                                    }
                                }
                                light.add(z3::implies(assumed, !obligation));
                                matched = light.check(assumption) == z3::unsat;
                            }
                        }
                        if (matched) return;
                    }
                    solver.push();
                    solver.add(where.of(Isl<isl_map>(isl_map_from_range(set.copy()))));
                    solver.add(affine.constraints());
                    // With IEEE terms, first the question on what the two values compute
                    // differently (a weaker one: where it has no answer, the whole has none).
                    if (ieee) {
                        if (std::optional<z3::expr> weaker = shared_floats_abstracted(c, stored.simplify(), defined.simplify())) {
                            for (size_t k = 0; k < cell.size() && k < point.size(); k++) *weaker = *weaker || cell[k] != point[k];
                            solver.push();
                            solver.add(*weaker);
                            const z3::check_result r = solver.check();
                            solver.pop();
                            if (r == z3::unsat) {
                                solver.pop();
                                return;
                            }
                        }
                    }
                    solver.add(wrong);
                    // (IEEE terms of a whole computation, bit-blasted, take long to reach
                    // the limit: a quarter of it there, as the replays may still show a
                    // difference.)
                    if (ieee) {
                        z3::params quarter(c);
                        quarter.set("rlimit", rlimit / 4);
                        solver.set(quarter);
                    }
                    if (const char *dir = std::getenv("TESSERA_VALIDATE_DUMP")) {
                        const std::string file = std::string(dir) + "/" + p.name + "-S" + std::to_string(s.id) + "-" + std::to_string(cases) + ".smt2";
                        if (std::FILE *f = std::fopen(file.c_str(), "w")) {
                            std::fputs(solver.to_smt2().c_str(), f);
                            std::fclose(f);
                        }
                    }
                    switch (solver.check()) {
                    case z3::unsat: break;
                    case z3::sat: {
                        // A difference only where the code's index arithmetic leaves the int32
                        // range is outside what the code promises: where the solver's model
                        // has such arithmetic, the question is asked again with the hypotheses
                        // that it stays in range (only then: on every query they made IEEE
                        // questions reach the resource limit).
                        bool beyond_range = false;
                        {
                            const z3::model first = solver.get_model();
                            for (const z3::expr &h : enc.index_arithmetic_in_range())
                                beyond_range = beyond_range || !first.eval(h, true).is_true();
                        }
                        if (beyond_range) {
                            solver.push();
                            for (const z3::expr &h : enc.index_arithmetic_in_range()) solver.add(h);
                            const z3::check_result again = solver.check();
                            if (again == z3::unsat) {
                                solver.pop();
                                break;
                            }
                            if (again != z3::sat)
                                throw Unsupported("the solver's resource limit was reached (" + solver.reason_unknown() +
                                                  ") on whether a difference it found needs index arithmetic beyond the int32 range");
                        }
                        const z3::model model = small_model(solver, enc.variables(), nest.parameters);
                        const std::string found =
                            reads_garbage ? what + " stores, for " + model_values(model, enc.variables()) +
                                                ", a value that depends on memory no store wrote before, where the output keeps it"
                                          : what + " stores, for " + model_values(model, enc.variables()) +
                                                ", another value than the algorithm defines at its point" +
                                                point_in(model, func.name, point) +
                                                (to_output ? ", or into another point's cell" : "") +
                                                values_in(model, stored, defined, s.store->value.type().element_of());
                        if (weakened > 0)
                            throw Unsupported(found + ", unless one of the " + std::to_string(weakened) +
                                              " entry assertion(s) the solver was not given rules it out");
                        if (!ieee && enc.floats_uninterpreted()) throw WithIeeeFloats{};
                        if (enc.used_uninterpreted())
                            throw Unsupported(found + ", when floats and intrinsics are taken as uninterpreted operations "
                                                      "(which may be a difference only in that model)");
                        refuted = found;
                        if (run) *run = model_parameters(model, enc.variables(), nest.parameters);
                        if (beyond_range) solver.pop();
                        break;
                    }
                    default: throw Unsupported("the solver's resource limit was reached (" + solver.reason_unknown() + ")");
                    }
                    solver.pop();
                    if (ieee) solver.set(params);
                });
                for (const Points::Part &part : points.parts)
                    reads += part.kind == Points::Part::Kind::Stored || part.kind == Points::Part::Kind::Input ? 1 : 0;
            } catch (const WithIeeeFloats &) {
                continue;
            } catch (const Unsupported &u) {
                unknown = CheckResult{Verdict::Unknown, what + ": " + (ieee ? "with floats as IEEE terms, " : "") + u.what()};
            } catch (const z3::exception &e) {
                unknown = CheckResult{Verdict::Unknown, what + ": the solver: " + e.msg()};
            }
            break;
        }
        if ((unknown || !refuted.empty()) && !never_runs()) return unknown ? *unknown : CheckResult{Verdict::Refuted, refuted};
        skip();
    }
    if (checked == 0 && !scope.checks) return {Verdict::Unknown, "no store to check"};
    bool final_values = false;
    if (scope.final_values && p.output->definitions.size() > 1) {
        try {
            if (!window) window = window_read();
            const CheckResult r = check_final_values(ctx, p, *out, output_writers(), recurrences, *window);
            if (r.verdict == Verdict::Refuted) return refuted_unless_unmodelled(nest, r.detail);
            final_values = true;
        } catch (const Unsupported &u) {
            return {Verdict::Unknown, "the output's final values: " +
                                          (ctx.exhausted() ? std::string("the operation limit was reached") : std::string(u.what()))};
        }
    }
    const ValueTally counted{checked, reads, cases, final_values};
    if (tally) *tally = counted;
    return {Verdict::Proved, values_proved(counted)};
}

}  // namespace tessera::validator
