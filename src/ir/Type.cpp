#include "tessera/Type.h"

#include <map>

#include "ir/Check.h"

namespace tessera {

int64_t Type::min_int() const {
    if (is_bool() || is_uint()) return 0;
    TESSERA_INTERNAL_ASSERT(is_int(), "min_int of " << to_string());
    return bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
}

int64_t Type::max_int() const {
    if (is_bool()) return 1;
    if (is_uint()) return bits >= 64 ? INT64_MAX : int64_t((uint64_t(1) << bits) - 1);
    TESSERA_INTERNAL_ASSERT(is_int(), "max_int of " << to_string());
    return bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
}

uint64_t Type::max_uint() const {
    if (is_bool()) return 1;
    if (is_uint()) return bits >= 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
    return uint64_t(max_int());
}

bool Type::can_represent(int64_t v) const {
    if (is_float()) {
        // Integers up to 2^24 (float32) / 2^53 (float64) are exact.
        int64_t limit = bits == 32 ? (int64_t(1) << 24) : (int64_t(1) << 53);
        return v >= -limit && v <= limit;
    }
    if (is_uint()) return v >= 0 && (bits >= 64 || uint64_t(v) <= max_uint());
    return v >= min_int() && v <= max_int();
}

std::string Type::to_string() const {
    std::string s;
    switch (code) {
    case TypeCode::Int: s = "int" + std::to_string(bits); break;
    case TypeCode::UInt: s = "uint" + std::to_string(bits); break;
    case TypeCode::Float: s = "float" + std::to_string(bits); break;
    case TypeCode::Bool: s = "bool"; break;
    }
    if (lanes > 1) s += "x" + std::to_string(lanes);
    return s;
}

void throw_internal_error(const char *file, int line, const std::string &msg) {
    std::string f = file;
    auto pos = f.rfind("/src/");
    if (pos != std::string::npos) f = f.substr(pos + 1);
    throw InternalError("Internal error at " + f + ":" + std::to_string(line) + ": " + msg);
}

bool type_from_name(const std::string &name, Type &t) {
    static const std::map<std::string, Type> types = {
        {"bool", Bool()},      {"int8", Int(8)},     {"int16", Int(16)},    {"int32", Int(32)},
        {"int64", Int(64)},    {"uint8", UInt(8)},   {"uint16", UInt(16)},  {"uint32", UInt(32)},
        {"uint64", UInt(64)},  {"float32", Float(32)}, {"float64", Float(64)},
    };
    auto it = types.find(name);
    if (it == types.end()) return false;
    t = it->second;
    return true;
}

}  // namespace tessera
