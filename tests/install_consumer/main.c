/* Calls the installed C ABI without a GPU: each call below is invalid, so it must fail on the host
 * with a status and a message naming the problem, the same with or without a device. */
#include <stdio.h>
#include <string.h>

#include <aotune/aotune_c.h>

static int expect_invalid(aotune_status status, const char* what, const char* needle) {
  const char* message = aotune_last_error();
  if (status != AOTUNE_ERROR_INVALID_ARGUMENT || strstr(message, needle) == NULL) {
    fprintf(stderr, "consumer: %s: status %d (%s), message \"%s\"; expected invalid argument naming %s\n",
            what, (int)status, aotune_status_string(status), message, needle);
    return 1;
  }
  return 0;
}

int main(void) {
  float x[8] = {0};
  float out[8] = {0};
  int failed = 0;
  failed += expect_invalid(aotune_causal_trailing_mean(x, out, 1, 1, 8, 0, AOTUNE_DTYPE_F32, NULL),
                           "cf = 0", "cf must be >= 1");
  failed += expect_invalid(aotune_causal_trailing_mean(x, out, 1, 1, 8, 2, 7, NULL),
                           "dtype code 7", "dtype code 7");
  failed += expect_invalid(aotune_jagged_sum(NULL, NULL, out, 2, 4, 8, -1, AOTUNE_DTYPE_F32,
                                             AOTUNE_INDEX_I32, NULL),
                           "null offsets", "offsets is a null pointer");
  if (strcmp(aotune_status_string(AOTUNE_OK), "ok") != 0) {
    fprintf(stderr, "consumer: aotune_status_string(AOTUNE_OK) is \"%s\"\n", aotune_status_string(AOTUNE_OK));
    ++failed;
  }
  if (aotune_version() != AOTUNE_VERSION) {
    fprintf(stderr, "consumer: the library is version %d, its header %d\n", (int)aotune_version(),
            AOTUNE_VERSION);
    ++failed;
  }
  if (failed) return 1;
  puts("consumer: ok");
  return 0;
}
