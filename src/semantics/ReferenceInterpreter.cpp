#include "semantics/ReferenceInterpreter.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/Check.h"
#include "ir/IRPrinter.h"
#include "ir/Function.h"
#include "semantics/Extern.h"
#include "ir/Scalar.h"
#include "semantics/Prophecy.h"

namespace tessera::semantics {

using namespace ir;

namespace {

constexpr int kMaxDims = 8;
constexpr int kTileBits = 6;  // 64 consecutive points along dimension 0 share a tile
constexpr int kTileSize = 1 << kTileBits;

struct Key {
    std::array<int32_t, kMaxDims> c{};
    bool operator==(const Key &o) const { return c == o.c; }
};

struct KeyHash {
    size_t operator()(const Key &k) const {
        uint64_t h = 0x9e3779b97f4a7c15ull;
        for (int32_t v : k.c) h = (h ^ uint32_t(v)) * 0x100000001b3ull + (h >> 29);
        return size_t(h);
    }
};

/** Values of one (Func, definition) at the points computed so far: dense tiles of 64
 * points along dimension 0, found by hashing the rest of the coordinates. */
class PointStore {
public:
    explicit PointStore(int dims) : dims_(dims) {}

    bool get(const int32_t *c, Scalar &out) {
        Tile *t = tile(c, false);
        if (!t) return false;
        int lane = lane_of(c);
        if (!(t->valid >> lane & 1)) return false;
        out = t->v[lane];
        return true;
    }

    void put(const int32_t *c, Scalar v) {
        Tile *t = tile(c, true);
        int lane = lane_of(c);
        t->v[lane] = v;
        t->valid |= uint64_t(1) << lane;
    }

    template<typename F>
    void for_each(F &&f) const {
        for (const auto &[key, tile] : tiles_) {
            for (int lane = 0; lane < kTileSize; lane++) {
                if (!(tile->valid >> lane & 1)) continue;
                int32_t c[kMaxDims];
                std::memcpy(c, key.c.data(), sizeof(c));
                if (dims_ > 0) c[0] = int32_t(uint32_t(key.c[0]) << kTileBits) + lane;
                f(c, tile->v[lane]);
            }
        }
    }

    bool empty() const { return tiles_.empty(); }

private:
    struct Tile {
        uint64_t valid = 0;
        Scalar v[kTileSize];
    };

    int lane_of(const int32_t *c) const { return dims_ > 0 ? (c[0] & (kTileSize - 1)) : 0; }

    Tile *tile(const int32_t *c, bool create) {
        Key k;
        for (int i = 0; i < dims_; i++) k.c[i] = c[i];
        if (dims_ > 0) k.c[0] = c[0] >> kTileBits;  // floor division (arithmetic shift)
        if (last_ && k == last_key_) return last_;
        auto it = tiles_.find(k);
        if (it == tiles_.end()) {
            if (!create) return nullptr;
            it = tiles_.emplace(k, std::make_unique<Tile>()).first;
        }
        last_key_ = k;
        last_ = it->second.get();
        return last_;
    }

