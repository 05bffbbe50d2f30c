// The main() of a generator program (Halide's GenGen): link this library
// (Tessera::generator_main) with the files that register generators
// (TESSERA_REGISTER_GENERATOR, include/tessera/Generator.h).

#include <tessera/Generator.h>

int main(int argc, char **argv) { return tessera::generator_main(argc, argv); }
