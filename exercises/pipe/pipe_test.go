package pipe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/kgviz/kgviz/kgviz"
)

// serve runs ServeConn on a pair of pipes and returns the grader's end.
func serve(t *testing.T, funcs map[string]any) *Conn {
	t.Helper()
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	go func() {
		ServeConn(reqR, repW, funcs)
		repW.Close()
	}()
	c, err := Dial(repR, reqW)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reqW.Close() })
	return c
}

func TestRoundTrip(t *testing.T) {
	type assign = func([]kgviz.MemberSubscription, map[string]int) map[string][]kgviz.TopicPartition
	funcs := map[string]any{
		"assign": assign(func(ms []kgviz.MemberSubscription, topics map[string]int) map[string][]kgviz.TopicPartition {
			plan := map[string][]kgviz.TopicPartition{}
			for i, m := range ms {
				plan[m.MemberID] = []kgviz.TopicPartition{{Topic: "orders", Partition: i + topics["orders"]}}
			}
			return plan
		}),
		"name": func(a kgviz.Assignor, n int) string { return a.Name() + strings.Repeat("!", n) },
		"nils": func(empty bool) ([]string, map[string]string) {
			if empty {
				return []string{}, map[string]string{}
			}
			return nil, nil
		},
		"events": func(evs []kgviz.Event) (int, kgviz.ErrorCode) { return len(evs), evs[0].Error },
		"none":   func() {},
		"byName": func(m map[int][]kgviz.Assignor) kgviz.Assignor { return m[7][1] },
	}
	c := serve(t, funcs)
	if got := c.Funcs()["assign"]; got != reflect.TypeOf(funcs["assign"]).String() {
		t.Errorf("hello type %q", got)
	}
	if names := c.Names(); len(names) != len(funcs) || names[0] != "assign" {
		t.Errorf("names %v", names)
	}
	f := c.Func("assign", reflect.TypeOf(funcs["assign"]), nil).(assign)
	plan := f([]kgviz.MemberSubscription{{MemberID: "C1-1", Topics: []string{"orders"}, Generation: -1}}, map[string]int{"orders": 2})
	if !reflect.DeepEqual(plan, map[string][]kgviz.TopicPartition{"C1-1": {{Topic: "orders", Partition: 2}}}) {
		t.Errorf("plan %v", plan)
	}
	name := c.Func("name", reflect.TypeOf(funcs["name"]), nil).(func(kgviz.Assignor, int) string)
	if got := name(kgviz.CooperativeSticky, 2); got != "cooperative-sticky!!" {
		t.Errorf("name %q", got)
	}
	nils := c.Func("nils", reflect.TypeOf(funcs["nils"]), nil).(func(bool) ([]string, map[string]string))
	if s, m := nils(false); s != nil || m != nil {
		t.Errorf("nil became %#v %#v", s, m)
	}
	if s, m := nils(true); s == nil || m == nil {
		t.Errorf("empty became nil")
	}
	events := c.Func("events", reflect.TypeOf(funcs["events"]), nil).(func([]kgviz.Event) (int, kgviz.ErrorCode))
	if n, e := events([]kgviz.Event{{Type: kgviz.EvSend, Error: kgviz.PRODUCER_FENCED}, {}}); n != 2 || e != kgviz.PRODUCER_FENCED {
		t.Errorf("events %d %v", n, e)
	}
	c.Func("none", reflect.TypeOf(funcs["none"]), nil).(func())()
	byName := c.Func("byName", reflect.TypeOf(funcs["byName"]), nil).(func(map[int][]kgviz.Assignor) kgviz.Assignor)
	if a := byName(map[int][]kgviz.Assignor{7: {kgviz.Range, kgviz.Sticky}}); a == nil || a.Name() != "sticky" {
		t.Errorf("byName %v", a)
	}
	// A custom assignor cannot cross.
	if _, err := c.Call("name", []reflect.Value{reflect.ValueOf(kgviz.NewAssignor("mine", kgviz.Eager, nil)).Convert(assignorType), reflect.ValueOf(1)}, []reflect.Type{reflect.TypeOf("")}); err == nil || !strings.Contains(err.Error(), "not a built-in") {
		t.Errorf("custom assignor: %v", err)
	}
}

