#!/usr/bin/env bash
# The performance anchor of issue 22: kgviz's whole simulation of the rolling restarts (classic
# dynamic and static, KIP-848 dynamic and static) beside Kafka's own group coordinator alone
# answering the same request stream (harness/oracle), as a CPU ratio measured in one run
# (oracle/bench_test.go TestOracleBench). Prints a Markdown table (docs/performance.md).
#
#   scripts/bench-oracle.sh                 500 members (ORACLE_MEMBERS), Kafka 4.1.1 (ORACLE_VERSION)
#
# Kafka's side is the coordinator thread's CPU time in the harness JVM (JSON decoding and encoding
# of the harness included), on a second pass over the stream (the first warms the JIT).
set -euo pipefail
cd "$(dirname "$0")/.."
members="${ORACLE_MEMBERS:-500}"
version="${ORACLE_VERSION:-4.1.1}"
bash harness/oracle/build.sh "$version"
KGVIZ_ORACLE=1 KGVIZ_ORACLE_BENCH=1 KGVIZ_ORACLE_BENCH_MEMBERS="$members" KGVIZ_ORACLE_VERSIONS="$version" \
	go test ./oracle -run '^TestOracleBench$' -count=1 -v -timeout 60m | grep '^|'
