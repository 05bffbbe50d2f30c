// Computing an extern Func over a region (src/semantics/Extern.h).

#include "semantics/Extern.h"

#include <algorithm>

#include "ir/Check.h"
#include "tessera/Error.h"

namespace tessera::semantics {

using namespace ir;

namespace {

/** A buffer with no memory whose dims are `region`'s first dims (then [0, 0)). */
std::shared_ptr<BufferData> query_buffer(const std::string &name, Type t, int dims, const std::vector<BufferDim> &region) {
    auto b = std::make_shared<BufferData>();
    b->name = name;
    b->type = t;
    for (int i = 0; i < dims; i++) b->dims.push_back(size_t(i) < region.size() ? region[size_t(i)] : BufferDim{0, 0, 0});
    return b;
}

}  // namespace

void compute_extern(const FunctionData &f, const std::shared_ptr<BufferData> &output, const ExternInputs &inputs) {
    const ExternDefinition &e = *f.extern_definition;
    TESSERA_INTERNAL_ASSERT(e.invoke, "extern Func " << f.name << " has no caller");
    const std::string what = "the C function \"" + e.function_name + "\" of extern Func \"" + f.name + "\"";
    std::vector<ExternValue> values(e.args.size() + 1);
    for (size_t i = 0; i < e.args.size(); i++) {
        const ExternArgument &a = e.args[i];
        if (a.func) {
            values[i].buffer = query_buffer(a.func->name, a.func->type, a.func->dimensions(), output->dims);
        } else if (a.buffer || a.input) {
            values[i].buffer = inputs.buffer(i);
        } else {
            values[i].type = a.value.type();
            values[i].scalar = inputs.scalar(i);
        }
    }
    const bool reads_funcs = std::any_of(e.args.begin(), e.args.end(), [](const ExternArgument &a) { return bool(a.func); });
    if (reads_funcs) {
        auto query_output = query_buffer(output->name, output->type, int(output->dims.size()), output->dims);
        values.back().buffer = query_output;
        if (const int code = e.invoke(values))
            throw RuntimeError(what + " returned " + std::to_string(code) + " from its bounds query");
        for (size_t i = 0; i < e.args.size(); i++) {
            const ExternArgument &a = e.args[i];
            if (!a.func) continue;
            std::vector<int> extents;
            std::vector<int> mins;
            for (const BufferDim &d : values[i].buffer->dims) {
                if (d.extent < 0)
                    throw RuntimeError(what + " asks for a negative extent of Func \"" + a.func->name + "\"");
                mins.push_back(d.min);
                extents.push_back(d.extent);
            }
            auto dst = tessera::detail::make_buffer(a.func->type, extents, a.func->name);
            for (size_t d = 0; d < mins.size(); d++) dst->dims[d].min = mins[d];
            inputs.realize(i, dst);
            values[i].buffer = dst;
        }
    }
    values.back().buffer = output;
    if (const int code = e.invoke(values)) throw RuntimeError(what + " returned " + std::to_string(code));
}

}  // namespace tessera::semantics
