// Package realkafka compares kgviz's simulation with a real Apache Kafka 4.1.1
// broker, demo by demo.
//
// harness/realkafka (Java) runs each scenario of DEMOS.md on a real broker and
// records what a student looks at (one JSON file per run, see README.md and
// Recording). RealOutcomes extracts outcomes from a recording; SimOutcomes runs
// the same script on a kgviz World and extracts the same outcomes through the
// engine's public API (sim.go is the only file that reads the engine); Compare
// compares them, accepting only the differences listed in
// known_differences.json, each explained in docs/simplifications.md.
//
//	go test ./realkafka            # the committed recordings (testdata/) against the simulation
//	make test-kafka                # a live broker: every scenario run now, then compared
//	make record-kafka              # re-record testdata/
package realkafka
