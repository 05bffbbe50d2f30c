// Calls of the C library's math functions (exp, sin, pow, ...) on constant arguments are
// computed once, at the top of the pipeline, into a let. They are not folded at compile
// time (the library's results are the meaning, and another machine's library may round
// them differently, analysis/Simplify.cpp), so without this a kernel weight such as
// exp(-1.0f / 4.5f) inlined into a stencil is a call in every iteration of the function
// that computes it (the C compiler may hoist it out of a loop, not out of a function).

#include <map>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

bool is_constant(const Expr &e) {
    struct Find : IRVisitor {
        bool variable = false;
        using IRVisitor::include;
        void visit(const Variable *) override { variable = true; }
        void visit(const Load *) override { variable = true; }
        void visit(const Call *op) override {
            variable = variable || op->call_kind != CallKind::Intrinsic;
            IRVisitor::visit(op);
        }
        void visit(const Let *) override { variable = true; }
    } f;
    f.include(e);
    return !f.variable;
}

class Hoist : public IRMutator {
public:
    std::vector<std::pair<std::string, Expr>> lets;

protected:
    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        // After simplification, a float intrinsic on constants is one the simplifier does not
        // fold: a math-library function.
        if (!c || c->call_kind != CallKind::Intrinsic || !c->type.is_float() || !c->type.is_scalar() || has_side_effects(e))
            return e;
        for (const Expr &a : c->args)
            if (!is_constant(a)) return e;
        for (const auto &[name, value] : lets)
            if (equal(value, e)) return Variable::make(e.type(), name);
        const std::string name = "tessera.constant." + std::to_string(lets.size());
        lets.emplace_back(name, e);
        return Variable::make(e.type(), name);
    }
};

}  // namespace

Stmt hoist_constant_calls(Stmt s) {
    Hoist h;
    Stmt body = h.mutate(s);
    for (auto it = h.lets.rbegin(); it != h.lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
    return body;
}

}  // namespace tessera::lower
