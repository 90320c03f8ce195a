package main

import (
	"strings"
	"unicode"
)

// What the grader prints or writes quotes the submissions: their file and
// folder names, and messages that quote their code. None of it may act on
// the teacher's terminal or spreadsheet:
//
//   - cleanText drops control characters (C0, DEL and C1: the ESC of a
//     terminal escape sequence, a carriage return that rewrites a line) and
//     the Unicode bidirectional controls (U+202A–U+202E, U+2066–U+2069,
//     U+200E, U+200F, U+061C) that make a name read otherwise than it is;
//     newlines and tabs become spaces (one line per printed row or CSV cell);
//   - csvCell also neutralises a cell that a spreadsheet would take for a
//     formula (OWASP "CSV injection"): one starting with = + - @, a tab or a
//     carriage return gets a leading apostrophe, which spreadsheets show as
//     text and do not display.

func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case unicode.IsControl(r), isBidiControl(r):
			return -1
		}
		return r
	}, s)
}

func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// csvCell is a gradebook or totals cell: clean, and never a formula.
func csvCell(s string) string {
	first := ""
	if s != "" {
		first = s[:1]
	}
	s = cleanText(s)
	if first == "\t" || first == "\r" || (s != "" && strings.ContainsRune("=+-@", rune(s[0]))) {
		return "'" + s
	}
	return s
}

// csvRecords applies csvCell to every cell.
func csvRecords(records [][]string) [][]string {
	out := make([][]string, len(records))
	for i, r := range records {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = csvCell(c)
		}
	}
	return out
}
