/* fuzz_results_db.c — libFuzzer harness: a results database file as `report` and `rerun` open it (the file
 * checks, quick_check, the schema, every report query). The input is the file's bytes. */
#include "db.h"
#include "report.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char path[64];
  static FILE *devnull;
  fl_db *db = NULL;
  FILE *f;
  if (!path[0]) {
    snprintf(path, sizeof path, "/tmp/fuzz-db-%ld.sqlite", (long)getpid());
    devnull = fopen("/dev/null", "w");
  }
  if (!(f = fopen(path, "wb")))
    return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  if (fl_db_open_readonly(path, &db) == FL_OK) {
    fl_report_opts ro = {0};
    (void)fl_report_print(fl_db_sqlite(db), &ro, devnull);
    ro.csv = 1;
    ro.min_id = 1;
    ro.max_id = 3;
    (void)fl_report_print(fl_db_sqlite(db), &ro, devnull);
  }
  fl_db_close(&db);
  fl_err_clear();
  return 0;
}
