/*
 * The recorder's counters, defined once. NativeRecorder.counters0 returns their values
 * in this order, and NativeRecorder.Counters has one component per entry, in the same
 * order, named in camelCase (RECORDS_WRITTEN: recordsWritten); CountersOrderTest
 * (recorder-mbean) reads this list and fails if the two disagree. Add, remove or move an
 * entry on both sides at once.
 */
#ifndef CONVOY_COUNTERS_H
#define CONVOY_COUNTERS_H

#define CV_COUNTERS(X)                                                                          \
    X(RECORDS_WRITTEN)     /* records written since start */                                    \
    X(RECORDS_OVERWRITTEN) /* records a ring overwrote before the drain moved them to the history */ \
    X(RECORDS_AGED)        /* records that aged out of the history (maxsize, maxage) */          \
    X(HISTORY_BYTES)       /* bytes of the history's chunks */                                   \
    X(RECORDS_DROPPED)     /* events that could not be recorded at all */                       \
    X(THREADS_RECORDED)    /* threads with a ring now (live and recently ended) */              \
    X(THREADS_SEEN)        /* threads ever given a state */                                     \
    X(THREADS_EVICTED)     /* states freed to stay under the memory cap */                      \
    X(MEMORY_IN_USE)       /* recorder memory in use, bytes */                                  \
    X(START_EPOCH_NS)      /* when the recorder started, ns since 1970 UTC */                   \
    X(STACKS_DROPPED)      /* stacks not interned because the stack table was full */           \
    X(OBJECTS_DROPPED)     /* objects not described because the object table was full */         \
    X(OBJECTS_IN_USE)      /* entries of the object table in use (collected objects' are freed) */ \
    X(OBJECTS_CAPACITY)    /* entries the object table has */                                    \
    X(STACK_FALLBACKS)     /* stacks=async: captures that took GetStackTrace or were skipped (capture.h) */

enum {
#define CV_COUNTER_INDEX(name) CV_COUNTER_##name,
    CV_COUNTERS(CV_COUNTER_INDEX)
#undef CV_COUNTER_INDEX
    CV_COUNTER_COUNT
};

#endif
