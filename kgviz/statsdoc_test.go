package kgviz_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kgviz/kgviz/kgviz"
)

// `go doc ./kgviz Stats` shows the alias's doc comment only: it must
// document the type, every field of fold.Stats by name, not just say
// "Stats = fold.Stats" (issue 24).
func TestStatsAliasDocumentsEveryField(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "stats.go", nil, parser.ParseComments)
	require.NoError(t, err)
	var doc string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Name.Name == "Stats" {
			doc = ts.Doc.Text()
		}
		return true
	})
	require.NotEmpty(t, doc, "the Stats alias has a doc comment")
	typ := reflect.TypeOf(kgviz.Stats{})
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		assert.Regexp(t, regexp.MustCompile(`(?m)^\s*`+name+`\s`), doc, "field %s is documented in the Stats alias's comment", name)
	}
	assert.Contains(t, doc, "String")
}
