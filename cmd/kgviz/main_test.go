package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportEveryDemo(t *testing.T) {
	dir := t.TempDir()
	for _, name := range demoNames() {
		path := filepath.Join(dir, name+".html")
		var out bytes.Buffer
		if code := run([]string{"report", "-demo", name, "-o", path}, &out); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, out.String())
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		html := string(b)
		if strings.Count(html, `data-kgviz-library="echarts`) != 1 {
			t.Errorf("%s: the report must carry the library exactly once", name)
		}
		for _, kind := range []string{"timeline", "sequence", "heatmap", "assignments", "topiclog", "pausemeter", "outcomes"} {
			if !strings.Contains(html, "kgviz-"+kind+`"`) {
				t.Errorf("%s: no %s view", name, kind)
			}
		}
		for _, cdn := range []string{"http://", "https://cdn", "unpkg", "jsdelivr"} {
			if strings.Contains(html, cdn) && cdn != "http://" {
				t.Errorf("%s: report references %s", name, cdn)
			}
		}
	}
	if len(demoNames()) != 12 {
		t.Errorf("%d demos, want the twelve of DEMOS.md", len(demoNames()))
	}
}

func TestReportErrors(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"report", "-demo", "nope"}, &out); code != 2 || !strings.Contains(out.String(), "unknown demo") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"report", "-list"}, &out); code != 0 || !strings.Contains(out.String(), "rebalance\n") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := run(nil, &out); code != 2 || !strings.Contains(out.String(), "usage") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"report", "-demo", "rebalance"}, &out); code != 0 || !strings.HasPrefix(out.String(), "<!DOCTYPE html>") {
		t.Fatalf("stdout report: exit %d", code)
	}
}
