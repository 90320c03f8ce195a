// common.js holds what the views' functions share. It runs inside the
// chart's own function: `chart` is the chart's data (id, width, height,
// option, meta) and the views add their functions to F, where the option's
// go-echarts function references ("__f__NAME__f__") find them.

// esc escapes text for a tooltip, which ECharts shows as HTML.
function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) {
    return "&#" + c.charCodeAt(0) + ";";
  });
}

// lines escapes each line of a text and joins them with <br>.
function lines(s) {
  return String(s).split("\n").map(esc).join("<br>");
}

// item returns the values of the data item a renderItem or formatter call
// is about (go-echarts writes data items as {value: [...]}).
function valuesOf(d) {
  return d && d.value !== undefined ? d.value : d;
}

function item(params) {
  return valuesOf(chart.option.series[params.seriesIndex].data[params.dataIndex]);
}

// ticks renders the ticks [s, e).
function ticks(s, e) {
  return e - s > 1 ? "ticks " + s + "–" + (e - 1) : "tick " + s;
}

// clipToPlot clips a rectangle to the plot area (undefined if nothing is left).
function clipToPlot(rect, params) {
  var cs = params.coordSys;
  return window.echarts.graphic.clipRectByRect(rect, {x: cs.x, y: cs.y, width: cs.width, height: cs.height});
}

// A label layout that follows zoom and width. Labels are given in data
// order, most important first, each with its box at the current scale
// (boxOf). visibleLabels lays them out once per scale (the plot's size and
// the axis windows, probed with api.coord) and tells which ones can be drawn
// without overlapping an earlier one. At the scale of the static picture
// every label is visible: the view models placed them so (Go tests check).
var labelCache = {};

function visibleLabels(key, api, params, boxes) {
  var cs = params.coordSys;
  var p0 = api.coord([0, 0]), p1 = api.coord([1, 1]);
  var sig = [cs.x, cs.y, cs.width, cs.height, p0[0], p0[1], p1[0], p1[1]].join(",");
  var c = labelCache[key];
  if (c && c.sig === sig) {
    return c.visible;
  }
  var all = boxes(api);
  var placed = [];
  var visible = {};
  for (var i = 0; i < all.length; i++) {
    var b = all[i];
    if (!b) {
      continue;
    }
    var free = b.x0 >= cs.x - 1 && b.x1 <= cs.x + cs.width + 1 && b.y0 >= cs.y - 1 && b.y1 <= cs.y + cs.height + 1;
    for (var j = 0; free && j < placed.length; j++) {
      var o = placed[j];
      if (b.x0 < o.x1 - 0.5 && o.x0 < b.x1 - 0.5 && b.y0 < o.y1 - 0.5 && o.y0 < b.y1 - 0.5) {
        free = false;
      }
    }
    if (free) {
      placed.push(b);
      visible[b.id] = true;
    }
  }
  labelCache[key] = {sig: sig, visible: visible};
  return visible;
}

// Time marks (timeline, heatmap): a vertical line across the plot at a tick
// and its label in a row above the plot. Data: [x, 0, row, mark]; the mark's
// label, tooltip, dash, label width and side are chart.meta.marks[mark] =
// [label, text, dashed, width, left].
// Every series drawn by F.vmark shares one label layout.
function markBoxes(api) {
  var out = [];
  chart.option.series.forEach(function (s, si) {
    if (s.renderItem !== F.vmark) {
      return;
    }
    s.data.forEach(function (d, di) {
      var v = valuesOf(d), m = chart.meta.marks[v[3]];
      var x = api.coord([v[0], 0])[0], y = markLabelY(v[2]);
      var x0 = m[4] ? x - 3 - m[3] : x + 3;
      out.push({id: si + ":" + di, x0: x0, x1: x0 + m[3], y0: y - 11, y1: y + 1});
    });
  });
  return out;
}

// markLabelY is the baseline of a row of mark labels (rows grow upwards
// from just above the plot).
function markLabelY(row) {
  return chart.meta.plotTop - 4 - row * 13;
}

F.vmark = function (params, api) {
  var v = item(params), m = chart.meta.marks[v[3]], cs = params.coordSys;
  var x = api.coord([v[0], 0])[0];
  if (x < cs.x - 0.5 || x > cs.x + cs.width + 0.5) {
    return null;
  }
  var color = api.visual("color");
  var children = [{
    type: "line",
    shape: {x1: x, y1: cs.y, x2: x, y2: cs.y + cs.height},
    style: {stroke: color, lineWidth: m[2] ? 1 : 1.6, lineDash: m[2] ? [4, 3] : null}
  }];
  var plotBox = {x: cs.x - 40, y: 0, width: cs.width + 56, height: cs.y + cs.height};
  var visible = visibleLabels("marks", api, {coordSys: plotBox}, markBoxes);
  if (visible[params.seriesIndex + ":" + params.dataIndex]) {
    children.push({
      type: "text", x: m[4] ? x - 5 : x + 5, y: markLabelY(v[2]),
      style: {text: m[0], fill: color, fontSize: 10, verticalAlign: "bottom", align: m[4] ? "right" : "left"}
    });
  }
  return {type: "group", children: children};
};

F.markTip = function (params) {
  return lines(chart.meta.marks[item(params)[3]][1]);
};
