// sharepartition.js: the share-partition in-flight window's functions (see
// sharepartition_echarts.go). chart.meta: labels and tips (by bar), glyphs
// and markTips (by end of an acquisition).

// F.sbar draws a record's stretch in one state. Data: [row, start, end,
// bar, dark]. The holder's label ("C3 #2") is drawn whole where it fits,
// else not at all (the tooltip names it).
F.sbar = function (params, api) {
  var v = item(params);
  var s = api.coord([v[1], v[0]]), e = api.coord([v[2], v[0]]);
  var h = api.size([0, 1])[1] * 0.7;
  var r = clipToPlot({x: s[0], y: s[1] - h / 2, width: e[0] - s[0], height: h}, params);
  if (!r) {
    return null;
  }
  var label = chart.meta.labels[v[3]];
  var fits = label && measureLabel(label) <= r.width - 4;
  return {
    type: "rect",
    shape: r,
    style: {fill: api.visual("color"), stroke: "#fff", lineWidth: 0.5},
    textContent: {style: {text: fits ? label : "", fill: v[4] ? "#fff" : "#222", fontSize: 10}},
    textConfig: {position: "inside"}
  };
};

// measureLabel measures a label at the bars' font (10px, ECharts' sans-serif).
var labelCanvas = null;
function measureLabel(s) {
  if (!labelCanvas) {
    labelCanvas = document.createElement("canvas").getContext("2d");
    labelCanvas.font = "10px sans-serif";
  }
  return labelCanvas.measureText(s).width;
}

F.stip = function (params) {
  var v = item(params);
  return esc(chart.meta.tips[v[3]]) + "<br>" + ticks(v[1], v[2]);
};

// F.send draws the glyph of how an acquisition ended. Data: [row, tick, mark].
F.send = function (params, api) {
  var v = item(params);
  var c = api.coord([v[1], v[0]]);
  return {
    type: "text", x: c[0], y: c[1],
    style: {
      text: chart.meta.glyphs[v[2]], fill: "#D55E00", fontSize: 13, fontWeight: "bold",
      align: "center", verticalAlign: "middle", stroke: "#fff", lineWidth: 2
    }
  };
};

F.sendTip = function (params) {
  return esc(chart.meta.markTips[item(params)[2]]);
};
