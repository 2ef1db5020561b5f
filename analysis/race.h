/* race.h — racing configurations on common random numbers (`faultline advise`): every configuration is simulated
 * on the same replicas (the same seeds, so the same failures), and after each batch the ones significantly worse
 * than the leader are dropped: one-sided paired t-tests of each against the leader, Holm's step-down correction
 * over the comparisons made at that step (Maron & Moore's racing; Birattari's F-race uses the same paired design).
 * Pure statistics: no simulator here. */
#ifndef FL_RACE_H
#define FL_RACE_H

/* Mean of the paired differences a[i] - b[i] over i < n, and the half-width of its `level` confidence interval
 * (Student t; NAN when n < 2). */
void fl_race_paired(const double *a, const double *b, long n, double level, double *mean, double *half);

/* One step of the race over m candidates, candidate i's objective on replicas 0..n-1 in y[i] (smaller is better);
 * alive[i] says which still race. Returns the leader (the least mean among the alive; -1 if none) and sets drop[i]
 * = 1 for each alive candidate significantly worse than it at family-wise level alpha (Holm), p[i] its one-sided
 * p-value (NAN for the leader and the others); drop and p may not be NULL. A candidate whose every difference to
 * the leader is zero is not worse (a tie). */
int fl_race_step(const double *const *y, const int *alive, int m, long n, double alpha, int *drop, double *p);

#endif
