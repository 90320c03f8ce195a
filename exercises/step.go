package exercises

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// Step is one scenario call on a world, written as data. An answer that must
// act on a world (make a zombie, crash a member at the right moment) returns
// its steps instead of calling the world itself, so that the grader can apply
// them to a world of its own: a *kgviz.World cannot cross the pipe between
// the grader and the student's program, and a world the student's program
// built could not be trusted.
//
//	[]exercises.Step{
//		{Do: "SlowNext", Member: m},                        // w.SlowNext(m)
//		{Do: "RunUntil", Until: "SlowStarted", Member: m},  // w.RunUntil(kgviz.SlowStarted(m))
//		{Do: "Restart", Member: m},                         // w.Restart(m)
//	}
//
// Do is the World method:
//
//	RunFor                   N ticks
//	RunUntil                 the condition Until: Stable, Quiet, Crashed (Member), SlowStarted (Member),
//	                         Polled or Processed (Member, Arg = the record, "p2.3"), Sent (Member, Arg = the API)
//	Crash                    Member; after N records of its batch (kgviz.AfterRecords(N)), or at once if N < 0
//	Close, Restart, SlowNext, LoseNextProduceResponse   Member
type Step struct {
	Do     string
	Member string
	Until  string
	Arg    string
	N      int
}

// MaxSteps is the most steps Apply performs.
const MaxSteps = 50

// String renders the step as the Go call it stands for.
func (s Step) String() string {
	switch s.Do {
	case "RunFor":
		return fmt.Sprintf("RunFor(%d)", s.N)
	case "RunUntil":
		switch s.Until {
		case "Stable", "Quiet":
			return fmt.Sprintf("RunUntil(kgviz.%s())", s.Until)
		case "Polled", "Processed", "Sent":
			return fmt.Sprintf("RunUntil(kgviz.%s(%q, %q))", s.Until, s.Member, s.Arg)
		}
		return fmt.Sprintf("RunUntil(kgviz.%s(%q))", s.Until, s.Member)
	case "Crash":
		if s.N < 0 {
			return fmt.Sprintf("Crash(%q, kgviz.Immediately())", s.Member)
		}
		return fmt.Sprintf("Crash(%q, kgviz.AfterRecords(%d))", s.Member, s.N)
	}
	return fmt.Sprintf("%s(%q)", s.Do, s.Member)
}

// Apply performs steps on w in order and returns w. A step that is not
// understood stops it with an error that names the step; the world's own
// errors stay in w.Err().
func Apply(w *kgviz.World, steps []Step) (*kgviz.World, error) {
	if len(steps) > MaxSteps {
		return w, fmt.Errorf("%d steps; at most %d", len(steps), MaxSteps)
	}
	for i, s := range steps {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("step %d (%+v): %s", i+1, s, fmt.Sprintf(format, args...))
		}
		if s.Do != "RunFor" && !(s.Do == "RunUntil" && (s.Until == "Stable" || s.Until == "Quiet")) && s.Member == "" {
			return w, bad("Member is empty")
		}
		switch s.Do {
		case "RunFor":
			if s.N < 1 || s.N > 2000 {
				return w, bad("RunFor takes 1 to 2000 ticks, not %d", s.N)
			}
			w.RunFor(s.N)
		case "RunUntil":
			var c kgviz.Condition
			switch s.Until {
			case "Stable":
				c = kgviz.Stable()
			case "Quiet":
				c = kgviz.Quiet()
			case "Crashed":
				c = kgviz.Crashed(s.Member)
			case "SlowStarted":
				c = kgviz.SlowStarted(s.Member)
			case "Polled":
				c = kgviz.Polled(s.Member, s.Arg)
			case "Processed":
				c = kgviz.Processed(s.Member, s.Arg)
			case "Sent":
				api, ok := kgviz.ParseAPIKey(s.Arg)
				if !ok {
					return w, bad("unknown API %q in Sent: use a Kafka API name such as JoinGroup or TxnOffsetCommit", s.Arg)
				}
				c = kgviz.Sent(s.Member, api)
			default:
				return w, bad("unknown condition %q: use Stable, Quiet, Crashed, SlowStarted, Polled, Processed or Sent", s.Until)
			}
			w.RunUntil(c)
		case "Crash":
			if s.N < 0 {
				w.Crash(s.Member, kgviz.Immediately())
			} else {
				w.Crash(s.Member, kgviz.AfterRecords(s.N))
			}
		case "Close":
			w.Close(s.Member)
		case "Restart":
			w.Restart(s.Member)
		case "SlowNext":
			w.SlowNext(s.Member)
		case "LoseNextProduceResponse":
			w.LoseNextProduceResponse(s.Member)
		default:
			return w, bad("unknown call %q: use %s", s.Do, strings.Join([]string{"RunFor", "RunUntil", "Crash", "Close", "Restart", "SlowNext", "LoseNextProduceResponse"}, ", "))
		}
	}
	return w, nil
}