func TestFailures(t *testing.T) {
	funcs := map[string]any{
		"panics": func(n int) int { var s []int; return s[n] },
		"goexit": func() int { runtime.Goexit(); return 1 },
		"ok":     func() int { return 42 },
		"nan":    func() float64 { var z float64; return z / z },
	}
	c := serve(t, funcs)
	var failed []error
	fail := func(err error) { failed = append(failed, err) }

	// A panic is the answer's own: the proxy panics with its first line, the connection stays usable.
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "index out of range [3] with length 0") {
				t.Errorf("recovered %v", r)
			}
		}()
		c.Func("panics", reflect.TypeOf(funcs["panics"]), fail).(func(int) int)(3)
	}()
	if len(failed) != 0 {
		t.Errorf("a panic is not a failure of the pipe: %v", failed)
	}
	_, err := c.Call("goexit", nil, []reflect.Type{reflect.TypeOf(0)})
	var ge *GoexitError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "runtime.Goexit") {
		t.Errorf("goexit: %v", err)
	}
	if res, err := c.Call("ok", nil, []reflect.Type{reflect.TypeOf(0)}); err != nil || res[0].Int() != 42 {
		t.Errorf("after goexit: %v %v", res, err)
	}
	if _, err := c.Call("nan", nil, []reflect.Type{reflect.TypeOf(0.0)}); err == nil || !strings.Contains(err.Error(), "cannot be sent") {
		t.Errorf("NaN: %v", err)
	}
	// A result of the wrong type is a protocol error, and the connection is done.
	_, err = c.Call("ok", nil, []reflect.Type{reflect.TypeOf("")})
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Errorf("wrong result type: %v", err)
	}
	if _, err2 := c.Call("ok", nil, []reflect.Type{reflect.TypeOf(0)}); err2 != err {
		t.Errorf("after a protocol error: %v", err2)
	}
}

// fake is a program that says hello and answers each request with reply(req)
// once the request has arrived (reply may use the request's id and token);
// "" or a reply without a final newline ends it.
func fake(t *testing.T, reply func(req request) string) *Conn {
	t.Helper()
	reqR, reqW := io.Pipe()
	repR, repW := io.Pipe()
	go func() {
		defer repW.Close()
		if _, err := io.WriteString(repW, `{"hello":{"f":"func() int"}}`+"\n"); err != nil {
			return
		}
		dec := json.NewDecoder(reqR)
		for {
			var req request
			if dec.Decode(&req) != nil {
				return
			}
			r := reply(req)
			if r == "" {
				return // the program ends
			}
			if _, err := io.WriteString(repW, r); err != nil || !strings.HasSuffix(r, "\n") {
				return // a reply cut short: the program ends with it
			}
		}
	}()
	c, err := Dial(repR, reqW)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reqW.Close(); repR.Close() })
	return c
}

