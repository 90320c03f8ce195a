// Command kgviz works with kgviz worlds outside a notebook.
//
//	kgviz report -demo NAME -o out.html   a standalone, offline HTML report of a demo world
//	kgviz report -list                    the demo names
//	kgviz grade [flags] SUBMISSIONS       grade submitted notebooks in a sandbox, write CSV gradebooks
//	kgviz release [flags] OUTDIR          write the students' repository: no answers, no grader
//
// The report holds every view of the charts package (timeline, sequence
// diagram, partition heatmap, topic log, pause meter, outcomes, assignment
// table) and carries the ECharts library once; it needs no network.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/kgviz/kgviz/charts"
	"github.com/kgviz/kgviz/kgviz"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes a command line and returns the exit code. Results go to
// stdout (a report's HTML, a gradebook summary); usage and errors go to
// stderr, so that they never end up inside a redirected report.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "report":
		return report(args[1:], stdout, stderr)
	case "grade":
		return grade(args[1:], stdout, stderr)
	case "release":
		return release(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "kgviz: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(out io.Writer) {
	fmt.Fprintln(out, "usage: kgviz report -demo NAME [-o out.html]")
	fmt.Fprintln(out, "       kgviz report -list")
	fmt.Fprintln(out, "       "+gradeUsage())
	fmt.Fprintln(out, "       "+releaseUsage())
	fmt.Fprintln(out, "demos: "+strings.Join(demoNames(), " "))
}

func demoNames() []string {
	names := make([]string, 0, len(demos))
	for n := range demos {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return demoOrder(names[i]) < demoOrder(names[j]) })
	return names
}

var order = []string{"rebalance", "range", "cooperative", "commit-after", "commit-before", "leaving", "zombie",
	"idempotent", "reprocessing", "transactions", "lso", "fencing"}

func demoOrder(name string) int {
	for i, n := range order {
		if n == name {
			return i
		}
	}
	return len(order)
}

func report(args []string, out, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("demo", "", "demo world to report on (see -list)")
	path := fs.String("o", "", "output file (default: stdout)")
	list := fs.Bool("list", false, "list the demo names")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kgviz report: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *list {
		for _, n := range demoNames() {
			fmt.Fprintln(out, n)
		}
		return 0
	}
	d, ok := demos[*name]
	if !ok {
		fmt.Fprintf(stderr, "kgviz report: unknown demo %q; demos: %s\n", *name, strings.Join(demoNames(), " "))
		return 2
	}
	html, err := buildReport(*name, d)
	if err != nil {
		fmt.Fprintf(stderr, "kgviz report: demo %q: %v\n", *name, err)
		return 1
	}
	if *path == "" {
		io.WriteString(out, html)
		return 0
	}
	if err := os.WriteFile(*path, []byte(html), 0o644); err != nil {
		fmt.Fprintf(stderr, "kgviz report: %v\n", err)
		return 1
	}
	fmt.Fprintf(out, "wrote %s (%d bytes)\n", *path, len(html))
	return 0
}

// buildReport renders every view of a demo world into one page.
func buildReport(name string, d demo) (string, error) {
	w := d.world()
	if err := w.Err(); err != nil {
		return "", err
	}
	r := charts.NewReport("kgviz report: " + d.title)
	r.Text(fmt.Sprintf("Demo world %q at tick %d: members %s; %s.", name, w.Now(), strings.Join(w.Members(), ", "), w.Stats()))
	r.Heading("Member timeline").Add(charts.Timeline(w))
	r.Heading("Sequence diagram").Add(charts.Sequence(w))
	r.Heading("Partition ownership").Add(charts.Heatmap(w))
	r.Heading("Assignment per generation").Add(charts.Assignments(w))
	r.Heading("Topic log").Add(charts.TopicLog(w))
	srcs := []charts.Source{charts.Named(name, w)}
	if d.compare != nil {
		others := d.compare()
		keys := make([]string, 0, len(others))
		for k := range others {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := others[k].Err(); err != nil {
				return "", fmt.Errorf("comparison world %q: %v", k, err)
			}
			srcs = append(srcs, charts.Named(k, others[k]))
		}
	}
	r.Heading("Pause meter").Add(charts.PauseMeter(srcs...))
	r.Heading("Duplicates, lost records, rejected requests").Add(charts.Outcomes(srcs...))
	return r.HTML(), nil
}

// world is the interface the report needs; *kgviz.World satisfies it.
var _ charts.Source = (*kgviz.World)(nil)
