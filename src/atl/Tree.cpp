// Building ATL expressions: every constructor checks its operands' shapes and computes the
// result's (the table of docs/atl.md, "Shapes"), so an ill-shaped program never exists;
// plus the printer of the text form and the name checks run before any pass.

#include "atl/Tree.h"

#include <algorithm>
#include <climits>
#include <sstream>

#include "tessera/Error.h"
#include "tessera/IROperator.h"

namespace tessera::atl {

using namespace detail;

std::string detail::shape_text(const std::vector<int64_t> &shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); i++) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

namespace {

[[noreturn]] void fail(const std::string &op, const std::string &what) {
    throw CompileError("ATL " + op + ": " + what);
}

Index make_index(IndexOp op, const Index &a, const Index &b) {
    auto n = std::make_shared<IndexNode>();
    n->op = op;
    n->a = a.node();
    n->b = b.node();
    return Index(std::shared_ptr<const IndexNode>(std::move(n)));
}

Index divide(IndexOp op, const char *name, const Index &a, const Index &b) {
    if (b.node()->op != IndexOp::Constant || b.node()->value <= 0)
        fail(std::string("index ") + name, "divides by a positive constant, not by " + b.to_string() + " (in " +
                                                  a.to_string() + " " + name + " " + b.to_string() + ")");
    return make_index(op, a, b);
}

Cond compare(CondOp op, const Index &a, const Index &b) {
    auto n = std::make_shared<CondNode>();
    n->op = op;
    n->a = a;
    n->b = b;
    return Cond(std::shared_ptr<const CondNode>(std::move(n)));
}

std::shared_ptr<TensorNode> make_node(TensorOp op) {
    auto n = std::make_shared<TensorNode>();
    n->op = op;
    return n;
}

Tensor finish(std::shared_ptr<TensorNode> n) { return Tensor(std::shared_ptr<const TensorNode>(std::move(n))); }

const std::vector<int64_t> &checked_shape(const char *op, const Tensor &e, size_t rank) {
    const std::vector<int64_t> &s = e.shape();
    if (s.size() < rank)
        fail(op, "needs an operand of at least " + std::to_string(rank) + " dimension" + (rank > 1 ? "s" : "") +
                     "; its operand has shape " + shape_text(s) + " (" + e.to_string() + ")");
    return s;
}

void check_amount(const char *op, int64_t k) {
    if (k < 0) fail(std::string(op) + " " + std::to_string(k), "the amount must be at least 0");
}

Tensor scalar_op(TensorOp op, const Tensor &a, const Tensor &b) {
    for (const Tensor *t : {&a, &b}) {
        const char *side = t == &a ? "left" : "right";
        if (!is_scalar_op(t->node()->op))
            fail(op_name(op), std::string("the ") + side + " operand " + t->to_string() + " is " +
                                  (t->shape().empty() ? "a scalar " + std::string(op_name(t->node()->op)) +
                                                            ", not a scalar expression: bind it with let first"
                                                      : "a tensor of shape " + shape_text(t->shape())) +
                                  "; scalar arithmetic takes reads, literals and their arithmetic");
    }
    auto n = make_node(op);
    n->a = a.node();
    n->b = b.node();
    return finish(std::move(n));
}

Tensor loop(TensorOp op, const Index &i, int64_t lo, int64_t hi, const Tensor &body) {
    if (i.node()->op != IndexOp::Variable)
        fail(op_name(op), "binds a loop variable, not the expression " + i.to_string());
    if (op == TensorOp::Gen && hi < lo)
        fail("gen " + i.name(), "the range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                    ") is negative: hi must be at least lo");
    auto n = make_node(op);
    n->var = i.name();
    n->lo = lo;
    n->hi = hi;
    n->a = body.node();
    n->shape = body.shape();
    if (op == TensorOp::Gen) n->shape.insert(n->shape.begin(), hi - lo);
    return finish(std::move(n));
}

Tensor reshape(TensorOp op, int64_t k, const Tensor &e, std::vector<int64_t> shape) {
    auto n = make_node(op);
    n->k = k;
    n->a = e.node();
    n->shape = std::move(shape);
    return finish(std::move(n));
}

// ---- printing -----------------------------------------------------------------------

int index_precedence(IndexOp op) {
    switch (op) {
    case IndexOp::Add:
    case IndexOp::Sub: return 1;
    case IndexOp::Mul:
    case IndexOp::Div:
    case IndexOp::Mod: return 2;
    default: return 3;
    }
}

void print_index(std::ostream &os, const IndexNode &z, int context) {
    switch (z.op) {
    case IndexOp::Constant: os << z.value; return;
    case IndexOp::Variable: os << z.name; return;
    case IndexOp::CeilDiv:
        os << "ceil_div(";
        print_index(os, *z.a, 0);
        os << ", ";
        print_index(os, *z.b, 0);
        os << ")";
        return;
    default: break;
    }
    int p = index_precedence(z.op);
    const char *sym = z.op == IndexOp::Add ? " + " : z.op == IndexOp::Sub ? " - " : z.op == IndexOp::Mul ? " * "
                                                   : z.op == IndexOp::Div ? " / " : " % ";
    if (p < context) os << "(";
    print_index(os, *z.a, p);
    os << sym;
    print_index(os, *z.b, p + 1);  // left-associative
    if (p < context) os << ")";
}

void print_cond(std::ostream &os, const CondNode &c) {
    if (c.op == CondOp::And) {
        print_cond(os, *c.left);
        os << " && ";
        print_cond(os, *c.right);
        return;
    }
    print_index(os, *c.a.node(), 0);
    os << (c.op == CondOp::Lt ? " < " : c.op == CondOp::Le ? " <= " : " == ");
    print_index(os, *c.b.node(), 0);
}

// Precedences of the text form: binders (gen, sum, let, guards) extend as far right as
// they can and are parenthesized as operands; ++ is looser than + and -, which are looser
// than * and /.
int tensor_precedence(TensorOp op) {
    switch (op) {
    case TensorOp::Gen:
    case TensorOp::Sum:
    case TensorOp::Guard:
    case TensorOp::Let: return 0;
    case TensorOp::Concat: return 1;
    case TensorOp::Add:
    case TensorOp::Sub: return 2;
    case TensorOp::Mul:
    case TensorOp::Div: return 3;
    default: return 4;
    }
}

void print_tensor(std::ostream &os, const TensorNode &e, int context) {
    int p = tensor_precedence(e.op);
    bool parens = p < context;
    if (parens) os << "(";
    switch (e.op) {
    case TensorOp::Gen:
    case TensorOp::Sum:
        os << op_name(e.op) << " " << e.var;
        if (e.lo == 0) os << " < " << e.hi;
        else os << " in " << e.lo << " .. " << e.hi;
        os << ": ";
        print_tensor(os, *e.a, 0);
        break;
    case TensorOp::Guard:
        os << "[";
        print_cond(os, *e.cond);
        os << "] ";
        print_tensor(os, *e.a, 0);
        break;
    case TensorOp::Let:
        os << "let " << e.array->name << " = ";
        print_tensor(os, *e.a, 0);
        os << " in ";
        print_tensor(os, *e.b, 0);
        break;
    case TensorOp::Concat:
        print_tensor(os, *e.a, 2);
        os << " ++ ";
        print_tensor(os, *e.b, 1);
        break;
    case TensorOp::Flatten:
    case TensorOp::Transpose:
        os << op_name(e.op) << "(";
        print_tensor(os, *e.a, 0);
        os << ")";
        break;
    case TensorOp::Split:
    case TensorOp::TruncL:
    case TensorOp::TruncR:
    case TensorOp::PadL:
    case TensorOp::PadR:
        os << op_name(e.op) << "(" << e.k << ", ";
        print_tensor(os, *e.a, 0);
        os << ")";
        break;
    case TensorOp::Read:
        os << e.array->name;
        if (!e.indices.empty()) {
            os << "[";
            for (size_t i = 0; i < e.indices.size(); i++) {
                if (i) os << ", ";
                print_index(os, *e.indices[i].node(), 0);
            }
            os << "]";
        }
        break;
    case TensorOp::Literal: {
        std::ostringstream lit;
        lit.precision(17);
        lit << e.literal;
        std::string s = lit.str();
        if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
        os << s;
        break;
    }
    case TensorOp::IndexValue:
        os << "real(";
        print_index(os, *e.index.node(), 0);
        os << ")";
        break;
    case TensorOp::Add:
    case TensorOp::Sub:
    case TensorOp::Mul:
    case TensorOp::Div:
        print_tensor(os, *e.a, p);
        os << " " << op_name(e.op) << " ";
        print_tensor(os, *e.b, p + 1);
        break;
    }
    if (parens) os << ")";
}

}  // namespace

