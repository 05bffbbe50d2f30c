#include "ir/IR.h"

#include "ir/Check.h"
#include "ir/Function.h"
#include "ir/Scalar.h"

namespace tessera::ir {

namespace {

template<typename T, typename... Args>
Expr make_expr(Args &&...args) {
    return Expr(std::make_shared<const T>(std::forward<Args>(args)...));
}

template<typename T>
std::shared_ptr<T> new_stmt() { return std::make_shared<T>(); }

void check_defined(const Expr &e, const char *what) {
    TESSERA_INTERNAL_ASSERT(e.defined(), "undefined operand of " << what);
}

void check_same_type(const Expr &a, const Expr &b, const char *what) {
    check_defined(a, what);
    check_defined(b, what);
    TESSERA_INTERNAL_ASSERT(a.type() == b.type(), what << " of mismatched types "
                                                       << a.type().to_string() << " and "
                                                       << b.type().to_string());
}

}  // namespace

Expr IntImm::make(Type t, int64_t v) {
    TESSERA_INTERNAL_ASSERT(t.is_int() && t.is_scalar(), "IntImm of type " << t.to_string());
    return make_expr<IntImm>(t, ir::wrap_int(t.bits, v));
}

Expr UIntImm::make(Type t, uint64_t v) {
    TESSERA_INTERNAL_ASSERT((t.is_uint() || t.is_bool()) && t.is_scalar(),
                            "UIntImm of type " << t.to_string());
    return make_expr<UIntImm>(t, t.is_bool() ? uint64_t(v != 0) : ir::wrap_uint(t.bits, v));
}

Expr FloatImm::make(Type t, double v) {
    TESSERA_INTERNAL_ASSERT(t.is_float() && t.is_scalar() && (t.bits == 32 || t.bits == 64),
                            "FloatImm of type " << t.to_string());
    return make_expr<FloatImm>(t, t.bits == 32 ? double(float(v)) : v);
}

Expr StringImm::make(const std::string &v) { return make_expr<StringImm>(v); }

Expr Variable::make(Type t, const std::string &name, VarKind k) {
    TESSERA_INTERNAL_ASSERT(!name.empty(), "Variable with no name");
    return make_expr<Variable>(t, name, k);
}

Expr Cast::make(Type t, Expr v, bool in_range) {
    check_defined(v, "Cast");
    TESSERA_INTERNAL_ASSERT(t.lanes == v.type().lanes, "Cast changes lane count");
    TESSERA_INTERNAL_ASSERT(!in_range || (v.type().is_float() && (t.is_int() || t.is_uint())),
                            "only a float converted to an integer type is marked in range");
    return make_expr<Cast>(t, std::move(v), in_range);
}

#define TESSERA_ARITH_MAKE(N)                                                      \
    Expr N::make(Expr a, Expr b, bool no_overflow) {                               \
        check_same_type(a, b, #N);                                                 \
        Type t = a.type();                                                         \
        TESSERA_INTERNAL_ASSERT(!no_overflow || t.element_of() == Int(32) || t.element_of() == Int(64), \
                                "index arithmetic of type " << t.to_string());     \
        return make_expr<N>(t, std::move(a), std::move(b), no_overflow);           \
    }
TESSERA_ARITH_MAKE(Add)
TESSERA_ARITH_MAKE(Sub)
TESSERA_ARITH_MAKE(Mul)
#undef TESSERA_ARITH_MAKE

#define TESSERA_ARITH_MAKE(N)                                                      \
    Expr N::make(Expr a, Expr b) {                                                 \
        check_same_type(a, b, #N);                                                 \
        Type t = a.type();                                                         \
        return make_expr<N>(t, std::move(a), std::move(b));                        \
    }
TESSERA_ARITH_MAKE(Div)
TESSERA_ARITH_MAKE(Mod)
TESSERA_ARITH_MAKE(Min)
TESSERA_ARITH_MAKE(Max)
#undef TESSERA_ARITH_MAKE

#define TESSERA_CMP_MAKE(N)                                                        \
    Expr N::make(Expr a, Expr b) {                                                 \
        check_same_type(a, b, #N);                                                 \
        Type t = Bool(a.type().lanes);                                             \
        return make_expr<N>(t, std::move(a), std::move(b));                        \
    }
TESSERA_CMP_MAKE(EQ)
TESSERA_CMP_MAKE(NE)
TESSERA_CMP_MAKE(LT)
TESSERA_CMP_MAKE(LE)
TESSERA_CMP_MAKE(GT)
TESSERA_CMP_MAKE(GE)
#undef TESSERA_CMP_MAKE

Expr And::make(Expr a, Expr b) {
    check_same_type(a, b, "And");
    TESSERA_INTERNAL_ASSERT(a.type().is_bool(), "And of non-bool");
    Type t = a.type();
    return make_expr<And>(t, std::move(a), std::move(b));
}

Expr Or::make(Expr a, Expr b) {
    check_same_type(a, b, "Or");
    TESSERA_INTERNAL_ASSERT(a.type().is_bool(), "Or of non-bool");
    Type t = a.type();
    return make_expr<Or>(t, std::move(a), std::move(b));
}

Expr Not::make(Expr a) {
    check_defined(a, "Not");
    TESSERA_INTERNAL_ASSERT(a.type().is_bool(), "Not of non-bool");
    Type t = a.type();
    return make_expr<Not>(t, std::move(a));
}

Expr Select::make(Expr c, Expr a, Expr b) {
    check_defined(c, "Select");
    check_same_type(a, b, "Select");
    TESSERA_INTERNAL_ASSERT(c.type().is_bool(), "Select condition of type " << c.type().to_string());
    TESSERA_INTERNAL_ASSERT(c.type().lanes == 1 || c.type().lanes == a.type().lanes,
                            "Select condition lanes");
    Type t = a.type();
    return make_expr<Select>(t, std::move(c), std::move(a), std::move(b));
}

const char *intrinsic_name(Intrinsic op) {
    switch (op) {
    case Intrinsic::None: return "none";
    case Intrinsic::Sqrt: return "sqrt";
    case Intrinsic::Exp: return "exp";
    case Intrinsic::Log: return "log";
    case Intrinsic::Pow: return "pow";
    case Intrinsic::Sin: return "sin";
    case Intrinsic::Cos: return "cos";
    case Intrinsic::Tan: return "tan";
    case Intrinsic::Asin: return "asin";
    case Intrinsic::Acos: return "acos";
    case Intrinsic::Atan: return "atan";
    case Intrinsic::Atan2: return "atan2";
    case Intrinsic::Sinh: return "sinh";
    case Intrinsic::Cosh: return "cosh";
    case Intrinsic::Tanh: return "tanh";
    case Intrinsic::Asinh: return "asinh";
    case Intrinsic::Acosh: return "acosh";
    case Intrinsic::Atanh: return "atanh";
    case Intrinsic::Floor: return "floor";
    case Intrinsic::Ceil: return "ceil";
    case Intrinsic::Round: return "round";
    case Intrinsic::Trunc: return "trunc";
    case Intrinsic::Fma: return "fma";
    case Intrinsic::IsNan: return "is_nan";
    case Intrinsic::IsInf: return "is_inf";
    case Intrinsic::IsFinite: return "is_finite";
    case Intrinsic::Abs: return "abs";
    case Intrinsic::Absd: return "absd";
    case Intrinsic::BitAnd: return "bitwise_and";
    case Intrinsic::BitOr: return "bitwise_or";
    case Intrinsic::BitXor: return "bitwise_xor";
    case Intrinsic::BitNot: return "bitwise_not";
    case Intrinsic::ShiftLeft: return "shift_left";
    case Intrinsic::ShiftRight: return "shift_right";
    case Intrinsic::Reinterpret: return "reinterpret";
    case Intrinsic::PopCount: return "popcount";
    case Intrinsic::CountLeadingZeros: return "count_leading_zeros";
    case Intrinsic::CountTrailingZeros: return "count_trailing_zeros";
    case Intrinsic::Random: return "random_hash";
    case Intrinsic::Print: return "print_when";
    case Intrinsic::Require: return "require";
    case Intrinsic::Trace: return "trace";
    case Intrinsic::Undef: return "undef";
    case Intrinsic::Tuple: return "tuple";
    case Intrinsic::Extern: return "extern_value";
    }
    return "?";
}

bool is_undef(const Expr &e) {
    const Call *c = as<Call>(e);
    return c && c->call_kind == CallKind::Intrinsic && c->op == Intrinsic::Undef;
}

std::vector<Expr> tuple_components(const Expr &value) {
    const Call *c = as<Call>(value);
    if (c && c->call_kind == CallKind::Intrinsic && c->op == Intrinsic::Tuple) return c->args;
    return {value};
}

Expr tuple_value(const std::vector<Expr> &values) {
    TESSERA_INTERNAL_ASSERT(!values.empty(), "a Tuple of no values");
    if (values.size() == 1) return values[0];
    return Call::make_intrinsic(values[0].type(), Intrinsic::Tuple, values);
}

Expr Call::make_intrinsic(Type t, Intrinsic op, std::vector<Expr> args) {
    for (const Expr &a : args) check_defined(a, intrinsic_name(op));
    auto c = std::make_shared<Call>(t, intrinsic_name(op), std::move(args), CallKind::Intrinsic);
    c->op = op;
    return Expr(std::shared_ptr<const ExprNode>(std::move(c)));
}

namespace {
void check_coordinates(const std::vector<Expr> &args, const std::string &callee) {
    for (const Expr &a : args) {
        check_defined(a, "a call");
        TESSERA_INTERNAL_ASSERT(a.type() == Int(32), "coordinate of " << callee << " of type " << a.type().to_string()
                                                                      << " (the front-end coerces them to int32)");
    }
}
}  // namespace

Expr Call::make_func(const std::shared_ptr<FunctionData> &f, std::vector<Expr> args, int value_index) {
    check_coordinates(args, f->name);
    // A call to a Func that is not defined yet gets a placeholder type; the validity check
    // of the definition that contains it reports the Func as undefined (or as a
    // self-reference in a pure definition) with the user's names.
    Type t = f->defined() ? f->types().at(size_t(value_index)) : Int(32);
    auto c = std::make_shared<Call>(t, f->name, std::move(args), CallKind::Func);
    c->func = f;
    c->value_index = value_index;
    return Expr(std::shared_ptr<const ExprNode>(std::move(c)));
}

Expr Call::make_image(const std::shared_ptr<BufferData> &b, std::vector<Expr> args) {
    check_coordinates(args, b->name);
    TESSERA_INTERNAL_ASSERT(args.size() == b->dims.size(), "read of Buffer " << b->name << " with " << args.size()
                                                                             << " coordinates");
    auto c = std::make_shared<Call>(b->type, b->name, std::move(args), CallKind::Image);
    c->buffer = b;
    return Expr(std::shared_ptr<const ExprNode>(std::move(c)));
}

Expr Call::make_input(const std::shared_ptr<InputData> &in, std::vector<Expr> args) {
    check_coordinates(args, in->name);
    TESSERA_INTERNAL_ASSERT(int(args.size()) == in->dimensions, "read of ImageParam " << in->name << " with "
                                                                                      << args.size() << " coordinates");
    auto c = std::make_shared<Call>(in->type, in->name, std::move(args), CallKind::Image);
    c->input = in;
    return Expr(std::shared_ptr<const ExprNode>(std::move(c)));
}

Expr Variable::make_param(const std::shared_ptr<ParamData> &p) {
    auto v = std::make_shared<Variable>(p->type, p->name, VarKind::Param);
    v->param = p;
    return Expr(std::shared_ptr<const ExprNode>(std::move(v)));
}

Expr Variable::make_input_bound(const std::shared_ptr<InputData> &in, int dim, bool is_extent) {
    auto v = std::make_shared<Variable>(Int(32), in->name + (is_extent ? ".extent." : ".min.") + std::to_string(dim),
                                        VarKind::InputBound);
    v->input = in;
    v->input_dim = dim;
    v->is_extent = is_extent;
    return Expr(std::shared_ptr<const ExprNode>(std::move(v)));
}

Expr Variable::make_rvar(const std::shared_ptr<RDomData> &d, int index) {
    auto v = std::make_shared<Variable>(Int(32), d->dims.at(index).name, VarKind::Reduction);
    v->rdom = d;
    v->rdom_index = index;
    return Expr(std::shared_ptr<const ExprNode>(std::move(v)));
}

Expr Let::make(const std::string &name, Expr value, Expr body) {
    check_defined(value, "Let");
    check_defined(body, "Let");
    Type t = body.type();
    return make_expr<Let>(t, name, std::move(value), std::move(body));
}

Expr Load::make(Type t, const std::string &buffer, Expr index) {
    check_defined(index, "Load");
    TESSERA_INTERNAL_ASSERT(index.type().is_int() && index.type().lanes == t.lanes,
                            "Load index of type " << index.type().to_string());
    return make_expr<Load>(t, buffer, std::move(index));
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
    check_same_type(base, stride, "Ramp");
    TESSERA_INTERNAL_ASSERT(base.type().is_scalar() && lanes > 1, "Ramp of " << lanes << " lanes");
    Type t = base.type().with_lanes(lanes);
    return make_expr<Ramp>(t, std::move(base), std::move(stride), lanes);
}

Expr Broadcast::make(Expr value, int lanes) {
    check_defined(value, "Broadcast");
    TESSERA_INTERNAL_ASSERT(value.type().is_scalar() && lanes > 1, "Broadcast of " << lanes << " lanes");
    Type t = value.type().with_lanes(lanes);
    return make_expr<Broadcast>(t, std::move(value), lanes);
}

// ---------------------------------------------------------------------------------------

Stmt LetStmt::make(const std::string &name, Expr value, Stmt body) {
    check_defined(value, "LetStmt");
    TESSERA_INTERNAL_ASSERT(body.defined(), "LetStmt without body");
    auto s = new_stmt<LetStmt>();
    s->name = name;
    s->value = std::move(value);
    s->body = std::move(body);
    return Stmt(std::move(s));
}

Stmt AssertStmt::make(Expr condition, std::vector<Expr> message) {
    check_defined(condition, "AssertStmt");
    TESSERA_INTERNAL_ASSERT(condition.type().is_bool(), "AssertStmt condition not bool");
    auto s = new_stmt<AssertStmt>();
    s->condition = std::move(condition);
    s->message = std::move(message);
    return Stmt(std::move(s));
}

const char *for_type_name(ForType t) {
    switch (t) {
    case ForType::Serial: return "for";
    case ForType::Parallel: return "parallel";
    case ForType::Vectorized: return "vectorized";
    case ForType::Unrolled: return "unrolled";
    }
    return "for";
}

const std::string &Provenance::func_name() const {
    TESSERA_INTERNAL_ASSERT(func, "provenance without its Func");
    return func->name;
}

const char *loop_role_name(LoopRole r) {
    switch (r) {
    case LoopRole::Dimension: return "dimension";
    case LoopRole::RVar: return "rvar";
    case LoopRole::SplitOuter: return "outer";
    case LoopRole::SplitInner: return "inner";
    case LoopRole::Fused: return "fused";
    case LoopRole::FinalCopy: return "final copy";
    }
    return "?";
}

const char *loop_part_name(LoopPart p) {
    switch (p) {
    case LoopPart::Whole: return "whole";
    case LoopPart::Prologue: return "prologue";
    case LoopPart::SteadyState: return "steady state";
    case LoopPart::Epilogue: return "epilogue";
    case LoopPart::Boundaries: return "boundaries";
    }
    return "?";
}

std::string LoopId::describe() const {
    std::string s = "the loop over " + var + " of Func \"" + (func ? func->name : std::string("?")) + "\"";
    if (role == LoopRole::FinalCopy) return s + " (the copy of its value into the output buffer)";
    if (stage > 0) s += " (update " + std::to_string(stage - 1) + ")";
    return s;
}

std::shared_ptr<const LoopId> loop_part(const std::shared_ptr<const LoopId> &loop, LoopPart part) {
    if (!loop || loop->part == part) return loop;
    auto l = std::make_shared<LoopId>(*loop);
    l->part = part;
    return l;
}

Stmt For::make(const std::string &name, Expr min, Expr extent, ForType t, Stmt body,
               std::shared_ptr<const LoopId> loop) {
    check_same_type(min, extent, "For");
    TESSERA_INTERNAL_ASSERT(min.type().is_int() && min.type().is_scalar(), "For bounds not int");
    TESSERA_INTERNAL_ASSERT(body.defined(), "For without body");
    auto s = new_stmt<For>();
    s->name = name;
    s->min = std::move(min);
    s->extent = std::move(extent);
    s->for_type = t;
    s->body = std::move(body);
    s->loop = std::move(loop);
    return Stmt(std::move(s));
}

Stmt Store::make(const std::string &buffer, Expr value, Expr index,
                 std::shared_ptr<const Provenance> prov) {
    check_defined(value, "Store");
    check_defined(index, "Store");
    TESSERA_INTERNAL_ASSERT(index.type().lanes == value.type().lanes, "Store lanes");
    auto s = new_stmt<Store>();
    s->buffer = buffer;
    s->value = std::move(value);
    s->index = std::move(index);
    s->provenance = std::move(prov);
    return Stmt(std::move(s));
}

Stmt Provide::make(const std::string &name, Expr value, std::vector<Expr> args,
                   std::shared_ptr<const Provenance> prov) {
    check_defined(value, "Provide");
    for (const Expr &a : args) check_defined(a, "Provide");
    auto s = new_stmt<Provide>();
    s->name = name;
    s->value = std::move(value);
    s->args = std::move(args);
    s->provenance = std::move(prov);
    return Stmt(std::move(s));
}

Stmt Allocate::make(const std::string &name, Type t, std::vector<Expr> extents, Stmt body) {
    for (const Expr &e : extents) check_defined(e, "Allocate");
    TESSERA_INTERNAL_ASSERT(body.defined(), "Allocate without body");
    auto s = new_stmt<Allocate>();
    s->name = name;
    s->type = t;
    s->extents = std::move(extents);
    s->body = std::move(body);
    return Stmt(std::move(s));
}

Stmt Realize::make(const std::string &name, Type t, Region bounds, Stmt body) {
    for (const Range &r : bounds) {
        check_defined(r.min, "Realize");
        check_defined(r.extent, "Realize");
    }
    TESSERA_INTERNAL_ASSERT(body.defined(), "Realize without body");
    auto s = new_stmt<Realize>();
    s->name = name;
    s->type = t;
    s->bounds = std::move(bounds);
    s->body = std::move(body);
    return Stmt(std::move(s));
}

Stmt Block::make(Stmt first, Stmt rest) {
    if (!first.defined()) return rest;
    if (!rest.defined()) return first;
    auto s = new_stmt<Block>();
    s->first = std::move(first);
    s->rest = std::move(rest);
    return Stmt(std::move(s));
}

Stmt Block::make(const std::vector<Stmt> &stmts) {
    Stmt result;
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) result = make(*it, result);
    return result;
}

Stmt IfThenElse::make(Expr condition, Stmt then_case, Stmt else_case) {
    check_defined(condition, "IfThenElse");
    TESSERA_INTERNAL_ASSERT(condition.type().is_bool(), "IfThenElse condition not bool");
    TESSERA_INTERNAL_ASSERT(then_case.defined(), "IfThenElse without then case");
    auto s = new_stmt<IfThenElse>();
    s->condition = std::move(condition);
    s->then_case = std::move(then_case);
    s->else_case = std::move(else_case);
    return Stmt(std::move(s));
}

Stmt Evaluate::make(Expr value) {
    check_defined(value, "Evaluate");
    auto s = new_stmt<Evaluate>();
    s->value = std::move(value);
    return Stmt(std::move(s));
}

Stmt Free::make(const std::string &name) {
    auto s = new_stmt<Free>();
    s->name = name;
    return Stmt(std::move(s));
}

Stmt ProducerConsumer::make(const std::string &name, bool is_producer, Stmt body) {
    TESSERA_INTERNAL_ASSERT(body.defined(), "ProducerConsumer without body");
    auto s = new_stmt<ProducerConsumer>();
    s->name = name;
    s->is_producer = is_producer;
    s->body = std::move(body);
    return Stmt(std::move(s));
}

}  // namespace tessera::ir
