package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kgviz/kgviz/exercises/pipe"
)

// child is one run of a submission's answer program in the sandbox. The
// grader talks to it through the pipe on fds 3/4; its stdout and stderr
// are read into a small buffer and never interpreted, only counted (too much
// output stops it) and searched for why it died.
type child struct {
	cmd      *exec.Cmd
	conn     *pipe.Conn
	reqW     *os.File
	out      *limitedBuffer
	outLimit int64
	done     chan struct{}
	mu       sync.Mutex
	reason   string // why the grader stopped it
	slot     *slot
	cancel   context.CancelFunc
	overflow chan struct{}
	drained  chan struct{} // closed when the output pipe is at its end
	baseline int           // processes of the slot's uid once the program said hello (with a uid of its own)
}

// startChild starts the built program and waits for its hello.
func (sl *slot) startChild(outLimit int64, helloTimeout time.Duration) (*child, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &child{slot: sl, out: &limitedBuffer{max: 16 << 10}, outLimit: outLimit, done: make(chan struct{}), cancel: cancel, overflow: make(chan struct{}), drained: make(chan struct{})}
	program := "/answers" // where the run sandbox binds it
	if sl.s.unsafe {
		program = sl.path("src", "answers")
	}
	c.cmd = sl.command(ctx, "run", sl.s.run, program)
	reqR, reqW, err := os.Pipe()
	if err != nil {
		cancel()
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		cancel()
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cancel()
		return nil, err
	}
	c.cmd.ExtraFiles = []*os.File{reqR, repW} // fds 3 and 4 (pipe.RequestFD, pipe.ReplyFD)
	c.cmd.Stdout, c.cmd.Stderr = outW, outW
	if err := c.cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	reqR.Close()
	repW.Close()
	outW.Close()
	c.reqW = reqW
	go c.drain(outR)
	go func() {
		c.cmd.Wait()
		repR.Close() // unblocks a reader if the program's children keep the pipe open
		close(c.done)
	}()
	type hello struct {
		conn *pipe.Conn
		err  error
	}
	ch := make(chan hello, 1)
	go func() {
		conn, err := pipe.Dial(repR, reqW)
		ch <- hello{conn, err}
	}()
	select {
	case h := <-ch:
		if h.err != nil {
			msg := c.describe(h.err, "its start")
			c.kill("")
			<-c.done
			return nil, errors.New(msg)
		}
		c.conn = h.conn
		c.baseline = c.processes()
		return c, nil
	case <-time.After(helloTimeout):
		c.kill(fmt.Sprintf("did not start within %s", helloTimeout))
		<-c.done
		return nil, errors.New(c.describe(pipe.ErrClosed, "its start"))
	}
}

// drain reads the program's output: the first 16 KiB are kept, and more than
// outLimit in all stops the program.
func (c *child) drain(r *os.File) {
	defer close(c.drained)
	defer r.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		c.out.Write(buf[:n])
		if c.out.Total() > c.outLimit {
			c.kill(fmt.Sprintf("printed more than %s (what an answer prints is ignored; the limit protects the grader)", sizeText(c.outLimit)))
			select {
			case <-c.overflow:
			default:
				close(c.overflow)
			}
			io_copyDiscard(r)
			return
		}
		if err != nil {
			return
		}
	}
}

func io_copyDiscard(r *os.File) {
	buf := make([]byte, 64<<10)
	for {
		if _, err := r.Read(buf); err != nil {
			return
		}
	}
}

// kill stops the program and everything it started; the first reason given
// is the one reported.
func (c *child) kill(reason string) {
	c.mu.Lock()
	if c.reason == "" {
		c.reason = reason
	}
	c.mu.Unlock()
	if c.cmd.Process != nil {
		syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		c.cmd.Process.Kill()
	}
	c.cancel()
	c.slot.killUser()
}

