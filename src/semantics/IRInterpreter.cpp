#include "semantics/IRInterpreter.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "ir/AtomicStore.h"
#include "ir/Check.h"
#include "ir/IRPrinter.h"

namespace tessera::semantics {

using namespace ir;

ArgValue ArgValue::of_buffer(std::shared_ptr<BufferData> b) {
    ArgValue a;
    a.buffer = std::move(b);
    return a;
}

ArgValue ArgValue::of_int(int64_t v) { return of_scalar(Int(64), make_int(v)); }
ArgValue ArgValue::of_uint(uint64_t v) { return of_scalar(UInt(64), make_uint(v)); }
ArgValue ArgValue::of_float(double v) { return of_scalar(Float(64), make_float(v)); }

ArgValue ArgValue::of_scalar(Type t, Scalar v) {
    ArgValue a;
    a.type = t;
    a.scalar = v;
    return a;
}

ArgValue ArgValue::of_param(const ir::ParamData &p) {
    Scalar v;
    static_assert(sizeof(v) == sizeof(p.value));
    std::memcpy(&v, &p.value, sizeof(v));
    return of_scalar(p.type, v);
}

namespace {

/** The most elements an allocation, or the offset span of a caller's buffer, may have. */
constexpr int64_t kMaxElements = int64_t(1) << 31;

/** A value of the lowered program: one Scalar and one poison bit per lane. Scalars keep
 * their lane inline, so evaluating scalar code allocates nothing. */
struct Value {
    Type type;
    Scalar s{};
    bool p = false;
    std::vector<Scalar> vs;   // lanes > 1
    std::vector<uint8_t> vp;  // lanes > 1

    static Value make(Type t) {
        Value r;
        r.type = t;
        if (t.lanes > 1) {
            r.vs.assign(t.lanes, Scalar{});
            r.vp.assign(t.lanes, 0);
        }
        return r;
    }
    static Value scalar(Type t, Scalar v) {
        Value r;
        r.type = t;
        r.s = v;
        return r;
    }
    int lanes() const { return type.lanes; }
    /** Lane i; a scalar value stands for all lanes (a broadcast). */
    Scalar lane(int i) const { return type.lanes == 1 ? s : vs[size_t(i)]; }
    bool poisoned(int i) const { return type.lanes == 1 ? p : vp[size_t(i)] != 0; }
    void set(int i, Scalar v, bool poison) {
        if (poison) v = Scalar{};  // the content of a poisoned lane is meaningless
        if (type.lanes == 1) {
            s = v;
            p = poison;
        } else {
            vs[size_t(i)] = v;
            vp[size_t(i)] = poison;
        }
    }
    bool any_poison() const {
        if (type.lanes == 1) return p;
        return std::any_of(vp.begin(), vp.end(), [](uint8_t b) { return b != 0; });
    }
};

/** An allocation, or a buffer of the caller (input or output). */
struct Memory {
    enum class Kind { Allocation, Input, Output };
    std::string name;
    Kind kind = Kind::Allocation;
    Type type;
    // Allocation: `size` elements in `data`, indexed by the element index.
    int64_t size = 0;
    std::vector<Scalar> data;
    // Input/Output: the caller's memory; element offsets lie in [lo, hi] and valid[off - lo]
    // says whether an offset is an element of the buffer (strided buffers have gaps).
    std::shared_ptr<BufferData> buf;
    int64_t lo = 0, hi = -1;
    std::vector<uint8_t> valid;
    // Poison bits by position (index for allocations, offset - lo for buffers); empty when
    // nothing can be poisoned (inputs).
    std::vector<uint8_t> poison;
    // An allocation whose Free has run: any later access is a broken contract.
    bool freed = false;

    const char *kind_name() const {
        switch (kind) {
        case Kind::Allocation: return "allocation";
        case Kind::Input: return "input buffer";
        case Kind::Output: return "output buffer";
        }
        return "";
    }
};

/** Calls f(coords, offset) for every point of the buffer's window, dimension 0 fastest. */
template<typename F>
void for_each_point(const BufferData &b, F &&f) {
    const size_t n = b.dims.size();
    for (const auto &d : b.dims)
        if (d.extent <= 0) return;
    std::vector<int32_t> c(n);
    for (size_t i = 0; i < n; i++) c[i] = b.dims[i].min;
    int64_t off = 0;
    while (true) {
        f(c.data(), off);
        size_t d = 0;
        while (d < n) {
            off += b.dims[d].stride;
            if (++c[d] < b.dims[d].min + b.dims[d].extent) break;
            off -= b.dims[d].stride * b.dims[d].extent;
            c[d] = b.dims[d].min;
            d++;
        }
        if (d == n) return;
    }
}

std::string point_text(const int32_t *c, size_t n) {
    std::string s = "(";
    for (size_t i = 0; i < n; i++) s += (i ? ", " : "") + std::to_string(c[i]);
    return s + ")";
}

std::string buffer_shape(const BufferData &b) {
    std::string s;
    for (size_t i = 0; i < b.dims.size(); i++) {
        s += (i ? "; " : "") + std::string("dim ") + std::to_string(i) + ": min " + std::to_string(b.dims[i].min) +
             ", extent " + std::to_string(b.dims[i].extent) + ", stride " + std::to_string(b.dims[i].stride);
    }
    return s.empty() ? "zero-dimensional" : s;
}

class Machine {
public:
    Machine(const ir::LoweredPipeline &p, const std::vector<ArgValue> &args, const RunOptions &options)
        : p_(p), options_(options) {
        if (args.size() != p.args.size())
            throw RuntimeError("Pipeline \"" + p.name + "\" takes " + std::to_string(p.args.size()) +
                               " arguments but was given " + std::to_string(args.size()));
        ReferenceBindings bindings;
        for (size_t k = 0; k < args.size(); k++) bind_argument(p.args[k], args[k], bindings);
        if (options.prophecy) prophecy_ = std::make_unique<ProphecyChecker>(p, bindings);
    }

