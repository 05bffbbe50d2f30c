#pragma once
// Owning handles for the isl objects the validator uses, over isl's C API: a handle frees
// its object, `copy()` gives a new reference for a function that takes one (__isl_take),
// `get()` lends it (__isl_keep). isl reports errors by returning null (the context is set
// to continue on error, and bounded by isl_ctx_set_max_operations, so a computation past
// the limit returns null too): `check` turns a null into Unsupported with the reason.

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera::validator {

/** A construct the validator does not model, or a limit it reached: the check that met it
 * answers Unknown with this reason. */
struct Unsupported : std::runtime_error {
    using std::runtime_error::runtime_error;
};

#define TESSERA_ISL_OBJECT(T)                                                       \
    inline T *isl_copy(T *p) { return T##_copy(p); }                              \
    inline void isl_release(T *p) { T##_free(p); }
TESSERA_ISL_OBJECT(isl_set)
TESSERA_ISL_OBJECT(isl_map)
TESSERA_ISL_OBJECT(isl_pw_aff)
TESSERA_ISL_OBJECT(isl_space)
TESSERA_ISL_OBJECT(isl_id)
TESSERA_ISL_OBJECT(isl_val)
TESSERA_ISL_OBJECT(isl_point)
TESSERA_ISL_OBJECT(isl_aff)
TESSERA_ISL_OBJECT(isl_multi_aff)
TESSERA_ISL_OBJECT(isl_pw_multi_aff)
#undef TESSERA_ISL_OBJECT

template <typename T>
class Isl {
public:
    Isl() = default;
    /** Takes ownership of p (a result of an __isl_give function). */
    explicit Isl(T *p) : p_(p) {}
    Isl(const Isl &o) : p_(o.p_ ? isl_copy(o.p_) : nullptr) {}
    Isl(Isl &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    Isl &operator=(Isl o) {
        std::swap(p_, o.p_);
        return *this;
    }
    ~Isl() {
        if (p_) isl_release(p_);
    }
    T *get() const { return p_; }
    T *copy() const { return p_ ? isl_copy(p_) : nullptr; }
    T *release() { return std::exchange(p_, nullptr); }
    explicit operator bool() const { return p_ != nullptr; }

private:
    T *p_ = nullptr;
};

/** The result of an isl call, or Unsupported naming `what` if isl gave none. */
template <typename T>
Isl<T> check(T *p, const char *what) {
    if (!p) throw Unsupported(std::string("the polyhedral library could not compute ") + what +
                              " (operation limit reached, or a construct it cannot represent)");
    return Isl<T>(p);
}

/** `set` with its parameter `i` bounded to [lo, hi] (null if isl gave none). */
inline isl_set *param_within(isl_set *set, int i, long lo, long hi) {
    return isl_set_upper_bound_si(isl_set_lower_bound_si(set, isl_dim_param, unsigned(i), lo), isl_dim_param, unsigned(i), hi);
}

/** `set` with every parameter bounded to [-bound, bound]. */
inline isl_set *params_within(isl_set *set, long bound) {
    const isl_size n = set ? isl_set_dim(set, isl_dim_param) : 0;
    for (isl_size i = 0; i < n && set; i++) set = param_within(set, int(i), -bound, bound);
    return set;
}

/** `m` with only the dimensions `keep` (indices, in any order) of type `type` left, in
 * their order: the others are projected out. Null if isl gave none. */
inline isl_map *keep_dims(isl_map *m, isl_dim_type type, const std::vector<int> &keep) {
    const isl_size n = m ? isl_map_dim(m, type) : 0;
    for (int k = int(n) - 1; k >= 0 && m; k--)
        if (std::find(keep.begin(), keep.end(), k) == keep.end()) m = isl_map_project_out(m, type, unsigned(k), 1);
    return m;
}

/** One isl context per validation: errors return null instead of aborting, and every
 * computation is bounded by a number of operations (deterministic, unlike a timeout). */
class IslContext {
public:
    explicit IslContext(unsigned long max_operations) : ctx_(isl_ctx_alloc()) {
        isl_options_set_on_error(ctx_, ISL_ON_ERROR_CONTINUE);
        isl_ctx_set_max_operations(ctx_, max_operations);
    }
    ~IslContext() { isl_ctx_free(ctx_); }
    IslContext(const IslContext &) = delete;
    IslContext &operator=(const IslContext &) = delete;
    isl_ctx *get() const { return ctx_; }
    /** Starts counting operations anew: the limit applies to each check. */
    void reset_operations() { isl_ctx_reset_operations(ctx_); }
    /** Whether the operation limit was reached. */
    bool exhausted() const { return isl_ctx_last_error(ctx_) == isl_error_quota; }

private:
    isl_ctx *ctx_;
};

}  // namespace tessera::validator
