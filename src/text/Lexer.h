#pragma once
// The .tsr lexer: source text to tokens with their line and column (docs/language.md).
// Newlines end statements, except inside parentheses and brackets, so a long expression
// continues on the next line inside its parentheses.

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::text {

enum class Tok : uint8_t {
    Ident,     // names and keywords
    Int,       // 42 (value in `u`, digits in `text`)
    Float,     // 1.5 (float64), 1.5f (float32): value in `f`, `text` keeps the spelling
    String,    // "..." with C escapes decoded
    Punct,     // an operator or punctuation, spelled in `text`
    Newline,   // the end of a statement (also ';')
    End,
    Error,     // a character or literal the lexer cannot read; `text` says why
};

struct Token {
    Tok kind = Tok::End;
    std::string text;
    uint64_t u = 0;
    double f = 0;
    bool f32 = false;
    int line = 1, col = 1;
};

std::vector<Token> lex(const std::string &source);

}  // namespace tessera::text