// stop ends a program that did its job: closing its requests makes Serve
// return; whatever is left is killed.
func (c *child) stop() {
	c.reqW.Close()
	select {
	case <-c.done:
	case <-time.After(500 * time.Millisecond):
	}
	c.kill("")
	<-c.done
	c.slot.killUser()
}

// processes counts the live processes of the slot's uid (-1 without a uid of its own).
func (c *child) processes() int {
	if !c.slot.s.asRoot {
		return -1
	}
	return len(processesOf(map[int]bool{c.slot.uid: true}))
}

// extraProcesses says how many processes the answers started and left running.
func (c *child) extraProcesses() int {
	if c.baseline < 0 {
		return 0
	}
	return c.processes() - c.baseline
}

func (c *child) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// describe says in one sentence what happened to the program, given the
// pipe's error, while computing what.
func (c *child) describe(err error, what string) string {
	var ge *pipe.GoexitError
	var pe *pipe.ProtocolError
	switch {
	case errors.As(err, &ge):
		return ge.Error() + " (a check needs its answer)"
	case errors.As(err, &pe):
		c.kill("")
		return pe.Msg
	}
	// The program ended or was stopped: wait for it to say how (its exit
	// status, and the end of its output, where a panic is).
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		c.kill(fmt.Sprintf("closed the answer pipe during %s and kept running", what))
		<-c.done
	}
	select {
	case <-c.drained:
	case <-time.After(5 * time.Second):
	}
	c.mu.Lock()
	reason := c.reason
	c.mu.Unlock()
	if reason != "" {
		return reason
	}
	out := c.out.String()
	state := c.cmd.ProcessState
	status := -1
	if state != nil {
		status = state.ExitCode()
		if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	}
	switch {
	case c.slot.cgroup != "" && oomKills(c.slot.cgroup) > 0:
		return fmt.Sprintf("ran out of memory during %s (the limit: %s)", what, c.slot.s.memoryText())
	case strings.Contains(out, "fatal error: runtime: out of memory") || strings.Contains(out, "runtime: out of memory") || strings.Contains(out, "cannot allocate memory"):
		return fmt.Sprintf("ran out of memory during %s (the limit: %s)", what, c.slot.s.memoryText())
	case strings.Contains(out, "fatal error: all goroutines are asleep"):
		return fmt.Sprintf("the program deadlocked during %s: %s", what, firstLineOf(out, "fatal error:"))
	case strings.Contains(out, "panic: "):
		return fmt.Sprintf("the program crashed during %s: %s", what, firstLineOf(out, "panic: "))
	case strings.Contains(out, "fatal error: "):
		return fmt.Sprintf("the program crashed during %s: %s", what, firstLineOf(out, "fatal error: "))
	case status == 128+int(syscall.SIGXCPU) || status == 128+int(syscall.SIGKILL) && cpuUsed(state) >= c.slot.s.run.cpu:
		return fmt.Sprintf("used more than %s of CPU during %s", c.slot.s.run.cpu, what)
	case status == 128+int(syscall.SIGXFSZ):
		return fmt.Sprintf("wrote a file bigger than %s during %s", sizeText(runLimits.fsize), what)
	case status > 128:
		return fmt.Sprintf("the program was killed by signal %d (%s) during %s", status-128, syscall.Signal(status-128), what)
	case status >= 0:
		return fmt.Sprintf("the program ended (exit status %d: os.Exit?) during %s", status, what)
	}
	return fmt.Sprintf("the program ended during %s", what)
}

func cpuUsed(st *os.ProcessState) time.Duration {
	if st == nil {
		return 0
	}
	return st.UserTime() + st.SystemTime()
}

// firstLineOf returns the line of out that starts with prefix.
func firstLineOf(out, prefix string) string {
	for _, line := range strings.Split(out, "\n") {
		if i := strings.Index(line, prefix); i >= 0 {
			return clip(strings.TrimSpace(line[i:]), 200)
		}
	}
	return ""
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
