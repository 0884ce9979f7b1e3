// Exception types: every error a user can cause carries a message naming the problem and the value.
#pragma once

#include <stdexcept>
#include <string>

namespace aotune {

// Base of every error aotune throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input from the caller (sizes, offsets, options). Never a bug in aotune.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A CUDA runtime call failed; the message holds the call, file and line.
class CudaError : public Error {
 public:
  using Error::Error;
};

}  // namespace aotune
