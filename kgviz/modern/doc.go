// Package modern is the group coordinator's assignment logic of the consumer
// group protocol (KIP-848), exact to Kafka 4.1.1's group-coordinator module
// (org.apache.kafka.coordinator.group.modern and .assignor): the server-side
// assignors UniformAssignor and ServerRangeAssignor (Kafka's UniformAssignor
// and RangeAssignor, chosen by group.remote.assignor), the target assignment
// (TargetAssignmentBuilder: BuildTargetAssignment), the reconciliation of one
// member towards it (CurrentAssignmentBuilder: ReconcileMember), and the Java
// hash tables whose iteration order their plans follow.
//
// It is a leaf package (it imports only packages kafka and internal/javautil,
// the JDK hash order the classic assignors share) so that the broker's
// ConsumerGroup (kgviz/broker/consumer_group.go) can call it; package kgviz
// re-exports its names (kgviz.UniformAssignor, kgviz.BuildTargetAssignment,
// kgviz.TopicID, ...). make test-differential compares it with Kafka's own
// classes (kgviz/server_differential_test.go).
package modern

import "github.com/kgviz/kgviz/kgviz/kafka"

// TopicPartition names one partition of a topic (kafka.TopicPartition).
type TopicPartition = kafka.TopicPartition

// SortPartitions sorts partitions by topic, then partition.
func SortPartitions(tps []TopicPartition) { kafka.SortPartitions(tps) }
