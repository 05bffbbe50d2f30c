#pragma once
// Deep structural equality, hashing and a total order on IR trees.
//
// Two trees are equal when they have the same shape and every node agrees on its kind,
// its type and all of its fields:
//   - constants by value; floating-point constants bitwise (NaN equals the same NaN,
//     -0.0 differs from +0.0);
//   - variables by name, type and VarKind, and by the Param or RDom they refer to (the
//     same object, compared by pointer) and the RDom dimension;
//   - calls by kind, name and callee: the same intrinsic, or the same Func, Buffer or
//     ImageParam object (compared by pointer);
//   - statements including the provenance annotations of stores and provides (an absent
//     annotation equals only an absent one).
// Undefined Exprs (and Stmts) are equal to each other and less than any defined one.
//
// `compare` is a total order consistent with `equal`: lexicographic over the pre-order
// sequence of nodes. It orders pointer-valued fields (callees, Params, RDoms) by address,
// so the order between trees that differ only there is not the same from run to run.
//
// All three walk the trees iteratively (deep trees cannot overflow the stack), skip
// subtrees shared by both sides, and remember shared subtrees already seen, so a DAG with
// much sharing costs time proportional to its number of distinct nodes, not its unfolded
// size. `hash` is consistent with `equal`: equal trees have equal hashes.

#include <cstddef>
#include <unordered_map>

#include "ir/IR.h"

namespace tessera::ir {

bool equal(const Expr &a, const Expr &b);
bool equal(const Stmt &a, const Stmt &b);
bool equal(const Provenance &a, const Provenance &b);

/** Negative, zero or positive as a is before, equal to or after b. */
int compare(const Expr &a, const Expr &b);
int compare(const Stmt &a, const Stmt &b);

size_t hash(const Expr &e);
size_t hash(const Stmt &s);

/** hash() for many expressions that share subtrees: every node hashed is remembered (by
 * address) while the cache lives, so hashing each node of a tree once costs the size of
 * the tree, not its size times its depth. A node freed and another allocated at its
 * address gets the old hash: only a lookup miss, since equality is checked structurally;
 * keys kept alive in a container never change their hash. */
class HashCache {
public:
    size_t operator()(const Expr &e);

private:
    std::unordered_map<const void *, uint64_t> memo_;
};
/** Hash functor over a HashCache for unordered containers. */
struct CachedExprHash {
    HashCache *cache = nullptr;
    size_t operator()(const Expr &e) const { return (*cache)(e); }
};

/** Comparator for ordered containers keyed by structure: std::map<Expr, T, ExprLess>. */
struct ExprLess {
    bool operator()(const Expr &a, const Expr &b) const { return compare(a, b) < 0; }
};

/** Hash and equality for unordered containers keyed by structure:
 * std::unordered_map<Expr, T, ExprHash, ExprEqual>. */
struct ExprHash {
    size_t operator()(const Expr &e) const { return hash(e); }
};
struct ExprEqual {
    bool operator()(const Expr &a, const Expr &b) const { return equal(a, b); }
};

struct StmtLess {
    bool operator()(const Stmt &a, const Stmt &b) const { return compare(a, b) < 0; }
};
struct StmtHash {
    size_t operator()(const Stmt &s) const { return hash(s); }
};
struct StmtEqual {
    bool operator()(const Stmt &a, const Stmt &b) const { return equal(a, b); }
};

}  // namespace tessera::ir
