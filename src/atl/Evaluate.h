#pragma once
// The one structural evaluator of ATL expressions, shared by the reference interpreter
// (src/atl/Interpret.cpp: cells are numbers or pad) and the pad check (src/atl/
// PadCheck.cpp: cells are only "pad or not"). Both follow the same table of meanings
// (docs/atl.md, "Meaning"); a Domain says what a cell is and what the leaves, sums and
// lets do:
//
//   using Cell = ...;                         the element type
//   static Cell pad();                        the pad value
//   Cells<Cell> leaf(const TensorNode &, const Valuation &);      a scalar expression
//   void add(Cell &sum, const Cell &x);       Σ: pad + pad = pad, pad + r = r
//   void bind(const TensorNode &let, Cells<Cell> value);  / unbind(let)
//   bool shares(const TensorNode &loop);      evaluate a loop's body once for all its
//                                             iterations (its value cannot depend on them)
//   void dropped(const TensorNode &trunc, const Cells<Cell> &operand, int64_t first,
//                int64_t count, const Valuation &);   a truncation drops these rows

#include <cstdint>
#include <vector>

#include "atl/Tree.h"

namespace tessera::atl::detail {

/** A tensor of cells, row-major (dimension 0 outermost). */
template<typename Cell>
struct Cells {
    std::vector<int64_t> shape;
    std::vector<Cell> cells;

    /** The number of cells of one row of dimension 0 (1 for a vector). */
    int64_t row_size() const {
        int64_t n = 1;
        for (size_t d = 1; d < shape.size(); d++) n *= shape[d];
        return n;
    }
};

template<typename Cell>
Cells<Cell> all_pad(const std::vector<int64_t> &shape, const Cell &pad) {
    int64_t n = 1;
    for (int64_t e : shape) n *= e;
    return Cells<Cell>{shape, std::vector<Cell>(size_t(n), pad)};
}

template<typename Domain>
class Evaluator {
public:
    using Cell = typename Domain::Cell;
    explicit Evaluator(Domain &domain) : domain_(domain) {}

    Cells<Cell> eval(const TensorNode &e, Valuation &v) {
        switch (e.op) {
        case TensorOp::Gen: return gen(e, v);
        case TensorOp::Sum: return sum(e, v);
        case TensorOp::Guard:
            if (!evaluate_cond(*e.cond, v)) return all_pad(e.shape, Domain::pad());
            return eval(*e.a, v);
        case TensorOp::Let: {
            domain_.bind(e, eval(*e.a, v));
            Cells<Cell> r = eval(*e.b, v);
            domain_.unbind(e);
            return r;
        }
        case TensorOp::Concat: {
            Cells<Cell> a = eval(*e.a, v), b = eval(*e.b, v);
            a.cells.insert(a.cells.end(), b.cells.begin(), b.cells.end());
            a.shape = e.shape;
            return a;
        }
        case TensorOp::Flatten: {
            Cells<Cell> a = eval(*e.a, v);
            a.shape = e.shape;
            return a;
        }
        case TensorOp::Split: {
            Cells<Cell> a = eval(*e.a, v);
            a.cells.resize(size_t(e.shape[0] * e.shape[1] * a.row_size()), Domain::pad());
            a.shape = e.shape;
            return a;
        }
        case TensorOp::Transpose: {
            Cells<Cell> a = eval(*e.a, v);
            int64_t n = a.shape[0], m = a.shape[1], s = a.row_size() / (m ? m : 1);
            Cells<Cell> t{e.shape, std::vector<Cell>(a.cells.size(), Domain::pad())};
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < m; j++)
                    for (int64_t q = 0; q < s; q++) t.cells[size_t((j * n + i) * s + q)] = a.cells[size_t((i * m + j) * s + q)];
            return t;
        }
        case TensorOp::TruncL:
        case TensorOp::TruncR: {
            Cells<Cell> a = eval(*e.a, v);
            int64_t row = a.row_size();
            int64_t first = e.op == TensorOp::TruncL ? 0 : a.shape[0] - e.k;
            domain_.dropped(e, a, first, e.k, v);
            auto begin = a.cells.begin() + first * row;
            a.cells.erase(begin, begin + e.k * row);
            a.shape = e.shape;
            return a;
        }
        case TensorOp::PadL:
        case TensorOp::PadR: {
            Cells<Cell> a = eval(*e.a, v);
            int64_t row = a.row_size();
            auto at = e.op == TensorOp::PadL ? a.cells.begin() : a.cells.end();
            a.cells.insert(at, size_t(e.k * row), Domain::pad());
            a.shape = e.shape;
            return a;
        }
        default: return domain_.leaf(e, v);
        }
    }

private:
    Cells<Cell> gen(const TensorNode &e, Valuation &v) {
        Cells<Cell> out{e.shape, {}};
        int64_t n = e.extent();
        if (n == 0) return out;
        if (domain_.shares(e)) {
            Cells<Cell> body = eval(*e.a, v);
            out.cells.reserve(body.cells.size() * size_t(n));
            for (int64_t i = 0; i < n; i++) out.cells.insert(out.cells.end(), body.cells.begin(), body.cells.end());
            return out;
        }
        for (int64_t i = e.lo; i < e.hi; i++) {
            v[e.var] = i;
            Cells<Cell> body = eval(*e.a, v);
            out.cells.insert(out.cells.end(), body.cells.begin(), body.cells.end());
        }
        v.erase(e.var);
        return out;
    }

    Cells<Cell> sum(const TensorNode &e, Valuation &v) {
        if (e.extent() == 0) return all_pad(e.shape, Domain::pad());
        if (domain_.shares(e)) return eval(*e.a, v);  // Σ of one pad structure is that structure
        Cells<Cell> acc;
        for (int64_t i = e.lo; i < e.hi; i++) {
            v[e.var] = i;
            Cells<Cell> body = eval(*e.a, v);
            if (i == e.lo) acc = std::move(body);
            else
                for (size_t c = 0; c < acc.cells.size(); c++) domain_.add(acc.cells[c], body.cells[c]);
        }
        v.erase(e.var);
        return acc;
    }

    Domain &domain_;
};

}  // namespace tessera::atl::detail