    int dims_;
    std::unordered_map<Key, std::unique_ptr<Tile>, KeyHash> tiles_;
    Key last_key_;
    Tile *last_ = nullptr;
};

struct FuncState;

/** A read of a point whose only definition is an undef pure definition: a RuntimeError
 * where it reaches a value, caught where an update may still write the point (the value
 * before an all-pure update that overwrites it). */
struct UndefinedValue : RuntimeError {
    using RuntimeError::RuntimeError;
};

// ---------------------------------------------------------------------------------------
// Expressions compiled to a flat node array with variables resolved to frame slots, so
// that evaluating a point does no name lookups.

enum class Op : uint8_t { Const, Slot, Cast, Binary, Not, Select, Let, FuncCall, SelfCall, ImageCall, Intrinsic, Print, Require };

struct Node {
    Op op;
    Type type;
    Type operand_type;  // Binary: operand type; Cast: source type
    ExprKind kind = ExprKind::Add;
    Intrinsic intrinsic = Intrinsic::None;
    int a = -1, b = -1, c = -1;
    int slot = -1;
    Scalar imm{};
    std::vector<int> args;
    std::vector<Type> arg_types;
    std::vector<std::string> texts;  // Print: the strings among its parts (args -1), in order
    FuncState *callee = nullptr;
    int value_index = 0;  // FuncCall, SelfCall: which of the callee's values (a Tuple's)
    const BufferData *image = nullptr;
};

struct Program {
    std::vector<Node> nodes;
    int num_slots = 0;
};

/** One definition of a Func, ready to evaluate. A Func with several values (a Tuple) has
 * a program root and a store per value; an update computes them all from the values
 * before it, then stores them all. */
struct StageState {
    const Definition *def = nullptr;
    Program program;
    std::vector<int> value_roots;  // per value; empty for an undef pure definition
    std::vector<int> predicate_roots;
    std::vector<int> lhs_roots;        // per dimension; -1 for pure dimensions
    std::vector<int> pure_positions;   // dimensions whose LHS argument is a bare Var
    std::vector<int> rvar_slots;       // per RDom dimension
    std::vector<int32_t> rdom_min, rdom_extent;
    bool all_pure = true;
    std::vector<PointStore> stores;             // per value
    std::unordered_set<Key, KeyHash> replayed;  // slices already replayed (reduction dims)
    // The replay in progress, if any: self-reads consult it first.
    std::vector<PointStore> *active_overlay = nullptr;
    const int32_t *active_point = nullptr;  // all-pure stages: the single point
    std::vector<Scalar> *active_value = nullptr;
    const bool *active_undefined = nullptr;  // whether *active_value is still undef
    StageState(int dims, int values) {
        for (int k = 0; k < values; k++) stores.emplace_back(dims);
    }
};

class Interpreter;

struct FuncState {
    const FunctionData *func = nullptr;
    /** An extern Func (define_extern): the values of its arguments as this oracle sees
     * them (buffers and scalars, in order; null/unused where the argument is a Func), and
     * an interpreter of each Func argument's own pipeline. */
    std::vector<ExternValue> extern_args;
    std::vector<std::shared_ptr<Interpreter>> extern_inputs;
    int dims = 0;
    int values = 1;  // values at each point (a Tuple's size)
    std::vector<std::unique_ptr<StageState>> stages;
};

class Interpreter {
public:
    explicit Interpreter(const std::shared_ptr<FunctionData> &output, const ReferenceBindings *bindings = nullptr)
        : bindings_(bindings) {
        auto order = pipeline_functions(output);
        for (const auto &f : order) {
            if (f->dimensions() > kMaxDims)
                throw CompileError("Func \"" + f->name + "\" has " + std::to_string(f->dimensions()) +
                                   " dimensions; at most " + std::to_string(kMaxDims) + " are supported");
            auto st = std::make_unique<FuncState>();
            st->func = f.get();
            st->dims = f->dimensions();
            st->values = f->outputs();
            funcs_[f.get()] = st.get();
            states_.push_back(std::move(st));
        }
        // Compile every definition; this evaluates parameters and checks their ranges.
        for (auto &st : states_) {
            if (st->func->extern_definition) prepare_extern(*st);
            else compile_func(*st);
        }
        // A negative RDom extent anywhere is an error before any value is computed.
        for (auto &st : states_) evaluate_rdom_bounds(*st);
        output_ = funcs_.at(output.get());
        bindings_ = nullptr;  // everything that reads them has been compiled
    }

    /** Value `index` of `f` after definition `stage` at `c` (ReferenceOracle::value). */
    Scalar query(const FunctionData *f, int stage, const int32_t *c, int index) {
        auto it = funcs_.find(f);
        TESSERA_INTERNAL_ASSERT(it != funcs_.end(),
                                "Func \"" << (f ? f->name : "") << "\" is not part of the pipeline");
        FuncState &st = *it->second;
        TESSERA_INTERNAL_ASSERT(stage >= 0 && stage < int(st.stages.size()),
                                "Func \"" << f->name << "\" has no definition " << stage);
        TESSERA_INTERNAL_ASSERT(index >= 0 && index < st.values, "Func \"" << f->name << "\" has no value " << index);
        int32_t point[kMaxDims] = {};
        for (int i = 0; i < st.dims; i++) point[i] = c[i];
        return stage_value(st, stage, point, index);
    }

