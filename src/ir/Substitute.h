#pragma once
// Replacing variables by expressions (simultaneously, by name).

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/IR.h"
#include "ir/IRVisitor.h"

namespace tessera::ir {

/** Replace every free occurrence of the named variables. Substitution is simultaneous:
 * replacement expressions are not themselves substituted. Provenance annotations are
 * rewritten the same way. */
Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e);
Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s);
Expr substitute(const std::string &name, const Expr &replacement, const Expr &e);
Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s);

/** e with the lets that enclose it substituted, innermost first (`lets` in the order they
 * were bound, outermost first), only those it uses. Undefined when the result would grow
 * past `max_nodes` nodes as a tree: bounds in a chain of stages each use the stage
 * before's twice (a stencil's lowest and highest tap), so writing them all in doubles the
 * expression at each stage, and callers must do without (keep a guard, leave a loop as it
 * is) rather than build it. */
Expr substitute_lets(const std::vector<std::pair<std::string, Expr>> &lets, Expr e, int max_nodes = 4096);

/** Does the expression/statement mention the variable? */
bool uses_var(const Expr &e, const std::string &name);
bool uses_var(const Stmt &s, const std::string &name);
/** Does the expression mention any of the variables? */
bool uses_any_var(const Expr &e, const std::set<std::string> &names);

/** Does the expression read memory (contain a Load)? */
bool reads_memory(const Expr &e);
/** Does the expression load from `buffer` (any buffer if empty)? */
bool reads_buffer(const Expr &e, const std::string &buffer);
/** Does the statement load from, store to or free `buffer`? */
bool accesses_buffer(const Stmt &s, const std::string &buffer);

/** Collects the buffers code loads from (reads), stores to (writes) and frees; passes
 * that need more (effects, say) extend it. */
class BufferAccesses : public IRVisitor {
public:
    std::set<std::string> reads, writes, frees;
    using IRVisitor::include;

protected:
    void visit(const Load *op) override;
    void visit(const Store *op) override;
    void visit(const Free *op) override;
};
/** Whether evaluating e has an effect (a print, or a require, which may stop the
 * pipeline): it must be evaluated where and as often as written. */
bool has_side_effects(const Expr &e);
/** The names of the variables an expression uses. */
std::set<std::string> variables_in(const Expr &e);

/** The loads and stores in s: a measure of the size of a loop's body. */
int memory_accesses(const Stmt &s);

/** Whether e, as a tree (a shared subexpression counted at each use), has fewer than
 * `limit` nodes. Costs at most `limit` steps: a guard before a walk of the whole tree,
 * which is exponentially larger than the expression's memory where chains of lets were
 * substituted. */
bool tree_size_below(const Expr &e, int limit);

}  // namespace tessera::ir
