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

// overBudget are the functions still over maxCyclomatic (file and name: their
// complexity today): none may grow, and none may join them. A function split
// below the budget leaves the list (the test says so). Why each stays:
//
//   - Ports of Kafka's assignors, kept step for step in the order of Kafka's
//     class so that a reader (and the differential tests) can follow them
//     against it: constrained (AbstractStickyAssignor.ConstrainedAssignmentBuilder)
//     and general (AbstractStickyAssignor.GeneralAssignmentBuilder); a split
//     must follow Kafka's own helper methods, as resolveClaims,
//     serverRangeAssignor.Assign and uniformHomogeneous were split.
//   - Test drivers and the tests' reference implementations (the _test.go
//     files): one branch a scripted step or generated case.
var overBudget = map[string]int{
	"random_share_test.go runShareScript":                                 36, // the random driver's operation switch
	"settled_test.go referenceComputeSettled":                             33,
	"modern/target_assignment_ref_test.go referenceBuildTargetAssignment": 34,
	"sticky_constrained.go constrained":                                   35,
	"sticky_page_rule_test.go pageStickyRule":                             38,
	"server_differential_test.go TestDifferentialReconcileMember":         39,
	"differential_test.go randomDiffGroup":                                43,
	"sticky_general.go general":                                           48,
	"random_test.go runScript":                                            70,
}

// TestCyclomaticComplexity fails when a function of kgviz/ (tests too)
// branches more than maxCyclomatic times, naming it: split it where Kafka's
// code or the story splits.
func TestCyclomaticComplexity(t *testing.T) {
	var over []string
	seen := map[string]bool{}
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
				key := filepath.ToSlash(path) + " " + fn.Name.Name
				c := cyclomatic(fn)
				budget, listed := overBudget[key]
				seen[key] = true
				switch {
				case listed && c > budget:
					over = append(over, fmt.Sprintf("%d %s %s (grew from %d)", c, fn.Name.Name, fset.Position(fn.Pos()), budget))
				case listed && c <= maxCyclomatic:
					over = append(over, fmt.Sprintf("%s is now %d: take it off overBudget", key, c))
				case !listed && c > maxCyclomatic:
					over = append(over, fmt.Sprintf("%d %s %s", c, fn.Name.Name, fset.Position(fn.Pos())))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range overBudget {
		if !seen[key] {
			over = append(over, key+" is gone: take it off overBudget")
		}
	}
	sort.Strings(over)
	if len(over) > 0 {
		t.Errorf("cyclomatic complexity over %d (gocyclo -over %d kgviz/), or overBudget out of date:\n%s", maxCyclomatic, maxCyclomatic,
			strings.Join(over, "\n"))
	}
}
