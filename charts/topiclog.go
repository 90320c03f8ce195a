package charts

import (
	"fmt"
	"strings"
)

// cellKinds are the states of a log cell, in legend order.
var cellKinds = []struct{ state, label, color string }{
	{"written", "written (not transactional)", "#CCE7F8"},
	{"committed", "committed (transaction)", "#B3E2D5"},
	{"open", "open transaction (undecided)", "#FFFFFF"},
	{"aborted", "aborted ✗ (readers skip it)", "#F6C9AE"},
	{"marker", "transaction marker", "#666666"},
}

// TopicLog draws a partition's log cell by cell: the record at each offset
// and its state (written; in a transaction: open = white, committed, aborted
// = red ✗; COMMIT/ABORT markers), duplicates outlined in orange, and the
// high watermark (HW), the last stable offset (LSO) and the audit reader's
// position: read_committed reads up to the LSO and skips aborted records,
// read_uncommitted reads up to the HW. The isolation level is the world's
// last "isolation.level=..." EvConfig (default read_uncommitted) unless the
// Isolation option says otherwise. Options: Partitions (log names, default
// "invoices-0"), Isolation, CellsPerRow, Title, Size, ID.
func TopicLog(src Source, opts ...Option) *Chart {
	cfg := newConfig(opts)
	evs := src.Events()
	level := cfg.isolation
	if level == "" {
		level = isolationLevel(evs)
	}
	names := cfg.partitions
	if names == nil {
		names = []string{"invoices-0"}
	}
	perRow := cfg.perRow
	if perRow <= 0 {
		perRow = 14
	}
	var logs []topicLog
	for _, n := range names {
		logs = append(logs, buildLog(evs, n, level))
	}
	title := cfg.title
	if title == "" {
		title = "Topic log: " + strings.Join(names, ", ") + " offset by offset"
	}
	var subs []string
	for _, lg := range logs {
		subs = append(subs, fmt.Sprintf("%s: HW %d, LSO %d, reader (%s) at %d", lg.Name, lg.HW, lg.LSO, lg.Isolation, lg.Reader))
	}
	sub := strings.Join(subs, " · ") + " · tick " + itoa(src.Now())
	desc := topicLogDesc(logs)

	width := cfg.width
	if width == 0 {
		width = defaultWidth
	}
	var legendNames []string
	for _, k := range cellKinds {
		legendNames = append(legendNames, k.label)
	}
	legendNames = append(legendNames, "duplicate (outlined)")
	rows := legendRows(legendNames, float64(width-40))
	const lineH = 44
	top := titleH + rows*18 + 26
	// Lines: each log starts on a new line; an empty log still takes one.
	type line struct {
		log   int
		first int // first offset on the line
	}
	var lines []line
	for i, lg := range logs {
		n := lg.HW
		if n == 0 {
			n = 1
		}
		for off := 0; off < n || off == 0; off += perRow {
			lines = append(lines, line{i, off})
		}
	}
	height := cfg.height
	if height == 0 {
		height = top + len(lines)*lineH + 40
	}
	left, right := 110, 24

	// Option: one custom series per cell state, one for the marks.
	opt := baseOption(title, sub, desc)
	lineOf := map[[2]int]int{}
	var ylabels []string
	for i, l := range lines {
		lineOf[[2]int{l.log, l.first}] = i
		ylabels = append(ylabels, fmt.Sprintf("%s\n%d–%d", logs[l.log].Name, l.first, l.first+perRow-1))
	}
	byKind := map[string][][]any{}
	type mark struct {
		col  float64
		line int
		text string
		kind int
	}
	var marks []mark
	for li, lg := range logs {
		for _, c := range lg.Cells {
			ln := lineOf[[2]int{li, c.Offset / perRow * perRow}]
			label := c.Record
			flags := 0
			if c.Copies > 1 {
				flags |= 1
			}
			if c.Seen {
				flags |= 2
			}
			byKind[c.State] = append(byKind[c.State], []any{c.Offset % perRow, ln, label, flags, cellTip(lg, c)})
		}
		at := func(off int) (float64, int) {
			first := off / perRow * perRow
			if off == first && off > 0 && off == lg.HW {
				// The end of a full line: draw at its right edge.
				first -= perRow
			}
			return float64(off - first), lineOf[[2]int{li, first}]
		}
		hwc, hwl := at(lg.HW)
		lsoc, lsol := at(lg.LSO)
		rc, rl := at(lg.Reader)
		if lg.LSO == lg.HW {
			marks = append(marks, mark{hwc, hwl, fmt.Sprintf("HW = LSO %d", lg.HW), 0})
		} else {
			marks = append(marks, mark{hwc, hwl, fmt.Sprintf("HW %d", lg.HW), 0}, mark{lsoc, lsol, fmt.Sprintf("LSO %d", lg.LSO), 1})
		}
		marks = append(marks, mark{rc, rl, fmt.Sprintf("reader (%s) → %d", lg.Isolation, lg.Reader), 2})
	}
	var series []any
	for _, k := range cellKinds {
		d := byKind[k.state]
		if d == nil {
			d = [][]any{}
		}
		series = append(series, map[string]any{"type": "custom", "name": k.label, "renderItem": fn("cell"), "data": d,
			"itemStyle": map[string]any{"color": k.color, "borderColor": "#444"}, "encode": map[string]any{"x": 0, "y": 1},
			"tooltip": map[string]any{"formatter": fn("tip")}})
	}
	series = append(series, map[string]any{"type": "custom", "name": "duplicate (outlined)", "renderItem": fn("none"), "data": [][]any{},
		"itemStyle": map[string]any{"color": colOrange}})
	var md [][]any
	for _, mk := range marks {
		md = append(md, []any{mk.col, mk.line, mk.text, mk.kind})
	}
	series = append(series, map[string]any{"type": "custom", "name": "HW, LSO, reader", "renderItem": fn("mark"), "data": md,
		"itemStyle": map[string]any{"color": colText}, "encode": map[string]any{"x": 0, "y": 1}, "z": 5, "silent": true, "legendHoverLink": false})
	opt["series"] = series
	opt["legend"] = map[string]any{"top": titleH - 4, "left": 10, "right": 10, "itemWidth": 12, "itemHeight": 10,
		"data": legendNames, "itemStyle": map[string]any{"borderColor": "#444", "borderWidth": 1}}
	opt["grid"] = map[string]any{"left": left, "right": right, "top": top, "bottom": 30}
	opt["xAxis"] = map[string]any{"type": "value", "min": 0, "max": perRow, "interval": 1, "name": "",
		"position": "top", "axisLabel": map[string]any{"show": false}, "splitLine": map[string]any{"show": false}, "axisTick": map[string]any{"show": false}}
	opt["yAxis"] = map[string]any{"type": "category", "data": ylabels, "inverse": true, "name": "partition · offsets", "nameLocation": "start",
		"nameTextStyle": map[string]any{"align": "right", "padding": []int{0, 8, 0, 0}},
		"axisTick":      map[string]any{"show": false}, "axisLabel": map[string]any{"fontSize": 10, "lineHeight": 13}}
	meta := map[string]any{"dark": []int{4}}
	c := &Chart{kind: "topiclog", title: title, desc: desc, option: opt, meta: meta, js: topicLogJS, width: width, height: height}

	// SVG.
	svg := newSVG(width, height, title, desc)
	svg.text(12, 40, fit(sub, float64(width-24)), "s", "")
	var items []legendItem
	for _, k := range cellKinds {
		items = append(items, legendItem{k.label, k.color, `stroke="#444"`})
	}
	items = append(items, legendItem{"duplicate (outlined)", "#FFFFFF", `stroke="#E69F00" stroke-width="3"`})
	svg.legend(12, float64(titleH+10), float64(width-20), items)
	x0, x1 := float64(left), float64(width-right)
	cw := (x1 - x0) / float64(perRow)
	y0 := float64(top)
	for i, l := range lines {
		y := y0 + float64(i)*lineH
		svg.text(x0-8, y+lineH/2-2, logs[l.log].Name, "r", `font-size="10"`)
		svg.text(x0-8, y+lineH/2+10, fmt.Sprintf("%d–%d", l.first, l.first+perRow-1), "r", `font-size="10" fill="#666"`)
	}
	for ki, k := range cellKinds {
		for _, d := range byKind[k.state] {
			col, ln, label, flags := d[0].(int), d[1].(int), d[2].(string), d[3].(int)
			x, y := x0+float64(col)*cw+2, y0+float64(ln)*lineH+8
			w, h := cw-4, float64(lineH-16)
			stroke := `stroke="#444"`
			if flags&1 != 0 {
				stroke = `stroke="#E69F00" stroke-width="3"`
			}
			svg.rect(x, y, w, h, k.color, stroke)
			cls := "m"
			switch {
			case ki == 4:
				cls = "m w"
			case k.state == "aborted":
				cls = "m e"
			}
			svg.text(x+w/2, y+h/2+4, fit(label, (w-4)*1.12), cls, `font-size="10"`) // 10px text: narrower than fit assumes
			if k.state == "aborted" {
				svg.text(x+w-2, y+10, "✗", "e r", `font-size="12"`)
			}
			off := ln
			_ = off
		}
	}
	for _, mk := range marks {
		x := x0 + mk.col*cw
		y := y0 + float64(mk.line)*lineH
		switch mk.kind {
		case 0:
			svg.line(x, y+4, x, y+lineH-4, "", `stroke="#222" stroke-width="3"`)
			svg.text(x+3, y+lineH-1, mk.text, "", `font-size="10" font-weight="bold"`)
		case 1:
			svg.line(x, y+4, x, y+lineH-4, "", `stroke="#0072B2" stroke-width="3"`)
			svg.text(x+3, y+6, mk.text, "", `font-size="10" font-weight="bold" fill="#0072B2"`)
		case 2:
			svg.raw(`<path d="M` + num(x-6) + ` ` + num(y-1) + `L` + num(x+6) + ` ` + num(y-1) + `L` + num(x) + ` ` + num(y+7) + `z" fill="#009E73"/>`)
			svg.text(x-8, y+3, mk.text, "r", `font-size="10" fill="#006B4F" font-weight="bold"`)
		}
	}
	c.svg = svg.end()
	return c.withID(cfg)
}

