// SHA-256 of bytes (FIPS 180-4), for the database fingerprints in generated headers: plain
// implementation so the build needs no crypto library on any machine.
#pragma once

#include <string>
#include <string_view>

namespace aotune::codegen {

// Lower-case hex digest, 64 characters.
std::string sha256_hex(std::string_view bytes);

}  // namespace aotune::codegen