    /** The output's values over the window of dst[0], one buffer per value (each of that
     * window). */
    void realize_into(const std::vector<BufferData *> &dsts) {
        const FunctionData &f = *output_->func;
        const std::vector<Type> types = f.types();
        if (dsts.size() != types.size())
            throw RuntimeError("Cannot realize Func \"" + f.name + "\", which has " + std::to_string(types.size()) +
                               " value(s) at each point, into " + std::to_string(dsts.size()) + " Buffer(s)");
        for (size_t k = 0; k < dsts.size(); k++) {
            const BufferData &dst = *dsts[k];
            const std::string which = types.size() > 1 ? " value " + std::to_string(k) + " of" : "";
            if (dst.type != types[k])
                throw RuntimeError("Cannot realize" + which + " Func \"" + f.name + "\" of type " +
                                   types[k].to_string() + " into Buffer " + dst.name + " of type " + dst.type.to_string());
            if (int(dst.dims.size()) != f.dimensions())
                throw RuntimeError("Cannot realize Func \"" + f.name + "\" with " + std::to_string(f.dimensions()) +
                                   " dimensions into Buffer " + dst.name + " with " + std::to_string(dst.dims.size()));
            for (size_t i = 0; i < dst.dims.size(); i++)
                if (dst.dims[i].min != dsts[0]->dims[i].min || dst.dims[i].extent != dsts[0]->dims[i].extent)
                    throw RuntimeError("Cannot realize the values of Func \"" + f.name + "\" into Buffers " +
                                       dsts[0]->name + " and " + dst.name + ", whose windows differ in dimension " +
                                       std::to_string(i));
        }
        const int n = f.dimensions();
        const BufferData &window = *dsts[0];
        for (int i = 0; i < n; i++)
            if (window.dims[i].extent == 0) return;  // empty window
        int32_t c[kMaxDims] = {};
        for (int i = 0; i < n; i++) c[i] = window.dims[i].min;
        while (true) {
            for (size_t k = 0; k < dsts.size(); k++) {
                BufferData &dst = *dsts[k];
                Scalar v = value_of(*output_, c, int(k));
                int64_t off = 0;
                for (int i = 0; i < n; i++) off += int64_t(c[i] - dst.dims[i].min) * dst.dims[i].stride;
                store_scalar(dst.type, dst.host + off * dst.type.bytes(), v);
            }
            int d = 0;
            while (d < n) {
                if (++c[d] < window.dims[d].min + window.dims[d].extent) break;
                c[d] = window.dims[d].min;
                d++;
            }
            if (d == n) break;
        }
    }

private:
    // --- compilation ------------------------------------------------------------------

    /** An extern Func: its arguments resolved now, while the bindings are known, and the
     * pipelines of the Funcs it reads (src/semantics/Extern.h). */
    void prepare_extern(FuncState &st) {
        const ExternDefinition &e = *st.func->extern_definition;
        for (const ExternArgument &a : e.args) {
            ExternValue v;
            if (a.func) {
                st.extern_inputs.push_back(std::make_shared<Interpreter>(a.func, bindings_));
            } else if (a.buffer) {
                st.extern_inputs.push_back(nullptr);
                v.buffer = own_buffer_handle(a.buffer);
            } else if (a.input) {
                st.extern_inputs.push_back(nullptr);
                v.buffer = bound_buffer_handle(*a.input);
            } else {
                st.extern_inputs.push_back(nullptr);
                v.type = a.value.type();
                v.scalar = evaluate_startup(a.value);
            }
            st.extern_args.push_back(v);
        }
        st.stages.push_back(std::make_unique<StageState>(st.dims, 1));
        st.stages.back()->def = &st.func->definitions[0];
    }

    struct Scope {
        std::map<std::string, int> slots;  // name -> frame slot
        const FunctionData *self = nullptr;
        StageState *stage = nullptr;
        int stage_index = 0;
    };

    int add(Program &p, Node n) {
        p.nodes.push_back(std::move(n));
        return int(p.nodes.size()) - 1;
    }

