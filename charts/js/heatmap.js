// heatmap.js: the partition ownership heatmap's functions (see
// heatmap_echarts.go). chart.meta: parts, from (the first tick), gens
// ([tick, generation] in order), genWord (what the number is called:
// "generation", or a KIP-848 group's "group epoch"), marks, owners (the
// member names), colors (their colours), sets (the owner sets of cells held
// by several members at once: a share group, KIP-932).

// generationAt returns the group's generation at a tick (0: none yet).
function generationAt(tick) {
  var g = 0;
  chart.meta.gens.forEach(function (c) {
    if (c[0] <= tick) {
      g = c[1];
    }
  });
  return g;
}

// F.tip names a cell: partition, tick, owner or state, generation.
// Data: [tick index, partition, state].
F.tip = function (params) {
  var v = params.value, tick = chart.meta.from + v[0], g = generationAt(tick);
  var what;
  if (v[2] === -2) {
    what = "paused: the group is rebalancing, nobody consumes it";
  } else if (v[2] === -3) {
    what = '<b style="color:#D55E00">unassigned</b>: the assignor gave it to nobody';
  } else {
    what = "owned by <b>" + esc(params.seriesName) + "</b>";
  }
  return "<b>" + esc(chart.meta.parts[v[1]]) + "</b> · tick " + tick + "<br>" + what + (g ? "<br>" + esc(chart.meta.genWord || "generation") + " " + g : "");
};

// F.shared draws a cell held by several members (a share group): one
// horizontal stripe per member, in its colour. Data: [tick index, partition, set].
F.shared = function (params, api) {
  var v = item(params), set = chart.meta.sets[v[2]];
  var c = api.coord([v[0], v[1]]), size = api.size([1, 1]);
  var x = c[0] - size[0] / 2, y = c[1] - size[1] / 2 + 1, h = (size[1] - 2) / set.length;
  var children = set.map(function (o, i) {
    var r = clipToPlot({x: x, y: y + i * h, width: size[0], height: h}, params);
    return r ? {type: "rect", shape: r, style: {fill: chart.meta.colors[o]}} : null;
  }).filter(function (r) { return r; });
  return {type: "group", children: children};
};

// F.sharedTip names a shared cell's partition, tick and every member holding it.
F.sharedTip = function (params) {
  var v = item(params), tick = chart.meta.from + v[0], g = generationAt(tick);
  var names = chart.meta.sets[v[2]].map(function (o) { return "<b>" + esc(chart.meta.owners[o]) + "</b>"; });
  return "<b>" + esc(chart.meta.parts[v[1]]) + "</b> · tick " + tick + "<br>held by " + names.join(", ") +
    " at once: a share group's members each acquire their own records" + (g ? "<br>" + esc(chart.meta.genWord || "generation") + " " + g : "");
};