// ---- nodes -----------------------------------------------------------------------------

const char *detail::op_name(TensorOp op) {
    switch (op) {
    case TensorOp::Gen: return "gen";
    case TensorOp::Sum: return "sum";
    case TensorOp::Guard: return "guard";
    case TensorOp::Let: return "let";
    case TensorOp::Concat: return "++";
    case TensorOp::Flatten: return "flatten";
    case TensorOp::Split: return "split";
    case TensorOp::Transpose: return "transpose";
    case TensorOp::TruncL: return "trunc_l";
    case TensorOp::TruncR: return "trunc_r";
    case TensorOp::PadL: return "pad_l";
    case TensorOp::PadR: return "pad_r";
    case TensorOp::Read: return "read";
    case TensorOp::Literal: return "literal";
    case TensorOp::IndexValue: return "real";
    case TensorOp::Add: return "+";
    case TensorOp::Sub: return "-";
    case TensorOp::Mul: return "*";
    case TensorOp::Div: return "/";
    }
    return "?";
}

bool detail::is_scalar_op(TensorOp op) { return op >= TensorOp::Read; }

bool detail::is_reshape(TensorOp op) { return op >= TensorOp::Flatten && op <= TensorOp::PadR; }

int64_t detail::evaluate_index(const IndexNode &z, const Valuation &v) {
    switch (z.op) {
    case IndexOp::Constant: return z.value;
    case IndexOp::Variable: {
        auto it = v.find(z.name);
        if (it == v.end()) throw InternalError("ATL: the index variable " + z.name + " has no value");
        return it->second;
    }
    default: break;
    }
    int64_t a = evaluate_index(*z.a, v), b = evaluate_index(*z.b, v);
    switch (z.op) {
    case IndexOp::Add: return a + b;
    case IndexOp::Sub: return a - b;
    case IndexOp::Mul: return a * b;
    case IndexOp::Div: return a >= 0 ? a / b : -((-a + b - 1) / b);  // b > 0: floor
    case IndexOp::CeilDiv: return a >= 0 ? (a + b - 1) / b : -((-a) / b);
    case IndexOp::Mod: return ((a % b) + b) % b;
    default: return 0;
    }
}

