#pragma once
// The Tessera IR: typed expression and statement nodes.
//
// One small, regular set of nodes serves the algorithm (Func definitions), the lowered
// loop nests and the code generators. Nodes are immutable and shared; passes build new
// trees (IRMutator) or read them (IRVisitor). Every node is created through its static
// `make`, which checks the typing invariants, so a malformed tree is an InternalError at
// the point where it is built rather than a miscompile later.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tessera/Expr.h"
#include "tessera/Type.h"

namespace tessera::ir {

struct FunctionData;  // src/ir/Function.h: a Func's definitions
struct BufferData;    // include/tessera/Buffer.h: memory of a Buffer
struct InputData;     // include/tessera/Param.h: an ImageParam
struct ParamData;     // include/tessera/Param.h: a scalar Param

enum class ExprKind : uint8_t {
    IntImm, UIntImm, FloatImm, StringImm,
    Variable, Cast,
    Add, Sub, Mul, Div, Mod, Min, Max,
    EQ, NE, LT, LE, GT, GE, And, Or, Not,
    Select, Call, Let, Load, Ramp, Broadcast,
};

/** ==, !=, <, <=, > or >=. */
inline bool is_comparison(ExprKind k) {
    return k == ExprKind::EQ || k == ExprKind::NE || k == ExprKind::LT || k == ExprKind::LE || k == ExprKind::GT ||
           k == ExprKind::GE;
}

struct ExprNode {
    const ExprKind kind;
    const Type type;
    ExprNode(ExprKind k, Type t) : kind(k), type(t) {}
    virtual ~ExprNode() = default;

