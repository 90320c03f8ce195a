// library.js is the block that puts the vendored ECharts library on a page,
// once: it does nothing when window.echarts already exists. The library runs
// with define, exports and module shadowed, so that under RequireJS (classic
// Notebook, nbconvert's HTML export) its UMD wrapper still sets
// window.echarts instead of registering an anonymous AMD module. Then every
// chart that was waiting for the library (window.__kgvizQ) is drawn.
// The line "// @echarts" is replaced by the library (assets.go).
//
// Once it has put the library on a page, the block keeps its own text in the
// browser (localStorage, per origin, under "kgviz " + its data-kgviz-library
// value): a chart output that comes without the library, because the kernel
// already sent it to a page that has since been reloaded or reopened, loads
// it from there (boot.js). Where storage is off or full, such a chart keeps
// its static picture, as before.
(function () {
  var w = window;
  var me = document.currentScript;
  if (!(w.echarts && w.echarts.init)) {
    (function (define, exports, module) {
// @echarts
    }).call(w);
    var tag = me && me.dataset && me.dataset.kgvizLibrary;
    if (tag && me.text) {
      try {
        var key = "kgviz " + tag;
        if ((w.localStorage.getItem(key) || "").length !== me.text.length) {
          w.localStorage.setItem(key, me.text);
        }
      } catch (e) {
        // No storage (an iframe of another origin, a full quota): nothing kept.
      }
    }
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
