#pragma once
// The nodes of ATL expressions (include/tessera/Atl.h): immutable trees, each tensor node
// with its static shape, built once by the constructors of src/atl/Tree.cpp, which check
// shapes. Every pass over ATL (interpreter, pad check, lowering, printer) switches on the
// node kinds below.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tessera/Atl.h"

namespace tessera::atl::detail {

enum class IndexOp : uint8_t { Constant, Variable, Add, Sub, Mul, Div, CeilDiv, Mod };

struct IndexNode {
    IndexOp op;
    int64_t value = 0;    // Constant
    std::string name;     // Variable
    std::shared_ptr<const IndexNode> a, b;  // operands of the binary operations
};

enum class CondOp : uint8_t { Lt, Le, Eq, And };

struct CondNode {
    CondOp op;
    Index a{0}, b{0};                            // comparisons
    std::shared_ptr<const CondNode> left, right;  // And
};

struct ArrayData {
    std::string name;
    std::vector<int64_t> shape;
    bool input = false;  // an input; otherwise the name a let binds
};

enum class TensorOp : uint8_t {
    // tensors
    Gen, Sum, Guard, Let, Concat, Flatten, Split, Transpose, TruncL, TruncR, PadL, PadR,
    // scalars
    Read, Literal, IndexValue, Add, Sub, Mul, Div,
};

/** The operator's name as docs/atl.md writes it ("gen", "trunc_r", "+", ...). */
const char *op_name(TensorOp op);
/** Reads, literals, index values and their arithmetic. */
bool is_scalar_op(TensorOp op);
/** The reshape operators of one operand and an amount: flatten, split, transpose, the
 * truncations and the pads (each moves cells, by its reindexer, and computes nothing). */
bool is_reshape(TensorOp op);

struct TensorNode {
    TensorOp op;
    std::vector<int64_t> shape;
    std::string var;                      // Gen, Sum: the loop variable
    int64_t lo = 0, hi = 0;               // Gen, Sum: the range [lo, hi)
    int64_t k = 0;                        // Split, TruncL/R, PadL/R: the amount
    std::shared_ptr<const CondNode> cond;  // Guard
    std::shared_ptr<const ArrayData> array;  // Read: the array read; Let: the name bound
    std::vector<Index> indices;           // Read
    Index index{0};                       // IndexValue
    double literal = 0;                   // Literal
    std::shared_ptr<const TensorNode> a, b;  // operands; Let: a = value, b = body

    int64_t extent() const { return hi > lo ? hi - lo : 0; }
};

using TensorPtr = std::shared_ptr<const TensorNode>;

/** `let array := value in body`, for passes that rebuild a let (the body's reads of the
 * bound name refer to `array`). */
Tensor let_node(const std::shared_ptr<const ArrayData> &array, const Tensor &value, const Tensor &body);

/** The expression in the text form of docs/atl.md. */
std::string tensor_text(const TensorNode &e);
std::string shape_text(const std::vector<int64_t> &shape);

/** Concrete values of loop variables. */
using Valuation = std::map<std::string, int64_t>;

/** The value of an index or condition under v (a variable v lacks is an InternalError:
 * check_names proves every variable bound first). */
int64_t evaluate_index(const IndexNode &z, const Valuation &v);
bool evaluate_cond(const CondNode &p, const Valuation &v);

/** An integer constant of a program as a 32-bit Tessera constant (a CompileError naming
 * `what` if it does not fit: compiled coordinates are 32-bit). */
Expr int_constant(int64_t v, const char *what);

/** An index or a condition as a Tessera integer (or bool) expression, each variable given
 * by `variable`: lowering's translation (src/atl/Lower.cpp), which the validator reads
 * ATL's meaning with too (src/validate/AtlMeaning.cpp). Division and remainder are by
 * positive constants, where Tessera's Euclidean `/` and `%` are floor's. */
using VariableValue = std::function<Expr(const std::string &)>;
Expr index_expr(const IndexNode &z, const VariableValue &variable);
Expr cond_expr(const CondNode &c, const VariableValue &variable);

/** The variables an index or condition mentions. */
void index_variables(const IndexNode &z, std::set<std::string> &out);
void cond_variables(const CondNode &p, std::set<std::string> &out);

/** The value given for input `a`: present and of its declared shape (RuntimeError). */
const Value &input_value(const ArrayData &a, const Inputs &inputs);

/** Checks that every variable is bound by an enclosing gen or sum, that no gen or sum
 * rebinds a variable in scope, that let names are distinct and differ from the inputs',
 * and that inputs of one name are one array (CompileError naming the variable). Returns
 * the inputs in order of first read. */
std::vector<std::shared_ptr<const ArrayData>> check_names(const TensorNode &program);

}  // namespace tessera::atl::detail
