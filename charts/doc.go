// Package charts draws a kgviz world: every view is a pure function of the
// world's recorded events (a Source; *kgviz.World is one) and a few options,
// rendered three ways from the same data: a live Apache ECharts chart, a
// static SVG drawn in Go, and, for the assignment table, plain HTML.
//
// # Views
//
//   - Timeline: one lane per member (and one for the coordinator B1): what
//     the member's application thread does tick by tick, zombie periods,
//     crashes, restarts and generation changes (ECharts custom series).
//   - Sequence: lanes C1, B1, C2, ... with one arrow per request and
//     response; Families and Ticks filter it, a zoom scrolls it.
//   - Heatmap: partitions × ticks, coloured by owner, paused cells hatched.
//   - TopicLog: the cells of invoices-0 (or any log), their transactional
//     state, duplicates, the high watermark, the LSO and the audit reader.
//   - PauseMeter and Outcomes: meters of one or more worlds side by side.
//   - Assignments: the assignment per generation, as an HTML table.
//
// Every view returns a *Chart with Display (one call shows it in a GoNB
// cell), HTML (a fragment), Page/WritePage (a standalone offline page), SVG
// and OptionJSON. NewReport puts several charts on one page.
//
// Heatmap, PauseMeter and Outcomes build their option with go-echarts
// v2.7.3's option model (charts.NewHeatMap, NewLine, NewBar); the result is
// then converted to a plain map to add what go-echarts has no field for
// (markLines on a category axis, decals, aria descriptions, function
// references) and marshalled with sorted keys. Timeline, Sequence and
// TopicLog are custom series with renderItem functions, whose options are
// assembled directly ("raw"). Nothing of go-echarts' page rendering is used:
// not its templates, not its random ids, and never its CDN asset host.
//
// # Loading ECharts: once per page, offline
//
// The library (ECharts 6.1.0, 1.12 MB, Apache-2.0, vendored from npm into
// assets/ and embedded with go:embed) is never fetched from a network. It
// travels inside the page, in one <script> block (LibraryHTML) that
//
//   - does nothing when window.echarts already exists (a second copy costs
//     bytes, never a second initialisation);
//   - runs the library inside (function(define,exports,module){...}).call(window),
//     so that under RequireJS (classic Notebook, nbconvert's HTML export) the
//     UMD build still sets window.echarts instead of registering an anonymous
//     AMD module;
//   - then draws every chart that was waiting for it (window.__kgvizQ).
//
// Each chart's own output is a <div> holding the static SVG picture (an
// <img> with a data URI, which sanitizers keep) and a small script, wrapped
// in an IIFE (no global let, no collisions when a cell runs again), that
// draws at once if window.echarts exists and otherwise queues itself. The
// picture is removed only once the live chart has drawn, so untrusted
// notebooks, GitHub, nbviewer and pages without scripts still show it.
// Element ids are fresh per render (hash of the content + a counter + in a
// notebook a per-process salt), so re-running a cell never reuses one.
//
// Who carries the library:
//
//   - Page, WritePage, Report: the page's <head>, exactly once.
//   - Display in GoNB (Library = LibraryAuto, the default): every cell is a
//     fresh process, so "first" is decided per kernel: the first output of
//     the kernel session that shows a chart carries the library and leaves a
//     marker file in the kernel's $GONB_TMP_DIR; later outputs (any cell)
//     carry only their chart. Setup() emits the library unconditionally and
//     sets the marker: call it in a notebook's first code cell. Outputs that
//     come earlier in the document than the library (cells run out of
//     order) queue and draw when it arrives.
//   - LibraryAlways makes every output self-contained (1.12 MB each);
//     LibraryNever assumes the page provides window.echarts.
//
// Limits of LibraryAuto: the library lives in one output. If that output is
// cleared or its cell re-run (the new output then has no library, as the
// marker says it was sent), a page opened later from the saved notebook
// lacks the library and shows the static pictures until Setup() runs
// again; so does a browser reload of an unsaved notebook while the kernel
// keeps running. A kernel restart removes the marker's directory, so the
// next chart carries the library again. A notebook executed top to bottom
// (nbconvert --execute, "Run All") carries exactly one copy, in its first
// chart output or in the Setup cell.
//
// # Sizes (measured by TestSizes on demo worlds, go test ./charts -run TestSizes -v)
//
// One chart's own output (fragment: picture + option + script, library
// excluded) is at most about 54 KB (a 143-tick transactional sequence
// diagram) and typically 10–45 KB; the tests fail above 60 KB. The largest
// SVG is about 29 KB (limit 100 KB). The library block is 1,122,389 bytes.
// A notebook with ten charts therefore carries one library plus ten
// fragments, about 1.5 MB, instead of ten libraries (11 MB).
//
// # Safety and accessibility
//
// Member names and all other text are escaped for their context: HTML text
// and attributes (html.EscapeString), JSON inside <script> (encoding/json
// escapes <, >, & and U+2028/U+2029, so nothing can close the script or
// start a comment), SVG (XML escaping), and tooltips built in the browser
// (escaped again before they become HTML). Colours follow the Okabe–Ito
// palette, never carry meaning alone (labels, dashes, legends, hatching),
// and every chart has a title, axis names in Kafka's words and an ECharts
// aria description that also serves as the picture's alt text.
//
// Browser tests (headless Chromium, network blocked, with and without
// RequireJS, JupyterLab-like and classic-Notebook-like insertion, sanitized
// output) live in charts/browsertest: see its README.md.
package charts
