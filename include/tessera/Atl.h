#pragma once
// ATL, Tessera's functional tensor front-end (docs/atl.md): a tensor program is one pure
// expression built from comprehensions (`gen`), reductions (`sum`), guards, `let` and
// scalar arithmetic, plus reshape operators (`concat`, `flatten`, `split`, `transpose`,
// `trunc_l`/`trunc_r`, `pad_l`/`pad_r`) that compute nothing: lowering turns them into
// changes of the index each value is stored at.
//
// Every tensor cell holds a real number or the pad value `()`, which a false guard, a pad,
// an empty sum and the tail of a split produce and which reads as 0. The pad check
// (check_pads) proves that every truncation removes only pad cells, the condition under
// which lowering is correct; programs that fail it are rejected with a CompileError.
//
//     using namespace tessera::atl;
//     Array A("A", {M, K}), B("B", {K, N});
//     Index i("i"), j("j"), k("k");
//     Tensor matmul = gen(i, M, gen(j, N, sum(k, K, A(i, k) * B(k, j))));
//     Program p(matmul);                 // pad check, then lowering by reindexers
//     Value c = p.run({{"A", a}, {"B", b}});
//
// Shapes are static: loop bounds, split factors and pad and truncation amounts are
// integer constants, checked when each expression is built, with errors that name the
// operator, the dimension and the sizes.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Func.h"
#include "tessera/Param.h"
#include "tessera/RDom.h"

namespace tessera::atl {

namespace detail {
struct IndexNode;
struct CondNode;
struct TensorNode;
struct ArrayData;
}  // namespace detail

/** An integer index expression: constants, loop variables, `+`, `-`, `*`, floor division
 * `/`, `ceil_div` and `%` (both by positive constants). */
class Index {
public:
    Index(int64_t constant);  // NOLINT: integers are indices
    Index(int constant) : Index(int64_t(constant)) {}  // NOLINT
    /** The loop variable `name`, bound by an enclosing gen or sum. */
    explicit Index(const std::string &name);
    explicit Index(const char *name) : Index(std::string(name)) {}
    explicit Index(std::shared_ptr<const detail::IndexNode> n) : node_(std::move(n)) {}

    /** The variable's name (empty unless this index is a variable). */
    const std::string &name() const;
    std::string to_string() const;
    const std::shared_ptr<const detail::IndexNode> &node() const { return node_; }

private:
    std::shared_ptr<const detail::IndexNode> node_;
};

Index operator+(const Index &a, const Index &b);
Index operator-(const Index &a, const Index &b);
Index operator*(const Index &a, const Index &b);
/** Floor division by a positive constant. */
Index operator/(const Index &a, const Index &b);
/** The remainder of floor division by a positive constant (never negative). */
Index operator%(const Index &a, const Index &b);
/** Ceiling division by a positive constant. */
Index ceil_div(const Index &a, const Index &b);

/** A guard condition: comparisons of indices joined by `&&`. */
class Cond {
public:
    explicit Cond(std::shared_ptr<const detail::CondNode> n) : node_(std::move(n)) {}
    std::string to_string() const;
    const std::shared_ptr<const detail::CondNode> &node() const { return node_; }

private:
    std::shared_ptr<const detail::CondNode> node_;
};

Cond operator<(const Index &a, const Index &b);
Cond operator<=(const Index &a, const Index &b);
Cond operator>(const Index &a, const Index &b);
Cond operator>=(const Index &a, const Index &b);
Cond operator==(const Index &a, const Index &b);
Cond operator&&(const Cond &a, const Cond &b);

/** An ATL expression: a tensor of a static shape (outermost dimension first); a scalar
 * has the shape []. */
class Tensor {
public:
    /** A real literal (a scalar). */
    Tensor(double literal);  // NOLINT: numbers are scalar expressions
    Tensor(float literal) : Tensor(double(literal)) {}  // NOLINT
    Tensor(int literal) : Tensor(double(literal)) {}  // NOLINT
    explicit Tensor(std::shared_ptr<const detail::TensorNode> n) : node_(std::move(n)) {}

