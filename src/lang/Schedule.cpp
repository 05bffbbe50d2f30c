#include "lang/Schedule.h"

#include <atomic>

namespace tessera::lang {

namespace {
std::atomic<uint64_t> g_epoch{0};
}

uint64_t schedule_epoch() { return g_epoch.load(); }
void schedule_changed() { g_epoch++; }

}  // namespace tessera::lang
