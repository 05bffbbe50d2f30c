// The side-by-side pipelines, built against Halide 14 (the same source as for Tessera).
#include <Halide.h>
namespace lang = Halide;
#define BENCH_NS halide_side
#include "side_by_side_pipelines.h"
