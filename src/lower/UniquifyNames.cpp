// Alpha renaming: every name a lowered statement binds (a let, a loop variable, an
// allocation) is bound exactly once, and never a name the statement also uses unbound
// (a Param, a buffer argument or its descriptor variables). Loop partitioning, unrolling,
// specializations and constant-extent copies bind the same names more than once, in
// sequence or nested; the later bindings get fresh names ("x$2"), and their uses follow
// their scope. Afterwards a name means one thing wherever it occurs, which the passes
// after this one and the validator rely on (src/ir/VerifyLowered.h checks it).

#include <map>
#include <set>
#include <vector>

#include "ir/IRMutator.h"
#include "ir/Names.h"
#include "lower/Pipeline.h"

namespace tessera::lower {

using namespace ir;

namespace {

class Uniquify : public IRMutator {
public:
    explicit Uniquify(const NamesIn &names)
        : taken_vars_(names.vars), taken_buffers_(names.buffers), free_vars_(names.free_vars),
          free_buffers_(names.free_buffers) {}

protected:
    Expr visit(const Variable *op, const Expr &self) override {
        auto it = var_scope_.find(op->name);
        if (it == var_scope_.end() || it->second.empty() || it->second.back() == op->name) return self;
        return Variable::make(op->type, it->second.back(), op->var_kind);
    }
    Expr visit(const Let *op, const Expr &self) override {
        Expr value = mutate(op->value);
        const std::string name = bind(var_scope_, bound_vars_, taken_vars_, free_vars_, op->name);
        Expr body = mutate(op->body);
        var_scope_[op->name].pop_back();
        if (name == op->name && value.same_as(op->value) && body.same_as(op->body)) return self;
        return Let::make(name, value, body);
    }
    Stmt visit(const LetStmt *op, const Stmt &self) override {
        Expr value = mutate(op->value);
        const std::string name = bind(var_scope_, bound_vars_, taken_vars_, free_vars_, op->name);
        Stmt body = mutate(op->body);
        var_scope_[op->name].pop_back();
        if (name == op->name && value.same_as(op->value) && body.same_as(op->body)) return self;
        return LetStmt::make(name, value, body);
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Expr mn = mutate(op->min), ex = mutate(op->extent);
        const std::string name = bind(var_scope_, bound_vars_, taken_vars_, free_vars_, op->name);
        Stmt body = mutate(op->body);
        var_scope_[op->name].pop_back();
        if (name == op->name && mn.same_as(op->min) && ex.same_as(op->extent) && body.same_as(op->body)) return self;
        return For::make(name, mn, ex, op->for_type, body, op->loop);
    }
    Stmt visit(const Allocate *op, const Stmt &self) override {
        std::vector<Expr> extents;
        bool changed = false;
        for (const Expr &e : op->extents) {
            extents.push_back(mutate(e));
            changed = changed || !extents.back().same_as(e);
        }
        const std::string name = bind(buffer_scope_, bound_buffers_, taken_buffers_, free_buffers_, op->name);
        Stmt body = mutate(op->body);
        buffer_scope_[op->name].pop_back();
        if (name == op->name && !changed && body.same_as(op->body)) return self;
        return Allocate::make(name, op->type, extents, body);
    }
    Stmt visit(const Free *op, const Stmt &self) override {
        const std::string &name = buffer_name(op->name);
        return name == op->name ? self : Free::make(name);
    }
    Expr visit(const Load *op, const Expr &self) override {
        Expr index = mutate(op->index);
        const std::string &name = buffer_name(op->buffer);
        if (name == op->buffer && index.same_as(op->index)) return self;
        return Load::make(op->type, name, index);
    }
    Stmt visit(const Store *op, const Stmt &self) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        auto prov = mutate_provenance(op->provenance);
        const std::string &name = buffer_name(op->buffer);
        if (name == op->buffer && value.same_as(op->value) && index.same_as(op->index) && prov == op->provenance)
            return self;
        return Store::make(name, value, index, prov);
    }

private:
    using ScopeMap = std::map<std::string, std::vector<std::string>>;

    /** A new binding of `name`: the name itself the first time it is bound, unless it is
     * also used unbound; a fresh "name$k" otherwise. */
    static std::string bind(ScopeMap &scope, std::set<std::string> &bound, std::set<std::string> &taken,
                            const std::set<std::string> &free, const std::string &name) {
        std::string fresh = name;
        if (bound.count(name) || free.count(name)) {
            taken.insert(name);
            fresh = unique_name(name, taken);
        }
        bound.insert(fresh);
        taken.insert(fresh);
        scope[name].push_back(fresh);
        return fresh;
    }

    const std::string &buffer_name(const std::string &name) const {
        auto it = buffer_scope_.find(name);
        return it == buffer_scope_.end() || it->second.empty() ? name : it->second.back();
    }

    ScopeMap var_scope_, buffer_scope_;
    std::set<std::string> bound_vars_, bound_buffers_;
    std::set<std::string> taken_vars_, taken_buffers_;
    const std::set<std::string> free_vars_, free_buffers_;
};

}  // namespace

Stmt uniquify_names(Stmt s) {
    Uniquify u(names_in(s));
    return u.mutate(s);
}

}  // namespace tessera::lower
