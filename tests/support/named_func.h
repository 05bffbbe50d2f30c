#pragma once
// A FunctionData with only a name, for provenance annotations in hand-built IR: one per
// name, so that annotations naming the same Func name the same object.

#include <map>
#include <memory>
#include <string>

#include "ir/Function.h"

namespace tessera::test {

inline std::shared_ptr<ir::FunctionData> named_func(const std::string &name) {
    static std::map<std::string, std::shared_ptr<ir::FunctionData>> funcs;
    auto &f = funcs[name];
    if (!f) {
        f = std::make_shared<ir::FunctionData>();
        f->name = name;
    }
    return f;
}

}  // namespace tessera::test
