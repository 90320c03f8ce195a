#!/usr/bin/env bash
# The performance anchor of issue 22 (scripts/bench.sh anchor): kgviz's whole simulation of the
# four rolling restarts (classic dynamic and static, KIP-848 dynamic and static: the worlds of
# BenchmarkRollingRestart and BenchmarkRollingRestartKIP848) beside Kafka's own group coordinator
# alone (harness/oracle, kafka-group-coordinator 4.1.1 and 4.4.0) answering the same request
# stream, by CPU time, measured in one run (oracle/anchor.go, oracle/bench_test.go TestOracleBench).
# Prints a Markdown table (docs/performance.md, "Beside Kafka's own group coordinator").
#
#   scripts/bench-oracle.sh      ORACLE_MEMBERS (500), ORACLE_ROUNDS (3), ORACLE_VERSIONS (both;
#                                or one, e.g. 4.1.1), ORACLE_ONLY (a regular expression of scenarios)
#
# Per scenario: kgviz runs the world once with a tap that streams every group-coordinator request
# to a file and to one oracle JVM per Kafka version, whose answers are compared with kgviz's as
# they come (the counts printed; this pass also warms the JVMs' JIT). Then ORACLE_ROUNDS rounds,
# alternately: kgviz runs the world alone (the Go process's user+sys CPU: members, broker,
# recording), each JVM replays the file into a fresh GroupCoordinatorShard (the replaying thread's
# CPU in Shard.step, ThreadMXBean; JSON decoding timed apart and not counted). Medians.
set -euo pipefail
cd "$(dirname "$0")/.."
members="${ORACLE_MEMBERS:-500}"
rounds="${ORACLE_ROUNDS:-3}"
versions="${ORACLE_VERSIONS:-4.1.1 4.4.0}"
for v in $versions; do bash harness/oracle/build.sh "$v"; done
only=()
[ -n "${ORACLE_VERSIONS:-}" ] && only=(KGVIZ_ORACLE_VERSIONS="$ORACLE_VERSIONS")
echo "kgviz anchor $(date -u +%FT%TZ): $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- kgviz oracle harness/oracle || echo '+dirty'), $members members, $rounds rounds, $(nproc) cores, $(go version | awk '{print $3}'), $(java -version 2>&1 | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
env "${only[@]}" KGVIZ_ORACLE=1 KGVIZ_ORACLE_BENCH=1 KGVIZ_ORACLE_BENCH_MEMBERS="$members" KGVIZ_ORACLE_BENCH_ROUNDS="$rounds" \
	KGVIZ_ORACLE_BENCH_ONLY="${ORACLE_ONLY:-}" go test ./oracle -run '^TestOracleBench$' -count=1 -v -timeout 6h |
	grep -E '^\||differ|FAIL|panic' || true
echo "kgviz anchor done $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
