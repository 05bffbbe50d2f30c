// A generator program built against the installed package: the generator registered
// here and the installed Tessera::generator_main make a Halide-style GenGen.
#include <tessera/Generator.h>

using namespace tessera;

class Invert : public Generator<Invert> {
public:
    GeneratorParam<int> vector_width{"vector_width", 8};
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint8_t>> output{"output", 2};
    Var x{"x"}, y{"y"};
    void generate() { output(x, y) = cast<uint8_t>(255 - input(x, y)); }
    void schedule() { output.vectorize(x, vector_width, TailStrategy::GuardWithIf); }
};

TESSERA_REGISTER_GENERATOR(Invert, invert)
