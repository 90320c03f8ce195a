//go:build !kgvizgrade

package exercises

import "github.com/janpfeifer/gonb/gonbui"

// displayHTML shows HTML in the notebook (nothing outside a GoNB kernel).
// kgviz grade builds answers with the tag kgvizgrade, without GoNB
// (firstanswer_grade.go): its sandbox holds no module but kgviz's own.
func displayHTML(html string) {
	if gonbui.IsNotebook {
		gonbui.DisplayHTML(html)
		gonbui.Sync() // GoNB drops output still in the pipe when the cell's program exits
	}
}
