#pragma once
// Realization: the buffers a realization fills, one per output of a Pipeline or per value
// of a Func with several values (a Tuple), as Halide's.

#include <vector>

#include "tessera/Buffer.h"

namespace tessera {

/** The buffers realize returns: one per output of a Pipeline, in the outputs' order, or
 * one per value of a Func (one Buffer for a Func with one value). */
class Realization {
public:
    Realization() = default;
    explicit Realization(std::vector<Buffer<>> buffers);
    size_t size() const { return buffers_.size(); }
    Buffer<> &operator[](size_t i);
    const Buffer<> &operator[](size_t i) const;
    /** The only buffer of a one-output Realization (RuntimeError otherwise). */
    template<typename T>
    operator Buffer<T>() const {
        return Buffer<T>(only());
    }

private:
    const Buffer<> &only() const;
    std::vector<Buffer<>> buffers_;
};

}  // namespace tessera
