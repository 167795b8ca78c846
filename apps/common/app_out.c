/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Output sinks: stdout, or a file written through a temporary (app_out.h). */
#define _POSIX_C_SOURCE 200809L

#include "app_out.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the temporary file and the signals that end a run ----
 * SIGINT, SIGTERM, ... would leave FILE.tmp.PID.N behind (megabytes of a
 * half-written result).  While one is armed, these signals run a handler
 * that only unlinks the path copied here beforehand, puts back the
 * disposition it replaced and raises the signal again, so the run still ends
 * by that signal (async-signal-safe: unlink, sigaction, raise).  A signal
 * the tool was started with ignored stays ignored. */
static const int guard_signals[] = {SIGHUP, SIGINT, SIGPIPE, SIGTERM, SIGXFSZ};
#define NGUARD (sizeof guard_signals / sizeof guard_signals[0])
static char guard_path[4096];
static volatile sig_atomic_t guard_armed;
static struct sigaction guard_old[NGUARD];
static int guard_set[NGUARD];

static void guard_handler(int sig) {
  int e = errno;
  if (guard_armed) {
    guard_armed = 0;
    unlink(guard_path);
  }
  for (size_t k = 0; k < NGUARD; k++) {
    if (guard_signals[k] == sig && guard_set[k]) {
      sigaction(sig, &guard_old[k], NULL);
    }
  }
  raise(sig); /* blocked until the handler returns, then it ends the run */
  errno = e;
}

void app_out_guard(const char *tmp) {
  size_t n = strlen(tmp);
  if (guard_armed || n >= sizeof guard_path) {
    return; /* one at a time; a path that long is left to the user */
  }
  memcpy(guard_path, tmp, n + 1);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = guard_handler;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < NGUARD; k++) {
    sigaddset(&sa.sa_mask, guard_signals[k]); /* one handler at a time */
  }
  guard_armed = 1;
  for (size_t k = 0; k < NGUARD; k++) {
    struct sigaction old;
    guard_set[k] = sigaction(guard_signals[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN &&
                   sigaction(guard_signals[k], &sa, &guard_old[k]) == 0;
  }
}

void app_out_unguard(void) {
  guard_armed = 0; /* the handler leaves the file alone from here on */
  for (size_t k = 0; k < NGUARD; k++) {
    if (guard_set[k]) {
      sigaction(guard_signals[k], &guard_old[k], NULL);
      guard_set[k] = 0;
    }
  }
}

static char *dup_string(const char *s) {
  char *d = malloc(strlen(s) + 1);
  if (d) {
    strcpy(d, s);
  }
  return d;
}

static void release(app_out *o) {
  free(o->path);
  free(o->tmp);
  o->path = o->tmp = NULL;
  o->fp = NULL;
  o->special = 0;
}

/* Paths that are not regular files (/dev/null, a FIFO, a terminal) are
 * written in place: renaming a temporary file over them would be wrong. */
static int is_special(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
}

/* Create path.tmp.PID[.N] exclusively, with the permissions of a normal new
 * file (0666 less the umask, unlike mkstemp's 0600), or, when it replaces an
 * existing file, that file's permissions: a 0600 result stays private. */
static int create_temp(app_out *o, const char *path) {
  size_t size = strlen(path) + 64;
  o->tmp = malloc(size);
  if (!o->tmp) {
    errno = ENOMEM;
    return -1;
  }
  struct stat old;
  int replaces = stat(path, &old) == 0 && S_ISREG(old.st_mode);
  for (int k = 0; k < 100; k++) {
    snprintf(o->tmp, size, "%s.tmp.%ld.%d", path, (long)getpid(), k);
    /* created 0600 when it replaces a file, so it is never more open than that */
    int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, replaces ? 0600 : 0666);
    if (fd >= 0 && replaces && fchmod(fd, old.st_mode & 07777) != 0) {
      int e = errno;
      close(fd);
      remove(o->tmp);
      errno = e;
      return -1;
    }
    if (fd >= 0 || errno != EEXIST) {
      return fd;
    }
  }
  return -1;
}

