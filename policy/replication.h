/* replication.h — process replication's mean number of failures to interruption (MNFTI).
 *
 * `groups` ranks each run `degree` copies on distinct nodes; failures strike living nodes uniformly (iid
 * exponential nodes, no repair). The job is interrupted when every copy of one rank is dead. For duplication the
 * expectation has the closed form (Casanova et al., 2012; Herault & Robert, 2015)
 *     MNFTI = 4^b / C(2b, b)  ~ sqrt(pi b),
 * not the "birthday problem" approximation of Ferreira et al., which is known to be wrong. For triplication no
 * closed form is used: the value is estimated by sampling failure orders (fixed seed, so it is repeatable). */
#ifndef FL_POL_REPLICATION_H
#define FL_POL_REPLICATION_H

#include "fl_err.h"

/* MNFTI for `groups` ranks of `degree` copies (1, 2 or 3). */
fl_err fl_pol_mnfti(long degree, long groups, double *mnfti);

#endif
