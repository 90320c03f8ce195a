package oracle

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/broker"
	"github.com/kgviz/kgviz/kgviz/kafka"
	"github.com/kgviz/kgviz/realkafka"
)

// shareWorlds are kgviz's share-group scenarios (KIP-932): the examples of
// kgviz/share_example_test.go (four members on two partitions, one
// crashing while it holds records; a member that freezes), a member that
// leaves and one that joins late, and the worlds realkafka builds for the
// six scenarios recorded on Kafka 4.4.0 (realkafka.SimShareWorld). Their
// ShareGroupHeartbeat requests go to Kafka's GroupMetadataManager.shareGroupHeartbeat.
func shareWorlds() []world {
	ws := []world{
		{"share-crash-holding", func(o ...kgviz.Option) *kgviz.World {
			w := kgviz.NewWorld(append(o, kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 2, "t"), kgviz.WithRecords(12))...)
			for _, m := range []string{"S1", "S2", "S3", "S4"} {
				w.AddMember(m, kgviz.ShareGroup("workers"))
			}
			w.RunUntil(kgviz.Stable())
			return w.Crash("S1", kgviz.AfterRecords(1)).RunUntil(kgviz.ShareGroupDone("workers")).RunFor(10)
		}},
		{"share-freeze", func(o ...kgviz.Option) *kgviz.World {
			w := kgviz.NewWorld(append(o, kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 1, "t"), kgviz.WithRecords(6))...)
			w.AddMember("S1", kgviz.ShareGroup("workers")).AddMember("S2", kgviz.ShareGroup("workers"))
			return w.Freeze("S1", kgviz.AfterRecords(1)).RunUntil(kgviz.ShareGroupDone("workers")).RunFor(10)
		}},
		{"share-leave-and-join", func(o ...kgviz.Option) *kgviz.World {
			w := kgviz.NewWorld(append(o, kgviz.WithOnlyTopics(), kgviz.WithTopic("t", 3, "t"), kgviz.WithRecords(20))...)
			w.AddMember("S1", kgviz.ShareGroup("workers")).AddMember("S2", kgviz.ShareGroup("workers")).RunFor(4)
			w.Close("S2").RunFor(3)
			w.AddMember("S3", kgviz.ShareGroup("workers")).AddMember("S4", kgviz.ShareGroup("workers")).RunFor(5)
			w.Crash("S3", kgviz.Immediately())
			return w.RunUntil(kgviz.ShareGroupDone("workers")).RunFor(10)
		}},
	}
	for _, id := range realkafka.ShareScenarios() {
		id := id
		ws = append(ws, world{"realkafka-" + id, func(o ...kgviz.Option) *kgviz.World {
			runs, err := realkafka.ShareRuns(id)
			if err == nil && len(runs) == 0 {
				err = fmt.Errorf("no recorded run")
			}
			if err != nil {
				panic(fmt.Sprintf("realkafka.ShareRuns(%s): %v", id, err))
			}
			w, _, err := realkafka.SimShareWorld(id, runs[0].World, o...)
			if err != nil {
				panic(fmt.Sprintf("realkafka.SimShareWorld(%s): %v", id, err))
			}
			return w
		}})
	}
	return ws
}

// TestOracleCatchesBrokenShareRule: a share coordinator that breaks one
// rule of KIP-932's heartbeat (a member's join bumps the group epoch and
// gives the member that epoch; the broken one answers the join with member
// epoch 0) is caught, at the first ShareGroupHeartbeat it changed.
func TestOracleCatchesBrokenShareRule(t *testing.T) {
	enabled(t)
	p := start(t, versions()[0])
	rec := &Recorder{}
	var first int
	rec.Break = func(req *broker.Envelope, m kafka.Message) kafka.Message {
		r, ok := m.(*broker.ShareGroupHeartbeatResponse)
		if q, isReq := req.Msg.(*broker.ShareGroupHeartbeatRequest); ok && isReq && q.MemberEpoch == 0 && r.ErrorCode == kafka.NONE {
			if first == 0 {
				first = req.ID
			}
			c := *r
			c.MemberEpoch = 0
			return &c
		}
		return m
	}
	w := shareWorlds()[0].run(kgviz.WithBrokerTap(rec))
	rec.Ended = w.Now()
	r, err := Compare(p, worldConfig(w), "share-broken", rec, worldEvents(w), Waivers)
	if err != nil {
		t.Fatal(err)
	}
	d := r.First()
	if first == 0 || d == nil {
		t.Fatalf("no share join answered (%d) or no difference found: %v", first, r.Differences)
	}
	want := fmt.Sprintf("ShareGroupHeartbeat#%d ", first)
	if !strings.HasPrefix(d.Request, want) || d.Field != "member epoch" || d.Kgviz != "0" {
		t.Fatalf("first difference %s, want the member epoch on %s", d, want)
	}
	t.Logf("caught: %s", d)
}