    int compile(Program &p, Scope &scope, const Expr &e) {
        Node n;
        n.type = e.type();
        switch (e->kind) {
        case ExprKind::IntImm:
            n.op = Op::Const;
            n.imm = make_int(e->as<IntImm>()->value);
            return add(p, n);
        case ExprKind::UIntImm:
            n.op = Op::Const;
            n.imm = make_uint(e->as<UIntImm>()->value);
            return add(p, n);
        case ExprKind::FloatImm:
            n.op = Op::Const;
            n.imm = make_float(e->as<FloatImm>()->value);
            return add(p, n);
        case ExprKind::Variable: {
            const Variable *v = e->as<Variable>();
            if (v->var_kind == VarKind::Param) {
                n.op = Op::Const;
                n.imm = param_value(*v->param);
                return add(p, n);
            }
            if (v->var_kind == VarKind::InputBound) {
                const BufferData &b = bound_buffer(*v->input);
                n.op = Op::Const;
                n.imm = make_int(v->is_extent ? b.dims[v->input_dim].extent : b.dims[v->input_dim].min);
                return add(p, n);
            }
            auto it = scope.slots.find(v->var_kind == VarKind::Reduction ? rvar_key(*v) : v->name);
            TESSERA_INTERNAL_ASSERT(it != scope.slots.end(), "unbound variable " << v->name);
            n.op = Op::Slot;
            n.slot = it->second;
            return add(p, n);
        }
        case ExprKind::Cast: {
            const Cast *c = e->as<Cast>();
            n.op = Op::Cast;
            n.operand_type = c->value.type();
            n.a = compile(p, scope, c->value);
            return add(p, n);
        }
#define TESSERA_BINARY_CASE(N)                                   \
    case ExprKind::N: {                                          \
        const N *b = e->as<N>();                                 \
        n.op = Op::Binary;                                       \
        n.kind = ExprKind::N;                                    \
        n.operand_type = b->a.type();                            \
        n.a = compile(p, scope, b->a);                           \
        n.b = compile(p, scope, b->b);                           \
        return add(p, n);                                        \
    }
            TESSERA_BINARY_CASE(Add)
            TESSERA_BINARY_CASE(Sub)
            TESSERA_BINARY_CASE(Mul)
            TESSERA_BINARY_CASE(Div)
            TESSERA_BINARY_CASE(Mod)
            TESSERA_BINARY_CASE(Min)
            TESSERA_BINARY_CASE(Max)
            TESSERA_BINARY_CASE(EQ)
            TESSERA_BINARY_CASE(NE)
            TESSERA_BINARY_CASE(LT)
            TESSERA_BINARY_CASE(LE)
            TESSERA_BINARY_CASE(GT)
            TESSERA_BINARY_CASE(GE)
            TESSERA_BINARY_CASE(And)
            TESSERA_BINARY_CASE(Or)
#undef TESSERA_BINARY_CASE
        case ExprKind::Not:
            n.op = Op::Not;
            n.a = compile(p, scope, e->as<Not>()->a);
            return add(p, n);
        case ExprKind::Select: {
            const Select *s = e->as<Select>();
            n.op = Op::Select;
            n.a = compile(p, scope, s->condition);
            n.b = compile(p, scope, s->true_value);
            n.c = compile(p, scope, s->false_value);
            return add(p, n);
        }
        case ExprKind::Let: {
            const Let *l = e->as<Let>();
            n.op = Op::Let;
            n.a = compile(p, scope, l->value);
            n.slot = p.num_slots++;
            auto saved = scope.slots;
            scope.slots[l->name] = n.slot;
            n.b = compile(p, scope, l->body);
            scope.slots = std::move(saved);
            return add(p, n);
        }
        case ExprKind::Call: {
            const Call *c = e->as<Call>();
            for (const Expr &a : c->args) {
                if (const StringImm *text = as<StringImm>(a)) {
                    n.args.push_back(-1);
                    n.texts.push_back(text->value);
                } else {
                    n.args.push_back(compile(p, scope, a));
                }
                n.arg_types.push_back(a.type());
            }
            if (c->call_kind == CallKind::Intrinsic && c->op == Intrinsic::Print) {
                n.op = Op::Print;
            } else if (c->call_kind == CallKind::Intrinsic && c->op == Intrinsic::Require) {
                n.op = Op::Require;
            } else if (c->call_kind == CallKind::Intrinsic) {
                n.op = Op::Intrinsic;
                n.intrinsic = c->op;
            } else if (c->call_kind == CallKind::Image) {
                n.op = Op::ImageCall;
                n.image = c->buffer ? own_buffer_handle(c->buffer).get() : &bound_buffer(*c->input);
            } else if (c->func.get() == scope.self) {
                n.op = Op::SelfCall;
                n.callee = funcs_.at(c->func.get());
                n.value_index = c->value_index;
                n.slot = scope.stage_index;  // the update whose replay this reads
            } else {
                n.op = Op::FuncCall;
                n.callee = funcs_.at(c->func.get());
                n.value_index = c->value_index;
            }
            return add(p, n);
        }
        default: break;
        }
        TESSERA_INTERNAL_ERROR("the reference interpreter cannot evaluate " << to_string(e));
    }

    static std::string rvar_key(const Variable &v) { return "$rvar$" + std::to_string(v.rdom_index); }

    Scalar param_value(const ParamData &p) {
        Scalar v;
        std::memcpy(&v, &p.value, sizeof(v));
        if (bindings_) {
            auto it = bindings_->params.find(&p);
            if (it != bindings_->params.end()) v = it->second;
        }
        check_param_range(p, v);
        return v;
    }

