#!/usr/bin/env python3
"""Where Convoy's callbacks wait off the CPU, from perf's context-switch tracepoint.

    perf record -a -e sched:sched_switch -e sched:sched_wakeup -g -o perf.sched -- java \
        -Dconvoy.library=native-recorder/target/native/libconvoy.so \
        -javaagent:recorder-mbean/target/convoy-agent.jar=bench.timing=on ... Workloads h2 ...
    perf script -i perf.sched -F tid,time,trace,ip,sym,dso > sched.txt
    test-apps/perf/offcpu.py sched.txt

Every switch-out whose call chain passes through one of Convoy's callbacks or probe natives (a
libconvoy frame on_* or probe_*: not the recorder's own threads) is paired with the switch-in of
the same thread (record with -a: a switch in from the idle task is the idle task's event,
which perf records only system-wide); the time between (waiting for a lock, then for a CPU) is
summed by what the thread was doing: the first user-space frames of the chain. Frames of functions without a
frame pointer (glibc's pthread_mutex_lock) are not in the chain: the frame shown above
__lll_lock_wait is the caller of the function that took the lock. "preempted" marks a
switch-out from an interrupt (the time slice ended), "blocked" one the thread asked for.

With sched:sched_wakeup recorded as well, the blocked switch-outs are also counted by who
woke the thread (the first wake-up of it that follows): the waker's first user-space frames
("(kernel)": woken from an interrupt), e.g. another thread releasing the lock the callback waited for.
"""
import collections
import re
import sys

HEADER = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+prev_comm=.*? prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) '
                    r'==> next_comm=.*? next_pid=(\d+)')
WAKEUP = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+comm=(.*?) pid=(\d+) prio=')


def events(path):
    out, cur = [], None
    for line in open(path, errors='replace'):
        m = HEADER.match(line)
        w = None if m else WAKEUP.match(line)
        if m:
            cur = {'t': float(m.group(2)), 'prev': int(m.group(3)), 'next': int(m.group(5)),
                   'state': m.group(4), 'stack': []}
            out.append(cur)
        elif w:
            cur = {'t': float(w.group(2)), 'waker': int(w.group(1)), 'woken': int(w.group(4)), 'stack': []}
            out.append(cur)
        elif cur is not None and line.strip():
            parts = line.strip().split(None, 1)
            if len(parts) == 2:
                cur['stack'].append((parts[1].rsplit(' (', 1)[0], parts[1].rsplit('(', 1)[-1]))
    return out


def in_callback(stack):
    """A chain through one of Convoy's callbacks or probe natives (on_*, probe_*), not through the
    recorder's own threads (the maker, snapshots), which also run libconvoy code."""
    return any('libconvoy' in dso and (f.startswith('on_') or f.startswith('probe_')) for f, dso in stack)


def user_frames(stack):
    return [f for f, dso in stack if 'kernel' not in dso]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    out = {}
    pending = {}
    asleep = {}
    wakers = collections.Counter()
    for e in events(sys.argv[1]):
        if 'woken' in e:
            s = asleep.pop(e['woken'], None)
            if s is not None:
                wakers[(' < '.join(user_frames(s['stack']))[:120],
                        ' < '.join(user_frames(e['stack'])[:4]) or '(kernel)')] += 1
            continue
        if not e['state'].startswith('R') and in_callback(e['stack']):
            asleep[e['prev']] = e
        n = e['next']
        if n in pending:
            s = pending.pop(n)
            out[id(s)] = (s, e['t'] - s['t'])
        pending[e['prev']] = e
    agg = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for s, d in out.values():
        if not in_callback(s['stack']):
            continue
        kernel = [f for f, dso in s['stack'] if 'kernel' in dso]
        user = user_frames(s['stack'])
        how = 'preempted' if 'irqentry_exit_to_user_mode' in kernel else 'blocked'
        key = (how, ' < '.join(user[:4]))
        a = agg[key]
        a[0] += 1
        a[1] += d
        a[2] = max(a[2], d)
    total = sum(v[1] for v in agg.values())
    print('off the CPU inside Convoy\'s callbacks: %.1f ms in %d switch-outs' % (total * 1e3,
                                                                               sum(v[0] for v in agg.values())))
    for (how, where), v in sorted(agg.items(), key=lambda kv: -kv[1][1])[:top]:
        print('%9.2f ms %5d  max %6.2f ms  %-9s %s' % (v[1] * 1e3, v[0], v[2] * 1e3, how, where))
    if wakers:
        print('blocked inside Convoy\'s callbacks, by who woke the thread (its first frames):')
        for (where, by), n in wakers.most_common(top):
            print('%5d  %s\n       woken by %s' % (n, where, by))


if __name__ == '__main__':
    main()
