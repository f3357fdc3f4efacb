# Sourced by the scripts of test-apps/perf, after they read their own arguments: ROOT, JAVA
# (JAVA_HOME selects the JDK), the agent jar AGENT and the test apps' classes CP (both built
# first), a scratch folder WORK removed on exit, FEATURE (the JDK's feature version, for the
# output's name), JFR_EVENTS (JFR's monitor and park events at threshold 0), recorder_args (the
# JVM arguments of a recorder configuration) and median (of the
# numbers on its input, separated by spaces).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
AGENT="$ROOT/recorder-mbean/target/convoy-agent.jar"
CP="$ROOT/test-apps/target/classes"
[[ -f "$AGENT" && -d "$CP" ]] || { echo "build first: mvn -DskipTests package" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
FEATURE="$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -nE 's/^ *java.specification.version = ([0-9]+).*/\1/p')"
JFR_EVENTS="jdk.JavaMonitorEnter#threshold=0ms,jdk.JavaMonitorWait#threshold=0ms,jdk.ThreadPark#threshold=0ms"
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : 0)}'; }
# The JVM arguments of configuration $1 into the array ARGS, recording into folder $2: none, convoy
# (default options), convoy-disk (repository=$2/repo), jfr (to disk, $2/rec.jfr, JFR_EVENTS).
recorder_args() {
    case "$1" in
        none) ARGS=() ;;
        convoy) ARGS=("-javaagent:$AGENT") ;;
        convoy-disk) ARGS=("-javaagent:$AGENT=repository=$2/repo") ;;
        jfr) ARGS=("-XX:StartFlightRecording:filename=$2/rec.jfr,disk=true,$JFR_EVENTS") ;;
        *) echo "unknown configuration $1" >&2; return 1 ;;
    esac
}
