#pragma once
// Expressions of the algorithm language: the Expr handle, Var and RVar.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/Type.h"

namespace tessera {

namespace ir {
struct ExprNode;
struct RDomData;
}  // namespace ir

/** A handle to an immutable, typed expression tree (shared; copying is cheap). */
class Expr {
public:
    Expr() = default;
    explicit Expr(std::shared_ptr<const ir::ExprNode> n) : node_(std::move(n)) {}

    // Literals. A plain `int` is an int32 constant, `float` float32, `double` float64.
    Expr(int8_t v);
    Expr(int16_t v);
    Expr(int32_t v);
    Expr(int64_t v);
    Expr(uint8_t v);
    Expr(uint16_t v);
    Expr(uint32_t v);
    Expr(uint64_t v);
    Expr(float v);
    Expr(double v);
    // A C++ bool would be ambiguous with the integer literals; build bools explicitly
    // with make_bool or comparisons.

    bool defined() const { return node_ != nullptr; }
    Type type() const;
    const ir::ExprNode *get() const { return node_.get(); }
    const ir::ExprNode *operator->() const { return node_.get(); }
    const std::shared_ptr<const ir::ExprNode> &ptr() const { return node_; }

    /** Pointer identity (not structural equality; see ir::equal). */
    bool same_as(const Expr &o) const { return node_ == o.node_; }

private:
    std::shared_ptr<const ir::ExprNode> node_;
};

/** A pure variable of a Func definition. Vars are compared by name. */
class Var {
public:
    /** A Var with a fresh, readable name ("v0", "v1", ...). Name your Vars to get your
     * own names in error messages. */
    Var();
    explicit Var(const std::string &name);
    const std::string &name() const { return name_; }
    operator Expr() const;
    bool same_as(const Var &o) const { return name_ == o.name_; }

    /** The implicit Var `_n`: an argument that a call with `_` (or with fewer coordinates
     * than the callee has dimensions) stands for, as in Halide. */
    static Var implicit(int n);
    /** Whether this is the placeholder `_`. */
    bool is_placeholder() const { return name_ == "_"; }

private:
    std::string name_;
};

/** Halide's placeholder: in a call, the callee's remaining dimensions (`g(x, _)`); on the
 * left of a definition, the implicit Vars its value uses (`f(x, _) = g(x, _) + 1`). */
extern const Var _;
/** The implicit Vars that `_` stands for, to schedule them by (`f.vectorize(_0, 8)`). */
extern const Var _0, _1, _2, _3, _4, _5, _6, _7, _8, _9;

/** One dimension of a reduction domain (RDom), or the name of a reduction loop.
 *
 * An RVar taken from an RDom (r.x, r[1], a 1-D RDom itself) is a dimension of it: it has a
 * min and an extent and can appear in expressions. An RVar made from a name (or with a
 * fresh one) is not bound to an RDom: like Halide's, it names the loops that split and fuse
 * make of reduction loops, in schedules:
 *
 *     RVar ro("ro"), ri("ri");
 *     Func partial = sum.update().split(r, ro, ri, 1024).rfactor(ri, u);
 */
class RVar {
public:
    /** A free RVar with a fresh, readable name ("r0", "r1", ...). */
    RVar();
    /** A free RVar named `name`. */
    explicit RVar(const std::string &name);
    RVar(std::shared_ptr<ir::RDomData> domain, int index);
    /** The user-visible name, e.g. "r.x", the name given to the RDom dimension, or a free
     * RVar's own. */
    const std::string &name() const;
    /** The bounds of an RDom's dimension (a free RVar has none: CompileError). */
    Expr min() const;
    Expr extent() const;
    int index() const { return index_; }
    const std::shared_ptr<ir::RDomData> &domain() const { return domain_; }
    /** Whether this RVar is a dimension of an RDom (else it only names a loop). */
    bool is_bound() const { return domain_ != nullptr; }
    /** The dimension itself, in an expression (a free RVar cannot be: CompileError). */
    operator Expr() const;

private:
    std::shared_ptr<ir::RDomData> domain_;
    int index_ = 0;
    std::string name_;  // a free RVar's name
};

}  // namespace tessera
