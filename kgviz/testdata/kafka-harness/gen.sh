#!/bin/sh
# Regenerates ../kafka_assignor_vectors.jsonl from Kafka's own assignors.
# Needs a JDK (17+) and Maven; fetches org.apache.kafka:kafka-clients from Maven Central.
set -eu
cd "$(dirname "$0")"
KAFKA_VERSION=${KAFKA_VERSION:-4.1.1}
mvn -q dependency:get -Dartifact=org.apache.kafka:kafka-clients:$KAFKA_VERSION
mvn -q dependency:get -Dartifact=org.slf4j:slf4j-api:1.7.36
REPO=${MAVEN_REPO:-$HOME/.m2/repository}
CP=$REPO/org/apache/kafka/kafka-clients/$KAFKA_VERSION/kafka-clients-$KAFKA_VERSION.jar:$REPO/org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar
OUT=$(mktemp -d)
javac -d "$OUT" -cp "$CP" GenerateVectors.java
java -cp "$OUT:$CP" GenerateVectors 20261101 400 > ../kafka_assignor_vectors.jsonl
rm -rf "$OUT"
echo "wrote kafka_assignor_vectors.jsonl (kafka-clients $KAFKA_VERSION)"
