// boot.js draws one chart. It runs inside the chart's own function, after
// `chart` (the element id, the chart's width and height, the ECharts option
// and the view's data `meta`), common.js and the view's functions in F.
//
// The chart's element holds the static SVG picture. This script waits until
// ECharts is on the page (the library block drains window.__kgvizQ) and the
// element is attached and has a width, replaces the go-echarts function
// references by the view's functions, draws, and only then removes the
// picture. Re-running it on a drawn element does nothing. Like the picture,
// the live chart keeps its layout and scales down in a narrower output.

// resolve replaces the go-echarts function references ("__f__NAME__f__",
// written by opts.FuncOpts(NAME) in Go) by the view's function F[NAME]. It
// looks only where ECharts takes a function (renderItem, formatter), so
// that a member named "__f__tip__f__" stays a name; nothing is evaluated.
var FUNCTION_KEYS = {renderItem: true, formatter: true};

function resolve(x) {
  if (Array.isArray(x)) {
    for (var i = 0; i < x.length; i++) {
      x[i] = resolve(x[i]);
    }
    return x;
  }
  if (x && typeof x === "object") {
    for (var k in x) {
      if (!Object.prototype.hasOwnProperty.call(x, k)) {
        continue;
      }
      var v = x[k];
      if (FUNCTION_KEYS[k] && typeof v === "string" && v.slice(0, 5) === "__f__" && v.slice(-5) === "__f__" &&
          Object.prototype.hasOwnProperty.call(F, v.slice(5, -5))) {
        x[k] = F[v.slice(5, -5)];
      } else {
        x[k] = resolve(v);
      }
    }
  }
  return x;
}

function draw(echarts, attempt) {
  var el = document.getElementById(chart.id);
  attempt = attempt || 0;
  if (!el || !el.isConnected) {
    // Not in the document yet (JupyterLab attaches outputs after running
    // their scripts): try again for up to ten seconds.
    if (attempt < 200) {
      setTimeout(function () { draw(echarts, attempt + 1); }, 50);
    }
    return;
  }
  if (el.getAttribute("data-kgviz-drawn") || el.getAttribute("data-kgviz-waiting")) {
    return;
  }
  if (!el.clientWidth && window.ResizeObserver) {
    // Attached but without a width (a hidden or collapsed output): draw as
    // soon as it gets one, at its own width.
    el.setAttribute("data-kgviz-waiting", "1");
    var ro = new ResizeObserver(function () {
      if (el.clientWidth) {
        ro.disconnect();
        el.removeAttribute("data-kgviz-waiting");
        draw(echarts, attempt);
      }
    });
    ro.observe(el);
    return;
  }
  el.setAttribute("data-kgviz-drawn", "1");
  // The chart is laid out in Go for its width (legend rows, banners, label
  // places), as its picture is: it is drawn at that width and, in a
  // narrower output, scaled down as a whole, the way the picture scales.
  var box = document.createElement("div");
  box.style.cssText = "width:" + chart.width + "px;height:" + chart.height + "px;transform-origin:0 0";
  el.appendChild(box);
  function fit() {
    var scale = Math.min(1, el.clientWidth / chart.width);
    box.style.transform = scale < 1 ? "scale(" + scale + ")" : "";
    el.style.height = Math.ceil(chart.height * scale) + "px";
  }
  try {
    // window.kgvizRenderer = "svg" draws with ECharts' SVG renderer (tests
    // measure the text it lays out; it also prints more crisply).
    var renderer = window.kgvizRenderer === "svg" ? "svg" : "canvas";
    var instance = echarts.init(box, null, {renderer: renderer, width: chart.width, height: chart.height});
    instance.setOption(resolve(chart.option));
    var picture = el.querySelector("img");
    if (picture) {
      el.removeChild(picture);
    }
    fit();
    if (window.ResizeObserver) {
      new ResizeObserver(fit).observe(el);
    }
  } catch (e) {
    el.removeChild(box);
    el.style.height = "";
    el.removeAttribute("data-kgviz-drawn");
    throw e;
  }
}

// fromBrowser puts the library on the page from the copy an earlier library
// block kept in the browser (js/library.js), when there is one: a chart
// displayed after the page was reloaded or reopened, while the kernel that
// had already sent the library ran on, comes without it. The copy is the
// whole library block: it drains window.__kgvizQ, this chart included.
function fromBrowser() {
  var src = null;
  try {
    src = window.localStorage.getItem("kgviz " + LIBRARY);
  } catch (e) {
    return;
  }
  if (!src || (window.echarts && window.echarts.init)) {
    return;
  }
  var s = document.createElement("script");
  s.setAttribute("data-kgviz-cached", LIBRARY);
  s.text = src;
  (document.head || document.documentElement).appendChild(s);
}

if (window.echarts && window.echarts.init) {
  draw(window.echarts, 0);
} else {
  (window.__kgvizQ = window.__kgvizQ || []).push(function (echarts) { draw(echarts, 0); });
  fromBrowser();
}