    template<typename T>
    const T *as() const { return kind == T::node_kind ? static_cast<const T *>(this) : nullptr; }
};

template<typename T, ExprKind K>
struct ExprNodeOf : ExprNode {
    static constexpr ExprKind node_kind = K;
    explicit ExprNodeOf(Type t) : ExprNode(K, t) {}
};

/** Downcast helper: `as<Add>(e)` is null unless e is an Add. */
template<typename T>
const T *as(const Expr &e) { return e.defined() ? e->as<T>() : nullptr; }

// ---------------------------------------------------------------------------------------
// Constants

struct IntImm : ExprNodeOf<IntImm, ExprKind::IntImm> {
    int64_t value;  // already wrapped to the width of `type`
    IntImm(Type t, int64_t v) : ExprNodeOf(t), value(v) {}
    static Expr make(Type t, int64_t v);
};

struct UIntImm : ExprNodeOf<UIntImm, ExprKind::UIntImm> {
    uint64_t value;  // already wrapped; also used for bool (0 or 1)
    UIntImm(Type t, uint64_t v) : ExprNodeOf(t), value(v) {}
    static Expr make(Type t, uint64_t v);
};

struct FloatImm : ExprNodeOf<FloatImm, ExprKind::FloatImm> {
    double value;  // exactly representable in `type` (rounded for float32)
    FloatImm(Type t, double v) : ExprNodeOf(t), value(v) {}
    static Expr make(Type t, double v);
};

/** Only used for messages (assertions, specialize_fail). */
struct StringImm : ExprNodeOf<StringImm, ExprKind::StringImm> {
    std::string value;
    StringImm(std::string v) : ExprNodeOf(Int(32)), value(std::move(v)) {}
    static Expr make(const std::string &v);
};

// ---------------------------------------------------------------------------------------
// Variables

enum class VarKind : uint8_t {
    Pure,     // a Var of a Func definition
    Reduction,// an RVar: dimension `rdom_index` of `rdom`
    Param,    // a scalar pipeline parameter
    InputBound, // the min or extent of dimension `input_dim` of an ImageParam
    Internal, // loop, let and bound variables made by lowering
};

struct Variable : ExprNodeOf<Variable, ExprKind::Variable> {
    std::string name;
    VarKind var_kind;
    std::shared_ptr<ParamData> param;  // VarKind::Param
    std::shared_ptr<RDomData> rdom;    // VarKind::Reduction
    int rdom_index = -1;
    std::shared_ptr<InputData> input;  // VarKind::InputBound
    int input_dim = -1;
    bool is_extent = false;            // VarKind::InputBound: extent (true) or min (false)
    Variable(Type t, std::string n, VarKind k) : ExprNodeOf(t), name(std::move(n)), var_kind(k) {}
    static Expr make(Type t, const std::string &name, VarKind k = VarKind::Internal);
    static Expr make_param(const std::shared_ptr<ParamData> &p);
    static Expr make_rvar(const std::shared_ptr<RDomData> &d, int index);
    static Expr make_input_bound(const std::shared_ptr<InputData> &in, int dim, bool is_extent);
};

// ---------------------------------------------------------------------------------------
// Arithmetic, comparison and logic. Operands always have identical types here: the
// user-facing operators (src/lang/Operators.cpp) apply the coercion rules first.

/** A conversion. A float to an integer type truncates toward zero and saturates (NaN
 * gives 0, docs/semantics.md); `in_range` marks a float whose truncation is known to be a
 * number the integer type holds, which saturation leaves as it is, so that compiled code
 * may convert it directly. Only src/lower/MarkInRangeConversions.cpp sets it; the IR
 * interpreter checks it. */
struct Cast : ExprNodeOf<Cast, ExprKind::Cast> {
    Expr value;
    bool in_range = false;
    Cast(Type t, Expr v, bool in_range_ = false) : ExprNodeOf(t), value(std::move(v)), in_range(in_range_) {}
    static Expr make(Type t, Expr v, bool in_range = false);
};

template<typename T, ExprKind K>
struct BinaryNode : ExprNodeOf<T, K> {
    Expr a, b;
    BinaryNode(Type t, Expr a_, Expr b_) : ExprNodeOf<T, K>(t), a(std::move(a_)), b(std::move(b_)) {}
};

/** +, - and *. They wrap in every integer type; `no_overflow` marks index arithmetic that
 * lowering assumes stays in the int32 range: the operation's exact (unbounded) result lies
 * in [-2^31, 2^31), for an int64 operation too (a coordinate computed in 64 bits). Only
 * src/lower/MarkIndexArithmetic.cpp sets it; compiled code computes the same either way,
 * the IR interpreter checks it, and docs/semantics.md §11 says what the pipeline's entry
 * checks to make it hold. */
template<typename T, ExprKind K>
struct ArithNode : BinaryNode<T, K> {
    bool no_overflow = false;
    ArithNode(Type t, Expr a_, Expr b_, bool no_overflow_ = false)
        : BinaryNode<T, K>(t, std::move(a_), std::move(b_)), no_overflow(no_overflow_) {}
};

#define TESSERA_ARITH_NODE(N)                                    \
    struct N : ArithNode<N, ExprKind::N> {                       \
        using ArithNode::ArithNode;                              \
        static Expr make(Expr a, Expr b, bool no_overflow = false); \
    };
TESSERA_ARITH_NODE(Add)
TESSERA_ARITH_NODE(Sub)
TESSERA_ARITH_NODE(Mul)
#undef TESSERA_ARITH_NODE

#define TESSERA_BINARY_NODE(N)                                   \
    struct N : BinaryNode<N, ExprKind::N> {                      \
        using BinaryNode::BinaryNode;                            \
        static Expr make(Expr a, Expr b);                        \
    };
TESSERA_BINARY_NODE(Div)  // Euclidean for integers; x / 0 == 0
TESSERA_BINARY_NODE(Mod)  // Euclidean for integers; x % 0 == 0
TESSERA_BINARY_NODE(Min)
TESSERA_BINARY_NODE(Max)
TESSERA_BINARY_NODE(EQ)
TESSERA_BINARY_NODE(NE)
TESSERA_BINARY_NODE(LT)
TESSERA_BINARY_NODE(LE)
TESSERA_BINARY_NODE(GT)
TESSERA_BINARY_NODE(GE)
TESSERA_BINARY_NODE(And)  // both operands always evaluated
TESSERA_BINARY_NODE(Or)   // both operands always evaluated
#undef TESSERA_BINARY_NODE

struct Not : ExprNodeOf<Not, ExprKind::Not> {
    Expr a;
    Not(Type t, Expr a_) : ExprNodeOf(t), a(std::move(a_)) {}
    static Expr make(Expr a);
};

/** All three operands are always evaluated. */
struct Select : ExprNodeOf<Select, ExprKind::Select> {
    Expr condition, true_value, false_value;
    Select(Type t, Expr c, Expr a, Expr b)
        : ExprNodeOf(t), condition(std::move(c)), true_value(std::move(a)), false_value(std::move(b)) {}
    static Expr make(Expr c, Expr a, Expr b);
};

// ---------------------------------------------------------------------------------------
// Calls

enum class CallKind : uint8_t {
    Func,       // a call to a Func: `func` is set
    Image,      // a read of a Buffer (`buffer`) or an ImageParam (`input`)
    Intrinsic,  // a math or bit operation: `op` is set
};

enum class Intrinsic : uint8_t {
    None,
    // Float math (operand and result have the same float type).
    Sqrt, Exp, Log, Pow, Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Sinh, Cosh, Tanh,
    Asinh, Acosh, Atanh, Floor, Ceil, Round, Trunc, Fma /* unused by default */,
    IsNan, IsInf, IsFinite,
    // Integer and mixed.
    Abs, Absd, BitAnd, BitOr, BitXor, BitNot, ShiftLeft, ShiftRight,
    Reinterpret,
    // Bit counts of an integer, in its own type (a zero has as many leading and trailing
    // zeros as the type has bits).
    PopCount, CountLeadingZeros, CountTrailingZeros,
    // random_hash(seed, call site, n, c_1, ..., c_n): the uint32 hash behind random_float,
    // random_int and random_uint of the coordinates c_i (docs/semantics.md). A call of
    // those before its Func is defined has only (seed, call site), and the definition
    // gives it the coordinates (src/lang/Random.cpp).
    Random,
    // print_when(condition, value, part_1, ..., part_n): `value`; where `condition` holds,
    // evaluating it also writes value and the parts (values or StringImms) to stderr, one
    // line (docs/semantics.md §6). The only intrinsic with an effect: lowering neither
    // moves it out of a loop nor merges two of them (has_side_effects, src/ir/Substitute.h).
    Print,
    // require(condition, value, part_1, ..., part_n): `value` where `condition` holds;
    // elsewhere the pipeline stops with a RuntimeError "requirement failed: " and the parts.
    // Lowering lifts it into an AssertStmt before the statement that evaluates it
    // (src/lower/LiftRequirements.cpp), so lowered code has none.
    Require,
    // trace(condition, value, part_1, ..., part_n): as print_when, but the line is the parts
    // alone, written one after the other (no spaces): the events trace_stores, trace_loads
    // and trace_realizations ask for ("Store f.0(3, 4) = 17"), which lowering adds
    // (src/lower/AddTracing.cpp).
    Trace,
    // undef(): no value. Only the whole value of a pure definition (src/lang/Validity.cpp):
    // the Func's values are those its updates write, and reading a point no update wrote
    // is a RuntimeError of the reference interpreter (docs/semantics.md §7.1). Lowering
    // computes no pure stage for it, so lowered code has none.
    Undef,
    // tuple(v_0, ..., v_k-1): the value of a definition of a Func with k values (a Tuple,
    // k >= 2), each component stored in its own storage and read with a Call of
    // `value_index` k. Only the whole value of a definition (src/lang/Tuple.cpp); its type
    // is v_0's, each component has its own. Storage flattening splits it into one store
    // per component (src/lower/StorageFlattening.cpp), so lowered code has none.
    Tuple,
    // extern_value(): the pure definition of a Func computed by a C function
    // (FunctionData::extern_definition); nothing evaluates it: pipelines read such a Func
    // as an input image, and the reference interpreter calls the function.
    Extern,
};

const char *intrinsic_name(Intrinsic op);

/** Whether e is undef() (Intrinsic::Undef). */
bool is_undef(const Expr &e);

/** The components of a definition's value: those of a tuple() (Intrinsic::Tuple), or the
 * value alone. */
std::vector<Expr> tuple_components(const Expr &value);
/** Its inverse: tuple(values...) for two or more values, the value alone for one. */
Expr tuple_value(const std::vector<Expr> &values);

/** print_when, require and trace: the intrinsics with an effect, each (condition, value,
 * parts...) and worth its value operand (args[1]) as a value. */
inline bool has_effect(Intrinsic op) { return op == Intrinsic::Print || op == Intrinsic::Require || op == Intrinsic::Trace; }
/** print_when and trace: the intrinsics that write a line. */
inline bool writes_line(Intrinsic op) { return op == Intrinsic::Print || op == Intrinsic::Trace; }

struct Call : ExprNodeOf<Call, ExprKind::Call> {
    std::string name;
    std::vector<Expr> args;
    CallKind call_kind;
    Intrinsic op = Intrinsic::None;
    std::shared_ptr<FunctionData> func;  // CallKind::Func
    std::shared_ptr<BufferData> buffer;  // CallKind::Image on a Buffer
    std::shared_ptr<InputData> input;    // CallKind::Image on an ImageParam
    /** CallKind::Func on a Func with several values (a Tuple): which one is read. */
    int value_index = 0;
    Call(Type t, std::string n, std::vector<Expr> a, CallKind k)
        : ExprNodeOf(t), name(std::move(n)), args(std::move(a)), call_kind(k) {}
    static Expr make_func(const std::shared_ptr<FunctionData> &f, std::vector<Expr> args, int value_index = 0);
    static Expr make_image(const std::shared_ptr<BufferData> &b, std::vector<Expr> args);
    static Expr make_input(const std::shared_ptr<InputData> &in, std::vector<Expr> args);
    static Expr make_intrinsic(Type t, Intrinsic op, std::vector<Expr> args);
};

struct Let : ExprNodeOf<Let, ExprKind::Let> {
    std::string name;
    Expr value, body;
    Let(Type t, std::string n, Expr v, Expr b)
        : ExprNodeOf(t), name(std::move(n)), value(std::move(v)), body(std::move(b)) {}
    static Expr make(const std::string &name, Expr value, Expr body);
};

// ---------------------------------------------------------------------------------------
// Lowered memory access and vectors

/** A read of a flattened allocation or input buffer at a (64-bit) element index. */
struct Load : ExprNodeOf<Load, ExprKind::Load> {
    std::string buffer;
    Expr index;
    Load(Type t, std::string b, Expr i) : ExprNodeOf(t), buffer(std::move(b)), index(std::move(i)) {}
    static Expr make(Type t, const std::string &buffer, Expr index);
};

/** The vector base, base + stride, ..., base + (lanes-1) * stride. */
struct Ramp : ExprNodeOf<Ramp, ExprKind::Ramp> {
    Expr base, stride;
    int lanes;
    Ramp(Type t, Expr b, Expr s, int l) : ExprNodeOf(t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
    static Expr make(Expr base, Expr stride, int lanes);
};

struct Broadcast : ExprNodeOf<Broadcast, ExprKind::Broadcast> {
    Expr value;
    int lanes;
    Broadcast(Type t, Expr v, int l) : ExprNodeOf(t), value(std::move(v)), lanes(l) {}
    static Expr make(Expr value, int lanes);
};

// =======================================================================================
// Statements

enum class StmtKind : uint8_t {
    LetStmt, AssertStmt, For, Store, Provide, Allocate, Realize, Block, IfThenElse,
    Evaluate, ProducerConsumer, Free,
};

struct StmtNode {
    const StmtKind kind;
    explicit StmtNode(StmtKind k) : kind(k) {}
    virtual ~StmtNode() = default;
    template<typename T>
    const T *as() const { return kind == T::node_kind ? static_cast<const T *>(this) : nullptr; }
};

/** A handle to an immutable statement tree. */
class Stmt {
public:
    Stmt() = default;
    Stmt(std::shared_ptr<const StmtNode> n) : node_(std::move(n)) {}
    bool defined() const { return node_ != nullptr; }
    const StmtNode *get() const { return node_.get(); }
    const StmtNode *operator->() const { return node_.get(); }
    bool same_as(const Stmt &o) const { return node_ == o.node_; }

private:
    std::shared_ptr<const StmtNode> node_;
};

template<typename T>
const T *as(const Stmt &s) { return s.defined() ? s->as<T>() : nullptr; }

template<typename T, StmtKind K>
struct StmtNodeOf : StmtNode {
    static constexpr StmtKind node_kind = K;
    StmtNodeOf() : StmtNode(K) {}
};

/** The algorithm-level identity of the value a store writes (docs/architecture.md,
 * "Identity in lowered code"): the Func (by identity), its definition (0 = pure, i+1 = update i), the
 * coordinates and the RDom variable values, all as expressions over the variables in scope
 * at the store. Every pass that rewrites a store rewrites its provenance the same way; a
 * vector store's coordinates and RDom values have one lane per stored lane.
 *
 * `kind` says what the stored value is: one iteration of the definition (a pure
 * definition's value, or an update's value after this iteration), or the final copy of the
 * Func's value (the value after its last definition, `stage`, copied from storage the Func
 * was computed in apart: an output whose updates write outside the output window). */
struct Provenance {
    enum class Kind : uint8_t { Iteration, FinalCopy };
    std::shared_ptr<FunctionData> func;
    int stage = 0;
    std::vector<Expr> coords;
    std::vector<std::pair<std::string, Expr>> rvars;
    Kind kind = Kind::Iteration;
    /** The store is an atomic read-modify-write of its point (an update scheduled
     * atomic(): its value reads the Func only at that point, docs/semantics.md §10). */
    bool atomic = false;
    /** Which of the Func's values the store writes (0 unless the Func has several: a
     * Tuple, whose values storage flattening stores apart). */
    int value_index = 0;

