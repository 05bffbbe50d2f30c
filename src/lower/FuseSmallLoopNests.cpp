// Small loop nests that read the same memory run as one: two loop nests of one block, each
// of a few iterations over constant extents (an inline reduction over a small RDom: a 3x3
// window sum), with the same loops, that read a buffer in common and are independent of
// each other and of the statements between them, become one nest whose body runs the first
// nest's body and then the second's. The values both read are then read once per
// iteration (src/lower/CommonSubexpressions.cpp shares them), where two nests read them
// twice: harris's three window sums over the gradients ix and iy read each gradient twice.
//
// Legal because the nests are independent: neither writes a buffer the other reads or
// writes, and the statements that move past a nest (when the first moves down to the
// second) touch nothing it touches either. Nothing with an effect outside memory moves (an
// assertion, a print, a call that is a statement). Loops the user scheduled with run-time
// extents stay as they are: only nests whose loops all have constant extents and that run
// at most kSmallNestIterations bodies in all are fused (a compute_with of one's own is the
// user's way to fuse larger loops, src/lower/FuseComputeWith.cpp).
//
// Inline reductions are allocated one inside the other, each around the next's code:
//
//   allocate sum_0 { sum_0 = 0; for r { sum_0 += f(ix) }; allocate sum_1 { sum_1 = 0; ... } }
//
// so the statements of a block are read through its last statement's small constant-size
// allocations (whose names the statements before do not use): the allocations then enclose
// the whole block. A block is rewritten only when two of its nests fuse.

#include <algorithm>
#include <set>

#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Substitute.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** The most bodies a fused nest runs in all. */
constexpr int64_t kSmallNestIterations = 64;

/** The most bytes of an allocation read through (a few vectors of accumulators). */
constexpr int64_t kSmallAllocationBytes = 1024;

/** The buffers a statement reads and writes, and whether it does anything else (an
 * assertion, a print, an Evaluate, a Free), which keeps it in place. */
struct Accesses : BufferAccesses {
    bool effects = false;

    bool independent_of(const Accesses &o) const {
        if (effects || o.effects || !frees.empty() || !o.frees.empty()) return false;
        for (const std::string &b : writes)
            if (o.reads.count(b) || o.writes.count(b)) return false;
        for (const std::string &b : o.writes)
            if (reads.count(b)) return false;
        return true;
    }
    /** Reads a buffer that `o` reads too, and that neither writes. */
    bool shares_a_read_with(const Accesses &o) const {
        for (const std::string &b : reads)
            if (o.reads.count(b) && !writes.count(b) && !o.writes.count(b)) return true;
        return false;
    }

protected:
    using BufferAccesses::visit;
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Intrinsic && has_effect(op->op)) effects = true;
        IRVisitor::visit(op);
    }
    void visit(const AssertStmt *) override { effects = true; }
    void visit(const Evaluate *) override { effects = true; }
};

Accesses accesses_of(const Stmt &s) {
    Accesses a;
    a.include(s);
    return a;
}

/** The bodies a loop nest runs in all, if every loop in it is serial with a constant
 * extent and there are at most kSmallNestIterations; else -1. */
int64_t small_nest_iterations(const Stmt &s) {
    if (const For *f = as<For>(s)) {
        const auto *extent = as<IntImm>(f->extent);
        if (f->for_type != ForType::Serial || !extent || extent->value < 0) return -1;
        const int64_t body = small_nest_iterations(f->body);
        if (body < 0 || (extent->value > 0 && body > kSmallNestIterations / extent->value)) return -1;
        return extent->value * body;
    }
    if (const Block *b = as<Block>(s)) {
        const int64_t first = small_nest_iterations(b->first), rest = small_nest_iterations(b->rest);
        if (first < 0 || rest < 0 || first + rest > kSmallNestIterations) return -1;
        return first + rest;
    }
    if (const Allocate *a = as<Allocate>(s)) return small_nest_iterations(a->body);
    if (const LetStmt *l = as<LetStmt>(s)) return small_nest_iterations(l->body);
    if (const IfThenElse *c = as<IfThenElse>(s)) {
        const int64_t t = small_nest_iterations(c->then_case);
        const int64_t e = c->else_case.defined() ? small_nest_iterations(c->else_case) : 0;
        return t < 0 || e < 0 ? -1 : std::max(t, e);
    }
    if (const ProducerConsumer *pc = as<ProducerConsumer>(s)) return small_nest_iterations(pc->body);
    return 1;
}

/** One statement of a block being fused, with what it accesses. */
struct Item {
    Stmt stmt;
    Accesses accesses;
};

void append_flattened(const Stmt &s, std::vector<Stmt> &out) {
    if (const Block *b = as<Block>(s)) {
        append_flattened(b->first, out);
        append_flattened(b->rest, out);
    } else if (s.defined()) {
        out.push_back(s);
    }
}

class FuseSmallLoopNests : public IRMutator {
protected:
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        // Lets of the loops' bounds, for same_loops: each Func's nest has its own lets,
        // often of equal values (sum_0.s1.y.max and sum_1.s1.y.max). A value that reads
        // memory stands for itself.
        const bool pure = !reads_memory(op->value) && !has_side_effects(op->value);
        Stmt body = in_scope(op->name, op->value.type(), pure ? op->value : Expr(), [&] { return mutate(op->body); });
        return body.same_as(op->body) ? self : LetStmt::make(op->name, op->value, body);
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Stmt body = in_scope(op->name, op->min.type(), Expr(), [&] { return mutate(op->body); });
        return body.same_as(op->body) ? self
                                      : For::make(op->name, op->min, op->extent, op->for_type, body, op->loop);
    }

    Stmt visit(const Block *, const Stmt &self) override {
        std::vector<Stmt> stmts;
        append_flattened(self, stmts);
        bool changed = false;
        for (Stmt &s : stmts) {
            Stmt m = mutate(s);
            changed = changed || !m.same_as(s);
            s = std::move(m);
        }
        if (Stmt fused = fuse_block(stmts); fused.defined()) return fused;
        return changed ? Block::make(stmts) : self;
    }