    const std::vector<int64_t> &shape() const;
    /** The program in the text form of docs/atl.md. */
    std::string to_string() const;
    const std::shared_ptr<const detail::TensorNode> &node() const { return node_; }

private:
    std::shared_ptr<const detail::TensorNode> node_;
};

/** Scalar arithmetic (on scalar expressions: reads, literals and their arithmetic). */
Tensor operator+(const Tensor &a, const Tensor &b);
Tensor operator-(const Tensor &a, const Tensor &b);
Tensor operator*(const Tensor &a, const Tensor &b);
Tensor operator/(const Tensor &a, const Tensor &b);
/** An index's value as a real (a scalar expression). */
Tensor real(const Index &i);

/** A named tensor that expressions read: a program input, or the name a let binds. */
class Array {
public:
    /** An input of the given shape (every extent at least 0). */
    Array(const std::string &name, const std::vector<int64_t> &shape);
    explicit Array(std::shared_ptr<const detail::ArrayData> d) : data_(std::move(d)) {}

    const std::string &name() const;
    const std::vector<int64_t> &shape() const;
    /** The scalar read of one element; one index per dimension. */
    Tensor operator()(const std::vector<Index> &indices) const;
    template<typename... Is>
    Tensor operator()(const Is &...indices) const {
        return (*this)(std::vector<Index>{Index(indices)...});
    }
    const std::shared_ptr<const detail::ArrayData> &data() const { return data_; }

private:
    std::shared_ptr<const detail::ArrayData> data_;
};

/** ⊞_{i=lo}^{hi} body: the tensor of the body's values for i = lo .. hi-1 (hi >= lo). */
Tensor gen(const Index &i, int64_t lo, int64_t hi, const Tensor &body);
Tensor gen(const Index &i, int64_t n, const Tensor &body);
/** Σ_{i=lo}^{hi} body: the element-wise sum over i = lo .. hi-1 (all pad when empty). */
Tensor sum(const Index &i, int64_t lo, int64_t hi, const Tensor &body);
Tensor sum(const Index &i, int64_t n, const Tensor &body);
/** [p]·body: the body where p holds, all pad where it does not. */
Tensor guard(const Cond &p, const Tensor &body);
/** let name := value in body(name). */
Tensor let(const std::string &name, const Tensor &value, const std::function<Tensor(const Array &)> &body);
/** a ++ b along the outermost dimension (the other dimensions must agree). */
Tensor concat(const Tensor &a, const Tensor &b);
/** Merges the two outermost dimensions, row-major. */
Tensor flatten(const Tensor &e);
/** Cuts the outermost dimension into rows of k (k > 0); the last row is padded. */
Tensor split(int64_t k, const Tensor &e);
/** Swaps the two outermost dimensions. */
Tensor transpose(const Tensor &e);
/** Drops the first / last k elements of the outermost dimension. */
Tensor trunc_l(int64_t k, const Tensor &e);
Tensor trunc_r(int64_t k, const Tensor &e);
/** Adds k pad elements before / after the outermost dimension. */
Tensor pad_l(int64_t k, const Tensor &e);
Tensor pad_r(int64_t k, const Tensor &e);

/** A program in the text form of docs/atl.md: `input NAME[n, ...]` declarations, then
 * `output = EXPR`, then any `rewrite STEP` lines (Derivation::apply's steps, in order).
 * Errors are CompileErrors naming the file, line and column. */
struct Parsed {
    Tensor program{0.0};
    std::vector<Array> inputs;
    std::vector<std::string> rewrites;
};
Parsed parse(const std::string &text, const std::string &file = "<atl>");

/** A tensor value: its shape, its elements row-major (the last dimension innermost) and,
 * per element, whether it is the pad value `()` (whose number is then 0). */
struct Value {
    std::vector<int64_t> shape;
    std::vector<double> data;
    std::vector<uint8_t> pad;

