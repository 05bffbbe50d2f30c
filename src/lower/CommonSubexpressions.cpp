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
    default: return true;
    }
}

/** Where the C emitter reads the form of an operand, the operand stays in place: the
 * ramp that indexes a dense vector access, the broadcast constant that divides. */
bool in_place(const Expr &e) { return as<Ramp>(e) || as<Broadcast>(e); }

class Walk {
public:
    /** The first walk (reused == null) records which entries are reused; the second
     * rewrites, with the first's record. */
    Walk(const std::vector<bool> *reused, std::set<std::string> *taken) : reused_(reused), taken_(taken) {}

    std::vector<bool> reused;  // by entry (the first walk's result)

    Stmt run(const Stmt &s) {
        push_level("", -1, false);
        Stmt r = chain(s);
        pop_level();
        return r;
    }

private:
    struct Level {
        std::unordered_map<Expr, int, CachedExprHash, ExprEqual> values;  // -> entry
        std::string binds;   // the variable a let binds here; empty for a block
        int let = -1;        // the expression let (numbered in walk order) whose body this is
        bool fresh = false;  // lookups do not go further out (a parallel loop's body)
    };
    struct Entry {
        uint64_t time = 0;
    };
    /** A let to insert (second walk). */
    struct Binding {
        std::string name;
        Expr value;
    };
    struct Names {
        Expr node;  // kept alive, so that its address is not reused by another node
        std::set<std::string> vars, loads;
    };

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
        const Level &l = level_for(e);
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
#define TESSERA_CSE_BINARY(N)                                                   \
    case ExprKind::N: {                                                         \
        const N *op = as<N>(e);                                                 \
        Expr a = value(op->a), b = value(op->b);                                \
        return rewriting() && !(a.same_as(op->a) && b.same_as(op->b)) ? N::make(a, b) : e; \
    }
            TESSERA_CSE_BINARY(Add)
            TESSERA_CSE_BINARY(Sub)
            TESSERA_CSE_BINARY(Mul)
#undef TESSERA_CSE_BINARY
#define TESSERA_CSE_BINARY(N)                                                   \
    case ExprKind::N: {                                                         \
        const N *op = as<N>(e);                                                 \
        Expr a = value(op->a), b = value(op->b, in_place(op->b));               \
        return rewriting() && !(a.same_as(op->a) && b.same_as(op->b)) ? N::make(a, b) : e; \
    }
            TESSERA_CSE_BINARY(Div)
            TESSERA_CSE_BINARY(Mod)
#undef TESSERA_CSE_BINARY
#define TESSERA_CSE_BINARY(N)                                                   \
    case ExprKind::N: {                                                         \
        const N *op = as<N>(e);                                                 \
        Expr a = value(op->a), b = value(op->b);                                \
        return rewriting() && !(a.same_as(op->a) && b.same_as(op->b)) ? N::make(a, b) : e; \
    }
            TESSERA_CSE_BINARY(Min)
            TESSERA_CSE_BINARY(Max)
            TESSERA_CSE_BINARY(EQ)
            TESSERA_CSE_BINARY(NE)
            TESSERA_CSE_BINARY(LT)
            TESSERA_CSE_BINARY(LE)
            TESSERA_CSE_BINARY(GT)
            TESSERA_CSE_BINARY(GE)
            TESSERA_CSE_BINARY(And)
            TESSERA_CSE_BINARY(Or)
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

    /** The entry of an available, still valid computation of e, or -1. */
    int lookup(const Expr &e) {
        for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
            auto hit = it->values.find(e);
            if (hit != it->values.end()) return still_valid(e, entries_[size_t(hit->second)].time) ? hit->second : -1;
            if (it->fresh) break;
        }
        return -1;
    }

    int remember(const Expr &e) {
        level_for(e).values[e] = int(entries_.size());
        entries_.push_back(Entry{clock_});
        return int(entries_.size()) - 1;
    }

    /** The innermost block, or the innermost let that binds a variable e uses. */
    Level &level_for(const Expr &e) {
        for (auto it = levels_.rbegin(); it != levels_.rend(); ++it)
            if (it->binds.empty() || names_of(e).vars.count(it->binds)) return *it;
        return levels_.front();
    }

    void push_level(const std::string &binds, int let, bool fresh) {
        levels_.push_back(Level{decltype(Level::values)(8, CachedExprHash{&hashes_}), binds, let, fresh});
    }
    void pop_level() { levels_.pop_back(); }

    /** A store to `buffer`, or (empty) anything that may store anywhere. */
    void memory_changed(const std::string &buffer = "") {
        ++clock_;
        (buffer.empty() ? last_loop_ : last_store_[buffer]) = clock_;
    }
    bool still_valid(const Expr &e, uint64_t time) {
        const Names &n = names_of(e);
        if (n.loads.empty()) return true;
        if (time < last_loop_) return false;
        for (const std::string &b : n.loads) {
            auto it = last_store_.find(b);
            if (it != last_store_.end() && time < it->second) return false;
        }
        return true;
    }

    /** The variables e uses and the buffers it loads from (once per node). */
    const Names &names_of(const Expr &e) {
        auto it = names_in_.find(e.get());
        if (it != names_in_.end()) return it->second;
        struct Collect : IRVisitor {
            Names n;
            using IRVisitor::include;
            void visit(const Variable *op) override { n.vars.insert(op->name); }
            void visit(const Load *op) override {
                n.loads.insert(op->buffer);
                IRVisitor::visit(op);
            }
        } c;
        c.include(e);
        c.n.node = e;
        return names_in_.emplace(e.get(), std::move(c.n)).first->second;
    }

    const std::vector<bool> *reused_;
    std::set<std::string> *taken_;
    HashCache hashes_;
    std::vector<Level> levels_;
    std::vector<Entry> entries_;
    std::vector<std::string> names_;  // by entry: its variable, if reused (second walk)
    std::unordered_map<const ExprNode *, Names> names_in_;
    std::unordered_map<std::string, uint64_t> last_store_;
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
    Walk decide(nullptr, &taken);
    decide.run(s);
    Walk rewrite(&decide.reused, &taken);
    return rewrite.run(s);
}

}  // namespace tessera::lower
