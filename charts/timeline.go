package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// memberMark is a moment on a member's lane: crash, restart, close, ...
type memberMark struct {
	Tick  int
	Lane  int
	Glyph string
	Text  string
}

var markGlyphs = map[kgviz.EventType][2]string{
	kgviz.EvCrash:        {"✕", "crash"},
	kgviz.EvRestart:      {"↻", "restart"},
	kgviz.EvClose:        {"■", "close() → LeaveGroup"},
	kgviz.EvZombie:       {"Z", "zombie"},
	kgviz.EvPollTimeout:  {"⌛", "max.poll.interval.ms expired"},
	kgviz.EvSlowStart:    {"◆", "slow record"},
	kgviz.EvCommitFailed: {"!", "CommitFailedException"},
	kgviz.EvError:        {"!", "error"},
	kgviz.EvLeader:       {"★", "leader"},
}

// Timeline shows what every member's application thread does, tick by tick,
// with one lane per member and one for the group coordinator (B1): joining,
// syncing, fetching, processing which record, committing, revoking, dead;
// zombie periods, crashes, restarts and generation changes are marked.
// Options: Ticks, Title, Size, ID.
func Timeline(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	evs := src.Events()
	from, to := cfg.tickRange(src.Now())
	members := memberLanes(src)
	lanes := append([]string{"B1"}, members...)
	li := map[string]int{}
	for i, m := range lanes {
		li[m] = i
	}
	// A restart while the member is stuck leaves the old process running as
	// a zombie (EvZombie then EvRestart): its activities, recognised by its
	// member id, get a lane of their own, "C2 (zombie)".
	type zkey struct{ member, id string }
	zombieLane := map[zkey]int{}
	zombieFrom := map[zkey]int{}
	for i, e := range evs {
		if e.Type != kgviz.EvZombie || e.MemberID == "" {
			continue
		}
		for _, r := range evs[i+1:] {
			if r.Tick != e.Tick {
				break
			}
			if r.Type == kgviz.EvRestart && r.Member == e.Member {
				k := zkey{e.Member, e.MemberID}
				if _, ok := zombieLane[k]; !ok {
					zombieLane[k] = len(lanes)
					zombieFrom[k] = e.Tick
					name := e.Member + " (zombie)"
					li[name] = len(lanes)
					lanes = append(lanes, name)
				}
				break
			}
		}
	}
	laneOf := func(e kgviz.Event) (int, bool) {
		if z, ok := zombieLane[zkey{e.Member, e.MemberID}]; ok && e.MemberID != "" && e.Tick >= zombieFrom[zkey{e.Member, e.MemberID}] {
			return z, true
		}
		l, ok := li[e.Member]
		return l, ok
	}

	// State changes per lane.
	changes := make([][]span, len(lanes))
	var marks []memberMark
	type zspan struct{ lane, start, end int }
	var zombies []zspan
	openZombie := map[int]int{}
	closeZombie := func(lane, t int) {
		if s, ok := openZombie[lane]; ok {
			zombies = append(zombies, zspan{lane, s, t})
			delete(openZombie, lane)
		}
	}
	for _, e := range evs {
		switch e.Type {
		case kgviz.EvGroupState:
			changes[0] = append(changes[0], span{Start: e.Tick, State: e.State, Gen: e.Generation})
		case kgviz.EvActivity:
			l, ok := laneOf(e)
			if !ok {
				continue
			}
			changes[l] = append(changes[l], span{Start: e.Tick, State: e.State, Record: e.Record})
			if e.State == kgviz.ActivityDead {
				closeZombie(l, e.Tick)
			}
		}
		if g, ok := markGlyphs[e.Type]; ok {
			l, ok := laneOf(e)
			if e.Type == kgviz.EvRestart {
				l, ok = li[e.Member]
			}
			if !ok || e.Member == "" {
				continue
			}
			text := g[1]
			switch e.Type {
			case kgviz.EvLeader:
				text = fmt.Sprintf("leader of generation %d", e.Generation)
			case kgviz.EvCommitFailed, kgviz.EvError:
				if e.Error != kgviz.NONE {
					text += ": " + e.Error.String()
				}
			case kgviz.EvSlowStart:
				text += " " + e.Record
			}
			if e.Detail != "" && e.Type != kgviz.EvLeader {
				text += " (" + e.Detail + ")"
			}
			if e.Type != kgviz.EvLeader {
				marks = append(marks, memberMark{e.Tick, l, g[0], text})
			}
			switch e.Type {
			case kgviz.EvZombie:
				if _, open := openZombie[l]; !open {
					openZombie[l] = e.Tick
				}
			case kgviz.EvCrash, kgviz.EvClose, kgviz.EvRestart:
				closeZombie(l, e.Tick)
			}
		}
		if e.Type == kgviz.EvMemberAdded {
			if l, ok := li[e.Member]; ok {
				closeZombie(l, e.Tick)
			}
		}
	}
	for l := range lanes {
		closeZombie(l, to+1)
	}
	gens := generationChanges(evs)
	msgs := messages(evs)

	// Series: one per state present (legend = colour key), then zombie, marks.
	type stateSeries struct {
		act   activity
		coord bool
		data  [][]any
		spans []span
		lanes []int
	}
	var series []*stateSeries
	find := func(a activity, coord bool) *stateSeries {
		for _, s := range series {
			if s.act.name == a.name && s.coord == coord {
				return s
			}
		}
		s := &stateSeries{act: a, coord: coord}
		series = append(series, s)
		return s
	}
	lookup := func(name string, table []activity) activity {
		for _, a := range table {
			if a.name == name {
				return a
			}
		}
		return activity{name, colGrey, false}
	}
	// Keep a stable series order: the palette's order, then unknown states.
	all := map[string][]struct {
		lane int
		sp   span
	}{}
	var unknown []string
	for l := range lanes {
		for _, sp := range laneSpans(changes[l], from, to) {
			key := sp.State
			if l == 0 {
				key = "\x00" + key
			}
			if _, ok := all[key]; !ok {
				known := false
				for _, a := range append(append([]activity(nil), activities...), groupStates...) {
					if a.name == sp.State {
						known = true
					}
				}
				if !known {
					unknown = append(unknown, key)
				}
			}
			all[key] = append(all[key], struct {
				lane int
				sp   span
			}{l, sp})
		}
	}
	var keys []string
	for _, a := range groupStates {
		keys = append(keys, "\x00"+a.name)
	}
	for _, a := range activities {
		keys = append(keys, a.name)
	}
	keys = append(keys, unknown...)
	for _, k := range keys {
		items, ok := all[k]
		if !ok {
			continue
		}
		coord := strings.HasPrefix(k, "\x00")
		name := strings.TrimPrefix(k, "\x00")
		table := activities
		if coord {
			table = groupStates
		}
		s := find(lookup(name, table), coord)
		for _, it := range items {
			label := it.sp.Record
			if coord {
				label = it.sp.State
				if it.sp.Gen != 0 {
					label += " g" + itoa(it.sp.Gen)
				}
			}
			s.data = append(s.data, []any{it.lane, it.sp.Start, it.sp.End, label})
			s.spans = append(s.spans, it.sp)
			s.lanes = append(s.lanes, it.lane)
		}
	}

	title := cfg.title
	if title == "" {
		title = "Member timeline: what each consumer does, tick by tick"
	}
	sub := fmt.Sprintf("group billing · ticks %d–%d · one lane per member and the group coordinator B1", from, to)
	desc := timelineDesc(src, lanes, gens, marks, from, to)

	width := cfg.width
	if width == 0 {
		width = defaultWidth
	}
	var legendNames []string
	for _, s := range series {
		legendNames = append(legendNames, legendName(s.act.name, s.coord))
	}
	if len(zombies) > 0 {
		legendNames = append(legendNames, "zombie (outside the group)")
	}
	if len(marks) > 0 {
		legendNames = append(legendNames, "events (✕ crash, ↻ restart, …)")
	}
	rows := legendRows(legendNames, float64(width-40))
	const laneH = 34
	top := titleH + rows*18 + 12
	plotH := len(lanes) * laneH
	height := cfg.height
	if height == 0 {
		height = top + plotH + 78
	}
	left, right := 132, 24

	// ECharts option (raw: custom series with renderItem).
	opt := baseOption(title, sub, desc)
	var eSeries []any
	dark := []bool{}
	for i, s := range series {
		so := map[string]any{
			"type": "custom", "name": legendName(s.act.name, s.coord), "renderItem": fn("bar"),
			"itemStyle": map[string]any{"color": s.act.color, "borderColor": "#888"},
			"encode":    map[string]any{"x": []int{1, 2}, "y": 0}, "data": s.data, "clip": true,
			"tooltip": map[string]any{"formatter": fn("tip")},
		}
		if i == 0 && len(gens) > 0 {
			so["markLine"] = genMarkLine(gens, from, to, "xAxis")
		}
		eSeries = append(eSeries, so)
		dark = append(dark, s.act.dark)
	}
	if len(series) == 0 && len(gens) > 0 {
		eSeries = append(eSeries, map[string]any{"type": "custom", "name": "generation", "renderItem": fn("bar"), "data": [][]any{},
			"encode": map[string]any{"x": []int{1, 2}, "y": 0}, "markLine": genMarkLine(gens, from, to, "xAxis")})
		dark = append(dark, false)
	}
	var zdata [][]any
	for _, z := range zombies {
		s, e := z.start, z.end
		if s < from {
			s = from
		}
		if e > to+1 {
			e = to + 1
		}
		if e > s {
			zdata = append(zdata, []any{z.lane, s, e, "zombie"})
		}
	}
	if len(zdata) > 0 {
		eSeries = append(eSeries, map[string]any{"type": "custom", "name": "zombie (outside the group)", "renderItem": fn("strip"),
			"itemStyle": map[string]any{"color": colPurple}, "encode": map[string]any{"x": []int{1, 2}, "y": 0}, "data": zdata, "clip": true,
			"tooltip": map[string]any{"formatter": fn("ztip")}})
		dark = append(dark, false)
	}
	var mdata [][]any
	for _, mk := range marks {
		if mk.Tick >= from && mk.Tick <= to {
			mdata = append(mdata, []any{mk.Lane, mk.Tick, mk.Glyph, mk.Text})
		}
	}
	if len(mdata) > 0 {
		eSeries = append(eSeries, map[string]any{"type": "custom", "name": "events (✕ crash, ↻ restart, …)", "renderItem": fn("mark"),
			"itemStyle": map[string]any{"color": colVermilion}, "encode": map[string]any{"x": 1, "y": 0}, "data": mdata, "clip": true,
			"tooltip": map[string]any{"formatter": fn("mtip")}, "z": 5})
		dark = append(dark, false)
	}
	opt["series"] = eSeries
	opt["legend"] = map[string]any{"top": titleH - 4, "left": 10, "right": 10, "itemWidth": 12, "itemHeight": 10}
	opt["grid"] = map[string]any{"left": left, "right": right, "top": top, "bottom": 70}
	opt["xAxis"] = map[string]any{"type": "value", "min": from, "max": to + 1, "name": "tick (1 tick = one request or response in flight)",
		"nameLocation": "middle", "nameGap": 26, "minInterval": 1, "splitLine": map[string]any{"lineStyle": map[string]any{"color": "#eee"}}}
	laneLabels := make([]string, len(lanes))
	for i, l := range lanes {
		laneLabels[i] = l
	}
	laneLabels[0] = "B1 (coordinator)"
	opt["yAxis"] = map[string]any{"type": "category", "data": laneLabels, "inverse": true, "name": "group member",
		"nameLocation": "middle", "nameGap": left - 16, "nameRotate": 90, "axisTick": map[string]any{"show": false}, "splitLine": map[string]any{"show": true, "lineStyle": map[string]any{"color": "#eee"}},
		"axisLabel": map[string]any{"width": left - 30, "overflow": "truncate"}}
	opt["dataZoom"] = []any{
		map[string]any{"type": "inside", "xAxisIndex": 0, "filterMode": "weakFilter"},
		map[string]any{"type": "slider", "xAxisIndex": 0, "filterMode": "weakFilter", "height": 16, "bottom": 6},
	}

	// Requests each lane sent, for tooltips: [tick, lane, api, flags].
	var api apiTable
	var sent [][]int
	for _, m := range msgs {
		l, ok := li[m.From]
		if !ok || m.From == "B1" && m.To == "B1" {
			continue
		}
		if m.From == "B1" {
			l2, ok := li[m.To]
			if !ok {
				continue
			}
			// Responses are listed on the receiving member's lane.
			flags := 1
			if m.Err != kgviz.NONE {
				flags |= 2
			}
			sent = append(sent, []int{m.Arrive, l2, api.id(m.label()), flags})
			continue
		}
		sent = append(sent, []int{m.Tick, l, api.id(m.label()), 0})
	}
	meta := map[string]any{"lanes": lanes, "dark": dark, "api": api.names, "sent": sent}

	c := &Chart{kind: "timeline", title: title, desc: desc, option: opt, meta: meta, js: timelineJS, width: width, height: height}

	// SVG.
	svg := newSVG(width, height, title, desc)
	svg.text(12, 40, sub, "s", "")
	var li2 []legendItem
	for _, s := range series {
		li2 = append(li2, legendItem{legendName(s.act.name, s.coord), s.act.color, ""})
	}
	if len(zombies) > 0 {
		li2 = append(li2, legendItem{"zombie (outside the group)", colPurple, ""})
	}
	if len(marks) > 0 {
		li2 = append(li2, legendItem{"events (✕ crash, ↻ restart, …)", colVermilion, ""})
	}
	svg.legend(12, float64(titleH+10), float64(width-20), li2)
	x0, x1 := float64(left), float64(width-right)
	y0 := float64(top)
	px := (x1 - x0) / float64(to-from+1)
	xOf := func(t int) float64 { return x0 + float64(t-from)*px }
	svg.xTicks(x0, x1, y0, y0+float64(plotH), from, to, "tick")
	for i, l := range laneLabels {
		y := y0 + float64(i)*laneH
		svg.line(x0, y+laneH, x1, y+laneH, "g", "")
		svg.text(x0-8, y+laneH/2+4, fit(l, float64(left-16)), "r", "")
	}
	for si, s := range series {
		fg := ""
		if s.act.dark {
			fg = "w"
		}
		for i, d := range s.data {
			sp := s.spans[i]
			_ = si
			y := y0 + float64(s.lanes[i])*laneH + laneH*0.22
			x, w := xOf(sp.Start), float64(sp.End-sp.Start)*px
			svg.rect(x, y, w, laneH*0.56, s.act.color, `stroke="#fff" stroke-width=".5"`)
			if lbl := fit(d[3].(string), w-4); lbl != "" {
				svg.text(x+w/2, y+laneH*0.28+4, lbl, strings.TrimSpace("m "+fg), "")
			}
		}
	}
	for _, z := range zdata {
		lane, s, e := z[0].(int), z[1].(int), z[2].(int)
		y := y0 + float64(lane)*laneH + laneH*0.8
		svg.rect(xOf(s), y, float64(e-s)*px, laneH*0.16, colPurple, "")
	}
	for _, g := range gens {
		if g.Tick < from || g.Tick > to {
			continue
		}
		x := xOf(g.Tick)
		svg.line(x, y0-4, x, y0+float64(plotH), "k d", "")
		svg.text(x+3, y0-6, "gen "+itoa(g.Gen), "", "")
	}
	for _, mk := range mdata {
		lane, t := mk[0].(int), mk[1].(int)
		y := y0 + float64(lane)*laneH + 9
		svg.text(xOf(t), y, mk[2].(string), "e m", "")
	}
	c.svg = svg.end()
	return c.withID(cfg)
}

