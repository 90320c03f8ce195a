package charts

import (
	"html"
	"os"
	"strings"
)

// escHTML escapes text for HTML element content and quoted attribute values.
func escHTML(s string) string { return html.EscapeString(s) }

const pageCSS = `body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;max-width:1000px;color:#222;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}
.kgviz{margin:12px 0}
table.kgviz-table{border-collapse:collapse;font-size:13px}
table.kgviz-table caption{font-weight:bold;text-align:left;margin-bottom:4px}
table.kgviz-table th,table.kgviz-table td{border:1px solid #bbb;padding:3px 8px;text-align:left;vertical-align:top}
table.kgviz-table th{background:#f2f2f2}
`

// pageHTML wraps bodies in a standalone, offline HTML document that carries
// the ECharts library once, in its head.
func pageHTML(title string, withLibrary bool, body string) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + escHTML(title) + "</title>\n<style>" + pageCSS + "</style>\n")
	if withLibrary {
		b.WriteString(libraryHTML)
	}
	b.WriteString("</head>\n<body>\n")
	b.WriteString(body)
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// Page returns a standalone HTML page that shows the chart and works offline:
// the ECharts library is inside the page.
func (c *Chart) Page() string {
	return pageHTML(c.title, c.option != nil, c.HTML())
}

// WritePage writes Page() to path.
func (c *Chart) WritePage(path string) error {
	return os.WriteFile(path, []byte(c.Page()), 0o644)
}

// Report is a standalone HTML page with headings, text and several charts,
// which carries the ECharts library once for all of them.
type Report struct {
	title string
	parts []string
	live  bool
}

// NewReport starts a report page with a title (shown as its <h1>).
func NewReport(title string) *Report {
	return &Report{title: title, parts: []string{"<h1>" + escHTML(title) + "</h1>\n"}}
}

// Heading adds a section heading.
func (r *Report) Heading(text string) *Report {
	r.parts = append(r.parts, "<h2>"+escHTML(text)+"</h2>\n")
	return r
}

// Text adds a paragraph of plain text (escaped).
func (r *Report) Text(text string) *Report {
	r.parts = append(r.parts, "<p>"+escHTML(text)+"</p>\n")
	return r
}

// Add adds charts, in order.
func (r *Report) Add(charts ...*Chart) *Report {
	for _, c := range charts {
		if c == nil {
			continue
		}
		r.parts = append(r.parts, c.HTML())
		if c.option != nil {
			r.live = true
		}
	}
	return r
}

// HTML returns the report as a standalone, offline HTML page.
func (r *Report) HTML() string {
	return pageHTML(r.title, r.live, strings.Join(r.parts, ""))
}

// WriteFile writes HTML() to path.
func (r *Report) WriteFile(path string) error {
	return os.WriteFile(path, []byte(r.HTML()), 0o644)
}
