#pragma once
// The scheduling language's bookkeeping (src/lang/Scheduling.cpp); the schedules it builds
// are data of the IR (src/ir/Schedule.h).

#include <cstdint>

namespace tessera::lang {

/** A counter that every change of any schedule increments, so that compiled pipelines
 * cached on a Func (Func::compile_jit) are rebuilt after a schedule they depend on
 * changed. */
uint64_t schedule_epoch();
void schedule_changed();

}  // namespace tessera::lang
