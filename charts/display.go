package charts

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// LibraryMode says when Display puts the ECharts library (1.1 MB) into a
// notebook output. See the package documentation for the trade-offs.
type LibraryMode int

const (
	// LibraryAuto, the default, includes the library in the first output of
	// a kernel session that needs it and in no later one: a marker file in
	// the kernel's $GONB_TMP_DIR remembers it across cells (each cell is a
	// fresh process). Setup always includes it.
	LibraryAuto LibraryMode = iota
	// LibraryAlways includes the library in every output (each output then
	// works alone, at 1.1 MB apiece).
	LibraryAlways
	// LibraryNever never includes it: the page must provide window.echarts
	// (charts keep their static picture until it appears).
	LibraryNever
)

// Library is the policy Display follows.
var Library = LibraryAuto

var (
	libMu   sync.Mutex
	libSent bool
)

func init() {
	if gonbui.IsNotebook {
		// Every cell is a new process whose id counter starts at 1 again:
		// salt the generated ids so that charts of different cells never
		// share one.
		idSalt = "-" + strconv.FormatInt(time.Now().UnixNano()%(36*36*36*36*36*36), 36) + strconv.Itoa(os.Getpid()%1000)
	}
}

func libraryMarker() string {
	dir := os.Getenv("GONB_TMP_DIR")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, ".kgviz-echarts-"+EChartsVersion)
}

// needLibrary decides whether this output carries the library.
func needLibrary() bool {
	switch Library {
	case LibraryAlways:
		return true
	case LibraryNever:
		return false
	}
	libMu.Lock()
	defer libMu.Unlock()
	if libSent {
		return false
	}
	libSent = true
	if m := libraryMarker(); m != "" {
		if _, err := os.Stat(m); err == nil {
			return false
		}
		_ = os.WriteFile(m, []byte("emitted\n"), 0o600)
	}
	return true
}

// displayHTML is what Display sends: the fragment, preceded by the library
// when the policy says so.
func displayHTML(charts ...*Chart) string {
	var b strings.Builder
	live := false
	for _, c := range charts {
		if c != nil && c.option != nil {
			live = true
		}
	}
	if live && needLibrary() {
		b.WriteString(libraryHTML)
	}
	for _, c := range charts {
		if c != nil {
			b.WriteString(c.HTML())
		}
	}
	return b.String()
}

// Display shows the chart as the output of the current GoNB cell: the
// static SVG picture, replaced by the live ECharts chart where scripts run.
// Outside a notebook ($GONB_PIPE unset) it does nothing.
func (c *Chart) Display() {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.DisplayHTML(displayHTML(c))
	gonbui.Sync() // GoNB drops output still in the pipe when the cell's program exits
}

// DisplayAll shows several charts in one output.
func DisplayAll(charts ...*Chart) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.DisplayHTML(displayHTML(charts...))
	gonbui.Sync()
}

// Setup puts the ECharts library into the notebook once, as the output of
// the cell that calls it (put it in the notebook's first code cell): later
// charts of the kernel session do not carry it again. Charts work without
// Setup too; see the package documentation.
func Setup() {
	if !gonbui.IsNotebook {
		return
	}
	libMu.Lock()
	libSent = true
	if m := libraryMarker(); m != "" {
		_ = os.WriteFile(m, []byte("emitted\n"), 0o600)
	}
	libMu.Unlock()
	gonbui.DisplayHTML(libraryHTML + "<div style=\"font-size:11px;color:#777\">kgviz: Apache ECharts " + EChartsVersion + " loaded (offline copy).</div>")
	gonbui.Sync()
}
