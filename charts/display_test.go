package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func resetLibrary() {
	libMu.Lock()
	libSent = false
	libMu.Unlock()
}

// The library goes into the first output of a kernel session only; a new
// cell (a new process) sees the marker in $GONB_TMP_DIR.
func TestDisplayLibraryOnce(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GONB_TMP_DIR", dir)
	defer resetLibrary()
	resetLibrary()
	w := world(t, "rebalance")
	first := displayHTML(Timeline(w), Heatmap(w))
	if strings.Count(first, "data-kgviz-library") != 1 {
		t.Fatal("the first output must carry the library once")
	}
	if strings.Index(first, "data-kgviz-library") > strings.Index(first, "kgviz-timeline") {
		t.Fatal("the library must come before the charts")
	}
	second := displayHTML(Sequence(w))
	if strings.Contains(second, "data-kgviz-library") {
		t.Fatal("a later output of the same cell carries the library again")
	}
	if _, err := os.Stat(filepath.Join(dir, ".kgviz-echarts-"+EChartsVersion)); err != nil {
		t.Fatal("no marker written")
	}
	resetLibrary() // the next cell: a fresh process
	if strings.Contains(displayHTML(Sequence(w)), "data-kgviz-library") {
		t.Fatal("a later cell carries the library again")
	}
	if strings.Contains(displayHTML(Assignments(w)), "data-kgviz-library") {
		t.Fatal("an HTML-only view carries the library")
	}
}

func TestDisplayPolicies(t *testing.T) {
	t.Setenv("GONB_TMP_DIR", "")
	defer func() { Library = LibraryAuto; resetLibrary() }()
	w := world(t, "rebalance")
	resetLibrary()
	if !strings.Contains(displayHTML(Timeline(w)), "data-kgviz-library") {
		t.Fatal("auto without a kernel dir: first output carries the library")
	}
	Library = LibraryAlways
	for i := 0; i < 2; i++ {
		if !strings.Contains(displayHTML(Timeline(w)), "data-kgviz-library") {
			t.Fatal("always: every output carries the library")
		}
	}
	Library = LibraryNever
	resetLibrary()
	if strings.Contains(displayHTML(Timeline(w)), "data-kgviz-library") {
		t.Fatal("never: no output carries the library")
	}
	// Outside a notebook these are no-ops and write nothing anywhere.
	Timeline(w).Display()
	DisplayAll(Timeline(w))
	Setup()
}