    void check_param_range(const ParamData &p, Scalar v) {
        for (int which = 0; which < 2; which++) {
            const Expr &bound = which == 0 ? p.min_value : p.max_value;
            if (!bound.defined()) continue;
            Scalar b = evaluate_startup(bound);
            Scalar bad = binary(which == 0 ? ExprKind::LT : ExprKind::GT, p.type, v, b);
            if (bad.u)
                throw RuntimeError("Param " + p.name + " is " + scalar_text(p.type, v) + " but must be " +
                                   (which == 0 ? "at least " : "at most ") + scalar_text(p.type, b) +
                                   " (set_range)");
        }
    }

    static std::string scalar_text(Type t, Scalar v) {
        if (t.is_float()) return std::to_string(v.f);
        if (t.is_int()) return std::to_string(v.i);
        return std::to_string(v.u);
    }

    /** The Buffer bound to `in` for this oracle (ReferenceBindings, else the ImageParam's). */
    std::shared_ptr<BufferData> bound_buffer_handle(const InputData &in) {
        if (bindings_) {
            auto it = bindings_->inputs.find(&in);
            if (it != bindings_->inputs.end() && it->second) return it->second;
        }
        if (!in.bound)
            throw RuntimeError("ImageParam " + in.name + " has no Buffer bound; call " + in.name +
                               ".set(buffer) before realizing");
        return in.bound;
    }
    const BufferData &bound_buffer(const InputData &in) { return *bound_buffer_handle(in); }

    /** The memory that stands for Buffer b for this oracle (ReferenceBindings, else b's). */
    std::shared_ptr<BufferData> own_buffer_handle(const std::shared_ptr<BufferData> &b) {
        if (bindings_) {
            auto it = bindings_->buffers.find(b.get());
            if (it != bindings_->buffers.end() && it->second) return it->second;
        }
        return b;
    }


    Scalar evaluate_startup(const Expr &e) {
        Program p;
        Scope scope;
        int root = compile(p, scope, e);
        std::vector<Scalar> slots(size_t(std::max(p.num_slots, 1)));
        return eval(p, root, slots.data());
    }

    void compile_func(FuncState &st) {
        const FunctionData &f = *st.func;
        for (size_t s = 0; s < f.definitions.size(); s++) {
            const Definition &d = f.definitions[s];
            auto stage = std::make_unique<StageState>(st.dims, st.values);
            stage->def = &d;
            Scope scope;
            scope.self = s > 0 ? &f : nullptr;
            scope.stage = stage.get();
            scope.stage_index = int(s);
            Program &p = stage->program;
            p.num_slots = st.dims;
            for (int i = 0; i < st.dims; i++) {
                const Variable *v = as<Variable>(d.args[i]);
                if (v && v->var_kind == VarKind::Pure) {
                    scope.slots[v->name] = i;
                    stage->pure_positions.push_back(i);
                } else {
                    stage->all_pure = false;
                }
            }
            if (d.rdom) {
                for (size_t k = 0; k < d.rdom->dims.size(); k++) {
                    int slot = p.num_slots++;
                    stage->rvar_slots.push_back(slot);
                    Variable probe(Int(32), "", VarKind::Reduction);
                    probe.rdom_index = int(k);
                    scope.slots[rvar_key(probe)] = slot;
                }
            }
            stage->lhs_roots.assign(st.dims, -1);
            for (int i = 0; i < st.dims; i++) {
                const Variable *v = as<Variable>(d.args[i]);
                if (!(v && v->var_kind == VarKind::Pure)) stage->lhs_roots[i] = compile(p, scope, d.args[i]);
            }
            for (const Expr &pred : d.predicates) stage->predicate_roots.push_back(compile(p, scope, pred));
            // An undef pure definition has no program: reading it is an error (stage_value).
            if (!is_undef(d.value))
                for (const Expr &v : tuple_components(d.value)) stage->value_roots.push_back(compile(p, scope, v));
            st.stages.push_back(std::move(stage));
        }
    }

    void evaluate_rdom_bounds(FuncState &st) {
        for (size_t s = 1; s < st.stages.size(); s++) {
            StageState &stage = *st.stages[s];
            const Definition &d = *stage.def;
            if (!d.rdom) continue;
            for (const auto &dim : d.rdom->dims) {
                int32_t mn = int32_t(evaluate_startup(dim.min).i);
                int32_t ex = int32_t(evaluate_startup(dim.extent).i);
                if (ex < 0)
                    throw RuntimeError("RDom " + d.rdom->name + " used in " + describe_definition(*st.func, int(s)) +
                                       " has extent " + std::to_string(ex) + " in dimension " + dim.name +
                                       "; RDom extents must not be negative");
                stage.rdom_min.push_back(mn);
                stage.rdom_extent.push_back(ex);
            }
        }
    }