bool detail::evaluate_cond(const CondNode &p, const Valuation &v) {
    switch (p.op) {
    case CondOp::And: return evaluate_cond(*p.left, v) && evaluate_cond(*p.right, v);
    case CondOp::Lt: return evaluate_index(*p.a.node(), v) < evaluate_index(*p.b.node(), v);
    case CondOp::Le: return evaluate_index(*p.a.node(), v) <= evaluate_index(*p.b.node(), v);
    case CondOp::Eq: return evaluate_index(*p.a.node(), v) == evaluate_index(*p.b.node(), v);
    }
    return false;
}

Expr detail::int_constant(int64_t v, const char *what) {
    if (v < INT32_MIN || v > INT32_MAX)
        throw CompileError(std::string("ATL: ") + what + " " + std::to_string(v) + " does not fit in 32 bits");
    return Expr(int32_t(v));
}

Expr detail::index_expr(const IndexNode &z, const VariableValue &variable) {
    switch (z.op) {
    case IndexOp::Constant: return int_constant(z.value, "the index constant");
    case IndexOp::Variable: return variable(z.name);
    default: break;
    }
    Expr a = index_expr(*z.a, variable), b = index_expr(*z.b, variable);
    switch (z.op) {
    case IndexOp::Add: return a + b;
    case IndexOp::Sub: return a - b;
    case IndexOp::Mul: return a * b;
    case IndexOp::Div: return a / b;
    case IndexOp::Mod: return a % b;
    default: return (a + (b - 1)) / b;  // CeilDiv
    }
}

Expr detail::cond_expr(const CondNode &c, const VariableValue &variable) {
    switch (c.op) {
    case CondOp::And: return cond_expr(*c.left, variable) && cond_expr(*c.right, variable);
    case CondOp::Lt: return index_expr(*c.a.node(), variable) < index_expr(*c.b.node(), variable);
    case CondOp::Le: return index_expr(*c.a.node(), variable) <= index_expr(*c.b.node(), variable);
    default: return index_expr(*c.a.node(), variable) == index_expr(*c.b.node(), variable);
    }
}

