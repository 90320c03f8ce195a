package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// An answer cell is accepted only as Go declarations: functions, types,
// variables, constants and imports of the standard library or the kgviz
// module. No GoNB command (%..., !...), no init or main, no compiler
// directive, no cgo. Accepted cells are written as files of a package main
// whose main serves the answer functions (exercises/pipe): the student's code
// never runs in the grader.

const modulePath = "github.com/kgviz/kgviz"

// moduleImports are the packages of the kgviz module an answer may use
// (they are in the sandbox's read-only copy of the module).
var moduleImports = map[string]string{
	"kgviz":     modulePath + "/kgviz",
	"exercises": modulePath + "/exercises",
}

// answerCell is one answer cell, checked.
type answerCell struct {
	exID     string
	file     string // "ex02_1.go"
	label    string // the file name compile errors use: "answer-ex02-1"
	source   string // the cell as the student wrote it
	file0    *ast.File
	names    map[string]string // top-level names → "func", "var", "type", "const"
	initVars bool              // package-level variables with initialisers that call something
	rejected string            // why the cell is not used (empty: accepted)
	notes    []string
}

var (
	stdOnce sync.Once
	stdPkgs map[string]string // last path element → import path ("rand" → "math/rand")
	stdAll  map[string]bool
)

// stdlib lists the standard library of the Go toolchain that builds the
// answers, as goimports would resolve a bare "strings." or "rand.".
func stdlib(goBin string) (map[string]string, map[string]bool) {
	stdOnce.Do(func() {
		stdPkgs, stdAll = map[string]string{}, map[string]bool{}
		out, err := exec.Command(goBin, "list", "std").Output()
		if err != nil {
			for _, p := range []string{"bytes", "errors", "fmt", "maps", "math", "math/rand", "os", "slices", "sort", "strconv", "strings", "sync", "time", "unicode"} {
				stdAll[p] = true
				stdPkgs[path.Base(p)] = p
			}
			return
		}
		for _, p := range strings.Fields(string(out)) {
			if strings.Contains(p, "internal") || strings.HasPrefix(p, "vendor/") || strings.HasPrefix(p, "cmd/") {
				continue
			}
			stdAll[p] = true
			base := path.Base(p)
			if regexp.MustCompile(`^v\d+$`).MatchString(base) {
				continue
			}
			// Prefer what goimports prefers: the shorter path (math/rand over crypto/rand, text/template over html/template).
			if cur, ok := stdPkgs[base]; !ok || preferStd(p, cur) {
				stdPkgs[base] = p
			}
		}
	})
	return stdPkgs, stdAll
}

func preferStd(p, cur string) bool {
	prefer := map[string]bool{"math/rand": true, "text/template": true, "crypto/rand": false}
	if prefer[p] {
		return true
	}
	if prefer[cur] {
		return false
	}
	return len(p) < len(cur)
}

var (
	magicLine   = regexp.MustCompile(`^\s*[%!]`)
	packageLine = regexp.MustCompile(`^\s*package\s+main\s*(//.*)?$`)
)

// parseAnswer checks one answer cell's source and parses it.
func parseAnswer(exID, source string, std map[string]bool) *answerCell {
	a := &answerCell{exID: exID, file: strings.ReplaceAll(exID, "-", "_") + ".go", label: "answer-" + exID, source: source, names: map[string]string{}}
	lines := strings.Split(source, "\n")
	for i, line := range lines {
		if packageLine.MatchString(line) {
			lines[i] = "" // GoNB adds it; so does the grader
			source = strings.Join(lines, "\n")
			a.source = source
			continue
		}
		if magicLine.MatchString(line) {
			a.rejected = fmt.Sprintf("line %d is a GoNB command (%s): answer cells may hold Go declarations only", i+1, clip(strings.TrimSpace(line), 40))
			return a
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, a.label, "package main\n"+source, parser.ParseComments)
	if err != nil {
		var list scanner.ErrorList
		msg := err.Error()
		if errorsAs(err, &list) && len(list) > 0 {
			msg = fmt.Sprintf("line %d: %s", list[0].Pos.Line-1, list[0].Msg)
		}
		a.rejected = "syntax error, " + msg
		return a
	}
	a.file0 = f
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			t := c.Text
			if strings.HasPrefix(t, "//go:") || strings.HasPrefix(t, "//line ") || strings.HasPrefix(t, "/*line ") || strings.Contains(t, "#cgo") {
				a.rejected = fmt.Sprintf("line %d: compiler directives (%s) are not allowed in an answer cell", fset.Position(c.Pos()).Line-1, clip(t, 30))
				return a
			}
		}
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		switch {
		case p == "C":
			a.rejected = "cgo (import \"C\") is not allowed in an answer cell"
			return a
		case std[p], p == moduleImports["kgviz"], p == moduleImports["exercises"]:
		default:
			a.rejected = fmt.Sprintf("import %q: answer cells may use the standard library and kgviz (%s, %s) only", p, moduleImports["kgviz"], moduleImports["exercises"])
			return a
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				switch d.Name.Name {
				case "init":
					a.rejected = "func init is not allowed in an answer cell: it would run before any check (answer cells declare functions, types, variables and constants)"
					return a
				case "main":
					a.rejected = "func main is not allowed in an answer cell (answer cells declare functions, types, variables and constants)"
					return a
				}
				a.names[d.Name.Name] = "func"
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch sp := spec.(type) {
				case *ast.ValueSpec:
					kind := "var"
					if d.Tok == token.CONST {
						kind = "const"
					}
					for _, n := range sp.Names {
						if n.Name != "_" {
							a.names[n.Name] = kind
						}
					}
					if kind == "var" {
						for _, v := range sp.Values {
							ast.Inspect(v, func(n ast.Node) bool {
								if _, ok := n.(*ast.CallExpr); ok {
									a.initVars = true
								}
								return true
							})
						}
					}
				case *ast.TypeSpec:
					a.names[sp.Name.Name] = "type"
				}
			}
		default:
			a.rejected = "the cell holds something that is not a declaration"
			return a
		}
	}
	for _, shadow := range []string{"exercises", "kgviz"} {
		if _, ok := a.names[shadow]; ok {
			a.notes = append(a.notes, fmt.Sprintf("the answer cell declares %q, the name of a kgviz package (ignored: the checks run in the grader)", shadow))
		}
	}
	return a
}

