#pragma once
// Tuple: several values at each point of one Func, as Halide's (docs/semantics.md §7.5).
//
//     Func f;
//     f(x) = Tuple(x, sin(x));              // two values: an int32 and a float32
//     Expr i = f(x)[0], s = f(x)[1];        // read one of them
//     RDom r(0, 100);
//     Func arg;                             // argmin of g over r, with its value
//     arg() = Tuple(0, g(0));
//     arg() = select(g(r) < arg()[1], Tuple(r, g(r)), Tuple(arg()[0], arg()[1]));
//     Realization out = f.realize({16});    // one Buffer per value
//
// An update computes every component from the values before it, then stores them all.

#include <initializer_list>
#include <vector>

#include "tessera/Expr.h"

namespace tessera {

class FuncRef;

class Tuple {
public:
    /** A Tuple of the given values (at least one). */
    explicit Tuple(const std::vector<Expr> &values);
    template<typename... Rest>
    Tuple(const Expr &a, const Expr &b, const Rest &...rest) : Tuple(std::vector<Expr>{a, b, Expr(rest)...}) {}
    /** The values of a Func at a point (f(x)[i] for each i). */
    explicit Tuple(const FuncRef &ref);

    size_t size() const { return values_.size(); }
    Expr &operator[](size_t i);
    const Expr &operator[](size_t i) const;
    const std::vector<Expr> &as_vector() const { return values_; }

private:
    std::vector<Expr> values_;
};

/** Component by component: select(c, a[i], b[i]). The Tuples have the same size. */
Tuple select(const Expr &condition, const Tuple &true_value, const Tuple &false_value);
/** select(c0, v0, c1, v1, ..., default) on Tuples. */
Tuple select(const Expr &c0, const Tuple &v0, const Expr &c1, const Tuple &v1, const Tuple &otherwise);

/** The Tuple's components, each cast to the given type (one type per component). */
Tuple cast(const std::vector<Type> &types, const Tuple &t);

}  // namespace tessera