    /** The Func's name (for messages). */
    const std::string &func_name() const;
};

/** What a loop of lowered code is in the algorithm's terms: the loop `dim` of definition
 * `stage` of Func `func` (its name in the stage's schedule, src/ir/Schedule.h Dim::loop),
 * which the user calls `var`, and how the schedule made it. Lowering decides by these
 * fields, never by parsing a loop variable's name; messages speak of `var` and the Func. */
enum class LoopRole : uint8_t {
    Dimension,   // a pure Var of the definition (or a rename of one)
    RVar,        // a dimension of the definition's RDom (or a rename of one)
    SplitOuter,  // the outer loop of a split
    SplitInner,  // the inner loop of a split
    Fused,       // the loop of a fuse
    FinalCopy,   // a dimension of the final copy of an output computed in its own storage
};
/** Loop partitioning cuts a loop into parts that run the same iterations in pieces. */
enum class LoopPart : uint8_t { Whole, Prologue, SteadyState, Epilogue, Boundaries };
const char *loop_role_name(LoopRole r);
const char *loop_part_name(LoopPart p);

struct LoopId {
    std::shared_ptr<FunctionData> func;
    int stage = 0;
    std::string dim;
    std::string var;
    LoopRole role = LoopRole::Dimension;
    bool pure = true;  // a pure loop (made from pure dimensions); false: a reduction loop
    LoopPart part = LoopPart::Whole;

