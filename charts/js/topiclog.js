// topiclog.js: the topic log's functions (see topiclog_echarts.go).
// chart.meta: texts (by number), cellHeight.

F.none = function () {
  return null;
};

// F.cell draws one offset: its state's fill, an orange outline when the
// reader sees the record more than once, a ✗ on the top right corner of
// aborted records (clear of the centred text).
// Data: [column, line, text, flags (1 duplicate, 2 seen, 4 aborted, 8 marker), tooltip].
F.cell = function (params, api) {
  var v = item(params);
  var s = api.coord([v[0], v[1]]), e = api.coord([v[0] + 1, v[1]]);
  var h = chart.meta.cellHeight, w = e[0] - s[0] - 4, dup = v[3] & 1;
  var rect = {
    type: "rect",
    shape: {x: s[0] + 2, y: s[1] - h / 2, width: w, height: h},
    style: {fill: api.visual("color"), stroke: dup ? "#E69F00" : "#444", lineWidth: dup ? 3 : 1},
    textContent: {
      style: {text: chart.meta.texts[v[2]], fill: v[3] & 8 ? "#fff" : "#222", fontSize: 10, width: w - 4, overflow: "truncate"}
    },
    textConfig: {position: "inside"}
  };
  if (!(v[3] & 4)) {
    return rect;
  }
  return {
    type: "group",
    children: [rect, {
      type: "text", x: s[0] + 2 + w + 2, y: s[1] - h / 2,
      style: {text: "✗", fill: "#D55E00", fontSize: 11, fontWeight: "bold", align: "right", verticalAlign: "middle", stroke: "#fff", lineWidth: 2}
    }]
  };
};

// F.mark draws the HW (black bar), the LSO (blue bar) or the reader (green
// triangle) and its label where the view model placed it.
// Data: [column, line, kind (0 HW, 1 LSO, 2 reader), text, dx, dy, align].
F.mark = function (params, api) {
  var v = item(params), c = api.coord([v[0], v[1]]), h = chart.meta.cellHeight;
  var top = c[1] - h / 2;
  var text = {
    type: "text", x: c[0] + v[4], y: top + v[5] + 2,
    style: {
      text: chart.meta.texts[v[3]], fontSize: 10, fontWeight: "bold",
      align: v[6] === 2 ? "right" : "left", verticalAlign: "bottom"
    }
  };
  if (v[2] === 2) {
    text.style.fill = "#006B4F";
    return {type: "group", children: [{
      type: "polygon",
      shape: {points: [[c[0] - 6, top - 1], [c[0] + 6, top - 1], [c[0], top + 7]]},
      style: {fill: "#009E73"}
    }, text]};
  }
  var color = v[2] === 1 ? "#0072B2" : "#222";
  text.style.fill = color;
  return {type: "group", children: [{
    type: "line",
    shape: {x1: c[0], y1: top - 4, x2: c[0], y2: top + h + 4},
    style: {stroke: color, lineWidth: 3}
  }, text]};
};

F.tip = function (params) {
  return lines(chart.meta.texts[item(params)[4]]);
};
