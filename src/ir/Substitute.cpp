#include "ir/Substitute.h"

#include <set>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"

namespace tessera::ir {

namespace {

class Substituter : public IRMutator {
public:
    explicit Substituter(const std::map<std::string, Expr> &r) : replacements_(r) {}

protected:
    Expr visit(const Variable *op, const Expr &self) override {
        if (shadowed_.count(op->name)) return self;
        auto it = replacements_.find(op->name);
        return it == replacements_.end() ? self : it->second;
    }
    // A let that binds a replaced name hides it in its body.
    Expr visit(const Let *op, const Expr &self) override {
        Expr value = mutate(op->value);
        bool hide = replacements_.count(op->name) && !shadowed_.count(op->name);
        if (hide) shadowed_.insert(op->name);
        Expr body = mutate(op->body);
        if (hide) shadowed_.erase(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return self;
        return Let::make(op->name, value, body);
    }
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        Expr value = mutate(op->value);
        bool hide = replacements_.count(op->name) && !shadowed_.count(op->name);
        if (hide) shadowed_.insert(op->name);
        Stmt body = mutate(op->body);
        if (hide) shadowed_.erase(op->name);
        if (value.same_as(op->value) && body.same_as(op->body)) return self;
        return LetStmt::make(op->name, value, body);
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Expr mn = mutate(op->min), ex = mutate(op->extent);
        bool hide = replacements_.count(op->name) && !shadowed_.count(op->name);
        if (hide) shadowed_.insert(op->name);
        Stmt body = mutate(op->body);
        if (hide) shadowed_.erase(op->name);
        if (mn.same_as(op->min) && ex.same_as(op->extent) && body.same_as(op->body)) return self;
        return For::make(op->name, mn, ex, op->for_type, body, op->loop);
    }

private:
    const std::map<std::string, Expr> &replacements_;
    std::set<std::string> shadowed_;
};

// Finds a variable named `name`, or any of `names`.
class UsesVar : public IRVisitor {
public:
    explicit UsesVar(const std::string &n) : name(&n) {}
    explicit UsesVar(const std::set<std::string> &n) : names(&n) {}
    const std::string *name = nullptr;
    const std::set<std::string> *names = nullptr;
    bool found = false;
    using IRVisitor::include;

protected:
    void visit(const Variable *op) override {
        found = found || (name ? op->name == *name : names->count(op->name) > 0);
    }
};

}  // namespace

Expr substitute(const std::map<std::string, Expr> &r, const Expr &e) {
    if (r.empty()) return e;
    Substituter s(r);
    return s.mutate(e);
}

Stmt substitute(const std::map<std::string, Expr> &r, const Stmt &st) {
    if (r.empty()) return st;
    Substituter s(r);
    return s.mutate(st);
}

Expr substitute(const std::string &name, const Expr &replacement, const Expr &e) {
    return substitute(std::map<std::string, Expr>{{name, replacement}}, e);
}

Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s) {
    return substitute(std::map<std::string, Expr>{{name, replacement}}, s);
}

bool uses_var(const Expr &e, const std::string &name) {
    UsesVar u(name);
    u.include(e);
    return u.found;
}

bool uses_var(const Stmt &s, const std::string &name) {
    UsesVar u(name);
    u.include(s);
    return u.found;
}

bool uses_any_var(const Expr &e, const std::set<std::string> &names) {
    UsesVar u(names);
    u.include(e);
    return u.found;
}

Expr substitute_lets(const std::vector<std::pair<std::string, Expr>> &lets, Expr e, int max_nodes) {
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
        if (!tree_size_below(e, max_nodes)) return Expr();
        if (uses_var(e, it->first)) e = substitute(it->first, it->second, e);
    }
    return tree_size_below(e, max_nodes) ? e : Expr();
}

std::set<std::string> variables_in(const Expr &e) {
    struct Collect : IRVisitor {
        std::set<std::string> names;
        using IRVisitor::include;
        void visit(const Variable *op) override { names.insert(op->name); }
    } c;
    c.include(e);
    return c.names;
}

bool reads_memory(const Expr &e) { return reads_buffer(e, ""); }

bool reads_buffer(const Expr &e, const std::string &buffer) {
    struct Find : IRVisitor {
        const std::string *buffer;
        bool found = false;
        using IRVisitor::include;
        void visit(const Load *op) override {
            found = found || buffer->empty() || op->buffer == *buffer;
            IRVisitor::visit(op);
        }
    } f;
    f.buffer = &buffer;
    f.include(e);
    return f.found;
}

void BufferAccesses::visit(const Load *op) {
    reads.insert(op->buffer);
    IRVisitor::visit(op);
}
void BufferAccesses::visit(const Store *op) {
    writes.insert(op->buffer);
    IRVisitor::visit(op);
}
void BufferAccesses::visit(const Free *op) { frees.insert(op->name); }

bool accesses_buffer(const Stmt &s, const std::string &buffer) {
    struct Find : IRVisitor {
        const std::string *buffer;
        bool found = false;
        using IRVisitor::include;
        void visit(const Load *op) override {
            found = found || op->buffer == *buffer;
            if (!found) IRVisitor::visit(op);
        }
        void visit(const Store *op) override {
            found = found || op->buffer == *buffer;
            if (!found) IRVisitor::visit(op);
        }
        void visit(const Free *op) override { found = found || op->name == *buffer; }
    } f;
    f.buffer = &buffer;
    f.include(s);
    return f.found;
}

bool has_side_effects(const Expr &e) {
    struct Find : IRVisitor {
        bool found = false;
        using IRVisitor::include;
        void visit(const Call *op) override {
            found = found || (op->call_kind == CallKind::Intrinsic && has_effect(op->op));
            if (!found) IRVisitor::visit(op);
        }
    } f;
    f.include(e);
    return f.found;
}

int memory_accesses(const Stmt &s) {
    struct Count : IRVisitor {
        int n = 0;
        using IRVisitor::include;
        void visit(const Load *op) override {
            n++;
            IRVisitor::visit(op);
        }
        void visit(const Store *op) override {
            n++;
            IRVisitor::visit(op);
        }
    } c;
    c.include(s);
    return c.n;
}

bool tree_size_below(const Expr &e, int limit) {
    struct Count : IRVisitor {
        int left = 0;
        using IRVisitor::include;
#define TESSERA_COUNT_NODE(N)          \
    void visit(const N *op) override { \
        if (left <= 0) return;         \
        left--;                        \
        IRVisitor::visit(op);          \
    }
        TESSERA_FOR_EACH_EXPR(TESSERA_COUNT_NODE)
#undef TESSERA_COUNT_NODE
    } c;
    c.left = limit;
    c.include(e);
    return c.left > 0;
}

}  // namespace tessera::ir
