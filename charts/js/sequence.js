// sequence.js: the sequence diagram's functions (see sequence_echarts.go).
// chart.meta: lanes, texts (by number), marks ([label, tooltip, dashed,
// width]) and labels: every label the view model placed, most important
// first (the ✕ of lost messages, the marks' labels, the arrows' labels):
// [text, from lane, t1, to lane, t2, k, dx, dy, align, width, height, red]. A label sits at fraction k of its arrow, shifted by dx px, aligned
// centre (0), left (1) or right (2); a mark's label (from lane -1) sits at
// the right end of its line.

var RED = "#D55E00";

// F.life draws a lane's lifeline. Data: [lane, first tick].
F.life = function (params, api) {
  var x = api.coord([item(params)[0], 0])[0], cs = params.coordSys;
  return {
    type: "line",
    shape: {x1: x, y1: cs.y, x2: x, y2: cs.y + cs.height},
    style: {stroke: "#bbb", lineDash: [4, 3]}
  };
};

// labelBox is a label's box at the current zoom and width.
function labelBox(l, api, cs) {
  var x, y;
  if (l[1] < 0) {
    x = cs.x + cs.width - 2;
    y = api.coord([0, l[2]])[1] - l[10] / 2 - 1;
  } else {
    var s = api.coord([l[1], l[2]]), e = api.coord([l[3], l[4]]);
    x = s[0] + l[5] * (e[0] - s[0]) + l[6];
    y = s[1] + l[5] * (e[1] - s[1]) + l[7];
  }
  var w = l[9], h = l[10];
  var x0 = l[8] === 1 ? x : l[8] === 2 ? x - w : x - w / 2;
  return {x0: x0, x1: x0 + w, y0: y - h / 2, y1: y + h / 2};
}

// visible tells which labels fit at the current zoom and width.
function visible(api, params) {
  return visibleLabels("sequence", api, params, function (api) {
    return chart.meta.labels.map(function (l, i) {
      var b = labelBox(l, api, params.coordSys);
      b.id = i;
      return b;
    });
  });
}

// label draws label i (an index into chart.meta.labels) with a white halo.
function label(i, api, params, color) {
  var l = chart.meta.labels[i], b = labelBox(l, api, params.coordSys);
  var align = l[8] === 1 ? "left" : l[8] === 2 ? "right" : "center";
  // A label's box has 4 px of room left and right of its text.
  var x = l[8] === 1 ? b.x0 + 4 : l[8] === 2 ? b.x1 - 4 : (b.x0 + b.x1) / 2;
  return {
    type: "text", x: x, y: (b.y0 + b.y1) / 2, z2: 10,
    style: {
      text: chart.meta.texts[l[0]], fill: l[11] ? RED : color, fontSize: 10,
      fontWeight: l[11] ? "bold" : "normal", align: align, verticalAlign: "middle",
      stroke: "#fff", lineWidth: 3
    }
  };
}

// head is an arrow head at point e, pointing along the angle a.
function head(e, a, color) {
  var k = 8;
  return {
    type: "polygon",
    shape: {points: [e, [e[0] - k * Math.cos(a - 0.4), e[1] - k * Math.sin(a - 0.4)], [e[0] - k * Math.cos(a + 0.4), e[1] - k * Math.sin(a + 0.4)]]},
    style: {fill: color}
  };
}

// F.arrow draws one message (or several identical ones): a solid request,
// a dashed response (red with an error code), a lost one stopping half way
// in a ✕, a message to itself as a loop; and its label if it fits.
// Data: [from lane, t1, to lane, t2, flags (1 response, 2 error, 4 lost),
// label (-1 none), full text, count, ✕ (-1 none)].
F.arrow = function (params, api) {
  var v = item(params), flags = v[4];
  var s = api.coord([v[0], v[1]]), e = api.coord([v[2], v[3]]);
  var color = flags & 2 ? RED : api.visual("color");
  var dash = flags & 1 ? [5, 3] : null;
  var children = [];
  if (v[0] === v[2]) {
    var w = 26;
    children.push({
      type: "polyline",
      shape: {points: [s, [s[0] + w, s[1]], [s[0] + w, e[1]], [s[0] + 4, e[1]]]},
      style: {stroke: color, fill: null, lineWidth: 1.3, lineDash: dash}
    });
    children.push(head([s[0] + 4, e[1]], Math.PI, color));
  } else if (flags & 4) {
    var mid = [(s[0] + e[0]) / 2, (s[1] + e[1]) / 2];
    children.push({type: "line", shape: {x1: s[0], y1: s[1], x2: mid[0], y2: mid[1]}, style: {stroke: color, lineWidth: 1.3, lineDash: [2, 2]}});
    // The ✕ is laid out with the labels: where lost messages follow each
    // other closer than it is high, the first one shows.
    if (visible(api, params)[v[8]]) {
      children.push({
        type: "text", x: mid[0], y: mid[1],
        style: {text: "✕", fill: RED, fontSize: 13, fontWeight: "bold", align: "center", verticalAlign: "middle"}
      });
    }
  } else {
    children.push({type: "line", shape: {x1: s[0], y1: s[1], x2: e[0], y2: e[1]}, style: {stroke: color, lineWidth: 1.3, lineDash: dash}});
    children.push(head(e, Math.atan2(e[1] - s[1], e[0] - s[0]), color));
  }
  if (v[5] >= 0 && visible(api, params)[v[5]]) {
    children.push(label(v[5], api, params, "#222"));
  }
  return {type: "group", children: children};
};

// F.hmark draws a configuration change or the stop across the lanes.
// Data: [0, tick, label (-1 none), mark].
F.hmark = function (params, api) {
  var v = item(params), cs = params.coordSys, y = api.coord([0, v[1]])[1];
  if (y < cs.y - 0.5 || y > cs.y + cs.height + 0.5) {
    return null;
  }
  var m = chart.meta.marks[v[3]], color = api.visual("color");
  var children = [{
    type: "line",
    shape: {x1: cs.x, y1: y, x2: cs.x + cs.width, y2: y},
    style: {stroke: color, lineWidth: 1.2, lineDash: m[2] ? [4, 3] : null}
  }];
  if (v[2] >= 0 && visible(api, params)[v[2]]) {
    children.push(label(v[2], api, params, color));
  }
  return {type: "group", children: children};
};

// F.tip names a message: who to whom, API, generation or member epoch, error, arrival.
F.tip = function (params) {
  var v = item(params), flags = v[4], full = chart.meta.texts[v[6]];
  var words = full.split(" "), gen = /^([ge])(\d+)$/.exec(words[1] || "");
  var t = "tick " + v[1] + ": <b>" + esc(chart.meta.lanes[v[0]]) + " → " + esc(chart.meta.lanes[v[2]]) + "</b><br>" +
    esc(words[0]) + (flags & 1 ? " response" : " request") + (gen ? (gen[1] === "e" ? ", member epoch " : ", generation ") + gen[2] : "");
  if (v[7] > 1) {
    t += " ×" + v[7];
  }
  if (flags & 2) {
    t += '<br><b style="color:' + RED + '">' + esc(words[words.length - 1]) + "</b>";
  }
  t += flags & 4 ? '<br><b style="color:' + RED + '">lost at tick ' + v[3] + "</b>" : "<br>arrives at tick " + v[3];
  return t;
};
