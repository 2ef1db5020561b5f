/* fl_err.h — error codes and the error record every faultline function reports through.
 *
 * A function that can fail returns fl_err and hands results out through trailing pointers. The message that
 * goes with a failure is kept in a per-thread record (like errno or sqlite3_errmsg): the one piece of
 * mutable state outside objects, because a message must survive the unwinding of FL_TRY chains.
 * Simulated faults (a node down, a vote mismatch) are results, never fl_err. */
#ifndef FL_ERR_H
#define FL_ERR_H

#include <stddef.h>

typedef enum fl_err {
  FL_OK = 0,
  FL_ERR_INPUT, /* bad user input: scenario, trace, command line. The CLI exits 2. */
  FL_ERR_NOMEM,
  FL_ERR_IO,
  FL_ERR_DB,
  FL_ERR_SIM,      /* the simulation engine refused something */
  FL_ERR_INTERNAL, /* a bug */
} fl_err;

/* Name of a code, never NULL. */
const char *fl_err_str(fl_err code);

/* Record a message for `code` (printf format) and return `code`. The location is kept for debugging. */
fl_err fl_err_set_at(fl_err code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define fl_err_set(code, ...) fl_err_set_at((code), __FILE__, __LINE__, __VA_ARGS__)

/* The last recorded message ("" when none). Borrowed; valid until the next fl_err_set on this thread. */
const char *fl_err_msg(void);
/* Source location of the last fl_err_set, then every FL_TRY frame it unwound through ("file:line <- ..."). */
const char *fl_err_where(void);
void fl_err_clear(void);
void fl_err_push_frame(const char *file, int line);

/* Propagate a failure: needs `fl_err rc` and a `done:` cleanup label in the calling function. */
#define FL_TRY(expr)                                                                                                   \
  do {                                                                                                                 \
    fl_err fl_try_rc_ = (expr);                                                                                        \
    if (fl_try_rc_ != FL_OK) {                                                                                         \
      fl_err_push_frame(__FILE__, __LINE__);                                                                           \
      rc = fl_try_rc_;                                                                                                 \
      goto done;                                                                                                       \
    }                                                                                                                  \
  } while (0)

/* Raise `code` with a message naming the values when `cond` is false; same needs as FL_TRY. */
#define FL_CHECK(cond, code, ...)                                                                                      \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      rc = fl_err_set((code), __VA_ARGS__);                                                                            \
      goto done;                                                                                                       \
    }                                                                                                                  \
  } while (0)

/* Allocation that raises FL_ERR_NOMEM. */
/* Grow a malloc'ed array *p of *cap elements of `elem` bytes to hold at least `need` (doubling; FL_ERR_NOMEM
 * leaves it as it was). */
fl_err fl_grow(void **p, long *cap, long need, size_t elem);

#define FL_ALLOC(ptr, n)                                                                                               \
  FL_CHECK(((ptr) = calloc((size_t)(n) > 0u ? (size_t)(n) : 1u, sizeof *(ptr))) != NULL, FL_ERR_NOMEM,                 \
           "out of memory allocating %zu x %zu bytes", (size_t)(n), sizeof *(ptr))

#endif
