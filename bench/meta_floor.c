/* meta_floor: the floor for fsbattery's metadata workload (files part): create N empty files
 * in one new directory (open O_CREAT|O_WRONLY + close, as touch(1) and fsbattery do), find
 * them (readdir + fstatat AT_SYMLINK_NOFOLLOW of every entry), remove them (readdir +
 * unlinkat of every entry, then rmdir).
 *
 * usage: meta_floor DIR N [cold]
 * DIR must not exist. Prints "create_s=<s> find_s=<s> remove_s=<s>". Before each phase, out
 * of the clock: sync(), and with "cold" (root) drop_caches=3 as fsbattery's default --cache
 * cold does, so both start each phase from the same cache state (bench/cli.sh). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void quiesce(int cold) {
    sync();
    if (cold) {
        int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
        if (fd < 0 || write(fd, "3\n", 2) != 2) {
            perror("drop_caches");
            exit(1);
        }
        close(fd);
    }
}

/* readdir over DIR; fstatat (or unlinkat when unlink) every entry but . and ..; returns the
 * entries seen. */
static long each_entry(const char *dir, int unlink) {
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        exit(1);
    }
    int dfd = dirfd(d);
    long n = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int r = unlink ? unlinkat(dfd, e->d_name, 0)
                       : fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW);
        if (r) {
            perror(e->d_name);
            exit(1);
        }
        n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s DIR N [cold]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    long n = atol(argv[2]);
    int cold = argc > 3 && !strcmp(argv[3], "cold");
    if (mkdir(dir, 0755)) {
        perror(dir);
        return 1;
    }
    char path[4096];
    quiesce(cold);
    double t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/file%06ld", dir, i);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        if (fd < 0) {
            perror(path);
            return 1;
        }
        close(fd);
    }
    double create = now() - t0;
    quiesce(cold);
    t0 = now();
    long seen = each_entry(dir, 0);
    double find = now() - t0;
    quiesce(cold);
    t0 = now();
    long gone = each_entry(dir, 1);
    if (rmdir(dir)) {
        perror(dir);
        return 1;
    }
    double remove = now() - t0;
    if (seen != n || gone != n) {
        fprintf(stderr, "meta_floor: saw %ld and removed %ld of %ld files\n", seen, gone, n);
        return 1;
    }
    printf("create_s=%.6f find_s=%.6f remove_s=%.6f\n", create, find, remove);
    return 0;
}
