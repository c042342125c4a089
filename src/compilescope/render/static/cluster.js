/* compilescope: the report of a job's ranks (render/cluster_html.py). What diverged between the
 * ranks first, then one tab per rank; a rank's tab draws the single-session report
 * (report.js's renderSession) from that rank's data in the page, when it is opened.
 * Every string goes into the DOM as text, never as HTML.
 */
(function () {
  "use strict";
  var holder = document.getElementById("cluster");
  var source = document.getElementById("compilescope-cluster");
  if (!holder || !source || !window.compilescopeReport) return;
  var C = JSON.parse(source.textContent);
  var report = window.compilescopeReport;

  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (key) {
      if (key === "onclick") node.addEventListener("click", attrs[key]);
      else node.setAttribute(key, attrs[key]);
    });
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function add(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined) continue;
      if (Array.isArray(child)) child.forEach(function (c) { add(node, c); });
      else node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  function seconds(value) {
    if (value === null || value === undefined) return "unknown";
    return value >= 1 ? value.toFixed(2) + " s" : (value * 1000).toFixed(value >= 0.01 ? 0 : 1) + " ms";
  }
  function who(labels) { return labels.join(", "); }

  var header = el("header", { id: "cluster-header" }, el("h1", null, "compilescope"),
    el("div", null, C.rank_lines.length + " ranks · ", el("span", { "class": "target" }, C.source)));
  var summary = el("section", { id: "divergences" }, el("h2", null, "Where the ranks diverged"));
  add(summary, el("p", { "class": "headline" }, C.headline));
  C.problems.forEach(function (p) { add(summary, el("div", { "class": "finding warning problem-note" }, el("div", { "class": "title" }, "▲ " + p))); });
  C.divergences.forEach(function (d) {
    var box = el("div", { "class": "finding warning divergence", "data-aspect": d.aspect }, el("div", { "class": "title" }, d.title));
    var table = el("table", null, el("tr", null, el("th", null, "ranks"), el("th", null, "what they did"), el("th", null, "only they")));
    d.groups.forEach(function (g) {
      var only = el("td", { "class": "mono" });
      g.only_here.forEach(function (item) { add(only, el("div", null, item)); });
      add(table, el("tr", null, el("td", null, rankLinks(g)), el("td", null, g.summary), only));
    });
    add(box, table, el("div", { "class": "advice" }, "→ " + d.meaning));
    add(summary, box);
  });
  if (!C.divergences.length && C.rank_lines.length > 1) add(summary, el("p", null, "The ranks compiled the same way. " + (C.compile_time || "")));
  else if (C.compile_time) add(summary, el("p", { "class": "muted" }, C.compile_time));

  var ranksTable = el("table", { id: "rank-table" }, el("tr", null, ["rank", "compiles", "recompiles", "graph break occurrences", "compile time", "log"].map(function (h) { return el("th", null, h); })));
  C.rank_lines.forEach(function (r) {
    var eager = r.compiles && !r.graphs ? el("div", { "class": "unknown" }, "no graph: it ran eagerly") : null;
    add(ranksTable, el("tr", null, el("td", null, rankLink(r.index, r.label), eager), el("td", null, r.compiles), el("td", null, r.recompiles),
      el("td", null, r.graph_breaks), el("td", null, seconds(r.compile_time_s)), el("td", { "class": "mono" }, r.trace || "", r.incomplete.length ? el("div", { "class": "unknown" }, "incomplete: " + r.incomplete[0]) : null)));
  });
  var findings = el("section", { id: "cluster-findings" }, el("h2", null, "What to look at, across the ranks"));
  if (!C.findings.length) add(findings, el("p", { "class": "muted" }, "Nothing stands out."));
  C.findings.slice(0, 200).forEach(function (f) {
    var box = el("div", { "class": "finding " + f.level }, el("div", { "class": "title" }, f.title));
    if (f.detail) add(box, el("div", { "class": "detail" }, f.detail));
    if (f.act_line) add(box, el("div", { "class": "muted" }, f.act_line));
    if (f.cost_line) add(box, el("div", { "class": "muted cost" }, f.cost_line));
    if (f.fix) add(box, el("div", { "class": "advice" }, "→ " + f.fix));
    add(findings, box);
  });

  var tabs = el("nav", { id: "rank-tabs", "class": "tabs" });
  var rankView = el("div", { id: "rank-view" });
  C.rank_lines.forEach(function (r) { add(tabs, el("button", { "data-rank-index": String(r.index), onclick: function () { showRank(r.index); } }, r.label)); });
  add(holder, header, el("main", { "class": "cluster" }, summary, el("section", { id: "ranks" }, el("h2", null, "Ranks"), ranksTable), findings,
    el("section", { id: "rank-detail" }, el("h2", null, "Each rank"), tabs)), rankView);

  function rankLinks(group) {
    var out = [];
    group.labels.forEach(function (label, i) {
      var line = C.rank_lines.filter(function (r) { return r.label === label; })[0];
      if (i) out.push(", ");
      out.push(line ? rankLink(line.index, label) : label);
    });
    return out;
  }
  function rankLink(index, label) {
    return el("a", { href: "#rank-" + index, "data-rank-link": String(index) }, label);
  }
  var shown = null;
  function showRank(index) {
    if (shown === index) return;
    var data = document.getElementById("compilescope-r" + index + "-data");
    if (!data) return;
    shown = index;
    var buttons = tabs.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) buttons[i].classList.toggle("active", buttons[i].getAttribute("data-rank-index") === String(index));
    rankView.textContent = "";
    var app = el("div", { "class": "rank-app", "data-rank-index": String(index) });
    rankView.appendChild(app);
    report.renderSession(app, JSON.parse(data.textContent), report.blocksOf("compilescope-r" + index + "-block-"));
  }
  function route() {
    var match = /^#rank-(\d+)$/.exec(location.hash);
    if (match) { showRank(Number(match[1])); rankView.scrollIntoView(); }
  }
  window.addEventListener("hashchange", route);
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[data-rank-link]") : null;
    if (link) showRank(Number(link.getAttribute("data-rank-link")));
  });
  // the first rank that diverged (or rank 0) is open from the start
  var first = C.divergences.length && C.divergences[0].groups.length > 1 ? C.divergences[0].groups[1].labels[0] : null;
  var start = C.rank_lines.filter(function (r) { return r.label === first; })[0] || C.rank_lines[0];
  if (start) showRank(start.index);
  if (location.hash) route();
  document.body.setAttribute("data-ready", "true");
})();
