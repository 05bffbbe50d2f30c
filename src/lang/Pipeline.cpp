// Pipeline and Realization (include/tessera/Pipeline.h): several outputs, each realized by
// its own compiled pipeline.

#include <set>

#include "ir/Function.h"
#include "tessera/Pipeline.h"

namespace tessera {

Realization::Realization(std::vector<Buffer<>> buffers) : buffers_(std::move(buffers)) {}

Buffer<> &Realization::operator[](size_t i) {
    if (i >= buffers_.size())
        throw RuntimeError("Realization has " + std::to_string(buffers_.size()) + " buffers; there is no buffer " +
                           std::to_string(i));
    return buffers_[i];
}

const Buffer<> &Realization::operator[](size_t i) const { return const_cast<Realization &>(*this)[i]; }

const Buffer<> &Realization::only() const {
    if (buffers_.size() != 1)
        throw RuntimeError("A Realization of " + std::to_string(buffers_.size()) +
                           " buffers converted to one Buffer; take one with r[i]");
    return buffers_[0];
}

Pipeline::Pipeline(const Func &output) : Pipeline(std::vector<Func>{output}) {}

Pipeline::Pipeline(const std::vector<Func> &outputs) : outputs_(outputs) {
    if (outputs_.empty()) throw CompileError("A Pipeline needs at least one output Func");
    std::set<const void *> seen;
    for (const Func &f : outputs_) {
        if (!f.defined()) throw CompileError("Pipeline output Func \"" + f.name() + "\" has no definition");
        if (!seen.insert(f.data().get()).second)
            throw CompileError("Func \"" + f.name() + "\" is given twice as an output of one Pipeline");
    }
}

Realization Pipeline::realize(const std::vector<int> &sizes, const Target &target) const {
    if (outputs_.empty()) throw CompileError("realize of an undefined Pipeline");
    std::vector<Buffer<>> buffers;
    for (const Func &f : outputs_) {
        const Realization r = f.realize(sizes, target);  // one Buffer per value of f
        for (size_t k = 0; k < r.size(); k++) buffers.push_back(r[k]);
    }
    return Realization(std::move(buffers));
}

void Pipeline::realize(Realization dst, const Target &target) const {
    std::vector<Buffer<>> buffers;
    for (size_t i = 0; i < dst.size(); i++) buffers.push_back(dst[i]);
    realize(buffers, target);
}

void Pipeline::realize(const std::vector<Buffer<>> &dst, const Target &target) const {
    size_t values = 0;
    for (const Func &f : outputs_) values += size_t(f.outputs());
    if (dst.size() != values)
        throw CompileError("Pipeline with " + std::to_string(outputs_.size()) + " outputs (" + std::to_string(values) +
                           " values) realized into " + std::to_string(dst.size()) +
                           " buffers; give one buffer per output, in order (one per value of an output with a Tuple)");
    size_t next = 0;
    for (const Func &f : outputs_) {
        std::vector<Buffer<>> mine(dst.begin() + std::ptrdiff_t(next), dst.begin() + std::ptrdiff_t(next + size_t(f.outputs())));
        next += size_t(f.outputs());
        f.realize(Realization(std::move(mine)), target);
    }
}

void Pipeline::compile_jit(const Target &target) const {
    for (const Func &f : outputs_) f.compile_jit(target);
}

}  // namespace tessera
