/* registry.c — the interval rules' registry (rule.h). */
#include "rule.h"

#include <stdio.h>
#include <string.h>

static const fl_interval_rule *const fl_interval_rules[] = {
#define X(name) &fl_interval_rule_##name,
    FL_INTERVAL_RULES(X)
#undef X
};
#define FL_NIRULES ((int)(sizeof fl_interval_rules / sizeof fl_interval_rules[0]))

int fl_interval_rule_count(void)
{
  return FL_NIRULES;
}

const fl_interval_rule *fl_interval_rule_at(int i)
{
  return i >= 0 && i < FL_NIRULES ? fl_interval_rules[i] : NULL;
}

const fl_interval_rule *fl_interval_rule_find(const char *name)
{
  for (int i = 0; name && i < FL_NIRULES; i++)
    if (strcmp(fl_interval_rules[i]->name, name) == 0)
      return fl_interval_rules[i];
  return NULL;
}

static void fl_interval_rule_list(unsigned has, char *buf, size_t size)
{
  buf[0] = '\0';
  for (int i = 0; i < FL_NIRULES; i++) {
    const fl_interval_rule *r = fl_interval_rules[i];
    if (strcmp(r->name, "fixed") == 0 || (fl_interval_rule_needs(r) & ~has))
      continue; /* (fixed is written as a duration) */
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? ", " : "", r->name);
  }
  snprintf(buf + strlen(buf), size - strlen(buf), "%sa duration", buf[0] ? " or " : "");
}

unsigned fl_interval_rule_needs(const fl_interval_rule *r)
{
  return r->needs | (r->next ? (unsigned)FL_IRULE_EACH : 0u);
}

const char *fl_interval_rule_need_words(unsigned missing)
{
  if (missing & FL_IRULE_HAZARD)
    return "the job's failure hazard from its nodes' ages";
  if (missing & FL_IRULE_LEVELS)
    return "the failure rates every checkpoint level recovers";
  return "to be asked before every interval how the run went";
}

void fl_interval_rule_names(char *buf, size_t size)
{
  fl_interval_rule_list(~0u, buf, size);
}

void fl_interval_rule_names_for(unsigned has, char *buf, size_t size)
{
  fl_interval_rule_list(has, buf, size);
}

int fl_interval_rule_known(const char *name, char *buf, size_t size)
{
  const fl_interval_rule *r = fl_interval_rule_find(name);
  if (r && strcmp(r->name, "fixed") != 0)
    return 1;
  fl_interval_rule_names(buf, size);
  return 0;
}
