// Common subexpressions: a value the code computes more than once, where the first
// result is still available and still right, is computed once and bound by a let. This
// includes values read from memory, reused across statements that do not write the memory
// they read. The C emitter then prints each operation where the IR has it and reuses
// nothing itself (src/codegen/), so the code that runs is the code the IR shows.
//
// The code is walked in the order it runs (and is printed), one block at a time. A value
// computed by a statement is available to the later statements of its block and to the
// blocks inside them (loop bodies, branches, allocations), as a C temporary declared in
// that statement would be:
//
//   * where: a value is remembered in the innermost block, or in the innermost let that
//     binds a variable it uses (the value means something else outside), and forgotten
//     when that scope ends. A parallel loop's body, a function of its own in the C, starts
//     with nothing available.
//   * memory: a value that reads memory stays valid until a store to a buffer it reads, a
//     loop (whose iterations may store anywhere) or an allocation; a later computation of
//     it is a new value.
//   * what: every operation, except constants and variables (nothing to save), the ramp
//     that indexes a load or a store and the broadcast that divides (the C emitter
//     recognises dense vector accesses and divisions by constants by them, so they stay
//     in place; their operands may be shared), and the values of assertion messages,
//     computed only on the failure path (which may use values computed before it).
//
// A value computed again while its first computation is available is named by the let
// whose value it is, if its first computation is a let's whole value; otherwise it gets a
// let of its own, named "cse", "cse$2", ...: a LetStmt before the statement that first
// computed it (blocks are
// first rewritten so that a let's scope reaches the end of its block,
// src/lower/ExtendLetScopes.cpp), or, when the value uses the variable of an expression
// let, a let inside that one. Both computations become the variable.
//
// The walk runs twice over the same statement: the first finds which values are computed
// again, the second rewrites. Both make the same decisions in the same order (a value's
// entries are numbered in the order they are made), so the second knows, at a first
// computation, whether the value will be reused. Names must be bound once
// (src/lower/UniquifyNames.cpp): structurally equal expressions then have equal values.

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "ir/Check.h"
#include "ir/IREquality.h"
#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

/** Whether an occurrence of e may become a variable. */
bool shareable(const Expr &e) {
    switch (e->kind) {
    case ExprKind::IntImm:
    case ExprKind::UIntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Variable: return false;
    case ExprKind::Call: {
        // Each print is its own evaluation.
        const Call *c = as<Call>(e);
        return !(c->call_kind == CallKind::Intrinsic && has_effect(c->op));
    }
    default: return true;
    }
}

/** Where the C emitter reads the form of an operand, the operand stays in place: the
 * ramp that indexes a dense vector access, the broadcast constant that divides. */
bool in_place(const Expr &e) { return as<Ramp>(e) || as<Broadcast>(e); }

/** A set of small numbers. */
struct Bits {
    std::vector<uint64_t> words;
    void insert(size_t i) {
        if (words.size() <= i / 64) words.resize(i / 64 + 1);
        words[i / 64] |= uint64_t(1) << (i % 64);
    }
    void insert(const Bits &o) {
        if (words.size() < o.words.size()) words.resize(o.words.size());
        for (size_t k = 0; k < o.words.size(); k++) words[k] |= o.words[k];
    }
    bool empty() const {
        for (uint64_t w : words)
            if (w) return false;
        return true;
    }
    template<typename F>
    void for_each(F &&f) const {
        for (size_t k = 0; k < words.size(); k++)
            for (uint64_t w = words[k]; w; w &= w - 1) f(k * 64 + size_t(__builtin_ctzll(w)));
    }
};

/** Names as small numbers, in the order they are first met. */
struct Numbering {
    std::unordered_map<std::string, size_t> number;
    size_t of(const std::string &name) { return number.try_emplace(name, number.size()).first->second; }
    const size_t *find(const std::string &name) const {
        auto it = number.find(name);
        return it == number.end() ? nullptr : &it->second;
    }
};

