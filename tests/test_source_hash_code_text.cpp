// source_hash::code_text: comments and layout out, code and literals kept, so a kernel's source
// hash moves with what the compiler sees and only with that.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "source_hash/code_text.h"
#include "source_hash/kernel_source_hashes.h"

namespace aotune::source_hash {
namespace {

namespace fs = std::filesystem;

TEST(SourceHashCodeText, DropsCommentsBlankLinesAndIndentation) {
  EXPECT_EQ(code_text("// a file comment\n"
                      "\n"
                      "int  a =\t1;   // trailing\n"
                      "    /* a block\n"
                      "       over lines */\n"
                      "int b = 2; /* inline */ int c;\n"),
            "int a = 1;\nint b = 2; int c;\n");
  EXPECT_EQ(code_text(""), "");
  EXPECT_EQ(code_text("// only a comment"), "");
  EXPECT_EQ(code_text("x\r\n\r\ny\r\n"), "x\ny\n");
}

TEST(SourceHashCodeText, ACommentIsOneSpaceSoTokensStayApart) {
  EXPECT_EQ(code_text("a/**/b\n"), "a b\n");
  EXPECT_EQ(code_text("a/**/+/**/+b\n"), "a + +b\n");  // not a++b
  // A block comment over lines inside a directive: the directive goes on after it, as for the
  // compiler (the comment and its newlines are one space).
  EXPECT_EQ(code_text("#define X 1 /* one\n two */ + 2\nint y;\n"), "#define X 1 + 2\nint y;\n");
}

TEST(SourceHashCodeText, KeepsLineBreaksThatEndDirectivesAndJoinsSplicedLines) {
  EXPECT_EQ(code_text("#define A 1\nint x;\n"), "#define A 1\nint x;\n");
  // A spliced line is one line (a blank line after the splice is the directive's end).
  EXPECT_EQ(code_text("#define B \\\n  2\nint y;\n"), "#define B 2\nint y;\n");
  EXPECT_EQ(code_text("#define C \\\n\nint z;\n"), "#define C\nint z;\n");
  // A // comment continued by a splice swallows the next line.
  EXPECT_EQ(code_text("int a; // note \\\n int b;\nint c;\n"), "int a;\nint c;\n");
}

TEST(SourceHashCodeText, KeepsLiteralsByteForByte) {
  const std::string strings = "const char* s = \"// not  a comment /* nor this */\";\n";
  EXPECT_EQ(code_text(strings), strings);
  const std::string escaped = "f(\"a \\\" // b\", '\\'', '\"', '/');\n";
  EXPECT_EQ(code_text(escaped), escaped);
  const std::string raw = "auto r = R\"x(line one // kept\n   /* kept */ \"quoted\" )\" still in\n)x\";\n";
  EXPECT_EQ(code_text(raw), raw);
  EXPECT_EQ(code_text("auto p = u8R\"(a  //b)\"; // c\n"), "auto p = u8R\"(a  //b)\";\n");
  // R before a quote only opens a raw string as a prefix: here it is an identifier's end.
  EXPECT_EQ(code_text("FOR\"(x // y\";\n"), "FOR\"(x // y\";\n");
}

TEST(SourceHashCodeText, TakesAQuoteInANumberForADigitSeparator) {
  EXPECT_EQ(code_text("int n = 1'000'000; // it's a comment\n"), "int n = 1'000'000;\n");
  EXPECT_EQ(code_text("auto h = 0xFF'FF; auto c = 'x'; // 'q'\n"), "auto h = 0xFF'FF; auto c = 'x';\n");
  EXPECT_EQ(code_text("double e = 1.5e+3'0; /* x */\n"), "double e = 1.5e+3'0;\n");
  EXPECT_EQ(code_text("char w = L'a'; // y\n"), "char w = L'a';\n");
}

TEST(SourceHashCodeText, CodeChangesChangeTheText) {
  const std::string base = "int f(int x) { return x + 1; }\n";
  EXPECT_NE(code_text(base), code_text("int f(int x) { return x + 2; }\n"));
  EXPECT_NE(code_text(base), code_text("int f(int x) { return x+ +1; }\n"));
  EXPECT_NE(code_text("#define A 1\nint x;\n"), code_text("#define A 1 int x;\n"));
  EXPECT_NE(code_text("auto s = \"a b\";\n"), code_text("auto s = \"a  b\";\n"));
}

// The compiler's own comment removal (g++ -fpreprocessed -E: comments out, macros not expanded)
// gives every hashed file of this tree the same code text: nothing code_text takes for a comment
// is code, and no comment survives it.
TEST(SourceHashCodeText, AgreesWithTheCompilersCommentRemovalOnEveryKernelSource) {
  const fs::path root = AOTUNE_SOURCE_DIR;
  std::vector<fs::path> files = source_files(root / "kernels" / "common");
  for (const fs::path& dir : kernel_folders(root)) {
    for (const fs::path& f : source_files(dir)) files.push_back(f);
  }
  ASSERT_GT(files.size(), 20u);
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::string ours = code_text(text.str());
    // g++ consumes "#pragma once" in the main file (with a warning); that is not a comment.
    if (ours.starts_with("#pragma once\n")) ours.erase(0, 13);
    const std::string command = std::string(AOTUNE_HOST_CXX) + " -fpreprocessed -dD -E -P -x c++ '" +
                                f.string() + "' 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr) << command;
    std::string compiled;
    std::array<char, 4096> buf{};
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) compiled.append(buf.data(), n);
    if (pclose(pipe) != 0) {
      GTEST_SKIP() << "the host compiler (" << AOTUNE_HOST_CXX << ") failed `" << command
                   << "`: -fpreprocessed is GCC's option";
    }
    EXPECT_EQ(ours, code_text(compiled)) << f;
  }
}

}  // namespace
}  // namespace aotune::source_hash
