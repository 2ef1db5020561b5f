/* vote.c — the host vote over a range of elements, and the small helpers every backend uses.
 *
 * Faults are rare, so the vote is built for the case where the replicas agree: blocks of elements are first
 * checked bitwise with a loop the compiler vectorises (XOR of the patterns, OR-reduced), and only a block with a
 * difference is voted element by element with fl_tmr_vote_elem (vote.h, the code the GPU runs too). Replica 0's
 * copy is the caller's output: an element is written only when replica 0 loses the vote or there is no majority. */
#include "tmr_impl.h"

#include <string.h>
#include <time.h>

#define FL_TMR_VOTE_BLOCK 256

static void fl_tmr_note(fl_tmr_tally *t, int stage, int array, long i, int outvoted, double a, double b, double c)
{
  t->ntotal++;
  if (t->npositions < FL_TMR_MAX_POSITIONS) {
    fl_tmr_mismatch *m = &t->positions[t->npositions++];
    m->stage = stage;
    m->array = array;
    m->index = i;
    m->outvoted = outvoted;
    m->value[0] = a;
    m->value[1] = b;
    m->value[2] = c;
  }
}

/* Count element i by its vote class k and list it unless unanimous or benign. */
static void fl_tmr_count(fl_tmr_tally *t, int k, int outvoted, int stage, int array, long i, double a, double b,
                         double c)
{
  switch (k) {
  case FL_TMR_V_EQUAL: break;
  case FL_TMR_V_BENIGN: t->benign++; break;
  case FL_TMR_V_CORRECTED:
    t->corrected++;
    if (outvoted >= 0)
      t->outvoted[outvoted]++;
    fl_tmr_note(t, stage, array, i, outvoted, a, b, c);
    break;
  default:
    t->nomajority++;
    fl_tmr_note(t, stage, array, i, -1, a, b, c);
    break;
  }
}

static void fl_tmr_vote_slow(double *r0, const double *r1, const double *r2, long first, long last, long base,
                             int stage, int array, const fl_tmr_vote_params *v, fl_tmr_tally *t)
{
  for (long i = first; i < last; i++) {
    double a = r0[i], b = r1[i], c = r2 ? r2[i] : NAN, value;
    int outvoted, k = fl_tmr_vote_elem(a, b, c, v, &value, &outvoted);
    fl_tmr_count(t, k, outvoted, stage, array, base + i, a, b, c);
    if (fl_tmr_bits(value) != fl_tmr_bits(a))
      r0[i] = value;
  }
}

/* The bitwise check of one block: zero iff the replicas are bitwise equal on [0, n). The vote's only cost when
 * nothing went wrong, so it is built for each vector width the processor may have (GCC's function multiversioning:
 * the loader picks the widest the machine runs); the kernels it checks are the caller's and keep their own flags. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define FL_TMR_VOTE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FL_TMR_VOTE_CLONES
#endif
FL_TMR_VOTE_CLONES static uint64_t fl_tmr_vote_diff(const double *r0, const double *r1, const double *r2, long n)
{
  uint64_t diff = 0;
  if (r2) {
    for (long i = 0; i < n; i++) {
      uint64_t a = fl_tmr_bits(r0[i]);
      diff |= (a ^ fl_tmr_bits(r1[i])) | (a ^ fl_tmr_bits(r2[i]));
    }
  } else {
    for (long i = 0; i < n; i++)
      diff |= fl_tmr_bits(r0[i]) ^ fl_tmr_bits(r1[i]);
  }
  return diff;
}

static void fl_tmr_vote_f64(double *r0, const double *r1, const double *r2, long n, long base, int stage, int array,
                            const fl_tmr_vote_params *v, fl_tmr_tally *tally)
{
  for (long b0 = 0; b0 < n; b0 += FL_TMR_VOTE_BLOCK) {
    long b1 = b0 + FL_TMR_VOTE_BLOCK < n ? b0 + FL_TMR_VOTE_BLOCK : n;
    if (fl_tmr_vote_diff(r0 + b0, r1 + b0, r2 ? r2 + b0 : NULL, b1 - b0))
      fl_tmr_vote_slow(r0, r1, r2, b0, b1, base, stage, array, v, tally);
  }
}

/* Element i of an array of `type` as its bit pattern (zero-extended) and as a double (for the record). */
static uint64_t fl_tmr_load(fl_tmr_type type, const void *p, long i, double *value)
{
  switch (type) {
  case FL_TMR_F32: {
    float f;
    uint32_t u;
    memcpy(&f, (const char *)p + 4 * i, 4);
    memcpy(&u, &f, 4);
    *value = f;
    return u;
  }
  case FL_TMR_I64: {
    int64_t x;
    memcpy(&x, (const char *)p + 8 * i, 8);
    *value = (double)x;
    return (uint64_t)x;
  }
  case FL_TMR_I32: {
    int32_t x;
    memcpy(&x, (const char *)p + 4 * i, 4);
    *value = x;
    return (uint32_t)x;
  }
  case FL_TMR_U8: *value = ((const uint8_t *)p)[i]; return ((const uint8_t *)p)[i];
  default: {
    double d;
    memcpy(&d, (const char *)p + 8 * i, 8);
    *value = d;
    return fl_tmr_bits(d);
  }
  }
}