func legendName(state string, coord bool) string {
	if coord {
		return "group " + state
	}
	return state
}

// genMarkLine marks generation changes on a time axis.
func genMarkLine(gens []genChange, from, to int, axis string) map[string]any {
	var data []any
	for _, g := range gens {
		if g.Tick < from || g.Tick > to {
			continue
		}
		data = append(data, map[string]any{axis: g.Tick, "label": map[string]any{"formatter": "gen " + itoa(g.Gen)}})
	}
	return map[string]any{"silent": true, "symbol": "none", "data": data,
		"lineStyle": map[string]any{"color": "#222", "type": "dashed", "width": 1},
		"label":     map[string]any{"position": "start", "fontSize": 10}}
}

func timelineDesc(src Source, lanes []string, gens []genChange, marks []memberMark, from, to int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Timeline of ticks %d to %d with %d lanes: %s. ", from, to, len(lanes), strings.Join(lanes, ", "))
	if len(gens) > 0 {
		var gs []string
		for _, g := range gens {
			gs = append(gs, fmt.Sprintf("generation %d at tick %d", g.Gen, g.Tick))
		}
		b.WriteString("The group reached " + strings.Join(gs, ", ") + ". ")
	}
	if len(marks) > 0 {
		var ms []string
		for i, m := range marks {
			if i == 8 {
				ms = append(ms, fmt.Sprintf("and %d more", len(marks)-8))
				break
			}
			ms = append(ms, fmt.Sprintf("%s %s at tick %d", lanes[m.Lane], m.Text, m.Tick))
		}
		b.WriteString("Events: " + strings.Join(ms, "; ") + ".")
	}
	return strings.TrimSpace(b.String())
}