    // --- evaluation -------------------------------------------------------------------

    Scalar eval(const Program &p, int i, Scalar *slots) {
        const Node &n = p.nodes[size_t(i)];
        switch (n.op) {
        case Op::Const: return n.imm;
        case Op::Slot: return slots[n.slot];
        case Op::Cast: return cast(n.type, n.operand_type, eval(p, n.a, slots));
        case Op::Binary: {
            Scalar x = eval(p, n.a, slots);
            Scalar y = eval(p, n.b, slots);
            return binary(n.kind, n.operand_type, x, y);
        }
        case Op::Not: return make_uint(eval(p, n.a, slots).u ? 0 : 1);
        case Op::Select: {
            // Every operand is evaluated (docs/semantics.md): errors in either branch count.
            Scalar c = eval(p, n.a, slots);
            Scalar x = eval(p, n.b, slots);
            Scalar y = eval(p, n.c, slots);
            return c.u ? x : y;
        }
        case Op::Let:
            slots[n.slot] = eval(p, n.a, slots);
            return eval(p, n.b, slots);
        case Op::Intrinsic: {
            Scalar args[kMaxIntrinsicArgs];
            int count = int(n.args.size());
            TESSERA_INTERNAL_ASSERT(count <= kMaxIntrinsicArgs, "intrinsic with " << count << " arguments");
            for (int k = 0; k < count; k++) args[k] = eval(p, n.args[size_t(k)], slots);
            return intrinsic(n.intrinsic, n.type, n.arg_types.data(), args, count);
        }
        case Op::Print: {
            const Scalar value = eval(p, n.args[1], slots);
            if (truthy(n.arg_types[0], eval(p, n.args[0], slots))) {
                std::string line;
                size_t text = 0;
                for (size_t k = 1; k < n.args.size(); k++) {
                    if (k > 1) line += ' ';
                    line += n.args[k] < 0 ? n.texts[text++] : print_part(n.arg_types[k], k == 1 ? value : eval(p, n.args[k], slots));
                }
                line += '\n';
                std::fputs(line.c_str(), stderr);
            }
            return value;
        }
        case Op::Require: {
            if (!truthy(n.arg_types[0], eval(p, n.args[0], slots))) {
                std::string message = "requirement failed:";
                size_t text = 0;
                for (size_t k = 2; k < n.args.size(); k++)
                    message += " " + (n.args[k] < 0 ? n.texts[text++] : scalar_to_string(n.arg_types[k], eval(p, n.args[k], slots)));
                throw RuntimeError(message);
            }
            return eval(p, n.args[1], slots);
        }
        case Op::ImageCall: {
            int32_t c[kMaxDims];
            int count = int(n.args.size());
            for (int k = 0; k < count; k++) c[k] = int32_t(eval(p, n.args[size_t(k)], slots).i);
            const BufferData &b = *n.image;
            int64_t off = b.checked_offset(c, count);
            return load_scalar(b.type, b.host + off * b.type.bytes());
        }
        case Op::FuncCall: {
            int32_t c[kMaxDims] = {};
            for (size_t k = 0; k < n.args.size(); k++) c[k] = int32_t(eval(p, n.args[k], slots).i);
            return value_of(*n.callee, c, n.value_index);
        }
        case Op::SelfCall: {
            int32_t c[kMaxDims] = {};
            for (size_t k = 0; k < n.args.size(); k++) c[k] = int32_t(eval(p, n.args[k], slots).i);
            return self_value(*n.callee, n.slot, c, n.value_index);
        }
        }
        TESSERA_INTERNAL_ERROR("bad interpreter node");
    }

    /** Value `k` of a Func at a point, finally. */
    Scalar value_of(FuncState &f, const int32_t *c, int k) {
        return stage_value(f, int(f.stages.size()) - 1, c, k);
    }

    /** A self-reference inside the update being replayed: the value written so far in
     * this replay, else the previous definition's value. */
    Scalar self_value(FuncState &f, int s, const int32_t *c, int k) {
        StageState &active = *f.stages[size_t(s)];
        if (active.active_point) {
            if (std::memcmp(active.active_point, c, sizeof(int32_t) * size_t(f.dims)) == 0) {
                if (*active.active_undefined) throw undefined_at(f, c);
                return (*active.active_value)[size_t(k)];
            }
        } else if (active.active_overlay) {
            Scalar v;
            if ((*active.active_overlay)[size_t(k)].get(c, v)) return v;
        }
        return stage_value(f, s - 1, c, k);
    }

