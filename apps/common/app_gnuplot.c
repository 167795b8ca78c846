/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gnuplot as a child process (app_gnuplot.h). */
#define _POSIX_C_SOURCE 200809L

#include "app_gnuplot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define INSTALL_HINT                                                                               \
  "install the Debian package gnuplot-nox (apt-get install gnuplot-nox), or set LTH_GNUPLOT "      \
  "to a gnuplot program"

const char *app_gnuplot_program(void) {
  const char *env = getenv("LTH_GNUPLOT");
  return env && env[0] ? env : "gnuplot";
}

/* The executable `prog` names (itself when it holds a '/', else searched on
 * PATH) as a new string, or NULL.  Resolved before fork() so that the child
 * only calls async-signal-safe functions (the tools may run lth's own threads). */
static char *find_program(const char *prog) {
  if (strchr(prog, '/')) {
    char *copy = access(prog, X_OK) == 0 ? malloc(strlen(prog) + 1) : NULL;
    return copy ? strcpy(copy, prog) : NULL;
  }
  const char *path = getenv("PATH");
  if (!path) {
    return NULL;
  }
  size_t plen = strlen(prog);
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t dlen = colon ? (size_t)(colon - path) : strlen(path);
    char *full = malloc(dlen + plen + 2);
    if (full) {
      memcpy(full, dlen ? path : ".", dlen ? dlen : 1);
      size_t at = dlen ? dlen : 1;
      full[at] = '/';
      memcpy(full + at + 1, prog, plen + 1);
      struct stat sb;
      if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && access(full, X_OK) == 0) {
        return full;
      }
      free(full);
    }
    path += dlen + (colon ? 1 : 0);
  }
  return NULL;
}

/* The first lines of what gnuplot printed, without its echo of the script. */
static void read_messages(FILE *errf, char *buf, size_t size) {
  buf[0] = '\0';
  rewind(errf);
  size_t n = fread(buf, 1, size - 1, errf);
  buf[n] = '\0';
  /* one line, runs of blanks (gnuplot's caret line) squeezed */
  char *o = buf;
  for (const char *c = buf; *c; c++) {
    char ch = *c == '\n' || *c == '\t' ? ' ' : *c;
    if (ch != ' ' || (o > buf && o[-1] != ' ')) {
      *o++ = ch;
    }
  }
  while (o > buf && o[-1] == ' ') {
    o--;
  }
  *o = '\0';
}

lth_status app_gnuplot_run(FILE *script, int out_fd, lth_error *err) {
  const char *prog = app_gnuplot_program();
  char *exe = find_program(prog);
  if (!exe) {
    return lth_error_set(err, LTH_EIO, "cannot draw: the plotting program '%s' was not found; %s",
                         prog, INSTALL_HINT);
  }
  FILE *errf = tmpfile();
  if (!errf || fflush(script) != 0) {
    free(exe);
    if (errf) {
      fclose(errf);
    }
    return lth_error_set(err, LTH_EIO, "cannot draw: no temporary file for gnuplot's messages");
  }
  rewind(script);
  pid_t pid = fork();
  if (pid == 0) {
    /* child: script on stdin, the picture on stdout, messages captured.
     * A fixed argument vector, no shell: -d (no initialization files) so
     * that the picture depends on the script alone. */
    if (dup2(fileno(script), STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(fileno(errf), STDERR_FILENO) < 0) {
      _exit(126);
    }
    char opt_d[] = "-d";
    char *argv[] = {exe, opt_d, NULL};
    execv(exe, argv);
    _exit(127);
  }
  free(exe);
  if (pid < 0) {
    fclose(errf);
    return lth_error_set(err, LTH_EIO, "cannot draw: cannot start '%s': %s", prog, strerror(errno));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      fclose(errf);
      return lth_error_set(err, LTH_EIO, "cannot draw: lost the '%s' process", prog);
    }
  }
  char msg[400];
  read_messages(errf, msg, sizeof msg);
  fclose(errf);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    return LTH_OK;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return lth_error_set(err, LTH_EIO, "cannot draw: '%s' could not be run; %s", prog,
                         INSTALL_HINT);
  }
  return lth_error_set(err, LTH_EIO, "cannot draw: '%s' failed (%s %d): %s", prog,
                       WIFEXITED(status) ? "exit status" : "signal",
                       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                       msg[0] ? msg : "no message");
}
