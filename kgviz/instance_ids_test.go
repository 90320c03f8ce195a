package kgviz_test

import (
	"fmt"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fatalError is the fatal error member's process exited on, if any.
func fatalErrorOf(w *kgviz.World, member string) (kgviz.Event, bool) {
	for _, e := range w.Events() {
		if e.Type == kgviz.EvError && e.Fatal && e.Member == member {
			return e, true
		}
	}
	return kgviz.Event{}, false
}

// TestSecondInstanceFencesFirst: two running instances with one
// transactional.id or one group.instance.id fence each other as Kafka does.
//   - transactional.id (KIP-98, TransactionCoordinator.handleInitProducerId):
//     the newer InitProducerId bumps the epoch (fencing and aborting the older
//     instance's open transaction: CONCURRENT_TRANSACTIONS, then old+2); the
//     older instance's next transactional request gets PRODUCER_FENCED, fatal
//     in TransactionManager (ProducerFencedException).
//   - group.instance.id, classic protocol (KIP-345,
//     GroupMetadataManager.replaceStaticMember): the newer replaces the older
//     with the same assignment and no rebalance; the older gets
//     FENCED_INSTANCE_ID (FencedInstanceIdException, fatal).
//   - group.instance.id, consumer protocol (KIP-848,
//     GroupMetadataManager.throwIfInstanceIdIsUnreleased): the newer is refused
//     with UNRELEASED_INSTANCE_ID while the older has not left.
func TestSecondInstanceFencesFirst(t *testing.T) {
	tests := []struct {
		name      string
		world     []kgviz.Option
		member    []kgviz.Option // both members
		busy      int            // ticks C1 runs before C2 starts
		fenced    string         // the member whose process exits
		code      kgviz.ErrorCode
		exception kgviz.Exception
		check     func(t *testing.T, w *kgviz.World)
	}{
		{name: "KIP-98 transactional.id, older mid-transaction, transaction.version 1",
			world: []kgviz.Option{kgviz.WithTransactionalID("billing"), kgviz.WithIsolation(kgviz.ReadCommitted)}, busy: 8,
			fenced: "C1", code: kgviz.PRODUCER_FENCED, exception: kgviz.ProducerFencedException,
			check: func(t *testing.T, w *kgviz.World) {
				states := w.TxnStates("billing")
				require.NotEmpty(t, states)
				assert.Contains(t, states, kgviz.TxnState("PrepareAbort"), "the older instance's open transaction is aborted")
				s := w.Stats()
				assert.Zero(t, s.Duplicates, "read_committed: the aborted transaction's invoices are skipped")
				assert.Zero(t, s.Lost)
				assert.Equal(t, 1, s.Rejected[kgviz.CONCURRENT_TRANSACTIONS], "the newer InitProducerId waits for the fence's abort, then retries")
			}},
		{name: "KIP-98 transactional.id, transaction.version 2 (KIP-890)",
			world: []kgviz.Option{kgviz.WithTransactionalID("billing"), kgviz.WithTransactionVersion(2), kgviz.WithIsolation(kgviz.ReadCommitted)}, busy: 8,
			fenced: "C1", code: kgviz.PRODUCER_FENCED, exception: kgviz.ProducerFencedException,
			check: func(t *testing.T, w *kgviz.World) {
				s := w.Stats()
				assert.Zero(t, s.Duplicates)
				assert.Zero(t, s.Lost)
			}},
		{name: "KIP-98 transactional.id, older idle between transactions",
			world: []kgviz.Option{kgviz.WithTransactionalID("billing"), kgviz.WithIsolation(kgviz.ReadCommitted), kgviz.WithRecords(3)}, busy: 40,
			fenced: "C1", code: kgviz.PRODUCER_FENCED, exception: kgviz.ProducerFencedException},
		{name: "KIP-345 group.instance.id, classic: the newer replaces the older",
			member: []kgviz.Option{kgviz.WithInstanceID("billing")}, busy: 2,
			fenced: "C1", code: kgviz.FENCED_INSTANCE_ID, exception: kgviz.FencedInstanceIDException,
			check: func(t *testing.T, w *kgviz.World) {
				replaced := false
				for _, e := range w.Events() {
					if e.Type == kgviz.EvMemberAdded && e.Member == "C2" && e.Replaces == "C1-1" {
						replaced = true
					}
				}
				assert.True(t, replaced, "C2 takes over C1's static member")
				assert.Equal(t, 1, w.Generation(), "a static replacement in Stable does not rebalance")
				assert.ElementsMatch(t, []string{"o0", "o1", "o2", "p0", "p1", "p2"}, w.Assignment()["C2"], "with C1's assignment")
			}},
		{name: "KIP-848 group.instance.id, consumer protocol: the newer is refused",
			world: []kgviz.Option{kgviz.WithGroupProtocol(kgviz.Consumer)}, member: []kgviz.Option{kgviz.WithInstanceID("billing")}, busy: 2,
			fenced: "C2", code: kgviz.UNRELEASED_INSTANCE_ID, exception: kgviz.UnreleasedInstanceIDException},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := kgviz.NewWorld(tc.world...)
			w.AddMember("C1", tc.member...).RunUntil(kgviz.Stable()).RunFor(tc.busy)
			w.AddMember("C2", tc.member...).RunFor(60)
			require.NoError(t, w.Err())
			e, ok := fatalErrorOf(w, tc.fenced)
			require.True(t, ok, "%s must be fenced", tc.fenced)
			assert.Equal(t, tc.code, e.Error)
			assert.Equal(t, tc.exception, e.Exception)
			survivor := map[string]string{"C1": "C2", "C2": "C1"}[tc.fenced]
			_, fenced := fatalErrorOf(w, survivor)
			assert.False(t, fenced, "%s is not fenced", survivor)
			assert.True(t, w.Running(survivor))
			assert.False(t, w.Running(tc.fenced))
			if tc.check != nil {
				tc.check(t, w)
			}
		})
	}
}