// timelineJS draws lane bars, zombie strips and event marks, and builds the
// tooltips (naming the record and the requests of the span).
const timelineJS = `var E;function dat(p){return o.series[p.seriesIndex].data[p.dataIndex]}
function clip(r,p){return E.graphic.clipRectByRect(r,{x:p.coordSys.x,y:p.coordSys.y,width:p.coordSys.width,height:p.coordSys.height})}
F.bar=function(p,a){E=E||window.echarts;var d=dat(p),s=a.coord([d[1],d[0]]),e=a.coord([d[2],d[0]]),h=a.size([0,1])[1]*0.56;
var r=clip({x:s[0],y:s[1]-h/2,width:e[0]-s[0],height:h},p);if(!r)return;
return{type:"rect",shape:r,style:{fill:a.visual("color"),stroke:"#fff",lineWidth:0.5},
textContent:{style:{text:r.width>18?String(d[3]):"",fill:m.dark[p.seriesIndex]?"#fff":"#222",fontSize:10,width:r.width-4,overflow:"truncate"}},textConfig:{position:"inside"}}};
F.strip=function(p,a){E=E||window.echarts;var d=dat(p),s=a.coord([d[1],d[0]]),e=a.coord([d[2],d[0]]),h=a.size([0,1])[1];
var r=clip({x:s[0],y:s[1]+h*0.3,width:e[0]-s[0],height:h*0.16},p);if(!r)return;return{type:"rect",shape:r,style:{fill:a.visual("color")}}};
F.mark=function(p,a){var d=dat(p),c=a.coord([d[1],d[0]]),h=a.size([0,1])[1];
return{type:"text",x:c[0],y:c[1]-h*0.5+1,style:{text:d[2],fill:"#D55E00",fontSize:13,fontWeight:"bold",align:"center",verticalAlign:"top",stroke:"#fff",lineWidth:2}}};
function reqs(l,s,e){var out=[],n={},i;for(i=0;i<m.sent.length;i++){var q=m.sent[i];if(q[1]===l&&q[0]>=s&&q[0]<e){var k=(q[3]&1?"← ":"→ ")+m.api[q[2]];if(!n[k]){n[k]=0;out.push(k)}n[k]++}}
return out.slice(0,8).map(function(k){return(k.indexOf("← ")===0&&/[A-Z]_[A-Z]/.test(k)?'<span style="color:#D55E00">'+esc(k)+"</span>":esc(k))+(n[k]>1?" ×"+n[k]:"")}).join("<br>")}
function span(s,e){return e-s>1?"ticks "+s+"–"+(e-1):"tick "+s}
F.tip=function(p){var d=dat(p),l=m.lanes[d[0]],t="<b>"+esc(l)+"</b> · "+esc(p.seriesName)+(d[3]!==""&&d[0]>0?" <b>"+esc(d[3])+"</b>":"")+"<br>"+span(d[1],d[2]),r=reqs(d[0],d[1],d[2]);return r?t+"<br>"+r:t};
F.ztip=function(p){var d=dat(p);return"<b>"+esc(m.lanes[d[0]])+"</b> is a zombie: its process runs outside the group<br>"+span(d[1],d[2])};
F.mtip=function(p){var d=dat(p);return"<b>"+esc(m.lanes[d[0]])+"</b> tick "+d[1]+": "+esc(d[3])};
`
