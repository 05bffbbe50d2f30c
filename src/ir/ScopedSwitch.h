#pragma once
// A thread-local setting switched for a scope and restored after it: the test-only mutation
// switches of lowering (src/lower/Mutation.h) and of ATL (src/atl/Mutation.h). Thread-local,
// so that other threads' compilations are not affected.

namespace tessera::ir {

/** Sets the value `Slot()` refers to (the thread's current setting: a function over a
 * thread_local defined in one .cpp, so that every library and test sees the same one)
 * until destroyed, then restores the previous value. */
template <typename E, E &(*Slot)()>
class ScopedSwitch {
public:
    explicit ScopedSwitch(E value) : saved_(Slot()) { Slot() = value; }
    ~ScopedSwitch() { Slot() = saved_; }
    ScopedSwitch(const ScopedSwitch &) = delete;
    ScopedSwitch &operator=(const ScopedSwitch &) = delete;

private:
    E saved_;
};

}  // namespace tessera::ir
