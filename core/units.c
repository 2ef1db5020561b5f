/* units.c — parsing and printing of human units (see units.h). One table per dimension: adding a unit is
 * one line. Matching is exact on the unit spelling, except that the unit table lists the accepted forms. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct fl_unit {
  const char *name;
  double factor;
} fl_unit;

static const fl_unit fl_duration_units[] = {
    {"", 1.0},
    {"s", 1.0},
    {"sec", 1.0},
    {"secs", 1.0},
    {"second", 1.0},
    {"seconds", 1.0},
    {"ms", 1e-3},
    {"us", 1e-6},
    {"ns", 1e-9},
    {"min", 60.0},
    {"mins", 60.0},
    {"minute", 60.0},
    {"minutes", 60.0},
    {"h", 3600.0},
    {"hr", 3600.0},
    {"hrs", 3600.0},
    {"hour", 3600.0},
    {"hours", 3600.0},
    {"d", 86400.0},
    {"day", 86400.0},
    {"days", 86400.0},
    {"w", 604800.0},
    {"week", 604800.0},
    {"weeks", 604800.0},
    {"y", FL_SECONDS_PER_YEAR},
    {"yr", FL_SECONDS_PER_YEAR},
    {"year", FL_SECONDS_PER_YEAR},
    {"years", FL_SECONDS_PER_YEAR},
    {NULL, 0.0},
};

static const fl_unit fl_byte_units[] = {
    {"", 1.0},
    {"B", 1.0},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0},
    {NULL, 0.0},
};

static const fl_unit fl_speed_units[] = {
    {"", 1.0},   {"f", 1.0},   {"flops", 1.0}, {"kf", 1e3},  {"Mf", 1e6},
    {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15},   {"Ef", 1e18}, {NULL, 0.0},
};

/* SimGrid's bandwidth units: bytes (B) or bits (b) per second, decimal or binary prefixes. */
static const fl_unit fl_bandwidth_units[] = {
    {"", 1.0},           {"Bps", 1.0},           {"kBps", 1e3},        {"KBps", 1e3},         {"MBps", 1e6},
    {"GBps", 1e9},       {"TBps", 1e12},         {"KiBps", 1024.0},    {"MiBps", 1048576.0},  {"GiBps", 1073741824.0},
    {"TiBps", 1099511627776.0}, {"bps", 0.125},  {"kbps", 125.0},      {"Kbps", 125.0},       {"Mbps", 1.25e5},
    {"Gbps", 1.25e8},    {"Tbps", 1.25e11},      {NULL, 0.0},
};