private:
    /** The block with its nests fused, or undefined if none fuse. */
    Stmt fuse_block(std::vector<Stmt> stmts) {
        // Read through the trailing small allocations.
        std::vector<const Allocate *> allocations;
        while (!stmts.empty()) {
            const Allocate *a = as<Allocate>(stmts.back());
            if (!a || !small_allocation(a)) break;
            const Stmt last = stmts.back();
            stmts.pop_back();
            bool used = false;
            for (const Stmt &s : stmts) {
                const NamesIn names = names_in(s);
                used = used || names.buffers.count(a->name) || names.vars.count(a->name);
            }
            if (used) {
                stmts.push_back(last);
                break;
            }
            allocations.push_back(a);
            append_flattened(a->body, stmts);
        }
        std::vector<Item> items;
        for (Stmt &s : stmts) items.push_back({s, accesses_of(s)});
        bool fused_any = false;
        for (bool again = true; again;) {
            again = false;
            for (size_t i = 0; i < items.size() && !again; i++)
                for (size_t j = i + 1; j < items.size() && !again; j++)
                    again = try_fuse(items, i, j);
            fused_any = fused_any || again;
        }
        if (!fused_any) return Stmt();
        std::vector<Stmt> out;
        for (const Item &it : items) out.push_back(it.stmt);
        Stmt body = Block::make(out);
        for (size_t k = allocations.size(); k-- > 0;)
            body = Allocate::make(allocations[k]->name, allocations[k]->type, allocations[k]->extents, body);
        return body;
    }

    /** The loops run over the same range: their bounds are equal once the lets of their
     * values are written in. */
    bool same_loops(const For *a, const For *b) const {
        if (a->for_type != b->for_type) return false;
        if (equal(a->min, b->min) && equal(a->extent, b->extent)) return true;
        const Expr amin = substitute_lets(lets_, a->min), bmin = substitute_lets(lets_, b->min);
        const Expr aext = substitute_lets(lets_, a->extent), bext = substitute_lets(lets_, b->extent);
        return amin.defined() && bmin.defined() && aext.defined() && bext.defined() && equal(amin, bmin) &&
               equal(aext, bext);
    }

    static bool small_allocation(const Allocate *a) {
        int64_t elements = 1;
        for (const Expr &e : a->extents) {
            const auto *c = as<IntImm>(e);
            if (!c || c->value < 0) return false;
            elements *= c->value;
            if (elements * a->type.bytes() > kSmallAllocationBytes) return false;
        }
        return true;
    }

    /** Fuses items[j] into items[i] if they are small nests of the same loops that share a
     * read and are independent, and either items[i] can move down past the items between
     * or items[j] up; the fused nest takes the place of the one that did not move. */
    bool try_fuse(std::vector<Item> &items, size_t i, size_t j) {
        const For *a = as<For>(items[i].stmt), *b = as<For>(items[j].stmt);
        if (!a || !b || !same_loops(a, b) || uses_var(b->body, a->name)) return false;
        if (!items[i].accesses.shares_a_read_with(items[j].accesses)) return false;
        if (!items[i].accesses.independent_of(items[j].accesses)) return false;
        const int64_t na = small_nest_iterations(items[i].stmt), nb = small_nest_iterations(items[j].stmt);
        if (na < 0 || nb < 0 || na + nb > kSmallNestIterations) return false;
        bool down = true, up = true;
        for (size_t k = i + 1; k < j; k++) {
            down = down && items[i].accesses.independent_of(items[k].accesses);
            up = up && items[j].accesses.independent_of(items[k].accesses);
        }
        if (!down && !up) return false;
        Item fused{fuse_loops(a, b), items[i].accesses};
        fused.accesses.reads.insert(items[j].accesses.reads.begin(), items[j].accesses.reads.end());
        fused.accesses.writes.insert(items[j].accesses.writes.begin(), items[j].accesses.writes.end());
        const size_t at = down ? j : i, gone = down ? i : j;
        items[at] = std::move(fused);
        items.erase(items.begin() + long(gone));
        return true;
    }

    /** One loop running a's body then b's (b's variable renamed to a's), with the loops
     * inside fused in turn. */
    Stmt fuse_loops(const For *a, const For *b) {
        const Stmt b_body = substitute(b->name, Variable::make(a->min.type(), a->name), b->body);
        std::vector<Stmt> stmts;
        append_flattened(a->body, stmts);
        append_flattened(b_body, stmts);
        Stmt body = fuse_block(stmts);
        if (!body.defined()) body = Block::make(stmts);
        return For::make(a->name, a->min, a->extent, a->for_type, body, a->loop);
    }

    /** f() with `name` (of type t) bound to `value` (undefined: to a value of its own,
     * which only the same binding equals). */
    template<typename F>
    Stmt in_scope(const std::string &name, Type t, const Expr &value, F &&f) {
        lets_.emplace_back(name, value.defined() ? value : Variable::make(t, name + "#bound"));
        Stmt result = f();
        lets_.pop_back();
        return result;
    }

    std::vector<std::pair<std::string, Expr>> lets_;
};

}  // namespace

Stmt fuse_small_loop_nests(Stmt s) { return FuseSmallLoopNests().mutate(s); }

}  // namespace tessera::lower
