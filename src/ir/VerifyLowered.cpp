#include "ir/VerifyLowered.h"

#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "ir/Check.h"
#include "ir/Function.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace tessera::ir {

namespace {

std::string excerpt(const std::string &text) {
    constexpr size_t kMax = 240;
    std::string s = text.size() > kMax ? text.substr(0, kMax) + " ..." : text;
    for (char &c : s)
        if (c == '\n') c = ' ';
    return s;
}

class Verifier : public IRVisitor {
public:
    Verifier(const LoweredPipeline &p, const VerifyOptions &o) : p_(p), o_(o) {
        for (const PipelineArgument &a : p.args) {
            if (a.kind == PipelineArgument::Kind::Param) {
                params_[a.name] = a.type;
                continue;
            }
            buffers_[a.name].push_back(Buffer{a.type, a.kind == PipelineArgument::Kind::OutputBuffer, true});
            if (a.kind == PipelineArgument::Kind::OutputBuffer) outputs_.insert(a.name);
            for (int d = 0; d < a.dimensions; d++) {
                const std::string i = std::to_string(d);
                descriptors_[a.name + ".min." + i] = Int(32);
                descriptors_[a.name + ".extent." + i] = Int(32);
                descriptors_[a.name + ".stride." + i] = Int(64);
            }
        }
        if (p.output)
            for (const auto &f : pipeline_functions(p.output)) funcs_.insert(f.get());
    }

    using IRVisitor::include;

protected:
    // --- expressions -------------------------------------------------------------------

    void visit(const StringImm *op) override {
        if (in_message_ == 0) fail("the string \"" + excerpt(op->value) + "\" outside an assertion message or a print");
    }
    void visit(const Variable *op) override {
        if (op->var_kind == VarKind::Pure || op->var_kind == VarKind::Reduction)
            fail(std::string("the ") + (op->var_kind == VarKind::Pure ? "Var" : "RVar") + " \"" + op->name +
                 "\" of the algorithm is left in the lowered code");
        auto v = vars_.find(op->name);
        if (v != vars_.end() && !v->second.empty()) {
            if (v->second.back() != op->type)
                fail("the variable \"" + op->name + "\" is bound to a " + v->second.back().to_string() +
                     " but used as a " + op->type.to_string());
            return;
        }
        if (op->var_kind == VarKind::Param) {
            auto it = params_.find(op->name);
            if (it == params_.end()) fail("the Param \"" + op->name + "\" is not an argument of the pipeline");
            if (it->second != op->type)
                fail("the Param \"" + op->name + "\" is an argument of type " + it->second.to_string() +
                     " but used as a " + op->type.to_string());
            return;
        }
        auto d = descriptors_.find(op->name);
        if (d == descriptors_.end()) fail("the variable \"" + op->name + "\" is used where it is not bound");
        if (d->second != op->type)
            fail("the buffer descriptor variable \"" + op->name + "\" is a " + d->second.to_string() +
                 " but used as a " + op->type.to_string());
    }
    void visit(const Call *op) override {
        if (op->call_kind != CallKind::Intrinsic)
            fail(std::string("the ") + (op->call_kind == CallKind::Func ? "Func call " : "image read ") + op->name +
                 "(...) is left in the lowered code (it must be a Load)");
        if (op->op == Intrinsic::Require) fail("a require left in the lowered code (lift requirements makes it an assertion)");
        if (writes_line(op->op)) {
            // print_when(condition, value, parts...): text only among the parts.
            if (op->args.size() < 2 || as<StringImm>(op->args[0]) || as<StringImm>(op->args[1]))
                fail("a print without its condition and value");
            include(op->args[0]);
            include(op->args[1]);
            for (size_t k = 2; k < op->args.size(); k++)
                if (!as<StringImm>(op->args[k])) include(op->args[k]);
            return;
        }
        IRVisitor::visit(op);
    }
    void visit(const Let *op) override {
        include(op->value);
        bind_var(op->name, op->value.type());
        include(op->body);
        unbind_var(op->name);
    }
    void visit(const Load *op) override {
        const Buffer &b = buffer(op->buffer, "a load from");
        check_access(op->buffer, b, op->type, op->index);
        include(op->index);
    }
    void visit(const Select *op) override {
        if (op->condition.type().lanes != 1 && op->condition.type().lanes != op->type.lanes)
            fail("a select whose condition has " + std::to_string(op->condition.type().lanes) +
                 " lanes chooses between values of " + std::to_string(op->type.lanes));
        IRVisitor::visit(op);
    }

    // --- statements --------------------------------------------------------------------