lth_status app_out_open(app_out *o, const char *path, lth_error *err) {
  memset(o, 0, sizeof *o);
  if (!path || strcmp(path, "-") == 0) {
    o->fp = stdout;
    return LTH_OK;
  }
  o->path = dup_string(path);
  if (!o->path) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  int fd;
  if (is_special(path)) {
    free(o->path);
    o->path = NULL; /* no rename at the end */
    fd = open(path, O_WRONLY | O_TRUNC);
  } else {
    /* beside the target, so the final rename stays on one file system */
    fd = create_temp(o, path);
  }
  if (fd < 0 || !(o->fp = fdopen(fd, "w"))) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
    }
    if (fd >= 0 && o->tmp) {
      remove(o->tmp);
    }
    lth_error_set(err, LTH_EIO, "cannot write output file %s: %s", path, strerror(e));
    release(o);
    return LTH_EIO;
  }
  o->special = o->path == NULL;
  if (o->tmp) {
    app_out_guard(o->tmp);
  }
  return LTH_OK;
}

lth_status app_out_commit(app_out *o, lth_error *err) {
  if (!o->fp) {
    return lth_error_set(err, LTH_EIO, "no output open");
  }
  if (o->special) {
    int bad = ferror(o->fp);
    int e = errno;
    if (fclose(o->fp) != 0 || bad) {
      lth_error_set(err, LTH_EIO, "error writing the output: %s", strerror(bad ? e : errno));
      release(o);
      return LTH_EIO;
    }
    release(o);
    return LTH_OK;
  }
  if (!o->path) {
    /* stdout: a full disk or closed pipe must not pass for success */
    if (fflush(stdout) != 0 || ferror(stdout)) {
      return lth_error_set(err, LTH_EIO, "error writing to standard output: %s", strerror(errno));
    }
    o->fp = NULL;
    return LTH_OK;
  }
  int bad = ferror(o->fp);
  int e = errno;
  if (fclose(o->fp) != 0) {
    bad = 1;
    e = errno;
  }
  o->fp = NULL;
  if (!bad && rename(o->tmp, o->path) != 0) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    remove(o->tmp);
  }
  app_out_unguard();
  if (bad) {
    lth_error_set(err, LTH_EIO, "cannot write output file %s: %s", o->path, strerror(e));
    release(o);
    return LTH_EIO;
  }
  release(o);
  return LTH_OK;
}

void app_out_abort(app_out *o) {
  if (!o->fp) {
    release(o);
    return;
  }
  if (o->special) {
    fclose(o->fp);
  } else if (!o->path) {
    fflush(stdout);
  } else {
    fclose(o->fp);
    remove(o->tmp);
    app_out_unguard();
  }
  release(o);
}

/* The system's reason for a stream's write error: stdio keeps what it could
 * not write, so flushing again fails again with the same errno (ENOSPC,
 * EFBIG, EIO, ...); 0 when nothing was left to flush. */
static int write_errno(FILE *fp) {
  errno = 0;
  return fflush(fp) != 0 ? errno : 0;
}

lth_status app_out_finish(app_out *o, int bad, lth_error *err) {
  if (ferror(o->fp)) {
    int e = write_errno(o->fp);
    const char *why = e ? strerror(e) : "the system gave no reason";
    if (o->path) {
      lth_error_set(err, LTH_EIO, "cannot write output file %s: %s", o->path, why);
    } else {
      lth_error_set(err, LTH_EIO, "error writing %s: %s",
                    o->special ? "the output" : "to standard output", why);
    }
    app_out_abort(o);
    return LTH_EIO;
  }
  if (bad) {
    /* a writer's own failure (an unfinished document) without a stream error */
    app_out_abort(o);
    return lth_error_set(err, LTH_EIO, "error writing the output: the document is incomplete");
  }
  return app_out_commit(o, err);
}
