/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A thread pool (lib/core/threads.h): a queue of tasks, threads started on
 * demand and asleep on a condition variable while the queue is empty. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "threads.h"

#ifdef LTH_HAVE_OPENMP
#include <omp.h>
#endif

typedef struct task {
  lth_pool_fn fn;
  void *arg;
} task;

struct lth_pool {
  pthread_mutex_t mu;
  pthread_cond_t work; /* pool threads: a task was queued, or stop */
  pthread_cond_t done; /* lth_pool_wait: a started task returned */
  pthread_t *th;
  int max, started;
  int idle;    /* threads asleep on `work` */
  int wake;    /* of those, signalled and not yet awake */
  int running; /* tasks started by pool threads and not yet returned */
  int waiting; /* lth_pool_wait asleep on `done` */
  int stop;
  task *q; /* ring: q[(head + i) % cap], i < count */
  size_t head, count, cap;
};

/* Set on the pool's threads: lth calls made from a task stay serial. */
static _Thread_local int on_pool_thread;

int lth_threads_nested(void) {
#ifdef LTH_HAVE_OPENMP
  if (omp_in_parallel()) {
    return 1;
  }
#endif
  return on_pool_thread;
}

lth_pool *lth_pool_alloc(int threads) {
  lth_pool *p = calloc(1, sizeof *p);
  if (!p) {
    return NULL;
  }
  p->max = threads < 1 ? 1 : threads;
  p->th = calloc((size_t)p->max, sizeof *p->th);
  if (!p->th) {
    free(p);
    return NULL;
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->done, NULL);
  return p;
}

static task pop(lth_pool *p) {
  task t = p->q[p->head];
  p->head = (p->head + 1) % p->cap;
  p->count--;
  return t;
}

static void *pool_main(void *vp) {
  lth_pool *p = vp;
  on_pool_thread = 1;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->count == 0 && !p->stop) {
      p->idle++;
      while (p->wake == 0 && !p->stop) {
        pthread_cond_wait(&p->work, &p->mu);
      }
      p->idle--;
      if (p->wake > 0) p->wake--;
    }
    if (p->count == 0) {
      break; /* stop, and nothing queued */
    }
    task t = pop(p);
    p->running++;
    pthread_mutex_unlock(&p->mu);
    t.fn(t.arg);
    pthread_mutex_lock(&p->mu);
    p->running--;
    if (p->running == 0 && p->waiting) {
      pthread_cond_signal(&p->done);
    }
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* Start one more thread (mu held).  It starts with every signal blocked, so
 * that the host's signal handlers keep running on the host's threads. */
static void start_thread(lth_pool *p) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  if (pthread_create(&p->th[p->started], NULL, pool_main, p) == 0) {
    p->started++;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int lth_pool_submit(lth_pool *p, lth_pool_fn fn, void *arg) {
  pthread_mutex_lock(&p->mu);
  if (p->count == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 8;
    task *q = malloc(cap * sizeof *q);
    if (!q) {
      pthread_mutex_unlock(&p->mu);
      return -1;
    }
    for (size_t i = 0; i < p->count; i++) q[i] = p->q[(p->head + i) % p->cap];
    free(p->q);
    p->q = q;
    p->head = 0;
    p->cap = cap;
  }
  p->q[(p->head + p->count) % p->cap] = (task){.fn = fn, .arg = arg};
  p->count++;
  if (p->idle > p->wake) {
    p->wake++;
    pthread_cond_signal(&p->work);
  } else if (p->started < p->max) {
    start_thread(p); /* if it cannot start, lth_pool_wait runs the task */
  }
  pthread_mutex_unlock(&p->mu);
  return 0;
}

void lth_pool_wait(lth_pool *p) {
  pthread_mutex_lock(&p->mu);
  while (p->count > 0) {
    task t = pop(p);
    pthread_mutex_unlock(&p->mu);
    t.fn(t.arg);
    pthread_mutex_lock(&p->mu);
  }
  while (p->running > 0) {
    p->waiting = 1;
    pthread_cond_wait(&p->done, &p->mu);
    p->waiting = 0;
  }
  pthread_mutex_unlock(&p->mu);
}

int lth_pool_threads(const lth_pool *cp) {
  lth_pool *p = (lth_pool *)cp;
  pthread_mutex_lock(&p->mu);
  int n = p->started;
  pthread_mutex_unlock(&p->mu);
  return n;
}

void lth_pool_free(lth_pool *p) {
  if (!p) {
    return;
  }
  lth_pool_wait(p);
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (int k = 0; k < p->started; k++) {
    pthread_join(p->th[k], NULL);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->done);
  free(p->th);
  free(p->q);
  free(p);
}
