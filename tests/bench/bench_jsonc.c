/*
 * bench_jsonc.c - the baselines and the measuring of bench_zonefile.sh.
 *   bench_jsonc gen N ZONE FILE  write a plan of N creates (one A RRset per owner name, hN.ZONE) with json-c
 *   bench_jsonc parse FILE       read FILE and parse it with json-c alone: the floor a plan's parse is held to
 *   bench_jsonc run CMD ARG...   run CMD (its stdout and stderr to /dev/null)
 * parse and run print "wall=SECONDS rss_kib=KIB exit=CODE": wall time and peak RSS of the parse (this
 * process) or of CMD (the child, from wait4), so a shell script needs no GNU time.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int gen(size_t n, const char *zone, const char *path)
{
	json_object *root = json_object_new_object(), *list = json_object_new_array();
	char name[300], ip[32];
	int rc;

	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_new_object(), *targets = json_object_new_array();
		snprintf(name, sizeof(name), "h%zu.%s", i, zone);
		snprintf(ip, sizeof(ip), "10.%zu.%zu.%zu", (i >> 16) & 255, (i >> 8) & 255, i & 255);
		json_object_array_add(targets, json_object_new_string(ip));
		json_object_object_add(c, "dnsName", json_object_new_string(name));
		json_object_object_add(c, "targets", targets);
		json_object_object_add(c, "recordType", json_object_new_string("A"));
		json_object_object_add(c, "recordTTL", json_object_new_int(300));
		json_object_array_add(list, c);
	}
	json_object_object_add(root, "create", list);
	rc = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PLAIN);
	json_object_put(root);
	return rc == 0 ? 0 : 1;
}

static int parse(const char *path)
{
	double start = now();
	json_object *plan = json_object_from_file(path);
	double wall = now() - start;
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("wall=%.3f rss_kib=%ld exit=%d\n", wall, ru.ru_maxrss, plan ? 0 : 1);
	json_object_put(plan);
	return plan ? 0 : 1;
}

static int run(char **argv)
{
	double start = now();
	struct rusage ru;
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("bench_jsonc run");
		return 1;
	}
	printf("wall=%.3f rss_kib=%ld exit=%d\n", now() - start, ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "gen") == 0)
		return gen(strtoul(argv[2], NULL, 10), argv[3], argv[4]);
	if (argc == 3 && strcmp(argv[1], "parse") == 0)
		return parse(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "run") == 0)
		return run(argv + 2);
	fprintf(stderr, "usage: bench_jsonc gen N ZONE FILE | parse FILE | run CMD [ARG...]\n");
	return 2;
}
