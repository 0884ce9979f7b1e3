# Precompiled headers for the host C++ code. nlohmann/json, spdlog/fmt, CLI11 and GoogleTest are
# header-heavy and included by nearly every translation unit; parsing them once per target instead
# of once per file is most of what keeps a clean 2-core build inside its 10-minute budget.
# Host C++ only: the CUDA translation units keep their own include sets.
option(AOTUNE_PCH "Use precompiled headers for host C++ code" ON)

set(AOTUNE_PCH_STD <algorithm> <filesystem> <map> <memory> <string> <vector>)
set(AOTUNE_PCH_JSON ${AOTUNE_PCH_STD} <nlohmann/json.hpp>)
set(AOTUNE_PCH_HOST ${AOTUNE_PCH_JSON} <fmt/core.h> <spdlog/spdlog.h>)  # targets linking spdlog

# aotune_precompile(TARGET HEADER...): precompile HEADERs for TARGET's C++ files.
function(aotune_precompile target)
  if(NOT AOTUNE_PCH)
    return()
  endif()
  set(headers "")
  foreach(h IN LISTS ARGN)
    # "<x>" inside a generator expression: its ">" must be spelled $<ANGLE-R>.
    string(REPLACE ">" "$<ANGLE-R>" h "${h}")
    list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${h}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()
