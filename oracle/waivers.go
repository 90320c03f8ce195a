package oracle

// Waivers are the known differences between kgviz's coordinator and Kafka's:
// each names the scenario, the Kafka versions, the request's API (or
// "timers"), the field and the values on both sides (no wildcards), and the
// section of docs/simplifications.md that explains it.
var Waivers = []Waiver{
	{Scenario: "rolling-static", API: "JoinGroup", Field: "members", Kgviz: "", Kafka: "C1-2 C2-1 C3-1 C4-1",
		Reason: "KIP-814: a static leader's rejoin is answered without the member list"},
	{Scenario: "demo12-generation-fence", API: "SyncGroup", Field: "error", Kgviz: "NONE", Kafka: "REBALANCE_IN_PROGRESS",
		Reason: "a replaced static member's SyncGroup meets Kafka's pending-sync expiry"},
	{Scenario: "capstone-crash-after-1", API: "timers", Field: "members removed by a timeout", Kgviz: "[]", Kafka: "[C1-1]",
		Reason: "the rebalance timeout counts two more ticks in kgviz"},
	{Scenario: "capstone-crash-after-2", API: "timers", Field: "members removed by a timeout", Kgviz: "[]", Kafka: "[C1-1]",
		Reason: "the rebalance timeout counts two more ticks in kgviz"},
	// every scenario (a difference of the Kafka version, not of a world)
	{Versions: []string{"4.4.0"}, API: "ConsumerGroupHeartbeat", Field: "member epoch", Kgviz: "1", Kafka: "2",
		Reason: "Kafka 4.4 answers a new member's first heartbeat at epoch 2"},
}
