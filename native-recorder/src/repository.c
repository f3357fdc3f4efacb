/*
 * The drain thread and the repository (agent_state.h): the drain moves the rings' records into
 * the history (threads.h, "The history"); with option repository, the history's sealed chunks
 * are written as files into that directory (history.h). The files outlive the chunks in memory:
 * they are bounded on their own, by bytes (option diskmaxsize) and by age (option maxage, as the
 * history is), the oldest file deleted first but never the newest; a reset deletes those of the
 * chunks it drops.
 */
#include "agent_state.h"
#include "dirs.h"
#include "history.h"
#include "threads.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int repo_fd = -1;   /* the repository's directory (option repository), -1 none */
static pthread_mutex_t repo_lock = PTHREAD_MUTEX_INITIALIZER;  /* one writer at a time */
static uint64_t repo_failures;                             /* under repo_lock */
static int writer_on;                                      /* atomic: the writer thread runs */
static pthread_mutex_t writer_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t writer_cond = PTHREAD_COND_INITIALIZER;
static int writer_woken;                                   /* under writer_lock */
static uint64_t seen_seq;                                  /* the drain's: the newest chunk at its last wake */

/* The files written, oldest first (under repo_lock). */
typedef struct {
    uint64_t seq, bytes, last_ts;
} repo_file;
static repo_file *repo_files;
static size_t repo_nfiles, repo_capfiles;
static uint64_t repo_bytes, repo_max_bytes, repo_max_age_ns;

int repository_open(const char *dir, uint64_t max_bytes, uint64_t max_age_ns, cv_error *err) {
    int fd = cv_dir_open(dir);
    if (fd < 0) return cv_fail(err, "cannot open the repository %s: %s", dir, strerror(-fd));
    repo_fd = fd;
    repo_max_bytes = max_bytes;
    repo_max_age_ns = max_age_ns;
    cv_history *h = threads_history();
    history_lock(h);
    history_files(h, 1);
    history_unlock(h);
    return 0;
}

static void chunk_name(char *out, size_t n, uint64_t seq, int tmp) {
    snprintf(out, n, "chunk-%010llu.cvysnap%s", (unsigned long long)seq, tmp ? ".tmp" : "");
}

/* Writes the chunk's file whole or not at all: a temporary file, synced, renamed into place, the
 * directory synced. 0, or -errno. */
static int write_chunk_file(uint64_t seq, const cv_buf *b) {
    char tmp[64], name[64];
    chunk_name(tmp, sizeof(tmp), seq, 1);
    chunk_name(name, sizeof(name), seq, 0);
    int fd = openat(repo_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -errno;
    size_t off = 0;
    int rc = 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->data + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            rc = -errno;
            break;
        }
        off += (size_t)w;
    }
    if (rc == 0 && fsync(fd) != 0) rc = -errno;
    if (close(fd) != 0 && rc == 0) rc = -errno;
    if (rc == 0 && renameat(repo_fd, tmp, repo_fd, name) != 0) rc = -errno;
    if (rc != 0) {
        unlinkat(repo_fd, tmp, 0);
        return rc;
    }
    fsync(repo_fd);
    return 0;
}

static void delete_file(uint64_t seq) {
    char name[64];
    chunk_name(name, sizeof(name), seq, 0);
    unlinkat(repo_fd, name, 0);
}

/* Under repo_lock: forgets the file at index i of the list (deleted). */
static void forget_file(size_t i) {
    repo_bytes -= repo_files[i].bytes;
    memmove(&repo_files[i], &repo_files[i + 1], (repo_nfiles - i - 1) * sizeof(repo_file));
    repo_nfiles--;
}

/* Under repo_lock: a file written. If the list cannot grow, the file is deleted at once: a file the
 * bounds would not see could outgrow them. */
static void remember_file(uint64_t seq, uint64_t bytes, uint64_t last_ts) {
    if (repo_nfiles == repo_capfiles) {
        size_t cap = repo_capfiles ? repo_capfiles * 2 : 64;
        repo_file *bigger = realloc(repo_files, cap * sizeof(repo_file));
        if (!bigger) {
            delete_file(seq);
            return;
        }
        repo_files = bigger;
        repo_capfiles = cap;
    }
    repo_files[repo_nfiles++] = (repo_file){seq, bytes, last_ts};
    repo_bytes += bytes;
}

/* Under repo_lock: the oldest files go while the files pass the byte bound or the oldest's newest
 * record is older than the age bound; the newest stays. */
static void bound_files(uint64_t now_ns) {
    uint64_t limit = repo_max_age_ns && now_ns > repo_max_age_ns ? now_ns - repo_max_age_ns : 0;
    while (repo_nfiles > 1 && (repo_bytes > repo_max_bytes || repo_files[0].last_ts < limit)) {
        delete_file(repo_files[0].seq);
        forget_file(0);
    }
}

/* On the writer thread (the drain's without one), and at VMDeath. A chunk that cannot be written
 * (a full disk) stays in memory; its file is never half there. */
