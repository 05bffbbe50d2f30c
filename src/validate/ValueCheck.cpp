#include "validate/ValueCheck.h"

#include <cstring>
#include <map>
#include <sstream>

#include "analysis/ConstMath.h"
#include "ir/Function.h"
#include "ir/IRPrinter.h"
#include "validate/Isl.h"
#include "validate/Smt.h"

namespace tessera::validator {

using namespace ir;

namespace {

/** Expressions of lowered code and of the algorithm as Z3 terms. Variables are constants
 * of their type's width; the pipeline's input buffers are uninterpreted functions of their
 * coordinates (int32 each); the algorithm's calls of a Func are its definition with the
 * arguments substituted. */
class Encoder {
public:
    Encoder(z3::context &c, const LoweredPipeline &p) : c_(c), smt_(c), p_(p) {}

    z3::expr code(const Expr &e) { return encode(e, nullptr); }

    /** The value the algorithm defines for Func f at `coords`. */
    z3::expr algorithm(const FunctionData &f, const std::vector<z3::expr> &coords) {
        if (f.definitions.size() != 1)
            throw Unsupported("Func " + f.name + " has update definitions, which the value check does not unfold yet");
        if (++depth_ > 64) throw Unsupported("the algorithm's Funcs nest too deeply to unfold");
        std::map<std::string, z3::expr> env;
        for (size_t i = 0; i < f.args.size() && i < coords.size(); i++) env.emplace(f.args[i], coords[i]);
        z3::expr r = encode(f.definitions[0].value, &env);
        depth_--;
        return r;
    }

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
        if (e.type() != Int(32)) throw Unsupported("the coordinate " + to_string(e) + " is not an int32");
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
                throw Unsupported("the index " + to_string(index) + " into " + buffer);
        std::vector<z3::expr> point;
        for (int k = 0; k < std::max(dims, 1); k++) {
            auto it = lin.find(k == 0 ? "" : prefix + std::to_string(k));
            const z3::expr cell = it == lin.end() ? c_.bv_val(0, 64) : encode64(it->second);
            point.push_back(cell.extract(31, 0) + variable(buffer + ".min." + std::to_string(k), Int(32)));
        }
        return point;
    }

    /** Whether an uninterpreted function stood for an operation (floats, intrinsics): a
     * difference found then may not be a real one. */
    bool used_uninterpreted() const { return uninterpreted_; }

private:

    /** The sort of values of type t: bit-vectors for integers, Booleans, and an
     * uninterpreted sort per float width (floats are modelled by the terms that compute
     * them: equal terms, equal values). */
    z3::sort sort_of(Type t) {
        if (t.is_bool()) return c_.bool_sort();
        if (t.is_float()) return c_.uninterpreted_sort(("float" + std::to_string(t.bits)).c_str());
        return c_.bv_sort(unsigned(t.bits));
    }

    /** The uninterpreted function `name` applied to args, with result type t. */
    z3::expr uninterpreted(const std::string &name, Type t, const std::vector<z3::expr> &args) {
        uninterpreted_ = true;
        z3::sort_vector domain(c_);
        for (const z3::expr &a : args) domain.push_back(a.get_sort());
        return apply(z3::function(name.c_str(), domain, sort_of(t)), args);
    }

