// The side-by-side pipelines, built against Tessera.
#include <tessera/tessera.h>
namespace lang = tessera;
#define BENCH_NS tessera_side
#include "side_by_side_pipelines.h"
