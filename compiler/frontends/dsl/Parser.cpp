// Readers for the two spellings of a webnn-graph: the .webnn text form and
// the webnn-graph-json form. Both stop at the first error.
#include <cmath>
#include <limits>
#include <set>

#include "compiler/frontends/dsl/Ast.h"
#include "compiler/frontends/dsl/Lexer.h"
#include "compiler/frontends/dsl/OpTable.h"

namespace mlir::webnn::dsl {

//===----------------------------------------------------------------------===//
// AST helpers
//===----------------------------------------------------------------------===//

std::optional<double> Value::asDouble() const {
  if (kind == Kind::Int) return static_cast<double>(intValue);
  if (kind == Kind::Float) return floatValue;
  if (kind == Kind::String) {
    if (text == "Infinity") return std::numeric_limits<double>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  return std::nullopt;
}

namespace {
struct DTypeNames {
  DType type;
  const char *shortName;
  const char *webnnName;
};
constexpr DTypeNames kDTypes[] = {
    {DType::F32, "f32", "float32"}, {DType::F16, "f16", "float16"},
    {DType::I4, "i4", "int4"},      {DType::U4, "u4", "uint4"},
    {DType::I32, "i32", "int32"},   {DType::U32, "u32", "uint32"},
    {DType::I64, "i64", "int64"},   {DType::U64, "u64", "uint64"},
    {DType::I8, "i8", "int8"},      {DType::U8, "u8", "uint8"},
};
}  // namespace

const char *dtypeShortName(DType t) {
  for (const auto &d : kDTypes)
    if (d.type == t) return d.shortName;
  return "?";
}

const char *dtypeWebNNName(DType t) {
  for (const auto &d : kDTypes)
    if (d.type == t) return d.webnnName;
  return "?";
}

std::optional<DType> parseDType(const std::string &name) {
  for (const auto &d : kDTypes)
    if (name == d.shortName || name == d.webnnName) return d.type;
  return std::nullopt;
}

uint64_t dtypeByteSize(DType t, uint64_t n) {
  switch (t) {
    case DType::I4: case DType::U4: return (n + 1) / 2;
    case DType::I8: case DType::U8: return n;
    case DType::F16: return n * 2;
    case DType::F32: case DType::I32: case DType::U32: return n * 4;
    case DType::I64: case DType::U64: return n * 8;
  }
  return n;
}

unsigned dtypeAlignment(DType t) {
  switch (t) {
    case DType::I4: case DType::U4: case DType::I8: case DType::U8: return 1;
    case DType::F16: return 2;
    case DType::F32: case DType::I32: case DType::U32: return 4;
    case DType::I64: case DType::U64: return 8;
  }
  return 1;
}

std::optional<uint64_t> TensorDecl::staticNumElements() const {
  uint64_t n = 1;
  for (const Dim &d : dims) {
    if (d.dynamic || d.size < 0) return std::nullopt;
    uint64_t s = static_cast<uint64_t>(d.size);
    // Keep byte sizes (up to 8 bytes per element) within int64.
    if (s != 0 && n > (uint64_t(1) << 59) / s) return std::nullopt;
    n *= s;
  }
  return n;
}

//===----------------------------------------------------------------------===//
// Shared token-stream parsing, including values
//===----------------------------------------------------------------------===//

namespace {

class TokenParser {
 public:
  TokenParser(const std::string &source, bool json, SyntaxError &error)
      : lexer_(source, /*allowComments=*/!json), json_(json), error_(error) {
    tok_ = lexer_.next();
  }

 protected:
  using K = Token::Kind;

  bool fail(SourcePos pos, std::string message) {
    if (!failed_) {
      error_.pos = pos;
      error_.message = std::move(message);
      failed_ = true;
    }
    return false;
  }
  // Reports an unexpected current token (or the lexer's own error).
  bool unexpected(const std::string &expected) {
    if (tok_.kind == K::Error) return fail(tok_.pos, tok_.text);
    std::string found = tokenKindName(tok_.kind);
    if (tok_.kind == K::Ident) found = "'" + tok_.text + "'";
    return fail(tok_.pos, "expected " + expected + ", found " + found);
  }
  void consume() { tok_ = lexer_.next(); }
  bool expect(K kind, const char *what) {
    if (tok_.kind != kind) return unexpected(what);
    consume();
    return true;
  }
  bool accept(K kind) {
    if (tok_.kind != kind) return false;
    consume();
    return true;
  }
  bool isKeyword(const char *word) const { return tok_.kind == K::Ident && tok_.text == word; }

  // value := array | object | string | number | true | false | null | ident
  // (identifiers only in the text form; JSON object keys must be strings).
  bool parseValue(Value &out, unsigned depth = 0) {
    out = Value();
    out.pos = tok_.pos;
    // Nesting is bounded so hostile input cannot exhaust the stack.
    if (depth > 64) return fail(tok_.pos, "values nested too deeply");
    switch (tok_.kind) {
      case K::Int:
        out.kind = Value::Kind::Int;
        out.intValue = tok_.intValue;
        out.floatValue = tok_.floatValue;
        consume();
        return true;
      case K::Float:
        out.kind = Value::Kind::Float;
        out.floatValue = tok_.floatValue;
        consume();
        return true;
      case K::String:
        out.kind = Value::Kind::String;
        out.text = tok_.text;
        consume();
        return true;
      case K::Ident:
        if (tok_.text == "true" || tok_.text == "false") {
          out.kind = Value::Kind::Bool;
          out.boolValue = tok_.text == "true";
        } else if (tok_.text == "null") {
          out.kind = Value::Kind::Null;
        } else if (json_) {
          return unexpected("a JSON value");
        } else {
          out.kind = Value::Kind::Ident;
          out.text = tok_.text;
        }
        consume();
        return true;
      case K::LBracket: {
        out.kind = Value::Kind::Array;
        consume();
        if (accept(K::RBracket)) return true;
        while (true) {
          Value item;
          if (!parseValue(item, depth + 1)) return false;
          out.items.push_back(std::move(item));
          if (accept(K::RBracket)) return true;
          if (!expect(K::Comma, "',' or ']'")) return false;
        }
      }
      case K::LBrace: {
        out.kind = Value::Kind::Object;
        consume();
        if (accept(K::RBrace)) return true;
        while (true) {
          if (tok_.kind != K::String && (json_ || tok_.kind != K::Ident))
            return unexpected(json_ ? "a string key" : "a key");
          std::string key = tok_.text;
          SourcePos keyPos = tok_.pos;
          for (const auto &field : out.fields)
            if (field.first == key) return fail(keyPos, "duplicate key '" + key + "'");
          consume();
          if (!expect(K::Colon, "':'")) return false;
          Value item;
          if (!parseValue(item, depth + 1)) return false;
          out.fields.emplace_back(std::move(key), std::move(item));
          if (accept(K::RBrace)) return true;
          if (!expect(K::Comma, "',' or '}'")) return false;
        }
      }
      default:
        return unexpected("a value");
    }
  }

  Lexer lexer_;
  bool json_;
  SyntaxError &error_;
  Token tok_;
  bool failed_ = false;
};

//===----------------------------------------------------------------------===//
// Text form
//===----------------------------------------------------------------------===//

class TextParser : TokenParser {
 public:
  TextParser(const std::string &source, SyntaxError &error)
      : TokenParser(source, /*json=*/false, error) {}

  std::optional<Graph> parse() {
    Graph g;
    if (!parseGraph(g)) return std::nullopt;
    return g;
  }

 private:
  // graph := "webnn_graph" string version "@quantized"? "{" block* "}" EOF
  bool parseGraph(Graph &g) {
    if (!isKeyword("webnn_graph")) return unexpected("'webnn_graph'");
    consume();
    if (tok_.kind != K::String) return unexpected("the graph name as a string");
    g.name = tok_.text;
    consume();
    if (!parseVersion(g)) return false;
    if (tok_.kind == K::Annotation) {
      if (tok_.text != "quantized")
        return fail(tok_.pos, "unknown graph annotation '@" + tok_.text + "'");
      g.quantized = true;
      consume();
    }
    if (!expect(K::LBrace, "'{'")) return false;
    while (!accept(K::RBrace)) {
      if (tok_.kind != K::Ident) return unexpected("a block ('inputs', 'consts', 'nodes', 'outputs') or '}'");
      std::string block = tok_.text;
      SourcePos blockPos = tok_.pos;
      consume();
      if (!expect(K::LBrace, "'{'")) return false;
      bool ok;
      if (block == "inputs") ok = parseInputs(g);
      else if (block == "consts") ok = parseConsts(g);
      else if (block == "nodes") ok = parseNodes(g);
      else if (block == "outputs") ok = parseOutputs(g);
      else
        return fail(blockPos, "unknown block '" + block +
                                  "' (expected 'inputs', 'consts', 'nodes' or 'outputs')");
      if (!ok) return false;
    }
    if (tok_.kind != K::Eof) return unexpected("end of file after the graph's closing '}'");
    return true;
  }

  // "v1", or "v" followed by an integer.
  bool parseVersion(Graph &g) {
    if (tok_.kind != K::Ident || tok_.text.empty() || tok_.text[0] != 'v')
      return unexpected("a version such as 'v1'");
    std::string digits = tok_.text.substr(1);
    SourcePos pos = tok_.pos;
    consume();
    if (digits.empty()) {
      if (tok_.kind != K::Int) return unexpected("the version number");
      g.version = tok_.intValue;
      consume();
    } else {
      if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        return fail(pos, "invalid version 'v" + digits + "'");
      g.version = std::stoll(digits);
    }
    if (g.version != 1 && g.version != 2)
      return fail(pos, "unsupported webnn_graph version v" + std::to_string(g.version) +
                           " (expected v1 or v2)");
    return true;
  }

  // type := dtype "[" (dim ("," dim)*)? "]";  dim := int | dyn("name", maxSize)
  bool parseType(TensorDecl &t, bool allowDynamic) {
    if (tok_.kind != K::Ident) return unexpected("a data type such as 'f32'");
    std::optional<DType> dt = parseDType(tok_.text);
    if (!dt)
      return fail(tok_.pos, "unknown data type '" + tok_.text +
                                "' (expected f32, f16, i4, u4, i32, u32, i64, u64, i8 or u8)");
    t.dtype = *dt;
    consume();
    if (!expect(K::LBracket, "'[' to start the shape")) return false;
    if (accept(K::RBracket)) return true;
    while (true) {
      Dim d;
      if (tok_.kind == K::Int) {
        if (tok_.intValue < 0) return fail(tok_.pos, "dimension must not be negative");
        d.size = tok_.intValue;
        consume();
      } else if (isKeyword("dyn")) {
        SourcePos dynPos = tok_.pos;
        consume();
        if (!allowDynamic)
          return fail(dynPos, "dynamic dimensions are only allowed on inputs");
        if (!expect(K::LParen, "'(' after 'dyn'")) return false;
        if (tok_.kind != K::String) return unexpected("the dimension name as a string");
        d.dynamic = true;
        d.dynamicName = tok_.text;
        consume();
        if (!expect(K::Comma, "','")) return false;
        if (tok_.kind != K::Int) return unexpected("the maximum size as an integer");
        if (tok_.intValue <= 0) return fail(tok_.pos, "maximum size must be positive");
        d.size = tok_.intValue;
        consume();
        if (!expect(K::RParen, "')'")) return false;
      } else {
        return unexpected("a dimension");
      }
      t.dims.push_back(std::move(d));
      if (accept(K::RBracket)) return true;
      if (!expect(K::Comma, "',' or ']'")) return false;
    }
  }

  bool parseDeclName(std::string &name, SourcePos &pos, const char *what) {
    if (tok_.kind != K::Ident) return unexpected(what);
    name = tok_.text;
    pos = tok_.pos;
    consume();
    return expect(K::Colon, "':'");
  }

  bool parseInputs(Graph &g) {
    while (!accept(K::RBrace)) {
      InputDecl in;
      if (!parseDeclName(in.name, in.pos, "an input name or '}'")) return false;
      if (!parseType(in.type, /*allowDynamic=*/true)) return false;
      if (!expect(K::Semicolon, "';'")) return false;
      g.inputs.push_back(std::move(in));
    }
    return true;
  }

  // const := name ":" type annotation? ";"
  bool parseConsts(Graph &g) {
    while (!accept(K::RBrace)) {
      ConstDecl c;
      if (!parseDeclName(c.name, c.pos, "a constant name or '}'")) return false;
      if (!parseType(c.type, /*allowDynamic=*/false)) return false;
      c.init = ConstDecl::Init::Weights;
      c.weightsKey = c.name;
      c.initPos = c.pos;
      bool haveInit = false;
      while (tok_.kind == K::Annotation) {
        if (haveInit) return fail(tok_.pos, "constant '" + c.name + "' has more than one initializer");
        haveInit = true;
        if (!parseConstInit(c)) return false;
      }
      if (!expect(K::Semicolon, "';'")) return false;
      g.consts.push_back(std::move(c));
    }
    return true;
  }

  bool parseConstInit(ConstDecl &c) {
    std::string kind = tok_.text;
    c.initPos = tok_.pos;
    consume();
    if (!expect(K::LParen, "'('")) return false;
    if (kind == "weights") {
      if (tok_.kind != K::String) return unexpected("the weights key as a string");
      c.init = ConstDecl::Init::Weights;
      c.weightsKey = tok_.text;
      consume();
    } else if (kind == "scalar") {
      Value v;
      SourcePos pos = tok_.pos;
      if (!parseValue(v)) return false;
      if (!v.asDouble())
        return fail(pos, "@scalar expects a number (or \"Infinity\", \"-Infinity\", \"NaN\")");
      c.init = ConstDecl::Init::Scalar;
      c.scalar = std::move(v);
    } else if (kind == "bytes") {
      Value v;
      SourcePos pos = tok_.pos;
      if (!parseValue(v)) return false;
      if (v.kind != Value::Kind::Array) return fail(pos, "@bytes expects an array of bytes");
      c.init = ConstDecl::Init::Bytes;
      for (const Value &b : v.items) {
        if (b.kind != Value::Kind::Int || b.intValue < 0 || b.intValue > 255)
          return fail(b.pos, "@bytes elements must be integers in 0..255");
        c.bytes.push_back(static_cast<uint8_t>(b.intValue));
      }
    } else {
      return fail(c.initPos, "unknown constant annotation '@" + kind +
                                 "' (expected @weights, @scalar or @bytes)");
    }
    return expect(K::RParen, "')'");
  }

  // stmt := (name | "[" name ("," name)* "]") "=" (op "(" args? ")" | name) ";"
  bool parseNodes(Graph &g) {
    while (!accept(K::RBrace)) {
      Node n;
      if (accept(K::LBracket)) {
        while (true) {
          if (tok_.kind != K::Ident) return unexpected("a result name");
          n.results.push_back(tok_.text);
          n.resultPos.push_back(tok_.pos);
          consume();
          if (accept(K::RBracket)) break;
          if (!expect(K::Comma, "',' or ']'")) return false;
        }
      } else if (tok_.kind == K::Ident) {
        n.results.push_back(tok_.text);
        n.resultPos.push_back(tok_.pos);
        consume();
      } else {
        return unexpected("a statement or '}'");
      }
      if (!expect(K::Equals, "'='")) return false;
      if (tok_.kind != K::Ident)
        return unexpected("an operation call or an identifier");
      std::string callee = tok_.text;
      n.pos = tok_.pos;
      consume();
      if (accept(K::LParen)) {
        n.op = callee;
        if (!parseArgs(n)) return false;
      } else {
        Arg a;
        a.pos = n.pos;
        a.value.kind = Value::Kind::Ident;
        a.value.text = callee;
        a.value.pos = n.pos;
        n.args.push_back(std::move(a));
      }
      if (!expect(K::Semicolon, "';'")) return false;
      g.nodes.push_back(std::move(n));
    }
    return true;
  }

  // args := (arg ("," arg)*)? ")";  arg := name "=" value | value
  bool parseArgs(Node &n) {
    if (accept(K::RParen)) return true;
    while (true) {
      Arg a;
      a.pos = tok_.pos;
      if (tok_.kind == K::Ident && tok_.text != "true" && tok_.text != "false" &&
          tok_.text != "null") {
        std::string word = tok_.text;
        consume();
        if (accept(K::Equals)) {
          a.name = word;
          for (const Arg &prev : n.args)
            if (prev.name == word) return fail(a.pos, "option '" + word + "' given twice");
          if (!parseValue(a.value)) return false;
        } else {
          a.value.kind = Value::Kind::Ident;
          a.value.text = word;
          a.value.pos = a.pos;
        }
      } else if (!parseValue(a.value)) {
        return false;
      }
      n.args.push_back(std::move(a));
      if (accept(K::RParen)) return true;
      if (!expect(K::Comma, "',' or ')'")) return false;
    }
  }

  // item := name ("," name)* ";"?
  bool parseOutputs(Graph &g) {
    while (!accept(K::RBrace)) {
      if (tok_.kind != K::Ident) return unexpected("an output name or '}'");
      g.outputs.push_back({tok_.text, tok_.text, tok_.pos});
      consume();
      if (!accept(K::Comma)) accept(K::Semicolon);
    }
    return true;
  }
};

//===----------------------------------------------------------------------===//
// JSON form
//===----------------------------------------------------------------------===//

class JsonReader : TokenParser {
 public:
  JsonReader(const std::string &source, SyntaxError &error)
      : TokenParser(source, /*json=*/true, error) {}

  std::optional<Value> parseDocument() {
    Value root;
    if (!parseValue(root)) return std::nullopt;
    if (tok_.kind != K::Eof) {
      unexpected("end of file after the JSON document");
      return std::nullopt;
    }
    return root;
  }

  std::optional<Graph> parse() {
    std::optional<Value> root = parseDocument();
    if (!root) return std::nullopt;
    return convert(*root);
  }

  std::optional<Graph> convert(const Value &root) {
    Graph g;
    if (!convertGraph(root, g)) return std::nullopt;
    return g;
  }

 private:
  static const Value *field(const Value &obj, const char *key) {
    for (const auto &f : obj.fields)
      if (f.first == key) return &f.second;
    return nullptr;
  }
  bool requireKind(const Value &v, Value::Kind kind, const std::string &what) {
    if (v.kind == kind) return true;
    return fail(v.pos, what);
  }
  // Fetches a required member of `obj`.
  bool member(const Value &obj, const char *key, Value::Kind kind, const Value *&out,
              const std::string &context) {
    out = field(obj, key);
    if (!out) return fail(obj.pos, context + " is missing \"" + key + "\"");
    static const char *names[] = {"null", "a boolean", "an integer", "a number",
                                  "a string", "an identifier", "an array", "an object"};
    if (out->kind == kind || (kind == Value::Kind::Float && out->kind == Value::Kind::Int))
      return true;
    return fail(out->pos, "\"" + std::string(key) + "\" must be " +
                              names[static_cast<int>(kind)]);
  }

  bool convertType(const Value &desc, TensorDecl &t, bool allowDynamic, const std::string &what) {
    if (!requireKind(desc, Value::Kind::Object, what + " must be an object")) return false;
    const Value *dt, *shape;
    if (!member(desc, "dataType", Value::Kind::String, dt, what)) return false;
    std::optional<DType> parsed = parseDType(dt->text);
    if (!parsed) return fail(dt->pos, "unknown data type '" + dt->text + "'");
    t.dtype = *parsed;
    if (!member(desc, "shape", Value::Kind::Array, shape, what)) return false;
    for (const Value &d : shape->items) {
      Dim dim;
      if (d.kind == Value::Kind::Int) {
        if (d.intValue < 0) return fail(d.pos, "dimension must not be negative");
        dim.size = d.intValue;
      } else if (d.kind == Value::Kind::Object) {
        if (!allowDynamic) return fail(d.pos, "dynamic dimensions are only allowed on inputs");
        const Value *name, *maxSize;
        if (!member(d, "name", Value::Kind::String, name, "a dynamic dimension")) return false;
        if (!member(d, "maxSize", Value::Kind::Int, maxSize, "a dynamic dimension")) return false;
        if (maxSize->kind != Value::Kind::Int || maxSize->intValue <= 0)
          return fail(maxSize->pos, "maximum size must be a positive integer");
        dim.dynamic = true;
        dim.dynamicName = name->text;
        dim.size = maxSize->intValue;
      } else {
        return fail(d.pos, "a dimension must be an integer or {\"name\", \"maxSize\"}");
      }
      t.dims.push_back(std::move(dim));
    }
    return true;
  }

  bool convertGraph(const Value &root, Graph &g) {
    if (!requireKind(root, Value::Kind::Object, "a webnn-graph-json document must be an object"))
      return false;
    const Value *format, *version;
    if (!member(root, "format", Value::Kind::String, format, "the document")) return false;
    if (format->text != "webnn-graph-json")
      return fail(format->pos, "unknown format '" + format->text + "' (expected \"webnn-graph-json\")");
    if (!member(root, "version", Value::Kind::Int, version, "the document")) return false;
    if (version->intValue != 1 && version->intValue != 2)
      return fail(version->pos, "unsupported webnn-graph-json version " +
                                    std::to_string(version->intValue) + " (expected 1 or 2)");
    g.version = version->intValue;
    if (const Value *name = field(root, "name")) {
      if (name->kind == Value::Kind::String) g.name = name->text;
      else if (name->kind != Value::Kind::Null) return fail(name->pos, "\"name\" must be a string");
    }
    if (const Value *q = field(root, "quantized")) {
      if (!requireKind(*q, Value::Kind::Bool, "\"quantized\" must be a boolean")) return false;
      g.quantized = q->boolValue;
    }

    const Value *inputs;
    if (!member(root, "inputs", Value::Kind::Object, inputs, "the document")) return false;
    for (const auto &[name, desc] : inputs->fields) {
      InputDecl in;
      in.name = name;
      in.pos = desc.pos;
      if (!convertType(desc, in.type, true, "input '" + name + "'")) return false;
      g.inputs.push_back(std::move(in));
    }

    if (const Value *consts = field(root, "consts")) {
      if (!requireKind(*consts, Value::Kind::Object, "\"consts\" must be an object")) return false;
      for (const auto &[name, desc] : consts->fields)
        if (!convertConst(name, desc, g)) return false;
    }

    const Value *nodes;
    if (!member(root, "nodes", Value::Kind::Array, nodes, "the document")) return false;
    for (const Value &node : nodes->items)
      if (!convertNode(node, g)) return false;

    const Value *outputs;
    if (!member(root, "outputs", Value::Kind::Object, outputs, "the document")) return false;
    for (const auto &[name, ref] : outputs->fields) {
      if (!requireKind(ref, Value::Kind::String, "output '" + name + "' must name a value"))
        return false;
      g.outputs.push_back({name, ref.text, ref.pos});
    }
    return true;
  }

  bool convertConst(const std::string &name, const Value &desc, Graph &g) {
    ConstDecl c;
    c.name = name;
    c.pos = desc.pos;
    std::string what = "constant '" + name + "'";
    if (!convertType(desc, c.type, false, what)) return false;
    const Value *init, *kind;
    if (!member(desc, "init", Value::Kind::Object, init, what)) return false;
    c.initPos = init->pos;
    if (!member(*init, "kind", Value::Kind::String, kind, "\"init\"")) return false;
    if (kind->text == "weights") {
      const Value *ref;
      if (!member(*init, "ref", Value::Kind::String, ref, "\"init\"")) return false;
      c.init = ConstDecl::Init::Weights;
      c.weightsKey = ref->text;
    } else if (kind->text == "scalar") {
      const Value *v = field(*init, "value");
      if (!v) return fail(init->pos, "\"init\" is missing \"value\"");
      if (!v->asDouble())
        return fail(v->pos, "scalar value must be a number (or \"Infinity\", \"-Infinity\", \"NaN\")");
      c.init = ConstDecl::Init::Scalar;
      c.scalar = *v;
    } else if (kind->text == "inlineBytes") {
      const Value *bytes;
      if (!member(*init, "bytes", Value::Kind::Array, bytes, "\"init\"")) return false;
      c.init = ConstDecl::Init::Bytes;
      for (const Value &b : bytes->items) {
        if (b.kind != Value::Kind::Int || b.intValue < 0 || b.intValue > 255)
          return fail(b.pos, "inline bytes must be integers in 0..255");
        c.bytes.push_back(static_cast<uint8_t>(b.intValue));
      }
    } else {
      return fail(kind->pos, "unknown init kind '" + kind->text +
                                 "' (expected \"weights\", \"scalar\" or \"inlineBytes\")");
    }
    g.consts.push_back(std::move(c));
    return true;
  }

  // {id, op, inputs: [names], options: {..}, outputs?: [names]}. Options that
  // name operands (conv2d's bias) are strings in JSON; they become references.
  bool convertNode(const Value &node, Graph &g) {
    if (!requireKind(node, Value::Kind::Object, "a node must be an object")) return false;
    const Value *id, *op, *inputs;
    if (!member(node, "id", Value::Kind::String, id, "a node")) return false;
    if (!member(node, "op", Value::Kind::String, op, "node '" + id->text + "'")) return false;
    if (!member(node, "inputs", Value::Kind::Array, inputs, "node '" + id->text + "'"))
      return false;
    Node n;
    n.op = op->text;
    n.pos = op->pos;
    for (const Value &in : inputs->items) {
      if (!requireKind(in, Value::Kind::String, "node inputs must be value names")) return false;
      Arg a;
      a.pos = in.pos;
      a.value = in;
      a.value.kind = Value::Kind::Ident;
      n.args.push_back(std::move(a));
    }
    if (const Value *options = field(node, "options")) {
      if (options->kind != Value::Kind::Null) {
        if (!requireKind(*options, Value::Kind::Object, "\"options\" must be an object"))
          return false;
        for (const auto &[name, v] : options->fields) {
          Arg a;
          a.name = name;
          a.pos = v.pos;
          a.value = v;
          if (v.kind == Value::Kind::String && operandOptionSlot(n.op, name))
            a.value.kind = Value::Kind::Ident;
          n.args.push_back(std::move(a));
        }
      }
    }
    const Value *outputs = field(node, "outputs");
    if (outputs && outputs->kind != Value::Kind::Null) {
      if (!requireKind(*outputs, Value::Kind::Array, "\"outputs\" must be an array of names"))
        return false;
      for (const Value &o : outputs->items) {
        if (!requireKind(o, Value::Kind::String, "\"outputs\" must be an array of names"))
          return false;
        n.results.push_back(o.text);
        n.resultPos.push_back(o.pos);
      }
      if (n.results.empty()) return fail(outputs->pos, "\"outputs\" must not be empty");
    } else {
      n.results.push_back(id->text);
      n.resultPos.push_back(id->pos);
    }
    g.nodes.push_back(std::move(n));
    return true;
  }
};

}  // namespace

std::optional<Graph> parseGraphText(const std::string &source, SyntaxError &error) {
  return TextParser(source, error).parse();
}

std::optional<Graph> parseGraphJson(const std::string &source, SyntaxError &error) {
  return JsonReader(source, error).parse();
}

std::optional<Value> parseJsonValue(const std::string &source, SyntaxError &error) {
  return JsonReader(source, error).parseDocument();
}

}  // namespace mlir::webnn::dsl