/* Element by element, any type but f64: floats through fl_tmr_vote_elem on their (exact) double values, integers
 * bitwise. */
static void fl_tmr_vote_elems(fl_tmr_type type, void *r0, const void *r1, const void *r2, long first, long last,
                              long base, int stage, int array, const fl_tmr_vote_params *v, fl_tmr_tally *t)
{
  const size_t size = fl_tmr_type_size(type);
  for (long i = first; i < last; i++) {
    double a, b, c = NAN, value;
    uint64_t ba = fl_tmr_load(type, r0, i, &a), bb = fl_tmr_load(type, r1, i, &b), bc = r2 ? 0 : ba;
    int outvoted, k, pick = 0;
    if (r2)
      bc = fl_tmr_load(type, r2, i, &c);
    if (ba == bb && ba == bc)
      continue;
    if (type == FL_TMR_F32) {
      k = fl_tmr_vote_elem(a, b, c, v, &value, &outvoted);
      if (fl_tmr_bits(value) != fl_tmr_bits(a)) {
        float f = (float)value; /* b exactly, or NaN */
        memcpy((char *)r0 + 4 * i, &f, 4);
      }
    } else {
      k = fl_tmr_vote_bits(ba, bb, r2 ? bc : bb, v->replicas, &pick, &outvoted);
      if (pick)
        memcpy((char *)r0 + size * (size_t)i, (const char *)r1 + size * (size_t)i, size);
    }
    fl_tmr_count(t, k, outvoted, stage, array, base + i, a, b, c);
  }
}

void fl_tmr_vote_range(fl_tmr_type type, void *r0, const void *r1, const void *r2, long n, long base, int stage,
                       int array, const fl_tmr_vote_params *v, fl_tmr_tally *tally)
{
  const size_t size = fl_tmr_type_size(type);
  if (type == FL_TMR_F64) {
    fl_tmr_vote_f64(r0, r1, r2, n, base, stage, array, v, tally);
    return;
  }
  for (long b0 = 0; b0 < n; b0 += FL_TMR_VOTE_BLOCK) {
    long b1 = b0 + FL_TMR_VOTE_BLOCK < n ? b0 + FL_TMR_VOTE_BLOCK : n;
    size_t off = size * (size_t)b0, len = size * (size_t)(b1 - b0);
    if (memcmp((char *)r0 + off, (const char *)r1 + off, len) != 0 ||
        (r2 && memcmp((char *)r0 + off, (const char *)r2 + off, len) != 0))
      fl_tmr_vote_elems(type, r0, r1, r2, b0, b1, base, stage, array, v, tally);
  }
}

size_t fl_tmr_type_size(fl_tmr_type type)
{
  switch (type) {
  case FL_TMR_F64:
  case FL_TMR_I64: return 8;
  case FL_TMR_F32:
  case FL_TMR_I32: return 4;
  case FL_TMR_U8: return 1;
  }
  return 0;
}

const char *fl_tmr_type_name(fl_tmr_type type)
{
  switch (type) {
  case FL_TMR_F64: return "f64";
  case FL_TMR_F32: return "f32";
  case FL_TMR_I64: return "i64";
  case FL_TMR_I32: return "i32";
  case FL_TMR_U8: return "u8";
  }
  return "?";
}

void fl_tmr_tally_merge(fl_tmr_tally *sum, const fl_tmr_tally *part)
{
  sum->benign += part->benign;
  sum->corrected += part->corrected;
  sum->nomajority += part->nomajority;
  for (int r = 0; r < 3; r++)
    sum->outvoted[r] += part->outvoted[r];
  sum->ntotal += part->ntotal;
  for (long k = 0; k < part->npositions && sum->npositions < FL_TMR_MAX_POSITIONS; k++)
    sum->positions[sum->npositions++] = part->positions[k];
}

void fl_tmr_flip(void *p, size_t size, long element, int bit)
{
  ((unsigned char *)p)[size * (size_t)element + (size_t)(bit / 8)] ^= (unsigned char)(1u << (bit % 8));
}

void fl_tmr_launch_whole(fl_tmr_launch *l, const fl_tmr_kernel_def *d, void *stream)
{
  memset(l, 0, sizeof *l);
  l->stream = stream;
  l->nin = d->nin;
  l->nout = d->nout;
  l->last = d->items;
  for (int i = 0; i < d->nin; i++)
    l->in[i] = d->in[i].data;
  for (int i = 0; i < d->nout; i++)
    l->out[i] = d->out[i].data;
}

double fl_tmr_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
