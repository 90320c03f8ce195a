// library.js is the block that puts the vendored ECharts library on a page,
// once: it does nothing when window.echarts already exists. The library runs
// with define, exports and module shadowed, so that under RequireJS (classic
// Notebook, nbconvert's HTML export) its UMD wrapper still sets
// window.echarts instead of registering an anonymous AMD module. Then every
// chart that was waiting for the library (window.__kgvizQ) is drawn.
// The line "// @echarts" is replaced by the library (assets.go).
(function () {
  var w = window;
  if (!(w.echarts && w.echarts.init)) {
    (function (define, exports, module) {
// @echarts
    }).call(w);
  }
  var queue = w.__kgvizQ || [];
  w.__kgvizQ = [];
  for (var i = 0; i < queue.length; i++) {
    try {
      queue[i](w.echarts);
    } catch (e) {
      // One chart's error must not stop the others; report it.
      setTimeout(function () { throw e; });
    }
  }
})();
