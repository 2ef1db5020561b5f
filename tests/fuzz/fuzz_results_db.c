/* fuzz_results_db.c — libFuzzer harness: a results database file as `report` and `rerun` open it (the file
 * checks, quick_check, the schema, every report query). The input is the file's bytes. */
#include "db.h"
#include "format.h"
#include "report.h"
#include "fuzz_util.h"

#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static FILE *devnull;
  char path[96];
  fl_db *db = NULL;
  if (!devnull)
    devnull = fopen("/dev/null", "w");
  if (fl_fuzz_write_file("db", "sqlite", data, size, path, sizeof path) != 0)
    return 0;
  if (fl_db_open_readonly(path, &db) == FL_OK) {
    fl_report_opts ro = {0};
    (void)fl_report_print(fl_db_sqlite(db), &ro, devnull);
    ro.format = &fl_format_csv;
    ro.min_id = 1;
    ro.max_id = 3;
    (void)fl_report_print(fl_db_sqlite(db), &ro, devnull);
  }
  fl_db_close(&db);
  fl_err_clear();
  return 0;
}
