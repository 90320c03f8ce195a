#!/usr/bin/env bash
# Builds the share-group harness: harness/realkafka-share/target/kgviz-realkafka-share.jar plus target/lib/*.jar
# (harness/realkafka/src built against the Kafka 4.4.0 broker, kafka-tools, kafka-clients and log4j2 from Maven Central: ~95 jars, 55 MB).
# Offline first (mvn -o, from ~/.m2); if something is missing there, once more online. Needs a JDK 17+
# and Maven. Prints nothing when all is well.
set -euo pipefail
cd "$(dirname "$0")"
for tool in java javac mvn; do
	command -v "$tool" >/dev/null || { echo "harness/realkafka-share/build.sh: $tool not found (needs a JDK 17+ and Maven)" >&2; exit 1; }
done
mkdir -p target
if ! mvn -q -o -B package >target/build.log 2>&1; then
	mvn -q -B package >target/build.log 2>&1 || { cat target/build.log >&2; echo "harness/realkafka-share/build.sh: mvn package failed" >&2; exit 1; }
fi
rm -f target/build.log