    Value() = default;
    /** A value of this shape, every element `fill` (not pad). */
    explicit Value(std::vector<int64_t> shape, double fill = 0.0);
    int64_t size() const { return int64_t(data.size()); }
    /** The element at a full index (outermost first). */
    double at(const std::vector<int64_t> &index) const;
    bool is_pad(const std::vector<int64_t> &index) const;
    int64_t offset(const std::vector<int64_t> &index) const;
};
using Inputs = std::map<std::string, Value>;

/** The reference interpreter: the meaning of an ATL program (over the reals, computed in
 * double precision), with pad values. Every loop variable must be bound, every array read
 * in its bounds and every input given with its declared shape (RuntimeError otherwise). */
Value evaluate(const Tensor &program, const Inputs &inputs = {});

/** A pad type Pad(k, l, π1, r, π2, c) (docs/atl.md): the first k and the last c elements
 * are entirely pad; the l elements after the first k have type π1, the r elements before
 * the last c have type π2. Scal(true) is the pad value, Scal(false) any scalar. */
struct PadType {
    bool scalar = false;
    bool is_pad = false;  // Scal(true)
    int64_t k = 0, l = 0, r = 0, c = 0;
    std::shared_ptr<const PadType> pi1, pi2;
    std::string to_string() const;
};

/** The pad type of a program, after proving that every truncation in it removes only
 * pad cells, under every value of the loop variables around it. A truncation that cuts
 * live data is a CompileError naming the operator, the dimension, the cells it would drop
 * and the pad it has. */
PadType check_pads(const Tensor &program);

/** Two programs over the same inputs compared on `trials` random inputs (each cell uniform
 * in [-1, 1], from `seed`) by the reference interpreter: the same shape, the same pad cells
 * and the same values up to the rounding of reassociated sums (a relative 1e-9). */
struct Comparison {
    bool equal = true;
    int trials = 0;
    double max_difference = 0;
    std::string mismatch;  // the first differing cell, when not equal
};
Comparison compare(const Tensor &a, const Tensor &b, int trials = 3, uint64_t seed = 1);

/** Scheduling by rewrites (docs/atl.md, "Scheduling by rewrites"): a program derived from
 * an original one by steps that each rewrite the expression into one with the same meaning
 * (ATL's scheduling rewrites), introducing the reshape operators that let lowering compute
 * in one order and store in another. Each step checks its own preconditions (CompileError
 * naming the loop or let); check() then compares the derived program with the original on
 * random inputs, and the validator (<tessera/Validate.h>, validate_derivation) proves the
 * two equal where it can model them.
 *
 *     Derivation d(matmul);
 *     d.tile("i", "j", 4, 4).interchange("ii").separate("io");
 *     Program p(d.program());
 *
 * Steps name loops by their variables; a step applies to every loop over that variable
 * (sibling loops may share a name). */
class Derivation {
public:
    explicit Derivation(const Tensor &original);

    /** The loop over `var` (gen or sum) [lo, hi) becomes a loop over `outer` < ⌈n/k⌉ around
     * one over `inner` < k, var = lo + outer * k + inner, guarded by outer * k + inner < n
     * when k does not divide n; for a gen the result is flattened and its tail truncated
     * (trunc_r (⌈n/k⌉·k − n) (flatten ...)). Empty names default to var + "o" / var + "i". */
    Derivation &split(const std::string &var, int64_t factor, const std::string &outer = "",
                      const std::string &inner = "");
    /** A gen over `y` directly around (guards aside) a gen over `x` becomes the tiled nest
     * yo, xo, yi, xi with tiles of ky × kx, stored row-major as before (flatten, transpose
     * and trunc_r restore the order); names default to y + "o", ... */
    Derivation &tile(const std::string &y, const std::string &x, int64_t ky, int64_t kx);
    /** The loop over `var` swaps with the loop directly inside it (guards between move
     * inside both): two gens gain a transpose; a sum and a gen, or two sums, swap as they
     * are (Σ of ⊞ is ⊞ of Σ). */
    Derivation &interchange(const std::string &var);
    /** The loop over `outer` directly around the loop over `inner` (both gens or both
     * sums; guards between move inside) becomes one loop over `fused` < n·m, with
     * outer = lo + fused / m and inner = lo' + fused % m; two gens are stored through
     * split(m, ·), so the storage order is unchanged (the ATL paper's one-loop tensor add).
     * The name defaults to outer + inner. */
    Derivation &fuse(const std::string &outer, const std::string &inner, const std::string &fused = "");
    /** Loop separation: the gen over `var` is cut where the guards inside it stop holding
     * everywhere: `gen var [lo, m) body'` ++ `gen var [m, hi) body`, where body' drops the
     * guard conjuncts that hold throughout the first part (the steady state of a tiled loop
     * without its tail test). */
    Derivation &separate(const std::string &var);
    /** Fusion: `let name := gen ... scalar in body` becomes the body with each read of
     * name replaced by the scalar at that index (compute_inline). The let's value must be
     * a nest of gens around a scalar expression. */
    Derivation &inline_let(const std::string &name);
    /** One step in the text form of docs/atl.md (`split i 4`, `split i 4 io ii`,
     * `tile i j 4 4`, `interchange ii`, `fuse i j [ij]`, `separate io`, `inline t`). */
    Derivation &apply(const std::string &step);

