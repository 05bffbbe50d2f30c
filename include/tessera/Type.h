#pragma once
// Scalar (and, for lowered code, vector) element types of Tessera expressions.

#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {

enum class TypeCode : uint8_t { Int, UInt, Float, Bool };

/** An element type: a code, a bit width and a lane count (1 for scalars). Bool is one
 * bit wide. Vector types only appear after vectorization in lowered code. */
struct Type {
    TypeCode code = TypeCode::Int;
    uint8_t bits = 32;
    uint16_t lanes = 1;

    constexpr Type() = default;
    constexpr Type(TypeCode c, int b, int l = 1)
        : code(c), bits(static_cast<uint8_t>(b)), lanes(static_cast<uint16_t>(l)) {}

    constexpr bool is_int() const { return code == TypeCode::Int; }
    constexpr bool is_uint() const { return code == TypeCode::UInt; }
    constexpr bool is_float() const { return code == TypeCode::Float; }
    constexpr bool is_bool() const { return code == TypeCode::Bool; }
    /** Int or UInt (not Bool). */
    constexpr bool is_integer() const { return is_int() || is_uint(); }
    constexpr bool is_scalar() const { return lanes == 1; }
    constexpr bool is_vector() const { return lanes > 1; }
    constexpr int bytes() const { return is_bool() ? 1 : bits / 8; }

    constexpr Type element_of() const { return Type(code, bits, 1); }
    constexpr Type with_lanes(int l) const { return Type(code, bits, l); }
    constexpr Type with_bits(int b) const { return Type(code, b, lanes); }
    constexpr Type with_code(TypeCode c) const { return Type(c, c == TypeCode::Bool ? 1 : bits, lanes); }

    /** Smallest and largest representable integer values (integer and bool types). */
    int64_t min_int() const;
    int64_t max_int() const;
    uint64_t max_uint() const;
    /** Can the integer v be represented exactly in this type? */
    bool can_represent(int64_t v) const;

    constexpr bool operator==(const Type &o) const {
        return code == o.code && bits == o.bits && lanes == o.lanes;
    }
    constexpr bool operator!=(const Type &o) const { return !(*this == o); }

    /** "int32", "uint8", "float32", "bool", "int32x8". */
    std::string to_string() const;
};

constexpr Type Int(int bits, int lanes = 1) { return Type(TypeCode::Int, bits, lanes); }
constexpr Type UInt(int bits, int lanes = 1) { return Type(TypeCode::UInt, bits, lanes); }
constexpr Type Float(int bits, int lanes = 1) { return Type(TypeCode::Float, bits, lanes); }
constexpr Type Bool(int lanes = 1) { return Type(TypeCode::Bool, 1, lanes); }

/** The scalar type named as Type::to_string writes it ("uint8", "int32", "float32",
 * "bool"), into `t`; false for any other name (the .tsr language's and the Generators'
 * type names). */
bool type_from_name(const std::string &name, Type &t);

/** The Tessera type of a C++ scalar type. */
template<typename T>
constexpr Type type_of() {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, bool>) return Bool();
    else if constexpr (std::is_floating_point_v<U>) return Float(sizeof(U) * 8);
    else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) return Int(sizeof(U) * 8);
    else if constexpr (std::is_integral_v<U> && std::is_unsigned_v<U>) return UInt(sizeof(U) * 8);
    else static_assert(sizeof(U) == 0, "type_of<T>: unsupported element type");
}

}  // namespace tessera
