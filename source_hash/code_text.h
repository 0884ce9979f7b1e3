// The code of a C++ or CUDA source file with its comments and layout taken out: what a kernel's
// source hash is computed over (kernel_source_hashes.h), so that editing a comment, re-indenting
// or adding blank lines leaves a results database current, while any change to what the compiler
// sees invalidates it.
#pragma once

#include <string>
#include <string_view>

namespace aotune::source_hash {

// `source` with
//   - every comment (// to the end of the line, /* ... */) replaced by one space, as translation
//     phase 3 does (a // comment continued by a backslash-newline goes on to the next line);
//   - every run of spaces, tabs, \r, \f and \v outside literals folded into one space, and none
//     at the start or end of a line;
//   - lines left empty dropped.
// String, character and raw string literals are kept byte for byte (their escapes and a quote in
// a digit separator such as 1'000 are recognised), so text inside them is never taken for a
// comment. Line breaks outside comments are kept: they end preprocessor directives. Two sources
// with the same result differ only in comments and whitespace between tokens.
std::string code_text(std::string_view source);

}  // namespace aotune::source_hash