void repository_work(JNIEnv *jni) {
    if (repo_fd < 0) return;
    pthread_mutex_lock(&repo_lock);
    cv_history *h = threads_history();
    uint64_t doomed[64];
    size_t n;
    do {
        history_lock(h);
        n = history_take_doomed(h, doomed, 64);
        history_unlock(h);
        for (size_t i = 0; i < n; i++) {
            delete_file(doomed[i]);
            for (size_t k = 0; k < repo_nfiles; k++) {
                if (repo_files[k].seq == doomed[i]) {
                    forget_file(k);
                    break;
                }
            }
        }
    } while (n == 64);
    for (;;) {
        uint32_t used = 0;
        history_lock(h);
        cv_chunk *c = history_next_to_write(h, &used);
        history_unlock(h);
        if (!c) break;
        cv_snapshot_source src;
        agent_fill_source(&src);
        src.chunk = c;
        cv_buf b;
        buf_init(&b);
        b.limit = CV_SNAPSHOT_MAX_BYTES;
        cv_error err;
        memset(&err, 0, sizeof(err));
        int rc = snapshot_encode_chunk(jni, &src, c, used, &b, &err) == 0 ? write_chunk_file(c->seq, &b) : -ENOMEM;
        if (rc == 0) remember_file(c->seq, b.len, c->last_ts);
        history_file_done(h, c, rc == 0);
        buf_free(&b);
        if (rc != 0 && repo_failures++ % 100 == 0) {
            cv_log_warn("the history's chunk %llu was not written to the repository (%s): it is kept in memory only "
                        "(%llu not written so far)", (unsigned long long)c->seq,
                        rc == -ENOMEM ? err.message : strerror(-rc), (unsigned long long)repo_failures);
        }
    }
    bound_files(cv_now_ns());
    pthread_mutex_unlock(&repo_lock);
}

/* The repository gets the history's last records too: drained, sealed, written. */
void repository_final(JNIEnv *jni) {
    if (repo_fd < 0) return;
    threads_drain(jni);
    cv_history *h = threads_history();
    history_lock(h);
    history_seal(h);
    history_unlock(h);
    repository_work(jni);
}

int repository_on(void) {
    return repo_fd >= 0;
}

void repository_writer_started(void) {
    store_release(&writer_on, 1);
}

int repository_writer_runs(void) {
    return load_acquire(&writer_on);
}

void repository_writer_wake(void) {
    pthread_mutex_lock(&writer_lock);
    writer_woken = 1;
    pthread_cond_signal(&writer_cond);
    pthread_mutex_unlock(&writer_lock);
}

/* The writer thread: the repository's work when the drain wakes it, and once a second (the age
 * bound), until VMDeath (repository_final then writes what is left, on the VM's thread). */
void JNICALL writer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti; (void)arg;
    while (agent_is_live()) {
        struct timespec until = cv_deadline_after_ms(1000);
        pthread_mutex_lock(&writer_lock);
        while (!writer_woken && pthread_cond_timedwait(&writer_cond, &writer_lock, &until) == 0) {
        }
        writer_woken = 0;
        pthread_mutex_unlock(&writer_lock);
        if (agent_is_live()) repository_work(jni);
    }
}

/* On the drain thread after each pass: wakes the writer when the pass sealed a chunk (the
 * history has a newer one) or a reset left files to delete; without a writer, works itself. */
static void after_pass(JNIEnv *jni) {
    if (repo_fd < 0) return;
    if (!load_acquire(&writer_on)) {
        repository_work(jni);
        return;
    }
    cv_history *h = threads_history();
    history_lock(h);
    uint64_t seq = h->tail ? h->tail->seq : 0;
    int due = seq != seen_seq || h->ndoomed != 0;
    history_unlock(h);
    seen_seq = seq;
    if (due) repository_writer_wake();
}

/* The drain (threads.h, "The history"): a pass, then a sleep until the ring filling fastest would
 * be an eighth full at the rate the pass found (1 ms to 20 ms: 20 ms while no ring fills), and no
 * later than the owner's side needs a look (threads_drain_paced); an owner whose ring reaches the
 * drain's mark, half a ring past the drain's cursor, wakes it sooner (threads.h, THE DRAIN'S MARK).
 * Until VMDeath. A snapshot drains once more itself. */
void JNICALL drain_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti; (void)arg;
    /* A drain that waits for a CPU behind the program's busy threads lets their rings wrap: it
     * asks for a higher priority (nice -10; refused without CAP_SYS_NICE, then it keeps the
     * default). It runs briefly and holds no lock a callback takes but registry_lock, which
     * callbacks take only to grow a ring. */
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    if (setpriority(PRIO_PROCESS, (id_t)tid, -10) == 0) store_relaxed(&g_cv.drain_nice, -10);
    else store_relaxed(&g_cv.drain_nice, getpriority(PRIO_PROCESS, (id_t)tid));
    while (load_acquire(&g_cv.live)) {
        uint64_t ns = threads_drain_paced(jni);
        after_pass(jni);
        threads_drain_sleep(ns);
    }
}