void detail::index_variables(const IndexNode &z, std::set<std::string> &out) {
    if (z.op == IndexOp::Variable) out.insert(z.name);
    if (z.op != IndexOp::Constant && z.op != IndexOp::Variable) {
        index_variables(*z.a, out);
        index_variables(*z.b, out);
    }
}

void detail::cond_variables(const CondNode &p, std::set<std::string> &out) {
    if (p.op == CondOp::And) {
        cond_variables(*p.left, out);
        cond_variables(*p.right, out);
    } else {
        index_variables(*p.a.node(), out);
        index_variables(*p.b.node(), out);
    }
}

namespace {

struct NameChecker {
    std::vector<std::string> scope;  // loop variables bound around the current node
    std::set<std::string> lets;
    std::map<std::string, std::shared_ptr<const ArrayData>> inputs;
    std::vector<std::shared_ptr<const ArrayData>> input_order;
    std::set<const ArrayData *> lets_in_scope;

    void bound(const std::set<std::string> &vars, const std::string &where) {
        for (const std::string &v : vars)
            if (std::find(scope.begin(), scope.end(), v) == scope.end())
                throw CompileError("ATL: the index variable " + v + " in " + where +
                                   " is not bound by an enclosing gen or sum");
    }

    void visit(const TensorNode &e) {
        switch (e.op) {
        case TensorOp::Gen:
        case TensorOp::Sum:
            if (std::find(scope.begin(), scope.end(), e.var) != scope.end())
                throw CompileError("ATL " + std::string(op_name(e.op)) + " " + e.var + ": the variable " + e.var +
                                   " is already bound by an enclosing gen or sum; rename one of them");
            scope.push_back(e.var);
            visit(*e.a);
            scope.pop_back();
            return;
        case TensorOp::Guard: {
            std::set<std::string> vars;
            cond_variables(*e.cond, vars);
            bound(vars, "the guard [" + Cond(e.cond).to_string() + "]");
            visit(*e.a);
            return;
        }
        case TensorOp::Let:
            if (!lets.insert(e.array->name).second)
                throw CompileError("ATL let " + e.array->name + ": the name " + e.array->name +
                                   " is bound by two lets; let names must be distinct");
            visit(*e.a);
            lets_in_scope.insert(e.array.get());
            visit(*e.b);
            lets_in_scope.erase(e.array.get());
            return;
        case TensorOp::Read: {
            std::set<std::string> vars;
            for (const Index &z : e.indices) index_variables(*z.node(), vars);
            bound(vars, "the read " + tensor_text(e));
            if (e.array->input) {
                auto [it, fresh] = inputs.emplace(e.array->name, e.array);
                if (fresh) input_order.push_back(e.array);
                else if (it->second != e.array && it->second->shape != e.array->shape)
                    throw CompileError("ATL: two inputs are named " + e.array->name + ", of shapes " +
                                       shape_text(it->second->shape) + " and " + shape_text(e.array->shape));
            } else if (!lets_in_scope.count(e.array.get())) {
                throw CompileError("ATL: the let-bound name " + e.array->name + " is read outside its let");
            }
            return;
        }
        case TensorOp::IndexValue: {
            std::set<std::string> vars;
            index_variables(*e.index.node(), vars);
            bound(vars, "real(" + e.index.to_string() + ")");
            return;
        }
        default:
            if (e.a) visit(*e.a);
            if (e.b) visit(*e.b);
        }
    }
};

}  // namespace

std::vector<std::shared_ptr<const ArrayData>> detail::check_names(const TensorNode &program) {
    NameChecker c;
    c.visit(program);
    for (const std::string &l : c.lets)
        if (c.inputs.count(l))
            throw CompileError("ATL let " + l + ": the name " + l + " is also an input's; let names must differ from the inputs'");
    return c.input_order;
}

// ---- Index and Cond --------------------------------------------------------------------

Index::Index(int64_t constant) {
    auto n = std::make_shared<IndexNode>();
    n->op = IndexOp::Constant;
    n->value = constant;
    node_ = std::move(n);
}