/** What both walks compute alike about the nodes of the statement (they walk the same
 * nodes): structural hashes, and which let variables and buffers each node uses. */
struct NodeFacts {
    struct Names {
        Expr node;  // kept alive, so that its address is not reused by another node
        Bits lets, loads;
    };
    HashCache hashes;
    Numbering lets, buffers;
    std::unordered_map<const ExprNode *, Names> names;
};

class Walk {
public:
    /** The first walk (reused == null) records which entries are reused; the second
     * rewrites, with the first's record. */
    Walk(const std::vector<bool> *reused, std::set<std::string> *taken, NodeFacts *facts)
        : reused_(reused), taken_(taken), facts_(facts) {}

    std::vector<bool> reused;  // by entry (the first walk's result)

    Stmt run(const Stmt &s) {
        push_level("", -1, false);
        Stmt r = chain(s);
        pop_level();
        return r;
    }

private:
    /** A block, or the scope of a let. The values remembered in it are forgotten when it
     * ends. */
    struct Level {
        std::vector<Expr> remembered;
        std::string binds;   // the variable a let binds here; empty for a block
        int let = -1;        // the expression let (numbered in walk order) whose body this is
        bool fresh = false;  // lookups do not go further out (a parallel loop's body)
    };
    /** A computation of a value that is available: remembered in level `level`. */
    struct Available {
        int level;
        int entry;
    };
    struct Entry {
        uint64_t time = 0;
    };
    /** A let to insert (second walk). */
    struct Binding {
        std::string name;
        Expr value;
    };
    using Names = NodeFacts::Names;

    // --- statements: a block's chain, and the statements in it ----------------------

    Stmt chain(const Stmt &s) {
        const StmtNode *saved = item_;
        item_ = s.get();
        Stmt r;
        if (const LetStmt *l = as<LetStmt>(s)) {
            Expr v = value(l->value, false, &l->name);
            push_level(l->name, -1, false);
            Stmt body = chain(l->body);
            pop_level();
            r = rewriting() && !(v.same_as(l->value) && body.same_as(l->body)) ? LetStmt::make(l->name, v, body) : s;
        } else if (const Block *b = as<Block>(s)) {
            Stmt first = item(b->first);
            Stmt rest = chain(b->rest);
            r = rewriting() && !(first.same_as(b->first) && rest.same_as(b->rest)) ? Block::make(first, rest) : s;
        } else {
            r = item(s);
        }
        r = bind_at(s.get(), r);
        item_ = saved;
        return r;
    }

