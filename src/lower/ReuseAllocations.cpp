// Storage reuse: an allocation whose scope begins after the last access of an enclosing
// allocation takes that allocation's memory instead of its own, when the two hold the same
// type and the enclosing one is at least as large (both constant). It is the reuse of
// Perceus (the memory of a value whose last use has passed serves the next allocation of
// the same size), decided statically: lowering nests the allocations of the Funcs computed
// at one level (each Func's buffer lives from its production to the end of the enclosing
// scope), so a chain of stages f -> g -> h holds three buffers although f is dead once g is
// computed; here h takes f's. Pipelines of lets in ATL (docs/atl.md, "Buffer reuse") are the
// typical case.
//
// The reuse is decided along straight-line code only (blocks, lets, markers and nested
// allocations, never inside a loop or a branch, where an earlier access would run again
// after the later allocation begins). The reused buffer's contents are whatever the dead
// value left, as a fresh allocation's are undefined. Stores keep their provenance: the
// stores of the later Func now name the earlier buffer, which is only memory.
//
// The later allocation may also take the memory *in place*, while the earlier value is
// still being read, where that value's last reads are in the later Func's own stores, each
// at the cell it stores (`y[i] = f(x[i])`, a map over a tensor whose argument dies): the
// store then overwrites the cell it has just read, which nothing reads again. That needs
// every point of the later Func stored once, in its own cell: a Func computed at its own
// level (no storage folding, no split whose tail computes points twice) with one
// definition (docs/atl.md, "Buffer reuse").

#include <climits>
#include <optional>

#include "analysis/ConstMath.h"
#include "analysis/Simplify.h"
#include "ir/Function.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** The number of elements of an allocation, if constant. */
std::optional<int64_t> constant_size(const Allocate *a) {
    analysis::detail::i128 n = 1;
    for (const Expr &e : a->extents) {
        analysis::detail::i128 v = 0;
        if (!analysis::detail::const_int(analysis::simplify(e), v) || v < 0) return std::nullopt;
        n *= v;
        if (n > INT64_MAX) return std::nullopt;
    }
    return int64_t(n);
}

/** Whether the only accesses of buffer `x` in `s` (the scope of allocation `y`) are loads
 * in the values of stores to `y` at the store's own index, and every store to `y` there
 * computes each point of its Func once, into a cell of its own (see the top of this file):
 * then `y` may overwrite `x` in place. */
bool reads_in_place(const Stmt &s, const std::string &x, const std::string &y) {
    struct Check : IRVisitor {
        const std::string *x = nullptr, *y = nullptr;
        const Expr *index = nullptr;  // of the store to y being visited
        bool ok = true, stored = false;
        using IRVisitor::include;
        void visit(const Load *op) override {
            if (op->buffer == *x && !(index && equal(op->index, *index))) ok = false;
            IRVisitor::visit(op);
        }
        void visit(const Store *op) override {
            if (op->buffer == *x) ok = false;
            if (op->buffer != *y) return IRVisitor::visit(op);
            stored = true;
            const Provenance *p = op->provenance.get();
            const FunctionData *f = p ? p->func.get() : nullptr;
            if (!f || p->kind != Provenance::Kind::Iteration || p->stage != 0 || f->definitions.size() != 1 ||
                !f->definitions[0].schedule->splits.empty() || !f->definitions[0].schedule->specializations.empty() ||
                f->schedule.store_level.defined() || !f->schedule.folds.empty())
                ok = false;
            include(op->index);
            index = &op->index;
            include(op->value);
            index = nullptr;
            if (op->provenance)
                for (const Expr &c : op->provenance->coords) include(c);
        }
    } c;
    c.x = &x;
    c.y = &y;
    c.include(s);
    return c.ok && c.stored;
}

class Rename : public IRMutator {
public:
    Rename(std::string from, std::string to) : from_(std::move(from)), to_(std::move(to)) {}

protected:
    Expr visit(const Load *op, const Expr &self) override {
        Expr index = mutate(op->index);
        if (op->buffer != from_ && index.same_as(op->index)) return self;
        return Load::make(op->type, op->buffer == from_ ? to_ : op->buffer, index);
    }
    Stmt visit(const Store *op, const Stmt &self) override {
        // The annotation's coordinates may read the buffer too (a computed left-hand side).
        Expr value = mutate(op->value), index = mutate(op->index);
        auto provenance = mutate_provenance(op->provenance);
        if (op->buffer != from_ && value.same_as(op->value) && index.same_as(op->index) && provenance == op->provenance)
            return self;
        return Store::make(op->buffer == from_ ? to_ : op->buffer, value, index, provenance);
    }

private:
    std::string from_, to_;
};

class Reuse : public IRMutator {
public:
    explicit Reuse(std::vector<std::pair<std::string, std::string>> &reused) : reused_(reused) {}

protected:
    Stmt visit(const Allocate *op, const Stmt &self) override {
        const std::optional<int64_t> size = constant_size(op);
        Stmt body = size ? take_dead(op, *size, op->body, false) : op->body;
        body = mutate(body);
        if (body.same_as(op->body)) return self;
        return Allocate::make(op->name, op->type, op->extents, body);
    }

private:
    /** s, a part of x's scope, with each allocation along its straight-line code that
     * begins after x's last access (and none follows in `accessed_after`) placed in x's
     * memory. */
    Stmt take_dead(const Allocate *x, int64_t size, const Stmt &s, bool accessed_after) {
        if (const Block *b = s->as<Block>()) {
            Stmt rest = take_dead(x, size, b->rest, accessed_after);
            Stmt first = take_dead(x, size, b->first, accessed_after || accesses_buffer(b->rest, x->name));
            if (first.same_as(b->first) && rest.same_as(b->rest)) return s;
            return Block::make(first, rest);
        }
        if (const LetStmt *l = s->as<LetStmt>()) {
            Stmt body = take_dead(x, size, l->body, accessed_after);
            return body.same_as(l->body) ? s : LetStmt::make(l->name, l->value, body);
        }
        if (const ProducerConsumer *p = s->as<ProducerConsumer>()) {
            Stmt body = take_dead(x, size, p->body, accessed_after);
            return body.same_as(p->body) ? s : ProducerConsumer::make(p->name, p->is_producer, body);
        }
        if (const Allocate *y = s->as<Allocate>()) {
            const std::optional<int64_t> y_size = constant_size(y);
            if (!accessed_after && y->type == x->type && y_size && *y_size <= size &&
                (!accesses_buffer(y->body, x->name) || reads_in_place(y->body, x->name, y->name))) {
                reused_.emplace_back(y->name, x->name);
                // x's memory now holds y's value: later allocations may take it in turn.
                return take_dead(x, size, Rename(y->name, x->name).mutate(y->body), accessed_after);
            }
            Stmt body = take_dead(x, size, y->body, accessed_after);
            return body.same_as(y->body) ? s : Allocate::make(y->name, y->type, y->extents, body);
        }
        return s;  // a loop, a branch or a statement: no allocation begins here in straight-line code
    }

    std::vector<std::pair<std::string, std::string>> &reused_;
};

}  // namespace

Stmt reuse_allocations(Stmt s, std::vector<std::pair<std::string, std::string>> &reused) {
    return Reuse(reused).mutate(s);
}

}  // namespace tessera::lower
