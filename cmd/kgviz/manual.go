package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Explanations (=== explain in course; nbgrader "manually graded
// answers") are not graded by kgviz grade: the gradebook lists each with its
// maximum and an empty score marked "manual", and the grader writes, per
// student, a Markdown file with every explanation they handed in: the
// question (from the course copy), their answer, and the rubric from
// docs/instructor-guide.md (and the model answer from solutions/ when the
// checkout has it), for the teacher to grade.
//
// What the student wrote is hostile text. It is exported verbatim inside a
// fenced code block whose fence is longer than any run of backticks in it,
// so a Markdown viewer shows it as text (no HTML, no script, no heading of
// its own); control characters are dropped and an answer longer than
// maxAnswerRunes is cut, saying so. Student names and file names, which come
// from the submissions' paths, are escaped wherever they appear, and the
// file's own name keeps only safe characters.

const (
	manualDirName  = "manual"
	maxAnswerRunes = 20000
	guidePath      = "docs/instructor-guide.md"
)

// manualRows returns a submission's rows for the course's explanations.
func manualRows(s *submission) []gradeRow {
	var rows []gradeRow
	for _, ce := range s.course.explains {
		r := gradeRow{File: s.rel, Student: s.student, Course: s.course.name, Exercise: ce.id, Max: ce.points, Manual: true, graded: true}
		text, ok := s.explained[ce.id]
		switch {
		case !ok:
			r.Message = "manual: " + firstNonEmpty(s.missing[ce.id], "no answer") + "; nothing to grade"
		case strings.TrimSpace(text) == strings.TrimSpace(ce.prompt) || strings.TrimSpace(text) == "":
			r.Message = "manual: not answered (the cell still holds the prompt); nothing to grade"
		default:
			r.Answer, r.Answered = text, true
			r.Message = fmt.Sprintf("manual: graded by the teacher; the answer is in %s/%s (rubric in %s)", manualDirName, manualFileName(s.student), guidePath)
		}
		rows = append(rows, r)
	}
	return rows
}

// writeManual writes dir/<student>.md for every student with a manual row,
// and returns the files written. Files of students not in rows are left
// alone (the folder may hold a teacher's notes from an earlier run).
func writeManual(dir string, rows []gradeRow, courses []*course, module string) ([]string, error) {
	byStudent := map[string][]gradeRow{}
	for _, r := range rows {
		if r.Manual {
			byStudent[r.Student] = append(byStudent[r.Student], r)
		}
	}
	if len(byStudent) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	guide, _ := os.ReadFile(filepath.Join(module, guidePath))
	explains := map[string]courseExplain{} // course name + id → explain
	for _, c := range courses {
		for _, ce := range c.explains {
			explains[c.name+"\x00"+ce.id] = ce
		}
	}
	var written []string
	for _, student := range sortedKeys(byStudent) {
		rs := byStudent[student]
		sort.SliceStable(rs, func(i, j int) bool {
			if rs[i].Course != rs[j].Course {
				return rs[i].Course < rs[j].Course
			}
			return rs[i].Exercise < rs[j].Exercise
		})
		var b strings.Builder
		fmt.Fprintf(&b, "# Explanations of %s, graded by hand\n\n", mdEscape(student))
		fmt.Fprintf(&b, "Written by `kgviz grade` (rewritten at every run: keep your notes elsewhere). Score each answer with its rubric "+
			"and put the points in the gradebook, in the rows whose points are empty and whose message starts with \"manual\".\n")
		for _, r := range rs {
			ce := explains[r.Course+"\x00"+r.Exercise]
			// The course name and the id come from the course folder (trusted); the file name from the submission.
			fmt.Fprintf(&b, "\n---\n\n## %s · %s (%s points)\n\n", strings.TrimSuffix(r.Course, ".ipynb"), r.Exercise, fmtPoints(r.Max))
			fmt.Fprintf(&b, "Submitted file: %s\n\n", mdEscape(r.File))
			fmt.Fprintf(&b, "### Question\n\n%s\n\n", demoteHeadings(strings.TrimSpace(ce.question)))
			b.WriteString("### Answer\n\n")
			if r.Answered {
				b.WriteString(fenced(r.Answer))
			} else {
				// Escaped: the notes appended to the message may quote the submission's metadata.
				fmt.Fprintf(&b, "*%s*\n", mdEscape(strings.TrimPrefix(r.Message, "manual: ")))
			}
			b.WriteString("\n### Rubric\n\n")
			if rubric := rubricOf(string(guide), r.Exercise); rubric != "" {
				b.WriteString(demoteHeadings(rubric) + "\n")
			} else {
				fmt.Fprintf(&b, "See %s, section of %s.\n", guidePath, strings.TrimSuffix(r.Course, ".ipynb"))
			}
			if model := modelAnswer(module, r.Course, r.Exercise); model != "" {
				fmt.Fprintf(&b, "\n### Model answer (solutions/%s)\n\n%s\n", r.Course, demoteHeadings(model))
			}
		}
		path := filepath.Join(dir, manualFileName(student))
		if err := writeFileAtomic(path, b.String()); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}

// fenced renders hostile text as a fenced code block that shows it
// verbatim: the fence is longer than any run of backticks in the text, the
// text has no control characters but newlines and tabs, and it is cut at
// maxAnswerRunes.
func fenced(text string) string {
	text = strings.ToValidUTF8(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n"), "\uFFFD")
	text = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, text)
	cut := ""
	if n := utf8.RuneCountInString(text); n > maxAnswerRunes {
		text = string([]rune(text)[:maxAnswerRunes])
		cut = fmt.Sprintf("*[cut: %d more characters not shown; the whole answer is in the submitted notebook]*\n", n-maxAnswerRunes)
	}
	longest := 0
	for _, run := range regexp.MustCompile("`+").FindAllString(text, -1) {
		longest = max(longest, len(run))
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n" + cut
}

// mdEscape makes a name from a submission's path safe in Markdown text
// within a line (never at its start): no HTML, no emphasis, links or code
// spans of its own. '-' and '.' are left alone: they mean something only at
// the start of a line.
func mdEscape(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	s = r.Replace(s)
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune("\\`*_{}[]()#+!|~", c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// manualFileName is the export's file name for a student: the name's safe
// characters (ASCII letters, digits, - _ .), starting with a letter or a
// digit (a name like "-rf" would be an option to the teacher's rm, ls or
// grep; ".x" hidden); when anything had to change, "student_" in front when
// the name does not start with a letter or a digit, and a short hash of the
// name at the end (so that two names never share a file).
func manualFileName(student string) string {
	safe := strings.Map(func(r rune) rune {
		if r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, student)
	if len(safe) > 80 {
		safe = safe[:80]
	}
	if safe != student || safe == "" || !isAlnum(safe[0]) {
		if safe == "" || !isAlnum(safe[0]) {
			safe = "student_" + safe
		}
		sum := sha256.Sum256([]byte(student))
		safe = strings.TrimRight(safe, "._-") + "-" + hex.EncodeToString(sum[:4])
	}
	return safe + ".md"
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// demoteHeadings turns the headings of course text into headings below the
// export's own level (#### and lower).
func demoteHeadings(md string) string {
	lines := strings.Split(md, "\n")
	inFence := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(l, "#") {
			if n := len(l) - len(strings.TrimLeft(l, "#")); n <= 6 && strings.HasPrefix(l[n:], " ") {
				lines[i] = strings.Repeat("#", min(6, n+3)) + l[n:]
			}
		}
	}
	return strings.Join(lines, "\n")
}

var headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)

// rubricOf returns the rubric of exercise id in the instructor guide: the
// section under a heading that says "Rubric" and names the id (e.g.
// "#### Rubric ex01-4 (2 points)"), up to the next heading of its level or
// higher.
func rubricOf(guide, id string) string {
	lines := strings.Split(guide, "\n")
	idWord := regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(id) + `($|[^\w-])`)
	for i, l := range lines {
		m := headingLine.FindStringSubmatch(l)
		if m == nil || !strings.Contains(strings.ToLower(m[2]), "rubric") || !idWord.MatchString(m[2]) {
			continue
		}
		level := len(m[1])
		end := len(lines)
		for j := i + 1; j < len(lines); j++ {
			if n := headingLine.FindStringSubmatch(lines[j]); n != nil && len(n[1]) <= level {
				end = j
				break
			}
		}
		return strings.TrimSpace(strings.Join(lines[i+1:end], "\n"))
	}
	return ""
}

// modelAnswer returns the teacher's model answer of an explanation from the
// checkout's solutions/ copy of the notebook, or "".
func modelAnswer(module, courseName, id string) string {
	nb, err := readNotebook(filepath.Join(module, "solutions", courseName))
	if err != nil {
		return ""
	}
	for _, c := range nb.Cells {
		if g, grade, solution, _ := nbgrader(c); g == id && grade && solution {
			return strings.TrimSpace(cellSource(c))
		}
	}
	return ""
}

// writeFileAtomic writes a file whole or not at all.
func writeFileAtomic(path, text string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