    void execute() {
        if (!p_.body.defined()) fail("the lowered pipeline has no body");
        exec(p_.body);
        if (prophecy_) prophecy_->finish();
        if (options_.check_output_poison)
            for (Memory *m : outputs_) check_output_poison(*m);
        if (options_.stats) {
            stats_.prophecy = prophecy_ ? prophecy_->stats() : ProphecyStats{};
            *options_.stats = stats_;
        }
    }

private:
    // --- errors -------------------------------------------------------------------------

    [[noreturn]] void fail(const std::string &msg) const {
        throw InternalError("IR interpreter, pipeline \"" + p_.name + "\": " + msg);
    }

    // --- arguments ----------------------------------------------------------------------

    void bind_argument(const ir::PipelineArgument &arg, const ArgValue &v, ReferenceBindings &bindings) {
        using Kind = ir::PipelineArgument::Kind;
        if (arg.kind == Kind::Param) {
            Scalar value = v.type == arg.type ? normalize(arg.type, v.scalar) : cast(arg.type, v.type, v.scalar);
            push(env_[arg.name], Value::scalar(arg.type, value));
            if (arg.param) bindings.params[arg.param.get()] = value;
            return;
        }
        std::shared_ptr<BufferData> b = v.buffer;
        if (!b && arg.kind == Kind::InputBuffer) b = arg.buffer;
        const char *what = arg.kind == Kind::InputBuffer ? "input" : "output";
        if (!b) throw RuntimeError("Pipeline \"" + p_.name + "\": no buffer given for the " + what + " \"" + arg.name + "\"");
        if (b->type != arg.type)
            throw RuntimeError("Pipeline \"" + p_.name + "\": the " + what + " \"" + arg.name + "\" has type " +
                               arg.type.to_string() + " but the buffer given has type " + b->type.to_string());
        if (int(b->dims.size()) != arg.dimensions)
            throw RuntimeError("Pipeline \"" + p_.name + "\": the " + what + " \"" + arg.name + "\" has " +
                               std::to_string(arg.dimensions) + " dimensions but the buffer given has " +
                               std::to_string(b->dims.size()));
        auto m = std::make_unique<Memory>();
        m->name = arg.name;
        m->kind = arg.kind == Kind::InputBuffer ? Memory::Kind::Input : Memory::Kind::Output;
        m->type = arg.type;
        m->buf = b;
        init_caller_buffer(*m);
        for (int i = 0; i < arg.dimensions; i++) {
            const BufferDim &d = b->dims[size_t(i)];
            const std::string dim = "." + std::to_string(i);
            push(env_[arg.name + ".min" + dim], Value::scalar(Int(32), make_int(d.min)));
            push(env_[arg.name + ".extent" + dim], Value::scalar(Int(32), make_int(d.extent)));
            push(env_[arg.name + ".stride" + dim], Value::scalar(Int(64), make_int(d.stride)));
        }
        if (arg.input) {
            inputs_[arg.input.get()] = b.get();
            bindings.inputs[arg.input.get()] = b;
        }
        if (arg.buffer) bindings.buffers[arg.buffer.get()] = b;
        if (m->kind == Memory::Kind::Output) outputs_.push_back(m.get());
        auto &stack = memory_[arg.name];
        if (!stack.empty()) throw RuntimeError("Pipeline \"" + p_.name + "\": two arguments are named \"" + arg.name + "\"");
        stack.push_back(std::move(m));
    }

