/*
 * Constants of the binary snapshot format. The specification, and the single source of
 * truth, is schema/snapshot-format.md; SnapshotFormatConsistencyTest checks every
 * constant below against its tables. Change the specification first.
 */
#ifndef CONVOY_SNAPSHOT_FORMAT_H
#define CONVOY_SNAPSHOT_FORMAT_H

#define CV_MAGIC "CVYSNAP"   /* 8 bytes with the terminating NUL */

#define VERSION_MAJOR 1
#define VERSION_MINOR 7

#define SECTION_INFO     1
#define SECTION_THREADS  2
#define SECTION_STACKS   3
#define SECTION_METHODS  4
#define SECTION_CLASSES  5
#define SECTION_OBJECTS  6
#define SECTION_MONITORS 7
#define SECTION_LOSSES   8
#define SECTION_TOTALS   9
#define SECTION_RECORDS  10
#define SECTION_END      255

#define EVENT_THREAD_START     1
#define EVENT_THREAD_END       2
#define EVENT_MONITOR_ENTER    3
#define EVENT_MONITOR_ENTERED  4
#define EVENT_MONITOR_WAIT     5
#define EVENT_MONITOR_WAITED   6
#define EVENT_GC_START         7
#define EVENT_GC_FINISH        8
#define EVENT_START_CALL          16
#define EVENT_INTERRUPT_CALL      17
#define EVENT_NOTIFY              18
#define EVENT_NOTIFY_ALL          19
#define EVENT_SLEEP               20
#define EVENT_SLEPT               21
#define EVENT_JOIN                22
#define EVENT_JOINED              23
#define EVENT_THREAD_INTERRUPTED  24
#define EVENT_PARK                25
#define EVENT_PARKED              26
#define EVENT_UNPARK              27
#define EVENT_OWNER_SAMPLE        28

#define FLAG_TIMED_OUT   1
#define FLAG_INTERRUPTED 2
#define FLAG_LOCK        4
#define FLAG_OWNER       8   /* MONITOR_ENTER: arg2 is the owner read from the VM */
#define FLAG_RELEASER    16  /* MONITOR_ENTERED: arg is the releaser the VM recorded (1.4) */
#define FLAG_FRAME_EXACT 32  /* OWNER_SAMPLE: the holding frame is the only one that can hold the lock (1.6) */

#define RING_ENDED  1
#define RING_SYSTEM 2
#define RING_LATE   4
#define RING_VIRTUAL 8
#define RING_DAEMON 16

#define OBJ_PLAIN  0
#define OBJ_THREAD 1
#define OBJ_CLASS  2

#define MSTATE_RUNNING 0
#define MSTATE_BLOCKED 1
#define MSTATE_WAITING 2
#define MSTATE_PARKED  3

#define LOSS_OVERWRITTEN 1
#define LOSS_AGED        2

/* OWNER_SAMPLE (1.6): the owner's state, and its aux bits (the record's u16 after flags) */
#define OSTATE_UNKNOWN  0
#define OSTATE_RUNNING  1
#define OSTATE_NATIVE   2
#define OSTATE_BLOCKED  3
#define OSTATE_WAITING  4
#define OSTATE_PARKED   5
#define OSTATE_SLEEPING 6
#define OWNER_DEPTH_MASK  4095
#define OWNER_STATE_SHIFT 12

#define TOTAL_BLOCKED     1
#define TOTAL_WAITED      2
#define TOTAL_PARKED_LOCK 3
#define TOTAL_PARKED      4

#define RECORD_BYTES 40
#define HEADER_BYTES 16
#define SECTION_HEADER_BYTES 16

#endif