Index::Index(const std::string &name) {
    if (name.empty()) throw CompileError("ATL: an index variable needs a name");
    auto n = std::make_shared<IndexNode>();
    n->op = IndexOp::Variable;
    n->name = name;
    node_ = std::move(n);
}

const std::string &Index::name() const { return node_->name; }

std::string Index::to_string() const {
    std::ostringstream os;
    print_index(os, *node_, 0);
    return os.str();
}

Index operator+(const Index &a, const Index &b) { return make_index(IndexOp::Add, a, b); }
Index operator-(const Index &a, const Index &b) { return make_index(IndexOp::Sub, a, b); }
Index operator*(const Index &a, const Index &b) { return make_index(IndexOp::Mul, a, b); }
Index operator/(const Index &a, const Index &b) { return divide(IndexOp::Div, "/", a, b); }
Index operator%(const Index &a, const Index &b) { return divide(IndexOp::Mod, "%", a, b); }
Index ceil_div(const Index &a, const Index &b) { return divide(IndexOp::CeilDiv, "ceil_div", a, b); }

std::string Cond::to_string() const {
    std::ostringstream os;
    print_cond(os, *node_);
    return os.str();
}

Cond operator<(const Index &a, const Index &b) { return compare(CondOp::Lt, a, b); }
Cond operator<=(const Index &a, const Index &b) { return compare(CondOp::Le, a, b); }
Cond operator>(const Index &a, const Index &b) { return compare(CondOp::Lt, b, a); }
Cond operator>=(const Index &a, const Index &b) { return compare(CondOp::Le, b, a); }
Cond operator==(const Index &a, const Index &b) { return compare(CondOp::Eq, a, b); }
Cond operator&&(const Cond &a, const Cond &b) {
    auto n = std::make_shared<CondNode>();
    n->op = CondOp::And;
    n->left = a.node();
    n->right = b.node();
    return Cond(std::shared_ptr<const CondNode>(std::move(n)));
}

// ---- Tensor ----------------------------------------------------------------------------

Tensor::Tensor(double literal) {
    auto n = make_node(TensorOp::Literal);
    n->literal = literal;
    node_ = std::move(n);
}

const std::vector<int64_t> &Tensor::shape() const { return node_->shape; }

std::string detail::tensor_text(const TensorNode &e) {
    std::ostringstream os;
    print_tensor(os, e, 0);
    return os.str();
}

std::string Tensor::to_string() const { return tensor_text(*node_); }

Tensor operator+(const Tensor &a, const Tensor &b) { return scalar_op(TensorOp::Add, a, b); }
Tensor operator-(const Tensor &a, const Tensor &b) { return scalar_op(TensorOp::Sub, a, b); }
Tensor operator*(const Tensor &a, const Tensor &b) { return scalar_op(TensorOp::Mul, a, b); }
Tensor operator/(const Tensor &a, const Tensor &b) { return scalar_op(TensorOp::Div, a, b); }

Tensor real(const Index &i) {
    auto n = make_node(TensorOp::IndexValue);
    n->index = i;
    return finish(std::move(n));
}

Array::Array(const std::string &name, const std::vector<int64_t> &shape) {
    if (name.empty()) throw CompileError("ATL: an input needs a name");
    for (size_t d = 0; d < shape.size(); d++)
        if (shape[d] < 0)
            throw CompileError("ATL input " + name + ": dimension " + std::to_string(d) + " has the negative size " +
                               std::to_string(shape[d]));
    auto d = std::make_shared<ArrayData>();
    d->name = name;
    d->shape = shape;
    d->input = true;
    data_ = std::move(d);
}

const std::string &Array::name() const { return data_->name; }
const std::vector<int64_t> &Array::shape() const { return data_->shape; }

Tensor Array::operator()(const std::vector<Index> &indices) const {
    if (indices.size() != data_->shape.size())
        fail("read of " + data_->name, data_->name + " has shape " + shape_text(data_->shape) + " (" +
                                           std::to_string(data_->shape.size()) + " dimensions) but the read gives " +
                                           std::to_string(indices.size()) + " indices");
    auto n = make_node(TensorOp::Read);
    n->array = data_;
    n->indices = indices;
    return finish(std::move(n));
}