    Stmt item(const Stmt &s) {
        switch (s->kind) {
        case StmtKind::AssertStmt: {
            const AssertStmt *a = as<AssertStmt>(s);
            Expr c = value(a->condition);
            push_level("", -1, false);
            lookup_only_++;
            std::vector<Expr> message;
            bool changed = !c.same_as(a->condition);
            for (const Expr &m : a->message) {
                message.push_back(value(m));
                changed = changed || !message.back().same_as(m);
            }
            lookup_only_--;
            pop_level();
            return rewriting() && changed ? AssertStmt::make(c, message) : s;
        }
        case StmtKind::For: {
            const For *f = as<For>(s);
            memory_changed();
            Expr mn = value(f->min), ex = value(f->extent);
            push_level("", -1, f->for_type == ForType::Parallel);
            Stmt body = chain(f->body);
            pop_level();
            memory_changed();
            if (!rewriting() || (mn.same_as(f->min) && ex.same_as(f->extent) && body.same_as(f->body))) return s;
            return For::make(f->name, mn, ex, f->for_type, body, f->loop);
        }
        case StmtKind::Store: {
            const Store *st = as<Store>(s);
            if (st->provenance && st->provenance->atomic) {
                // An atomic read-modify-write keeps its load of the point it writes in its
                // value (the C emitter makes the pair one atomic operation).
                memory_changed(st->buffer);
                return s;
            }
            Expr v = value(st->value), i = value(st->index, in_place(st->index));
            memory_changed(st->buffer);
            // The annotation is not computed: it keeps the expressions it had.
            if (!rewriting() || (v.same_as(st->value) && i.same_as(st->index))) return s;
            return Store::make(st->buffer, v, i, st->provenance);
        }
        case StmtKind::Allocate: {
            const Allocate *a = as<Allocate>(s);
            memory_changed();
            std::vector<Expr> extents;
            bool changed = false;
            for (const Expr &e : a->extents) {
                extents.push_back(value(e));
                changed = changed || !extents.back().same_as(e);
            }
            push_level("", -1, false);
            Stmt body = chain(a->body);
            pop_level();
            memory_changed();
            if (!rewriting() || (!changed && body.same_as(a->body))) return s;
            return Allocate::make(a->name, a->type, extents, body);
        }
        case StmtKind::IfThenElse: {
            const IfThenElse *i = as<IfThenElse>(s);
            Expr c = value(i->condition);
            push_level("", -1, false);
            Stmt then_case = chain(i->then_case);
            pop_level();
            Stmt else_case;
            if (i->else_case.defined()) {
                push_level("", -1, false);
                else_case = chain(i->else_case);
                pop_level();
            }
            if (!rewriting() ||
                (c.same_as(i->condition) && then_case.same_as(i->then_case) && else_case.same_as(i->else_case)))
                return s;
            return IfThenElse::make(c, then_case, else_case);
        }
        case StmtKind::Evaluate: {
            Expr v = value(as<Evaluate>(s)->value);
            return rewriting() && !v.same_as(as<Evaluate>(s)->value) ? Evaluate::make(v) : s;
        }
        case StmtKind::Free:
            // No load of the buffer is valid after it: none of its loads is reused past it.
            memory_changed(as<Free>(s)->name);
            return s;
        case StmtKind::LetStmt:
        case StmtKind::Block: return chain(s);
        default: break;
        }
        TESSERA_INTERNAL_ERROR("common subexpressions: a statement of kind " << int(s->kind) << " in lowered code");
    }

    /** The chain node `node` (rewritten: r) inside the lets of the values first computed
     * by its statement, first computed outermost. */
    Stmt bind_at(const StmtNode *node, Stmt r) {
        auto it = chain_bindings_.find(node);
        if (it == chain_bindings_.end()) return r;
        for (auto b = it->second.rbegin(); b != it->second.rend(); ++b) r = LetStmt::make(b->name, b->value, r);
        chain_bindings_.erase(it);
        return r;
    }

    // --- expressions -------------------------------------------------------------------

    /** e walked, and (second walk) rewritten. `let_name`: e is the whole value of a let
     * of that name, which then names the value if it is reused (no new let). */
    Expr value(const Expr &e, bool keep_in_place = false, const std::string *let_name = nullptr) {
        if (keep_in_place) return operands(e);
        if (shareable(e))
            if (const int hit = lookup(e); hit >= 0) {
                if (!rewriting()) {
                    reused[size_t(hit)] = true;
                    return e;
                }
                return Variable::make(e.type(), names_[size_t(hit)]);
            }
        Expr r = operands(e);
        if (!shareable(e) || lookup_only_ > 0) return r;
        const int entry = remember(e);
        if (!rewriting()) {
            reused.push_back(false);
            return e;
        }
        names_.emplace_back();
        if (!(*reused_)[size_t(entry)]) return r;
        if (let_name) {
            names_[size_t(entry)] = *let_name;
            return r;
        }
        const std::string name = unique_name("cse", *taken_);
        names_[size_t(entry)] = name;
        const Level &l = levels_[size_t(level_for(e))];
        if (l.let >= 0) let_bindings_[l.let].push_back(Binding{name, r});
        else chain_bindings_[item_].push_back(Binding{name, r});
        return Variable::make(e.type(), name);
    }

