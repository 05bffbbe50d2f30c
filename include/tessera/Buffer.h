#pragma once
// Buffer<T>: an N-dimensional array of elements with a per-dimension min, extent and
// stride. A Buffer owns its memory or wraps memory the caller owns; copies of a Buffer
// share the same memory, as in Halide. A Buffer can be read inside an algorithm like an
// ImageParam: `in(x + 1, y)` with Expr coordinates.

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/Error.h"
#include "tessera/Expr.h"
#include "tessera/Type.h"

namespace tessera {

namespace ir {

struct BufferDim {
    int32_t min = 0;
    int32_t extent = 0;
    int64_t stride = 0;  // in elements
};

/** The shared state behind a Buffer handle. */
struct BufferData {
    std::string name;
    /** Made without a name: `name` is a fresh one ("b1") that the user never wrote, so a
     * message describes the buffer by its type and size too. */
    bool unnamed = false;
    Type type;
    std::vector<BufferDim> dims;
    std::shared_ptr<void> owner;  // keeps owned memory alive; null when wrapping
    uint8_t *host = nullptr;

    /** Element offset of a point, or throws RuntimeError naming the buffer, the
     * dimension and the valid range if the point is outside. */
    int64_t checked_offset(const int32_t *coords, int n) const;
    bool contains(const int32_t *coords, int n) const;
};

}  // namespace ir

namespace detail {
std::shared_ptr<ir::BufferData> make_buffer(Type t, const std::vector<int> &sizes,
                                            const std::string &name);
std::shared_ptr<ir::BufferData> wrap_buffer(Type t, void *data, const std::vector<int> &sizes,
                                            const std::string &name);
Expr buffer_call(const std::shared_ptr<ir::BufferData> &b, std::vector<Expr> args);
[[noreturn]] void buffer_type_mismatch(const ir::BufferData &b, Type wanted);
[[noreturn]] void undefined_buffer_access();
std::string unique_buffer_name();
/** Views of a buffer's memory (Buffer::cropped, sliced, embedded, transposed): new
 * descriptors over the same elements, keeping the memory alive. RuntimeError, naming the
 * buffer, for a dimension or a range it does not have. */
std::shared_ptr<ir::BufferData> cropped_view(const ir::BufferData &b, int d, int min, int extent);
std::shared_ptr<ir::BufferData> sliced_view(const ir::BufferData &b, int d, int pos);
std::shared_ptr<ir::BufferData> embedded_view(const ir::BufferData &b, int d, int pos);
std::shared_ptr<ir::BufferData> transposed_view(const ir::BufferData &b, int d1, int d2);
}  // namespace detail

/** The element type T is static (Buffer<uint8_t>) or dynamic (Buffer<> = Buffer<void>). */
template<typename T = void>
class Buffer {
    static constexpr bool is_dynamic = std::is_void_v<T>;
    using ElemRef = typename std::conditional_t<is_dynamic, std::type_identity<void>, std::add_lvalue_reference<T>>::type;

public:
    using ElemType = T;

    /** One dimension of a buffer. */
    class Dim {
    public:
        Dim(const ir::BufferDim &d) : d_(d) {}
        int min() const { return d_.min; }
        int extent() const { return d_.extent; }
        int max() const { return d_.min + d_.extent - 1; }
        int64_t stride() const { return d_.stride; }

    private:
        ir::BufferDim d_;
    };

    Buffer() = default;

    /** An owning buffer with the given extents (mins 0, dense, dimension 0 innermost),
     * zero-initialised. */
    explicit Buffer(const std::vector<int> &sizes, const std::string &name = "")
        : data_(detail::make_buffer(static_type(), sizes, name)) {
        static_assert(!is_dynamic, "Buffer<>(sizes) needs a type: use Buffer<>(type, sizes)");
    }
    template<typename... Ints, std::enable_if_t<(std::is_integral_v<Ints> && ...), int> = 0>
    explicit Buffer(int first, Ints... rest)
        : Buffer(std::vector<int>{first, static_cast<int>(rest)...}) {}