    void init_caller_buffer(Memory &m) {
        const BufferData &b = *m.buf;
        bool empty = false;
        m.lo = m.hi = 0;
        for (const auto &d : b.dims) {
            if (d.extent <= 0) empty = true;
            int64_t span = int64_t(d.extent - 1) * d.stride;
            m.lo += std::min<int64_t>(0, span);
            m.hi += std::max<int64_t>(0, span);
        }
        if (empty) {
            m.lo = 0;
            m.hi = -1;
            return;
        }
        if (m.hi - m.lo + 1 > kMaxElements)
            throw RuntimeError("Pipeline \"" + p_.name + "\": buffer \"" + m.name +
                               "\" spans too many elements for the IR interpreter");
        if (!b.host) throw RuntimeError("Pipeline \"" + p_.name + "\": buffer \"" + m.name + "\" has no memory");
        const size_t span = size_t(m.hi - m.lo + 1);
        m.valid.assign(span, 0);
        for_each_point(b, [&](const int32_t *, int64_t off) { m.valid[size_t(off - m.lo)] = 1; });
        if (m.kind == Memory::Kind::Output) m.poison.assign(span, options_.poison_output ? 1 : 0);
    }

    // --- environment --------------------------------------------------------------------

    using Stack = std::vector<Value>;

    /** The binding stack of a name; `name` must live as long as the run (a node's field). */
    Stack &stack_of(const std::string &name) {
        auto it = stack_cache_.find(&name);
        if (it != stack_cache_.end()) return *it->second;
        Stack &s = env_[name];
        stack_cache_.emplace(&name, &s);
        return s;
    }

    static void push(Stack &s, Value v) { s.push_back(std::move(v)); }

    Value variable(const Variable *v) {
        if (v->var_kind == VarKind::InputBound) {
            auto it = inputs_.find(v->input.get());
            if (it == inputs_.end())
                fail("the bound of ImageParam \"" + (v->input ? v->input->name : std::string()) +
                     "\" is used but the ImageParam is not an argument");
            const BufferDim &d = it->second->dims.at(size_t(v->input_dim));
            return Value::scalar(Int(32), make_int(v->is_extent ? d.extent : d.min));
        }
        Stack &s = stack_of(v->name);
        if (s.empty()) fail("variable \"" + v->name + "\" is used but not bound");
        const Value &val = s.back();
        if (val.type != v->type)
            fail("variable \"" + v->name + "\" of type " + v->type.to_string() + " is bound to a value of type " +
                 val.type.to_string());
        return val;
    }

    Memory &memory(const std::string &name) {
        auto it = memory_cache_.find(&name);
        std::vector<std::unique_ptr<Memory>> *stack;
        if (it != memory_cache_.end()) {
            stack = it->second;
        } else {
            stack = &memory_[name];
            memory_cache_.emplace(&name, stack);
        }
        if (stack->empty()) fail("\"" + name + "\" is accessed but is neither an allocation in scope nor a buffer argument");
        if (stack->back()->freed) fail("the allocation \"" + name + "\" is accessed after its Free");
        return *stack->back();
    }

    /** The position of element `index` of m (into data/valid/poison), or an InternalError. */
    int64_t position(const Memory &m, int64_t index, const char *access, int lane, int lanes) const {
        const bool in = m.kind == Memory::Kind::Allocation
                            ? index >= 0 && index < m.size
                            : index >= m.lo && index <= m.hi && m.valid[size_t(index - m.lo)];
        if (in) return m.kind == Memory::Kind::Allocation ? index : index - m.lo;
        std::ostringstream msg;
        msg << access << " \"" << m.name << "\" at index " << index;
        if (lanes > 1) msg << " (lane " << lane << " of " << lanes << ")";
        msg << " is out of bounds: ";
        if (m.kind == Memory::Kind::Allocation) {
            msg << "the allocation has " << m.size << " elements, valid indices [0, " << m.size - 1 << "]";
        } else if (m.hi < m.lo) {
            msg << "the " << m.kind_name() << " is empty (" << buffer_shape(*m.buf) << ")";
        } else {
            msg << "the " << m.kind_name() << " (" << buffer_shape(*m.buf) << ") has its elements at offsets in ["
                << m.lo << ", " << m.hi << "]";
            if (index >= m.lo && index <= m.hi) msg << ", but not at offset " << index;
        }
        fail(msg.str());
    }

    // --- expressions --------------------------------------------------------------------

    Value binary_op(ExprKind k, Type t, const Expr &a, const Expr &b) {
        Value x = eval(a), y = eval(b);
        const Type ot = a.type().element_of();
        if (t.lanes == 1) {
            Value r = Value::scalar(t, Scalar{});
            if (x.p || y.p) r.p = true;
            else r.s = binary(k, ot, x.s, y.s);
            return r;
        }
        Value r = Value::make(t);
        for (int i = 0; i < t.lanes; i++) {
            bool p = x.poisoned(i) || y.poisoned(i);
            r.set(i, p ? Scalar{} : binary(k, ot, x.lane(i), y.lane(i)), p);
        }
        return r;
    }

