// Package charts draws a kgviz world: every view is a pure function of the
// world's recorded events (a Source; *kgviz.World is one) and a few options,
// shown as a live Apache ECharts chart, a static SVG picture and, for the
// assignment table, plain HTML.
//
// # Views
//
//   - Timeline: one lane per member (and one for the coordinator B1): what
//     the member's application thread does tick by tick, zombie periods,
//     crashes, restarts, new generations, configuration changes.
//   - Sequence: lanes C1, B1, C2, ... with one arrow per request and
//     response; Families and Ticks filter it; the live chart shows the
//     whole run, or a long run's first ticks at a readable scale with a
//     slider for the rest.
//   - Heatmap: partitions × ticks, coloured by owner, paused cells hatched,
//     partitions an assignor left unassigned cross-hatched, a partition
//     held by several members of a share group (KIP-932) in stripes.
//   - TopicLog: the cells of invoices-0 (or any log), their transactional
//     state, what the audit reader sees twice, the high watermark, the LSO
//     and the reader's position.
//   - PauseMeter and Outcomes: meters of one or more worlds side by side.
//   - Assignments: the assignment per generation, as an HTML table.
//   - SharePartition: a share group's in-flight records (KIP-932), one row
//     per record, its state tick by tick (AVAILABLE, ACQUIRED, ACKNOWLEDGED,
//     ARCHIVED), the holder and delivery count, how each acquisition ended.
//
// Every view returns a *Chart with Display (one call shows it in a GoNB
// cell), HTML (a fragment), Page/WritePage (a standalone offline page), SVG
// and OptionJSON. NewReport puts several charts on one page.
//
// A world that stopped on an error shows the error on every chart (a red
// banner, a mark at its tick, the description); an empty world draws a
// frame that says so; every SetAssignor and SetIsolation is marked on the
// time charts.
//
// # Design: a view model, two thin renderers
//
// Each view is a view model computed once from package fold (the one place
// where figures are computed from events; World.Stats and the exercise
// checks read it too): lanes, spans, cells, messages, marks, legends, label
// places, the frame (title, legend, banners; frame.go). Two renderers read
// the same model and compute nothing of the content:
//
//   - <view>_echarts.go builds the ECharts option with go-echarts v2.7.3's
//     option model: charts.NewCustom with RenderItem for the timeline,
//     sequence and topic log, NewHeatMap, NewLine, NewBar, and opts.Title,
//     Legend, Grid, DataZoom, Toolbox, Aria. What go-echarts lacks goes
//     through one extension point, ext (echarts.go), a go-echarts
//     ConfigurationVisitor that wraps go-echarts' typed values in types
//     adding the missing fields; TestExtensionFieldsAreNew and
//     TestOptionShape fail when go-echarts' output shape changes.
//   - <view>_svg.go draws the picture.
//
// The JavaScript (each chart's boot, the renderItem functions, the
// tooltips, the label layout that follows zoom and width) lives in js/*.js,
// readable and commented, embedded with go:embed (js.go). An option refers
// to a function with opts.FuncOpts(name): js/boot.js replaces the string
// "__f__name__f__" by the view's function of that name; nothing is eval'd.
// js_test.go parses every file (node, or Chromium) and checks that every
// function an option names exists; the browser tests run them.
//
// Text is measured with DejaVu Sans' advance widths (textwidth_table.go,
// generated from the font by charts/internal/fontwidth), so layouts are
// computed in Go and tested: sequence labels never overlap (each takes a
// free place along its arrow, or only its tooltip names it; the live chart
// hides those that would overlap at its current zoom and width), mark
// labels take rows, topic log cells are as wide as their records' names.
//
// # Loading ECharts: once per page, offline
//
// The library (ECharts 6.1.0, 1.12 MB, Apache-2.0, vendored from npm into
// assets/ and embedded with go:embed) is never fetched from a network. It
// travels inside the page, in one <script> block (LibraryHTML, js/library.js)
// that
//
//   - does nothing when window.echarts already exists (a second copy costs
//     bytes, never a second initialisation);
//   - runs the library inside (function (define, exports, module) {...}).call(window),
//     so that under RequireJS (classic Notebook, nbconvert's HTML export) the
//     UMD build still sets window.echarts instead of registering an anonymous
//     AMD module;
//   - then draws every chart that was waiting for it (window.__kgvizQ).
//
// Each chart's own output is a <div> holding the static SVG picture (an
// <img> with a data URI, which sanitizers keep) and a small script, wrapped
// in a function (no global let, no collisions when a cell runs again), that
// draws at once if window.echarts exists and otherwise queues itself; a
// chart attached without a width (a hidden output) waits until it has one.
// The picture is removed only once the live chart has drawn, so untrusted
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
//     order) queue and draw when it arrives. Display and Setup call
//     gonbui.Sync(), so that GoNB sends the output before the cell's
//     program exits.
//   - LibraryAlways makes every output self-contained (1.12 MB each);
//     LibraryNever assumes the page provides window.echarts.
//
// Limits of LibraryAuto: the library lives in one output. If that output is
// cleared or its cell re-run (the new output then has no library, as the
// marker says it was sent), or the page is reloaded or reopened while the
// kernel keeps running, a chart displayed on the new page comes without the
// library. The library block keeps its own text in the browser
// (localStorage, per origin, once it has put ECharts on a page), and such a
// chart loads it from there (js/boot.js): it is interactive on any browser
// that showed a kgviz chart of this ECharts version before (the test:
// tools/test_browser_lab.py, test_reopened_notebook_gets_interactive_charts).
// Only a browser without that copy (another machine, storage off or full)
// shows the static pictures until Setup() runs again. A kernel restart
// removes the marker's directory, so the next chart carries the library
// again. A notebook executed top to bottom
// (nbconvert --execute, "Run All") carries exactly one copy, in its first
// chart output or in the Setup cell.
//
// # Sizes (measured by TestSizes on the worlds of charts/internal/worlds, go test ./charts -run TestSizes -v)
//
// One chart's own output (fragment: picture + option + script, library
// excluded) is at most about 58.6 KB (the 145-tick transactional sequence
// diagram of Demo 12: a 23.4 KB picture, base64 in the output, an 11 KB
// option, its labels' places and 9 KB of script) and typically 10–45 KB;
// the tests fail above 60 KB. The largest option is 21.8 KB (a heatmap of
// 167 ticks), the largest SVG 23.4 KB (limit 100 KB). The library block is
// 1,122,453 bytes, once per page. A notebook with ten charts therefore carries one library plus ten
// fragments, about 1.5 MB, instead of ten libraries (11 MB).
//
// # Safety and accessibility
//
// Member names and all other text are escaped for their context: HTML text
// and attributes (html.EscapeString), JSON inside <script> (encoding/json
// escapes <, >, & and U+2028/U+2029, so nothing can close the script or
// start a comment), SVG (XML escaping), and tooltips built in the browser
// (escaped again before they become HTML). A name can never become a
// function: only the exact strings "__f__NAME__f__" with NAME one of the
// view's functions are replaced. Colours follow the Okabe–Ito palette and
// one map (palette.go: an activity, a group state, a mark, a world's
// assignor has one colour in every chart; no legend shows one twice),
// never carry meaning alone (labels, dashes, legends, hatching), and every
// chart has a title, axis names in Kafka's words and an ECharts aria
// description that also serves as the picture's alt text.
//
// Browser tests (headless Chromium, network blocked, with and without
// RequireJS, JupyterLab-like and classic-Notebook-like insertion, sanitized
// output, the rough-edge worlds, labels measured in ECharts' own SVG
// rendering) live in charts/browsertest: see its README.md.
package charts