    void visit(const LetStmt *op) override {
        At at(*this, op);
        include(op->value);
        bind_var(op->name, op->value.type());
        include(op->body);
        unbind_var(op->name);
    }
    void visit(const AssertStmt *op) override {
        At at(*this, op);
        if (!op->condition.type().is_bool()) fail("an assertion on a " + op->condition.type().to_string());
        include(op->condition);
        in_message_++;
        for (const Expr &m : op->message) include(m);
        in_message_--;
    }
    void visit(const For *op) override {
        At at(*this, op);
        const Type t = op->min.type();
        if (!(t == Int(32) || t == Int(64)) || op->extent.type() != t)
            fail("the loop over \"" + op->name + "\" has bounds of types " + t.to_string() + " and " +
                 op->extent.type().to_string() + " (scalar int32 or int64 expected)");
        if (!op->loop) fail("the loop over \"" + op->name + "\" does not say which loop of the algorithm it is");
        if (op->loop->func && !funcs_.empty() && !funcs_.count(op->loop->func.get()))
            fail("the loop over \"" + op->name + "\" is a loop of Func \"" + op->loop->func->name +
                 "\", which is not part of the pipeline");
        include(op->min);
        include(op->extent);
        bind_var(op->name, t);
        control_depth_++;
        include(op->body);
        control_depth_--;
        unbind_var(op->name);
    }
    void visit(const Store *op) override {
        At at(*this, op);
        const Buffer &b = buffer(op->buffer, "a store to");
        if (b.argument && !b.output) fail("a store to the input buffer \"" + op->buffer + "\"");
        check_access(op->buffer, b, op->value.type(), op->index);
        check_provenance(op);
        include(op->value);
        include(op->index);
        if (op->provenance) {
            for (const Expr &c : op->provenance->coords) include(c);
            for (const auto &r : op->provenance->rvars) include(r.second);
        }
    }
    void visit(const Allocate *op) override {
        At at(*this, op);
        if (!op->type.is_scalar()) fail("the allocation \"" + op->name + "\" has the vector type " + op->type.to_string());
        for (const Expr &e : op->extents) {
            if (e.type() != Int(64)) fail("an extent of the allocation \"" + op->name + "\" is a " + e.type().to_string());
            include(e);
        }
        if (o_.unique_names) claim(bound_buffer_names_, op->name, "buffer");
        if (o_.unique_names && is_argument_buffer(op->name))
            fail("the allocation \"" + op->name + "\" has the name of a buffer argument");
        buffers_[op->name].push_back(Buffer{op->type, false, false, control_depth_});
        include(op->body);
        buffers_[op->name].pop_back();
    }
    void visit(const IfThenElse *op) override {
        At at(*this, op);
        if (op->condition.type() != Bool()) fail("an if on a " + op->condition.type().to_string());
        control_depth_++;
        IRVisitor::visit(op);
        control_depth_--;
    }
    void visit(const Evaluate *op) override {
        At at(*this, op);
        IRVisitor::visit(op);
    }
    void visit(const Free *op) override {
        At at(*this, op);
        auto it = buffers_.find(op->name);
        if (it == buffers_.end() || it->second.empty() || it->second.back().argument)
            fail("a Free of \"" + op->name + "\", which is not an allocation in scope");
        Buffer &b = it->second.back();
        if (b.freed) fail("the allocation \"" + op->name + "\" is freed twice");
        // Once per run of the Allocate: a Free in a loop of the body would run again, and
        // one in a branch would leave the accesses after it valid on the other path.
        if (b.depth != control_depth_)
            fail("the Free of \"" + op->name + "\" is inside a loop or branch of its allocation's body");
        b.freed = true;
    }
    void visit(const Provide *op) override {
        At at(*this, op);
        fail("the Provide to \"" + op->name + "\" is left in the lowered code (storage flattening makes it a Store)");
    }
    void visit(const Realize *op) override {
        At at(*this, op);
        fail("the Realize of \"" + op->name + "\" is left in the lowered code (storage flattening makes it an Allocate)");
    }
    void visit(const ProducerConsumer *op) override {
        At at(*this, op);
        fail("the " + std::string(op->is_producer ? "production" : "consumption") + " mark of \"" + op->name +
             "\" is left in the lowered code");
    }

private:
    struct Buffer {
        Type type;
        bool output = false;
        bool argument = false;
        int depth = 0;  // an allocation's: the loops and branches around it
        bool freed = false;
    };

    /** The statement being checked, for messages (a non-owning handle: the tree outlives
     * the check). */
    struct At {
        Verifier &v;
        template<typename T>
        At(Verifier &verifier, const T *op) : v(verifier) {
            v.where_.push_back(Stmt(std::shared_ptr<const StmtNode>(std::shared_ptr<const StmtNode>(), op)));
        }
        ~At() { v.where_.pop_back(); }
    };

    [[noreturn]] void fail(const std::string &what) const {
        std::string where;
        if (!where_.empty()) {
            std::ostringstream s;
            IRPrinter(s).print(where_.back());
            where = "; in: " + excerpt(s.str());
        }
        throw InternalError("the lowered code of pipeline \"" + p_.name + "\"" +
                            (o_.after.empty() ? "" : " after " + o_.after) + " breaks its contract " +
                            "(src/ir/VerifyLowered.h): " + what + where);
    }

    void claim(std::set<std::string> &bound, const std::string &name, const char *what) {
        if (!bound.insert(name).second) fail(std::string("the ") + what + " name \"" + name + "\" is bound twice");
    }

