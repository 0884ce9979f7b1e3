#include "source_hash/code_text.h"

#include <cstddef>

namespace aotune::source_hash {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// The length of a line splice (a backslash, any blanks, a newline) starting at s[i], or 0. Blanks
// before the newline are accepted as GCC and Clang accept them (with a warning).
std::size_t splice_at(std::string_view s, std::size_t i) {
  if (s[i] != '\\') return 0;
  std::size_t j = i + 1;
  while (j < s.size() && is_blank(s[j])) ++j;
  return j < s.size() && s[j] == '\n' ? j + 1 - i : 0;
}

class Normaliser {
 public:
  explicit Normaliser(std::string_view src) : s_(src) { out_.reserve(src.size()); }

  std::string run() {
    while (i_ < s_.size()) step();
    if (line_has_code_) out_ += '\n';
    return std::move(out_);
  }

 private:
  enum class Token { none, identifier, number };

  void step() {
    const char c = s_[i_];
    if (const std::size_t n = splice_at(s_, i_)) {  // phase 2: the two lines are one
      i_ += n;
      return;
    }
    if (c == '\n') {
      pending_space_ = false;
      if (line_has_code_) out_ += '\n';
      line_has_code_ = false;
      token_ = Token::none;
      ++i_;
      return;
    }
    if (is_blank(c)) {
      pending_space_ = true;
      token_ = Token::none;
      ++i_;
      return;
    }
    if (c == '/' && i_ + 1 < s_.size() && (s_[i_ + 1] == '/' || s_[i_ + 1] == '*')) {
      skip_comment();
      pending_space_ = true;  // a comment is one space
      token_ = Token::none;
      return;
    }
    if (c == '"') {
      const bool raw = token_ == Token::identifier && is_raw_prefix();
      token_ = Token::none;
      raw ? copy_raw_string() : copy_quoted('"');
      return;
    }
    if (c == '\'') {
      if (token_ == Token::number) {  // a digit separator: 1'000'000
        put(c);
        ++i_;
        return;
      }
      token_ = Token::none;
      copy_quoted('\'');
      return;
    }
    track_token(c);
    put(c);
    ++i_;
  }

  // Which token the code character c continues or starts: a number's quote is a digit separator,
  // an identifier's trailing R before a quote opens a raw string.
  void track_token(char c) {
    if (is_ident_char(c)) {
      if (token_ == Token::none) {
        token_ = is_digit(c) ? Token::number : Token::identifier;
        token_start_ = out_.size() + (pending_space_ && line_has_code_ ? 1 : 0);
      }
    } else if (c == '.' && token_ != Token::number) {
      token_ = i_ + 1 < s_.size() && is_digit(s_[i_ + 1]) ? Token::number : Token::none;
    } else if (token_ == Token::number && (c == '.' || ((c == '+' || c == '-') && exponent_before()))) {
      // still the number: 1.5, 1e+5, 0x1p-3
    } else {
      token_ = Token::none;
    }
  }

  bool exponent_before() const {
    const char p = out_.empty() ? '\0' : out_.back();
    return p == 'e' || p == 'E' || p == 'p' || p == 'P';
  }

  // The identifier just written is a raw string prefix: R, LR, uR, UR or u8R.
  bool is_raw_prefix() const {
    const std::string_view id = std::string_view(out_).substr(token_start_);
    return id == "R" || id == "LR" || id == "uR" || id == "UR" || id == "u8R";
  }

  void put(char c) {
    if (pending_space_ && line_has_code_) out_ += ' ';
    pending_space_ = false;
    out_ += c;
    line_has_code_ = true;
  }

  void skip_comment() {
    const bool line = s_[i_ + 1] == '/';
    i_ += 2;
    while (i_ < s_.size()) {
      if (line) {
        if (const std::size_t n = splice_at(s_, i_)) {  // the comment goes on over the next line
          i_ += n;
          continue;
        }
        if (s_[i_] == '\n') return;  // the newline is code's
      } else if (s_[i_] == '*' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        i_ += 2;
        return;
      }
      ++i_;
    }
  }

  // A "..." or '...' literal, escapes included, byte for byte; an unterminated one ends at the
  // line's end (the compiler rejects it; the hash only has to be deterministic).
  void copy_quoted(char quote) {
    put(s_[i_++]);
    while (i_ < s_.size() && s_[i_] != '\n') {
      const char c = s_[i_++];
      out_ += c;
      if (c == '\\' && i_ < s_.size()) {
        out_ += s_[i_++];
      } else if (c == quote) {
        return;
      }
    }
  }

  // R"delim( ... )delim", byte for byte (newlines included); unterminated: the rest of the file.
  void copy_raw_string() {
    const std::size_t open = s_.find('(', i_);
    const std::size_t begin = i_;
    std::size_t end = s_.size();
    if (open != std::string_view::npos) {
      // Built by appends: GCC 12 warns (-Wrestrict, a false positive) on ")" + std::string(...).
      std::string close = ")";
      close.append(s_.substr(i_ + 1, open - i_ - 1));
      close += '"';
      const std::size_t at = s_.find(close, open + 1);
      if (at != std::string_view::npos) end = at + close.size();
    }
    put(s_[i_]);
    out_.append(s_.substr(begin + 1, end - begin - 1));
    i_ = end;
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::string out_;
  bool line_has_code_ = false;
  bool pending_space_ = false;
  Token token_ = Token::none;
  std::size_t token_start_ = 0;
};

}  // namespace

std::string code_text(std::string_view source) { return Normaliser(source).run(); }

}  // namespace aotune::source_hash
