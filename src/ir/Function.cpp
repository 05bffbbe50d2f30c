// A Func's definitions as IR (src/ir/Function.h): descriptions for messages, the Funcs a
// pipeline depends on, and the structural rules every pipeline meets before it is lowered
// or interpreted.

#include "ir/Function.h"

#include <functional>
#include <map>
#include <set>

#include "ir/IRVisitor.h"

namespace tessera::ir {

namespace {

/** The Funcs, images and Params an expression refers to. */
struct Referenced : IRVisitor {
    std::vector<std::shared_ptr<FunctionData>> funcs;
    std::vector<const Call *> images;
    std::vector<const Variable *> params;
    using IRVisitor::include;

    void include(const Definition &d) {
        for (const Expr &a : d.args) include(a);
        include(d.value);
        for (const Expr &p : d.predicates) include(p);
    }

protected:
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Func) funcs.push_back(op->func);
        if (op->call_kind == CallKind::Image) images.push_back(op);
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override {
        if (op->var_kind == VarKind::Param) params.push_back(op);
    }
};

std::string quote(const std::string &s) { return "\"" + s + "\""; }

}  // namespace

int FunctionData::outputs() const {
    return definitions.empty() ? 1 : int(tuple_components(definitions[0].value).size());
}

std::vector<Type> FunctionData::types() const {
    if (definitions.empty()) return {type};
    std::vector<Type> ts;
    for (const Expr &v : tuple_components(definitions[0].value)) ts.push_back(v.type());
    return ts;
}

std::vector<std::string> value_storages(const std::string &storage, int values) {
    if (values == 1) return {storage};
    std::vector<std::string> names;
    for (int k = 0; k < values; k++) names.push_back(storage + "." + std::to_string(k));
    return names;
}

std::string describe_definition(const FunctionData &f, int stage) {
    if (stage == 0) return "the pure definition of Func \"" + f.name + "\"";
    return "update " + std::to_string(stage - 1) + " of Func \"" + f.name + "\"";
}

std::vector<std::shared_ptr<FunctionData>> direct_callees(const FunctionData &f) {
    Referenced calls;
    for (const Definition &d : f.definitions) calls.include(d);
    return std::move(calls.funcs);
}

std::vector<std::shared_ptr<FunctionData>> dependency_order(const std::shared_ptr<FunctionData> &f) {
    std::vector<std::shared_ptr<FunctionData>> order;
    std::set<const FunctionData *> visited;
    std::function<void(const std::shared_ptr<FunctionData> &)> dfs = [&](const std::shared_ptr<FunctionData> &g) {
        if (!visited.insert(g.get()).second) return;
        for (const auto &c : direct_callees(*g))
            if (c != g) dfs(c);
        order.push_back(g);
    };
    dfs(f);
    return order;
}

std::vector<std::shared_ptr<FunctionData>> pipeline_functions(const std::shared_ptr<FunctionData> &f) {
    std::vector<std::shared_ptr<FunctionData>> order = dependency_order(f);
    std::set<const FunctionData *> seen;
    for (const auto &g : order) seen.insert(g.get());
    auto add = [&](const std::shared_ptr<FunctionData> &w) {
        if (seen.count(w.get())) return;
        for (const auto &g : dependency_order(w))
            if (seen.insert(g.get()).second) order.push_back(g);
    };
    for (size_t i = 0; i < order.size(); i++) {
        for (const auto &[consumer, w] : order[i]->schedule.wrappers) {
            (void)consumer;
            add(w);
        }
        // The wrappers of the ImageParams it reads (ImageParam::in()).
        Referenced uses;
        for (const Definition &d : order[i]->definitions) uses.include(d);
        for (const Call *c : uses.images)
            if (c->input && c->input->wrapper) add(c->input->wrapper);
    }
    return order;
}

void check_unique_names(const std::shared_ptr<FunctionData> &output, int stage) {
    std::map<std::string, std::pair<const void *, std::string>> seen;
    auto claim = [&](const std::string &name, const void *who, const std::string &what) {
        auto [it, inserted] = seen.emplace(name, std::make_pair(who, what));
        if (!inserted && it->second.first != who)
            throw CompileError((stage >= 0 ? "In " + describe_definition(*output, stage) + ": t" : std::string("T")) +
                               "wo different objects in the pipeline of " + quote(output->name) + " are named " +
                               quote(name) + " (" + it->second.second + " and " + what +
                               "); names in a pipeline must be unique");
    };
    for (const auto &f : dependency_order(output)) {
        claim(f->name, f.get(), "a Func");
        for (const Definition &d : f->definitions) {
            Referenced uses;
            uses.include(d);
            for (const Call *c : uses.images) {
                if (c->buffer) claim(c->name, c->buffer.get(), "a Buffer");
                else claim(c->name, c->input.get(), "an ImageParam");
            }
            for (const Variable *v : uses.params) claim(v->name, v->param.get(), "a Param");
        }
    }
}

void check_realize_sizes(const FunctionData &f, const std::vector<int> &sizes) {
    if (int(sizes.size()) != f.dimensions())
        throw CompileError("Func \"" + f.name + "\" has " + std::to_string(f.dimensions()) +
                           " dimensions but realize was given " + std::to_string(sizes.size()) + " sizes");
    for (size_t i = 0; i < sizes.size(); i++)
        if (sizes[i] < 0)
            throw RuntimeError("realize of Func \"" + f.name + "\": size " + std::to_string(sizes[i]) +
                               " of dimension " + std::to_string(i) + " is negative");
}

}  // namespace tessera::ir
