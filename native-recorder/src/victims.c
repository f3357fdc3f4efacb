#include "victims.h"

#include <stddef.h>

static void unlink_node(cv_vqueue *q, cv_victim *n) {
    if (n->prev) n->prev->next = n->next; else q->head = n->next;
    if (n->next) n->next->prev = n->prev; else q->tail = n->prev;
    n->prev = n->next = NULL;
}

/* Inserts `n` after `at` (at the head if `at` is NULL). */
static void link_after(cv_vqueue *q, cv_victim *at, cv_victim *n) {
    n->prev = at;
    n->next = at ? at->next : q->head;
    if (n->next) n->next->prev = n; else q->tail = n;
    if (at) at->next = n; else q->head = n;
}

void victims_remove(cv_victims *v, cv_victim *n) {
    if (n->queue != CV_VQ_NONE) unlink_node(&v->q[n->queue], n);
    n->queue = CV_VQ_NONE;
}

void victims_watch(cv_victims *v, cv_victim *n) {
    victims_remove(v, n);
    link_after(&v->q[CV_VQ_WATCH], v->q[CV_VQ_WATCH].tail, n);
    n->queue = CV_VQ_WATCH;
}

void victims_ended(cv_victims *v, cv_victim *n, uint64_t end_ns) {
    victims_remove(v, n);
    n->end_ns = end_ns;
    cv_vqueue *q = &v->q[CV_VQ_ENDED];
    cv_victim *at = q->tail;
    while (at && at->end_ns > end_ns) at = at->prev;
    link_after(q, at, n);
    n->queue = CV_VQ_ENDED;
}

/* The first node of q that may be chosen: unpinned, or any if `pinned_too`. */
static cv_victim *first_choosable(const cv_vqueue *q, int pinned_too) {
    for (cv_victim *n = q->head; n; n = n->next) {
        if (pinned_too || n->pins == 0) return n;
    }
    return NULL;
}

static cv_victim *pick(cv_victims *v, cv_gone_fn gone, void *ctx, int pinned_too) {
    cv_victim *n = first_choosable(&v->q[CV_VQ_GONE], pinned_too);
    if (n) return n;
    cv_vqueue *watch = &v->q[CV_VQ_WATCH];
    cv_vqueue *found = &v->q[CV_VQ_GONE];
    for (cv_victim *w = watch->head, *next; w; w = next) {
        next = w->next;
        if ((pinned_too || w->pins == 0) && gone(w, ctx)) {
            unlink_node(watch, w);
            link_after(found, found->tail, w);
            w->queue = CV_VQ_GONE;
        }
    }
    n = first_choosable(found, pinned_too);
    if (n) return n;
    return first_choosable(&v->q[CV_VQ_ENDED], pinned_too);
}

cv_victim *victims_pick(cv_victims *v, cv_gone_fn gone, void *ctx) {
    return pick(v, gone, ctx, 0);
}

cv_victim *victims_pick_pinned(cv_victims *v, cv_gone_fn gone, void *ctx) {
    return pick(v, gone, ctx, 1);
}
