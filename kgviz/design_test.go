package kgviz

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDesignNamesEveryFile: docs/design.md's map names every Go file of
// kgviz/ (by its path below kgviz/, or, in its own package's section, by its
// name), so that a new file cannot be left out of it.
func TestDesignNamesEveryFile(t *testing.T) {
	doc, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		path = filepath.ToSlash(path)
		if !strings.Contains(text, "`"+path+"`") && !strings.Contains(text, "`kgviz/"+path+"`") && !strings.Contains(text, "`"+filepath.Base(path)+"`") {
			t.Errorf("docs/design.md does not name %s", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
