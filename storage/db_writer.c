/* db_writer.c — the results database's writer (db.h, fl_db_writer): rows and their events handed over by the
 * engines and written by a thread of its own (or in the caller's thread), one at a time, in the order given; the
 * first error kept until a submit or a sync reports it.
 *
 * A process that forks while the writer thread is in SQLite or malloc — or still starting up — gives its child a lock
 * no one will release: under ASan, whose allocator has no fork handlers, a worker of the pool (pool.c) hung so in CI.
 * So every fork waits, in a pthread_atfork handler, until each writer thread is started and idle, and holds it there
 * until the fork is done. */
#include "db.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fl_db_writer {
  fl_db *db;
  pthread_t thread;
  int threaded;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int busy, stop;     /* a run is handed over and not yet written; the thread should end */
  int ready;          /* the thread waits for its first run (set once, by the thread) */
  fl_db_writer *next; /* the live threaded writers (fl_writers) */
  fl_db_run row;      /* the run in flight */
  fl_evlog log;       /* its events (the writer's buffer) */
  int64_t *id;        /* where its id goes */
  fl_err rc;          /* the first error, kept until a submit or sync reports it */
  char msg[1024];
};

static pthread_mutex_t fl_writers_mu = PTHREAD_MUTEX_INITIALIZER;
static fl_db_writer *fl_writers;
static pthread_once_t fl_writers_once = PTHREAD_ONCE_INIT;

static void fl_writers_prepare(void)
{
  pthread_mutex_lock(&fl_writers_mu);
  for (fl_db_writer *w = fl_writers; w; w = w->next) {
    pthread_mutex_lock(&w->mu);
    while (!w->ready || w->busy)
      pthread_cond_wait(&w->cv, &w->mu);
  }
}

/* after the fork, in the parent and in the child alike (the child has no writer thread, and never writes) */
static void fl_writers_release(void)
{
  for (fl_db_writer *w = fl_writers; w; w = w->next)
    pthread_mutex_unlock(&w->mu);
  pthread_mutex_unlock(&fl_writers_mu);
}

static void fl_writers_atfork(void)
{
  pthread_atfork(fl_writers_prepare, fl_writers_release, fl_writers_release);
}

static void fl_db_writer_write(fl_db_writer *w)
{
  fl_err rc = fl_db_insert_run(w->db, &w->row, &w->log, w->id);
  if (rc != FL_OK && w->rc == FL_OK) {
    w->rc = rc;
    snprintf(w->msg, sizeof w->msg, "%s", fl_err_msg());
  }
  fl_evlog_clear(&w->log);
}

static void *fl_db_writer_main(void *arg)
{
  fl_db_writer *w = arg;
  pthread_mutex_lock(&w->mu);
  w->ready = 1;
  pthread_cond_broadcast(&w->cv);
  for (;;) {
    while (!w->busy && !w->stop)
      pthread_cond_wait(&w->cv, &w->mu);
    if (!w->busy)
      break; /* stopped with nothing left */
    pthread_mutex_unlock(&w->mu);
    fl_db_writer_write(w); /* the fields of the run in flight are the writer's until busy drops */
    pthread_mutex_lock(&w->mu);
    w->busy = 0;
    pthread_cond_broadcast(&w->cv);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

fl_err fl_db_writer_start(fl_db *db, int threaded, fl_db_writer **out)
{
  fl_err rc = FL_OK;
  fl_db_writer *w = NULL;
  *out = NULL;
  FL_ALLOC(w, 1);
  w->db = db;
  fl_evlog_init(&w->log, 0);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  pthread_once(&fl_writers_once, fl_writers_atfork);
  pthread_mutex_lock(&fl_writers_mu); /* (no fork between the thread's start and its place in the list) */
  w->threaded = threaded && sqlite3_threadsafe() != 0 && pthread_create(&w->thread, NULL, fl_db_writer_main, w) == 0;
  if (w->threaded) {
    w->next = fl_writers;
    fl_writers = w;
  }
  pthread_mutex_unlock(&fl_writers_mu);
  *out = w;
done:
  return rc;
}

/* The writer's error, raised in the caller's thread (and cleared) */
static fl_err fl_db_writer_collect(fl_db_writer *w)
{
  fl_err rc = w->rc;
  if (rc == FL_OK)
    return FL_OK;
  w->rc = FL_OK;
  return fl_err_set(rc, "%s", w->msg);
}

fl_err fl_db_writer_sync(fl_db_writer *w)
{
  if (w->threaded) {
    pthread_mutex_lock(&w->mu);
    while (w->busy)
      pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
  }
  return fl_db_writer_collect(w);
}

fl_err fl_db_writer_submit(fl_db_writer *w, const fl_db_run *row, fl_evlog *events, int64_t *id)
{
  fl_err rc = FL_OK;
  fl_evlog spent;
  FL_TRY(fl_db_writer_sync(w));
  /* the writer is idle: its spent (cleared) log becomes the caller's next, the caller's full one the writer's */
  spent = w->log;
  w->log = *events;
  *events = spent;
  events->enabled = w->log.enabled;
  events->phases = w->log.phases;
  w->row = *row;
  w->id = id;
  *id = 0;
  if (!w->threaded) {
    fl_db_writer_write(w);
    FL_TRY(fl_db_writer_collect(w));
    goto done;
  }
  pthread_mutex_lock(&w->mu);
  w->busy = 1;
  pthread_cond_broadcast(&w->cv);
  pthread_mutex_unlock(&w->mu);
done:
  return rc;
}

void fl_db_writer_destroy(fl_db_writer **pw)
{
  fl_db_writer *w = pw ? *pw : NULL;
  if (!w)
    return;
  if (w->threaded) {
    pthread_mutex_lock(&fl_writers_mu);
    for (fl_db_writer **p = &fl_writers; *p; p = &(*p)->next)
      if (*p == w) {
        *p = w->next;
        break;
      }
    pthread_mutex_unlock(&fl_writers_mu);
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
  }
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  fl_evlog_free(&w->log);
  free(w);
  *pw = NULL;
}
