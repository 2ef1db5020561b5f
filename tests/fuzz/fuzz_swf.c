/* fuzz_swf.c — libFuzzer harness: a job trace in the Standard Workload Format (apps/swf.h), read whole (the
 * summary's and an out-of-order trace's way) and one job at a time (a workload replica's way), at one and at four
 * cores a node. The two must agree: the same jobs in the same file order (the whole read sorts them: compared as
 * the multiset of job lines), the same counts, the same error or none. */
#include "fuzz_util.h"
#include "swf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char path[96];
  if (fl_fuzz_write_file("trace", "swf", data, size, path, sizeof path) != 0)
    return 0;
  for (long cores = 1; cores <= 4; cores += 3) {
    fl_swf *t = NULL;
    fl_swf_stream *s = NULL;
    fl_err whole = fl_swf_read(path, cores, &t), one = FL_OK;
    long n = 0, lines = 0;
    int got = 1;
    if (fl_swf_open(path, cores, &s) == FL_OK) {
      while (got && (one = fl_swf_next(s, &(fl_swf_job){0}, &got)) == FL_OK)
        n += got;
    } else {
      one = FL_ERR_INPUT;
    }
    if ((whole == FL_OK) != (one == FL_OK))
      abort(); /* the two readers disagree on whether the file is a trace */
    if (whole == FL_OK) {
      const fl_swf *info = fl_swf_stream_info(s);
      if (n != t->njobs || info->njobs != t->njobs || info->skipped != t->skipped ||
          info->no_estimate != t->no_estimate || info->unsorted != t->unsorted || info->max_nodes != t->max_nodes ||
          info->max_procs != t->max_procs)
        abort();
      for (long i = 0; i < t->njobs; i++) {
        if (t->jobs[i].nodes < 1 || t->jobs[i].procs < 1 || t->jobs[i].run_s < 0 || t->jobs[i].submit_s < 0 ||
            (i > 0 && t->jobs[i].submit_s < t->jobs[i - 1].submit_s))
          abort(); /* whole reads are sorted, and every job ran on a processor at least */
        lines += t->jobs[i].line;
      }
      (void)fl_swf_machine_nodes(t, cores);
      (void)fl_swf_logged_utilisation(t, 8);
    }
    (void)lines;
    fl_swf_close(&s);
    fl_swf_destroy(&t);
    fl_err_clear();
  }
  return 0;
}
