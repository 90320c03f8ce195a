package kgviz_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func countOf(w *kgviz.World, from int, f func(kgviz.Event) bool) int {
	n := 0
	for _, e := range w.EventsSince(from) {
		if f(e) {
			n++
		}
	}
	return n
}

func processedBy(member string) func(kgviz.Event) bool {
	return func(e kgviz.Event) bool { return e.Type == kgviz.EvProcessed && e.Member == member }
}

func pollTimeouts(e kgviz.Event) bool { return e.Type == kgviz.EvPollTimeout }

// KafkaConsumer.pause keeps poll() going, so a member that holds back for
// longer than max.poll.interval.ms stays in the group; a member blocked in
// its processing for as long is thrown out (KIP-62's poll timeout).
func TestPauseInsteadOfLongerPollInterval(t *testing.T) {
	tests := []struct {
		name           string
		hold           func(w *kgviz.World) *kgviz.World
		wantTimeouts   int
		wantGeneration int
	}{
		{"paused for 40 ticks: polls go on", func(w *kgviz.World) *kgviz.World {
			w.Pause("C2", "o2", "p2").RunFor(3) // the batch in flight, if any, ends
			n := w.EventCount()
			w.RunFor(37)
			assert.Zero(t, countOf(w, n, processedBy("C2")), "C2 holds back while paused")
			return w.Resume("C2", "o2", "p2")
		}, 0, 2},
		{"blocked 40 ticks in a slow record: poll timeout", func(w *kgviz.World) *kgviz.World {
			return w.SlowNext("C2").RunFor(40)
		}, 1, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := kgviz.NewWorld(kgviz.WithSlowRecordTicks(40)).Join("C1", "C2")
			start := w.EventCount()
			tc.hold(w).RunUntil(kgviz.Quiet())
			require.NoError(t, w.Err())
			assert.Equal(t, tc.wantTimeouts, countOf(w, start, pollTimeouts))
			assert.GreaterOrEqual(t, w.Generation(), tc.wantGeneration)
			if tc.wantTimeouts == 0 {
				assert.Equal(t, tc.wantGeneration, w.Generation(), "no rebalance")
			}
			assert.Zero(t, w.Stats().Lost)
		})
	}
}

func TestPauseStopsFetchingOnlyThePausedPartition(t *testing.T) {
	w := kgviz.NewWorld().Join("C1", "C2")
	w.Pause("C2", "p2")
	paused, err := w.Paused("C2")
	require.NoError(t, err)
	assert.Equal(t, []string{"p2"}, paused)
	start := w.EventCount()
	w.RunFor(60)
	require.NoError(t, w.Err())
	fetchedP2 := countOf(w, start, func(e kgviz.Event) bool { return e.Type == kgviz.EvFetched && e.Member == "C2" && e.Partition == "p2" })
	fetchedO2 := countOf(w, start, func(e kgviz.Event) bool { return e.Type == kgviz.EvFetched && e.Member == "C2" && e.Partition == "o2" })
	assert.Zero(t, fetchedP2, "nothing from the paused partition")
	assert.Positive(t, fetchedO2, "the other partition goes on")
	assert.Zero(t, countOf(w, start, pollTimeouts))
	w.Resume("C2", "p2").RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	assert.Positive(t, countOf(w, start, func(e kgviz.Event) bool { return e.Type == kgviz.EvFetched && e.Member == "C2" && e.Partition == "p2" }))
	assert.Zero(t, w.Stats().Lost)
	assert.Zero(t, w.Stats().Duplicates)
}

// A pause ends with the partition's assignment (SubscriptionState): when C3
// joins and range moves C1's o1 away, o1's pause is gone.
func TestPauseEndsWithTheAssignment(t *testing.T) {
	w := kgviz.NewWorld().Join("C1", "C2")
	w.Pause("C1", "o0", "o1")
	w.AddMember("C3").RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	paused, err := w.Paused("C1")
	require.NoError(t, err)
	assert.Empty(t, paused, "eager range revokes everything, and the pause with it")
}

// Seek back to an offset already processed: the member reads it again.
func TestSeekBack(t *testing.T) {
	w := kgviz.NewWorld().Join("C1")
	w.RunUntil(kgviz.Processed("C1", "o0.2")).RunFor(2)
	w.Seek("C1", "o0", 0).RunUntil(kgviz.Quiet())
	require.NoError(t, w.Err())
	assert.Equal(t, 2, w.ProcessedCount()["o0.0"], "o0.0 processed again after the seek")
	assert.Equal(t, 1, w.ProcessedCount()["p0.0"])
}

