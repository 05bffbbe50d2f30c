// Index widening: the int32 coordinates inside the int64 element offsets of loads and
// stores are widened operation by operation (int64(x + 8) becomes int64(x) + 8), so that
// the C compiler sees accesses a constant distance apart.
//
// A coordinate is often a variable bound to another plus a constant: an unrolled loop's
// copies of its variable (`let x$2 = x.min + 1`). Widening stops at such a variable, and
// int64(x$2) - int64(x.min) is then a difference the C compiler cannot fold (the int32 sum
// might wrap): a tile computed in registers by unrolled copies is stored to memory and
// loaded back by the next stage, whose indices it cannot match to the stored ones. So such
// a variable is widened as its value, int64(x.min) + 1, when every variable of that value
// still means what it meant at the let (a name may be bound again inside: uniquify_names
// runs later), and the value is small.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <type_traits>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

Expr i64(const Expr &e) { return e.type() == Int(64) ? e : Cast::make(Int(64), e); }

/** The largest allocation (in bytes) whose indices are widened through lets: a register
 * tile (16 vectors of 16 floats). The C compiler (GCC 12) then sees that the stage reading
 * the tile after the loop that computed it reads the elements the loop wrote, and keeps
 * the tile in registers instead of storing and reloading it (depthwise_sep_conv's 8-vector
 * tile: 0.545 -> 0.49 ms, bench/README.md). A larger tile read that way is replaced by
 * separate values (scalar replacement), and with 24 accumulators of a matmul tile it then
 * spills some inside the loop: matmul packed took twice as long. */
constexpr int64_t kMaxTileBytes = 1024;

/** The most nodes a let's value widened in place of its variable may have (with the lets
 * it uses expanded in turn); larger values keep the variable. */
constexpr int kMaxWidenedNodes = 32;

/** The nodes of an expression, the variables it reads, and whether it reads memory. */
struct Contents : IRVisitor {
    int nodes = 0;
    bool reads_memory = false;
    std::vector<std::string> variables;
    using IRVisitor::include;

protected:
    template <typename N>
    void count(const N *op) {
        nodes++;
        if constexpr (std::is_same_v<N, Load> || std::is_same_v<N, Call>) reads_memory = true;
        if constexpr (std::is_same_v<N, Variable>) variables.push_back(op->name);
        IRVisitor::visit(op);
    }
#define TESSERA_COUNT_NODE(N) \
    void visit(const N *op) override { count(op); }
    TESSERA_FOR_EACH_EXPR(TESSERA_COUNT_NODE)
#undef TESSERA_COUNT_NODE
};

/** Whether a let's value is a coordinate a constant away from another one (e + 3, e - 1,
 * as an unrolled loop's copies of its variable are): such a value may stand for its
 * variable in a widened index if it also reads no memory (a load repeated at the use could
 * read a value stored since). Lets of other arithmetic keep their variable: a loop that
 * starts at the variable counts from it, and the C compiler sees an index relative to
 * that start only if the index uses the same variable. */
bool has_offset_form(const Expr &value) {
    if (value.type() != Int(32)) return false;
    const Add *add = as<Add>(value);
    const Sub *sub = as<Sub>(value);
    return (add && (as<IntImm>(add->a) || as<IntImm>(add->b))) || (sub && as<IntImm>(sub->b));
}

/** Rewrites the element offsets of loads and stores with widen_coordinate inside their
 * int64 casts, widening let-bound coordinates as their values. */
class WidenIndices : public IRMutator {
protected:
    Expr visit(const Cast *op, const Expr &self) override {
        if (op->type == Int(64) && op->value.type() == Int(32) && index_depth_ > 0) {
            if (!through_lets_) return widen_coordinate(mutate(op->value));
            return widen_coordinate(mutate(op->value), [this](const Expr &v) { return widen_variable(v); });
        }
        return IRMutator::visit(op, self);
    }
    Expr visit(const Load *op, const Expr &self) override {
        Expr index = mutate_index(op->buffer, op->index);
        return index.same_as(op->index) ? self : Load::make(op->type, op->buffer, index);
    }
    Expr visit(const Let *op, const Expr &self) override { return mutate_let(op, self); }
    Stmt visit(const Store *op, const Stmt &self) override {
        Expr value = mutate(op->value);
        Expr index = mutate_index(op->buffer, op->index);
        return value.same_as(op->value) && index.same_as(op->index) ? self
                                                                     : Store::make(op->buffer, value, index, op->provenance);
    }
    Stmt visit(const LetStmt *op, const Stmt &self) override { return mutate_let(op, self); }
    Stmt visit(const Allocate *op, const Stmt &self) override {
        // Its size, counted up to kMaxTileBytes + 1 (so that the product cannot overflow);
        // an extent that is not a constant makes it larger than a tile.
        const int64_t over = kMaxTileBytes + 1;
        int64_t bytes = op->type.bytes();
        bool constant = true;
        for (const Expr &e : op->extents) {
            const IntImm *k = as<IntImm>(e);
            constant = constant && k && k->value >= 0;
            if (constant) bytes = std::min(bytes * std::min(k->value, over), over);
        }
        const bool large = !constant || bytes > kMaxTileBytes;
        if (large) large_allocations_[op->name]++;
        Stmt body = mutate(op->body);
        if (large && --large_allocations_[op->name] == 0) large_allocations_.erase(op->name);
        return body.same_as(op->body) ? self : Allocate::make(op->name, op->type, op->extents, body);
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Expr mn = mutate(op->min), ext = mutate(op->extent);
        bind(op->name, Expr());
        Stmt body = mutate(op->body);
        unbind(op->name);
        if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return self;
        return For::make(op->name, mn, ext, op->for_type, body, op->loop);
    }

private:
    /** A let (an expression's or a statement's), its name bound while its body is mutated. */
    template <typename L, typename Node>
    Node mutate_let(const L *op, const Node &self) {
        Expr value = mutate(op->value);
        bind(op->name, op->value);
        Node body = mutate(op->body);
        unbind(op->name);
        return value.same_as(op->value) && body.same_as(op->body) ? self : L::make(op->name, value, body);
    }

