// Uses only the installed umbrella header and the public API.
#include <tessera/tessera.h>

int main() {
    tessera::Var x("x");
    tessera::Func f("f");
    f(x) = x * 2;
    tessera::Buffer<int> out = f.realize({8});
    return out(3) == 6 ? 0 : 1;
}
