#!/usr/bin/env python3
"""Where the CPU time of Convoy's callbacks goes, from a perf CPU profile.

    perf record -F 4999 -g -o perf.cpu -- taskset -c 0 java \
        -Dconvoy.library=native-recorder/target/native/libconvoy.so \
        -javaagent:recorder-mbean/target/convoy-agent.jar ... PingPong
    perf script -i perf.cpu -F tid,time,ip,sym,dso > cpu.txt
    test-apps/perf/cpuprof.py cpu.txt on_monitor_wait,on_monitor_waited

Counts the samples whose call chain holds one of the given callback functions, splits them by
the recorder's step on the stack (GetStackTrace, interning, GetTag, ...), and, inside
GetStackTrace, by leaf function and by the child of JvmtiEnvBase::get_stack_trace. Needs
frame pointers (libconvoy and HotSpot's libjvm have them) and the library on disk
(-Dconvoy.library loads the build's own file; the agent deletes its extracted copy once loaded).
"""
import collections
import sys

STEPS = [('jvmti_GetStackTrace', 'stack walk (GetStackTrace)'), ('stacks_intern', 'interning'),
         ('jvmti_GetTag', 'object id: GetTag'), ('objects_id', 'object id: the rest'),
         ('jvmti_GetThreadLocalStorage', 'thread-local: GetThreadLocalStorage'),
         ('threads_current', 'thread-local: the rest'), ('ring_write', 'ring write'),
         ('owners_read', 'owner read'), ('__vdso_clock_gettime', 'clock'), ('clock_gettime', 'clock')]


def samples(path):
    out, cur = [], None
    for line in open(path, errors='replace'):
        if not line.strip():
            cur = None
            continue
        if not line.startswith((' ', '\t')):
            cur = []
            out.append(cur)
            continue
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and cur is not None:
            cur.append(parts[1].rsplit(' (', 1)[0])
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    all_samples = samples(sys.argv[1])
    roots = sys.argv[2].split(',')
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    inside = [s for s in all_samples if any(r in s for r in roots)]
    if not inside:
        sys.exit('no sample inside ' + ', '.join(roots))
    print('samples %d, inside the callbacks: %d (%.1f %%)' % (len(all_samples), len(inside),
                                                              100.0 * len(inside) / len(all_samples)))
    steps = collections.Counter()
    for s in inside:
        steps[next((label for fn, label in STEPS if fn in s), 'the callback itself')] += 1
    for k, v in steps.most_common():
        print('  %-38s %6d  %5.1f %%' % (k, v, 100.0 * v / len(inside)))
    walk = [s for s in inside if 'jvmti_GetStackTrace' in s]
    if not walk:
        return
    print('inside GetStackTrace (%d samples), by leaf function:' % len(walk))
    for k, v in collections.Counter(s[0] for s in walk).most_common(top):
        print('  %5.1f %%  %s' % (100.0 * v / len(walk), k))
    print('by child of JvmtiEnvBase::get_stack_trace:')
    child = collections.Counter()
    for s in walk:
        if 'JvmtiEnvBase::get_stack_trace' in s:
            i = s.index('JvmtiEnvBase::get_stack_trace')
            child[s[i - 1] if i > 0 else '(itself)'] += 1
    for k, v in child.most_common(top):
        print('  %5.1f %%  %s' % (100.0 * v / len(walk), k))


if __name__ == '__main__':
    main()