func TestConsumerControlBadInput(t *testing.T) {
	tests := []struct {
		name string
		call func(w *kgviz.World) *kgviz.World
		want string
	}{
		{"pause an unknown member", func(w *kgviz.World) *kgviz.World { return w.Pause("C9", "o0") }, `Pause("C9", "o0"): no such member`},
		{"pause nothing", func(w *kgviz.World) *kgviz.World { return w.Pause("C1") }, `Pause("C1"): no partition given`},
		{"pause a partition owned by another", func(w *kgviz.World) *kgviz.World { return w.Pause("C1", "o2") },
			`Pause("C1", "o2"): C1 does not own o2 now (it owns o0 o1 p0 p1): no current assignment for partition`},
		{"resume an unknown partition", func(w *kgviz.World) *kgviz.World { return w.Resume("C2", "x9") }, `Resume("C2", "x9"): no input partition "x9"`},
		{"seek before the start", func(w *kgviz.World) *kgviz.World { return w.Seek("C2", "o2", -1) }, `Seek("C2", "o2", -1): offset -1 is outside the partition (0 to its end, 8)`},
		{"seek past the end", func(w *kgviz.World) *kgviz.World { return w.Seek("C2", "o2", 9) }, `offset 9 is outside the partition`},
		{"seek on a crashed member", func(w *kgviz.World) *kgviz.World { return w.Seek("C2", "o2", 0) }, `Seek("C2", "o2", 0): the member is not running`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := kgviz.NewWorld().Join("C1", "C2")
			if tc.name == "seek on a crashed member" {
				w.Crash("C2", kgviz.Immediately()).RunFor(1)
			}
			now, events := w.Now(), w.EventCount()
			assert.NotPanics(t, func() { tc.call(w) })
			require.Error(t, w.Err())
			assert.Contains(t, w.Err().Error(), tc.want)
			assert.Equal(t, now, w.Now(), "the world is unchanged")
			assert.Equal(t, events+1, w.EventCount(), "but for the stop, recorded for the charts")
		})
	}
	_, err := kgviz.NewWorld().Paused("C7")
	assert.ErrorContains(t, err, `Paused("C7"): no such member`)
}

// A downstream system is down: C2 pauses its partitions and keeps polling,
// for longer than max.poll.interval.ms (12 ticks), and stays in the group.
func ExampleWorld_Pause() {
	w := kgviz.NewWorld().Join("C1", "C2")
	w.Pause("C2", "o2", "p2").RunFor(40)
	paused, _ := w.Paused("C2")
	fmt.Println("paused:", paused, "generation:", w.Generation())
	w.Resume("C2", "o2", "p2").RunUntil(kgviz.Quiet())
	fmt.Println("generation:", w.Generation(), "lost:", w.Stats().Lost)
	// Output:
	// paused: [o2 p2] generation: 2
	// generation: 2 lost: 0
}

// Seek back: C1 reads o0 again from offset 0 (what a transactional member
// does after abortTransaction, to its committed offsets).
func ExampleWorld_Seek() {
	w := kgviz.NewWorld().Join("C1")
	w.RunUntil(kgviz.Processed("C1", "o0.2")).RunFor(2)
	w.Seek("C1", "o0", 0).RunUntil(kgviz.Quiet())
	fmt.Println("o0.0 processed", w.ProcessedCount()["o0.0"], "times")
	// Output:
	// o0.0 processed 2 times
}

