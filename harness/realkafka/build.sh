#!/usr/bin/env bash
# Builds the real-broker harness for one Kafka version (the argument, or $KAFKA_VERSION, 4.1.1 by
# default): harness/realkafka/target/kafka-<version>/kgviz-realkafka.jar plus .../lib/*.jar (the
# broker, kafka-tools, kafka-clients of that version and log4j2 from Maven Central: ~95 jars, 55 MB).
# Offline first (mvn -o, from ~/.m2); if something is missing there, once more online. Needs a JDK 17+
# and Maven. Prints nothing when all is well.
set -euo pipefail
version="${1:-${KAFKA_VERSION:-4.1.1}}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "harness/realkafka/build.sh: not a Kafka version: $version" >&2; exit 2; }
cd "$(dirname "$0")"
for tool in java javac mvn; do
	command -v "$tool" >/dev/null || { echo "harness/realkafka/build.sh: $tool not found (needs a JDK 17+ and Maven)" >&2; exit 1; }
done
out="target/kafka-$version"
mkdir -p "$out"
if ! mvn -q -o -B -Dkafka.version="$version" package >"$out/build.log" 2>&1; then
	mvn -q -B -Dkafka.version="$version" package >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; echo "harness/realkafka/build.sh: mvn package failed (Kafka $version)" >&2; exit 1; }
fi
rm -f "$out/build.log"
