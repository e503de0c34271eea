// maxrss OUT_FILE CMD [ARGS...]: runs CMD and writes "<status> <peak RSS KiB>\n"
// to OUT_FILE, where status is CMD's exit code, or minus the signal that
// killed it. Exits with CMD's exit code (128 + signal when killed).
//
// Why not getrusage() from bench/run.py itself: Linux carries a process's RSS
// high-water mark across exec(), so a child forked from a Python process that
// has imported torch and numpy starts with that process's peak (~240 MB) and
// every runtime would look the same. Forked from this small launcher, CMD's
// ru_maxrss is its own.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: maxrss OUT_FILE CMD [ARGS...]\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "maxrss: fork: %s\n", std::strerror(errno));
    return 1;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    std::fprintf(stderr, "maxrss: cannot run %s: %s\n", argv[2], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::fprintf(stderr, "maxrss: wait4: %s\n", std::strerror(errno));
      return 1;
    }
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  if (FILE *f = std::fopen(argv[1], "w")) {
    std::fprintf(f, "%d %ld\n", code, usage.ru_maxrss);
    std::fclose(f);
  }
  return code >= 0 ? code : 128 - code;
}