// TestPerInstanceIDs: ids derived from the host, "${env:HOSTNAME}" as
// Kafka's EnvVarConfigProvider (KIP-887) resolves it, are distinct per member
// and kept across a restart: nobody is fenced, and a restarted member fences
// its own zombie as before.
func TestPerInstanceIDs(t *testing.T) {
	w := kgviz.NewWorld(kgviz.WithTransactionalID("billing-${env:HOSTNAME}"), kgviz.WithIsolation(kgviz.ReadCommitted))
	for _, m := range []string{"C1", "C2"} {
		w.AddMember(m, kgviz.WithInstanceID("billing-${env:HOSTNAME}")).RunUntil(kgviz.Stable())
	}
	w.RunFor(20)
	require.NoError(t, w.Err())
	for _, m := range []string{"C1", "C2"} {
		_, fenced := fatalErrorOf(w, m)
		assert.False(t, fenced, m)
		assert.NotEmpty(t, w.TxnStates("billing-"+m), "transactional.id billing-%s", m)
	}
	var instances []string
	for _, e := range w.Events() {
		if e.Type == kgviz.EvMemberAdded {
			instances = append(instances, e.InstanceID)
		}
	}
	assert.Equal(t, []string{"billing-C1", "billing-C2"}, instances)
	w.Close("C2").RunFor(3).Restart("C2").RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	assert.Zero(t, w.Stats().Duplicates)
	assert.Zero(t, w.Stats().Lost)
}

func TestInstanceIDBadInput(t *testing.T) {
	tests := []struct {
		opts []kgviz.Option
		want string
	}{
		{[]kgviz.Option{kgviz.WithTransactionalID("")}, `WithTransactionalID(""): a transactional.id must not be empty`},
		{[]kgviz.Option{kgviz.WithTransactionalID("billing-${env:POD}")}, `unknown reference ${env:POD}`},
		{[]kgviz.Option{kgviz.WithProducer(kgviz.Plain), kgviz.WithTransactionalID("billing")}, `does not go with WithProducer(plain)`},
		{[]kgviz.Option{kgviz.WithTransactionalID("billing"), kgviz.WithProducer(kgviz.Plain)}, `does not go with WithCommit(transactional)`},
		{[]kgviz.Option{kgviz.WithInstanceID("${HOSTNAME}")}, `unknown reference ${HOSTNAME}`},
		{[]kgviz.Option{kgviz.WithInstanceID(" ")}, `a group.instance.id must not be empty`},
	}
	for _, tc := range tests {
		w := kgviz.NewWorld().Join("C1")
		before, now := w.EventCount(), w.Now()
		w.AddMember("C2", tc.opts...)
		require.Error(t, w.Err())
		assert.Contains(t, w.Err().Error(), tc.want)
		assert.Contains(t, w.Err().Error(), `AddMember("C2")`)
		assert.Equal(t, before+1, w.EventCount(), "the world is unchanged but for the stop, recorded for the charts")
		assert.Equal(t, kgviz.EvWorldStopped, w.Event(w.EventCount()-1).Type)
		assert.Equal(t, now, w.Now())
		assert.Equal(t, []string{"C1"}, w.Members())
	}
}

// One configuration for every instance: "${env:HOSTNAME}" makes each
// member's transactional.id its own; a literal one is shared, and the newer
// instance fences the older (KIP-98).
func ExampleWithTransactionalID() {
	for _, id := range []string{"billing-${env:HOSTNAME}", "billing"} {
		w := kgviz.NewWorld(kgviz.WithTransactionalID(id), kgviz.WithIsolation(kgviz.ReadCommitted))
		w.AddMember("C1").RunUntil(kgviz.Stable()).RunFor(8).AddMember("C2").RunFor(30)
		for _, m := range []string{"C1", "C2"} {
			e, fenced := fatalErrorOf(w, m)
			fmt.Printf("%s: %s running=%v fenced=%v", id, m, w.Running(m), fenced)
			if fenced {
				fmt.Print(" ", e.Exception)
			}
			fmt.Println()
		}
	}
	// Output:
	// billing-${env:HOSTNAME}: C1 running=true fenced=false
	// billing-${env:HOSTNAME}: C2 running=true fenced=false
	// billing: C1 running=false fenced=true ProducerFencedException
	// billing: C2 running=true fenced=false
}