// commitAsync in the loop (WithCommitEvery), commitSync before close():
// what the next owner of the closed member's partitions (o2, p2) repeats
// after a graceful restart. (C1's own uncommitted work, moved by the
// rebalance, is the rebalance listener's to commit.)
func TestCommitOnClose(t *testing.T) {
	for _, protocol := range []kgviz.GroupProtocol{kgviz.Classic, kgviz.Consumer} {
		for _, tc := range []struct {
			name      string
			opts      []kgviz.Option
			wantTwice bool
		}{
			{"every 4th batch, nothing on close", []kgviz.Option{kgviz.WithCommitEvery(4)}, true},
			{"every 4th batch, commitSync on close", []kgviz.Option{kgviz.WithCommitEvery(4), kgviz.WithCommitOnClose()}, false},
		} {
			t.Run(protocol.String()+"/"+tc.name, func(t *testing.T) {
				w := kgviz.NewWorld(append(tc.opts, kgviz.WithGroupProtocol(protocol))...).Join("C1", "C2")
				w.RunUntil(kgviz.Processed("C2", "p2.1")).Close("C2").RunFor(4).Restart("C2").RunUntil(kgviz.Quiet())
				require.NoError(t, w.Err())
				var twice []string
				for _, r := range w.ProcessedTwice() {
					if strings.HasPrefix(r, "o2.") || strings.HasPrefix(r, "p2.") {
						twice = append(twice, r)
					}
				}
				assert.Equal(t, tc.wantTwice, len(twice) > 0, "C2's records processed twice: %v", twice)
				assert.Zero(t, w.Stats().Lost)
			})
		}
	}
}

// WithListOffsets: a partition without a committed offset is looked up with
// ListOffsets (earliest) before the first Fetch, as the Java consumer's
// OffsetFetcher.resetPositionsIfNeeded does; a partition with one is not.
// Stable() does not wait for the answer (DescribeGroups does not either), so
// the first records come two ticks later than without it.
func TestListOffsetsBeforeTheFirstFetch(t *testing.T) {
	firstFetched := func(w *kgviz.World, member string) int {
		for _, e := range w.Events() {
			if e.Type == kgviz.EvFetched && e.Member == member {
				return e.Tick
			}
		}
		return -1
	}
	sent := func(w *kgviz.World, member string) []string {
		var out []string
		for _, e := range w.Events() {
			if e.Type == kgviz.EvSend && !e.Response && e.From == member && e.API == kgviz.ListOffsets {
				out = append(out, fmt.Sprint(e.Body()))
			}
		}
		return out
	}
	plain := kgviz.NewWorld().AddMember("C1").RunUntil(kgviz.Stable())
	stable := plain.Now()
	plain.RunFor(4)
	w := kgviz.NewWorld().AddMember("C1", kgviz.WithListOffsets()).RunUntil(kgviz.Stable())
	require.NoError(t, w.Err())
	assert.Equal(t, stable, w.Now(), "Stable() does not wait for ListOffsets")
	w.RunFor(4)
	assert.Equal(t, firstFetched(plain, "C1")+2, firstFetched(w, "C1"), "one more round trip before the first records")
	assert.Equal(t, []string{"earliest orders-0 orders-1 orders-2 payments-0 payments-1 payments-2"}, sent(w, "C1"))
	assert.Empty(t, sent(plain, "C1"), "the default sends none")

	// C2 joins: C1 keeps o0 (committed: no ListOffsets) and resets o1 p0 p1
	w.AddMember("C2").RunUntil(kgviz.Stable()).RunFor(3)
	require.NoError(t, w.Err())
	assert.Equal(t, []string{"earliest orders-0 orders-1 orders-2 payments-0 payments-1 payments-2", "earliest orders-1 payments-0 payments-1"}, sent(w, "C1"))
	assert.Empty(t, sent(w, "C2"), "C2 has no option of its own and the world none")

	// as a world option, every member does it
	all := kgviz.NewWorld(kgviz.WithListOffsets()).Join("C1", "C2")
	require.NoError(t, all.Err())
	assert.NotEmpty(t, sent(all, "C2"))
}

func TestListOffsetsRefusedForAShareConsumer(t *testing.T) {
	w := kgviz.NewWorld().AddMember("C1").RunFor(2)
	now, events := w.Now(), w.EventCount()
	w.AddMember("S1", kgviz.ShareGroup("sg", "orders"), kgviz.WithListOffsets())
	require.Error(t, w.Err())
	assert.Equal(t, `AddMember("S1"): WithListOffsets with ShareGroup("sg"): a share consumer keeps no positions to reset; `+
		`its group's share.auto.offset.reset says where it starts (WithShareAutoOffsetReset)`, w.Err().Error())
	assert.Equal(t, now, w.Now(), "the world unchanged")
	assert.Equal(t, events+1, w.EventCount(), "but for the stop, recorded for the charts")
	assert.Equal(t, []string{"C1"}, w.Members())
}
