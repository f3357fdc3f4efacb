#include "dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cv_dir_open(const char *path) {
    if (!path || !*path) return -EINVAL;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int cv_dir_open_at(int parent, const char *name, int create) {
    if (parent < 0 || !name || !*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        return -EINVAL;
    }
    if (create && mkdirat(parent, name, 0755) != 0 && errno != EEXIST) return -errno;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

int cv_dir_close(int fd) {
    return close(fd) == 0 ? 0 : -errno;
}