    template<typename F>
    void for_each_rdom_point(StageState &st, Scalar *slots, F &&body) {
        const size_t k = st.rvar_slots.size();
        if (k == 0) {
            body();
            return;
        }
        for (size_t i = 0; i < k; i++)
            if (st.rdom_extent[i] == 0) return;
        // Offsets from the mins, in 64 bits: an RVar takes the values min + t (wrapping to
        // int32), t in [0, extent), even when min + extent passes the int32 range.
        std::vector<int64_t> t(k, 0);
        while (true) {
            for (size_t i = 0; i < k; i++) slots[st.rvar_slots[i]] = make_int(wrap_int(32, st.rdom_min[i] + t[i]));
            body();
            size_t d = 0;  // r.x (dimension 0) varies fastest
            while (d < k) {
                if (++t[d] < st.rdom_extent[d]) break;
                t[d] = 0;
                d++;
            }
            if (d == k) return;
        }
    }

    bool predicates_hold(StageState &st, Scalar *slots) {
        bool ok = true;
        for (int root : st.predicate_roots) ok = eval(st.program, root, slots).u != 0 && ok;
        return ok;
    }

    /** The error of reading f at c where only an undef pure definition defines it. */
    static UndefinedValue undefined_at(const FuncState &f, const int32_t *c) {
        std::string point;
        for (int i = 0; i < f.dims; i++) point += (i ? ", " : "") + std::to_string(c[i]);
        return UndefinedValue("Func \"" + f.func->name + "\" has no value at (" + point +
                              "): its pure definition is undef and no update writes that point");
    }

    /** Every value of stage s at c: evaluated from the values before it, then all
     * stored. */
    std::vector<Scalar> evaluate_values(StageState &st, Scalar *slots) {
        std::vector<Scalar> values;
        for (int root : st.value_roots) values.push_back(eval(st.program, root, slots));
        return values;
    }

    /** The values of f before stage s (s >= 1) at c. */
    std::vector<Scalar> previous_values(FuncState &f, int s, const int32_t *c) {
        std::vector<Scalar> values;
        for (int k = 0; k < f.values; k++) values.push_back(stage_value(f, s - 1, c, k));
        return values;
    }

    void store_values(StageState &st, const int32_t *c, const std::vector<Scalar> &values) {
        for (size_t k = 0; k < values.size(); k++) st.stores[k].put(c, values[k]);
    }

    Scalar stage_value(FuncState &f, int s, const int32_t *c, int k) {
        StageState &st = *f.stages[size_t(s)];
        Scalar v;
        if (st.stores[size_t(k)].get(c, v)) return v;
        compute_point(f, s, c);
        const bool stored = st.stores[size_t(k)].get(c, v);
        TESSERA_INTERNAL_ASSERT(stored, "the reference interpreter computed no value of " << f.func->name);
        return v;
    }

    /** An extern Func's value at c: its C function called over that point alone (its
     * values do not depend on the region asked for, docs/semantics.md §7.6). */
    void compute_extern_point(FuncState &f, const int32_t *c) {
        std::vector<int> ones(size_t(f.dims), 1);
        auto dst = tessera::detail::make_buffer(f.func->type, ones, f.func->name);
        for (int i = 0; i < f.dims; i++) dst->dims[size_t(i)].min = c[i];
        ExternInputs in;
        in.realize = [&](size_t i, const std::shared_ptr<BufferData> &out) { f.extern_inputs[i]->realize_into({out.get()}); };
        in.buffer = [&](size_t i) { return f.extern_args[i].buffer; };
        in.scalar = [&](size_t i) { return f.extern_args[i].scalar; };
        compute_extern(*f.func, dst, in);
        f.stages[0]->stores[0].put(c, load_scalar(f.func->type, dst->host));
    }

