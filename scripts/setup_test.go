// Package scripts_test checks the setup scripts: long steps print a heartbeat,
// and `make clean-caches` removes kgviz's own caches and nothing else.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func bash(t *testing.T, env []string, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// A long command says what it does and how long it usually takes, then a
// heartbeat every KGVIZ_HEARTBEAT seconds while it runs, then how it ended.
func TestLongPrintsHeartbeat(t *testing.T) {
	out, code := bash(t, []string{"KGVIZ_HEARTBEAT=1"}, `source progress.sh; long "napping" "3 s" sleep 3.4`)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	beats := 0
	for _, l := range lines {
		if regexp.MustCompile(`^\[setup\]    … napping: still working, [0-9]+s so far \(usually 3 s\)$`).MatchString(l) {
			beats++
		}
	}
	// A loaded machine (CI shares its 2 cores) may take seconds longer to start and end sleep: the bounds
	// allow that, and still fail without heartbeats or with a wrong closing line.
	if lines[0] != "[setup]    napping (usually 3 s)" || beats < 2 || beats > 9 || !regexp.MustCompile(`napping: done in [3-9]s$`).MatchString(lines[len(lines)-1]) {
		t.Errorf("%d heartbeats:\n%s", beats, out)
	}
	out, code = bash(t, nil, `source progress.sh; long "failing" "no time" bash -c 'exit 3'`)
	if code != 3 || !strings.Contains(out, "failing: FAILED (exit 3)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// The default heartbeat is at most 30 s apart.
	out, _ = bash(t, nil, `source progress.sh; echo $KGVIZ_HEARTBEAT`)
	if strings.TrimSpace(out) != "20" {
		t.Errorf("default heartbeat %q s", out)
	}
}

// Every command of scripts/setup.sh that can take long runs under long (the
// Go tools' builds as one: build_go_tools).
var quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)

func TestSetupLongStepsHaveHeartbeat(t *testing.T) {
	b, err := os.ReadFile("setup.sh")
	if err != nil {
		t.Fatal(err)
	}
	slow := regexp.MustCompile(`pip install|\bgo (build|test|mod download|list -m all)\b|apt-get (update|install)|build_go_tools`)
	lines := strings.Split(string(b), "\n")
	inFunc, checked := false, 0
	for i, l := range lines {
		code := strings.TrimSpace(strings.SplitN(l, " #", 2)[0])
		code = quoted.ReplaceAllString(code, `""`) // messages that name a command do not run it
		switch {
		case strings.HasPrefix(code, "build_go_tools() ("):
			inFunc = true
			continue
		case inFunc && code == ")":
			inFunc = false
			continue
		}
		if inFunc || strings.HasPrefix(code, "#") || !slow.MatchString(code) {
			continue
		}
		checked++
		// The command starts on this line or on the lines it continues.
		start := i
		for start > 0 && strings.HasSuffix(strings.TrimSpace(lines[start-1]), `\`) {
			start--
		}
		if !strings.HasPrefix(strings.TrimSpace(lines[start]), "long ") && !strings.Contains(lines[start], "&& long ") {
			t.Errorf("setup.sh:%d runs %q without a heartbeat (long)", i+1, code)
		}
	}
	if checked < 8 {
		t.Errorf("only %d slow commands found: is the check still reading setup.sh?", checked)
	}
	for _, phase := range []string{"1/5", "2/5", "3/5", "4/5", "5/5"} {
		if !regexp.MustCompile(`step_begin "` + phase + ` [^"]*(s|min|second)[^"]*"`).Match(b) {
			t.Errorf("phase %s does not say how long it usually takes", phase)
		}
	}
}

// make clean-caches removes ~/.cache/kgviz, ~/.cache/kgviz-grade and the
// image cache, and nothing else; it refuses a cache path not named kgviz*.
func TestCleanCaches(t *testing.T) {
	home := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o444); err != nil {
			t.Fatal(err)
		}
		os.Chmod(filepath.Dir(p), 0o555) // read-only, like Go's module cache
		return p
	}
	gone := []string{mk(".cache/kgviz/tools/abc/gopls"), mk(".cache/kgviz-grade/0123/x"), mk("var/kgviz-image/storage/y")}
	kept := []string{mk(".cache/go-build/00/z"), mk(".cache/kgviz-other/w"), mk("var/other/v"), mk("work/.venv/bin/python")}
	env := []string{"HOME=" + home, "XDG_CACHE_HOME=", "KGVIZ_CACHE=", "KGVIZ_IMAGE_CACHE=" + filepath.Join(home, "var/kgviz-image")}

	// A cache path that is not kgviz's is refused before anything is removed.
	out, code := bash(t, append(env, "KGVIZ_IMAGE_CACHE="+filepath.Join(home, "var/other")), "bash clean-caches.sh")
	if code != 2 || !strings.Contains(out, "refusing") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	for _, p := range append(gone, kept...) {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed by a refused run", p)
		}
	}

	out, code = bash(t, env, "bash clean-caches.sh")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s not removed:\n%s", p, out)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: only kgviz's caches may go\n%s", p, out)
		}
	}
	for _, want := range []string{"removed " + filepath.Join(home, ".cache/kgviz") + " (", "MB freed", "not touched"} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not say %q:\n%s", want, out)
		}
	}
	t.Cleanup(func() { exec.Command("chmod", "-R", "u+w", home).Run() })
}
