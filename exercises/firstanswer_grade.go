//go:build kgvizgrade

package exercises

// displayHTML does nothing in kgviz grade's sandbox (firstanswer_display.go).
func displayHTML(string) {}