    /** Computes and stores every value of stage s at c (an update over reduction
     * dimensions: of the whole slice through c). */
    void compute_point(FuncState &f, int s, const int32_t *c) {
        if (f.func->extern_definition) return compute_extern_point(f, c);
        StageState &st = *f.stages[size_t(s)];
        std::vector<Scalar> slots(size_t(std::max(st.program.num_slots, 1)));
        for (int i : st.pure_positions) slots[size_t(i)] = make_int(c[i]);
        if (s == 0) {
            if (st.value_roots.empty()) throw undefined_at(f, c);
            store_values(st, c, evaluate_values(st, slots.data()));
            return;
        }
        if (st.all_pure) {
            // The update writes only at the query point: replay its RDom there. The value
            // before it may be undef, as long as an iteration overwrites it before it is
            // read.
            bool undefined = false;
            std::vector<Scalar> values(size_t(f.values));
            try {
                values = previous_values(f, s, c);
            } catch (const UndefinedValue &) {
                undefined = true;
            }
            int32_t point[kMaxDims];
            std::memcpy(point, c, sizeof(int32_t) * size_t(f.dims));
            auto *saved_point = st.active_point;
            auto *saved_value = st.active_value;
            auto *saved_undefined = st.active_undefined;
            st.active_point = point;
            st.active_value = &values;
            st.active_undefined = &undefined;
            try {
                for_each_rdom_point(st, slots.data(), [&] {
                    if (!predicates_hold(st, slots.data())) return;
                    values = evaluate_values(st, slots.data());
                    undefined = false;
                });
            } catch (...) {
                st.active_point = saved_point;
                st.active_value = saved_value;
                st.active_undefined = saved_undefined;
                throw;
            }
            st.active_point = saved_point;
            st.active_value = saved_value;
            st.active_undefined = saved_undefined;
            if (undefined) throw undefined_at(f, c);
            store_values(st, c, values);
            return;
        }
        // Reduction dimensions: replay the whole slice (fixed pure coordinates) once.
        Key slice;
        for (int i : st.pure_positions) slice.c[size_t(i)] = c[i];
        if (!st.replayed.count(slice)) {
            std::vector<PointStore> overlay;
            for (int k = 0; k < f.values; k++) overlay.emplace_back(f.dims);
            auto *saved = st.active_overlay;
            st.active_overlay = &overlay;
            try {
                for_each_rdom_point(st, slots.data(), [&] {
                    if (!predicates_hold(st, slots.data())) return;
                    int32_t point[kMaxDims] = {};
                    for (int i = 0; i < f.dims; i++)
                        point[i] = st.lhs_roots[size_t(i)] < 0
                                       ? c[i]
                                       : int32_t(eval(st.program, st.lhs_roots[size_t(i)], slots.data()).i);
                    const std::vector<Scalar> values = evaluate_values(st, slots.data());
                    for (size_t k = 0; k < values.size(); k++) overlay[k].put(point, values[k]);
                });
            } catch (...) {
                st.active_overlay = saved;
                throw;
            }
            st.active_overlay = saved;
            for (size_t k = 0; k < overlay.size(); k++)
                overlay[k].for_each([&](const int32_t *p, Scalar value) { st.stores[k].put(p, value); });
            st.replayed.insert(slice);
            Scalar v;
            if (st.stores[0].get(c, v)) return;
        }
        store_values(st, c, previous_values(f, s, c));
    }

    std::vector<std::unique_ptr<FuncState>> states_;
    std::unordered_map<const FunctionData *, FuncState *> funcs_;
    FuncState *output_ = nullptr;
    const ReferenceBindings *bindings_ = nullptr;  // during construction only
};

}  // namespace

struct ReferenceOracle::Impl {
    ReferenceBindings bindings;  // keeps the bound buffers alive
    Interpreter interp;
    Impl(const std::shared_ptr<FunctionData> &output, const ReferenceBindings &b)
        : bindings(b), interp(output, &bindings) {}
};

ReferenceOracle::ReferenceOracle(const std::shared_ptr<FunctionData> &output, const ReferenceBindings &bindings)
    : impl_(std::make_unique<Impl>(output, bindings)) {}

ReferenceOracle::~ReferenceOracle() = default;

Scalar ReferenceOracle::value(const FunctionData *f, int stage, const int32_t *coords, int value_index) {
    return impl_->interp.query(f, stage, coords, value_index);
}

std::vector<std::shared_ptr<BufferData>> reference_realize(const std::shared_ptr<FunctionData> &f,
                                                           const std::vector<int> &sizes) {
    ir::check_realize_sizes(*f, sizes);
    Interpreter interp(f);
    std::vector<std::shared_ptr<BufferData>> dsts;
    std::vector<BufferData *> raw;
    for (const Type &t : f->types()) {
        dsts.push_back(tessera::detail::make_buffer(t, sizes, f->name));
        raw.push_back(dsts.back().get());
    }
    interp.realize_into(raw);
    return dsts;
}

void reference_realize_into(const std::shared_ptr<FunctionData> &f,
                            const std::vector<std::shared_ptr<BufferData>> &dsts) {
    std::vector<BufferData *> raw;
    for (const auto &d : dsts) {
        if (!d) throw RuntimeError("realize of Func \"" + f->name + "\" into an undefined Buffer");
        raw.push_back(d.get());
    }
    Interpreter interp(f);
    interp.realize_into(raw);
}

}  // namespace tessera::semantics