func cellTip(lg topicLog, c logCell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s offset %d (tick %d)\n", lg.Name, c.Offset, c.Tick)
	if c.Marker != "" {
		fmt.Fprintf(&b, "%s marker of PID %d", c.Marker, c.PID)
		return b.String()
	}
	b.WriteString(c.Record)
	if c.PID >= 0 {
		fmt.Fprintf(&b, " · PID %d epoch %d", c.PID, c.Epoch)
	}
	b.WriteString("\n")
	switch c.State {
	case "written":
		b.WriteString("written, not in a transaction")
	case "committed":
		b.WriteString("transactional, committed")
	case "open":
		b.WriteString("transactional, open: no marker yet")
	case "aborted":
		b.WriteString("transactional, aborted: read_committed readers skip it")
	}
	if c.Copies > 1 {
		fmt.Fprintf(&b, "\nduplicate: copy %d of %d", c.Copy, c.Copies)
	}
	if c.Seen {
		fmt.Fprintf(&b, "\nseen by the reader (%s)", lg.Isolation)
	} else {
		fmt.Fprintf(&b, "\nnot seen by the reader (%s)", lg.Isolation)
	}
	return b.String()
}

func topicLogDesc(logs []topicLog) string {
	var parts []string
	for _, lg := range logs {
		counts := map[string]int{}
		dups := 0
		for _, c := range lg.Cells {
			counts[c.State]++
			if c.Marker == "" && c.Copy > 1 {
				dups++
			}
		}
		s := fmt.Sprintf("%s holds %d offsets: %d written, %d committed, %d open, %d aborted, %d markers; %d duplicate copies. High watermark %d, last stable offset %d; the %s reader is at offset %d and has seen %d duplicates.",
			lg.Name, len(lg.Cells), counts["written"], counts["committed"], counts["open"], counts["aborted"], counts["marker"], dups, lg.HW, lg.LSO, lg.Isolation, lg.Reader, lg.SeenDup)
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

const topicLogJS = `var E;function dat(p){return o.series[p.seriesIndex].data[p.dataIndex]}
F.none=function(){return null};
F.cell=function(p,a){var d=dat(p),s=a.coord([d[0],d[1]]),e=a.coord([d[0]+1,d[1]]),h=a.size([0,1])[1]-14,w=e[0]-s[0]-4,dup=d[3]&1,mk=p.seriesIndex===4,ab=p.seriesIndex===3;
var r={type:"rect",shape:{x:s[0]+2,y:s[1]-h/2,width:w,height:h},style:{fill:a.visual("color"),stroke:dup?"#E69F00":"#444",lineWidth:dup?3:1},
textContent:{style:{text:String(d[2]),fill:mk?"#fff":ab?"#D55E00":"#222",fontSize:10,fontWeight:ab?"bold":"normal",width:w-4,overflow:"truncate"}},textConfig:{position:"inside"}};
return ab?{type:"group",children:[r,{type:"text",x:s[0]+w-1,y:s[1]-h/2+1,style:{text:"✗",fill:"#D55E00",fontSize:12,fontWeight:"bold",align:"right",verticalAlign:"top"}}]}:r};
F.mark=function(p,a){var d=dat(p),c=a.coord([d[0],d[1]]),h=a.size([0,1])[1],k=d[3],t=c[1]-h/2;
if(k===2)return{type:"group",children:[{type:"polygon",shape:{points:[[c[0]-6,t-1],[c[0]+6,t-1],[c[0],t+7]]},style:{fill:"#009E73"}},{type:"text",x:c[0]-8,y:t-6,style:{text:d[2],fill:"#006B4F",fontSize:10,fontWeight:"bold",align:"right"}}]};
var col=k===1?"#0072B2":"#222";return{type:"group",children:[{type:"line",shape:{x1:c[0],y1:t+4,x2:c[0],y2:t+h-4},style:{stroke:col,lineWidth:3}},
{type:"text",x:c[0]+3,y:k===1?t+2:t+h-2,style:{text:d[2],fill:col,fontSize:10,fontWeight:"bold",verticalAlign:k===1?"top":"bottom"}}]}};
F.tip=function(p){return esc(dat(p)[4]).replace(/\n/g,"<br>")};
`