/* Power in watts (SimGrid's wattage properties are plain watts). */
static const fl_unit fl_power_units[] = {
    {"", 1.0}, {"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}, {NULL, 0.0},
};

/* Split "  12.5 min " into 12.5 and "min". The number must be finite and the unit alphabetic. */
static fl_err fl_units_split(const char *text, double *value, char *unit, size_t unit_size)
{
  fl_err rc = FL_OK;
  const char *p = text;
  char *end = NULL;
  size_t n = 0;

  FL_CHECK(text != NULL, FL_ERR_INPUT, "empty value");
  while (isspace((unsigned char)*p))
    p++;
  FL_CHECK(*p != '\0', FL_ERR_INPUT, "empty value");
  errno = 0;
  *value = strtod(p, &end);
  FL_CHECK(end != p && errno == 0 && isfinite(*value), FL_ERR_INPUT, "'%s' does not start with a finite number", text);
  /* strtod accepts hex and "inf"; we accept only decimal numbers. */
  FL_CHECK(!(p[0] == '0' && (p[1] == 'x' || p[1] == 'X')), FL_ERR_INPUT, "'%s': hexadecimal is not accepted", text);
  p = end;
  while (isspace((unsigned char)*p))
    p++;
  while (isalpha((unsigned char)*p) && n + 1 < unit_size)
    unit[n++] = *p++;
  unit[n] = '\0';
  while (isspace((unsigned char)*p))
    p++;
  FL_CHECK(*p == '\0', FL_ERR_INPUT, "'%s' has trailing characters '%s'", text, p);
done:
  return rc;
}

static fl_err fl_units_lookup(const char *text, const fl_unit *table, const char *what, const char *examples,
                              double *out)
{
  fl_err rc = FL_OK;
  double value = 0.0;
  char unit[24];

  rc = fl_units_split(text, &value, unit, sizeof unit);
  if (rc != FL_OK)
    return fl_err_set(FL_ERR_INPUT, "'%s' is not a %s (e.g. %s)", text ? text : "", what, examples);
  for (const fl_unit *u = table; u->name; u++) {
    if (strcmp(u->name, unit) == 0) {
      *out = value * u->factor;
      return FL_OK;
    }
  }
  return fl_err_set(FL_ERR_INPUT, "'%s': unknown %s unit '%s' (e.g. %s)", text, what, unit, examples);
}

/* A duration may chain terms of decreasing units: "1h30min", "2d 12h". Each term is a number and a unit. */
static fl_err fl_units_compound_duration(const char *text, const char *examples, double *out)
{
  const char *p = text;
  double total = 0.0, last_factor = INFINITY;
  int terms = 0;
  char term[64];

  while (*p) {
    size_t n = 0;
    double v;
    while (isspace((unsigned char)*p))
      p++;
    if (!*p)
      break;
    /* a term: number characters, blanks, letters */
    while (p[n] && (isdigit((unsigned char)p[n]) || p[n] == '.' || p[n] == '+' || p[n] == '-' ||
                    ((p[n] == 'e' || p[n] == 'E') && n > 0 && isdigit((unsigned char)p[n - 1]) &&
                     (isdigit((unsigned char)p[n + 1]) || p[n + 1] == '-' || p[n + 1] == '+'))))
      n++;
    while (p[n] == ' ')
      n++;
    while (isalpha((unsigned char)p[n]))
      n++;
    if (n == 0 || n >= sizeof term)
      return fl_err_set(FL_ERR_INPUT, "'%s' is not a duration (e.g. %s)", text, examples);
    memcpy(term, p, n);
    term[n] = '\0';
    if (fl_units_lookup(term, fl_duration_units, "duration", examples, &v) != FL_OK)
      return fl_err_set(FL_ERR_INPUT, "'%s' is not a duration (e.g. %s)", text, examples);
    {
      /* units must decrease: "30min1h" is refused */
      double factor = 1.0;
      char unit[24];
      double dummy;
      if (fl_units_split(term, &dummy, unit, sizeof unit) == FL_OK)
        for (const fl_unit *u = fl_duration_units; u->name; u++)
          if (strcmp(u->name, unit) == 0)
            factor = u->factor;
      if (terms > 0 && (factor >= last_factor || v < 0 || unit[0] == '\0'))
        return fl_err_set(FL_ERR_INPUT, "'%s' is not a duration (e.g. %s)", text, examples);
      last_factor = factor;
    }
    total += v;
    terms++;
    p += n;
    if (terms == 1 && *p && !isalpha((unsigned char)term[n - 1]))
      return fl_err_set(FL_ERR_INPUT, "'%s' is not a duration (e.g. %s)", text, examples); /* "3 4h" */
  }
  if (terms == 0)
    return fl_err_set(FL_ERR_INPUT, "'%s' is not a duration (e.g. %s)", text, examples);
  *out = total;
  return FL_OK;
}

fl_err fl_units_duration(const char *text, int allow_never, double *seconds)
{
  if (allow_never && text) {
    const char *p = text;
    while (isspace((unsigned char)*p))
      p++;
    if (strncasecmp(p, "never", 5) == 0 || strncasecmp(p, "infinity", 8) == 0 || strncasecmp(p, "inf", 3) == 0) {
      const char *q = p + (strncasecmp(p, "never", 5) == 0 ? 5 : strncasecmp(p, "infinity", 8) == 0 ? 8 : 3);
      while (isspace((unsigned char)*q))
        q++;
      if (*q == '\0') {
        *seconds = INFINITY;
        return FL_OK;
      }
    }
  }
  if (!text)
    return fl_err_set(FL_ERR_INPUT, "empty value");
  return fl_units_compound_duration(text, allow_never ? "90s, 15min, 1h30min, 5y, never" : "90s, 15min, 1h30min, 5y",
                                    seconds);
}

fl_err fl_units_bytes(const char *text, double *bytes)
{
  return fl_units_lookup(text, fl_byte_units, "size", "512MB, 4GiB", bytes);
}

fl_err fl_units_bandwidth(const char *text, double *bytes_per_s)
{
  return fl_units_lookup(text, fl_bandwidth_units, "bandwidth", "25GBps, 100Gbps", bytes_per_s);
}

fl_err fl_units_speed(const char *text, double *flops)
{
  return fl_units_lookup(text, fl_speed_units, "speed", "1Gf, 2.5Tf", flops);
}

fl_err fl_units_power(const char *text, double *watts)
{
  return fl_units_lookup(text, fl_power_units, "power", "95W, 1.2kW", watts);
}

fl_err fl_units_wattage(const char *text, long pstate, double w[3])
{
  char buf[256], *p, *save = NULL, *term[3];
  long i = 0;
  int n = 0;

  if (!text || strlen(text) >= sizeof buf)
    return fl_err_set(FL_ERR_INPUT, "'%.60s' is not Idle:AllCores or Idle:Epsilon:AllCores watts (e.g. 95:200)",
                      text ? text : "");
  strcpy(buf, text);
  /* one entry per pstate, separated by commas, as SimGrid's wattage_per_state */
  for (p = strtok_r(buf, ",", &save); p && i < pstate; p = strtok_r(NULL, ",", &save))
    i++;
  if (!p)
    return fl_err_set(FL_ERR_INPUT, "'%s' has no entry for pstate %ld", text, pstate);
  for (char *q = p; n < 4; q++) { /* the entry's terms, empty ones included (they are refused) */
    term[n < 3 ? n : 2] = q;
    n++;
    q = strchr(q, ':');
    if (!q)
      break;
    *q = '\0';
  }
  if (n != 2 && n != 3)
    return fl_err_set(FL_ERR_INPUT, "'%s' is not Idle:AllCores or Idle:Epsilon:AllCores watts (e.g. 95:200)", text);
  for (int k = 0; k < n; k++)
    if (fl_units_power(term[k], &w[k < n - 1 ? k : 2]) != FL_OK || w[k < n - 1 ? k : 2] < 0)
      return fl_err_set(FL_ERR_INPUT, "'%s': '%s' is not a power in watts, 0 or more (e.g. 95:200)", text, term[k]);
  if (n == 2)
    w[1] = w[0]; /* Idle:AllCores: Epsilon is Idle, as SimGrid reads it */
  return FL_OK;
}

fl_err fl_units_u64(const char *text, uint64_t *value)
{
  const char *p = text ? text : "";
  uint64_t v = 0;
  int digits = 0;
  while (isspace((unsigned char)*p))
    p++;
  for (; isdigit((unsigned char)*p); p++, digits++) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      return fl_err_set(FL_ERR_INPUT, "'%s' is larger than 2^64 - 1", text);
    v = v * 10 + d;
  }
  while (isspace((unsigned char)*p))
    p++;
  if (!digits || *p)
    return fl_err_set(FL_ERR_INPUT, "'%s' is not a whole number from 0 to 2^64 - 1", text ? text : "");
  *value = v;
  return FL_OK;
}

