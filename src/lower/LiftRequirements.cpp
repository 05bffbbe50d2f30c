// Requirements: each require(condition, value, message...) in a statement's expressions
// becomes its value there, and an AssertStmt of its condition before the statement, with
// the message "requirement failed: " and the parts. C cannot leave a pipeline from inside
// an expression; an assertion is how every other run-time error stops it, with the same
// error code and message path. The statement evaluates all of its operands (select and
// && included, docs/semantics.md §6), so checking the condition first fails exactly where
// the reference interpreter does. An expression let around the require is kept around
// the lifted condition and message values.

#include "ir/IRMutator.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class LiftRequirements : public IRMutator {
public:
    using IRMutator::mutate;

    Stmt mutate(const Stmt &s) override {
        if (!s.defined()) return s;
        std::vector<Stmt> outer = std::move(lifted_);
        lifted_.clear();
        Stmt r = IRMutator::mutate(s);
        // Lifted from this statement's own expressions (its children placed theirs).
        for (auto it = lifted_.rbegin(); it != lifted_.rend(); ++it) r = Block::make(*it, r);
        lifted_ = std::move(outer);
        return r;
    }

protected:
    Expr visit(const Let *op, const Expr &self) override {
        Expr value = mutate(op->value);
        lets_.emplace_back(op->name, value);
        Expr body = mutate(op->body);
        lets_.pop_back();
        if (value.same_as(op->value) && body.same_as(op->body)) return self;
        return Let::make(op->name, value, body);
    }

    Expr visit(const Call *op, const Expr &self) override {
        Expr e = IRMutator::visit(op, self);
        const Call *c = as<Call>(e);
        if (!c || c->call_kind != CallKind::Intrinsic || c->op != Intrinsic::Require) return e;
        auto within_lets = [&](Expr x) {
            for (auto it = lets_.rbegin(); it != lets_.rend(); ++it)
                if (uses_var(x, it->first)) x = Let::make(it->first, it->second, x);
            return x;
        };
        std::vector<Expr> message = {text("requirement failed:")};
        for (size_t k = 2; k < c->args.size(); k++) {
            message.push_back(text(" "));
            message.push_back(as<StringImm>(c->args[k]) ? c->args[k] : within_lets(c->args[k]));
        }
        lifted_.push_back(AssertStmt::make(within_lets(c->args[0]), std::move(message)));
        return c->args[1];
    }

private:
    std::vector<Stmt> lifted_;
    std::vector<std::pair<std::string, Expr>> lets_;
};

}  // namespace

Stmt lift_requirements(Stmt s) { return LiftRequirements().mutate(s); }

}  // namespace tessera::lower
