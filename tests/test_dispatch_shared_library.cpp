// libaotune.so, loaded at run time as a Python (ctypes) or Rust user would: its C symbols resolve
// and report errors through status codes, with no GPU needed for invalid input.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "aotune/aotune_c.h"

namespace {

// The names of the symbols a 64-bit ELF shared library defines in its dynamic symbol table (what
// dlsym can find), read from the file: empty, with a failure recorded, when it is not one.
std::vector<std::string> defined_dynamic_symbols(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> names;
  Elf64_Ehdr eh{};
  if (bytes.size() < sizeof eh) {
    ADD_FAILURE() << path << ": " << bytes.size() << " bytes, too short for an ELF header";
    return names;
  }
  std::memcpy(&eh, bytes.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
    ADD_FAILURE() << path << ": not a 64-bit ELF file";
    return names;
  }
  const auto section = [&](std::size_t i) {
    Elf64_Shdr sh{};
    std::memcpy(&sh, bytes.data() + eh.e_shoff + i * eh.e_shentsize, sizeof sh);
    return sh;
  };
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr symtab = section(i);
    if (symtab.sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr strtab = section(symtab.sh_link);
    for (std::size_t off = 0; off + sizeof(Elf64_Sym) <= symtab.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym{};
      std::memcpy(&sym, bytes.data() + symtab.sh_offset + off, sizeof sym);
      const int bind = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK)) continue;
      names.emplace_back(bytes.data() + strtab.sh_offset + sym.st_name);
    }
  }
  return names;
}

// Only the C ABI is exported (dispatch/aotune_c.map): the C++ inside, nlohmann/json, fmt and
// spdlog's inlines stay local, so a process that loads another copy of them (torch carries its
// own fmt) neither binds ours to theirs nor theirs to ours. Before the map it exported 1235.
TEST(SharedLibrary, ExportsOnlyTheCAbi) {
  const std::vector<std::string> names = defined_dynamic_symbols(AOTUNE_SHARED_LIBRARY);
  std::vector<std::string> others;
  for (const std::string& n : names) {
    if (n.rfind("aotune_", 0) != 0) others.push_back(n);
  }
  EXPECT_EQ(names.size() - others.size(), 9u) << "the nine functions of aotune_c.h";
  EXPECT_TRUE(others.empty()) << others.size() << " exported symbols outside the C ABI, the first "
                              << (others.empty() ? std::string() : others.front());
}

TEST(SharedLibrary, ExportsTheCAbi) {
  void* lib = dlopen(AOTUNE_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using Mean = aotune_status (*)(const void*, void*, int64_t, int64_t, int64_t, int64_t,
                                 aotune_dtype, void*);
  using LastError = const char* (*)();
  const auto mean = reinterpret_cast<Mean>(dlsym(lib, "aotune_causal_trailing_mean"));
  const auto last_error = reinterpret_cast<LastError>(dlsym(lib, "aotune_last_error"));
  ASSERT_NE(mean, nullptr);
  ASSERT_NE(last_error, nullptr);
  for (const char* name : {"aotune_jagged_sum", "aotune_jagged_mean", "aotune_jagged_dense_add",
                           "aotune_status_string", "aotune_reload_heuristics", "aotune_version",
                           "aotune_release_workspaces"}) {
    EXPECT_NE(dlsym(lib, name), nullptr) << name;
  }
  int dummy = 0;
  EXPECT_EQ(mean(&dummy, &dummy + 1, 1, 1, 8, 0, AOTUNE_DTYPE_F32, nullptr),
            AOTUNE_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(last_error()).find("cf must be >= 1"), std::string::npos) << last_error();
  using Version = int32_t (*)();
  const auto version = reinterpret_cast<Version>(dlsym(lib, "aotune_version"));
  ASSERT_NE(version, nullptr);
  EXPECT_EQ(version(), AOTUNE_VERSION) << "the loaded library and this header disagree";
  dlclose(lib);
}

}  // namespace
