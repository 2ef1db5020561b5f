/* vote.h — the vote on one element, the same code on the host (vote.c) and in the GPU's vote kernel
 * (cuda_impl.cu), so that both backends decide every element alike.
 *
 * Two replicas agree when their bit patterns are equal, or (tolerance vote) when
 *     |x - y| <= max(abs_tol, rel_tol * max(|x|, |y|)),
 * for finite x and y: a NaN or an infinity agrees only with the very same bits. With 3 replicas:
 *   - all equal bitwise: nothing to do (the common case, tested first, cheaply);
 *   - replica 0 agrees with another: the output keeps replica 0's value (benign when every pair agrees, corrected
 *     otherwise); replica 0's copy is the caller's output, so nothing is written;
 *   - else replicas 1 and 2 agree: replica 0 is outvoted and the output gets replica 1's value;
 *   - else no two agree: no majority, the output gets NaN.
 * With 2 replicas (dual): equal, benign (agree within the tolerance: replica 0's value) or no majority (NaN).
 * Tolerance is not transitive: 0 ~ 1 and 1 ~ 2 without 0 ~ 2 still has a majority (replica 1 sides with both);
 * then no replica is singled out as outvoted (-1). */
#ifndef FL_TMR_VOTE_H
#define FL_TMR_VOTE_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define FL_TMR_HD __host__ __device__
#else
#define FL_TMR_HD
#endif

typedef struct fl_tmr_vote_params {
  int replicas;  /* 2 or 3 */
  int tolerance; /* 0: bitwise */
  double abs_tol, rel_tol;
} fl_tmr_vote_params;

enum {
  FL_TMR_V_EQUAL = 0,     /* bitwise equal */
  FL_TMR_V_BENIGN = 1,    /* every pair agrees within the tolerance, not all bitwise equal */
  FL_TMR_V_CORRECTED = 2, /* a majority, not unanimous */
  FL_TMR_V_NOMAJORITY = 3 /* no two agree (dual: the two disagree) */
};

FL_TMR_HD static inline uint64_t fl_tmr_bits(double x)
{
#ifdef __CUDA_ARCH__
  return (uint64_t)__double_as_longlong(x);
#else
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
#endif
}

FL_TMR_HD static inline int fl_tmr_agree(double x, double y, const fl_tmr_vote_params *v)
{
  double d, m;
  if (fl_tmr_bits(x) == fl_tmr_bits(y))
    return 1;
  if (!v->tolerance || !isfinite(x) || !isfinite(y))
    return 0; /* rel_tol * inf would let an infinity agree with anything */
  d = fabs(x - y);
  m = fmax(fabs(x), fabs(y));
  return d <= fmax(v->abs_tol, v->rel_tol * m); /* false when d is NaN */
}

/* Vote on (a, b, c) (c ignored in dual mode). *value gets the output's value, *outvoted the replica that lost
 * (-1 if none or ambiguous). Returns an FL_TMR_V_ class. */
FL_TMR_HD static inline int fl_tmr_vote_elem(double a, double b, double c, const fl_tmr_vote_params *v, double *value,
                                             int *outvoted)
{
  int s01, s02, s12;
  *value = a;
  *outvoted = -1;
  if (v->replicas == 2) {
    if (fl_tmr_bits(a) == fl_tmr_bits(b))
      return FL_TMR_V_EQUAL;
    if (fl_tmr_agree(a, b, v))
      return FL_TMR_V_BENIGN;
    *value = NAN;
    return FL_TMR_V_NOMAJORITY;
  }
  if (fl_tmr_bits(a) == fl_tmr_bits(b) && fl_tmr_bits(a) == fl_tmr_bits(c))
    return FL_TMR_V_EQUAL;
  s01 = fl_tmr_agree(a, b, v);
  s02 = fl_tmr_agree(a, c, v);
  s12 = fl_tmr_agree(b, c, v);
  if (s01 && s02 && s12)
    return FL_TMR_V_BENIGN;
  if (!s01 && !s02 && !s12) {
    *value = NAN;
    return FL_TMR_V_NOMAJORITY;
  }
  if (!s01 && !s02)
    *outvoted = 0;
  else if (!s01 && !s12)
    *outvoted = 1;
  else if (!s02 && !s12)
    *outvoted = 2;
  if (!s01 && !s02)
    *value = b; /* only 1 ~ 2 */
  return FL_TMR_V_CORRECTED;
}

/* The bitwise vote on integer patterns (integer types, whatever the vote mode). *pick gets the replica whose
 * value the output takes (0 or 1); with no majority it stays 0: an integer has no NaN to mark the element, which
 * is counted and listed instead. Returns an FL_TMR_V_ class. */
FL_TMR_HD static inline int fl_tmr_vote_bits(uint64_t a, uint64_t b, uint64_t c, int replicas, int *pick, int *outvoted)
{
  *pick = 0;
  *outvoted = -1;
  if (replicas == 2)
    return a == b ? FL_TMR_V_EQUAL : FL_TMR_V_NOMAJORITY;
  if (a == b && a == c)
    return FL_TMR_V_EQUAL;
  if (a == b) {
    *outvoted = 2;
    return FL_TMR_V_CORRECTED;
  }
  if (a == c) {
    *outvoted = 1;
    return FL_TMR_V_CORRECTED;
  }
  if (b == c) {
    *outvoted = 0;
    *pick = 1;
    return FL_TMR_V_CORRECTED;
  }
  return FL_TMR_V_NOMAJORITY;
}

#endif
