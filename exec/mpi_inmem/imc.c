/* imc.c — in-memory buddy checkpoints (see imc.h). */
#include "imc.h"

#include <stdlib.h>
#include <string.h>

enum { FL_IMC_SLOTS = 3 };

struct fl_imc {
  fl_rt *rt;
  size_t bytes;
  int id;
  unsigned char *snap[FL_IMC_SLOTS], *mirror[FL_IMC_SLOTS];
  long version[FL_IMC_SLOTS];       /* of both snap[k] and mirror[k] */
  int committed, previous, pending; /* slot indices, -1 when none */
  MPI_Request req[2];
  int nreq;
  long commits;
  double bytes_sent, commit_s;
};

fl_imc *fl_imc_create(fl_rt *rt, size_t bytes, int id)
{
  fl_imc *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->rt = rt;
  m->bytes = bytes;
  m->id = id;
  m->committed = m->previous = m->pending = -1;
  for (int k = 0; k < FL_IMC_SLOTS; k++) {
    /* a compressed copy fills part of a slot: the rest is zeros, never garbage */
    m->snap[k] = calloc(bytes ? bytes : 1, 1);
    m->mirror[k] = calloc(bytes ? bytes : 1, 1);
    m->version[k] = -1;
    if (!m->snap[k] || !m->mirror[k]) {
      fl_imc_destroy(&m);
      return NULL;
    }
  }
  return m;
}

void fl_imc_destroy(fl_imc **pm)
{
  fl_imc *m = pm ? *pm : NULL;
  if (!m)
    return;
  for (int k = 0; k < FL_IMC_SLOTS; k++) {
    /* a slot an abandoned transfer may still touch goes to the runtime */
    if (m->nreq > 0 && k == m->pending) {
      fl_rt_adopt(m->rt, m->snap[k]);
      fl_rt_adopt(m->rt, m->mirror[k]);
      continue;
    }
    free(m->snap[k]);
    free(m->mirror[k]);
  }
  free(m);
  *pm = NULL;
}

static int fl_imc_free_slot(const fl_imc *m)
{
  for (int k = 0; k < FL_IMC_SLOTS; k++)
    if (k != m->committed && k != m->previous)
      return k;
  return 0;
}

/* A transfer abandoned by a failure may still write its slot: replace that slot's buffers. */
static void fl_imc_abandon(fl_imc *m)
{
  if (m->nreq > 0 && m->pending >= 0) {
    fl_rt_adopt(m->rt, m->snap[m->pending]);
    fl_rt_adopt(m->rt, m->mirror[m->pending]);
    m->snap[m->pending] = calloc(m->bytes ? m->bytes : 1, 1);
    m->mirror[m->pending] = calloc(m->bytes ? m->bytes : 1, 1);
    m->version[m->pending] = -1;
  }
  m->nreq = 0;
  m->pending = -1;
}

void fl_imc_drop_pending(fl_imc *m)
{
  fl_imc_abandon(m);
}

void *fl_imc_buffer(fl_imc *m)
{
  return m->snap[fl_imc_free_slot(m)];
}

int fl_imc_start_copy(fl_imc *m, const void *data, long version)
{
  memcpy(fl_imc_buffer(m), data, m->bytes);
  return fl_imc_start(m, version);
}

int fl_imc_start(fl_imc *m, long version)
{
  return fl_imc_start_n(m, version, m->bytes);
}

int fl_imc_start_n(fl_imc *m, long version, size_t n)
{
  fl_rt *rt = m->rt;
  int k = fl_imc_free_slot(m), holder = fl_rt_mirror_holder(rt, rt->role), source = fl_rt_mirror_source(rt, rt->role);
  if (!m->snap[k] || !m->mirror[k])
    return FL_RT_LOST;
  m->version[k] = version;
  m->pending = k;
  m->nreq = 0;
  if (source != rt->role)
    MPI_Irecv(m->mirror[k], (int)m->bytes, MPI_BYTE, source, 200 + m->id, rt->comm, &m->req[m->nreq++]);
  if (holder != rt->role) {
    if (n > m->bytes)
      n = m->bytes;
    MPI_Isend(m->snap[k], (int)n, MPI_BYTE, holder, 200 + m->id, rt->comm, &m->req[m->nreq++]);
    m->bytes_sent += (double)n;
  }
  return FL_RT_OK;
}