    /** e with its operands walked (and, when rewriting, replaced). */
    Expr operands(const Expr &e) {
        switch (e->kind) {
        case ExprKind::IntImm:
        case ExprKind::UIntImm:
        case ExprKind::FloatImm:
        case ExprKind::StringImm:
        case ExprKind::Variable: return e;
        case ExprKind::Cast: {
            const Cast *c = as<Cast>(e);
            Expr v = value(c->value);
            return rewriting() && !v.same_as(c->value) ? Cast::make(c->type, v) : e;
        }
        // The divisor of / and % stays in place (a broadcast constant, for the emitter).
#define TESSERA_CSE_BINARY(N, DIVISION)                                                        \
    case ExprKind::N: {                                                                        \
        const N *op = as<N>(e);                                                                \
        Expr a = value(op->a), b = value(op->b, DIVISION && in_place(op->b));                  \
        return rewriting() && !(a.same_as(op->a) && b.same_as(op->b)) ? N::make(a, b) : e;     \
    }
            TESSERA_CSE_BINARY(Add, false)
            TESSERA_CSE_BINARY(Sub, false)
            TESSERA_CSE_BINARY(Mul, false)
            TESSERA_CSE_BINARY(Div, true)
            TESSERA_CSE_BINARY(Mod, true)
            TESSERA_CSE_BINARY(Min, false)
            TESSERA_CSE_BINARY(Max, false)
            TESSERA_CSE_BINARY(EQ, false)
            TESSERA_CSE_BINARY(NE, false)
            TESSERA_CSE_BINARY(LT, false)
            TESSERA_CSE_BINARY(LE, false)
            TESSERA_CSE_BINARY(GT, false)
            TESSERA_CSE_BINARY(GE, false)
            TESSERA_CSE_BINARY(And, false)
            TESSERA_CSE_BINARY(Or, false)
#undef TESSERA_CSE_BINARY
        case ExprKind::Not: {
            const Not *n = as<Not>(e);
            Expr a = value(n->a);
            return rewriting() && !a.same_as(n->a) ? Not::make(a) : e;
        }
        case ExprKind::Select: {
            const Select *s = as<Select>(e);
            Expr c = value(s->condition), a = value(s->true_value), b = value(s->false_value);
            if (!rewriting() || (c.same_as(s->condition) && a.same_as(s->true_value) && b.same_as(s->false_value)))
                return e;
            return Select::make(c, a, b);
        }
        case ExprKind::Call: {
            const Call *c = as<Call>(e);
            std::vector<Expr> args;
            bool changed = false;
            for (const Expr &a : c->args) {
                args.push_back(value(a));
                changed = changed || !args.back().same_as(a);
            }
            return rewriting() && changed ? rebuild_call(c, std::move(args)) : e;
        }
        case ExprKind::Let: {
            const Let *l = as<Let>(e);
            Expr v = value(l->value, false, &l->name);
            const int let = next_let_++;
            push_level(l->name, let, false);
            Expr body = value(l->body);
            pop_level();
            if (!rewriting()) return e;
            auto it = let_bindings_.find(let);
            if (it != let_bindings_.end()) {
                for (auto b = it->second.rbegin(); b != it->second.rend(); ++b) body = Let::make(b->name, b->value, body);
                let_bindings_.erase(it);
            }
            return v.same_as(l->value) && body.same_as(l->body) ? e : Let::make(l->name, v, body);
        }
        case ExprKind::Load: {
            const Load *ld = as<Load>(e);
            Expr i = value(ld->index, in_place(ld->index));
            return rewriting() && !i.same_as(ld->index) ? Load::make(ld->type, ld->buffer, i) : e;
        }
        case ExprKind::Ramp: {
            const Ramp *r = as<Ramp>(e);
            Expr base = value(r->base), stride = value(r->stride);
            return rewriting() && !(base.same_as(r->base) && stride.same_as(r->stride)) ? Ramp::make(base, stride, r->lanes)
                                                                                        : e;
        }
        case ExprKind::Broadcast: {
            const Broadcast *b = as<Broadcast>(e);
            Expr v = value(b->value);
            return rewriting() && !v.same_as(b->value) ? Broadcast::make(v, b->lanes) : e;
        }
        }
        TESSERA_INTERNAL_ERROR("common subexpressions: an expression of kind " << int(e->kind));
    }

