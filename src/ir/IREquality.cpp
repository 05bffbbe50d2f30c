#include "ir/IREquality.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/Check.h"
#include "ir/Function.h"
#include "ir/IRVisitor.h"  // TESSERA_FOR_EACH_EXPR / TESSERA_FOR_EACH_STMT

namespace tessera::ir {

namespace {

// ---------------------------------------------------------------------------------------
// What each node kind consists of. For every node kind there is
//   fields(a, b, sink):  calls sink(x_a, x_b) for each of its own (non-child) fields, in a
//                        fixed order; hashing calls it with a == b;
//   children(n, sink):   calls sink(child) for each child Expr and Stmt, in a fixed order.
// Counts of variable-length child lists are fields, so two nodes whose fields agree have
// the same number of children. The dispatchers below instantiate both for every kind in
// TESSERA_FOR_EACH_EXPR / TESSERA_FOR_EACH_STMT, so a node kind without them does not
// compile. (A sink may stop caring after the first difference; `fields` must not read
// past a difference that makes the rest meaningless, as for provenance below.)

template<typename S> void fields(const IntImm *a, const IntImm *b, S &s) { s(a->value, b->value); }
template<typename S> void fields(const UIntImm *a, const UIntImm *b, S &s) { s(a->value, b->value); }
template<typename S> void fields(const FloatImm *a, const FloatImm *b, S &s) { s(a->value, b->value); }
template<typename S> void fields(const StringImm *a, const StringImm *b, S &s) { s(a->value, b->value); }
template<typename S> void fields(const Variable *a, const Variable *b, S &s) {
    s(a->name, b->name);
    s(a->var_kind, b->var_kind);
    s(a->rdom_index, b->rdom_index);
    s(static_cast<const void *>(a->param.get()), static_cast<const void *>(b->param.get()));
    s(static_cast<const void *>(a->rdom.get()), static_cast<const void *>(b->rdom.get()));
}
template<typename S> void fields(const Cast *a, const Cast *b, S &s) { s(a->in_range, b->in_range); }
template<typename T, ExprKind K, typename S>
void fields(const BinaryNode<T, K> *, const BinaryNode<T, K> *, S &) {}
template<typename T, ExprKind K, typename S>
void fields(const ArithNode<T, K> *a, const ArithNode<T, K> *b, S &s) {
    s(a->no_overflow, b->no_overflow);
}
template<typename S> void fields(const Not *, const Not *, S &) {}
template<typename S> void fields(const Select *, const Select *, S &) {}
template<typename S> void fields(const Call *a, const Call *b, S &s) {
    s(a->call_kind, b->call_kind);
    s(a->op, b->op);
    s(a->name, b->name);
    s(static_cast<const void *>(a->func.get()), static_cast<const void *>(b->func.get()));
    s(static_cast<const void *>(a->buffer.get()), static_cast<const void *>(b->buffer.get()));
    s(static_cast<const void *>(a->input.get()), static_cast<const void *>(b->input.get()));
    s(a->value_index, b->value_index);
    s(a->args.size(), b->args.size());
}
template<typename S> void fields(const Let *a, const Let *b, S &s) { s(a->name, b->name); }
template<typename S> void fields(const Load *a, const Load *b, S &s) { s(a->buffer, b->buffer); }
template<typename S> void fields(const Ramp *a, const Ramp *b, S &s) { s(a->lanes, b->lanes); }
template<typename S> void fields(const Broadcast *a, const Broadcast *b, S &s) { s(a->lanes, b->lanes); }

template<typename S> void children(const IntImm *, S &) {}
template<typename S> void children(const UIntImm *, S &) {}
template<typename S> void children(const FloatImm *, S &) {}
template<typename S> void children(const StringImm *, S &) {}
template<typename S> void children(const Variable *, S &) {}
template<typename S> void children(const Cast *op, S &s) { s(op->value); }
template<typename T, ExprKind K, typename S>
void children(const BinaryNode<T, K> *op, S &s) {
    s(op->a);
    s(op->b);
}
template<typename S> void children(const Not *op, S &s) { s(op->a); }
template<typename S> void children(const Select *op, S &s) {
    s(op->condition);
    s(op->true_value);
    s(op->false_value);
}
template<typename S> void children(const Call *op, S &s) {
    for (const Expr &a : op->args) s(a);
}
template<typename S> void children(const Let *op, S &s) {
    s(op->value);
    s(op->body);
}
template<typename S> void children(const Load *op, S &s) { s(op->index); }
template<typename S> void children(const Ramp *op, S &s) {
    s(op->base);
    s(op->stride);
}
template<typename S> void children(const Broadcast *op, S &s) { s(op->value); }

// A Func by its name: names are unique in a pipeline, and comparing them (not addresses)
// keeps orders that depend on this comparison the same from run to run.
inline std::string func_name(const std::shared_ptr<FunctionData> &f) { return f ? f->name : std::string(); }

// Provenance annotations: presence, Func, stage, counts and RDom variable names are
// fields; the coordinates and RDom variable values are children.
template<typename S>
void provenance_fields(const Provenance *a, const Provenance *b, S &s) {
    s(a != nullptr, b != nullptr);
    if (!a || !b) return;
    s(func_name(a->func), func_name(b->func));
    s(a->stage, b->stage);
    s(a->kind, b->kind);
    s(a->coords.size(), b->coords.size());
    s(a->rvars.size(), b->rvars.size());
    if (a->rvars.size() != b->rvars.size()) return;
    for (size_t i = 0; i < a->rvars.size(); i++) s(a->rvars[i].first, b->rvars[i].first);
}
template<typename S>
void provenance_children(const Provenance *p, S &s) {
    if (!p) return;
    for (const Expr &c : p->coords) s(c);
    for (const auto &r : p->rvars) s(r.second);
}

template<typename S> void fields(const LetStmt *a, const LetStmt *b, S &s) { s(a->name, b->name); }
template<typename S> void fields(const AssertStmt *a, const AssertStmt *b, S &s) {
    s(a->message.size(), b->message.size());
}
template<typename S> void fields(const For *a, const For *b, S &s) {
    s(a->name, b->name);
    s(a->for_type, b->for_type);
    s(a->loop != nullptr, b->loop != nullptr);
    if (!a->loop || !b->loop) return;
    s(func_name(a->loop->func), func_name(b->loop->func));
    s(a->loop->stage, b->loop->stage);
    s(a->loop->dim, b->loop->dim);
    s(a->loop->part, b->loop->part);
}
template<typename S> void fields(const Store *a, const Store *b, S &s) {
    s(a->buffer, b->buffer);
    provenance_fields(a->provenance.get(), b->provenance.get(), s);
}
template<typename S> void fields(const Provide *a, const Provide *b, S &s) {
    s(a->name, b->name);
    s(a->args.size(), b->args.size());
    provenance_fields(a->provenance.get(), b->provenance.get(), s);
}
template<typename S> void fields(const Allocate *a, const Allocate *b, S &s) {
    s(a->name, b->name);
    s(a->type, b->type);
    s(a->extents.size(), b->extents.size());
}
template<typename S> void fields(const Realize *a, const Realize *b, S &s) {
    s(a->name, b->name);
    s(a->type, b->type);
    s(a->bounds.size(), b->bounds.size());
}
template<typename S> void fields(const Block *, const Block *, S &) {}
template<typename S> void fields(const IfThenElse *, const IfThenElse *, S &) {}
template<typename S> void fields(const Evaluate *, const Evaluate *, S &) {}
template<typename S> void fields(const Free *a, const Free *b, S &s) { s(a->name, b->name); }
template<typename S> void fields(const ProducerConsumer *a, const ProducerConsumer *b, S &s) {
    s(a->name, b->name);
    s(a->is_producer, b->is_producer);
}

template<typename S> void children(const LetStmt *op, S &s) {
    s(op->value);
    s(op->body);
}
template<typename S> void children(const AssertStmt *op, S &s) {
    s(op->condition);
    for (const Expr &m : op->message) s(m);
}
template<typename S> void children(const For *op, S &s) {
    s(op->min);
    s(op->extent);
    s(op->body);
}
template<typename S> void children(const Store *op, S &s) {
    s(op->value);
    s(op->index);
    provenance_children(op->provenance.get(), s);
}
template<typename S> void children(const Provide *op, S &s) {
    s(op->value);
    for (const Expr &a : op->args) s(a);
    provenance_children(op->provenance.get(), s);
}
template<typename S> void children(const Allocate *op, S &s) {
    for (const Expr &e : op->extents) s(e);
    s(op->body);
}
template<typename S> void children(const Realize *op, S &s) {
    for (const Range &r : op->bounds) {
        s(r.min);
        s(r.extent);
    }
    s(op->body);
}
template<typename S> void children(const Block *op, S &s) {
    s(op->first);
    s(op->rest);
}
template<typename S> void children(const IfThenElse *op, S &s) {
    s(op->condition);
    s(op->then_case);
    s(op->else_case);
}
template<typename S> void children(const Evaluate *op, S &s) { s(op->value); }
template<typename S> void children(const ProducerConsumer *op, S &s) { s(op->body); }
template<typename S> void children(const Free *, S &) {}

// ---------------------------------------------------------------------------------------
// Field comparison and hashing

uint64_t float_bits(double d) {
    uint64_t u;
    std::memcpy(&u, &d, sizeof(u));
    return u;
}

template<typename T>
int compare_field(const T &x, const T &y) {
    if constexpr (std::is_same_v<T, std::string>) {
        int c = x.compare(y);
        return (c > 0) - (c < 0);
    } else if constexpr (std::is_same_v<T, double>) {
        return compare_field(float_bits(x), float_bits(y));
    } else if constexpr (std::is_same_v<T, Type>) {
        if (int c = compare_field(x.code, y.code)) return c;
        if (int c = compare_field(x.bits, y.bits)) return c;
        return compare_field(x.lanes, y.lanes);
    } else if constexpr (std::is_pointer_v<T>) {
        std::less<const void *> less;
        return less(x, y) ? -1 : (less(y, x) ? 1 : 0);
    } else {
        static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "unsupported field type");
        return x < y ? -1 : (y < x ? 1 : 0);
    }
}

uint64_t mix(uint64_t h, uint64_t v) {
    // splitmix64 finalizer over a boost-style combination.
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

template<typename T>
uint64_t hash_field(const T &x) {
    if constexpr (std::is_same_v<T, std::string>) {
        return std::hash<std::string>()(x);
    } else if constexpr (std::is_same_v<T, double>) {
        return float_bits(x);
    } else if constexpr (std::is_same_v<T, Type>) {
        return (uint64_t(x.code) << 32) | (uint64_t(x.bits) << 16) | uint64_t(x.lanes);
    } else if constexpr (std::is_pointer_v<T>) {
        return std::hash<const void *>()(x);
    } else {
        static_assert(std::is_integral_v<T> || std::is_enum_v<T>, "unsupported field type");
        return static_cast<uint64_t>(x);
    }
}

struct FieldCompare {
    int result = 0;
    template<typename T>
    void operator()(const T &x, const T &y) {
        if (result == 0) result = compare_field(x, y);
    }
};

struct FieldHash {
    uint64_t h;
    template<typename T>
    void operator()(const T &x, const T &) { h = mix(h, hash_field(x)); }
};

/** A child handle: an Expr or a Stmt (as a pointer to the handle inside its parent). */
struct Child {
    const void *handle;
    bool is_stmt;
};

struct ChildCollector {
    std::vector<Child> &out;
    void operator()(const Expr &e) { out.push_back({&e, false}); }
    void operator()(const Stmt &s) { out.push_back({&s, true}); }
};

constexpr uint64_t kUndefinedHash = 0x5bd1e9955bd1e995ULL;

bool shared(const Expr &e) { return e.ptr().use_count() > 1; }

struct PairHash {
    size_t operator()(const std::pair<const void *, const void *> &p) const {
        return mix(hash_field(p.first), hash_field(p.second));
    }
};

// ---------------------------------------------------------------------------------------
// compare: a lock-step pre-order walk of both trees with an explicit stack. Each node
// contributes (kind, type, fields, children); the first difference decides.

class Comparer {
public:
    int run_expr(const Expr &a, const Expr &b) {
        stack_.push_back({&a, &b, Tag::Expr});
        return run();
    }
    int run_stmt(const Stmt &a, const Stmt &b) {
        stack_.push_back({&a, &b, Tag::Stmt});
        return run();
    }
    int run_provenance(const Provenance &a, const Provenance &b) {
        FieldCompare fc;
        provenance_fields(&a, &b, fc);
        if (fc.result) return fc.result;
        ChildCollector ca{children_a_}, cb{children_b_};
        provenance_children(&a, ca);
        provenance_children(&b, cb);
        push_children();
        return run();
    }

private:
    enum class Tag : uint8_t { Expr, Stmt, DoneEqual };
    struct Item {
        const void *a, *b;
        Tag tag;
    };
    std::vector<Item> stack_;
    std::vector<Child> children_a_, children_b_;
    // Pairs of shared expression nodes already found equal in this walk.
    std::unordered_set<std::pair<const void *, const void *>, PairHash> equal_pairs_;

    int run() {
        while (!stack_.empty()) {
            Item it = stack_.back();
            stack_.pop_back();
            int c = 0;
            switch (it.tag) {
            case Tag::Expr:
                c = step(*static_cast<const Expr *>(it.a), *static_cast<const Expr *>(it.b));
                break;
            case Tag::Stmt:
                c = step(*static_cast<const Stmt *>(it.a), *static_cast<const Stmt *>(it.b));
                break;
            case Tag::DoneEqual:
                equal_pairs_.insert({it.a, it.b});
                break;
            }
            if (c != 0) return c;
        }
        return 0;
    }

    // Pushes the collected children pairs so that they are compared in order.
    void push_children() {
        TESSERA_INTERNAL_ASSERT(children_a_.size() == children_b_.size(),
                                "IR comparison: child counts differ with equal fields");
        for (size_t i = children_a_.size(); i-- > 0;) {
            const Child &x = children_a_[i], &y = children_b_[i];
            TESSERA_INTERNAL_ASSERT(x.is_stmt == y.is_stmt, "IR comparison: child kinds differ");
            stack_.push_back({x.handle, y.handle, x.is_stmt ? Tag::Stmt : Tag::Expr});
        }
        children_a_.clear();
        children_b_.clear();
    }

    template<typename N>
    int step_node(const N *x, const N *y) {
        FieldCompare fc;
        fields(x, y, fc);
        if (fc.result) return fc.result;
        ChildCollector ca{children_a_}, cb{children_b_};
        children(x, ca);
        children(y, cb);
        push_children();
        return 0;
    }

    int step(const Expr &a, const Expr &b) {
        if (a.same_as(b)) return 0;  // includes both undefined
        if (!a.defined()) return -1;
        if (!b.defined()) return 1;
        if (int c = compare_field(a->kind, b->kind)) return c;
        if (int c = compare_field(a->type, b->type)) return c;
        bool memo = shared(a) && shared(b);
        if (memo) {
            if (equal_pairs_.count({a.get(), b.get()})) return 0;
            // Popped after all the children: then the two subtrees were equal.
            stack_.push_back({a.get(), b.get(), Tag::DoneEqual});
        }
        switch (a->kind) {
#define TESSERA_DISPATCH(N) \
    case ExprKind::N: return step_node(static_cast<const N *>(a.get()), static_cast<const N *>(b.get()));
            TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        }
        TESSERA_INTERNAL_ERROR("unknown expression kind");
    }

    int step(const Stmt &a, const Stmt &b) {
        if (a.same_as(b)) return 0;
        if (!a.defined()) return -1;
        if (!b.defined()) return 1;
        if (int c = compare_field(a->kind, b->kind)) return c;
        switch (a->kind) {
#define TESSERA_DISPATCH(N) \
    case StmtKind::N: return step_node(static_cast<const N *>(a.get()), static_cast<const N *>(b.get()));
            TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
        }
        TESSERA_INTERNAL_ERROR("unknown statement kind");
    }
};

// ---------------------------------------------------------------------------------------
// hash: a post-order walk with an explicit stack; each node's hash combines its kind,
// type and fields with its children's hashes. Shared expression nodes are hashed once.

class Hasher {
public:
    Hasher() = default;
    /** With a memo kept by the caller across runs, in which every expression node is
     * recorded (not only shared ones). */
    explicit Hasher(std::unordered_map<const void *, uint64_t> *memo) : memo_(memo), memo_all_(true) {}

    uint64_t run(const void *root, bool is_stmt) {
        stack_.push_back({root, 0, 0, is_stmt, false});
        while (!stack_.empty()) {
            size_t top = stack_.size() - 1;
            if (stack_[top].expanded) {
                finish(top);
            } else {
                expand(top);
            }
        }
        TESSERA_INTERNAL_ASSERT(values_.size() == 1, "IR hash: unbalanced walk");
        return values_.back();
    }

private:
    struct Item {
        const void *handle;
        uint64_t local;       // hash of the node's kind, type and fields
        uint32_t nchildren;
        bool is_stmt;
        bool expanded;
    };
    std::vector<Item> stack_;
    std::vector<uint64_t> values_;
    std::vector<Child> children_;
    std::unordered_map<const void *, uint64_t> own_memo_;
    std::unordered_map<const void *, uint64_t> *memo_ = &own_memo_;
    bool memo_all_ = false;

    template<typename N>
    uint64_t local_hash(const N *x, uint64_t seed) {
        FieldHash fh{seed};
        fields(x, x, fh);
        children_.clear();
        ChildCollector cc{children_};
        children(x, cc);
        return fh.h;
    }

    void expand(size_t top) {
        Item &it = stack_[top];
        uint64_t local = 0;
        if (!it.is_stmt) {
            const Expr &e = *static_cast<const Expr *>(it.handle);
            if (!e.defined()) {
                values_.push_back(kUndefinedHash);
                stack_.pop_back();
                return;
            }
            if (memo_all_ || shared(e)) {
                auto found = memo_->find(e.get());
                if (found != memo_->end()) {
                    values_.push_back(found->second);
                    stack_.pop_back();
                    return;
                }
            }
            uint64_t seed = mix(mix(uint64_t(e->kind), 1), hash_field(e->type));
            switch (e->kind) {
#define TESSERA_DISPATCH(N) \
    case ExprKind::N: local = local_hash(static_cast<const N *>(e.get()), seed); break;
                TESSERA_FOR_EACH_EXPR(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
            }
        } else {
            const Stmt &s = *static_cast<const Stmt *>(it.handle);
            if (!s.defined()) {
                values_.push_back(kUndefinedHash);
                stack_.pop_back();
                return;
            }
            uint64_t seed = mix(uint64_t(s->kind), 2);
            switch (s->kind) {
#define TESSERA_DISPATCH(N) \
    case StmtKind::N: local = local_hash(static_cast<const N *>(s.get()), seed); break;
                TESSERA_FOR_EACH_STMT(TESSERA_DISPATCH)
#undef TESSERA_DISPATCH
            }
        }
        it.local = local;
        it.nchildren = static_cast<uint32_t>(children_.size());
        it.expanded = true;
        // `it` may dangle from here on.
        for (size_t i = children_.size(); i-- > 0;) {
            stack_.push_back({children_[i].handle, 0, 0, children_[i].is_stmt, false});
        }
    }

    void finish(size_t top) {
        Item it = stack_[top];
        stack_.pop_back();
        uint64_t h = it.local;
        size_t first = values_.size() - it.nchildren;
        for (size_t i = first; i < values_.size(); i++) h = mix(h, values_[i]);
        values_.resize(first);
        values_.push_back(h);
        if (!it.is_stmt) {
            const Expr &e = *static_cast<const Expr *>(it.handle);
            if (memo_all_ || shared(e)) memo_->emplace(e.get(), h);
        }
    }
};

}  // namespace

int compare(const Expr &a, const Expr &b) {
    if (a.same_as(b)) return 0;
    return Comparer().run_expr(a, b);
}

int compare(const Stmt &a, const Stmt &b) {
    if (a.same_as(b)) return 0;
    return Comparer().run_stmt(a, b);
}

bool equal(const Expr &a, const Expr &b) { return compare(a, b) == 0; }
bool equal(const Stmt &a, const Stmt &b) { return compare(a, b) == 0; }
bool equal(const Provenance &a, const Provenance &b) {
    if (&a == &b) return true;
    return Comparer().run_provenance(a, b) == 0;
}

size_t hash(const Expr &e) { return static_cast<size_t>(Hasher().run(&e, false)); }
size_t hash(const Stmt &s) { return static_cast<size_t>(Hasher().run(&s, true)); }

size_t HashCache::operator()(const Expr &e) { return static_cast<size_t>(Hasher(&memo_).run(&e, false)); }

}  // namespace tessera::ir
