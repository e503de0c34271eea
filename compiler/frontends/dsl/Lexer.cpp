#include "compiler/frontends/dsl/Lexer.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstdlib>

namespace mlir::webnn::dsl {

const char *tokenKindName(Token::Kind kind) {
  switch (kind) {
    case Token::Kind::Ident: return "identifier";
    case Token::Kind::Int: return "integer";
    case Token::Kind::Float: return "number";
    case Token::Kind::String: return "string";
    case Token::Kind::Annotation: return "annotation";
    case Token::Kind::LBrace: return "'{'";
    case Token::Kind::RBrace: return "'}'";
    case Token::Kind::LBracket: return "'['";
    case Token::Kind::RBracket: return "']'";
    case Token::Kind::LParen: return "'('";
    case Token::Kind::RParen: return "')'";
    case Token::Kind::Colon: return "':'";
    case Token::Kind::Semicolon: return "';'";
    case Token::Kind::Comma: return "','";
    case Token::Kind::Equals: return "'='";
    case Token::Kind::Eof: return "end of file";
    case Token::Kind::Error: return "invalid token";
  }
  return "token";
}

static bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '/';
}
static bool isIdentContinue(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }

void Lexer::advance() {
  if (src_[i_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++i_;
}

void Lexer::skipTrivia() {
  while (!atEnd()) {
    char c = peek();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
    } else if (c == '#' && allowComments_) {
      while (!atEnd() && peek() != '\n') advance();
    } else {
      break;
    }
  }
}

Token Lexer::make(Token::Kind kind, SourcePos pos) const {
  Token t;
  t.kind = kind;
  t.pos = pos;
  return t;
}

Token Lexer::error(SourcePos pos, std::string message) const {
  Token t = make(Token::Kind::Error, pos);
  t.text = std::move(message);
  return t;
}

Token Lexer::next() {
  skipTrivia();
  SourcePos pos{line_, col_};
  if (atEnd()) return make(Token::Kind::Eof, pos);
  char c = peek();
  auto single = [&](Token::Kind kind) {
    advance();
    return make(kind, pos);
  };
  switch (c) {
    case '{': return single(Token::Kind::LBrace);
    case '}': return single(Token::Kind::RBrace);
    case '[': return single(Token::Kind::LBracket);
    case ']': return single(Token::Kind::RBracket);
    case '(': return single(Token::Kind::LParen);
    case ')': return single(Token::Kind::RParen);
    case ':': return single(Token::Kind::Colon);
    case ';': return single(Token::Kind::Semicolon);
    case ',': return single(Token::Kind::Comma);
    case '=': return single(Token::Kind::Equals);
    case '"': return lexString(pos);
    default: break;
  }
  if (c == '-' || isDigit(c)) return lexNumber(pos);
  if (c == '@') {
    advance();
    if (!std::isalpha(static_cast<unsigned char>(peek())))
      return error(pos, "expected an annotation name after '@'");
    Token t = make(Token::Kind::Annotation, pos);
    while (!atEnd() && std::isalnum(static_cast<unsigned char>(peek()))) {
      t.text.push_back(peek());
      advance();
    }
    return t;
  }
  if (isIdentStart(c)) {
    Token t = make(Token::Kind::Ident, pos);
    t.text.push_back(c);  // '$' may start an identifier but not continue one
    advance();
    while (!atEnd() && isIdentContinue(peek())) {
      t.text.push_back(peek());
      advance();
    }
    return t;
  }
  if (std::isprint(static_cast<unsigned char>(c)))
    return error(pos, std::string("unexpected character '") + c + "'");
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(c));
  return error(pos, std::string("unexpected byte ") + hex);
}

// -?digits(.digits)?([eE][+-]?digits)?  An integer unless it has a fraction or
// an exponent.
Token Lexer::lexNumber(SourcePos pos) {
  size_t start = i_;
  bool isFloat = false;
  if (peek() == '-') advance();
  if (!isDigit(peek())) return error(pos, "expected digits after '-'");
  while (isDigit(peek())) advance();
  if (peek() == '.') {
    isFloat = true;
    advance();
    if (!isDigit(peek())) return error(pos, "expected digits after '.' in number");
    while (isDigit(peek())) advance();
  }
  if (peek() == 'e' || peek() == 'E') {
    isFloat = true;
    advance();
    if (peek() == '+' || peek() == '-') advance();
    if (!isDigit(peek())) return error(pos, "expected digits in exponent");
    while (isDigit(peek())) advance();
  }
  if (isIdentStart(peek()) || isDigit(peek()))
    return error(pos, "invalid character after number");
  std::string text = src_.substr(start, i_ - start);
  Token t = make(isFloat ? Token::Kind::Float : Token::Kind::Int, pos);
  t.text = text;
  errno = 0;
  if (isFloat) {
    t.floatValue = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE && std::abs(t.floatValue) > 1.0)
      return error(pos, "number '" + text + "' is out of range");
  } else {
    t.intValue = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) return error(pos, "integer '" + text + "' is out of range");
    t.floatValue = static_cast<double>(t.intValue);
  }
  return t;
}

static void appendUtf8(std::string &out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// JSON string escapes; the DSL uses the same set.
Token Lexer::lexString(SourcePos pos) {
  advance();  // opening quote
  Token t = make(Token::Kind::String, pos);
  while (true) {
    if (atEnd()) return error(pos, "unterminated string");
    char c = peek();
    if (c == '"') {
      advance();
      return t;
    }
    if (c != '\\') {
      t.text.push_back(c);
      advance();
      continue;
    }
    SourcePos escPos{line_, col_};
    advance();
    if (atEnd()) return error(pos, "unterminated string");
    char e = peek();
    advance();
    switch (e) {
      case '"': t.text.push_back('"'); break;
      case '\\': t.text.push_back('\\'); break;
      case '/': t.text.push_back('/'); break;
      case 'b': t.text.push_back('\b'); break;
      case 'f': t.text.push_back('\f'); break;
      case 'n': t.text.push_back('\n'); break;
      case 'r': t.text.push_back('\r'); break;
      case 't': t.text.push_back('\t'); break;
      case 'u': {
        uint32_t cp = 0;
        for (int k = 0; k < 4; ++k) {
          char h = peek();
          if (!std::isxdigit(static_cast<unsigned char>(h)))
            return error(escPos, "expected four hex digits after '\\u'");
          cp = cp * 16 + (isDigit(h) ? h - '0' : (std::tolower(h) - 'a' + 10));
          advance();
        }
        appendUtf8(t.text, cp);
        break;
      }
      default:
        return error(escPos, std::string("unknown escape '\\") + e + "' in string");
    }
  }
}

}  // namespace mlir::webnn::dsl