    // --- what is available ---------------------------------------------------------

    bool rewriting() const { return reused_ != nullptr; }

    /** The entry of an available, still valid computation of e, or -1: the innermost
     * level that remembers e decides (a stale computation there hides older ones). */
    int lookup(const Expr &e) {
        auto it = available_.find(e);
        if (it == available_.end()) return -1;
        const Available &a = it->second.back();
        if (a.level < fresh_floor()) return -1;
        return still_valid(e, entries_[size_t(a.entry)].time) ? a.entry : -1;
    }

    int remember(const Expr &e) {
        const int level = level_for(e), entry = int(entries_.size());
        entries_.push_back(Entry{clock_});
        std::vector<Available> &v = available_[e];
        auto at = std::lower_bound(v.begin(), v.end(), level, [](const Available &x, int l) { return x.level < l; });
        if (at != v.end() && at->level == level) at->entry = entry;
        else v.insert(at, Available{level, entry});
        levels_[size_t(level)].remembered.push_back(e);
        return entry;
    }

    /** Where a value is remembered: the innermost block, or the innermost let that binds a
     * variable it uses. */
    int level_for(const Expr &e) {
        int level = blocks_.back();
        names_of(e).lets.for_each([&](size_t v) {
            if (v < let_level_.size()) level = std::max(level, let_level_[v]);
        });
        return level;
    }

    void push_level(const std::string &binds, int let, bool fresh) {
        const int level = int(levels_.size());
        levels_.push_back(Level{{}, binds, let, fresh});
        if (binds.empty()) {
            blocks_.push_back(level);
        } else {
            const size_t v = facts_->lets.of(binds);
            if (let_level_.size() <= v) let_level_.resize(v + 1, -1);
            let_level_[v] = level;
        }
        if (fresh) fresh_.push_back(level);
    }
    void pop_level() {
        const int level = int(levels_.size()) - 1;
        Level &l = levels_.back();
        for (const Expr &e : l.remembered) {
            auto it = available_.find(e);
            if (it == available_.end() || it->second.back().level != level) continue;
            it->second.pop_back();
            if (it->second.empty()) available_.erase(it);
        }
        if (l.binds.empty()) blocks_.pop_back();
        else let_level_[*facts_->lets.find(l.binds)] = -1;
        if (l.fresh) fresh_.pop_back();
        levels_.pop_back();
    }
    int fresh_floor() const { return fresh_.empty() ? 0 : fresh_.back(); }

    /** A store to `buffer`, or (empty) anything that may store anywhere. */
    void memory_changed(const std::string &buffer = "") {
        ++clock_;
        if (buffer.empty()) {
            last_loop_ = clock_;
            return;
        }
        const size_t b = facts_->buffers.of(buffer);
        if (last_store_.size() <= b) last_store_.resize(b + 1, 0);
        last_store_[b] = clock_;
    }
    bool still_valid(const Expr &e, uint64_t time) {
        const Names &n = names_of(e);
        if (n.loads.empty()) return true;
        if (time < last_loop_) return false;
        bool valid = true;
        n.loads.for_each([&](size_t b) { valid = valid && !(b < last_store_.size() && time < last_store_[b]); });
        return valid;
    }

