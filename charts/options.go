package charts

// Option changes how a view is built. Options that do not apply to a view are
// ignored by it.
type Option func(*config)

type config struct {
	id         string
	title      string
	width      int
	height     int
	from, to   int // tick range; to < 0: up to Now
	families   map[string]bool
	partitions []string
	isolation  string
	perRow     int
}

func newConfig(opts []Option) *config {
	c := &config{to: -1}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// ID sets the chart's HTML element id explicitly (golden tests, pages that
// address a chart). Without it each render gets a fresh id made of a hash of
// the content and a counter.
func ID(id string) Option { return func(c *config) { c.id = id } }

// Title replaces the view's title.
func Title(title string) Option { return func(c *config) { c.title = title } }

// Size sets the chart's width and height in pixels (0 keeps the view's default).
func Size(width, height int) Option {
	return func(c *config) { c.width, c.height = width, height }
}

// Ticks limits a view to the ticks from..to (inclusive); to < 0 means up to
// the world's current tick.
func Ticks(from, to int) Option { return func(c *config) { c.from, c.to = from, to } }

// Families limits the sequence diagram to the given API families
// (kgviz.FamilyGroup, FamilyOffsets, FamilyFetch, FamilyProduce,
// FamilyTransactions; see kgviz.APIFamily).
func Families(families ...string) Option {
	return func(c *config) {
		c.families = map[string]bool{}
		for _, f := range families {
			c.families[f] = true
		}
	}
}

// Partitions chooses the partitions a view shows: log names such as
// "invoices-0" or "__consumer_offsets-12" for TopicLog, short input names
// such as "o2" for Heatmap.
func Partitions(names ...string) Option {
	return func(c *config) { c.partitions = append([]string(nil), names...) }
}

// Isolation overrides the audit reader's isolation.level ("read_committed" or
// "read_uncommitted") that TopicLog and Outcomes otherwise take from the
// world's EvConfig events.
func Isolation(level string) Option { return func(c *config) { c.isolation = level } }

// CellsPerRow sets how many offsets TopicLog draws per row (default 14).
func CellsPerRow(n int) Option { return func(c *config) { c.perRow = n } }

// tickRange returns the inclusive tick range a view covers.
func (c *config) tickRange(now int) (int, int) {
	from, to := c.from, c.to
	if to < 0 || to > now {
		to = now
	}
	if from < 0 {
		from = 0
	}
	if from > to {
		from = to
	}
	return from, to
}

// widthOr returns the Size width, or def.
func (c *config) widthOr(def int) int {
	if c.width > 0 {
		return c.width
	}
	return def
}

// heightOr returns the Size height, or def.
func (c *config) heightOr(def int) int {
	if c.height > 0 {
		return c.height
	}
	return def
}
