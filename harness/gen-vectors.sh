#!/usr/bin/env bash
# Regenerates kgviz/testdata/kafka_assignor_vectors.jsonl: Kafka's own RangeAssignor and
# RoundRobinAssignor (kafka-clients, version pinned in pom.xml) on 400 seeded random groups,
# replayed by kgviz's TestRangeRoundRobinKafkaVectors. The output only changes when the
# seed, GenerateVectors.java or Kafka's assignors change.
set -euo pipefail
cd "$(dirname "$0")"
./build.sh
CP="target/kgviz-harness.jar:target/lib/*"
java -cp "$CP" kgviz.harness.Harness vectors 20261101 400 >../kgviz/testdata/kafka_assignor_vectors.jsonl
echo "wrote kgviz/testdata/kafka_assignor_vectors.jsonl (kafka-clients $(java -cp "$CP" kgviz.harness.Harness version))"