    /** A +, - or * that lowering marked as index arithmetic (Add::no_overflow): its exact
     * value must lie in the int32 range (docs/semantics.md §11). A violation is a hole in
     * what the pipeline's entry checks, and an InternalError. */
    template<typename T>
    Value arith(ExprKind k, const T *op, const Expr &e) {
        if (!op->no_overflow) return binary_op(k, e.type(), op->a, op->b);
        const Type t = e.type(), ot = op->a.type().element_of();
        Value x = eval(op->a), y = eval(op->b);
        Value r = Value::make(t);
        for (int i = 0; i < t.lanes; i++) {
            const bool p = x.poisoned(i) || y.poisoned(i);
            r.set(i, p ? Scalar{} : binary(k, ot, x.lane(i), y.lane(i)), p);
            if (p) continue;
            const __int128 a = x.lane(i).i, b = y.lane(i).i;
            const __int128 exact = k == ExprKind::Add ? a + b : k == ExprKind::Sub ? a - b : a * b;
            if (exact < INT32_MIN || exact > INT32_MAX)
                fail("the index arithmetic " + to_string(e) + " (marked as staying in the int32 range) has the value " +
                     std::to_string(int64_t(exact < INT64_MIN ? INT64_MIN : exact > INT64_MAX ? INT64_MAX : exact)) +
                     (t.lanes > 1 ? " in lane " + std::to_string(i) : std::string()));
        }
        return r;
    }

    Value eval(const Expr &e) {
        const Type t = e.type();
        switch (e->kind) {
        case ExprKind::IntImm: return Value::scalar(t, make_int(as<IntImm>(e)->value));
        case ExprKind::UIntImm: return Value::scalar(t, make_uint(as<UIntImm>(e)->value));
        case ExprKind::FloatImm: return Value::scalar(t, make_float(as<FloatImm>(e)->value));
        case ExprKind::StringImm: fail("a string is used as a value: " + to_string(e));
        case ExprKind::Variable: return variable(as<Variable>(e));
        case ExprKind::Cast: {
            const Cast *c = as<Cast>(e);
            Value v = eval(c->value);
            const Type from = c->value.type().element_of(), to = t.element_of();
            Value r = Value::make(t);
            for (int i = 0; i < t.lanes; i++) {
                r.set(i, v.poisoned(i) ? Scalar{} : cast(to, from, v.lane(i)), v.poisoned(i));
                // A conversion marked in range (Cast::in_range): the truncated value is a
                // number the integer type holds. A violation is a mistake of the pass
                // that marked it, and an InternalError.
                if (c->in_range && !v.poisoned(i) && !truncates_into(to, v.lane(i).f))
                    fail("the conversion " + to_string(e) + " (marked as in range) converts " +
                         std::to_string(v.lane(i).f) + (t.lanes > 1 ? " in lane " + std::to_string(i) : std::string()));
            }
            return r;
        }
        case ExprKind::Add: return arith(ExprKind::Add, as<Add>(e), e);
        case ExprKind::Sub: return arith(ExprKind::Sub, as<Sub>(e), e);
        case ExprKind::Mul: return arith(ExprKind::Mul, as<Mul>(e), e);
#define TESSERA_BINARY_CASE(N) \
    case ExprKind::N: return binary_op(ExprKind::N, t, as<N>(e)->a, as<N>(e)->b);
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
        case ExprKind::Not: {
            Value v = eval(as<Not>(e)->a);
            Value r = Value::make(t);
            for (int i = 0; i < t.lanes; i++) r.set(i, make_uint(v.lane(i).u ? 0 : 1), v.poisoned(i));
            return r;
        }
        case ExprKind::Select: {
            // Every operand is evaluated; the result is poisoned where the condition or
            // the chosen operand is.
            const Select *s = as<Select>(e);
            Value c = eval(s->condition);
            Value a = eval(s->true_value);
            Value b = eval(s->false_value);
            Value r = Value::make(t);
            for (int i = 0; i < t.lanes; i++) {
                const bool pick_a = c.lane(i).u != 0;
                const Value &chosen = pick_a ? a : b;
                r.set(i, chosen.lane(i), c.poisoned(i) || chosen.poisoned(i));
            }
            return r;
        }
        case ExprKind::Call: return call(as<Call>(e));
        case ExprKind::Let: {
            const Let *l = as<Let>(e);
            Value v = eval(l->value);
            Stack &s = stack_of(l->name);
            push(s, std::move(v));
            Value r = eval(l->body);
            s.pop_back();
            return r;
        }
        case ExprKind::Load: return load(as<Load>(e));
        case ExprKind::Ramp: {
            const Ramp *r = as<Ramp>(e);
            Value base = eval(r->base), stride = eval(r->stride);
            const Type et = t.element_of();
            const bool p = base.p || stride.p;
            Value out = Value::make(t);
            for (int i = 0; i < r->lanes; i++) {
                Scalar k = cast(et, Int(64), make_int(i));
                out.set(i, p ? Scalar{} : binary(ExprKind::Add, et, base.s, binary(ExprKind::Mul, et, k, stride.s)), p);
            }
            return out;
        }
        case ExprKind::Broadcast: {
            const Broadcast *b = as<Broadcast>(e);
            Value v = eval(b->value);
            Value out = Value::make(t);
            for (int i = 0; i < b->lanes; i++) out.set(i, v.s, v.p);
            return out;
        }
        }
        fail("cannot evaluate " + to_string(e));
    }

