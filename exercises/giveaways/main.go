// Command giveaways prints, as JSON, every exercise's giveaways (see
// exercises.Exercise.Giveaways): {"ex04-1": ["..."], ...}. The course test
// tools/test_executed_notebooks.py searches the executed notebooks for them
// above each exercise.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/kgviz/kgviz/exercises"
)

func main() {
	out := map[string][]string{}
	for _, e := range exercises.All() {
		if e.Giveaways != nil {
			out[e.ID] = e.Giveaways()
		} else {
			out[e.ID] = nil
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "giveaways:", err)
		os.Exit(1)
	}
	fmt.Println(string(b))
}
