// Unrolling: a loop marked Unrolled becomes one copy of its body per iteration, with the
// loop variable replaced by its value. The extent must be a constant once bounds are
// known (split by a constant factor first: unroll(x, 4)).

#include "analysis/Simplify.h"
#include "ir/IRMutator.h"
#include "ir/IRPrinter.h"
#include "ir/Substitute.h"
#include "lower/Mutation.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class Unroll : public IRMutator {
protected:
    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = mutate(op->body);
        if (op->for_type != ForType::Unrolled) {
            if (body.same_as(op->body)) return self;
            return For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
        }
        const Expr extent = analysis::simplify(op->extent);
        const IntImm *n = as<IntImm>(extent);
        if (!n)
            throw CompileError("Can't unroll " + describe_loop(op) + ": its extent is " + to_string(extent) +
                               ", which is not a constant. Unroll a loop of constant extent, e.g. split it by a "
                               "constant factor first with unroll(var, factor)");
        if (n->value > 1024)
            throw CompileError("Can't unroll " + describe_loop(op) + ": its extent " + std::to_string(n->value) +
                               " would make more than 1024 copies of its body; unroll a smaller loop");
        std::vector<Stmt> copies;
        const int64_t count = testing::injects(testing::Mutation::UnrollDropsLastCopy) ? n->value - 1 : n->value;
        for (int64_t i = 0; i < count; i++)
            copies.push_back(substitute(op->name, analysis::simplify(Add::make(op->min, IntImm::make(op->min.type(), i))),
                                        body));
        return copies.empty() ? analysis::make_no_op() : Block::make(copies);
    }
};

}  // namespace

Stmt unroll_loops(Stmt s) {
    Unroll u;
    return u.mutate(s);
}

}  // namespace tessera::lower