    Value call(const Call *c) {
        if (c->call_kind != CallKind::Intrinsic)
            fail("the lowered code calls " + std::string(c->call_kind == CallKind::Func ? "Func" : "image") + " \"" +
                 c->name + "\": such calls must have become Loads");
        if (writes_line(c->op)) return print(c);
        const int n = int(c->args.size());
        TESSERA_INTERNAL_ASSERT(n <= kMaxIntrinsicArgs, "intrinsic " << c->name << " with " << n << " arguments");
        std::vector<Value> args;
        args.reserve(size_t(n));
        Type arg_types[kMaxIntrinsicArgs];
        for (int k = 0; k < n; k++) {
            args.push_back(eval(c->args[size_t(k)]));
            arg_types[k] = c->args[size_t(k)].type().element_of();
        }
        const Type t = c->type;
        Value r = Value::make(t);
        for (int i = 0; i < t.lanes; i++) {
            Scalar a[kMaxIntrinsicArgs];
            bool p = false;
            for (int k = 0; k < n; k++) {
                a[k] = args[size_t(k)].lane(i);
                p = p || args[size_t(k)].poisoned(i);
            }
            r.set(i, p ? Scalar{} : intrinsic(c->op, t.element_of(), arg_types, a, n), p);
        }
        return r;
    }

    /** print_when(condition, value, parts...): its value; each lane whose condition holds
     * writes its line (a poisoned lane writes nothing). */
    Value print(const Call *c) {
        std::vector<Value> parts;
        for (size_t k = 0; k < c->args.size(); k++)
            parts.push_back(as<StringImm>(c->args[k]) ? Value() : eval(c->args[k]));
        const Value &when = parts[0], &value = parts[1];
        for (int i = 0; i < c->type.lanes; i++) {
            bool poisoned = false;
            for (const Value &v : parts) poisoned = poisoned || (v.lanes() > 0 && v.poisoned(v.lanes() == 1 ? 0 : i));
            const int wi = when.lanes() == 1 ? 0 : i;
            if (poisoned || !truthy(c->args[0].type().element_of(), when.lane(wi))) continue;
            // print_when: the value and the parts, separated by spaces; trace: the parts alone.
            const bool trace = c->op == Intrinsic::Trace;
            std::string line;
            for (size_t k = trace ? 2 : 1; k < c->args.size(); k++) {
                if (k > 1 && !trace) line += ' ';
                if (const StringImm *text = as<StringImm>(c->args[k])) {
                    line += text->value;
                    continue;
                }
                const Value &v = parts[k];
                line += print_part(c->args[k].type().element_of(), v.lane(v.lanes() == 1 ? 0 : i));
            }
            line += '\n';
            std::fputs(line.c_str(), stderr);
        }
        return value;
    }

    /** Element indices of a Load or Store, which must not be poisoned. */
    Value index_value(const Expr &index, const char *access, const std::string &buffer) {
        Value idx = eval(index);
        if (!index.type().is_int() && !index.type().is_uint())
            fail(std::string(access) + " \"" + buffer + "\" has an index of type " + index.type().to_string());
        for (int i = 0; i < idx.lanes(); i++)
            if (idx.poisoned(i))
                fail(std::string(access) + " \"" + buffer + "\" has an index computed from poisoned (uninitialized) data" +
                     (idx.lanes() > 1 ? " in lane " + std::to_string(i) : std::string()) + ": " + to_string(index));
        return idx;
    }

    Value load(const Load *op) {
        Value idx = index_value(op->index, "Load from", op->buffer);
        Memory &m = memory(op->buffer);
        const Type t = op->type;
        if (t.element_of() != m.type)
            fail("Load of type " + t.to_string() + " from \"" + op->buffer + "\" of element type " + m.type.to_string());
        Value r = Value::make(t);
        const Type it = op->index.type();
        const int bytes = m.type.bytes();
        for (int i = 0; i < t.lanes; i++) {
            const int64_t index = as_int64(it, idx.lane(i));
            const int64_t pos = position(m, index, "Load from", i, t.lanes);
            const bool p = !m.poison.empty() && m.poison[size_t(pos)];
            Scalar v = m.kind == Memory::Kind::Allocation ? m.data[size_t(pos)]
                                                           : load_scalar(m.type, m.buf->host + index * bytes);
            r.set(i, v, p);
            stats_.loads++;
            if (p) stats_.poisoned_loads++;
        }
        return r;
    }

    // --- statements ---------------------------------------------------------------------

    /** A scalar integer used as control (loop bound, allocation extent): never poisoned. */
    int64_t control_int(const Expr &e, const std::string &what) {
        if (!e.type().is_scalar() || !(e.type().is_int() || e.type().is_uint()))
            fail(what + " has type " + e.type().to_string() + ": " + to_string(e));
        Value v = eval(e);
        if (v.p) fail(what + " is computed from poisoned (uninitialized) data: " + to_string(e));
        return as_int64(e.type(), v.s);
    }

