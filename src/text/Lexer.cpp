#include "text/Lexer.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace tessera::text {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Longest first, so that "<=" wins over "<".
const char *const kPuncts[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
                               "(",  ")",  "[",  "]",  "{",  "}",  ",",  ".",  "=",  "<",  ">",  "+",
                               "-",  "*",  "/",  "%",  "!",  "&",  "|",  "^",  "~",  ":"};

}  // namespace

std::vector<Token> lex(const std::string &src) {
    std::vector<Token> out;
    int line = 1, col = 1, depth = 0;
    size_t i = 0;
    auto advance = [&](size_t n) {
        for (size_t k = 0; k < n && i < src.size(); k++, i++) {
            if (src[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
    };
    auto push = [&](Tok kind, std::string text, int l, int c) {
        Token t;
        t.kind = kind;
        t.text = std::move(text);
        t.line = l;
        t.col = c;
        out.push_back(std::move(t));
        return &out.back();
    };
    while (i < src.size()) {
        const char c = src[i];
        const int l = line, cl = col;
        if (c == '\n' || c == ';') {
            // A line that ends in a binary operator, '=' or ',' continues on the next.
            static const std::set<std::string> continues = {"+",  "-",  "*",  "/",  "%",  "&&", "||", "&", "|",
                                                            "^",  "<<", ">>", "==", "!=", "<",  "<=", ">", ">=",
                                                            "=",  "+=", "-=", "*=", "/=", ",",  "."};
            bool open = !out.empty() && out.back().kind == Tok::Punct && continues.count(out.back().text);
            if (open) {
                // ... unless the next line starts a statement with a keyword (the operator
                // is then an error of the line that ends in it).
                size_t j = i + 1;
                while (j < src.size() && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r')) j++;
                size_t k = j;
                while (k < src.size() && ident_char(src[k])) k++;
                static const std::set<std::string> keywords = {"pipeline", "input", "param", "var",
                                                               "rdom",     "func",  "output"};
                if (k > j && keywords.count(src.substr(j, k - j))) open = false;
            }
            if (depth == 0 && !(c == '\n' && open) && (out.empty() || out.back().kind != Tok::Newline))
                push(Tok::Newline, c == ';' ? ";" : "\\n", l, cl);
            advance(1);
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            advance(1);
            continue;
        }
        if (c == '#' || (c == '/' && i + 1 < src.size() && src[i + 1] == '/')) {
            while (i < src.size() && src[i] != '\n') advance(1);
            continue;
        }
        if (ident_start(c)) {
            size_t j = i;
            while (j < src.size() && ident_char(src[j])) j++;
            push(Tok::Ident, src.substr(i, j - i), l, cl);
            advance(j - i);
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c))) {
            size_t j = i;
            while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) j++;
            bool is_float = false;
            if (j + 1 < src.size() && src[j] == '.' && std::isdigit(static_cast<unsigned char>(src[j + 1]))) {
                is_float = true;
                j++;
                while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) j++;
            }
            if (j < src.size() && (src[j] == 'e' || src[j] == 'E')) {
                size_t k = j + 1;
                if (k < src.size() && (src[k] == '+' || src[k] == '-')) k++;
                if (k < src.size() && std::isdigit(static_cast<unsigned char>(src[k]))) {
                    is_float = true;
                    j = k;
                    while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) j++;
                }
            }
            const std::string digits = src.substr(i, j - i);
            bool f32 = false;
            if (j < src.size() && src[j] == 'f' && (j + 1 >= src.size() || !ident_char(src[j + 1]))) {
                f32 = true;
                is_float = true;
                j++;
            }
            if (j < src.size() && ident_char(src[j])) {
                push(Tok::Error, "a number cannot be followed by '" + std::string(1, src[j]) + "'", l, cl);
                advance(j - i);
                continue;
            }
            Token *t = push(is_float ? Tok::Float : Tok::Int, src.substr(i, j - i), l, cl);
            errno = 0;
            if (is_float) {
                t->f = std::strtod(digits.c_str(), nullptr);
                t->f32 = f32;
            } else {
                t->u = std::strtoull(digits.c_str(), nullptr, 10);
                if (errno == ERANGE) {
                    t->kind = Tok::Error;
                    t->text = "the integer " + digits + " does not fit in 64 bits";
                }
            }
            advance(j - i);
            continue;
        }
        if (c == '"') {
            std::string value;
            size_t j = i + 1;
            bool closed = false;
            while (j < src.size() && src[j] != '\n') {
                if (src[j] == '"') {
                    closed = true;
                    break;
                }
                if (src[j] == '\\' && j + 1 < src.size()) {
                    const char e = src[j + 1];
                    if (e == 'n') value += '\n';
                    else if (e == 't') value += '\t';
                    else if (e == 'r') value += '\r';
                    else if (e == 'x' && j + 3 < src.size()) {
                        value += char(std::strtol(src.substr(j + 2, 2).c_str(), nullptr, 16));
                        j += 2;
                    } else value += e;
                    j += 2;
                    continue;
                }
                value += src[j++];
            }
            if (!closed) {
                push(Tok::Error, "this string is not closed on its line", l, cl);
                advance(j - i);
                continue;
            }
            push(Tok::String, value, l, cl);
            advance(j + 1 - i);
            continue;
        }
        bool matched = false;
        for (const char *p : kPuncts) {
            const std::string s(p);
            if (src.compare(i, s.size(), s) != 0) continue;
            if (s == "(" || s == "[" || s == "{") depth++;
            if ((s == ")" || s == "]" || s == "}") && depth > 0) depth--;
            push(Tok::Punct, s, l, cl);
            advance(s.size());
            matched = true;
            break;
        }
        if (!matched) {
            push(Tok::Error, std::string("unexpected character '") + c + "'", l, cl);
            advance(1);
        }
    }
    push(Tok::Newline, "\\n", line, col);
    push(Tok::End, "", line, col);
    return out;
}

}  // namespace tessera::text
