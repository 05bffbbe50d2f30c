#include "validate/Specification.h"

#include <map>
#include <string>

#include "ir/IRMutator.h"
#include "ir/IRVisitor.h"
#include "tessera/Error.h"

namespace tessera::validator {

using namespace ir;

namespace {

size_t rvars_of(const Definition &d) { return d.rdom ? d.rdom->dims.size() : 0; }

/** Why Func `spec` cannot stand for Func `code` (empty if it can). */
std::string mismatch(const FunctionData &code, const FunctionData &spec) {
    auto both = [&](const std::string &what, size_t a, size_t b) {
        return what + " (" + std::to_string(a) + " in the pipeline's algorithm, " + std::to_string(b) + " in the specification)";
    };
    if (code.type != spec.type)
        return "another type (" + code.type.to_string() + " in the pipeline's algorithm, " + spec.type.to_string() +
               " in the specification)";
    if (code.args.size() != spec.args.size()) return both("another number of dimensions", code.args.size(), spec.args.size());
    if (code.definitions.size() != spec.definitions.size())
        return both("another number of definitions", code.definitions.size(), spec.definitions.size());
    for (size_t j = 0; j < code.definitions.size(); j++)
        if (rvars_of(code.definitions[j]) != rvars_of(spec.definitions[j]))
            return both("another number of RVars in " + describe_definition(code, int(j)), rvars_of(code.definitions[j]),
                        rvars_of(spec.definitions[j]));
    return "";
}

/** The images and the bounds of images that an algorithm's definitions read. */
class ImagesRead : public IRVisitor {
public:
    std::map<std::string, std::pair<const BufferData *, const InputData *>> images;

    void include_definitions(const FunctionData &f) {
        for (const Definition &d : f.definitions) {
            for (const Expr &a : d.args) include(a);
            include(d.value);
            for (const Expr &p : d.predicates) include(p);
            if (d.rdom)
                for (const RDomData::Dim &dim : d.rdom->dims) {
                    include(dim.min);
                    include(dim.extent);
                }
        }
    }

protected:
    void visit(const Call *op) override {
        if (op->call_kind == CallKind::Image) images[op->name] = {op->buffer.get(), op->input.get()};
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override {
        if (op->var_kind == VarKind::InputBound && op->input) images[op->input->name] = {nullptr, op->input.get()};
    }
};

/** Replaces the Funcs of the pipeline's algorithm by the specification's, in provenance
 * and loop identities. */
class ToSpecification : public IRMutator {
public:
    explicit ToSpecification(std::map<const FunctionData *, std::shared_ptr<FunctionData>> funcs) : funcs_(std::move(funcs)) {}

protected:
    std::shared_ptr<const Provenance> mutate_provenance(const std::shared_ptr<const Provenance> &p) override {
        if (!p || !p->func) return p;
        auto q = std::make_shared<Provenance>(*p);
        q->func = counterpart(p->func);
        return q;
    }
    Stmt visit(const For *op, const Stmt &self) override {
        Stmt s = IRMutator::visit(op, self);
        if (!op->loop || !op->loop->func) return s;
        const For *f = as<For>(s);
        auto loop = std::make_shared<LoopId>(*op->loop);
        loop->func = counterpart(op->loop->func);
        return For::make(f->name, f->min, f->extent, f->for_type, f->body, loop);
    }

private:
    const std::shared_ptr<FunctionData> &counterpart(const std::shared_ptr<FunctionData> &f) const {
        auto it = funcs_.find(f.get());
        return it == funcs_.end() ? f : it->second;
    }
    std::map<const FunctionData *, std::shared_ptr<FunctionData>> funcs_;
};

/** The Funcs of lowered code's algorithm that its stores and loops name. */
class FuncsNamed : public IRVisitor {
public:
    std::map<const FunctionData *, std::shared_ptr<FunctionData>> funcs;

protected:
    void visit(const Store *op) override {
        if (op->provenance && op->provenance->func) funcs[op->provenance->func.get()] = op->provenance->func;
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        if (op->loop && op->loop->func) funcs[op->loop->func.get()] = op->loop->func;
        IRVisitor::visit(op);
    }
};

}  // namespace

LoweredPipeline against_specification(const LoweredPipeline &code, const std::shared_ptr<FunctionData> &specification) {
    if (!specification || !specification->defined()) throw CompileError("The specification is a Func with no definition");
    const std::string against = "the specification (Func \"" + specification->name + "\")";
    std::map<std::string, std::shared_ptr<FunctionData>> by_name;
    ImagesRead read;
    for (const std::shared_ptr<FunctionData> &f : pipeline_functions(specification)) {
        auto [it, added] = by_name.emplace(f->name, f);
        if (!added && it->second != f) throw CompileError(against + " has two Funcs named \"" + f->name + "\"");
        read.include_definitions(*f);
    }
    // The specification reads the pipeline's own inputs: the value check identifies an
    // image by the object the algorithm reads, and an image the pipeline does not take is
    // not a value the code can be checked against.
    for (const auto &[name, image] : read.images) {
        bool input = false;
        for (const PipelineArgument &a : code.args)
            if (a.kind == PipelineArgument::Kind::InputBuffer &&
                ((image.first && a.buffer.get() == image.first) || (image.second && a.input.get() == image.second)))
                input = true;
        if (!input)
            throw CompileError(against + " reads the image \"" + name + "\", which is not an input of the pipeline \"" + code.name +
                               "\" (a specification reads the pipeline's own ImageParams and Buffers)");
    }

    FuncsNamed named;
    named.include(code.body);
    named.funcs[code.output.get()] = code.output;
    std::map<const FunctionData *, std::shared_ptr<FunctionData>> counterparts;
    for (const auto &[key, f] : named.funcs) {
        std::shared_ptr<FunctionData> spec;
        if (f == code.output) {
            spec = specification;
        } else if (auto it = by_name.find(f->name); it != by_name.end()) {
            spec = it->second;
            if (spec == specification)
                throw CompileError(against + " is the counterpart of the pipeline's output \"" + code.output->name +
                                   "\", not of its Func \"" + f->name + "\"");
        } else {
            throw CompileError(against + " has no Func named \"" + f->name + "\", which the compiled code of \"" + code.name +
                               "\" computes");
        }
        if (const std::string why = mismatch(*f, *spec); !why.empty())
            throw CompileError("Func \"" + spec->name + "\" of " + against + " cannot stand for Func \"" + f->name +
                               "\" of the pipeline: " + why);
        counterparts[key] = spec;
    }

    LoweredPipeline checked = code;
    checked.output = specification;
    checked.body = ToSpecification(std::move(counterparts)).mutate(code.body);
    return checked;
}

}  // namespace tessera::validator
