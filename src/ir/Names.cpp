#include "ir/Names.h"

#include <map>
#include <mutex>

#include "ir/IRVisitor.h"

namespace tessera::ir {

std::string fresh_name(char prefix) {
    static std::mutex mutex;
    static std::map<char, int> counters;
    std::lock_guard<std::mutex> lock(mutex);
    return std::string(1, prefix) + std::to_string(counters[prefix]++);
}

namespace {

/** Every variable and buffer name in s, bound or free, and the names used where no
 * binding of them is in scope. */
class CollectNames : public IRVisitor {
public:
    explicit CollectNames(bool annotations) : annotations_(annotations) {}
    NamesIn names;
    using IRVisitor::include;

protected:
    void visit(const Variable *op) override {
        names.vars.insert(op->name);
        if (!bound_vars_.count(op->name)) names.free_vars.insert(op->name);
    }
    void visit(const Let *op) override {
        include(op->value);
        bind_var(op->name, [&] { include(op->body); });
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        bind_var(op->name, [&] { include(op->body); });
    }
    void visit(const For *op) override {
        include(op->min);
        include(op->extent);
        bind_var(op->name, [&] { include(op->body); });
    }
    void visit(const Load *op) override {
        use_buffer(op->buffer);
        include(op->index);
    }
    void visit(const Store *op) override {
        use_buffer(op->buffer);
        include(op->value);
        include(op->index);
        if (op->provenance && annotations_) visit_provenance(*op->provenance);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) include(e);
        names.buffers.insert(op->name);
        bound_buffers_[op->name]++;
        include(op->body);
        bound_buffers_[op->name]--;
    }
    void visit_provenance(const Provenance &p) override {
        for (const Expr &c : p.coords) include(c);
        for (const auto &r : p.rvars) include(r.second);
    }

private:
    template<typename F>
    void bind_var(const std::string &name, F &&body) {
        names.vars.insert(name);
        bound_vars_[name]++;
        body();
        if (--bound_vars_[name] == 0) bound_vars_.erase(name);
    }
    void use_buffer(const std::string &name) {
        names.buffers.insert(name);
        auto it = bound_buffers_.find(name);
        if (it == bound_buffers_.end() || it->second == 0) names.free_buffers.insert(name);
    }

    bool annotations_;
    std::map<std::string, int> bound_vars_, bound_buffers_;
};

}  // namespace

NamesIn names_in(const Stmt &s, bool annotations) {
    CollectNames c(annotations);
    c.include(s);
    return c.names;
}

std::string unique_name(const std::string &base, std::set<std::string> &taken) {
    std::string name = base;
    for (int k = 2; taken.count(name); k++) name = base + "$" + std::to_string(k);
    taken.insert(name);
    return name;
}

}  // namespace tessera::ir