    /** A condition (if, assert): never poisoned; all lanes must hold for a vector. */
    bool condition(const Expr &e, const char *what) {
        Value v = eval(e);
        bool all = true;
        for (int i = 0; i < v.lanes(); i++) {
            if (v.poisoned(i))
                fail(std::string("the condition of ") + what + " is computed from poisoned (uninitialized) data: " +
                     to_string(e));
            all = all && truthy(e.type().element_of(), v.lane(i));
        }
        return all;
    }

    void exec(const Stmt &stmt) {
        // Blocks are right-nested chains: walk them iteratively.
        const Stmt *cur = &stmt;
        while (const Block *b = as<Block>(*cur)) {
            if (b->first.defined()) exec(b->first);
            cur = &b->rest;
        }
        const Stmt &s = *cur;
        if (!s.defined()) return;
        switch (s->kind) {
        case StmtKind::LetStmt: {
            const LetStmt *l = as<LetStmt>(s);
            Value v = eval(l->value);
            Stack &st = stack_of(l->name);
            push(st, std::move(v));
            exec(l->body);
            st.pop_back();
            return;
        }
        case StmtKind::AssertStmt: {
            const AssertStmt *a = as<AssertStmt>(s);
            if (condition(a->condition, "an assertion")) return;
            // A vector assertion reports its first failing lane, with that lane's values.
            int lane = 0;
            if (a->condition.type().lanes > 1) {
                const Value c = eval(a->condition);
                while (lane < c.lanes() - 1 && truthy(a->condition.type().element_of(), c.lane(lane))) lane++;
            }
            std::string msg;
            for (const Expr &part : a->message) {
                if (const StringImm *str = as<StringImm>(part)) {
                    msg += str->value;
                    continue;
                }
                Value v = eval(part);
                const Type et = part.type().element_of();
                const int i = v.lanes() == 1 ? 0 : lane;
                msg += v.poisoned(i) ? std::string("<poison>") : scalar_to_string(et, v.lane(i));
            }
            throw RuntimeError(msg);
        }
        case StmtKind::For: {
            const For *f = as<For>(s);
            const Type t = f->min.type();
            const int64_t mn = control_int(f->min, "the min of loop \"" + f->name + "\"");
            const int64_t ex = control_int(f->extent, "the extent of loop \"" + f->name + "\"");
            if (ex < 0)
                fail("loop \"" + f->name + "\" has the negative extent " + std::to_string(ex) +
                     " (extents must be checked before the loop nest runs)");
            // A reduction loop's variable wraps past the end of its type, as an RDom's values
            // do (docs/semantics.md §7.2) and as the compiled loop computes them; a pure
            // loop's, a coordinate, never leaves it (§11), so one that would is lowering's bug.
            const bool wraps = f->loop && !f->loop->pure && t.is_int() && t.bits < 64;
            if (!wraps && ex > 0 && mn > t.max_int() - (ex - 1))
                fail("loop \"" + f->name + "\" from " + std::to_string(mn) + " with extent " + std::to_string(ex) +
                     " overflows its type " + t.to_string());
            Stack &st = stack_of(f->name);
            push(st, Value::scalar(t, make_int(mn)));
            const size_t slot = st.size() - 1;
            const bool reverse = options_.reverse_parallel && f->for_type == ForType::Parallel;
            for (int64_t k = 0; k < ex; k++) {
                const int64_t i = reverse ? ex - 1 - k : k;
                st[slot].s = make_int(wraps ? ir::wrap_int(t.bits, mn + i) : mn + i);
                exec(f->body);
            }
            st.pop_back();
            return;
        }
        case StmtKind::Store: store(as<Store>(s)); return;
        case StmtKind::Allocate: {
            const Allocate *a = as<Allocate>(s);
            int64_t n = 1;
            for (size_t k = 0; k < a->extents.size(); k++) {
                const int64_t e = control_int(a->extents[k], "extent " + std::to_string(k) + " of allocation \"" + a->name + "\"");
                if (e < 0) fail("allocation \"" + a->name + "\" has the negative extent " + std::to_string(e));
                if (e > 0 && n > kMaxElements / e)
                    fail("allocation \"" + a->name + "\" has more than " + std::to_string(kMaxElements) + " elements");
                n *= e;
            }
            if (a->type.lanes != 1) fail("allocation \"" + a->name + "\" of vector type " + a->type.to_string());
            auto m = std::make_unique<Memory>();
            m->name = a->name;
            m->kind = Memory::Kind::Allocation;
            m->type = a->type;
            m->size = n;
            m->data.assign(size_t(n), Scalar{});
            m->poison.assign(size_t(n), 1);  // fresh memory is poisoned (ε_mem)
            auto &stack = memory_[a->name];
            memory_cache_.emplace(&a->name, &stack);
            stack.push_back(std::move(m));
            exec(a->body);
            if (prophecy_) prophecy_->release(a->name);
            stack.pop_back();
            return;
        }
        case StmtKind::IfThenElse: {
            const IfThenElse *i = as<IfThenElse>(s);
            if (condition(i->condition, "an if")) exec(i->then_case);
            else if (i->else_case.defined()) exec(i->else_case);
            return;
        }
        case StmtKind::Evaluate: eval(as<Evaluate>(s)->value); return;
        case StmtKind::ProducerConsumer: exec(as<ProducerConsumer>(s)->body); return;
        case StmtKind::Free: {
            const std::string &name = as<Free>(s)->name;
            Memory &m = memory(name);
            if (m.kind != Memory::Kind::Allocation) fail("a Free of the " + std::string(m.kind_name()) + " \"" + name + "\"");
            m.freed = true;
            std::vector<Scalar>().swap(m.data);
            std::vector<uint8_t>().swap(m.poison);
            return;
        }
        case StmtKind::Provide:
            fail("a Provide to \"" + as<Provide>(s)->name + "\" remains in the lowered code (storage flattening)");
        case StmtKind::Realize:
            fail("a Realize of \"" + as<Realize>(s)->name + "\" remains in the lowered code (storage flattening)");
        case StmtKind::Block: break;  // handled above
        }
    }