    /** The variables e uses and the buffers it loads from (once per node, from its
     * operands'). */
    const Names &names_of(const Expr &e) {
        auto it = facts_->names.find(e.get());
        if (it != facts_->names.end()) return it->second;
        Names n;
        n.node = e;
        auto add = [&](const Expr &o) {
            const Names &m = names_of(o);
            n.lets.insert(m.lets);
            n.loads.insert(m.loads);
        };
        if (const Variable *v = as<Variable>(e)) {
            // Only a let's variable can place a value (names are bound once, and a let is
            // numbered when it is bound, before its uses are walked).
            if (const size_t *number = facts_->lets.find(v->name)) n.lets.insert(*number);
        } else if (const Let *l = as<Let>(e)) {
            add(l->value);
            add(l->body);
        } else {
            for_each_operand(e, add);
        }
        if (const Load *ld = as<Load>(e)) n.loads.insert(facts_->buffers.of(ld->buffer));
        return facts_->names.emplace(e.get(), std::move(n)).first->second;
    }

    /** Calls f on each operand of e (not for Let). */
    template<typename F>
    static void for_each_operand(const Expr &e, F &&f) {
        switch (e->kind) {
        case ExprKind::Cast: f(as<Cast>(e)->value); return;
        case ExprKind::Not: f(as<Not>(e)->a); return;
        case ExprKind::Select:
            f(as<Select>(e)->condition);
            f(as<Select>(e)->true_value);
            f(as<Select>(e)->false_value);
            return;
        case ExprKind::Call:
            for (const Expr &a : as<Call>(e)->args) f(a);
            return;
        case ExprKind::Load: f(as<Load>(e)->index); return;
        case ExprKind::Ramp:
            f(as<Ramp>(e)->base);
            f(as<Ramp>(e)->stride);
            return;
        case ExprKind::Broadcast: f(as<Broadcast>(e)->value); return;
#define TESSERA_CSE_OPERANDS(N) \
    case ExprKind::N:           \
        f(as<N>(e)->a);         \
        f(as<N>(e)->b);         \
        return;
            TESSERA_CSE_OPERANDS(Add)
            TESSERA_CSE_OPERANDS(Sub)
            TESSERA_CSE_OPERANDS(Mul)
            TESSERA_CSE_OPERANDS(Div)
            TESSERA_CSE_OPERANDS(Mod)
            TESSERA_CSE_OPERANDS(Min)
            TESSERA_CSE_OPERANDS(Max)
            TESSERA_CSE_OPERANDS(EQ)
            TESSERA_CSE_OPERANDS(NE)
            TESSERA_CSE_OPERANDS(LT)
            TESSERA_CSE_OPERANDS(LE)
            TESSERA_CSE_OPERANDS(GT)
            TESSERA_CSE_OPERANDS(GE)
            TESSERA_CSE_OPERANDS(And)
            TESSERA_CSE_OPERANDS(Or)
#undef TESSERA_CSE_OPERANDS
        default: return;  // constants and variables
        }
    }

    const std::vector<bool> *reused_;
    std::set<std::string> *taken_;
    NodeFacts *facts_;
    std::vector<Level> levels_;
    std::vector<int> blocks_, fresh_;                   // the levels that are blocks; fresh blocks
    std::vector<int> let_level_;  // by let number: its level while in scope, else -1
    std::unordered_map<Expr, std::vector<Available>, CachedExprHash, ExprEqual> available_{
        64, CachedExprHash{&facts_->hashes}};  // by level, innermost last
    std::vector<Entry> entries_;
    std::vector<std::string> names_;  // by entry: its variable, if reused (second walk)
    std::vector<uint64_t> last_store_;  // by buffer number
    uint64_t clock_ = 1, last_loop_ = 0;
    const StmtNode *item_ = nullptr;
    int next_let_ = 0;
    int lookup_only_ = 0;
    std::unordered_map<const StmtNode *, std::vector<Binding>> chain_bindings_;
    std::unordered_map<int, std::vector<Binding>> let_bindings_;
};

}  // namespace

Stmt common_subexpressions(Stmt s) {
    s = extend_let_scopes(s);
    std::set<std::string> taken = names_in(s).vars;
    NodeFacts facts;
    Walk decide(nullptr, &taken, &facts);
    decide.run(s);
    Walk rewrite(&decide.reused, &taken, &facts);
    return rewrite.run(s);
}

}  // namespace tessera::lower
