package exercises

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A claim about what Kafka or its Java client does, as docs/sources.md lists
// it: the notebook text that states it (Match, a Go regexp over one
// paragraph) and the source a reader can open (Cite: any one of these words
// in the same paragraph).
type sourcedFact struct {
	ID, Title string
	Match     *regexp.Regexp
	Cite      []string
}

// parseSources reads the facts of docs/sources.md: a "### Fnn · title"
// heading per fact, then "- match: `regexp`" and "- cite: `a`, `b`" lines.
func parseSources(text string) ([]sourcedFact, error) {
	var facts []sourcedFact
	head := regexp.MustCompile(`^### (F\d+) · (.+)$`)
	quoted := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(text, "\n") {
		if m := head.FindStringSubmatch(line); m != nil {
			facts = append(facts, sourcedFact{ID: m[1], Title: m[2]})
			continue
		}
		if len(facts) == 0 {
			continue
		}
		f := &facts[len(facts)-1]
		switch {
		case strings.HasPrefix(line, "- match: "):
			q := quoted.FindStringSubmatch(line)
			if q == nil {
				return nil, fmt.Errorf("%s: match without a `regexp`", f.ID)
			}
			re, err := regexp.Compile("(?i)" + q[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f.ID, err)
			}
			f.Match = re
		case strings.HasPrefix(line, "- cite: "):
			for _, q := range quoted.FindAllStringSubmatch(line, -1) {
				f.Cite = append(f.Cite, q[1])
			}
		}
	}
	for _, f := range facts {
		if f.Match == nil || len(f.Cite) == 0 {
			return nil, fmt.Errorf("%s (%s): a fact needs a match and a cite", f.ID, f.Title)
		}
	}
	return facts, nil
}

// paragraphs splits a notebook source's prose into paragraphs: the text of
// its Markdown cells and model answers, cut at blank lines (a fenced code
// block without blank lines is one paragraph), with line breaks as spaces.
func paragraphs(src string) []string {
	var out []string
	cells := regexp.MustCompile(`(?m)^=== (\w+)[^\n]*\n`)
	kinds := cells.FindAllStringSubmatch(src, -1)
	for i, body := range cells.Split(src, -1)[1:] {
		if k := kinds[i][1]; k != "markdown" && k != "model" {
			continue
		}
		for _, p := range regexp.MustCompile(`\n\s*\n`).Split(body, -1) {
			if p = strings.Join(strings.Fields(p), " "); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// guideSections appends to every paragraph of the instructor guide's
// per-notebook sections ("## 07 · ...") the words "(notebook 07)": what the
// guide says of a notebook is sourced where the notebook says it.
func guideSections(text string) string {
	var b strings.Builder
	head := regexp.MustCompile(`^## (\d\d[ab]?) · `)
	section := ""
	for _, p := range regexp.MustCompile(`\n\s*\n`).Split(text, -1) {
		if m := head.FindStringSubmatch(p); m != nil {
			section = m[1]
		} else if strings.HasPrefix(p, "## ") {
			section = ""
		}
		b.WriteString(p)
		if section != "" {
			b.WriteString(" (notebook " + section + ")")
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// violations lists, for every paragraph of src that states a fact without
// one of its sources, "<fact>: <paragraph start>".
func violations(facts []sourcedFact, src string) []string {
	var out []string
	for _, p := range paragraphs(src) {
		for _, f := range facts {
			if !f.Match.MatchString(p) {
				continue
			}
			cited := false
			for _, c := range f.Cite {
				cited = cited || strings.Contains(p, c)
			}
			if !cited {
				loc := f.Match.FindStringIndex(p)
				from, to := max(0, loc[0]-60), min(len(p), loc[1]+60)
				out = append(out, fmt.Sprintf("%s (%s) without %s: …%s…", f.ID, f.Title, strings.Join(f.Cite, " or "), p[from:to]))
			}
		}
	}
	return out
}

// Every notebook paragraph (and every paragraph of the glossary, the cheat
// sheet and the instructor guide) that states a fact of docs/sources.md names
// its source (the kafka-clients class or the KIP), as the brief asks of every
// sentence about what Kafka or its Java client does (issue 24).
func TestNotebookClaimsCiteTheirSources(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "sources.md"))
	if err != nil {
		t.Fatal(err)
	}
	facts, err := parseSources(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) < 15 {
		t.Fatalf("docs/sources.md lists %d facts; the course makes more claims than that", len(facts))
	}
	srcs, _ := filepath.Glob(filepath.Join(repoRoot(), "notebooks", "src", "*.txt"))
	if len(srcs) < 16 {
		t.Fatalf("notebook sources: %v", srcs)
	}
	matched := map[string]bool{}
	// The glossary, the cheat sheet and the instructor guide are held to the
	// same rule, read as one Markdown cell each.
	for _, doc := range []string{"glossary.md", "cheat-sheet.md", "instructor-guide.md"} {
		srcs = append(srcs, filepath.Join(repoRoot(), "docs", doc))
	}
	for _, path := range srcs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, ".md") {
			text = append([]byte("=== markdown\n"), guideSections(string(text))...)
		}
		for _, v := range violations(facts, string(text)) {
			t.Errorf("%s: %s", filepath.Base(path), v)
		}
		for _, p := range paragraphs(string(text)) {
			for _, f := range facts {
				if f.Match.MatchString(p) {
					matched[f.ID] = true
				}
			}
		}
	}
	// A fact whose match finds nothing checks nothing: its pattern is stale.
	for _, f := range facts {
		if !matched[f.ID] {
			t.Errorf("docs/sources.md %s (%s): its match finds no paragraph of any notebook source", f.ID, f.Title)
		}
	}
}

// The check itself: a claim without its source is caught, one with it, or
// in a paragraph that does not state it, is not.
func TestSourcesCheckCatchesAnUncitedClaim(t *testing.T) {
	facts, err := parseSources("### F01 · close() commits only with auto-commit\n" +
		"- match: `close\\(\\)[^.]*commit`\n- cite: `maybeAutoCommitOffsetsSync`\n")
	if err != nil {
		t.Fatal(err)
	}
	bad := "=== markdown\n`consumer.close()` commits what it owes and sends LeaveGroup.\n"
	good := "=== markdown\n`consumer.close()` commits only with auto-commit (`maybeAutoCommitOffsetsSync`).\n"
	other := "=== markdown\nA crash is noticed by the session timeout.\n\n=== code\n// close() commits\n"
	if v := violations(facts, bad); len(v) != 1 {
		t.Errorf("uncited claim: %v", v)
	}
	if v := violations(facts, good); len(v) != 0 {
		t.Errorf("cited claim: %v", v)
	}
	if v := violations(facts, other); len(v) != 0 {
		t.Errorf("no claim in prose: %v", v)
	}
	if _, err := parseSources("### F02 · no pattern\n- cite: `X`\n"); err == nil {
		t.Error("a fact without a match is refused")
	}
}
