#!/usr/bin/env bash
# make test-kafka-stability: make test-kafka (every scenario on a real broker, compared with the simulation)
# 3 times with both cores kept busy by two bounded busy loops, then 3 times quiet. Each run's result, its
# duration and the load averages before and after go to build/kafka-stability-<version>.log; the exit status
# is 0 only if all 6 runs passed. A run too slow for its tick retries that scenario (at most twice, as
# make test-kafka does); a difference is never retried. Run it on an otherwise idle machine: the quiet runs
# mean nothing beside other work. Usage: scripts/kafka-stability.sh [KAFKA_VERSION] (default 4.1.1).
set -euo pipefail
version="${1:-${KAFKA_VERSION:-4.1.1}}"
cd "$(dirname "$0")/.."
mkdir -p build
log="build/kafka-stability-$version.log"
: >"$log"
busy=()
stop_busy() {
	for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null || true; done
	busy=()
}
trap stop_busy EXIT
failed=0
for mode in loaded loaded loaded quiet quiet quiet; do
	if [ "$mode" = loaded ]; then
		# one busy loop per core, bounded (25 min) even if this script is killed
		for _ in 1 2; do
			timeout 1500 bash -c 'while :; do :; done' &
			busy+=("$!")
		done
	fi
	before="$(cut -d' ' -f1-3 /proc/loadavg)"
	start=$(date +%s)
	rc=0
	make test-kafka KAFKA_VERSION="$version" >"build/kafka-stability-$version-last.log" 2>&1 || rc=$?
	after="$(cut -d' ' -f1-3 /proc/loadavg)"
	stop_busy
	summary="$(grep -E '^total:' "build/kafka-stability-$version-last.log" | tail -1 || true)"
	printf '%s %-6s rc=%d %4ds load before %s after %s | %s\n' "$(date -u +%FT%TZ)" "$mode" "$rc" $(($(date +%s) - start)) "$before" "$after" "$summary" | tee -a "$log"
	if [ "$rc" != 0 ]; then
		failed=$((failed + 1))
		grep -E 'NOT DOCUMENTED|did not complete|Error:' -A3 "build/kafka-stability-$version-last.log" | head -40 >>"$log" || true
	fi
done
echo "kafka stability ($version): $((6 - failed)) of 6 runs passed (3 loaded, 3 quiet); see $log"
[ "$failed" = 0 ]