    /** An owning buffer of a dynamic element type. */
    Buffer(Type t, const std::vector<int> &sizes, const std::string &name = "")
        : data_(detail::make_buffer(t, sizes, name)) {
        if constexpr (!is_dynamic) {
            if (t != static_type()) detail::buffer_type_mismatch(*data_, static_type());
        }
    }

    /** Wrap memory owned by the caller (dense, dimension 0 innermost). */
    Buffer(T *data, const std::vector<int> &sizes, const std::string &name = "")
        : data_(detail::wrap_buffer(static_type(), data, sizes, name)) {
        static_assert(!is_dynamic, "wrapping a void pointer needs a type");
    }

    /** Conversion between element types; throws RuntimeError if the dynamic element
     * type does not match T. */
    template<typename U, std::enable_if_t<!std::is_same_v<U, T>, int> = 0>
    Buffer(const Buffer<U> &other) : data_(other.data_handle()) {
        if constexpr (!is_dynamic) {
            if (data_ && data_->type != static_type()) detail::buffer_type_mismatch(*data_, static_type());
        }
    }

    /** Build from shared state (used by Func::realize). */
    explicit Buffer(std::shared_ptr<ir::BufferData> d) : data_(std::move(d)) {
        if constexpr (!is_dynamic) {
            if (data_ && data_->type != static_type()) detail::buffer_type_mismatch(*data_, static_type());
        }
    }

    bool defined() const { return data_ != nullptr; }
    Type type() const { return data_->type; }
    const std::string &name() const { return data_->name; }
    int dimensions() const { return static_cast<int>(data_->dims.size()); }
    Dim dim(int i) const { return Dim(data_->dims.at(i)); }
    int width() const { return dimensions() > 0 ? dim(0).extent() : 1; }
    int height() const { return dimensions() > 1 ? dim(1).extent() : 1; }
    int channels() const { return dimensions() > 2 ? dim(2).extent() : 1; }
    int min(int i) const { return dim(i).min(); }
    int extent(int i) const { return dim(i).extent(); }
    /** Number of elements. */
    int64_t number_of_elements() const {
        int64_t n = 1;
        for (const auto &d : data_->dims) n *= d.extent;
        return n;
    }

    /** Move the buffer's origin: the same memory addressed with new per-dimension mins. */
    void set_min(const std::vector<int> &mins) {
        if (static_cast<int>(mins.size()) > dimensions())
            throw RuntimeError("Buffer " + name() + ": set_min given " + std::to_string(mins.size()) +
                               " mins but the buffer has " + std::to_string(dimensions()) + " dimensions");
        for (size_t i = 0; i < mins.size(); i++) data_->dims[i].min = mins[i];
    }
    template<typename... Ints, std::enable_if_t<(std::is_integral_v<Ints> && ...), int> = 0>
    void set_min(int first, Ints... rest) { set_min(std::vector<int>{first, static_cast<int>(rest)...}); }

    auto data() const {
        if constexpr (is_dynamic) return static_cast<void *>(data_->host);
        else return reinterpret_cast<T *>(data_->host);
    }

    /** Element access (bounds-checked: RuntimeError outside the buffer). */
    template<typename... Ints, std::enable_if_t<(std::is_integral_v<Ints> && ...), int> = 0>
    ElemRef operator()(Ints... coords) const {
        static_assert(!is_dynamic, "element access needs a typed Buffer<T>");
        if constexpr (!is_dynamic) {
            int32_t c[sizeof...(Ints) + 1] = {static_cast<int32_t>(coords)...};
            return reinterpret_cast<T *>(data_->host)[checked(c, sizeof...(Ints))];
        }
    }
    ElemRef operator()(const std::vector<int> &coords) const {
        static_assert(!is_dynamic, "element access needs a typed Buffer<T>");
        if constexpr (!is_dynamic) {
            std::vector<int32_t> c(coords.begin(), coords.end());
            return reinterpret_cast<T *>(data_->host)[checked(c.data(), static_cast<int>(c.size()))];
        }
    }

