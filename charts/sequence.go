package charts

import (
	"fmt"
	"strings"

	"github.com/kgviz/kgviz/kgviz"
)

// families in legend order, with their colours.
var familyOrder = []struct{ name, color, label string }{
	{kgviz.FamilyGroup, colBlue, "group (JoinGroup, SyncGroup, …)"},
	{kgviz.FamilyOffsets, colGreen, "offsets (OffsetCommit, OffsetFetch)"},
	{kgviz.FamilyFetch, colGrey, "fetch"},
	{kgviz.FamilyProduce, colSkyBlue, "produce"},
	{kgviz.FamilyTransactions, colPurple, "transactions"},
}

// Sequence draws the requests and responses between the members and the
// broker as a sequence diagram: lanes C1, B1, C2, ... with time (ticks)
// going down, one arrow per request (solid) and response (dashed), labelled
// with the API, the generation and, in red, the error code; lost messages end
// in a ✕. Options: Families (API families to show), Ticks, Title, Size, ID.
// The live chart adds a legend per family (click to hide) and a zoom on ticks.
func Sequence(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	evs := src.Events()
	from, to := cfg.tickRange(src.Now())
	members := src.Members()
	var lanes []string
	if len(members) > 0 {
		lanes = append(lanes, members[0])
	}
	lanes = append(lanes, "B1")
	if len(members) > 1 {
		lanes = append(lanes, members[1:]...)
	}
	li := map[string]int{}
	for i, l := range lanes {
		li[l] = i
	}
	all := messages(evs)
	var msgs []message
	for _, m := range all {
		if m.Tick < from || m.Tick > to {
			continue
		}
		if cfg.families != nil && !cfg.families[kgviz.APIFamily(m.API)] {
			continue
		}
		for _, end := range []string{m.From, m.To} {
			if _, ok := li[end]; !ok && end != "" {
				li[end] = len(lanes)
				lanes = append(lanes, end)
			}
		}
		msgs = append(msgs, m)
	}
	// Arrows may end one tick after the range.
	last := to + 1

	title := cfg.title
	if title == "" {
		title = "Sequence diagram: requests and responses between members and broker B1"
	}
	var fams []string
	if cfg.families != nil {
		for _, f := range familyOrder {
			if cfg.families[f.name] {
				fams = append(fams, f.name)
			}
		}
	}
	famText := "all API families"
	if fams != nil {
		famText = "API families: " + strings.Join(fams, ", ")
	}
	sub := fmt.Sprintf("ticks %d–%d · %s · solid = request, dashed = response, red = error code, ✕ = lost", from, to, famText)
	desc := sequenceDesc(lanes, msgs, from, to)

	width := cfg.width
	if width == 0 {
		width = defaultWidth
	}
	const pxTick = 18
	left, right := 70, 70
	legendH := legendRows(familyLabels(), float64(width-40)) * 18
	top := titleH + legendH + 34
	ticks := last - from + 1
	svgH := top + ticks*pxTick + 30
	height := cfg.height
	if height == 0 {
		height = svgH
		if height > 760 {
			height = 760
		}
	}

	// Option: one custom series per family, arrows drawn by renderItem.
	opt := baseOption(title, sub, desc)
	byFam := map[string][][]any{}
	slots := map[[3]int]int{} // messages with the same ends and tick: labels stacked
	var labelTab apiTable     // labels are sent once, items refer to them
	for _, m := range msgs {
		flags := 0
		if m.Response {
			flags |= 1
		}
		if m.Response && m.Err != kgviz.NONE {
			flags |= 2
		}
		if m.Dropped {
			flags |= 4
		}
		f := kgviz.APIFamily(m.API)
		key := [3]int{li[m.From], m.Tick, li[m.To]}
		slot := slots[key]
		slots[key]++
		// A plain acknowledgement needs no label (its arrow is dashed, the
		// tooltip names it); group responses keep theirs (generation).
		label := m.label()
		if m.Response && m.Err == kgviz.NONE && f != kgviz.FamilyGroup {
			label = ""
		}
		byFam[f] = append(byFam[f], []any{li[m.From], m.Tick, li[m.To], m.Arrive, flags, labelTab.id(label), slot, labelTab.id(m.label())})
	}
	var series []any
	var legend []string
	for _, f := range familyOrder {
		d, ok := byFam[f.name]
		if !ok {
			continue
		}
		series = append(series, map[string]any{"type": "custom", "name": f.label, "renderItem": fn("arrow"), "data": d,
			"itemStyle": map[string]any{"color": f.color}, "encode": map[string]any{"x": []int{0, 2}, "y": []int{1, 3}},
			"clip": true, "tooltip": map[string]any{"formatter": fn("tip")}})
		legend = append(legend, f.label)
	}
	// Lifelines, drawn by a series of their own (a category axis puts its
	// split lines between lanes, not on them).
	var life [][]int
	for i := range lanes {
		life = append(life, []int{i})
	}
	series = append([]any{map[string]any{"type": "custom", "name": "lifelines", "renderItem": fn("life"), "data": life,
		"silent": true, "z": 0, "encode": map[string]any{"x": 0}, "tooltip": map[string]any{"show": false}}}, series...)
	opt["series"] = series
	opt["legend"] = map[string]any{"top": titleH - 4, "left": 10, "right": 10, "itemWidth": 12, "itemHeight": 10, "data": legend}
	opt["grid"] = map[string]any{"left": left, "right": right, "top": top, "bottom": 16}
	opt["xAxis"] = map[string]any{"type": "category", "data": lanes, "position": "top", "name": "",
		"axisLabel": map[string]any{"fontWeight": "bold", "fontSize": 12, "interval": 0}, "splitLine": map[string]any{"show": false},
		"axisTick": map[string]any{"show": false}, "axisLine": map[string]any{"show": false}}
	opt["yAxis"] = map[string]any{"type": "value", "inverse": true, "min": from, "max": last, "minInterval": 1, "name": "tick",
		"nameLocation": "start", "splitLine": map[string]any{"show": false}}
	winEnd := from + (height-top-16)/pxTick
	if winEnd > last {
		winEnd = last
	}
	opt["dataZoom"] = []any{
		map[string]any{"type": "slider", "yAxisIndex": 0, "filterMode": "none", "startValue": from, "endValue": winEnd, "width": 16, "right": 8},
		map[string]any{"type": "inside", "yAxisIndex": 0, "filterMode": "none", "startValue": from, "endValue": winEnd, "zoomOnMouseWheel": false, "moveOnMouseWheel": true},
	}
	meta := map[string]any{"lanes": lanes, "labels": labelTab.names}
	c := &Chart{kind: "sequence", title: title, desc: desc, option: opt, meta: meta, js: sequenceJS, width: width, height: height}

	// SVG: the whole range, one arrow per message.
	svg := newSVG(width, svgH, title, desc)
	svg.text(12, 40, sub, "s", "")
	var items []legendItem
	for _, f := range familyOrder {
		if _, ok := byFam[f.name]; ok {
			items = append(items, legendItem{f.label, f.color, ""})
		}
	}
	svg.legend(12, float64(titleH+10), float64(width-20), items)
	// One arrow head per colour (SVG 1.1 has no context-stroke).
	svg.raw("<defs>")
	for i, f := range familyOrder {
		svg.raw(`<marker id="h` + itoa(i) + `" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="` + f.color + `"/></marker>`)
	}
	svg.raw(`<marker id="hx" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L10 5L0 10z" fill="#D55E00"/></marker></defs>`)
	svg.raw(`<style>.l text{font-size:10px;text-anchor:middle}.e text{fill:#D55E00;font-weight:bold}</style>`)
	x0, x1 := float64(left), float64(width-right)
	gap := (x1 - x0) / float64(len(lanes))
	laneX := func(i int) float64 { return x0 + gap*(float64(i)+0.5) }
	y0 := float64(top)
	yOf := func(t int) float64 { return y0 + float64(t-from)*pxTick }
	for i, l := range lanes {
		x := laneX(i)
		svg.text(x, y0-10, fit(l, gap-8), "m", `font-weight="bold" font-size="12"`)
		svg.line(x, y0-4, x, yOf(last), "g", `stroke-dasharray="4 3"`)
	}
	step := tickStep(pxTick, 40)
	for t := (from + step - 1) / step * step; t <= last; t += step {
		svg.text(x0-12, yOf(t)+4, itoa(t), "r", `fill="#777"`)
		svg.line(x0-8, yOf(t), x0-2, yOf(t), "g", "")
	}
	svg.text(x0-12, y0-10, "tick", "r", `fill="#777"`)
	// Arrows grouped by style so that each element carries only its geometry.
	ri := func(x float64) string { return itoa(int(x + 0.5 - boolf(x < 0))) }
	var errPaths, errLabels strings.Builder
	for fi, f := range familyOrder {
		d, ok := byFam[f.name]
		if !ok {
			continue
		}
		var req, resp, lost, labels strings.Builder
		for _, a := range d {
			fl, tl, t1, t2, flags := a[0].(int), a[2].(int), a[1].(int), a[3].(int), a[4].(int)
			label := labelTab.names[a[5].(int)]
			xa, ya, xb, yb := laneX(fl), yOf(t1), laneX(tl), yOf(t2)
			paths := &req
			if flags&1 != 0 {
				paths = &resp
			}
			lbl := &labels
			if flags&2 != 0 {
				paths, lbl = &errPaths, &errLabels
			}
			if fl == tl { // self message: a small loop
				paths.WriteString(`<path d="M` + ri(xa) + ` ` + ri(ya) + `h26v` + ri(yb-ya) + `h-26"/>`)
				if label == "" {
					continue
				}
				lbl.WriteString(`<text x="` + ri(xa+30) + `" y="` + ri((ya+yb)/2+4) + `" text-anchor="start">` + escXML(label) + `</text>`)
				continue
			}
			k := 0.35
			if flags&4 != 0 { // lost: half way, then ✕
				xb, yb = (xa+xb)/2, (ya+yb)/2
				lost.WriteString(`<path d="M` + ri(xa) + ` ` + ri(ya) + `L` + ri(xb) + ` ` + ri(yb) + `"/>`)
				errLabels.WriteString(`<text x="` + ri(xb) + `" y="` + ri(yb+4) + `" font-size="13">✕</text>`)
				k = 1
			} else {
				paths.WriteString(`<path d="M` + ri(xa) + ` ` + ri(ya) + `L` + ri(xb) + ` ` + ri(yb) + `"/>`)
			}
			slot := a[6].(int)
			if label == "" {
				continue
			}
			lbl.WriteString(`<text x="` + ri(xa+(xb-xa)*k) + `" y="` + ri(ya+(yb-ya)*k-3-11*float64(slot)) + `">` + escXML(fit(label, absf(xb-xa)+40)) + `</text>`)
		}
		g := `<g fill="none" stroke-width="1.3" stroke="` + f.color + `" marker-end="url(#h` + itoa(fi) + `)"`
		if req.Len() > 0 {
			svg.raw(g + ">" + req.String() + "</g>")
		}
		if resp.Len() > 0 {
			svg.raw(g + ` stroke-dasharray="5 3">` + resp.String() + "</g>")
		}
		if lost.Len() > 0 {
			svg.raw(`<g fill="none" stroke-width="1.3" stroke="` + f.color + `" stroke-dasharray="2 2">` + lost.String() + "</g>")
		}
		if labels.Len() > 0 {
			svg.raw(`<g class="l">` + labels.String() + "</g>")
		}
	}
	if errPaths.Len() > 0 {
		svg.raw(`<g fill="none" stroke-width="1.3" stroke="#D55E00" stroke-dasharray="5 3" marker-end="url(#hx)">` + errPaths.String() + "</g>")
	}
	if errLabels.Len() > 0 {
		svg.raw(`<g class="l e">` + errLabels.String() + "</g>")
	}
	c.svg = svg.end()
	return c.withID(cfg)
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func familyLabels() []string {
	var l []string
	for _, f := range familyOrder {
		l = append(l, f.label)
	}
	return l
}

func sequenceDesc(lanes []string, msgs []message, from, to int) string {
	req, resp, errs, lost := 0, 0, 0, 0
	var errList []string
	for _, m := range msgs {
		if m.Response {
			resp++
		} else {
			req++
		}
		if m.Response && m.Err != kgviz.NONE {
			errs++
			if len(errList) < 6 {
				errList = append(errList, fmt.Sprintf("%s to %s at tick %d", m.Err, m.API, m.Tick))
			}
		}
		if m.Dropped {
			lost++
		}
	}
	s := fmt.Sprintf("Sequence diagram of ticks %d to %d between %s: %d requests and %d responses", from, to, strings.Join(lanes, ", "), req, resp)
	if lost > 0 {
		s += fmt.Sprintf(", %d lost", lost)
	}
	s += "."
	if errs > 0 {
		s += fmt.Sprintf(" %d responses carry an error: %s.", errs, strings.Join(errList, "; "))
	}
	return s
}

// sequenceJS draws one arrow per message: line, head, label; errors red,
// responses dashed, lost messages stop half way with a ✕.
const sequenceJS = `function dat(p){return o.series[p.seriesIndex].data[p.dataIndex]}
F.life=function(p,a){var c=a.coord([dat(p)[0],0]),cs=p.coordSys;return{type:"line",shape:{x1:c[0],y1:cs.y,x2:c[0],y2:cs.y+cs.height},style:{stroke:"#bbb",lineDash:[4,3]}}};
function lab(d){return m.labels[d[5]]}
F.arrow=function(p,a){var d=dat(p),L=lab(d),s=a.coord([d[0],d[1]]),e=a.coord([d[2],d[3]]),f=d[4],col=f&2?"#D55E00":a.visual("color"),ch=[];
var dash=f&1?[5,3]:null;if(d[0]===d[2]){var w=26;ch.push({type:"polyline",shape:{points:[s,[s[0]+w,s[1]],[s[0]+w,e[1]],[e[0]+4,e[1]]]},style:{stroke:col,fill:null,lineWidth:1.3,lineDash:dash}});
ch.push({type:"text",x:s[0]+w+4,y:(s[1]+e[1])/2,style:{text:L,fill:col,fontSize:10,verticalAlign:"middle"}});return{type:"group",children:ch}}
if(f&4){e=[(s[0]+e[0])/2,(s[1]+e[1])/2]}
ch.push({type:"line",shape:{x1:s[0],y1:s[1],x2:e[0],y2:e[1]},style:{stroke:col,lineWidth:1.3,lineDash:f&4?[2,2]:dash}});
if(f&4){ch.push({type:"text",x:e[0],y:e[1],style:{text:"✕",fill:"#D55E00",fontSize:14,fontWeight:"bold",align:"center",verticalAlign:"middle"}})}
else{var ang=Math.atan2(e[1]-s[1],e[0]-s[0]),K=8;ch.push({type:"polygon",shape:{points:[e,[e[0]-K*Math.cos(ang-0.4),e[1]-K*Math.sin(ang-0.4)],[e[0]-K*Math.cos(ang+0.4),e[1]-K*Math.sin(ang+0.4)]]},style:{fill:col}})}
var k=f&4?0.5:0.35;ch.push({type:"text",x:s[0]+(e[0]-s[0])*k,y:s[1]+(e[1]-s[1])*k-2-11*d[6],style:{text:L,fill:f&2?"#D55E00":"#222",fontSize:10,fontWeight:f&2?"bold":"normal",align:"center",verticalAlign:"bottom",stroke:"#fff",lineWidth:2}});
return{type:"group",children:ch}};
F.tip=function(p){var d=dat(p),f=d[4],L=m.labels[d[7]];return"tick "+d[1]+": <b>"+esc(m.lanes[d[0]])+" → "+esc(m.lanes[d[2]])+"</b><br>"+esc(L.split(" ")[0])+(f&1?" response":" request")+
(/ g\d+/.test(L)?", generation "+L.match(/ g(\d+)/)[1]:"")+(f&2?'<br><b style="color:#D55E00">'+esc(L.replace(/^.* /,""))+"</b>":"")+(f&4?'<br><b style="color:#D55E00">lost at tick '+d[3]+"</b>":"<br>arrives at tick "+d[3])};
`
