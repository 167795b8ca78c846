/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How many threads lth may use (lib/core/threads.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "threads.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* A positive count from the environment variable `name` (its first number:
 * OMP_NUM_THREADS may be a list, "4,2"), or 0 if unset or not a number. */
static int env_count(const char *name) {
  const char *v = getenv(name);
  if (!v) {
    return 0;
  }
  char *end;
  long n = strtol(v, &end, 10);
  if (end == v || (*end != '\0' && *end != ',') || n < 1) {
    return 0;
  }
  return n > LTH_THREADS_MAX ? LTH_THREADS_MAX : (int)n;
}

/* The CPUs this process may run on (taskset, cgroup cpusets), else online. */
static int cpus_available(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    return CPU_COUNT(&set);
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

int lth_threads_available(int requested) {
  int n = requested > 0 ? requested : env_count("LTH_NUM_THREADS");
  if (n == 0) {
    n = env_count("OMP_NUM_THREADS");
  }
  if (n == 0) {
    n = cpus_available();
  }
  return n < 1 ? 1 : (n > LTH_THREADS_MAX ? LTH_THREADS_MAX : n);
}
