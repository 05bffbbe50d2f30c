// A file of src/lower may not include the driver: this must not compile.
#include "driver/JIT.h"

int lowering_probe() { return 0; }