    const Tensor &original() const;
    const Tensor &program() const;
    /** The steps applied so far, in the text form. */
    const std::vector<std::string> &steps() const;

    /** Where a scalar leaf of the derived program comes from: the leaf of the original
     * (in program order: a let's value before its body, concat's left before its right)
     * and the value of each of that leaf's loop variables as an index of the derived
     * program's variables. */
    struct Origin {
        int leaf = 0;
        std::map<std::string, Index> substitution;
        /** The lets whose reads were replaced by their values in this leaf. */
        std::vector<std::string> inlined;
    };
    /** One per scalar leaf of program(), in program order. */
    const std::vector<Origin> &origins() const;

    /** The derived program against the original on random inputs (compare). */
    Comparison check(int trials = 3, uint64_t seed = 1) const;

    struct Data;

private:
    std::shared_ptr<Data> data_;
};

/** A program lowered into Tessera (docs/atl.md, "Lowering"): one Func per let and one for
 * the result, each defined as 0 (the pad value's storage) and then, per scalar leaf of the
 * expression in program order, one update that stores the leaf's value at the index the
 * reindexers compute, over a reduction domain of the loops around it. The Funcs can be
 * scheduled as any Tessera pipeline; run compiles it (JIT) and runs it. */
class Program {
public:
    /** Checks names and pads (CompileError), then lowers. */
    explicit Program(const Tensor &program, const std::string &name = "atl");

    const Tensor &expression() const;
    const PadType &pad_type() const;
    /** The Func computing the result (dimension 0 is the tensor's innermost dimension). */
    Func output() const;
    /** The Func computing a let-bound tensor. */
    Func let_func(const std::string &name) const;
    /** The inputs in order of first read, and the ImageParam each becomes. */
    const std::vector<Array> &inputs() const;
    ImageParam input_param(const std::string &name) const;
    /** The number of updates of Func f (the output or a let) and the RVar of update
     * `update` that is the loop variable `var` (CompileError if there is none). */
    int updates(const Func &f) const;
    RVar loop(const Func &f, int update, const std::string &var) const;

    /** The buffers the compiled program allocates (docs/atl.md, "Buffer reuse"), as
     * scheduled now: one per let computed into storage and one for the result where it is
     * computed apart from the output, and which of them take the memory of an earlier one
     * whose value is dead by then (src/lower/ReuseAllocations.cpp: a let after the last
     * use of another of the same size needs no buffer of its own). */
    struct Storage {
        int allocations = 0;  // before reuse
        std::vector<std::pair<std::string, std::string>> reused;  // (buffer, the one whose memory it takes)
        /** Lets computed per iteration of a loop ("r per iteration of i"): their buffer holds
         * one iteration's cells, allocated anew in each, not every iteration's at once. */
        std::vector<std::string> per_iteration;
        int saved() const { return int(reused.size()); }
    };
    Storage storage() const;

    /** Compiles (JIT) and runs on these inputs; pad cells of the result read 0 and are
     * marked pad exactly where the pad check says they are. */
    Value run(const Inputs &inputs) const;
    /** The reference interpreter on the same program. */
    Value run_reference(const Inputs &inputs) const;

    struct Data;

private:
    std::shared_ptr<Data> data_;
};

}  // namespace tessera::atl
