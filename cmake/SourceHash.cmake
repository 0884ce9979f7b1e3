# Kernel source hashes: generated/source_hashes.h, written at build time by the aotune_source_hash
# tool (source_hash/main.cpp) from source_hash/kernel_source_hashes.h, the same code that
# `aot-runner verify --source-root` runs, so the build and verify cannot disagree. A hash covers
# the code of a kernel folder's files and kernels/common's (comments and layout left out), less the
# files that never change a timing (kernel_source_hashes.h lists them). Results databases record
# it and `aot-runner verify` compares them.

function(aotune_generate_source_hashes target)
  add_library(aotune_source_hashing STATIC
    ${PROJECT_SOURCE_DIR}/source_hash/code_text.cpp
    ${PROJECT_SOURCE_DIR}/source_hash/kernel_source_hashes.cpp
    ${PROJECT_SOURCE_DIR}/codegen/sha256.cpp)
  target_include_directories(aotune_source_hashing PUBLIC ${PROJECT_SOURCE_DIR})
  add_executable(aotune_source_hash ${PROJECT_SOURCE_DIR}/source_hash/main.cpp)
  target_link_libraries(aotune_source_hash PRIVATE aotune_source_hashing)

  # Every file under kernels/ re-runs the tool when it changes (also those the hash leaves out:
  # the tool decides, and leaves the header untouched when no hash moved); an added or removed
  # file re-globs at build time.
  file(GLOB kernel_files CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/kernels/*/*.cu ${PROJECT_SOURCE_DIR}/kernels/*/*.cuh
    ${PROJECT_SOURCE_DIR}/kernels/*/*.h ${PROJECT_SOURCE_DIR}/kernels/*/*.cpp)
  set(out "${PROJECT_BINARY_DIR}/generated/source_hashes.h")
  add_custom_command(
    OUTPUT ${out}
    COMMAND aotune_source_hash ${PROJECT_SOURCE_DIR} ${out}
    DEPENDS aotune_source_hash ${kernel_files}
    COMMENT "Hashing the kernel sources into generated/source_hashes.h"
    VERBATIM)
  # A generated source of the target: built before any of its files compiles.
  target_sources(${target} PRIVATE ${out})
endfunction()
