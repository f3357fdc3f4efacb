#include "check.h"
#include "dirs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void make_root(void) {
    snprintf(root, sizeof root, "/tmp/convoy-dirs-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
}

static void rm_rf(const char *p) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
    CHECK(system(cmd) == 0);
}

TEST(dirs_create_and_open_nested) {
    make_root();
    int top = cv_dir_open(root);
    CHECK(top >= 0);
    int a = cv_dir_open_at(top, "a", 1);
    CHECK(a >= 0);
    int b = cv_dir_open_at(a, "b", 1);
    CHECK(b >= 0);
    int f = openat(b, "x", O_CREAT | O_WRONLY | O_EXCL, 0644);
    CHECK(f >= 0);
    close(f);
    char p[300];
    snprintf(p, sizeof p, "%s/a/b/x", root);
    struct stat st;
    CHECK(stat(p, &st) == 0);
    CHECK_EQ_INT(-ENOENT, cv_dir_open_at(top, "missing", 0));
    int again = cv_dir_open_at(top, "a", 1);
    CHECK(again >= 0); /* an existing directory is opened, not an error */
    CHECK_EQ_INT(0, cv_dir_close(again));
    CHECK_EQ_INT(0, cv_dir_close(b));
    CHECK_EQ_INT(0, cv_dir_close(a));
    CHECK_EQ_INT(0, cv_dir_close(top));
    rm_rf(root);
}

TEST(dirs_never_follow_a_link) {
    make_root();
    char outside[300], link[300];
    snprintf(outside, sizeof outside, "%s/outside", root);
    CHECK(mkdir(outside, 0755) == 0);
    int top = cv_dir_open(root);
    int inside = cv_dir_open_at(top, "inside", 1);
    CHECK(inside >= 0);
    snprintf(link, sizeof link, "%s/inside/race", root);
    CHECK(symlink(outside, link) == 0);
    int r = cv_dir_open_at(inside, "race", 1);
    CHECK(r == -ELOOP || r == -ENOTDIR);
    r = cv_dir_open_at(inside, "race", 0);
    CHECK(r == -ELOOP || r == -ENOTDIR);
    /* a plain file in the way */
    int f = openat(inside, "file", O_CREAT | O_WRONLY, 0644);
    close(f);
    CHECK_EQ_INT(-ENOTDIR, cv_dir_open_at(inside, "file", 1));
    /* nothing was created outside */
    char probe[320];
    snprintf(probe, sizeof probe, "%s/race", outside);
    struct stat st;
    CHECK(stat(probe, &st) != 0);
    cv_dir_close(inside);
    cv_dir_close(top);
    rm_rf(root);
}

TEST(dirs_refuse_names_that_are_not_one_component) {
    make_root();
    int top = cv_dir_open(root);
    CHECK_EQ_INT(-EINVAL, cv_dir_open_at(top, "..", 1));
    CHECK_EQ_INT(-EINVAL, cv_dir_open_at(top, ".", 1));
    CHECK_EQ_INT(-EINVAL, cv_dir_open_at(top, "a/b", 1));
    CHECK_EQ_INT(-EINVAL, cv_dir_open_at(top, "", 1));
    CHECK_EQ_INT(-EINVAL, cv_dir_open_at(-1, "a", 1));
    CHECK_EQ_INT(-EINVAL, cv_dir_open(""));
    CHECK_EQ_INT(-ENOENT, cv_dir_open("/nonexistent-convoy-dir"));
    cv_dir_close(top);
    rm_rf(root);
}
