// The memory of a Buffer (include/tessera/Buffer.h): its layout, its allocation, and
// checked access to its elements.

#include <cstdlib>
#include <cstring>

#include "ir/Names.h"
#include "tessera/Buffer.h"

namespace tessera {

namespace ir {

bool BufferData::contains(const int32_t *coords, int n) const {
    if (n != int(dims.size())) return false;
    for (int i = 0; i < n; i++) {
        int64_t c = coords[i];
        if (c < dims[i].min || c >= int64_t(dims[i].min) + dims[i].extent) return false;
    }
    return true;
}

int64_t BufferData::checked_offset(const int32_t *coords, int n) const {
    if (n != int(dims.size()))
        throw RuntimeError("Buffer " + name + " has " + std::to_string(dims.size()) +
                           " dimensions but is accessed with " + std::to_string(n) + " coordinates");
    int64_t off = 0;
    for (int i = 0; i < n; i++) {
        int64_t c = coords[i];
        const BufferDim &d = dims[i];
        if (c < d.min || c >= int64_t(d.min) + d.extent)
            throw RuntimeError("Buffer " + name + " is accessed at " + std::to_string(c) +
                               " in dimension " + std::to_string(i) + ", outside its range [" +
                               std::to_string(d.min) + ", " + std::to_string(int64_t(d.min) + d.extent - 1) + "]");
        off += (c - d.min) * d.stride;
    }
    return off;
}

}  // namespace ir

using ir::BufferData;

namespace detail {

namespace {
std::shared_ptr<BufferData> layout(Type t, const std::vector<int> &sizes, const std::string &name) {
    if (t.is_vector()) throw CompileError("Buffers hold scalar elements, not " + t.to_string());
    auto b = std::make_shared<BufferData>();
    b->name = name.empty() ? ir::fresh_name('b') : name;
    b->unnamed = name.empty();
    b->type = t;
    int64_t stride = 1;
    for (size_t i = 0; i < sizes.size(); i++) {
        if (sizes[i] < 0)
            throw RuntimeError("Buffer " + b->name + ": extent " + std::to_string(sizes[i]) + " of dimension " +
                               std::to_string(i) + " is negative");
        b->dims.push_back({0, sizes[i], stride});
        stride *= sizes[i];
        if (stride > (int64_t(1) << 40))
            throw RuntimeError("Buffer " + b->name + " is too large (" + std::to_string(stride) + " elements)");
    }
    return b;
}
}  // namespace

std::shared_ptr<BufferData> make_buffer(Type t, const std::vector<int> &sizes, const std::string &name) {
    auto b = layout(t, sizes, name);
    int64_t elems = 1;
    for (const auto &d : b->dims) elems *= d.extent;
    size_t bytes = size_t(std::max<int64_t>(elems, 1)) * size_t(t.bytes());
    // 64-byte alignment, so that compiled vector code may use aligned accesses.
    size_t rounded = (bytes + 63) / 64 * 64;
    void *mem = std::aligned_alloc(64, rounded);
    if (!mem) throw RuntimeError("Buffer " + b->name + ": out of memory allocating " + std::to_string(bytes) + " bytes");
    std::memset(mem, 0, rounded);
    b->owner = std::shared_ptr<void>(mem, [](void *p) { std::free(p); });
    b->host = static_cast<uint8_t *>(mem);
    return b;
}

std::shared_ptr<BufferData> wrap_buffer(Type t, void *data, const std::vector<int> &sizes, const std::string &name) {
    if (!data) throw RuntimeError("Buffer " + name + ": cannot wrap a null pointer");
    auto b = layout(t, sizes, name);
    b->host = static_cast<uint8_t *>(data);
    return b;
}

void buffer_type_mismatch(const BufferData &b, Type wanted) {
    throw RuntimeError("Buffer " + b.name + " has element type " + b.type.to_string() +
                       " and cannot be used as a Buffer of " + wanted.to_string());
}

void undefined_buffer_access() { throw RuntimeError("Access to an undefined Buffer"); }

std::string unique_buffer_name() { return ir::fresh_name('b'); }

namespace {

void check_dimension(const BufferData &b, int d, int limit, const char *what) {
    if (d < 0 || d >= limit)
        throw RuntimeError("Buffer " + b.name + ": " + what + " of dimension " + std::to_string(d) + ", but it has " +
                           std::to_string(b.dims.size()) + " dimensions");
}

void check_position(const BufferData &b, int d, int64_t lo, int64_t hi, const char *what) {
    const ir::BufferDim &dim = b.dims[size_t(d)];
    if (lo < dim.min || hi > int64_t(dim.min) + dim.extent - 1 || lo > hi + 1)
        throw RuntimeError("Buffer " + b.name + ": " + what + " [" + std::to_string(lo) + ", " + std::to_string(hi) +
                           "] of dimension " + std::to_string(d) + ", outside its range [" + std::to_string(dim.min) + ", " +
                           std::to_string(int64_t(dim.min) + dim.extent - 1) + "]");
}

/** A descriptor of the same memory, its first element moved to `pos` of dimension d. */
std::shared_ptr<BufferData> moved_to(const BufferData &b, int d, int pos) {
    auto v = std::make_shared<BufferData>(b);
    const ir::BufferDim &dim = b.dims[size_t(d)];
    v->host = b.host + (int64_t(pos) - dim.min) * dim.stride * b.type.bytes();
    return v;
}

}  // namespace

std::shared_ptr<BufferData> cropped_view(const BufferData &b, int d, int min, int extent) {
    check_dimension(b, d, int(b.dims.size()), "a crop");
    if (extent < 0) throw RuntimeError("Buffer " + b.name + ": a crop of negative extent " + std::to_string(extent));
    check_position(b, d, min, int64_t(min) + extent - 1, "a crop to");
    auto v = moved_to(b, d, min);
    v->dims[size_t(d)].min = min;
    v->dims[size_t(d)].extent = extent;
    return v;
}

std::shared_ptr<BufferData> sliced_view(const BufferData &b, int d, int pos) {
    check_dimension(b, d, int(b.dims.size()), "a slice");
    check_position(b, d, pos, pos, "a slice at");
    auto v = moved_to(b, d, pos);
    v->dims.erase(v->dims.begin() + d);
    return v;
}

std::shared_ptr<BufferData> embedded_view(const BufferData &b, int d, int pos) {
    check_dimension(b, d, int(b.dims.size()) + 1, "an embedding as");
    auto v = std::make_shared<BufferData>(b);
    // Any stride addresses an extent of 1; the innermost dimension's must be 1 (dense).
    const int64_t stride = d == 0 ? 1 : b.dims[size_t(d - 1)].stride * b.dims[size_t(d - 1)].extent;
    v->dims.insert(v->dims.begin() + d, ir::BufferDim{pos, 1, stride});
    return v;
}

std::shared_ptr<BufferData> transposed_view(const BufferData &b, int d1, int d2) {
    check_dimension(b, d1, int(b.dims.size()), "a transposition");
    check_dimension(b, d2, int(b.dims.size()), "a transposition");
    auto v = std::make_shared<BufferData>(b);
    std::swap(v->dims[size_t(d1)], v->dims[size_t(d2)]);
    return v;
}

}  // namespace detail

}  // namespace tessera