    void store(const Store *op) {
        // The value first, then the index (docs/architecture.md, "What lowered code means").
        // A store of an atomic update, f[i] = f[i] op e, applies op lane by lane to the point
        // as it is (src/ir/AtomicStore.h): two lanes writing one point both count.
        std::optional<AtomicStoreParts> atomic;
        if (op->provenance && op->provenance->atomic) {
            atomic = atomic_store_parts(*op);
            if (!atomic) fail("the atomic store to \"" + op->buffer + "\" is not f[i] op e");
        }
        const Expr &computed = atomic ? atomic->operand : op->value;
        Value v = computed.defined() ? eval(computed) : Value::make(op->value.type());
        Value idx = index_value(op->index, "Store to", op->buffer);
        Memory &m = memory(op->buffer);
        const Type t = op->value.type();
        if (m.kind == Memory::Kind::Input) fail("Store to the input buffer \"" + op->buffer + "\"");
        if (t.element_of() != m.type)
            fail("Store of type " + t.to_string() + " to \"" + op->buffer + "\" of element type " + m.type.to_string());

        // The annotation's coordinates and RDom values, in the store's environment.
        const Provenance *prov = op->provenance.get();
        std::vector<Value> coords, rvars;
        if (prophecy_ && prov) {
            auto annotation_values = [&](const Expr &e, const std::string &what) {
                if (!e.type().is_int() && !e.type().is_uint())
                    fail(what + " of the annotation " + to_string(*prov) + " has type " + e.type().to_string());
                if (e.type().lanes != 1 && e.type().lanes != t.lanes)
                    fail(what + " of the annotation " + to_string(*prov) + " has " + std::to_string(e.type().lanes) +
                         " lanes but the store has " + std::to_string(t.lanes));
                Value r = eval(e);
                if (r.any_poison())
                    fail(what + " of the annotation " + to_string(*prov) + " of a store to \"" + op->buffer +
                         "\" is computed from poisoned (uninitialized) data");
                return r;
            };
            for (size_t k = 0; k < prov->coords.size(); k++)
                coords.push_back(annotation_values(prov->coords[k], "coordinate " + std::to_string(k)));
            for (const auto &[name, e] : prov->rvars) rvars.push_back(annotation_values(e, "RDom variable " + name));
        } else if (prophecy_) {
            if (options_.require_provenance)
                fail("the store to \"" + op->buffer + "\" at " + to_string(op->index) +
                     " has no provenance annotation (every store made by lowering carries one)");
        }

        const Type it = op->index.type();
        const int bytes = m.type.bytes();
        std::vector<int64_t> c(coords.size()), r(rvars.size());
        for (int i = 0; i < t.lanes; i++) {
            const int64_t index = as_int64(it, idx.lane(i));
            const int64_t pos = position(m, index, "Store to", i, t.lanes);
            bool p = v.poisoned(i);
            Scalar value = v.lane(i);
            if (atomic) {
                const Scalar current =
                    m.kind == Memory::Kind::Allocation ? m.data[size_t(pos)] : load_scalar(m.type, m.buf->host + index * bytes);
                p = p || (!m.poison.empty() && m.poison[size_t(pos)]);
                Stack &old = stack_of(atomic->old), &operand = stack_of(atomic->operand_lane);
                push(old, Value::scalar(m.type, current));
                push(operand, Value::scalar(m.type, value));
                value = eval(atomic->combine).lane(0);
                operand.pop_back();
                old.pop_back();
            }
            if (m.kind == Memory::Kind::Allocation) m.data[size_t(pos)] = value;
            else store_scalar(m.type, m.buf->host + index * bytes, value);
            if (!m.poison.empty()) m.poison[size_t(pos)] = p;
            if (++stats_.stores == options_.max_stores)
                throw WorkLimitExceeded("pipeline \"" + p_.name + "\" reached the limit of " +
                                        std::to_string(options_.max_stores) + " stores");
            if (p) stats_.poisoned_stores++;
            if (!prophecy_) continue;
            if (!prov) {
                prophecy_->unannotated_store();
                continue;
            }
            for (size_t k = 0; k < coords.size(); k++)
                c[k] = as_int64(prov->coords[k].type().element_of(), coords[k].lane(i));
            for (size_t k = 0; k < rvars.size(); k++)
                r[k] = as_int64(prov->rvars[k].second.type().element_of(), rvars[k].lane(i));
            prophecy_->store(op->buffer, index, *prov, m.type, value, p, c.data(), r.data());
        }
    }