    /** A read of this buffer inside an algorithm. */
    template<typename... Args,
             std::enable_if_t<(sizeof...(Args) > 0) && !(std::is_integral_v<Args> && ...), int> = 0>
    Expr operator()(const Args &...args) const {
        return detail::buffer_call(data_, std::vector<Expr>{Expr(args)...});
    }
    Expr operator()(const std::vector<Expr> &args) const { return detail::buffer_call(data_, args); }

    /** Does the buffer contain this point? */
    bool contains(const std::vector<int> &coords) const {
        std::vector<int32_t> c(coords.begin(), coords.end());
        return data_->contains(c.data(), static_cast<int>(c.size()));
    }

    /** Set every element to v. */
    template<typename V = T, std::enable_if_t<!std::is_void_v<V>, int> = 0>
    void fill(V v) {
        for_each_offset([&](int64_t off) { reinterpret_cast<T *>(data_->host)[off] = v; });
    }

    /** Call f(coords) for each point, dimension 0 innermost. */
    template<typename F>
    void for_each_element(F &&f) const {
        std::vector<int> c(dimensions());
        walk(dimensions() - 1, c, f);
    }

    /** A deep copy with its own dense memory, same mins. */
    Buffer copy() const {
        std::vector<int> sizes;
        for (const auto &d : data_->dims) sizes.push_back(d.extent);
        Buffer out(std::shared_ptr<ir::BufferData>(detail::make_buffer(data_->type, sizes, "")));
        std::vector<int> mins;
        for (const auto &d : data_->dims) mins.push_back(d.min);
        out.set_min(mins);
        const int bytes = data_->type.bytes();
        for_each_element([&](const std::vector<int> &c) {
            std::vector<int32_t> p(c.begin(), c.end());
            std::memcpy(out.data_->host + out.data_->checked_offset(p.data(), int(p.size())) * bytes,
                        data_->host + data_->checked_offset(p.data(), int(p.size())) * bytes, bytes);
        });
        return out;
    }

    /** Views, as Halide's: the same memory, not a copy (writes through one are seen
     * through the other). cropped(d, min, extent): the elements [min, min + extent) of
     * dimension d. sliced(d, pos): the elements at pos in dimension d, without that
     * dimension. embedded(d, pos): a new dimension d of extent 1 at coordinate pos.
     * transposed(d1, d2): dimensions d1 and d2 swapped. */
    Buffer cropped(int d, int min, int extent) const { return Buffer(detail::cropped_view(*data_, d, min, extent)); }
    Buffer sliced(int d, int pos) const { return Buffer(detail::sliced_view(*data_, d, pos)); }
    Buffer embedded(int d, int pos = 0) const { return Buffer(detail::embedded_view(*data_, d, pos)); }
    Buffer transposed(int d1, int d2) const { return Buffer(detail::transposed_view(*data_, d1, d2)); }

    const std::shared_ptr<ir::BufferData> &data_handle() const { return data_; }

private:
    static constexpr Type static_type() {
        if constexpr (is_dynamic) return Type();
        else return type_of<T>();
    }

    int64_t checked(const int32_t *c, int n) const {
        if (!data_) detail::undefined_buffer_access();
        return data_->checked_offset(c, n);
    }

    template<typename F>
    void walk(int d, std::vector<int> &c, F &f) const {
        if (d < 0) {
            f(static_cast<const std::vector<int> &>(c));
            return;
        }
        const auto &dim = data_->dims[d];
        for (int i = dim.min; i < dim.min + dim.extent; i++) {
            c[d] = i;
            walk(d - 1, c, f);
        }
    }

    template<typename F>
    void for_each_offset(F &&f) {
        for_each_element([&](const std::vector<int> &c) {
            std::vector<int32_t> p(c.begin(), c.end());
            f(data_->checked_offset(p.data(), int(p.size())));
        });
    }

    std::shared_ptr<ir::BufferData> data_;
};

}  // namespace tessera