int fl_imc_commit(fl_imc *m)
{
  double t0 = fl_rt_now(), flag = 1.0;
  int rc = m->nreq ? fl_rt_wait(m->rt, m->req, m->nreq) : FL_RT_OK;
  if (rc == FL_RT_OK)
    rc = fl_rt_sum(m->rt, &flag, 1); /* completes only when every active role completed its transfers */
  m->commit_s += fl_rt_now() - t0;
  if (rc != FL_RT_OK) {
    fl_imc_abandon(m);
    return rc;
  }
  m->nreq = 0;
  m->previous = m->committed;
  m->committed = m->pending;
  m->pending = -1;
  m->commits++;
  return FL_RT_OK;
}

void fl_imc_versions(const fl_imc *m, long versions[2])
{
  versions[0] = m->committed >= 0 ? m->version[m->committed] : -1;
  versions[1] = m->previous >= 0 ? m->version[m->previous] : -1;
}

static int fl_imc_slot_of(const fl_imc *m, long version)
{
  if (m->committed >= 0 && m->version[m->committed] == version)
    return m->committed;
  if (m->previous >= 0 && m->version[m->previous] == version)
    return m->previous;
  return -1;
}

int fl_imc_restore(fl_imc *m, void *data)
{
  fl_rt *rt = m->rt;
  long v = rt->agreed_version;
  MPI_Request req[64];
  int nreq = 0, rc;

  fl_imc_abandon(m);
  if (rt->role < 0)
    return FL_RT_OK;
  if (rt->promoted) {
    /* my data comes from the mirror of my role */
    int holder = fl_rt_mirror_holder(rt, rt->role);
    MPI_Irecv(data, (int)m->bytes, MPI_BYTE, holder, 300 + m->id, rt->comm, &req[nreq++]);
  } else {
    int k = fl_imc_slot_of(m, v);
    if (k < 0)
      return FL_RT_LOST;
    memcpy(data, m->snap[k], m->bytes);
  }
  /* the mirrors I hold of dead roles go to their new holders */
  for (int d = 0; d < rt->ndead && nreq < 64; d++) {
    int r = rt->dead_roles[d];
    if (fl_rt_mirror_holder(rt, r) == rt->role && !rt->promoted) {
      int k = fl_imc_slot_of(m, v);
      if (k < 0)
        return FL_RT_LOST;
      MPI_Isend(m->mirror[k], (int)m->bytes, MPI_BYTE, r, 300 + m->id, rt->comm, &req[nreq++]);
    }
  }
  rc = nreq ? fl_rt_wait(rt, req, nreq) : FL_RT_OK;
  if (rc != FL_RT_OK)
    return rc;
  /* a promoted spare's own slots hold nothing yet; the caller checkpoints the restored state again */
  return FL_RT_OK;
}

int fl_imc_copies_kept(const fl_rt *rt, const unsigned char *lost)
{
  for (int r = 0; r < rt->nroles; r++) /* a lost role's only copy is its mirror */
    if (lost[r] && (fl_rt_mirror_holder(rt, r) == r || lost[fl_rt_mirror_holder(rt, r)]))
      return 0;
  return 1;
}

int fl_imc_refetch(fl_imc *m, const unsigned char *lost, void *data)
{
  fl_rt *rt = m->rt;
  MPI_Request req[64];
  int nreq = 0, me = rt->role;
  if (me < 0)
    return FL_RT_OK;
  if (m->committed < 0 || !fl_imc_copies_kept(rt, lost)) /* every role decides alike */
    return FL_RT_LOST;
  fl_imc_abandon(m);
  if (lost[me])
    MPI_Irecv(data, (int)m->bytes, MPI_BYTE, fl_rt_mirror_holder(rt, me), 400 + m->id, rt->comm, &req[nreq++]);
  else
    memcpy(data, m->snap[m->committed], m->bytes);
  for (int r = 0; r < rt->nroles && nreq < 64; r++)
    if (lost[r] && r != me && fl_rt_mirror_holder(rt, r) == me)
      MPI_Isend(m->mirror[m->committed], (int)m->bytes, MPI_BYTE, r, 400 + m->id, rt->comm, &req[nreq++]);
  return nreq ? fl_rt_wait(rt, req, nreq) : FL_RT_OK;
}

const void *fl_imc_committed_snapshot(const fl_imc *m)
{
  return m->committed >= 0 ? m->snap[m->committed] : NULL;
}
const void *fl_imc_committed_mirror(const fl_imc *m)
{
  return m->committed >= 0 ? m->mirror[m->committed] : NULL;
}

long fl_imc_commits(const fl_imc *m)
{
  return m->commits;
}
double fl_imc_bytes(const fl_imc *m)
{
  return m->bytes_sent;
}
double fl_imc_commit_s(const fl_imc *m)
{
  return m->commit_s;
}
