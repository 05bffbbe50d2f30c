// The reference interpreter of ATL (docs/atl.md, "Meaning"): the definition of what an
// ATL program computes. Cells are reals (doubles) or the pad value; reads of pad give 0.

#include <cmath>
#include <sstream>

#include "atl/Evaluate.h"
#include "tessera/Error.h"

namespace tessera::atl {

using namespace detail;

namespace {

struct Number {
    double value = 0;
    bool pad = false;
};

std::string valuation_text(const Valuation &v) {
    std::string s;
    for (const auto &[name, value] : v) s += (s.empty() ? " at " : ", ") + name + " = " + std::to_string(value);
    return s;
}

struct Interpretation {
    using Cell = Number;
    static Number pad() { return Number{0, true}; }

    std::map<const ArrayData *, const Cells<Number> *> arrays;  // inputs and let-bound names
    std::map<const ArrayData *, Cells<Number>> lets;

    double scalar(const TensorNode &e, const Valuation &v) {
        switch (e.op) {
        case TensorOp::Literal: return e.literal;
        case TensorOp::IndexValue: return double(evaluate_index(*e.index.node(), v));
        case TensorOp::Add: return scalar(*e.a, v) + scalar(*e.b, v);
        case TensorOp::Sub: return scalar(*e.a, v) - scalar(*e.b, v);
        case TensorOp::Mul: return scalar(*e.a, v) * scalar(*e.b, v);
        case TensorOp::Div: return scalar(*e.a, v) / scalar(*e.b, v);
        case TensorOp::Read: {
            auto it = arrays.find(e.array.get());
            if (it == arrays.end()) throw InternalError("ATL: the array " + e.array->name + " has no value");
            const Cells<Number> &a = *it->second;
            int64_t offset = 0;
            for (size_t d = 0; d < e.indices.size(); d++) {
                int64_t i = evaluate_index(*e.indices[d].node(), v);
                if (i < 0 || i >= a.shape[d])
                    throw RuntimeError("ATL: the read " + tensor_text(e) + valuation_text(v) + " is outside " +
                                       e.array->name + ", of shape " + shape_text(a.shape) + ": index " +
                                       std::to_string(i) + " in dimension " + std::to_string(d));
                offset = offset * a.shape[d] + i;
            }
            const Number &n = a.cells[size_t(offset)];
            return n.pad ? 0.0 : n.value;
        }
        default: throw InternalError(std::string("ATL: ") + op_name(e.op) + " is not a scalar expression");
        }
    }

    Cells<Number> leaf(const TensorNode &e, const Valuation &v) { return Cells<Number>{{}, {Number{scalar(e, v), false}}}; }
    static void add(Number &acc, const Number &x) {
        if (x.pad) return;
        acc.value = acc.pad ? x.value : acc.value + x.value;
        acc.pad = false;
    }
    void bind(const TensorNode &let, Cells<Number> value) {
        Cells<Number> &slot = lets[let.array.get()] = std::move(value);
        arrays[let.array.get()] = &slot;
    }
    void unbind(const TensorNode &let) {
        arrays.erase(let.array.get());
        lets.erase(let.array.get());
    }
    static bool shares(const TensorNode &) { return false; }
    static void dropped(const TensorNode &, const Cells<Number> &, int64_t, int64_t, const Valuation &) {}
};

}  // namespace

Value::Value(std::vector<int64_t> s, double fill) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t e : shape) {
        if (e < 0) throw RuntimeError("ATL: a value's shape " + shape_text(shape) + " has a negative extent");
        n *= e;
    }
    data.assign(size_t(n), fill);
    pad.assign(size_t(n), 0);
}

int64_t Value::offset(const std::vector<int64_t> &index) const {
    if (index.size() != shape.size())
        throw RuntimeError("ATL: an index of " + std::to_string(index.size()) + " coordinates into a value of shape " +
                           shape_text(shape));
    int64_t o = 0;
    for (size_t d = 0; d < index.size(); d++) {
        if (index[d] < 0 || index[d] >= shape[d])
            throw RuntimeError("ATL: index " + std::to_string(index[d]) + " is outside dimension " + std::to_string(d) +
                               " of a value of shape " + shape_text(shape));
        o = o * shape[d] + index[d];
    }
    return o;
}

double Value::at(const std::vector<int64_t> &index) const { return data[size_t(offset(index))]; }
bool Value::is_pad(const std::vector<int64_t> &index) const { return pad[size_t(offset(index))] != 0; }

const Value &detail::input_value(const ArrayData &a, const Inputs &inputs) {
    auto it = inputs.find(a.name);
    if (it == inputs.end()) throw RuntimeError("ATL: no value given for the input " + a.name);
    if (it->second.shape != a.shape)
        throw RuntimeError("ATL: the input " + a.name + " is declared of shape " + shape_text(a.shape) +
                           " but the value given has shape " + shape_text(it->second.shape));
    return it->second;
}

Value evaluate(const Tensor &program, const Inputs &inputs) {
    std::vector<std::shared_ptr<const ArrayData>> used = check_names(*program.node());
    Interpretation interp;
    std::map<const ArrayData *, Cells<Number>> input_cells;
    for (const auto &a : used) {
        const Value &given = input_value(*a, inputs);
        Cells<Number> &c = input_cells[a.get()];
        c.shape = given.shape;
        c.cells.resize(given.data.size());
        for (size_t i = 0; i < given.data.size(); i++)
            c.cells[i] = Number{given.data[i], i < given.pad.size() && given.pad[i] != 0};
        interp.arrays[a.get()] = &c;
    }
    Evaluator<Interpretation> evaluator(interp);
    Valuation v;
    Cells<Number> r = evaluator.eval(*program.node(), v);
    Value out(r.shape);
    for (size_t i = 0; i < r.cells.size(); i++) {
        out.data[i] = r.cells[i].pad ? 0.0 : r.cells[i].value;
        out.pad[i] = r.cells[i].pad;
    }
    return out;
}

}  // namespace tessera::atl
