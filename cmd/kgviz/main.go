// Command kgviz works with kgviz worlds outside a notebook.
//
//	kgviz report -demo 2 -o demo2.html   a standalone, offline HTML report of a demo world (number or name)
//	kgviz report -list                   the demos, numbered as the README and the notebooks number them
//	kgviz grade [flags] SUBMISSIONS      grade submitted notebooks in a sandbox, write CSV gradebooks
//	kgviz grade merge SHARD_DIR...       join the gradebooks of -shard i/n runs into one
//	kgviz release [flags] OUTDIR         write the students' repository: no answers, no grader
//	kgviz -h                             every command in a line, with an example
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
	"path/filepath"
	"sort"
	"strconv"
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

// command is one subcommand as `kgviz -h` lists it: what it does, in a
// line, and an example.
type command struct {
	name, summary, example string
}

// commands are the subcommands, in the order `kgviz -h` lists them.
var commands = []command{
	{"report", "write a demo's standalone, offline HTML page with every chart (timeline, sequence, heatmap, ...)",
		"kgviz report -demo 2 -o demo2.html    (demo by number 1-12 or name; -list lists them)"},
	{"grade", "grade submitted notebooks in a sandbox into gradebook.csv and totals.csv (-shard i/n + grade merge: many machines)",
		"KGVIZ_GRADE_KEY='a secret phrase' kgviz grade -out ~/grading/grades ~/grading/submissions"},
	{"release", "write the students' repository (notebooks without outputs, kgviz, the public checks; no answers, no grader)",
		"kgviz release -github teacher/kafka-class-2027 ../kafka-class-release"},
}

// lookupCommand returns the subcommand of that name.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(out io.Writer) {
	fmt.Fprintln(out, "kgviz: the kgviz course's command line (the notebooks need none of it)")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "commands:")
	for _, c := range commands {
		fmt.Fprintf(out, "  %-8s %s\n  %-8s   e.g. %s\n", c.name, c.summary, "", c.example)
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, reportUsage)
	fmt.Fprintln(out, "       "+gradeUsage())
	fmt.Fprintln(out, "       "+releaseUsage())
	fmt.Fprintln(out, "       kgviz COMMAND -h   (a command's flags)")
	fmt.Fprintln(out, "demos: "+demoList())
}

// demoList names the demos with their numbers: "1 rebalance, 2 range, ...".
func demoList() string {
	var l []string
	for i, n := range demoNames() {
		l = append(l, fmt.Sprintf("%d %s", i+1, n))
	}
	return strings.Join(l, ", ")
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

const reportUsage = "usage: kgviz report -demo N|NAME [-o out.html]   (kgviz report -list: the demos)"

// demoAliases are the notebooks' numbers of the demos that are not the
// position in DEMOS.md's list: notebook 12a is Demo 12's epoch fence.
var demoAliases = map[string]string{"12a": "fencing"}

// notebookOnly are the notebooks' numbers that have no report demo (yet).
var notebookOnly = map[string]string{
	"12b": "12b-fencing-the-group-generation",
	"13":  "13-kip-848-the-consumer-group-protocol",
	"14":  "14-capstone-exactly-once-billing",
	"15":  "15-share-groups-queues-on-kafka",
}

// findDemo resolves a demo by name or by number (1-12 as the README and the
// notebooks number them, 12a).
func findDemo(arg string) (string, demo, error) {
	key := strings.ToLower(strings.TrimSpace(arg))
	names := demoNames()
	name := key
	if n, ok := demoAliases[key]; ok {
		name = n
	} else if i, err := strconv.Atoi(key); err == nil && i >= 1 && i <= len(names) {
		name = names[i-1]
	}
	if d, ok := demos[name]; ok {
		return name, d, nil
	}
	if nb, ok := notebookOnly[key]; ok {
		return "", demo{}, fmt.Errorf("demo %q: notebook %s has no report; the reports are demos %s", arg, nb, demoList())
	}
	return "", demo{}, fmt.Errorf("unknown demo %q; demos: %s", arg, demoList())
}

func report(args []string, out, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("demo", "", "the demo: its number (1-12, as the README and the notebooks number them; 12a) or its name (see -list)")
	path := fs.String("o", "", "output file (default: the page on stdout)")
	list := fs.Bool("list", false, "list the demos: number, name and title")
	fs.Usage = func() {
		fmt.Fprintln(stderr, reportUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kgviz report: unexpected argument %q (flags come first: -demo N -o out.html)\n%s\n", fs.Arg(0), reportUsage)
		return 2
	}
	if *list {
		for i, n := range demoNames() {
			fmt.Fprintf(out, "%-3d %-14s %s\n", i+1, n, demos[n].title)
		}
		return 0
	}
	if *name == "" {
		fmt.Fprintf(stderr, "kgviz report: missing -demo (a number 1-12 or a name)\n%s\ndemos: %s\n", reportUsage, demoList())
		return 2
	}
	key, d, err := findDemo(*name)
	if err != nil {
		fmt.Fprintf(stderr, "kgviz report: %v\n", err)
		return 2
	}
	html, err := buildReport(key, d)
	if err != nil {
		fmt.Fprintf(stderr, "kgviz report: demo %q: %v\n", key, err)
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
	abs, err := filepath.Abs(*path)
	if err != nil {
		abs = *path
	}
	fmt.Fprintf(out, "wrote %s (%s, %d bytes): open it in a browser, it needs no network\n", abs, d.title, len(html))
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
