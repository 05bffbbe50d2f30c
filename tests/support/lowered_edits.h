#pragma once
// Deliberate mistakes made in lowered code, for the validator's tests: each rewrites the
// statement the way a buggy pass would, keeping every store's provenance (what the code
// claims to compute), so that the validator must find the claim false.

#include <functional>
#include <string>

#include "ir/IRMutator.h"
#include "ir/Substitute.h"

namespace tessera::test {

/** Replaces every store by what `edit` makes of it. */
struct EditStores : ir::IRMutator {
    std::function<ir::Stmt(const ir::Store *)> edit;
    int edited = 0;
    ir::Stmt visit(const ir::Store *op, const ir::Stmt &) override {
        edited++;
        return edit(op);
    }
};

/** Runs backwards the loops `which` selects: the loop variable v takes the values
 * min + (min + extent - 1) - v, the same range in the opposite order. */
struct ReverseLoops : ir::IRMutator {
    std::function<bool(const ir::For *)> which;
    int reversed = 0;
    ir::Stmt visit(const ir::For *op, const ir::Stmt &self) override {
        if (!which(op)) return ir::IRMutator::visit(op, self);
        reversed++;
        const Type t = op->min.type();
        const std::string name = op->name + ".backwards";
        const Expr last = ir::Sub::make(ir::Add::make(op->min, op->extent), make_const(t, int64_t(1)));
        const Expr flipped = ir::Sub::make(ir::Add::make(op->min, last), ir::Variable::make(t, op->name));
        return ir::For::make(op->name, op->min, op->extent, op->for_type,
                             ir::LetStmt::make(name, flipped, ir::substitute(op->name, ir::Variable::make(t, name), mutate(op->body))),
                             op->loop);
    }
};

/** The loops of the RVars of definition `stage` (an update's reduction loops). */
inline std::function<bool(const ir::For *)> reduction_loops_of(int stage, const std::string &var = "") {
    return [stage, var](const ir::For *f) {
        return f->loop && f->loop->stage == stage && !f->loop->pure && (var.empty() || f->loop->var == var);
    };
}

}  // namespace tessera::test
