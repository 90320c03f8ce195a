package charts

import (
	"github.com/kgviz/kgviz/kgviz"
	"github.com/kgviz/kgviz/kgviz/kafka"
)

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

// palette is what every colour means, in every chart (and so in every
// notebook and report): a member activity, a group state, a kind of mark, an
// API family, a kind of world compared. Views take their colours from here;
// TestPalette checks that a chart's legend never shows one colour twice and
// that a world keeps its colour whatever its place among those compared.
//
// A group state is the tint of the member activity that goes with it
// (PreparingRebalance: members joining, orange; CompletingRebalance: syncing,
// yellow; Stable: committing and working, green), so that the coordinator's
// lane reads like the members' without sharing their legend entries.
var palette = map[string]string{
	// Member activities (timeline): what the application thread does.
	"activity/" + string(kgviz.ActivityStarting):    "#BBBBBB",
	"activity/" + string(kgviz.ActivityJoining):     colOrange,
	"activity/" + string(kgviz.ActivitySyncing):     colYellow,
	"activity/" + string(kgviz.ActivityOffsetFetch): colPurple,
	"activity/" + string(kgviz.ActivityFetching):    colSkyBlue,
	"activity/" + string(kgviz.ActivityProcessing):  colBlue,
	"activity/" + string(kgviz.ActivityProducing):   colBlueTint,
	"activity/" + string(kgviz.ActivityCommitting):  colGreen,
	"activity/" + string(kgviz.ActivityRevoking):    "#8C3B00", // a dark colVermilion: colVermilion is for moments (crash, errors)
	"activity/" + string(kgviz.ActivityIdle):        "#F2F2F2",
	"activity/" + string(kgviz.ActivityDead):        colBlack,
	// Group states (the coordinator's lane), classic and KIP-848
	// (ConsumerGroup.ConsumerGroupState): tints of the activities above.
	"group/" + string(kafka.GroupEmpty):               "#FFFFFF",
	"group/" + string(kafka.GroupPreparingRebalance):  "#F5CF80", // colOrange at 50 %
	"group/" + string(kafka.GroupCompletingRebalance): "#F8F2A1", // colYellow at 50 %
	"group/" + string(kafka.GroupStable):              "#80CFB9", // colGreen at 50 %
	"group/" + string(kafka.GroupAssigning):           "#E6BCD3", // colPurple at 50 %: the target assignment is computed
	"group/" + string(kafka.GroupReconciling):         "#C4E3F6", // colSkyBlue at 35 %: members move to the target
	"group/" + string(kafka.GroupDead):                "#5A5A5A",
	// Marks on the timeline.
	"zombie":  "#7A3D63", // a dark colPurple: the strip under a zombie's lane
	"moments": colVermilion,
	// Time marks (timeline, heatmap, sequence).
	"mark/generation": "#222222",
	"mark/config":     "#004C77", // a dark colBlue
	"mark/incomplete": "#B07800", // a dark colOrange: a warning
	"mark/stop":       "#B2182B", // crimson: the world stopped on an error
	// The heatmap's cells held by several members at once (a share group,
	// KIP-932): stripes of the members' colours; the legend's swatch is an
	// outline of this dark grey.
	"heatmap/shared": "#444444",
	// The states of a share-partition's in-flight records (KIP-932,
	// SharePartition.RecordState): waiting to be taken (a light orange),
	// held by a member (a dark blue), done (a dark green), given up (a dark grey).
	"share/" + kafka.RecordAvailable.String():    "#FBD9B5",
	"share/" + kafka.RecordAcquired.String():     "#1F5FA0",
	"share/" + kafka.RecordAcknowledged.String(): "#2E7D32",
	"share/" + kafka.RecordArchived.String():     "#6F6F6F",
	// API families (sequence diagram).
	"family/" + kgviz.FamilyGroup:        colBlue,
	"family/" + kgviz.FamilyOffsets:      colGreen,
	"family/" + kgviz.FamilyFetch:        colGrey,
	"family/" + kgviz.FamilyProduce:      colSkyBlue,
	"family/" + kgviz.FamilyTransactions: colPurple,
	// Worlds compared (pause meter): by assignor, as notebook 00 shows them
	// (range blue, cooperative-sticky orange); other worlds take the first
	// Okabe–Ito colour still free.
	"world/range":              colBlue,
	"world/cooperative-sticky": colOrange,
	"world/uniform":            colGreen,
	"world/sticky":             colPurple,
	"world/roundrobin":         colSkyBlue,
}

// color returns the palette's colour of a meaning ("activity/joining"), or
// colGrey for one it does not know (an assignor's own state name, say).
func color(meaning string) string {
	if c, ok := palette[meaning]; ok {
		return c
	}
	return colGrey
}

// activity is a lane state of the timeline: a member activity or a
// coordinator group state.
type activity struct {
	name  string // shown in the legend and tooltips
	color string
	dark  bool // white label text
}

func act(kind, name string, dark bool) activity {
	return activity{name, color(kind + "/" + name), dark}
}

// activities lists the member activities, in legend order.
var activities = []activity{
	act("activity", string(kgviz.ActivityStarting), false),
	act("activity", string(kgviz.ActivityJoining), false),
	act("activity", string(kgviz.ActivitySyncing), false),
	act("activity", string(kgviz.ActivityOffsetFetch), false),
	act("activity", string(kgviz.ActivityFetching), false),
	act("activity", string(kgviz.ActivityProcessing), true),
	act("activity", string(kgviz.ActivityProducing), false),
	act("activity", string(kgviz.ActivityCommitting), true),
	act("activity", string(kgviz.ActivityRevoking), true),
	act("activity", string(kgviz.ActivityIdle), false),
	act("activity", string(kgviz.ActivityDead), true),
}

// groupStates lists the coordinator's group states (Kafka's GroupState names),
// classic then KIP-848's.
var groupStates = []activity{
	act("group", string(kafka.GroupEmpty), false),
	act("group", string(kafka.GroupPreparingRebalance), false),
	act("group", string(kafka.GroupCompletingRebalance), false),
	act("group", string(kafka.GroupAssigning), false),
	act("group", string(kafka.GroupReconciling), false),
	act("group", string(kafka.GroupStable), false),
	act("group", string(kafka.GroupDead), true),
}

// worldColors gives each compared world its colour: the colour of its
// assignor when the palette has one and no world before took it, else the
// first Okabe–Ito colour no world took. So range is blue and
// cooperative-sticky orange whichever comes first (notebook 00, the
// reports), and no two worlds share a colour (up to eight).
func worldColors(assignors []string) []string {
	out := make([]string, len(assignors))
	taken := map[string]bool{}
	for i, a := range assignors {
		if c, ok := palette["world/"+a]; ok && !taken[c] {
			out[i], taken[c] = c, true
		}
	}
	for i := range assignors {
		if out[i] != "" {
			continue
		}
		out[i] = memberColor(i)
		for _, c := range okabeIto {
			if !taken[c] {
				out[i] = c
				break
			}
		}
		taken[out[i]] = true
	}
	return out
}