func errorsAs(err error, list *scanner.ErrorList) bool {
	l, ok := err.(scanner.ErrorList)
	if ok {
		*list = l
	}
	return ok
}

func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// goSource writes an accepted cell as a Go file: line 1 holds the package
// clause and the imports (the explicit ones the cell uses, plus the packages
// its unresolved names stand for, as GoNB's goimports would add them), then a
// //line directive so that compile errors name the cell and its own line
// numbers. declared holds the top-level names of every accepted cell of the
// notebook: those are never mistaken for packages.
func (a *answerCell) goSource(declared map[string]bool, stdByName map[string]string) string {
	f := a.file0
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	imports := map[string]string{} // name → path
	var dot []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch {
		case name == ".":
			dot = append(dot, p)
		case name == "_":
		case used[name]:
			imports[name] = p
		}
	}
	for _, id := range f.Unresolved {
		n := id.Name
		if !used[n] || declared[n] || imports[n] != "" {
			continue
		}
		if p, ok := moduleImports[n]; ok {
			imports[n] = p
		} else if p, ok := stdByName[n]; ok {
			imports[n] = p
		}
	}
	var specs []string
	for _, n := range sortedKeys(imports) {
		if path.Base(imports[n]) == n {
			specs = append(specs, strconv.Quote(imports[n]))
		} else {
			specs = append(specs, n+" "+strconv.Quote(imports[n]))
		}
	}
	for _, p := range dot {
		specs = append(specs, ". "+strconv.Quote(p))
	}
	// The cell's own import declarations become blank lines.
	body := []byte(a.source)
	fset := token.NewFileSet()
	g, _ := parser.ParseFile(fset, a.label, "package main\n"+a.source, 0)
	offset := len("package main\n")
	for _, d := range g.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			from, to := fset.Position(gd.Pos()).Offset-offset, fset.Position(gd.End()).Offset-offset
			for i := from; i < to && i < len(body); i++ {
				if body[i] != '\n' {
					body[i] = ' '
				}
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("package main")
	if len(specs) > 0 {
		b.WriteString("; import (" + strings.Join(specs, "; ") + ")")
	}
	b.WriteString("\n//line " + a.label + ":1\n")
	b.Write(body)
	b.WriteString("\n")
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// mainSource is the program's main: it serves the answer functions. lines
// maps each line of it to the answer name it serves (for compile errors).
func mainSource(names []string) (string, map[int]string) {
	var b strings.Builder
	b.WriteString("// Generated by kgviz grade: serves the answer functions to the grader.\n\npackage main\n\nimport kgvizpipe \"" + modulePath + "/exercises/pipe\"\n\nfunc main() {\n\tkgvizpipe.Serve(map[string]any{\n")
	lines := map[int]string{}
	for _, n := range names {
		lines[strings.Count(b.String(), "\n")+1] = n
		fmt.Fprintf(&b, "\t\t%q: %s,\n", n, n)
	}
	b.WriteString("\t})\n}\n")
	return b.String(), lines
}

// compileError is one line of `go build`'s output that names an answer cell.
var compileLine = regexp.MustCompile(`^(?:\./|/src/)?(answer-ex[\w-]+|ex\w+\.go|main\.go):(\d+)(?::(\d+))?: (.*)$`)

// attribute maps go build's output to cells: the first message for each.
// mainNames maps a line of main.go to the answer name it references.
func attribute(output string, cells []*answerCell, mainNames map[int]string) (map[*answerCell]string, string) {
	out := map[*answerCell]string{}
	var unattributed string
	for _, line := range strings.Split(output, "\n") {
		m := compileLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			if l := strings.TrimSpace(line); unattributed == "" && l != "" && !strings.HasPrefix(l, "#") {
				unattributed = l
			}
			continue
		}
		file, lineNo, msg := m[1], m[2], m[4]
		var cell *answerCell
		if file == "main.go" {
			n, _ := strconv.Atoi(lineNo)
			name := mainNames[n]
			for _, c := range cells {
				if _, ok := c.names[name]; ok {
					cell = c
				}
			}
			if cell != nil {
				msg = fmt.Sprintf("%s cannot be served as an answer function: %s", name, msg)
			}
		} else {
			for _, c := range cells {
				if c.label == file || c.file == file {
					cell = c
				}
			}
			if cell != nil && file == cell.label {
				msg = "line " + lineNo + ": " + msg
			}
		}
		if cell == nil {
			if unattributed == "" {
				unattributed = strings.TrimSpace(line)
			}
			continue
		}
		if _, seen := out[cell]; !seen {
			out[cell] = msg
		}
	}
	return out, unattributed
}
