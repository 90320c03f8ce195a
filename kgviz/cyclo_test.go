package kgviz_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxCyclomatic is the most a function of kgviz/ may branch (issue 25:
// `gocyclo -over 25 kgviz/` prints nothing).
const maxCyclomatic = 25

// cyclomatic is gocyclo's count (github.com/fzipp/gocyclo v0.6.0, without
// its dependency): 1, plus one for each if, for, range, non-default case of
// a switch or select, && and ||, function literals counted in the function
// that holds them.
func cyclomatic(fn *ast.FuncDecl) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil {
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil {
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// TestCyclomaticComplexity fails when a function of kgviz/ (tests too)
// branches more than maxCyclomatic times, naming it: split it where Kafka's
// code or the story splits.
func TestCyclomaticComplexity(t *testing.T) {
	var over []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				if c := cyclomatic(fn); c > maxCyclomatic {
					over = append(over, fmt.Sprintf("%d %s %s", c, fn.Name.Name, fset.Position(fn.Pos())))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(over)
	if len(over) > 0 {
		t.Errorf("cyclomatic complexity over %d (gocyclo -over %d kgviz/):\n%s", maxCyclomatic, maxCyclomatic,
			strings.Join(over, "\n"))
	}
}