Tensor gen(const Index &i, int64_t lo, int64_t hi, const Tensor &body) { return loop(TensorOp::Gen, i, lo, hi, body); }
Tensor gen(const Index &i, int64_t n, const Tensor &body) { return gen(i, 0, n, body); }
Tensor sum(const Index &i, int64_t lo, int64_t hi, const Tensor &body) { return loop(TensorOp::Sum, i, lo, hi, body); }
Tensor sum(const Index &i, int64_t n, const Tensor &body) { return sum(i, 0, n, body); }

Tensor guard(const Cond &p, const Tensor &body) {
    auto n = make_node(TensorOp::Guard);
    n->cond = p.node();
    n->a = body.node();
    n->shape = body.shape();
    return finish(std::move(n));
}

Tensor let(const std::string &name, const Tensor &value, const std::function<Tensor(const Array &)> &body) {
    if (name.empty()) throw CompileError("ATL let: the bound name is empty");
    auto d = std::make_shared<ArrayData>();
    d->name = name;
    d->shape = value.shape();
    Array x{std::shared_ptr<const ArrayData>(d)};
    return let_node(x.data(), value, body(x));
}

Tensor detail::let_node(const std::shared_ptr<const ArrayData> &array, const Tensor &value, const Tensor &body) {
    auto n = make_node(TensorOp::Let);
    n->array = array;
    n->a = value.node();
    n->b = body.node();
    n->shape = body.shape();
    return finish(std::move(n));
}

Tensor concat(const Tensor &a, const Tensor &b) {
    const auto &sa = checked_shape("++", a, 1), &sb = checked_shape("++", b, 1);
    if (sa.size() != sb.size() || !std::equal(sa.begin() + 1, sa.end(), sb.begin() + 1))
        fail("++", "the operands' shapes " + shape_text(sa) + " and " + shape_text(sb) +
                       " differ below the outermost dimension (concatenation joins dimension 0 only)");
    std::vector<int64_t> shape = sa;
    shape[0] += sb[0];
    auto n = make_node(TensorOp::Concat);
    n->a = a.node();
    n->b = b.node();
    n->shape = std::move(shape);
    return finish(std::move(n));
}

Tensor flatten(const Tensor &e) {
    std::vector<int64_t> s = checked_shape("flatten", e, 2);
    s[1] *= s[0];
    s.erase(s.begin());
    return reshape(TensorOp::Flatten, 0, e, std::move(s));
}

Tensor split(int64_t k, const Tensor &e) {
    if (k <= 0) fail("split " + std::to_string(k), "the factor must be positive");
    std::vector<int64_t> s = checked_shape("split", e, 1);
    int64_t n = s[0];
    s[0] = k;
    s.insert(s.begin(), (n + k - 1) / k);
    return reshape(TensorOp::Split, k, e, std::move(s));
}

Tensor transpose(const Tensor &e) {
    std::vector<int64_t> s = checked_shape("transpose", e, 2);
    std::swap(s[0], s[1]);
    return reshape(TensorOp::Transpose, 0, e, std::move(s));
}

namespace {
Tensor truncate(TensorOp op, int64_t k, const Tensor &e) {
    std::string name = std::string(op_name(op)) + " " + std::to_string(k);
    check_amount(op_name(op), k);
    std::vector<int64_t> s = checked_shape(op_name(op), e, 1);
    if (k > s[0])
        fail(name, "drops " + std::to_string(k) + " elements of dimension 0, which has only " + std::to_string(s[0]) +
                       " (shape " + shape_text(s) + ")");
    s[0] -= k;
    return reshape(op, k, e, std::move(s));
}
Tensor pad(TensorOp op, int64_t k, const Tensor &e) {
    check_amount(op_name(op), k);
    std::vector<int64_t> s = checked_shape(op_name(op), e, 1);
    s[0] += k;
    return reshape(op, k, e, std::move(s));
}
}  // namespace

Tensor trunc_l(int64_t k, const Tensor &e) { return truncate(TensorOp::TruncL, k, e); }
Tensor trunc_r(int64_t k, const Tensor &e) { return truncate(TensorOp::TruncR, k, e); }
Tensor pad_l(int64_t k, const Tensor &e) { return pad(TensorOp::PadL, k, e); }
Tensor pad_r(int64_t k, const Tensor &e) { return pad(TensorOp::PadR, k, e); }

}  // namespace tessera::atl
