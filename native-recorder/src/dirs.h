/* Directories opened and created relative to an open directory, never through a symbolic
 * link (openat/mkdirat with O_NOFOLLOW): the dump directory's writer holds a descriptor of
 * each directory on the way to a dump file, so a path swapped for a link meanwhile cannot
 * redirect a dump elsewhere. Plain POSIX, no JVMTI; any thread. */
#ifndef CONVOY_DIRS_H
#define CONVOY_DIRS_H

/* Opens the directory `path` (a link there is followed: it is the configured directory).
 * Returns a descriptor (O_CLOEXEC) or -errno. */
int cv_dir_open(const char *path);

/* Opens the directory `name` (one path component, not "." or "..") inside the open
 * directory `parent`, creating it (mode 0755 less the umask) when `create` and missing.
 * Returns a descriptor or -errno: -ELOOP or -ENOTDIR when `name` is a symbolic link or
 * not a directory, -EINVAL for a name that is not one component. */
int cv_dir_open_at(int parent, const char *name, int create);

/* Closes a descriptor from the two functions above; returns 0 or -errno. */
int cv_dir_close(int fd);

#endif
