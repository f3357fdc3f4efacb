#!/usr/bin/env bash
# The crash matrix: Convoy inside the JVMs it must never hurt. The demo's contention mix (monitor and
# ReentrantLock storms, producer/consumer, timed waits, hand-off and join chains, a deadlock) runs
# under the agent on every collector, every locking mode, the interpreter and -Xcomp, with a JFR
# recording alongside; and a wait/notify storm started without the agent, which `./convoy attach`
# loads mid-storm while the attach tool switches recording and contention analysis and dumps. Each cell passes when the JVM
# exits 0, leaves no hs_err file, and its snapshot reads (`./convoy report`). One dimension varies
# at a time against the defaults (not the full cross product).
#
#   test-apps/crash-matrix.sh [JAVA_HOME...]   (default: $JAVA_HOME or the java on PATH, and
#                                               Temurin 25 where it is installed)
#   Build first (mvn -DskipTests package). Writes docs/bench/crash-matrix.md (replaced on each run).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
AGENT="$ROOT/recorder-mbean/target/convoy-agent.jar"
CP="$ROOT/test-apps/target/classes"
[[ -f "$AGENT" && -d "$CP" ]] || { echo "build first: mvn -DskipTests package" >&2; exit 1; }
OUT="$ROOT/docs/bench/crash-matrix.md"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

homes=("$@")
if [[ ${#homes[@]} -eq 0 ]]; then
    j="$(command -v java)"
    homes=("${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$j")")")}")
    for t in /usr/lib/jvm/temurin-25-jdk-amd64; do
        [[ -x "$t/bin/java" && "$(readlink -f "$t")" != "$(readlink -f "${homes[0]}")" ]] && homes+=("$t")
    done
fi

feature() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -nE 's/^ *java.specification.version = ([0-9]+).*/\1/p'; }
accepts() { "$1/bin/java" "${@:2}" -version >/dev/null 2>&1; }

rows=()
pass=0
fail=0
# cell HOME LABEL JVMFLAGS... : the demo mix under the agent
cell() {
    local home="$1" label="$2"; shift 2
    local dir="$WORK/c$RANDOM$RANDOM" rc verdict
    mkdir -p "$dir"
    (cd "$dir" && timeout 300 "$home/bin/java" -Xmx512m "$@" \
        "-javaagent:$AGENT=dumponexit=snapshot,dumpdir=.,dumpname=m,contanalysis=on" \
        -cp "$CP" dev.convoy.testapps.Scenarios demo >out.txt 2>err.txt)
    rc=$?
    verdict="$(check "$dir" "$rc" "$home")"
    record "$home" "$label" "$verdict"
}

# attach HOME : a wait/notify storm (BigRecording, held until its stdin ends), the agent loaded
# mid-storm, switched and dumped by the attach tool
attach_cell() {
    local home="$1" dir="$WORK/a$RANDOM$RANDOM" pid rc verdict=""
    mkdir -p "$dir"
    mkfifo "$dir/in"
    (cd "$dir" && exec "$home/bin/java" -Xmx512m -cp "$CP" dev.convoy.testapps.BigRecording 5000000 \
        <"$dir/in" >out.txt 2>err.txt) &
    pid=$!
    exec 9>"$dir/in"
    sleep 0.5
    local jpid="$pid"
    local ok=1
    JAVA_HOME="$home" "$ROOT/convoy" attach "$jpid" "dumpdir=$dir" >>"$dir/tool.txt" 2>&1 || ok=0
    for c in "stop $jpid" "start $jpid" "contanalysis $jpid on" "contanalysis $jpid off"; do
        # shellcheck disable=SC2086
        JAVA_HOME="$home" "$ROOT/convoy" $c >>"$dir/tool.txt" 2>&1 || ok=0
    done
    JAVA_HOME="$home" "$ROOT/convoy" dump "$jpid" --format snapshot -o "$dir/m.cvysnap" >>"$dir/tool.txt" 2>&1 || ok=0
    exec 9>&-
    wait "$pid"
    rc=$?
    verdict="$(check "$dir" "$rc" "$home")"
    [[ $ok -eq 1 ]] || verdict="FAIL (attach tool: $(tail -1 "$dir/tool.txt"))"
    record "$home" "attach mid-storm, stop/start, contanalysis on/off, dump" "$verdict"
}

check() { # dir rc home
    local dir="$1" rc="$2" home="$3"
    if ls "$dir"/hs_err_pid*.log >/dev/null 2>&1; then echo "FAIL (hs_err)"; return; fi
    local own=""
    if [[ "$rc" -eq 1 ]] && grep -q '^SCENARIOS FAIL' "$dir/out.txt" 2>/dev/null; then
        # the demo's own ground-truth checks (ThreadMXBean states), not the recorder: said, not failed
        own="; the app's own checks: $(grep -c ' FAIL ' "$dir/out.txt") failed, $(grep '^SCENARIOS' "$dir/out.txt" | cut -c1-60)"
    elif [[ "$rc" -ne 0 ]]; then echo "FAIL (exit $rc: $(tail -1 "$dir/err.txt"))"; return; fi
    if ! JAVA_HOME="$home" "$ROOT/convoy" report "$dir/m.cvysnap" >"$dir/report.txt" 2>&1; then
        echo "FAIL (report: $(tail -1 "$dir/report.txt"))"; return
    fi
    echo "pass ($(sed -nE 's/^Recording: [^,]*, pid [0-9]+, ([^,]+), ([0-9]+ threads), ([0-9]+ blocks).*/\1, \2, \3/p' "$dir/report.txt")$own)"
}

record() { # home label verdict
    rows+=("| $(feature "$1") | $2 | $3 |")
    if [[ "$3" == pass* ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    echo "JDK $(feature "$1"): $2: $3" >&2
}

for home in "${homes[@]}"; do
    f="$(feature "$home")"
    cell "$home" "defaults (G1)"
    for gc in -XX:+UseSerialGC -XX:+UseParallelGC -XX:+UseZGC -XX:+UseShenandoahGC; do
        if accepts "$home" "$gc"; then cell "$home" "$gc" "$gc"; fi
    done
    if [[ "$f" -ge 21 ]]; then
        for lm in 0 1 2; do
            if accepts "$home" -XX:LockingMode=$lm; then cell "$home" "-XX:LockingMode=$lm" -XX:LockingMode=$lm; fi
        done
    elif accepts "$home" -XX:+UseHeavyMonitors; then
        cell "$home" "-XX:+UseHeavyMonitors" -XX:+UseHeavyMonitors
    fi
    cell "$home" "-Xint" -Xint
    cell "$home" "-Xcomp" -Xcomp
    cell "$home" "JFR alongside (default settings)" "-XX:StartFlightRecording:filename=rec.jfr"
    attach_cell "$home"
done

{
    echo "# Crash matrix"
    echo
    echo "Generated by \`test-apps/crash-matrix.sh\` on $(date -u +%Y-%m-%d) ($(nproc) cores): the demo's"
    echo "contention mix under the agent, one JVM setting varied at a time. A cell passes when the JVM exits"
    echo "0, leaves no hs_err file, and \`./convoy report\` reads its snapshot; where the demo's own ground-truth"
    echo "checks fail (they read thread states through ThreadMXBean, with or without the agent), the cell says so."
    echo "$pass passed, $fail failed."
    echo
    echo "| JDK | setting | result (recording, threads, blocks) |"
    echo "|---:|---|---|"
    printf '%s\n' "${rows[@]}"
} >"$OUT"
echo "$OUT: $pass passed, $fail failed" >&2
[[ $fail -eq 0 ]]
