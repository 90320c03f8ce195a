// timeline.js: the member timeline's functions (see timeline_echarts.go).
// chart.meta: lanes (names), texts (labels and tooltips by number), sent
// (requests and responses by lane: [tick, lane, text, flags]), marks.

// textPx measures a label at the bars' font (10px, ECharts' sans-serif).
var measurer = null;
function textPx(s) {
  if (!measurer) {
    measurer = document.createElement("canvas").getContext("2d");
    measurer.font = "10px sans-serif";
  }
  return measurer.measureText(s).width;
}

// barText is what a bar width px wide shows: a coordinator bar (its label
// has shorter forms in chart.meta.short, longest first) the longest form
// that fits whole, or nothing, never a cut group state; any other bar its
// label, cut with "…" by ECharts where it does not fit.
function barText(id, width) {
  var short = chart.meta.short && chart.meta.short[id];
  if (!short) {
    return chart.meta.texts[id];
  }
  var forms = [id].concat(short);
  for (var i = 0; i < forms.length; i++) {
    if (textPx(chart.meta.texts[forms[i]]) <= width) {
      return chart.meta.texts[forms[i]];
    }
  }
  return "";
}

// F.bar draws a state's bar on a lane. Data: [lane, start, end, label, dark,
// covered] (covered: a moment's glyph sits on the label, which is left out).
F.bar = function (params, api) {
  var v = item(params);
  var s = api.coord([v[1], v[0]]), e = api.coord([v[2], v[0]]);
  var h = api.size([0, 1])[1] * 0.56;
  var r = clipToPlot({x: s[0], y: s[1] - h / 2, width: e[0] - s[0], height: h}, params);
  if (!r) {
    return null;
  }
  return {
    type: "rect",
    shape: r,
    style: {fill: api.visual("color"), stroke: "#fff", lineWidth: 0.5},
    textContent: {
      style: {
        text: r.width > 18 && !v[5] ? barText(v[3], r.width - 4) : "",
        fill: v[4] ? "#fff" : "#222", fontSize: 10, width: r.width - 4, overflow: "truncate"
      }
    },
    textConfig: {position: "inside"}
  };
};

// F.strip draws a zombie period under a lane. Data: [lane, start, end].
F.strip = function (params, api) {
  var v = item(params);
  var s = api.coord([v[1], v[0]]), e = api.coord([v[2], v[0]]);
  var h = api.size([0, 1])[1];
  var r = clipToPlot({x: s[0], y: s[1] + h * 0.3, width: e[0] - s[0], height: h * 0.16}, params);
  return r ? {type: "rect", shape: r, style: {fill: api.visual("color")}} : null;
};

// F.moment draws a crash, restart, ... glyph on a lane, dx px right of its
// tick where the view model moved it past the glyph before it.
// Data: [lane, tick, glyph, text, dx].
F.moment = function (params, api) {
  var v = item(params);
  var c = api.coord([v[1], v[0]]), h = api.size([0, 1])[1];
  return {
    type: "text", x: c[0] + v[4], y: c[1] - h * 0.5 + 2,
    style: {
      text: chart.meta.texts[v[2]], fill: "#D55E00", fontSize: 13, fontWeight: "bold",
      align: "center", verticalAlign: "top", stroke: "#fff", lineWidth: 2
    }
  };
};

// requests lists what a lane sent and received in ticks [s, e).
function requests(lane, s, e) {
  var out = [], count = {};
  chart.meta.sent.forEach(function (q) {
    if (q[1] !== lane || q[0] < s || q[0] >= e) {
      return;
    }
    var k = (q[3] & 1 ? "← " : "→ ") + chart.meta.texts[q[2]];
    if (!count[k]) {
      count[k] = {n: 0, error: (q[3] & 2) !== 0};
      out.push(k);
    }
    count[k].n++;
  });
  return out.slice(0, 8).map(function (k) {
    var t = esc(k) + (count[k].n > 1 ? " ×" + count[k].n : "");
    return count[k].error ? '<span style="color:#D55E00">' + t + "</span>" : t;
  }).join("<br>");
}

F.tip = function (params) {
  var v = item(params), lane = chart.meta.lanes[v[0]], label = chart.meta.texts[v[3]];
  var t = "<b>" + esc(lane) + "</b> · " + esc(params.seriesName);
  if (label !== "" && v[0] > 0) {
    t += " <b>" + esc(label) + "</b>";
  }
  t += "<br>" + ticks(v[1], v[2]);
  var r = requests(v[0], v[1], v[2]);
  return r ? t + "<br>" + r : t;
};

F.zombieTip = function (params) {
  var v = item(params);
  return "<b>" + esc(chart.meta.lanes[v[0]]) + "</b> is a zombie: its process runs outside the group<br>" + ticks(v[1], v[2]);
};

F.momentTip = function (params) {
  var v = item(params);
  return "<b>" + esc(chart.meta.lanes[v[0]]) + "</b> tick " + v[1] + ": " + esc(chart.meta.texts[v[3]]);
};
