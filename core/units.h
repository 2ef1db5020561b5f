/* units.h — the one place where human units are read and written: "90s", "15min", "24h", "5y", "4GiB", "1Gf".
 *
 * A value is a decimal number, optional blanks, then an optional unit; no unit means the base unit (seconds,
 * bytes, flop/s). Years are Julian years (365.25 d), so 5y / 1e6 nodes = 157.8 s, the seed's "3 mins".
 * On bad text these return FL_ERR_INPUT with a message saying what was expected (the caller adds where). */
#ifndef FL_UNITS_H
#define FL_UNITS_H

#include "fl_err.h"

#include <stddef.h>
#include <stdint.h>

#define FL_SECONDS_PER_YEAR (365.25 * 86400.0)

/* Duration in seconds: s, ms, min, h, d, w, y (and long forms). Negative values are accepted here; ranges are
 * the caller's to check. With allow_never, "never" / "inf" / "infinity" give INFINITY. */
fl_err fl_units_duration(const char *text, int allow_never, double *seconds);
/* Size in bytes: B, kB/KB, MB, GB, TB, PB (powers of 1000), KiB, MiB, GiB, TiB, PiB (powers of 1024). */
fl_err fl_units_bytes(const char *text, double *bytes);
/* Bandwidth in bytes/s, SimGrid's spelling: Bps, kBps, MBps, GBps, TBps, KiBps..TiBps, and bits: bps, Mbps, Gbps, Tbps. */
fl_err fl_units_bandwidth(const char *text, double *bytes_per_s);
/* Speed in flop/s, SimGrid's spelling: f, kf, Mf, Gf, Tf, Pf, Ef (also "flops"). */
fl_err fl_units_speed(const char *text, double *flops);
/* Power in watts: W, kW, MW. */
fl_err fl_units_power(const char *text, double *watts);
/* A host's wattage as SimGrid's energy plugin reads the `wattage_per_state` property: comma-separated entries,
 * one per pstate, each Idle:AllCores or Idle:Epsilon:AllCores watts; the entry of `pstate` into w = {Idle,
 * Epsilon, AllCores} (Epsilon = Idle in the two-value form). */
fl_err fl_units_wattage(const char *text, long pstate, double w[3]);
/* An unsigned 64-bit integer, exactly (seeds): decimal digits only, blanks around allowed. */
fl_err fl_units_u64(const char *text, uint64_t *value);
/* Plain number, no unit; with integral, it must be a whole number. */
fl_err fl_units_number(const char *text, int integral, double *value);

/* Write `seconds` with the unit that reads best ("90s", "11.3min", "24h", "5y", "never"). Returns buf. */
char *fl_units_format_duration(double seconds, char *buf, size_t size);
/* Write `bytes` with binary prefixes ("4GiB"). Returns buf. */
char *fl_units_format_bytes(double bytes, char *buf, size_t size);

#endif
