#pragma once
// Random well-shaped ATL programs over every construct (gen, sum, guards, let, the reshape
// operators, truncations of padding only), reading two inputs A[5, 4] and B[7], with small
// integer data: for the property tests of the compiler (tests/atl/atl_property_test.cpp)
// and of the validator (tests/validate/atl_validate_test.cpp).

#include <random>

#include "tessera/Atl.h"

namespace tessera::atl::test {

class RandomPrograms {
public:
    explicit RandomPrograms(uint32_t seed) : rng_(seed) {}

    Tensor program(const std::vector<int64_t> &shape) { return make(shape, 4); }

    const std::vector<Array> &inputs() const { return inputs_; }

private:
    int pick(int n) { return int(std::uniform_int_distribution<int>(0, n - 1)(rng_)); }

    Index fresh_var() { return Index("v" + std::to_string(next_var_++)); }

    /** An index in [0, extent): an affine combination of the variables in scope, mod extent. */
    Index in_range(int64_t extent) {
        Index z = pick(5);
        for (const Index &v : scope_)
            if (pick(2)) z = z + (1 + pick(3)) * v;
        return z % extent;
    }

    Cond condition() {
        Index z = pick(3);
        for (const Index &v : scope_)
            if (pick(2)) z = z + (pick(2) ? 1 : 2) * v;
        return pick(2) ? z < 1 + pick(6) : 1 + pick(4) <= z;
    }

    Tensor scalar(int depth) {
        int choice = pick(depth > 0 ? 6 : 3);
        switch (choice) {
        case 0: return double(pick(7) - 3);
        case 1:
            if (!scope_.empty()) return real(scope_[size_t(pick(int(scope_.size())))]);
            return 2.0;
        case 2: {
            std::vector<const Array *> readable;
            for (const Array &a : inputs_) readable.push_back(&a);
            for (const Array &a : lets_) readable.push_back(&a);
            const Array &a = *readable[size_t(pick(int(readable.size())))];
            std::vector<Index> idx;
            for (int64_t e : a.shape()) idx.push_back(in_range(e));
            return a(idx);
        }
        case 3: return scalar(depth - 1) + scalar(depth - 1);
        case 4: return scalar(depth - 1) * scalar(depth - 1);
        default: return scalar(depth - 1) - scalar(depth - 1);
        }
    }

    /** A random expression of this shape. */
    Tensor make(const std::vector<int64_t> &shape, int depth) {
        if (depth <= 0) return plain(shape);
        std::vector<int64_t> rest(shape.begin() + (shape.empty() ? 0 : 1), shape.end());
        switch (pick(11)) {
        case 0: {  // guard
            Cond p = condition();
            return guard(p, make(shape, depth - 1));
        }
        case 1: {  // sum
            Index k = fresh_var();
            scope_.push_back(k);
            Tensor body = make(shape, depth - 1);
            scope_.pop_back();
            return sum(k, pick(2), 1 + pick(3), body);
        }
        case 2: {  // let
            std::vector<int64_t> s;
            for (int d = pick(3); d > 0; d--) s.push_back(1 + pick(4));
            Tensor value = make(s, depth - 1);
            std::string name = "t" + std::to_string(next_var_++);
            return let(name, value, [&](const Array &x) {
                lets_.push_back(x);
                Tensor body = make(shape, depth - 1);
                lets_.pop_back();
                return body;
            });
        }
        default: break;
        }
        if (shape.empty()) return scalar(2);
        int64_t n = shape[0];
        switch (pick(8)) {
        case 0:
            if (n >= 2) {  // concat
                int64_t a = 1 + pick(int(n - 1));
                std::vector<int64_t> left = shape, right = shape;
                left[0] = a;
                right[0] = n - a;
                return concat(make(left, depth - 1), make(right, depth - 1));
            }
            break;
        case 1:
            if (shape.size() >= 2) {  // transpose
                std::vector<int64_t> s = shape;
                std::swap(s[0], s[1]);
                return transpose(make(s, depth - 1));
            }
            break;
        case 2:
            for (int64_t a = 2; a <= n; a++)  // flatten of a split shape
                if (n % a == 0) {
                    std::vector<int64_t> s = rest;
                    s.insert(s.begin(), {a, n / a});
                    return flatten(make(s, depth - 1));
                }
            break;
        case 3: {  // a split's padding truncated away
            int64_t k = 1 + pick(3);
            return trunc_r((n + k - 1) / k * k - n, flatten(split(k, make(shape, depth - 1))));
        }
        case 4: {  // a pad truncated away
            int64_t k = pick(3);
            return pick(2) ? trunc_r(k, pad_r(k, make(shape, depth - 1))) : trunc_l(k, pad_l(k, make(shape, depth - 1)));
        }
        case 5:
            if (n >= 1) {  // a pad left in the result
                int64_t k = pick(int(n) + 1);
                std::vector<int64_t> s = shape;
                s[0] = n - k;
                return pick(2) ? pad_l(k, make(s, depth - 1)) : pad_r(k, make(s, depth - 1));
            }
            break;
        default: break;
        }
        return gen_of(shape, depth);
    }

    Tensor gen_of(const std::vector<int64_t> &shape, int depth) {
        Index v = fresh_var();
        scope_.push_back(v);
        int64_t lo = pick(3);
        Tensor body = make(std::vector<int64_t>(shape.begin() + 1, shape.end()), depth - 1);
        scope_.pop_back();
        return gen(v, lo, lo + shape[0], body);
    }

    Tensor plain(const std::vector<int64_t> &shape) {
        if (shape.empty()) return scalar(1);
        return gen_of(shape, 0);
    }

    std::mt19937 rng_;
    int next_var_ = 0;
    std::vector<Index> scope_;
    std::vector<Array> inputs_{Array("A", {5, 4}), Array("B", {7})};
    std::vector<Array> lets_;
};

inline Value small_integers(const std::vector<int64_t> &shape, uint32_t seed) {
    std::mt19937 rng(seed);
    Value v(shape);
    for (double &d : v.data) d = double(int(rng() % 7) - 3);
    return v;
}


/** The random program of a seed: its shape has 0 to 2 dimensions of 1 to 5. */
inline Tensor random_program(uint32_t seed) {
    RandomPrograms gen(seed);
    std::mt19937 shapes(seed * 7919u);
    std::vector<int64_t> shape;
    for (int d = int(shapes() % 3); d > 0; d--) shape.push_back(1 + int64_t(shapes() % 5));
    return gen.program(shape);
}

/** Inputs for the random programs. */
inline Inputs random_inputs(uint32_t seed) {
    return {{"A", small_integers({5, 4}, seed)}, {"B", small_integers({7}, seed + 1000)}};
}

}  // namespace tessera::atl::test
