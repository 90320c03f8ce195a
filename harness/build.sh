#!/usr/bin/env bash
# Builds the Kafka harness: harness/target/kgviz-harness.jar plus harness/target/lib/*.jar.
# Offline first (mvn -o, from ~/.m2); if something is missing there, once more online
# (Maven Central). Needs a JDK 17+ and Maven. Prints nothing when all is well.
set -euo pipefail
cd "$(dirname "$0")"
for tool in java javac mvn; do
	command -v "$tool" >/dev/null || { echo "harness/build.sh: $tool not found (needs a JDK 17+ and Maven)" >&2; exit 1; }
done
mkdir -p target
if ! mvn -q -o -B package >target/build.log 2>&1; then
	mvn -q -B package >target/build.log 2>&1 || { cat target/build.log >&2; echo "harness/build.sh: mvn package failed" >&2; exit 1; }
fi
rm -f target/build.log