    /** One binding of a name. For a let of offset form whose widened value reads no memory
     * and has at most kMaxWidenedNodes nodes: that widened value, and the bindings its variables
     * referred to at the let (undefined for other lets and for loops). */
    struct Binding {
        int id;
        Expr widened;
        std::vector<std::pair<std::string, int>> uses;
    };

    void bind(const std::string &name, const Expr &value) {
        Binding b{++next_id_, Expr(), {}};
        if (value.defined() && has_offset_form(value)) {
            // The widened value keeps the value's loads (the lets it expands have none).
            Expr wide = widen_coordinate(value, [this](const Expr &v) { return widen_variable(v); });
            Contents c;
            c.include(wide);
            if (!c.reads_memory && c.nodes <= kMaxWidenedNodes) {
                for (const std::string &v : c.variables) b.uses.emplace_back(v, current_id(v));
                b.widened = wide;
            }
        }
        scopes_[name].push_back(std::move(b));
    }
    void unbind(const std::string &name) {
        auto it = scopes_.find(name);
        it->second.pop_back();
        if (it->second.empty()) scopes_.erase(it);
    }
    /** The id of the innermost binding of a name here (0: none, a parameter). */
    int current_id(const std::string &name) const {
        auto it = scopes_.find(name);
        return it == scopes_.end() ? 0 : it->second.back().id;
    }

    /** An int32 variable in a widened index: its let's widened value if it has one whose
     * variables still mean what they meant at the let; else int64(v). */
    Expr widen_variable(const Expr &v) {
        auto it = scopes_.find(as<Variable>(v)->name);
        if (it == scopes_.end() || !it->second.back().widened.defined()) return i64(v);
        const Binding &b = it->second.back();
        for (const auto &[var, id] : b.uses)
            if (current_id(var) != id) return i64(v);
        return b.widened;
    }

    /** The index of an access to `buffer`, widened; through lets unless the buffer is an
     * allocation larger than a register tile. */
    Expr mutate_index(const std::string &buffer, const Expr &index) {
        const bool saved = through_lets_;
        through_lets_ = !large_allocations_.count(buffer);
        index_depth_++;
        Expr widened = mutate(index);
        index_depth_--;
        through_lets_ = saved;
        return widened;
    }

    int index_depth_ = 0;
    bool through_lets_ = true;
    std::map<std::string, int> large_allocations_;  // in scope, with their nesting count
    int next_id_ = 0;
    std::map<std::string, std::vector<Binding>> scopes_;
};

}  // namespace

/** An int32 coordinate widened to int64 with the widening pushed through + and - and * by
 * a constant (not into min and max, which stay int32 for loop partitioning to see clamps):
 * int64(x + 8) becomes int64(x) + 8, equal because coordinate arithmetic does not overflow
 * (the contract of index expressions). The C compiler then sees that two accesses x and
 * x + 8 are 8 elements apart, which it cannot know through an int32 addition that might
 * wrap; that lets it keep accumulators in registers. `variable` widens the int32 variables
 * (null: int64(v)). */
Expr widen_coordinate(const Expr &e, const std::function<Expr(const Expr &)> &variable) {
    auto widen = [&](const Expr &x) { return widen_coordinate(x, variable); };
    if (e.type() != Int(32)) return i64(e);
    if (const IntImm *c = as<IntImm>(e)) return IntImm::make(Int(64), c->value);
    if (as<Variable>(e) && variable) return variable(e);
    if (const Add *a = as<Add>(e)) return Add::make(widen(a->a), widen(a->b));
    if (const Sub *d = as<Sub>(e)) return Sub::make(widen(d->a), widen(d->b));
    if (const Mul *m = as<Mul>(e); m && as<IntImm>(m->b)) return Mul::make(widen(m->a), widen(m->b));
    return i64(e);
}

Stmt widen_indices(Stmt s) { return WidenIndices().mutate(s); }

}  // namespace tessera::lower
