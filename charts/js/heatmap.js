// heatmap.js: the partition ownership heatmap's functions (see
// heatmap_echarts.go). chart.meta: parts, from (the first tick), gens
// ([tick, generation] in order), genWord (what the number is called:
// "generation", or a KIP-848 group's "group epoch"), marks.

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
