package oracle

// Waivers are the known differences between kgviz's coordinator and Kafka's:
// each names the scenario, the Kafka versions, the request's API (or
// "timers"), the field and the values on both sides (no wildcards), and the
// section of docs/simplifications.md that explains it. Two timings kgviz
// keeps on purpose are recognised member by member with their ticks instead
// (compare.go: SessionFromAnswer, RevocationFromArrival).
var Waivers = []Waiver{
	{Scenario: "demo12-generation-fence", API: "SyncGroup", Field: "error", Kgviz: "NONE", Kafka: "REBALANCE_IN_PROGRESS",
		Reason: "a replaced static member's SyncGroup meets Kafka's pending-sync expiry"},
	// every scenario (a difference of the Kafka version, not of a world)
	{Versions: []string{"4.4.0"}, API: "ConsumerGroupHeartbeat", Field: "member epoch", Kgviz: "1", Kafka: "2",
		Reason: "Kafka 4.4 answers a new member's first heartbeat at epoch 2"},
	{Versions: []string{"4.4.0"}, API: "ShareGroupHeartbeat", Field: "member epoch", Kgviz: "1", Kafka: "2",
		Reason: "Kafka 4.4 answers a new share group member's first heartbeat at epoch 2"},
}
