#pragma once
// A Func's definitions as a system of affine recurrence equations (the SARE of
// docs/validation.md): definition j of Func f (0 the pure one, j >= 1 update j-1) is a
// tensor f.s<j> with one index per dimension of f and one per RVar of its RDom. An
// iteration (x, r) of definition j runs when r lies in the RDom and the RDom's predicate
// holds; it writes point x (on a reduction dimension, x_i is the left-hand side's
// argument i). Iterations run in the order of docs/semantics.md §7.2: definitions in turn,
// and within one the RDom's points with r_0 innermost. Pure dimensions do not order
// iterations: two iterations of one definition with the same r write different points.
//
// The value check names every value the algorithm defines in one space
// V_f[tag, x_0 .. x_{n-1}, r_0 .. r_{k-1}, 0 ...]:
//   tag -1: the final value of f at point x (the value every other Func reads);
//   tag j:  the value iteration (x, r) of definition j computes, where a later iteration
//           overwrites it.
// The value each iteration stores, and the value each self-call of an update reads (the
// last earlier iteration that wrote the point it calls, or f's final value there), are
// affine functions of the iteration into this space, which isl computes with lexmax.

#include <map>
#include <string>
#include <vector>

#include "ir/Function.h"
#include "validate/Isl.h"

namespace tessera::validator {

class Recurrence {
public:
    /** The recurrence of `f`. Throws Unsupported if an RDom bound, a predicate or a
     * left-hand side argument is not affine (a histogram's data-dependent point). The
     * parameters it meets are added to `parameters` with their types. */
    Recurrence(isl_ctx *ctx, const ir::FunctionData &f, std::map<std::string, Type> &parameters);

    const ir::FunctionData &func() const { return f_; }
    /** The number of coordinates of a value's name (the tag, then f's dimensions, then the
     * most RVars of a definition). */
    int name_width() const { return 1 + dims_ + max_rvars_; }

    /** The tuple of definition j's iterations: f.s<j> (code statements' Statement::iteration
     * uses the same). */
    static isl_id *stage_id(isl_ctx *ctx, const ir::FunctionData &f, int stage);
    /** The tuple of f's points, as in Statement::writes. */
    static isl_id *func_id(isl_ctx *ctx, const ir::FunctionData &f);

    /** { f.s<j>[x, r] : the iteration runs }. */
    const Isl<isl_set> &iterations(int stage) const { return stages_.at(size_t(stage)).domain; }
    /** { f.s<j>[x, r] -> V_f[...] }: the name of the value each iteration computes. */
    const Isl<isl_map> &names(int stage) const { return stages_.at(size_t(stage)).names; }
    /** { f[x] -> V_f[-1, x, 0 ...] }: the name of f's final value at x. */
    Isl<isl_map> final_names() const;
    /** { f.s<j>[x, r] -> V_f[...] }: for `call`, a call of f itself in the value of update
     * definition j, the value it reads in each iteration. Throws Unsupported if the call's
     * arguments are not affine. */
    Isl<isl_map> read_by(int stage, const ir::Call &call) const;

    /** A value's name in words, at a point of V_f: "the final value of f at (1, 2)" or
     * "the value of f at (1, 2) after iteration r.x = 3 of update 0". */
    std::string describe(const std::vector<long> &name) const;

private:
    struct Stage {
        std::vector<std::string> dims;  // x_0 .. x_{n-1} (a pure Var's name, or "<f.i>"), then the RVars
        Isl<isl_set> domain;
        Isl<isl_map> key;    // { f.s<j>[x, r] -> order[j, r_{k-1}, ..., r_0, 0 ..., x] }
        Isl<isl_map> write;  // { f.s<j>[x, r] -> f[x] }
        Isl<isl_map> names;
    };
    /** A map from `from` to the space `to_tuple` with `out` dimensions: output o equal to
     * input i for each (i, o) of `equal`, to v for each (o, v) of `fixed`, 0 otherwise. */
    Isl<isl_map> layout(const Isl<isl_set> &from, const char *to_tuple, int out,
                        const std::vector<std::pair<int, int>> &equal, const std::vector<std::pair<int, long>> &fixed) const;

    isl_ctx *ctx_;
    const ir::FunctionData &f_;
    int dims_ = 0, max_rvars_ = 0;
    std::map<std::string, Type> &parameters_;
    std::vector<Stage> stages_;
    Isl<isl_map> writers_;     // { f[x] -> order[...] }: every iteration that writes x
    Isl<isl_map> key_names_;   // { order[...] -> V_f[...] }
};

}  // namespace tessera::validator
