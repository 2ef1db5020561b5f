/* merge.h — shards of a sweep into one results database (`faultline merge`). */
#ifndef FL_MERGE_H
#define FL_MERGE_H

#include "db.h"

#include <stdio.h>

/* Copy the rows of `shards` that `out_path` lacks (by row_key) into it, in one transaction. Every shard is checked
 * first (a faultline results file, readable, all of one scenario, the same as out's rows) and never changed; a bad
 * one is FL_ERR_INPUT and nothing is written. What each shard holds, and any shard missing or short of the rows
 * its `simulate --shard` planned, is said on `log`; *incomplete is then 1. */
fl_err fl_db_merge(const char *out_path, const char *const *shards, int nshards, FILE *log, int *incomplete);

#endif
