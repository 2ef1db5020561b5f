/* sweep.c — see sweep.h. */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse "section.key=v1,v2 section.key=w1" terms into dims: a new key is appended, a key already swept gets the
 * new values (so --sweep replaces the file's term for that key). `text` is modified and must outlive dims. */
fl_err fl_sweep_parse(char *text, const char *origin, fl_sweep_dim *dims, int *ndims)
{
  fl_err rc = FL_OK;
  char *save = NULL, *term;
  for (term = strtok_r(text, " \t", &save); term; term = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(term, '='), *vsave = NULL, *v;
    fl_sweep_dim *d;
    FL_CHECK(eq && eq > term && strchr(term, '.') && strchr(term, '.') < eq && (size_t)(eq - term) < sizeof d->key,
             FL_ERR_INPUT, "%s: sweep term '%s': expected section.key=v1,v2,...", origin, term);
    d = NULL;
    for (int k = 0; k < *ndims; k++)
      if (strlen(dims[k].key) == (size_t)(eq - term) && strncmp(dims[k].key, term, (size_t)(eq - term)) == 0)
        d = &dims[k];
    if (!d) {
      FL_CHECK(*ndims < FL_MAX_SWEEP_DIMS, FL_ERR_INPUT, "%s: at most %d swept keys", origin, FL_MAX_SWEEP_DIMS);
      d = &dims[(*ndims)++];
      memcpy(d->key, term, (size_t)(eq - term));
      d->key[eq - term] = '\0';
    }
    d->nvalues = 0;
    for (v = strtok_r(eq + 1, ",", &vsave); v; v = strtok_r(NULL, ",", &vsave)) {
      FL_CHECK(d->nvalues < 64, FL_ERR_INPUT, "%s: sweep of %s: at most 64 values", origin, d->key);
      d->values[d->nvalues++] = v;
    }
    FL_CHECK(d->nvalues > 0, FL_ERR_INPUT, "%s: sweep term '%s' has no value", origin, term);
  }
done:
  return rc;
}

/* Combination c takes value (c / stride(d)) % nvalues of dim d: the last dim varies fastest. */
long fl_sweep_stride(const fl_sweep_dim *dims, int ndims, int d)
{
  long stride = 1;
  for (int e = d + 1; e < ndims; e++)
    stride *= dims[e].nvalues;
  return stride;
}


fl_err fl_sweep_apply(fl_scenario *sc, const fl_sweep_dim *dims, int ndims, long c)
{
  fl_err rc = FL_OK;
  long k = c;
  for (int d = ndims - 1; d >= 0; d--) {
    char keys[128], vals[256], *ksave = NULL, *vsave = NULL, *key, *val = NULL;
    const char *value = dims[d].values[k % dims[d].nvalues];
    snprintf(keys, sizeof keys, "%.127s", dims[d].key);
    snprintf(vals, sizeof vals, "%.255s", value);
    k /= dims[d].nvalues;
    if (!strchr(dims[d].key, '+')) {
      /* one key: the value whole ("platform.file=/abs/a.xml,/abs/b.xml" has slashes of its own) */
      size_t n = strlen(dims[d].key) + strlen(value) + 2;
      char *assign = malloc(n);
      FL_CHECK(assign != NULL, FL_ERR_NOMEM, "out of memory");
      sprintf(assign, "%s=%s", dims[d].key, value);
      rc = fl_scenario_set_sweep(sc, assign);
      free(assign);
      FL_TRY(rc);
      continue;
    }
    for (key = strtok_r(keys, "+", &ksave), val = strtok_r(vals, "/", &vsave); key;
         key = strtok_r(NULL, "+", &ksave), val = strtok_r(NULL, "/", &vsave)) {
      char assign[512];
      FL_CHECK(val != NULL, FL_ERR_INPUT, "--sweep %s: value '%s' has fewer parts than keys", dims[d].key, value);
      snprintf(assign, sizeof assign, "%s=%s", key, val);
      FL_TRY(fl_scenario_set_sweep(sc, assign));
    }
    FL_CHECK(val == NULL, FL_ERR_INPUT, "--sweep %s: value '%s' has more parts than keys", dims[d].key, value);
  }
done:
  return rc;
}