fl_err fl_units_number(const char *text, int integral, double *value)
{
  fl_err rc = FL_OK;
  char unit[8];

  rc = fl_units_split(text, value, unit, sizeof unit);
  if (rc != FL_OK || unit[0] != '\0')
    return fl_err_set(FL_ERR_INPUT, "'%s' is not a number", text ? text : "");
  if (integral && (*value != floor(*value) || fabs(*value) > 9007199254740992.0))
    return fl_err_set(FL_ERR_INPUT, "'%s' is not a whole number", text);
  return FL_OK;
}

char *fl_units_format_duration(double s, char *buf, size_t size)
{
  double a = fabs(s);
  if (isinf(s))
    snprintf(buf, size, "never");
  else if (isnan(s))
    snprintf(buf, size, "-");
  else if (a < 120.0)
    snprintf(buf, size, "%.3gs", s);
  else if (a < 2.0 * 3600.0)
    snprintf(buf, size, "%.3gmin", s / 60.0);
  else if (a < 2.0 * 86400.0)
    snprintf(buf, size, "%.3gh", s / 3600.0);
  else if (a < FL_SECONDS_PER_YEAR)
    snprintf(buf, size, "%.3gd", s / 86400.0);
  else
    snprintf(buf, size, "%.3gy", s / FL_SECONDS_PER_YEAR);
  return buf;
}

char *fl_units_format_bytes(double b, char *buf, size_t size)
{
  static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (fabs(b) >= 1024.0 && i < 5) {
    b /= 1024.0;
    i++;
  }
  snprintf(buf, size, "%.4g%s", b, names[i]);
  return buf;
}
