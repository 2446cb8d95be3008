// cairn web UI: a little behaviour on top of server-rendered pages. No
// network requests of its own, no external code.
(function () {
  "use strict";
  // hovering a node dims what is not joined to it
  document.querySelectorAll("svg.graph").forEach(function (svg) {
    var edges = Array.prototype.slice.call(svg.querySelectorAll(".edge"));
    svg.querySelectorAll(".node").forEach(function (node) {
      var id = node.getAttribute("data-node");
      node.addEventListener("mouseenter", function () {
        var near = {}; near[id] = true;
        edges.forEach(function (e) {
          var f = e.getAttribute("data-from"), t = e.getAttribute("data-to");
          var on = f === id || t === id;
          if (on) { near[f] = true; near[t] = true; }
          e.classList.toggle("dim", !on);
        });
        svg.querySelectorAll(".node").forEach(function (n) {
          n.classList.toggle("dim", !near[n.getAttribute("data-node")]);
        });
      });
      node.addEventListener("mouseleave", function () {
        svg.querySelectorAll(".dim").forEach(function (n) { n.classList.remove("dim"); });
      });
    });
  });
  // the depth control applies at once
  var depth = document.getElementById("depth");
  if (depth) { depth.addEventListener("change", function () { depth.form.submit(); }); }
  // a source line asked for is scrolled into view
  var here = document.querySelector(".code .here");
  if (here) { here.scrollIntoView({ block: "center" }); }
})();
