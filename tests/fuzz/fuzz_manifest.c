/* fuzz_manifest.c — libFuzzer harness: a checkpoint MANIFEST (checksummed text) as `ckpt ls|verify|dump` parse
 * it. The checksum line is recomputed on half the inputs so the parser past the checksum is reached too. */
#include "store_impl.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fl_ckpt_manifest m;
  char *text;
  memset(&m, 0, sizeof m);
  (void)fl_ckpt_manifest_parse(data, size, "fuzz", &m);
  fl_ckpt_manifest_clear(&m);
  /* the same body with a correct final checksum line */
  if (size > 0 && (data[0] & 1) && (text = malloc(size + 40))) {
    int n;
    memcpy(text, data + 1, size - 1);
    n = snprintf(text + size - 1, 40, "xxh3 %016" PRIx64 "\n", (uint64_t)XXH3_64bits(data + 1, size - 1));
    memset(&m, 0, sizeof m);
    (void)fl_ckpt_manifest_parse(text, size - 1 + (size_t)n, "fuzz", &m);
    fl_ckpt_manifest_clear(&m);
    free(text);
  }
  fl_err_clear();
  return 0;
}
