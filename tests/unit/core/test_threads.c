/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth's threads (lib/core/threads.h): the default count from LTH_NUM_THREADS,
 * OMP_NUM_THREADS or the CPUs, whether OpenMP is compiled in or not; the pool
 * runs every task once, on threads of its own and concurrently; lth_pool_wait
 * runs in the caller a task no thread has started instead of waiting for one;
 * idle pool threads sleep (no CPU time) instead of polling. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "core/threads.h"
#include "testutil.h"

START_TEST(test_thread_count_sources) {
  unsetenv("LTH_NUM_THREADS");
  unsetenv("OMP_NUM_THREADS");
  int cpus = lth_threads_available(0);
  ck_assert_int_ge(cpus, 1);
  ck_assert_int_eq(lth_threads_available(3), 3);
  ck_assert_int_eq(lth_threads_available(100000), LTH_THREADS_MAX);
  setenv("OMP_NUM_THREADS", "5,2", 1); /* a list: its first number */
  ck_assert_int_eq(lth_threads_available(0), 5);
  setenv("LTH_NUM_THREADS", "7", 1); /* before OMP_NUM_THREADS */
  ck_assert_int_eq(lth_threads_available(0), 7);
  ck_assert_int_eq(lth_threads_available(2), 2); /* an explicit request first */
  setenv("LTH_NUM_THREADS", "seven", 1);         /* not a number: the next source */
  ck_assert_int_eq(lth_threads_available(0), 5);
  setenv("LTH_NUM_THREADS", "0", 1);
  setenv("OMP_NUM_THREADS", "-3", 1);
  ck_assert_int_eq(lth_threads_available(0), cpus);
  unsetenv("LTH_NUM_THREADS");
  unsetenv("OMP_NUM_THREADS");
}
END_TEST

/* Tasks that meet: each waits (at most 10 s) until `want` of them have started. */
typedef struct meet {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int started, want, met, runs, nested;
  pthread_t caller;
  int on_caller;
} meet;

static void meet_init(meet *m, int want) {
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  m->started = m->met = m->runs = m->nested = m->on_caller = 0;
  m->want = want;
  m->caller = pthread_self();
}

static void meet_task(void *vp) {
  meet *m = vp;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  pthread_mutex_lock(&m->mu);
  m->runs++;
  m->nested += lth_threads_nested();
  m->on_caller += pthread_equal(pthread_self(), m->caller) != 0;
  m->started++;
  pthread_cond_broadcast(&m->cv);
  while (m->started < m->want) {
    if (pthread_cond_timedwait(&m->cv, &m->mu, &until) == ETIMEDOUT) break;
  }
  m->met += m->started >= m->want;
  pthread_mutex_unlock(&m->mu);
}

START_TEST(test_pool_runs_tasks_concurrently) {
  lth_pool *p = lth_pool_alloc(3);
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(lth_pool_threads(p), 0); /* none before the first task */
  ck_assert_int_eq(lth_threads_nested(), 0);
  meet m;
  meet_init(&m, 3);
  for (int k = 0; k < 3; k++) ck_assert_int_eq(lth_pool_submit(p, meet_task, &m), 0);
  lth_pool_wait(p);
  /* three tasks at once, at most one of them run by the caller (lth_pool_wait
   * runs a task no thread has taken yet): the pool ran at least two at once */
  ck_assert_int_eq(m.runs, 3);
  ck_assert_int_eq(m.met, 3);
  ck_assert_int_le(m.on_caller, 1);
  ck_assert_int_eq(m.nested, 3 - m.on_caller); /* lth_threads_nested on a pool thread */
  ck_assert_int_eq(lth_pool_threads(p), 3);
  /* again, on the same threads; then many more tasks than threads */
  meet_init(&m, 2);
  for (int k = 0; k < 2; k++) ck_assert_int_eq(lth_pool_submit(p, meet_task, &m), 0);
  lth_pool_wait(p);
  ck_assert_int_eq(m.met, 2);
  meet_init(&m, 1);
  for (int k = 0; k < 1000; k++) ck_assert_int_eq(lth_pool_submit(p, meet_task, &m), 0);
  lth_pool_wait(p);
  ck_assert_int_eq(m.runs, 1000);
  ck_assert_int_eq(lth_pool_threads(p), 3);
  lth_pool_free(p);
}
END_TEST

/* Task 1 holds the pool's only thread until task 2 releases it. */
typedef struct hold {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int held, released, second_on_caller;
  pthread_t caller;
} hold;

static void hold_task(void *vp) {
  hold *h = vp;
  pthread_mutex_lock(&h->mu);
  h->held = 1;
  pthread_cond_broadcast(&h->cv);
  while (!h->released) pthread_cond_wait(&h->cv, &h->mu);
  pthread_mutex_unlock(&h->mu);
}

static void release_task(void *vp) {
  hold *h = vp;
  pthread_mutex_lock(&h->mu);
  h->second_on_caller = pthread_equal(pthread_self(), h->caller) != 0;
  h->released = 1;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

START_TEST(test_wait_runs_unstarted_tasks) {
  lth_pool *p = lth_pool_alloc(1);
  hold h = {.held = 0, .released = 0, .second_on_caller = 0, .caller = pthread_self()};
  pthread_mutex_init(&h.mu, NULL);
  pthread_cond_init(&h.cv, NULL);
  ck_assert_int_eq(lth_pool_submit(p, hold_task, &h), 0);
  pthread_mutex_lock(&h.mu);
  while (!h.held) pthread_cond_wait(&h.cv, &h.mu);
  pthread_mutex_unlock(&h.mu);
  /* the only thread is held: the second task waits in the queue, and
   * lth_pool_wait runs it here instead of waiting for the thread */
  ck_assert_int_eq(lth_pool_submit(p, release_task, &h), 0);
  lth_pool_wait(p);
  ck_assert_int_eq(h.second_on_caller, 1);
  ck_assert_int_eq(h.released, 1);
  lth_pool_free(p);
}
END_TEST

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nothing(void *vp) { (void)vp; }

/* Idle threads sleep: half a second with four idle pool threads costs the
 * process no CPU time (threads polling with sched_yield would cost up to
 * four cores' worth: 2 s). */
START_TEST(test_idle_threads_sleep) {
  lth_pool *p = lth_pool_alloc(4);
  meet m;
  meet_init(&m, 4);
  for (int k = 0; k < 4; k++) lth_pool_submit(p, meet_task, &m);
  lth_pool_wait(p);
  ck_assert_int_eq(lth_pool_threads(p), 4);
  lth_pool_submit(p, nothing, NULL);
  lth_pool_wait(p);
  double c0 = cpu_seconds();
  struct timespec half = {0, 500000000L};
  nanosleep(&half, NULL);
  double used = cpu_seconds() - c0;
  ck_assert_msg(used < 0.05, "idle pool threads used %.3f s of CPU in 0.5 s", used);
  lth_pool_free(p);
}
END_TEST

static Suite *threads_suite(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_thread_count_sources);
  tcase_add_test(tc, test_pool_runs_tasks_concurrently);
  tcase_add_test(tc, test_wait_runs_unstarted_tasks);
  tcase_add_test(tc, test_idle_threads_sleep);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(threads_suite)
