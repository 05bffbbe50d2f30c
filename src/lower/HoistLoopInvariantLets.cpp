// Lets at the top of a loop's body whose values do not change in the loop move out of it.
//
// Scheduling puts the lets that recover a split variable (y = y.outer * 32 + y.inner, and
// the fused and tiled coordinates they derive from) innermost, inside every loop of the
// stage, so that each is in scope wherever it is used. Most of them depend on outer loops
// only. Left there, an unrolled loop repeats each of them in every copy of its body, and
// the C of a tiled, unrolled stage is mostly the same tile coordinates computed again
// (matmul's accumulator tile: 12 copies); moved to the loop that they depend on, they are
// computed once per iteration of that loop, and what remains inside is what varies.
//
// Only values that read no memory move (a loop that runs no iteration must not read what
// its body would have guarded), and only where moving keeps every name meaning what it
// meant: a moved let binds a name that nothing it moves above (the loop's bounds, the lets
// that stay) mentions.

#include <set>

#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class Hoist : public IRMutator {
protected:
    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        // What varies in the loop: its variable and the lets that stay in it.
        std::set<std::string> varying = {op->name};
        std::vector<const LetStmt *> moved, stay;
        Stmt inner = body;
        while (const LetStmt *l = as<LetStmt>(inner)) {
            bool invariant = !varying.count(l->name) && !reads_memory(l->value) && !has_side_effects(l->value) && !uses_any_var(l->value, varying) &&
                             !uses_var(op->min, l->name) && !uses_var(op->extent, l->name);
            for (const LetStmt *s : stay) invariant = invariant && !uses_var(s->value, l->name);
            for (const LetStmt *m : moved) invariant = invariant && m->name != l->name;
            (invariant ? moved : stay).push_back(l);
            if (!invariant) varying.insert(l->name);
            inner = l->body;
        }
        if (moved.empty()) {
            if (body.same_as(op->body)) return self;
            return For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
        }
        for (auto it = stay.rbegin(); it != stay.rend(); ++it) inner = LetStmt::make((*it)->name, (*it)->value, inner);
        Stmt loop = For::make(op->name, op->min, op->extent, op->for_type, inner, op->loop);
        for (auto it = moved.rbegin(); it != moved.rend(); ++it) loop = LetStmt::make((*it)->name, (*it)->value, loop);
        return loop;
    }
};

}  // namespace

Stmt hoist_loop_invariant_lets(Stmt s) { return Hoist().mutate(s); }

}  // namespace tessera::lower