    z3::expr encode(const Expr &e, std::map<std::string, z3::expr> *env) {
        const Type t = e.type();
        if (t.lanes > 1) throw Unsupported("the vector expression " + to_string(e) + " (lanes are taken apart first)");
        if (!t.is_int() && !t.is_uint() && !t.is_bool() && !t.is_float())
            throw Unsupported("the " + t.to_string() + " value " + to_string(e));
        switch (e->kind) {
        case ExprKind::FloatImm: {
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
                if (auto it = env->find(v->name); it != env->end()) return it->second;
            if (v->var_kind == VarKind::Reduction) throw Unsupported("the reduction variable " + v->name);
            return variable(v->name, t);
        }
        case ExprKind::Cast: {
            const Cast *c = as<Cast>(e);
            const Type from = c->value.type();
            if (t.is_float() || from.is_float())
                return uninterpreted("cast " + t.to_string() + " from " + from.to_string(), t, {encode(c->value, env)});
            return smt_.cast(t, from, encode(c->value, env));
        }
        case ExprKind::Not: return !encode(as<Not>(e)->a, env);
        case ExprKind::Select: {
            const Select *s = as<Select>(e);
            return z3::ite(encode(s->condition, env), encode(s->true_value, env), encode(s->false_value, env));
        }
        case ExprKind::Load: {
            // Lowered code reads an input: its coordinates from the flat index.
            const Load *l = as<Load>(e);
            const PipelineArgument *a = argument(l->buffer);
            if (!a || a->kind != PipelineArgument::Kind::InputBuffer)
                throw Unsupported("the value read from " + l->buffer +
                                  ", storage the pipeline computes (the last writer is not modelled yet)");
            const std::vector<z3::expr> coords = point_at(l->buffer, a->dimensions, l->index);
            return apply(input(l->buffer, t, coords.size()), coords);
        }
        case ExprKind::Call: {
            const Call *c = as<Call>(e);
            if (c->call_kind == CallKind::Func && c->func) {
                std::vector<z3::expr> coords;
                for (const Expr &a : c->args) coords.push_back(coordinate(a, env));
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
            if (c->call_kind == CallKind::Intrinsic) {
                // Math and bit operations by name: the same operation on the same terms.
                std::vector<z3::expr> args;
                std::string name = "intrinsic " + std::to_string(int(c->op)) + " " + t.to_string();
                for (const Expr &a : c->args) {
                    args.push_back(encode(a, env));
                    name += " " + a.type().to_string();
                }
                return uninterpreted(name, t, args);
            }
            throw Unsupported("the call " + to_string(e));
        }
        default: {
            // + - * / % min max, the comparisons, && and ||.
            const Expr *a = nullptr, *b = nullptr;
            if (analysis::detail::binary_operands(e, a, b)) {
                if (a->type().is_float())
                    return uninterpreted(a->type().to_string() + " operator " + std::to_string(int(e->kind)), t,
                                         {encode(*a, env), encode(*b, env)});
                return smt_.binary(e->kind, a->type(), encode(*a, env), encode(*b, env));
            }
            throw Unsupported("the expression " + to_string(e) + " is not modelled yet");
        }
        }
    }

    /** An int64 index term (its coefficients may mix widths: widened as they are). */
    z3::expr encode64(const Expr &e) {
        z3::expr v = encode(e, nullptr);
        const unsigned bits = v.get_sort().bv_size();
        return bits == 64 ? v : (e.type().is_int() ? z3::sext(v, 64 - bits) : z3::zext(v, 64 - bits));
    }

    z3::context &c_;
    SmtScalars smt_;
    const LoweredPipeline &p_;
    std::map<std::string, std::pair<z3::expr, Type>> variables_;
    std::map<std::string, z3::func_decl> inputs_;
    int depth_ = 0;
    bool uninterpreted_ = false;
};

std::string model_values(const z3::model &m, const std::map<std::string, std::pair<z3::expr, Type>> &vars) {
    std::ostringstream o;
    bool first = true;
    for (const auto &[name, v] : vars) {
        const z3::expr value = m.eval(v.first, true);
        o << (first ? "" : ", ") << name << " = ";
        first = false;
        if (v.second.is_bool()) o << (value.is_true() ? "true" : "false");
        else if (value.is_numeral()) {
            const uint64_t bits = value.get_numeral_uint64();
            const int n = v.second.bits;
            if (v.second.is_int()) o << (n == 64 ? int64_t(bits) : int64_t(bits << (64 - n)) >> (64 - n));
            else o << bits;
        } else o << value;
    }
    return o.str();
}

}  // namespace

CheckResult check_values(const LoweredPipeline &p, const LoopNest &nest, unsigned rlimit) {
    const PipelineArgument *out = nullptr;
    for (const PipelineArgument &a : p.args)
        if (a.kind == PipelineArgument::Kind::OutputBuffer) out = &a;
    if (!out || !p.output) return {Verdict::Unknown, "the pipeline has no output"};
    int checked = 0;
    for (const Statement &s : nest.statements) {
        if (s.store->buffer != out->name)
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " stores to " + s.store->buffer +
                                          ": values that other stores compute are not followed yet"};
    }
    for (const Statement &s : nest.statements) {
        if (!s.writes || !s.value.defined())
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " is not modelled: " + s.unmodelled};
        const Provenance &prov = *s.provenance;
        if (prov.func != p.output || prov.kind != Provenance::Kind::Iteration || prov.stage != 0)
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + " does not store the output's definition"};
        z3::context c;
        z3::params params(c);
        params.set("rlimit", rlimit);
        z3::solver solver(c);
        solver.set(params);
        Encoder enc(c, p);
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
            // The value stored and the cell it goes to, against the algorithm's value at the
            // provenance point and that point's cell.
            std::vector<z3::expr> point;
            for (const Expr &coord : s.coords) point.push_back(enc.code(lane_of(coord)));
            const z3::expr stored = enc.code(lane_of(s.value));
            const z3::expr defined = enc.algorithm(*p.output, point);
            if (point.size() != size_t(out->dimensions)) throw Unsupported("the provenance's point has the wrong dimensions");
            const std::vector<z3::expr> cell_point = enc.point_at(out->name, out->dimensions, lane_of(s.index));
            z3::expr wrong_cell = c.bool_val(false);
            for (size_t k = 0; k < point.size(); k++) wrong_cell = wrong_cell || cell_point[k] != point[k];
            solver.add(stored != defined || wrong_cell);
        } catch (const Unsupported &u) {
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + ": " + u.what()};
        } catch (const z3::exception &e) {
            return {Verdict::Unknown, std::string("statement S") + std::to_string(s.id) + ": the solver: " + e.msg()};
        }
        switch (solver.check()) {
        case z3::unsat: checked++; break;
        case z3::sat: {
            const std::string what = "statement S" + std::to_string(s.id) + " stores, for " +
                                     model_values(solver.get_model(), enc.variables()) +
                                     ", another value than the algorithm defines, or into another point's cell";
            if (weakened > 0)
                return {Verdict::Unknown, what + ", unless one of the " + std::to_string(weakened) +
                                              " entry assertion(s) the solver was not given rules it out"};
            if (enc.used_uninterpreted())
                return {Verdict::Unknown, what + ", when floats and intrinsics are taken as uninterpreted operations "
                                              "(which may be a difference only in that model)"};
            return {Verdict::Refuted, what};
        }
        default:
            return {Verdict::Unknown, "statement S" + std::to_string(s.id) + ": the solver's resource limit was reached (" +
                                          solver.reason_unknown() + ")"};
        }
    }
    if (checked == 0) return {Verdict::Unknown, "no store to the output"};
    return {Verdict::Proved, "each of the " + std::to_string(checked) +
                                 " store(s) to the output writes the value the algorithm defines at its point, into that point's cell"};
}

}  // namespace tessera::validator