// Garbage on the pipe, a reply that is too long, a program that ends.
func TestGarbage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(request) string
		want  string
	}{
		{"garbage", func(request) string { return "✔ ex02-1 passed\n" }, "garbage on the answer pipe"},
		{"wrong id", func(r request) string { return fmt.Sprintf(`{"id":7,"token":%q,"results":[1]}`+"\n", r.Token) }, "replied to call 7"},
		{"no token", func(r request) string { return fmt.Sprintf(`{"id":%d,"results":[1]}`+"\n", r.ID) }, "without the call's token"},
		{"wrong token", func(r request) string { return fmt.Sprintf(`{"id":%d,"token":"%032x","results":[1]}`+"\n", r.ID, 0) }, "without the call's token"},
		{"incomplete", func(request) string { return `{"id":1,"res` }, "incomplete reply"},
		{"ended", func(request) string { return "" }, "the answer program ended"},
		{"long", func(request) string { return strings.Repeat("x", MaxLine+10) }, "longer than 32 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake(t, tc.reply)
			_, err := c.Call("f", nil, []reflect.Type{reflect.TypeOf(0)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Dial(strings.NewReader("hello there\n"), io.Discard); err == nil || !strings.Contains(err.Error(), "not the expected hello") {
		t.Errorf("bad hello: %v", err)
	}
	// A program that serves no function (every answer cell empty) still says hello.
	c := serve(t, map[string]any{})
	if len(c.Funcs()) != 0 {
		t.Errorf("funcs %v", c.Funcs())
	}
}

// Replies forged for calls 1, 2 and 3, sent before any call (with the hello,
// or a moment after it): the first call fails, whichever way they arrive,
// and so does every call after it.
func TestForgedRepliesInAdvance(t *testing.T) {
	forged := `{"id":1,"results":[1]}` + "\n" + `{"id":2,"results":[2]}` + "\n" + `{"id":3,"results":[3]}` + "\n"
	honest := func(r request) string { return fmt.Sprintf(`{"id":%d,"token":%q,"results":[42]}`+"\n", r.ID, r.Token) }
	for _, tc := range []struct {
		name string
		conn func(t *testing.T) *Conn
		want string
	}{
		{"with the hello", func(t *testing.T) *Conn {
			c, err := Dial(strings.NewReader(`{"hello":{"f":"func() int"}}`+"\n"+forged), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}, "nobody asked for (before call 1 was made)"},
		{"after the hello", func(t *testing.T) *Conn {
			first := true
			return fake(t, func(r request) string {
				if first { // the forged ones reach the pipe before the real reply
					first = false
					return forged + honest(r)
				}
				return honest(r)
			})
		}, "replied to call 1 without the call's token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.conn(t)
			for call := 1; call <= 4; call++ {
				res, err := c.Call("f", nil, []reflect.Type{reflect.TypeOf(0)})
				if err == nil {
					t.Fatalf("call %d accepted %v", call, res[0])
				}
				if call == 1 && !strings.Contains(err.Error(), tc.want) {
					t.Errorf("call 1: %v, want %q", err, tc.want)
				}
			}
		})
	}
	// The honest program, for contrast: every call answered.
	c := fake(t, honest)
	for call := 1; call <= 4; call++ {
		if res, err := c.Call("f", nil, []reflect.Type{reflect.TypeOf(0)}); err != nil || res[0].Int() != 42 {
			t.Fatalf("honest call %d: %v %v", call, res, err)
		}
	}
}

// Serve in a real process: os.Exit inside an answer ends the program, and
// the grader sees ErrClosed.
func TestServeProcess(t *testing.T) {
	if os.Getenv("KGVIZ_PIPE_CHILD") == "1" {
		Serve(map[string]any{
			"double": func(n int) int { return 2 * n },
			"count":  func(l []kgviz.LogRecord) int { return len(l) },
			"exit":   func() int { os.Exit(0); return 0 },
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeProcess$")
	cmd.Env = append(os.Environ(), "KGVIZ_PIPE_CHILD=1")
	reqR, reqW, _ := os.Pipe()
	repR, repW, _ := os.Pipe()
	cmd.ExtraFiles = []*os.File{reqR, repW} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	reqR.Close()
	repW.Close()
	c, err := Dial(repR, reqW)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := c.Call("double", []reflect.Value{reflect.ValueOf(21)}, []reflect.Type{reflect.TypeOf(0)}); err != nil || res[0].Int() != 42 {
		t.Fatalf("double: %v %v", res, err)
	}
	if _, err := c.Call("exit", nil, []reflect.Type{reflect.TypeOf(0)}); !errors.Is(err, ErrClosed) {
		t.Errorf("exit: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the child: %v", err)
	}
}

func TestCodable(t *testing.T) {
	for _, v := range []any{0, "", []kgviz.Event{}, map[string][]kgviz.TopicPartition{}, kgviz.PRODUCER_FENCED, [2]int{}, &struct{ A int }{}} {
		if err := Codable(reflect.TypeOf(v)); err != nil {
			t.Errorf("%T: %v", v, err)
		}
	}
	if err := Codable(assignorType); err != nil {
		t.Error(err)
	}
	for _, v := range []any{func() {}, make(chan int), &kgviz.World{}, struct{ a int }{}, map[[2]int]int{}, []any{}, []error{}, kgviz.Option{}} {
		if err := Codable(reflect.TypeOf(v)); err == nil {
			t.Errorf("%T is codable", v)
		}
	}
}

// BenchmarkCall is one call of an answer function in another process, through
// the pipe: a small argument (an int) and a log of 40 records (ex11-1's).
func BenchmarkCall(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeProcess$")
	cmd.Env = append(os.Environ(), "KGVIZ_PIPE_CHILD=1")
	reqR, reqW, _ := os.Pipe()
	repR, repW, _ := os.Pipe()
	cmd.ExtraFiles = []*os.File{reqR, repW}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	reqR.Close()
	repW.Close()
	defer func() { reqW.Close(); cmd.Wait() }()
	c, err := Dial(repR, reqW)
	if err != nil {
		b.Fatal(err)
	}
	double := c.Func("double", reflect.TypeOf(func(int) int { return 0 }), nil).(func(int) int)
	b.Run("int", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if double(i) != 2*i {
				b.Fatal("wrong")
			}
		}
	})
	logs := make([]kgviz.LogRecord, 40)
	for i := range logs {
		logs[i] = kgviz.LogRecord{Offset: i, Record: fmt.Sprintf("inv(o2.%d)", i), State: kgviz.StateCommitted, PID: 1000, Epoch: 2, Sequence: i, Tick: 10 + i}
	}
	count := c.Func("count", reflect.TypeOf(func([]kgviz.LogRecord) int { return 0 }), nil).(func([]kgviz.LogRecord) int)
	b.Run("log40", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if count(logs) != 40 {
				b.Fatal("wrong")
			}
		}
	})
}

// The answers' program reports the runs of kgviz's built-in assignors made
// during each call (exercises.RunRemote fails an implement-it exercise with them).
func TestBuiltinRunsReported(t *testing.T) {
	type assign = func([]kgviz.MemberSubscription, map[string]int) map[string][]kgviz.TopicPartition
	c := serve(t, map[string]any{
		"own": assign(func([]kgviz.MemberSubscription, map[string]int) map[string][]kgviz.TopicPartition { return nil }),
		"rr":  assign(kgviz.RoundRobin.Assign),
		"twice": assign(func(m []kgviz.MemberSubscription, t map[string]int) map[string][]kgviz.TopicPartition {
			kgviz.Range.Assign(m, t)
			return kgviz.Sticky.Assign(m, t)
		}),
	})
	in := []kgviz.MemberSubscription{{MemberID: "C1-1", Topics: []string{"orders"}, Generation: -1}}
	topics := map[string]int{"orders": 2}
	call := func(fn string) { c.Func(fn, reflect.TypeFor[assign](), nil).(assign)(in, topics) }
	call("own")
	if n, name := c.BuiltinRuns(); n != 0 || name != "" {
		t.Errorf("own code: %d runs (%s)", n, name)
	}
	call("rr")
	if n, name := c.BuiltinRuns(); n != 1 || name != "roundrobin" {
		t.Errorf("RoundRobin: %d runs (%s)", n, name)
	}
	call("twice")
	if n, name := c.BuiltinRuns(); n != 3 || name != "sticky" {
		t.Errorf("Range then Sticky: %d runs in all (%s)", n, name)
	}
}