    void check_output_poison(const Memory &m) {
        int64_t bad = 0, total = 0;
        std::vector<std::string> examples;
        for_each_point(*m.buf, [&](const int32_t *c, int64_t off) {
            total++;
            if (!m.poison[size_t(off - m.lo)]) return;
            if (bad++ < 4) examples.push_back(point_text(c, m.buf->dims.size()));
        });
        if (bad == 0) return;
        std::string where;
        for (size_t i = 0; i < examples.size(); i++) where += (i ? ", " : "") + examples[i];
        if (bad > int64_t(examples.size())) where += ", ...";
        fail(std::to_string(bad) + " of the " + std::to_string(total) + " elements of the output window \"" + m.name +
             "\" hold poison (never stored, or computed from uninitialized memory), at " + where);
    }

    const ir::LoweredPipeline &p_;
    const RunOptions &options_;
    std::unordered_map<std::string, Stack> env_;
    std::unordered_map<const std::string *, Stack *> stack_cache_;
    std::unordered_map<std::string, std::vector<std::unique_ptr<Memory>>> memory_;
    std::unordered_map<const std::string *, std::vector<std::unique_ptr<Memory>> *> memory_cache_;
    std::unordered_map<const InputData *, const BufferData *> inputs_;
    std::vector<Memory *> outputs_;
    std::unique_ptr<ProphecyChecker> prophecy_;
    RunStats stats_;
};

}  // namespace

void run(const ir::LoweredPipeline &p, const std::vector<ArgValue> &args, const RunOptions &options) {
    Machine m(p, args, options);
    m.execute();
}

std::vector<ArgValue> default_arguments(const ir::LoweredPipeline &p, std::shared_ptr<BufferData> output) {
    return default_arguments(p, std::vector<std::shared_ptr<BufferData>>{std::move(output)});
}

std::vector<ArgValue> default_arguments(const ir::LoweredPipeline &p,
                                        const std::vector<std::shared_ptr<BufferData>> &outputs) {
    return default_arguments(p, outputs, {});
}

std::vector<ArgValue> default_arguments(const ir::LoweredPipeline &p,
                                        const std::vector<std::shared_ptr<BufferData>> &outputs,
                                        const std::map<const ir::InputData *, std::shared_ptr<BufferData>> &inputs) {
    return default_arguments(p.name, p.args, outputs, inputs);
}

std::vector<ArgValue> default_arguments(const std::string &pipeline, const std::vector<ir::PipelineArgument> &arguments,
                                        const std::vector<std::shared_ptr<BufferData>> &outputs,
                                        const std::map<const ir::InputData *, std::shared_ptr<BufferData>> &inputs) {
    std::vector<ArgValue> args;
    args.reserve(arguments.size());
    size_t next_output = 0;
    for (const ir::PipelineArgument &a : arguments) {
        switch (a.kind) {
        case ir::PipelineArgument::Kind::InputBuffer:
            if (a.buffer) {
                args.push_back(ArgValue::of_buffer(a.buffer));
            } else if (auto it = inputs.find(a.input.get()); it != inputs.end()) {
                args.push_back(ArgValue::of_buffer(it->second));
            } else {
                if (!a.input || !a.input->bound)
                    throw RuntimeError("ImageParam " + a.name + " has no Buffer bound; call " + a.name +
                                       ".set(buffer) before running");
                args.push_back(ArgValue::of_buffer(a.input->bound));
            }
            break;
        case ir::PipelineArgument::Kind::Param: {
            TESSERA_INTERNAL_ASSERT(a.param, "Param argument \"" << a.name << "\" without its Param");
            args.push_back(ArgValue::of_param(*a.param));
            break;
        }
        case ir::PipelineArgument::Kind::OutputBuffer:
            TESSERA_INTERNAL_ASSERT(next_output < outputs.size(), "pipeline " << pipeline << " has more outputs than given");
            args.push_back(ArgValue::of_buffer(outputs[next_output++]));
            break;
        }
    }
    return args;
}

}  // namespace tessera::semantics
