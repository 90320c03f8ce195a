#!/usr/bin/env bash
# Builds the group-coordinator oracle for one Kafka version:
#   bash harness/oracle/build.sh [VERSION]     (default 4.1.1; 4.4.0 is the newest 4.x)
# -> harness/oracle/target/VERSION/kgviz-oracle.jar plus .../lib/*.jar. Offline first (mvn -o, from
# ~/.m2); if something is missing there, once more online (Maven Central). Needs a JDK 17+ and Maven.
# Prints nothing when all is well; skips the build when the jar is newer than every source.
set -euo pipefail
cd "$(dirname "$0")"
version="${1:-4.1.1}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "harness/oracle/build.sh: bad Kafka version '$version'" >&2; exit 1; }
case "$version" in
	4.0.* | 4.1.*) api=kafka41 ;;
	4.4.*) api=kafka44 ;;
	*) echo "harness/oracle/build.sh: Kafka $version: no src/kafka* for it (4.0.x, 4.1.x and 4.4.x are)" >&2; exit 1 ;;
esac
for tool in java javac mvn; do
	command -v "$tool" >/dev/null || { echo "harness/oracle/build.sh: $tool not found (needs a JDK 17+ and Maven)" >&2; exit 1; }
done
out="target/$version"
jar="$out/kgviz-oracle.jar"
if [ -f "$jar" ] && [ -d "$out/lib" ] && [ -z "$(find pom.xml build.sh src -newer "$jar" -print -quit)" ]; then
	exit 0
fi
mkdir -p "$out"
log="$out/build.log"
if ! mvn -q -o -B -Dkafka.version="$version" -Dkafka.api="$api" package >"$log" 2>&1; then
	mvn -q -B -Dkafka.version="$version" -Dkafka.api="$api" package >"$log" 2>&1 || { cat "$log" >&2; echo "harness/oracle/build.sh: mvn package failed (Kafka $version)" >&2; exit 1; }
fi
rm -f "$log"
