// The pad check (docs/atl.md, "Pad types"): which cells of every subexpression are the pad
// value, and the proof that each truncation drops only such cells.
//
// Whether a cell is pad never depends on data: only guards (affine conditions on loop
// variables), pads, splits' tails and empty sums make pad. So the check runs the
// structural evaluator of src/atl/Evaluate.h on cells that are just "pad or not", which
// decides exactly, for every value of the loop variables around each truncation, the
// property the ATL paper's pad type rules under-approximate. A loop whose variable no guard
// below it mentions has the same pad structure in every iteration and is evaluated once,
// so the cost is the size of the tensors, not of the loop nest; the pad type reported is
// read off the result in the ATL paper's form Pad(k, l, π1, r, π2, c).

#include <functional>
#include <map>

#include "atl/Evaluate.h"
#include "atl/PadCheck.h"
#include "tessera/Error.h"

namespace tessera::atl {

using namespace detail;

namespace {

using Mask = Cells<uint8_t>;  // 1: the cell is pad

struct PadAnalysis {
    using Cell = uint8_t;
    static uint8_t pad() { return 1; }

    std::map<const TensorNode *, std::set<std::string>> guard_vars;

    const std::set<std::string> &guarded(const TensorNode &e) {
        auto it = guard_vars.find(&e);
        if (it != guard_vars.end()) return it->second;
        std::set<std::string> vars;
        if (e.op == TensorOp::Guard) cond_variables(*e.cond, vars);
        if (!is_scalar_op(e.op)) {
            if (e.a) {
                const auto &a = guarded(*e.a);
                vars.insert(a.begin(), a.end());
            }
            if (e.b) {
                const auto &b = guarded(*e.b);
                vars.insert(b.begin(), b.end());
            }
        }
        return guard_vars[&e] = std::move(vars);
    }

    static Mask leaf(const TensorNode &, const Valuation &) { return Mask{{}, {0}}; }
    static void add(uint8_t &acc, const uint8_t &x) { acc = acc && x; }
    static void bind(const TensorNode &, Mask) {}  // reads never give pad
    static void unbind(const TensorNode &) {}
    bool shares(const TensorNode &loop) { return !guarded(*loop.a).count(loop.var); }

    static void dropped(const TensorNode &t, const Mask &operand, int64_t first, int64_t count, const Valuation &v) {
        int64_t row = operand.row_size(), n = operand.shape[0];
        auto row_is_pad = [&](int64_t i) {
            for (int64_t q = 0; q < row; q++)
                if (!operand.cells[size_t(i * row + q)]) return false;
            return true;
        };
        for (int64_t i = first; i < first + count; i++) {
            if (row_is_pad(i)) continue;
            bool left = t.op == TensorOp::TruncL;
            int64_t padding = 0;  // the pad rows at the truncated end
            if (left)
                while (padding < n && row_is_pad(padding)) padding++;
            else
                while (padding < n && row_is_pad(n - 1 - padding)) padding++;
            std::string at;
            for (const auto &[name, value] : v) at += (at.empty() ? " (at " : ", ") + name + " = " + std::to_string(value);
            if (!at.empty()) at += ")";
            std::string text = tensor_text(t);
            if (text.size() > 160) text = text.substr(0, 157) + "...";
            throw CompileError("ATL " + std::string(op_name(t.op)) + " " + std::to_string(t.k) + ": drops the " +
                               (left ? "first " : "last ") + std::to_string(count) + " element" + (count == 1 ? "" : "s") +
                               " of dimension 0 (of " + std::to_string(n) + ", shape " + shape_text(operand.shape) +
                               ") but only the " + (left ? "first " : "last ") + std::to_string(padding) +
                               (padding == 1 ? " is" : " are") + " padding: element " + std::to_string(i) +
                               " holds live data, which the truncation would cut" + at + ", in " + text);
        }
    }
};

PadType scalar_type(bool pad) {
    PadType t;
    t.scalar = true;
    t.is_pad = pad;
    return t;
}

/** The type claiming nothing, of shape `shape` from dimension d on. */
PadType any_type(const std::vector<int64_t> &shape, size_t d) {
    if (d == shape.size()) return scalar_type(false);
    PadType t;
    auto inner = std::make_shared<PadType>(any_type(shape, d + 1));
    t.pi1 = t.pi2 = inner;
    return t;
}

/** The pad type of the cells [begin, begin + size) of `mask` (of shape `shape` from
 * dimension d on), where `pads(i)` says whether cell i is pad. */
using IsPad = std::function<bool(int64_t)>;

PadType type_of(const std::vector<int64_t> &shape, size_t d, const IsPad &pads) {
    if (d == shape.size()) return scalar_type(pads(0));
    int64_t n = shape[d], row = 1;
    for (size_t q = d + 1; q < shape.size(); q++) row *= shape[q];
    auto row_is_pad = [&](int64_t i) {
        for (int64_t q = 0; q < row; q++)
            if (!pads(i * row + q)) return false;
        return true;
    };
    PadType t;
    while (t.k < n && row_is_pad(t.k)) t.k++;
    if (t.k == n) {  // all pad: π_shape
        auto inner = std::make_shared<PadType>(type_of(shape, d + 1, [](int64_t) { return true; }));
        t.pi1 = t.pi2 = inner;
        return t;
    }
    while (row_is_pad(n - 1 - t.c)) t.c++;
    int64_t last = n - 1 - t.c;  // the last row with live data
    t.r = 1;
    t.pi2 = std::make_shared<PadType>(type_of(shape, d + 1, [&](int64_t q) { return pads(last * row + q); }));
    t.l = last - t.k;
    if (t.l > 0) {  // what the rows k .. last-1 all have in common
        t.pi1 = std::make_shared<PadType>(type_of(shape, d + 1, [&](int64_t q) {
            for (int64_t i = t.k; i < last; i++)
                if (!pads(i * row + q)) return false;
            return true;
        }));
    } else {
        t.pi1 = std::make_shared<PadType>(any_type(shape, d + 1));
    }
    return t;
}

}  // namespace

std::string PadType::to_string() const {
    if (scalar) return is_pad ? "Scal(true)" : "Scal(false)";
    return "Pad(" + std::to_string(k) + ", " + std::to_string(l) + ", " + pi1->to_string() + ", " + std::to_string(r) +
           ", " + pi2->to_string() + ", " + std::to_string(c) + ")";
}

std::vector<uint8_t> detail::pad_cells(const TensorNode &program) {
    PadAnalysis analysis;
    Evaluator<PadAnalysis> evaluator(analysis);
    Valuation v;
    return evaluator.eval(program, v).cells;
}

PadType detail::pad_type_of(const std::vector<int64_t> &shape, const std::vector<uint8_t> &cells) {
    return type_of(shape, 0, [&](int64_t i) { return cells[size_t(i)] != 0; });
}

PadType check_pads(const Tensor &program) {
    check_names(*program.node());
    return pad_type_of(program.shape(), pad_cells(*program.node()));
}

}  // namespace tessera::atl
