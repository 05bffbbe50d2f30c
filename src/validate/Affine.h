#pragma once
// Integer expressions and conditions as isl piecewise affine functions and sets over named
// dimensions: the translation of lowered code (src/validate/LoopNest.cpp) and of the
// algorithm's index expressions (src/validate/Recurrence.cpp) into polyhedra.

#include <map>
#include <string>
#include <vector>

#include "ir/IR.h"
#include "validate/Isl.h"

namespace tessera::validator {

/** A fused loop v over [0, inner * outer) (a fuse of two loops: src/lower/ScheduleFunctions.cpp)
 * is modelled as the two loops it fused, v / inner and v % inner, so that its extent and
 * the divisions by `inner` are affine. */
struct FusedLoop {
    Expr inner;  // the inner loop's extent, lets expanded
    std::string outer_dim, inner_dim;
    Type type;
};

/** e with the lets of `lets` substituted by their values, recursively (a let's value may
 * use other lets), except those whose names start with `keep` (if not empty). Each let is
 * expanded once and shared by its uses; given `expansions`, across calls too (valid while
 * each name means one let, and for one `keep`), so that translations memoized by node
 * (Affine::expr) see the same nodes. */
Expr expand_lets(const Expr &e, const std::map<std::string, Expr> &lets, const std::string &keep = "",
                 std::map<std::string, Expr> *expansions = nullptr);

/** e printed for a message, cut to a readable length (an expression with its lets
 * expanded can print to many kilobytes). */
std::string brief(const Expr &e);

/** Whether e is the integer constant 0. */
bool is_zero(const Expr &e);

/** Products of two parameters (a fused loop's extent: tiles across times tiles down), which
 * are not affine: each becomes a parameter of its own, named by the product and known by
 * what the signs of its factors say of it (a product of two positive integers is at least
 * each of them, ...). The value check's solver is given the product itself. */
struct Products {
    std::map<std::string, Expr> exprs;  // parameter name -> the product, lets expanded
    /** Parameter name -> its two factors, as functions of the other parameters. */
    std::map<std::string, std::pair<Isl<isl_pw_aff>, Isl<isl_pw_aff>>> factors;
    Isl<isl_set> facts;                  // over the parameters; null if none

    /** Whether `params` (a set of parameter values where each product is a parameter)
     * holds a point where every product parameter is its factors' product: a sample, with
     * the factors' values there fixed and the products set to their products (samples
     * among small values first, then anywhere). False when those samples fail, which does
     * not mean that no such point exists. */
    bool realizable(const Isl<isl_set> &params) const;
    /** Whether `params` holds a point with the other parameters at `sample` (a point of
     * `params`, or of `params` with the products projected out) and each product its
     * factors' product there. */
    bool realized_at(const Isl<isl_set> &params, const Isl<isl_point> &sample) const;
};

/** Expressions and conditions as isl piecewise affine functions and sets over one tuple's
 * dimensions (a statement's loops, or an algorithm's iteration). Variables that are not
 * dimensions or lets are parameters (buffer fields, Params, and the lets' own free
 * variables), recorded with their types in `parameters`; given `products`, a product of
 * two parameters is one too. What is not affine (another product of two variables, a
 * division by a variable, a value read from memory, a call) throws Unsupported. */
class Affine {
public:
    Affine(isl_ctx *ctx, const std::string &tuple, const std::vector<std::string> &dims, int lane_dim,
           const std::map<std::string, Expr> &lets, std::map<std::string, Type> &parameters,
           const std::map<std::string, FusedLoop> &fused = {}, Products *products = nullptr);

    /** The tuple's space as a set of all its points. */
    Isl<isl_set> universe() const;
    Isl<isl_pw_aff> constant(int64_t v) const;
    /** Dimension i. */
    Isl<isl_pw_aff> dim(int i) const;
    /** An integer expression, exactly (integer, not wrapping, arithmetic: docs/validation.md). */
    Isl<isl_pw_aff> expr(const Expr &e);
    /** The points where a Boolean expression holds. */
    Isl<isl_set> condition(const Expr &e);
    /** Whether a and b have the same value everywhere (equal, or equal affine functions). */
    bool same_value(const Expr &a, const Expr &b);
    /** From now on, drop the pieces of piecewise expressions that lie outside `points`
     * (a set of the tuple's points, or of parameter values, that every check is restricted
     * to: a hull of the entry assertions, then the statement's domain as it is built, loop
     * by loop). Expressions are simplified there (isl's gist): equal to the exact ones on
     * `points`, their pieces may overlap outside it, where nothing looks; and the min or
     * max of two operands of which one is the smaller on all of `points` is that operand. Without
     * this, the min and max of bounds computed for windows the entry checks exclude (an
     * output narrower than its vector width), or of a loop partition's bounds for
     * iterations its loop does not run, multiply pieces no check ever looks at. Only
     * ever narrowed. */
    void restrict_to(Isl<isl_set> points);

private:
    /** The most pieces a piecewise expression may have (min, max and select multiply
     * them). */
    static constexpr int kMaxPieces = 64;

    Isl<isl_pw_aff> translate(const Expr &e);
    Isl<isl_pw_aff> min_max(const Expr &e);
    Isl<isl_pw_aff> pieces(Isl<isl_pw_aff> a, const Expr &e) const;
    template <typename F>
    Isl<isl_pw_aff> binary(const Expr &e, F op);
    template <typename F>
    Isl<isl_set> comparison(const Expr &e, F op);
    int dim_index(const std::string &name) const;

    Isl<isl_pw_aff> variable(const std::string &name, Type type);
    Isl<isl_pw_aff> product(const Expr &e, Isl<isl_pw_aff> a, Isl<isl_pw_aff> b);

    isl_ctx *ctx_;
    std::vector<std::string> dims_;
    int lane_dim_;
    const std::map<std::string, Expr> &lets_;
    std::map<std::string, Type> &parameters_;
    std::map<std::string, FusedLoop> fused_;
    Products *products_;
    Isl<isl_space> space_;
    std::map<std::string, Isl<isl_pw_aff>> memo_;                         // lets by name
    std::map<const void *, std::pair<Expr, Isl<isl_pw_aff>>> nodes_;       // expressions by node
    /** Whether a is a function of the parameters alone, with a restriction on them. */
    bool on_parameters(const Isl<isl_pw_aff> &a) const;
    Isl<isl_set> restriction_;         // over the tuple's space; null if none
    Isl<isl_set> params_restriction_;  // its part on the parameters (restrict_to's first call)
};

}  // namespace tessera::validator
