package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `kgviz -h` lists every command in a line with an example, and the example
// is a command line kgviz accepts.
func TestHelpListsEveryCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-h"}, &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Fatalf("kgviz -h: exit %d, stderr %q", code, errOut.String())
	}
	help := out.String()
	for _, c := range commands {
		if !strings.Contains(help, "  "+c.name+" ") || !strings.Contains(help, c.summary) || !strings.Contains(help, "e.g. "+c.example) {
			t.Errorf("kgviz -h does not describe %q with its example:\n%s", c.name, help)
		}
		if !strings.Contains(c.example, "kgviz "+c.name) {
			t.Errorf("%s's example %q does not run kgviz %s", c.name, c.example, c.name)
		}
	}
	for _, want := range []string{"1 rebalance", "2 range", "12 fencing", "kgviz COMMAND -h"} {
		if !strings.Contains(help, want) {
			t.Errorf("kgviz -h does not show %q:\n%s", want, help)
		}
	}
	// report's example runs as shown (into a temporary folder).
	c, _ := lookupCommand("report")
	args := strings.Fields(strings.SplitN(c.example, "(", 2)[0])[1:]
	dir := t.TempDir()
	args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
	out.Reset()
	if code := run(args, &out, &errOut); code != 0 {
		t.Errorf("%v: exit %d: %s", args, code, errOut.String())
	}
}

// report takes a demo's number or its name, says which flag is missing and
// names the file it wrote.
func TestReportDemoByNumberOrName(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		demo, title string
	}{
		{"2", "Demo 2: range, eager"},
		{"range", "Demo 2: range, eager"},
		{"12", "Demo 12: zombie fencing"},
		{"12a", "Demo 12: zombie fencing"},
		{"1", "Demo 1: a rebalance"},
		{" Cooperative ", "Demo 3: cooperative-sticky"},
	} {
		path := filepath.Join(dir, "x.html")
		os.Remove(path)
		var out, errOut bytes.Buffer
		code := run([]string{"report", "-demo", tc.demo, "-o", path}, &out, &errOut)
		if code != 0 || errOut.Len() != 0 {
			t.Errorf("-demo %q: exit %d, stderr %q", tc.demo, code, errOut.String())
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("-demo %q: %v", tc.demo, err)
			continue
		}
		if !strings.Contains(string(b), tc.title) {
			t.Errorf("-demo %q: the page is not %q", tc.demo, tc.title)
		}
		want := "wrote " + path + " (" + tc.title
		if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), "bytes") {
			t.Errorf("-demo %q: stdout %q, want it to start %q", tc.demo, out.String(), want)
		}
	}
}

func TestReportMessages(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stderr []string
	}{
		{[]string{"report"}, 2, []string{"missing -demo", "usage: kgviz report -demo N|NAME", "demos: 1 rebalance, 2 range"}},
		{[]string{"report", "-o", "x.html"}, 2, []string{"missing -demo"}},
		{[]string{"report", "-demo", "0"}, 2, []string{`unknown demo "0"`, "12 fencing"}},
		{[]string{"report", "-demo", "99"}, 2, []string{`unknown demo "99"`}},
		{[]string{"report", "-demo", "nope"}, 2, []string{`unknown demo "nope"`, "1 rebalance"}},
		{[]string{"report", "-demo", "13"}, 2, []string{`demo "13": notebook 13-kip-848-the-consumer-group-protocol has no report`}},
		{[]string{"report", "-demo", "12b"}, 2, []string{"12b-fencing-the-group-generation has no report"}},
		{[]string{"report", "-demo"}, 2, []string{"flag needs an argument: -demo"}},
		{[]string{"report", "2"}, 2, []string{`unexpected argument "2"`, "-demo N"}},
		{[]string{"report", "-h"}, 0, []string{"usage: kgviz report", "number (1-12"}},
		{[]string{"report", "-demo", "2", "-o", filepath.Join(t.TempDir(), "no", "such", "x.html")}, 1, []string{"no such file or directory"}},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		if code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, code, tc.code, errOut.String())
		}
		if out.Len() != 0 {
			t.Errorf("%q: stdout %q, want nothing (messages go to stderr)", tc.args, clip(out.String(), 200))
		}
		for _, want := range tc.stderr {
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("%q: stderr %q, want %q", tc.args, errOut.String(), want)
			}
		}
	}
	var out bytes.Buffer
	if code := run([]string{"report", "-list"}, &out, &out); code != 0 || !strings.HasPrefix(out.String(), "1   rebalance      Demo 1: a rebalance") ||
		!strings.Contains(out.String(), "\n12  fencing        Demo 12: zombie fencing\n") {
		t.Errorf("report -list: exit %d:\n%s", code, out.String())
	}
}
