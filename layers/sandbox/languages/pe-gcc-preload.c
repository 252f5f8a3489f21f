/*
 * `pe-gcc-preload.so`, preloaded (LD_PRELOAD) into g++ and the tools it starts while a
 * sandboxed compilation runs; never into a program under test. It changes where the
 * compiler's memory comes from, never what the memory holds, so the compiler's output and
 * diagnostics are byte-for-byte those of a plain run (test/sandbox/gcc-preload.test.ts).
 *
 * Why: cc1plus maps the ~100 MB precompiled `bits/stdc++.h` copy-on-write (a private,
 * writable file mapping) and writes into some 14,000 of its pages while it compiles, each
 * write a page fault that copies the page and flushes the TLB; it also grows its heap 2 MB
 * at a time, one fault per 4 KB page. Where page faults are costly (a paravirtualised
 * guest: measured on our 2-core machines, g++ -O0 on an MBCPP program with the PCH spent
 * 1.6 CPU-s, 0.7 of it in the kernel) that is most of a compilation. With this library the
 * same compilation takes about 0.35 CPU-s:
 *   - a private writable mapping of a regular file of at least 4 MB (the PCH) becomes an
 *     anonymous mapping at the same address, advised for transparent huge pages, into which
 *     the file's bytes are read: the same contents with the same private semantics, and no
 *     copy-on-write faults afterwards;
 *   - an anonymous mapping of at least 2 MB (the compiler's heap chunks) is advised for
 *     transparent huge pages.
 * Anything it cannot do (the read fails, the mapping is refused) falls back to the plain
 * mmap call, so it can only ever change the speed. The kernel may decline huge pages
 * (transparent_hugepage=never): then it is plain 4 KB memory, still without copy-on-write.
 *
 * Built with gcc -O2 -shared -fPIC by gcc-preload.ts (once per machine) or at image build;
 * test/sandbox/gcc-preload.test.ts keeps it warning-free.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define FILE_MIN ((size_t)4 << 20)
#define HUGE_MIN ((size_t)2 << 20)

/* The system call itself (what glibc's mmap wraps: -1 with errno set on failure, which is MAP_FAILED). */
static void *plain_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

/* Reads `len` bytes of `fd` from `off` into `dst`; 0 when all of them were read (or the file ended: the rest stays zero). */
static int read_all(int fd, char *dst, size_t len, off_t off) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd, dst + done, len - done, off + (off_t)done);
    if (n == 0) return 0;
    if (n < 0) return -1;
    done += (size_t)n;
  }
  return 0;
}

/* A private writable mapping of a large regular file, as anonymous huge-page memory holding its bytes; MAP_FAILED when it does not apply. */
static void *file_as_anonymous(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  struct stat st;
  if (fd < 0 || len < FILE_MIN || (flags & MAP_TYPE) != MAP_PRIVATE || !(prot & PROT_WRITE)) return MAP_FAILED;
  if (flags & (MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_STACK)) return MAP_FAILED;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return MAP_FAILED;
  void *p = plain_mmap(addr, len, prot, (flags | MAP_ANONYMOUS) & ~MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) return MAP_FAILED;
  madvise(p, len, MADV_HUGEPAGE);
  if (read_all(fd, (char *)p, len, off) != 0) {
    munmap(p, len);
    return MAP_FAILED;
  }
  return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  void *p = file_as_anonymous(addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED) return p;
  p = plain_mmap(addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && len >= HUGE_MIN) madvise(p, len, MADV_HUGEPAGE);
  return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) __attribute__((alias("mmap")));