    bool is_argument_buffer(const std::string &name) const {
        auto it = buffers_.find(name);
        return it != buffers_.end() && !it->second.empty() && it->second.front().argument;
    }

    void bind_var(const std::string &name, Type t) {
        if (o_.unique_names) {
            claim(bound_var_names_, name, "variable");
            if (params_.count(name) || descriptors_.count(name))
                fail("the variable \"" + name + "\" is bound, but it is also an argument of the pipeline");
        }
        vars_[name].push_back(t);
    }
    void unbind_var(const std::string &name) { vars_[name].pop_back(); }

    const Buffer &buffer(const std::string &name, const char *access) const {
        auto it = buffers_.find(name);
        if (it == buffers_.end() || it->second.empty())
            fail(std::string(access) + " \"" + name + "\", which is neither an argument nor an allocation in scope");
        if (it->second.back().freed) fail(std::string(access) + " \"" + name + "\" after its Free");
        return it->second.back();
    }

    void check_access(const std::string &name, const Buffer &b, Type value, const Expr &index) const {
        const Type e = value.element_of();
        const bool byte_bool = (e.is_bool() && b.type == UInt(8)) || (b.type.is_bool() && e == UInt(8));
        if (e != b.type && !byte_bool)
            fail("an access of type " + e.to_string() + " to the buffer \"" + name + "\" of type " + b.type.to_string());
        if (index.type() != Int(64).with_lanes(value.lanes))
            fail("an access to the buffer \"" + name + "\" at an index of type " + index.type().to_string() +
                 " (int64 with " + std::to_string(value.lanes) + " lanes expected)");
    }

    void check_provenance(const Store *op) const {
        const Provenance *prov = op->provenance.get();
        if (!prov) fail("a store to \"" + op->buffer + "\" has no provenance annotation");
        if (!prov->func) fail("the annotation of a store to \"" + op->buffer + "\" names no Func");
        const FunctionData &f = *prov->func;
        if (!funcs_.empty() && !funcs_.count(&f))
            fail("the annotation of a store to \"" + op->buffer + "\" names Func \"" + f.name +
                 "\", which is not part of the pipeline");
        if (prov->stage < 0 || prov->stage >= int(f.definitions.size()))
            fail("the annotation of a store to \"" + op->buffer + "\" names definition " + std::to_string(prov->stage) +
                 " of Func \"" + f.name + "\", which has " + std::to_string(f.definitions.size()));
        if (int(prov->coords.size()) != f.dimensions())
            fail("the annotation of a store to \"" + op->buffer + "\" has " + std::to_string(prov->coords.size()) +
                 " coordinates for Func \"" + f.name + "\" of " + std::to_string(f.dimensions()) + " dimensions");
        const int lanes = op->value.type().lanes;
        for (const Expr &c : prov->coords)
            if (c.type() != Int(32).with_lanes(lanes))
                fail("a coordinate of the annotation of a store of " + std::to_string(lanes) + " lane(s) to \"" +
                     op->buffer + "\" is a " + c.type().to_string() + " (int32 with as many lanes expected)");
        const auto &rdom = f.definitions[size_t(prov->stage)].rdom;
        const size_t rvars = prov->kind == Provenance::Kind::FinalCopy || !rdom ? 0 : rdom->dims.size();
        if (prov->rvars.size() != rvars)
            fail("the annotation of a store to \"" + op->buffer + "\" gives " + std::to_string(prov->rvars.size()) +
                 " RDom variable values; definition " + std::to_string(prov->stage) + " of Func \"" + f.name +
                 "\" has " + std::to_string(rvars));
        for (const auto &[name, value] : prov->rvars)
            if (value.type() != Int(32).with_lanes(lanes))
                fail("the value of " + name + " in the annotation of a store of " + std::to_string(lanes) +
                     " lane(s) to \"" + op->buffer + "\" is a " + value.type().to_string());
        if (prov->kind == Provenance::Kind::FinalCopy && !outputs_.count(op->buffer))
            fail("a final copy of Func \"" + f.name + "\" is stored to \"" + op->buffer + "\", not to the output");
    }

    const LoweredPipeline &p_;
    const VerifyOptions &o_;
    std::map<std::string, Type> params_, descriptors_;
    std::map<std::string, std::vector<Buffer>> buffers_;
    int control_depth_ = 0;  // the loops and branches around the statement being checked
    std::map<std::string, std::vector<Type>> vars_;
    std::set<std::string> bound_var_names_, bound_buffer_names_;
    std::set<const FunctionData *> funcs_;
    std::set<std::string> outputs_;  // one per value of the output
    int in_message_ = 0;
    std::vector<Stmt> where_;
};

}  // namespace

void verify_lowered(const LoweredPipeline &p, const VerifyOptions &options) {
    TESSERA_INTERNAL_ASSERT(p.body.defined(), "lowered pipeline \"" << p.name << "\" has no body");
    Verifier v(p, options);
    v.include(p.body);
}

}  // namespace tessera::ir
