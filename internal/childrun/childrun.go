// Package childrun runs a test's own binary again as a child process, the
// way a notebook cell runs a program, so that a test can check what a
// function does to the process: its exit status, its stdout and its stderr
// (nbgrader scores a cell 0 when it writes to stderr).
package childrun

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Env is the variable that tells the child which case to run; it is empty
// in the parent.
const Env = "KGVIZ_REPORT_CHILD"

// Mode returns the case the child was started for, "" in the parent.
func Mode() string { return os.Getenv(Env) }

// Run runs the test named test (anchored) of the current test binary with
// Env set to mode, and returns its exit status, stdout and stderr. A child
// that cannot be started fails t.
func Run(t testing.TB, test, mode string) (status int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), Env+"="+mode)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		status = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return status, out.String(), errOut.String()
}
