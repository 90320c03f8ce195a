package charts

import "github.com/kgviz/kgviz/kgviz"

// Okabe–Ito colours (Okabe & Ito, "Color Universal Design", 2008), safe for
// the common forms of colour blindness. Views add greys and one tint where
// they need more categories, and never rely on colour alone: bars carry
// labels, legends name every colour, tooltips say everything.
const (
	colBlack     = "#000000"
	colOrange    = "#E69F00"
	colSkyBlue   = "#56B4E9"
	colGreen     = "#009E73"
	colYellow    = "#F0E442"
	colBlue      = "#0072B2"
	colVermilion = "#D55E00"
	colPurple    = "#CC79A7"
	colGrey      = "#999999"
	colLightGrey = "#DDDDDD"
	colBlueTint  = "#99C7E0" // colBlue at 40 % on white
	colText      = "#222222"
	colErr       = colVermilion
)

// okabeIto is the palette for categorical series (owners, worlds), in order.
var okabeIto = []string{colBlue, colOrange, colGreen, colPurple, colSkyBlue, colVermilion, colYellow, colBlack}

// memberColor returns the colour of the i-th member.
func memberColor(i int) string { return okabeIto[i%len(okabeIto)] }

// activity is a lane state of the timeline: a member activity or a
// coordinator group state.
type activity struct {
	name  string // shown in the legend and tooltips
	color string
	dark  bool // white label text
}

// activities lists the member activities, in legend order.
var activities = []activity{
	{string(kgviz.ActivityStarting), "#BBBBBB", false},
	{string(kgviz.ActivityJoining), colOrange, false},
	{string(kgviz.ActivitySyncing), colYellow, false},
	{string(kgviz.ActivityOffsetFetch), colPurple, false},
	{string(kgviz.ActivityFetching), colSkyBlue, false},
	{string(kgviz.ActivityProcessing), colBlue, true},
	{string(kgviz.ActivityProducing), colBlueTint, false},
	{string(kgviz.ActivityCommitting), colGreen, true},
	{string(kgviz.ActivityRevoking), colVermilion, true},
	{string(kgviz.ActivityIdle), "#F2F2F2", false},
	{string(kgviz.ActivityDead), colBlack, true},
}

// groupStates lists the coordinator's group states (Kafka's GroupState names).
var groupStates = []activity{
	{"Empty", "#F2F2F2", false},
	{"PreparingRebalance", colOrange, false},
	{"CompletingRebalance", colYellow, false},
	{"Stable", colGreen, true},
	{"Dead", colBlack, true},
}
