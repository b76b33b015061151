/* pread_loop: the floor for 4 KiB random reads: a bare pread loop with xorshift offsets.
 *
 * usage: pread_loop FILE FILE_BYTES BLOCK_BYTES OPS
 * Prints "iops=<n> elapsed_s=<s>". clock_gettime(CLOCK_MONOTONIC) is read only at start and
 * end, so the loop body is one xorshift step and one pread: what fsbattery's sync engine is
 * held against (bench/engine.sh). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE FILE_BYTES BLOCK_BYTES OPS\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    uint64_t blocks = strtoull(argv[2], 0, 0) / strtoull(argv[3], 0, 0);
    size_t bs = strtoull(argv[3], 0, 0);
    uint64_t ops = strtoull(argv[4], 0, 0);
    char *buf;
    if (posix_memalign((void **)&buf, 4096, bs)) return 1;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    double t0 = now();
    for (uint64_t i = 0; i < ops; i++) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t r = x * 0x2545F4914F6CDD1Dull;
        off_t off = (off_t)(((unsigned __int128)r * blocks) >> 64) * bs;
        if (pread(fd, buf, bs, off) != (ssize_t)bs) {
            perror("pread");
            return 1;
        }
    }
    double dt = now() - t0;
    printf("iops=%.0f elapsed_s=%.3f\n", ops / dt, dt);
    return 0;
}