    /** The same loop of the same definition (any part of it). */
    bool same_loop(const LoopId &o) const { return func == o.func && stage == o.stage && dim == o.dim; }
    /** "the loop over x of Func \"f\"" (", update 0" for an update's loop). */
    std::string describe() const;
};

/** A copy of `loop` with another part. */
std::shared_ptr<const LoopId> loop_part(const std::shared_ptr<const LoopId> &loop, LoopPart part);

struct LetStmt : StmtNodeOf<LetStmt, StmtKind::LetStmt> {
    std::string name;
    Expr value;
    Stmt body;
    static Stmt make(const std::string &name, Expr value, Stmt body);
};

/** If `condition` is false, the pipeline stops with `message` (a StringImm or a string
 * built from Exprs) and returns an error code. */
struct AssertStmt : StmtNodeOf<AssertStmt, StmtKind::AssertStmt> {
    Expr condition;
    std::vector<Expr> message;  // StringImms and values, concatenated
    static Stmt make(Expr condition, std::vector<Expr> message);
};

enum class ForType : uint8_t { Serial, Parallel, Vectorized, Unrolled };
const char *for_type_name(ForType t);

/** A loop of variable `name` over [min, min + extent). `loop` says which loop of the
 * algorithm it is (every loop lowering makes has one; hand-built IR may leave it null). */
struct For : StmtNodeOf<For, StmtKind::For> {
    std::string name;
    Expr min, extent;
    ForType for_type = ForType::Serial;
    Stmt body;
    std::shared_ptr<const LoopId> loop;
    static Stmt make(const std::string &name, Expr min, Expr extent, ForType t, Stmt body,
                     std::shared_ptr<const LoopId> loop = nullptr);
};

/** A store of `value` at element `index` of a flattened allocation or output buffer. */
struct Store : StmtNodeOf<Store, StmtKind::Store> {
    std::string buffer;
    Expr value, index;
    std::shared_ptr<const Provenance> provenance;
    static Stmt make(const std::string &buffer, Expr value, Expr index,
                     std::shared_ptr<const Provenance> prov);
};

/** A multi-dimensional store into a Func's realization, before storage flattening. */
struct Provide : StmtNodeOf<Provide, StmtKind::Provide> {
    std::string name;
    Expr value;
    std::vector<Expr> args;
    std::shared_ptr<const Provenance> provenance;
    static Stmt make(const std::string &name, Expr value, std::vector<Expr> args,
                     std::shared_ptr<const Provenance> prov);
};

struct Range {
    Expr min, extent;
};
using Region = std::vector<Range>;

/** A flat allocation of `extents` elements (product), live in `body`. */
struct Allocate : StmtNodeOf<Allocate, StmtKind::Allocate> {
    std::string name;
    Type type;
    std::vector<Expr> extents;
    Stmt body;
    static Stmt make(const std::string &name, Type t, std::vector<Expr> extents, Stmt body);
};

/** A multi-dimensional realization of a Func over `bounds`, live in `body`. */
struct Realize : StmtNodeOf<Realize, StmtKind::Realize> {
    std::string name;
    Type type;
    Region bounds;
    Stmt body;
    static Stmt make(const std::string &name, Type t, Region bounds, Stmt body);
};

struct Block : StmtNodeOf<Block, StmtKind::Block> {
    Stmt first, rest;
    static Stmt make(Stmt first, Stmt rest);
    /** A block of any number of statements (undefined ones are skipped). */
    static Stmt make(const std::vector<Stmt> &stmts);
};

struct IfThenElse : StmtNodeOf<IfThenElse, StmtKind::IfThenElse> {
    Expr condition;
    Stmt then_case, else_case;  // else_case may be undefined
    static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

struct Evaluate : StmtNodeOf<Evaluate, StmtKind::Evaluate> {
    Expr value;
    static Stmt make(Expr value);
};

/** The end of the life of allocation `name` before the end of its Allocate's body: nothing
 * after it in that body reads or writes the buffer, and its memory may go back to the
 * allocator, to serve the next allocation. It sits in its Allocate's body outside any
 * loop or branch of that body, so it runs once per run of the Allocate (the lowered-code
 * contract, src/ir/VerifyLowered.cpp). Lowering places it after a buffer's last access
 * (src/lower/FreeAfterLastUse.cpp). */
struct Free : StmtNodeOf<Free, StmtKind::Free> {
    std::string name;
    static Stmt make(const std::string &name);
};

/** Marks the production (is_producer) or consumption of Func `name`; no run-time meaning. */
struct ProducerConsumer : StmtNodeOf<ProducerConsumer, StmtKind::ProducerConsumer> {
    std::string name;
    bool is_producer;
    Stmt body;
    static Stmt make(const std::string &name, bool is_producer, Stmt body);
};

}  // namespace tessera::ir
