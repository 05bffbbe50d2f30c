// Storage flattening: multi-dimensional realizations and accesses become flat memory.
// A Realize becomes an Allocate (dense, dimension 0 innermost) with its descriptor
// variables; Provides and Func reads become Stores and Loads at Int(64) element offsets;
// image reads and output writes use the buffer descriptors of the pipeline's arguments.

#include "ir/IRMutator.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

Expr i64(const Expr &e) { return e.type() == Int(64) ? e : Cast::make(Int(64), e); }

Expr flat_index(const std::string &buffer, const std::vector<Expr> &args) {
    Expr index;
    for (size_t i = 0; i < args.size(); i++) {
        Expr term = Mul::make(Sub::make(i64(args[i]), i64(buffer_min(buffer, int(i)))), buffer_stride(buffer, int(i)));
        index = index.defined() ? Add::make(index, term) : term;
    }
    return index.defined() ? index : IntImm::make(Int(64), 0);
}

class Flatten : public IRMutator {
protected:
    Stmt visit(const Realize *op, const Stmt &self) override {
        (void)self;
        Stmt body = mutate(op->body);
        std::vector<Expr> extents;
        for (const ir::Range &r : op->bounds) extents.push_back(Max::make(i64(r.extent), IntImm::make(Int(64), 0)));
        body = Allocate::make(op->name, op->type, extents, body);
        // Descriptor variables, dimension 0 innermost and dense.
        Expr stride = IntImm::make(Int(64), 1);
        std::vector<std::pair<std::string, Expr>> lets;
        for (size_t i = 0; i < op->bounds.size(); i++) {
            std::string d = std::to_string(i);
            lets.emplace_back(op->name + ".min." + d, op->bounds[i].min);
            lets.emplace_back(op->name + ".extent." + d, op->bounds[i].extent);
            lets.emplace_back(op->name + ".stride." + d, stride);
            stride = Mul::make(buffer_stride(op->name, int(i)), extents[i]);
        }
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = LetStmt::make(it->first, it->second, body);
        return body;
    }

    Stmt visit(const Provide *op, const Stmt &self) override {
        (void)self;
        Expr value = mutate(op->value);
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        return Store::make(op->name, value, flat_index(op->name, args), mutate_provenance(op->provenance));
    }

    Expr visit(const Call *op, const Expr &self) override {
        if (op->call_kind == CallKind::Intrinsic) return IRMutator::visit(op, self);
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        return Load::make(op->type, op->name, flat_index(op->name, args));
    }

    Stmt visit(const ProducerConsumer *op, const Stmt &self) override {
        (void)self;
        return mutate(op->body);
    }
};

}  // namespace

Stmt storage_flattening(const PipelinePlan &plan, Stmt s) {
    (void)plan;
    Flatten f;
    return f.mutate(s);
}

}  // namespace tessera::lower
