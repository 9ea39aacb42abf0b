/* cli.c — see cli.h. */
#include "cli.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

const char *cubed_bin(void)
{
	const char *b = getenv("CUBED_BIN");
	return b && *b ? b : "build/cubed";
}

int cli_run(const char *const argv[], char *msg, size_t cap, long fsize,
	    pid_t *pid_out)
{
	char path[] = "/tmp/cubed-cliXXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		if (fsize > 0) {
			struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
			setrlimit(RLIMIT_FSIZE, &rl);
			signal(SIGXFSZ, SIG_IGN);
		}
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid_out) {
		close(fd);
		*pid_out = pid;
		return 0;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (msg && cap) {
		ssize_t k = pread(fd, msg, cap - 1, 0);
		msg[k > 0 ? k : 0] = 0;
	}
	close(fd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
