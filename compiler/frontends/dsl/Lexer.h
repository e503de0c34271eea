// Tokenizer shared by the .webnn text reader and the JSON reader (JSON is a
// subset of the DSL's value syntax, and sharing the lexer gives JSON errors
// line:col positions too).
#ifndef WEBNN_FRONTENDS_DSL_LEXER_H
#define WEBNN_FRONTENDS_DSL_LEXER_H

#include <cstdint>
#include <string>

#include "compiler/frontends/dsl/Ast.h"

namespace mlir::webnn::dsl {

struct Token {
  enum class Kind {
    Ident, Int, Float, String, Annotation,  // Annotation: `@word`, text = "word"
    LBrace, RBrace, LBracket, RBracket, LParen, RParen,
    Colon, Semicolon, Comma, Equals,
    Eof, Error,                             // Error: text = message
  };
  Kind kind = Kind::Eof;
  std::string text;   // identifier, decoded string, annotation word, or error
  int64_t intValue = 0;
  double floatValue = 0.0;
  SourcePos pos;
};

const char *tokenKindName(Token::Kind kind);

class Lexer {
 public:
  // `allowComments`: `#` starts a comment (the text form); JSON has none.
  Lexer(const std::string &source, bool allowComments)
      : src_(source), allowComments_(allowComments) {}

  Token next();

 private:
  Token make(Token::Kind kind, SourcePos pos) const;
  Token error(SourcePos pos, std::string message) const;
  Token lexNumber(SourcePos pos);
  Token lexString(SourcePos pos);
  void skipTrivia();
  char peek(size_t ahead = 0) const {
    return i_ + ahead < src_.size() ? src_[i_ + ahead] : '\0';
  }
  bool atEnd() const { return i_ >= src_.size(); }
  void advance();

  const std::string &src_;
  bool allowComments_;
  size_t i_ = 0;
  unsigned line_ = 1, col_ = 1;
};

}  // namespace mlir::webnn::dsl

#endif
