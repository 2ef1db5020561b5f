/* inputs.h — the files a scenario reads besides itself (platform XML, failure trace), fingerprinted.
 *
 * A result row must be reproducible from the row alone: the scenario text and overrides are stored with it, and
 * so is each input file's content hash (xxh64), size and resolved path, plus the text of small files. `rerun`
 * recomputes the fingerprints and refuses when a file changed since the row was written. */
#ifndef FL_INPUTS_H
#define FL_INPUTS_H

#include "files.h"
#include "fl_err.h"
#include "scenario.h"

#include <stdint.h>
#include <stdio.h>

#define FL_INPUT_TEXT_MAX (256 * 1024) /* files up to this size are stored whole with the row */

typedef struct fl_input {
  const char *key; /* "platform.file" | "failures.trace" | "failures.trace_map" | "app.graph" | "app.substitutes" |
                    * "platform.state_file" and the other profiles (static) */
  char *path;      /* resolved */
  long size;       /* bytes */
  uint64_t xxh64;  /* of the content, seed 0 */
  char *text;      /* the content when size <= FL_INPUT_TEXT_MAX, else NULL */
} fl_input;

/* An input file a scenario key names: the key ("app.graph") and its value, relative to the scenario (NULL or "":
 * none). */
typedef struct fl_input_ref {
  const char *key, *rel;
} fl_input_ref;

/* Fingerprint every input file `sc` names: the platform file and its profiles, and the plugins' `app` (the failure
 * trace and its map, then the app's own: apps/app.h's fl_app_inputs gives them), in that order. *v is owned by the caller (fl_inputs_free). An unreadable file, or one
 * that is not a regular file, is FL_ERR_INPUT naming where it is named (the scenario's file, line and key, or the
 * platform file's line and attribute) and the path. */
fl_err fl_inputs_collect(const fl_scenario *sc, const fl_input_ref *app, int napp, fl_input **v, int *n);
void fl_inputs_free(fl_input **v, int n);
/* The attributes of a platform file's profiles, in the order fl_profiles_prepare needs them: state_file first,
 * then those the simulator takes out for a bulk-synchronous job (speed_file, bandwidth_file, latency_file). */
extern const char *const fl_profile_attrs[4];

/* libxml2 prints some errors of a file it reads itself, whatever the parser's options say (a declared encoding the
 * bytes do not fit: "encoding error : input conversion failed...", "I/O error : encoder error"), on stderr before
 * faultline's one line. fl_xml_quiet sends every libxml2 error of this thread to xmlGetLastError only, where the
 * callers take their message from; fl_xml_read_file reads a whole file so (no network, no error printed), or NULL
 * with xmlGetLastError saying why. */
void fl_xml_quiet(void);
struct _xmlDoc *fl_xml_read_file(const char *path);

/* The one-line-per-input text stored in a row: "KEY\tPATH\tSIZE\tXXH64HEX\n"... Caller frees. */
char *fl_inputs_format(const fl_input *v, int n);

#endif
