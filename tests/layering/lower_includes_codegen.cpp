// A file of src/lower may not include the C emitter: this must not compile.
#include "codegen/CodeGenC.h"

int lowering_probe() { return 0; }
