// Let scopes to the end of their block. In C a declaration is visible to the end of its
// block; in the IR a LetStmt is visible in its body only, so in
//
//     { let x = v in A }; B                   the C is     const x = v; A; B
//
// x is not in scope in B although C would allow it. After alpha renaming (every name is
// bound once, so B does not mention x) this pass rewrites such blocks as
//
//     let x = v in { A; B }
//
// which evaluates the same things in the same order and prints as the same C. Then every
// statement of a block and all the statements after it are one IR node (a block's chain:
// lets, and Blocks whose first statement is neither a let nor a Block), which is where a
// value computed by one statement and reused by the later ones can be bound
// (src/lower/CommonSubexpressions.cpp). Loops, branches and allocations start chains of
// their own: a let inside them stays inside.

#include <vector>

#include "ir/IRMutator.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class ExtendLetScopes : public IRMutator {
protected:
    Stmt visit(const Block *op, const Stmt &) override { return chain(op); }
    Stmt visit(const LetStmt *op, const Stmt &) override { return chain(op); }

private:
    /** One block's statements in order: lets and the other statements, flattened. */
    struct Item {
        const LetStmt *let = nullptr;
        Stmt stmt;  // the statement (with its own chains rebuilt) when not a let
    };

    void flatten(const Stmt &s, std::vector<Item> &items) {
        if (const Block *b = as<Block>(s)) {
            flatten(b->first, items);
            flatten(b->rest, items);
        } else if (const LetStmt *l = as<LetStmt>(s)) {
            items.push_back(Item{l, Stmt()});
            flatten(l->body, items);
        } else {
            items.push_back(Item{nullptr, mutate(s)});
        }
    }

    template<typename T>
    Stmt chain(const T *op) {
        std::vector<Item> items;
        flatten(Stmt(std::shared_ptr<const StmtNode>(std::shared_ptr<const StmtNode>(), op)), items);
        Stmt s;
        for (auto it = items.rbegin(); it != items.rend(); ++it) {
            if (it->let) s = LetStmt::make(it->let->name, it->let->value, s.defined() ? s : Evaluate::make(i0()));
            else s = Block::make(it->stmt, s);
        }
        return s;
    }

    static Expr i0() { return IntImm::make(Int(32), 0); }
};

}  // namespace

Stmt extend_let_scopes(Stmt s) { return ExtendLetScopes().mutate(s); }

}  // namespace tessera::lower
