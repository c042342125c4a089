/* compilescope report: renders the session JSON embedded in the page.
 *
 * Every string from the session goes into the DOM as text (el() appends text nodes), never as
 * HTML; the one exception is highlight.js's output, which it builds from escaped text.
 * Heavy parts (graphs, guards, kernels, code) are built only when opened, and read only then:
 * each compile's details and each .py file are a JSON block of their own (html.py), parsed the
 * first time they are shown. A compile whose details the page left out (past its budget) says so.
 */
(function () {
  "use strict";

  // The view of one session, drawn into `app` from its page data and its blocks (block(n)
  // parses block n). A cluster page (cluster.js) draws one rank at a time with it: only the
  // latest view answers the page's events.
  var latestView = 0;
  function renderSession(app, data, block) {
    var view = ++latestView;
    function current() { return view === latestView; }
    var S = data.session;
    // the sections written once as views (html.py: views_data)
    var views = data.views || { bench: [], profile: null, bench_profiles: [] };
    // A bench report (benchmarks, nothing compiled in this process: bench compiles in its
    // workers) leads with its verdicts and the machine's state, not with empty counts.
    var benchOnly = (data.bench_lead || []).length > 0 && !S.frames.length && !(S.children || []).length;
    // The compiled functions come in blocks (html.py: a string has a length limit in the browser).
    (data.frame_blocks || []).forEach(function (n) {
      var part = block(n);
      for (var i = 0; i < part.length; i++) S.frames.push(part[i]);
    });
    var LAZY_ROWS = 2000;
    var NAV_COMPILES = 200; // versions of one function listed in the navigation before "show more"
    var PART = 500; // functions, findings shown before "show more"
    var HIGHLIGHT_LIMIT = 300000; // characters; longer code is shown plain, to stay fast
    var STAGES = [
      ["dynamo_s", "Dynamo (tracing Python)", "--stage-dynamo"],
      ["aot_autograd_s", "AOT Autograd", "--stage-aot"],
      ["inductor_s", "Inductor (lowering)", "--stage-inductor"],
      ["codegen_s", "Inductor code generation", "--stage-codegen"],
      ["kernel_compile_s", "C++/Triton compiler", "--stage-compiler"],
      ["from_cache_s", "loaded from cache", "--stage-cache"],
      ["backward_s", "backward (compiled later)", "--stage-backward"]
    ];

    // ---- small DOM helpers ---------------------------------------------------------------------
    // Control characters of the user's strings shown visibly, as the terminal shows them
    // (render/text.py): a "\r" or NUL in a graph break's message is seen, not hidden or made a
    // line break; the bidirectional overrides cannot reorder what is shown.
    var CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
    function visible(text) {
      return text.replace(CONTROL, function (c) {
        var code = c.charCodeAt(0);
        if (code < 0x20) return String.fromCharCode(0x2400 + code);
        if (code === 0x7f) return "\u2421";
        return code <= 0xff ? "\\x" + code.toString(16) : "\\u" + code.toString(16);
      });
    }
    function el(tag, attrs) {
      var node = document.createElement(tag);
      if (attrs) {
        Object.keys(attrs).forEach(function (key) {
          var value = attrs[key];
          if (value === undefined || value === null) return;
          if (key === "class") node.className = value;
          else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
          else node.setAttribute(key, value);
        });
      }
      for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
      return node;
    }
    function add(node) {
      for (var i = 1; i < arguments.length; i++) {
        var child = arguments[i];
        if (child === undefined || child === null || child === false) continue;
        if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); continue; }
        node.appendChild(child instanceof Node ? child : document.createTextNode(visible(String(child))));
      }
    }
    function unknown(value, suffix) {
      if (value === undefined || value === null) return el("span", { "class": "unknown" }, "unknown");
      return String(value) + (suffix || "");
    }
    function seconds(value) {
      if (value === undefined || value === null) return el("span", { "class": "unknown" }, "unknown");
      return value.toFixed(2) + " s";
    }
    function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }
    // where a function is, for the user: torch's wrapper of a module compiled whole is placed at the
// user's torch.compile call of it (frame.compiled_at), not in torch's files
function framePlace(frame) {
  var line = frame.lineno === null || frame.lineno === undefined ? "?" : String(frame.lineno);
  return frame.compiled_at ? "compiled at " + shortPath(frame.compiled_at) : shortPath(frame.filename) + ":" + line;
}

function shortPath(path) {
      if (!path) return "unknown file";
      var parts = path.split("/");
      return parts.length > 2 ? parts.slice(-2).join("/") : path;
    }
    function statusBadge(status) {
      return el("span", { "class": "badge status-" + status.replace(/ /g, "-") }, status);
    }
    function lazy(summary, build, open) {
      // A <details> whose body is built the first time it opens.
      var details = el("details", open ? { open: "" } : null, el("summary", null, summary));
      var built = false;
      function fill() { if (!built && details.open) { built = true; add(details, build()); } }
      details.addEventListener("toggle", fill);
      if (open) fill();
      return details;
    }
    function codeBlock(code, language) {
      code = visible(code);
      var pre = el("pre", { "class": "code" });
      var inner = el("code", { "class": "language-" + language });
      pre.appendChild(inner);
      if (window.hljs && code.length <= HIGHLIGHT_LIMIT) {
        try {
          inner.innerHTML = window.hljs.highlight(code, { language: language, ignoreIllegals: true }).value;
          return pre;
        } catch (error) { /* fall back to plain text below */ }
      }
      inner.textContent = code;
      return pre;
    }
    function rowsTable(headers, rows, makeRow) {
      // A table that renders LAZY_ROWS rows at a time, so a 20,000-node graph stays responsive.
      var table = el("table", null, el("tr", null, headers.map(function (h) { return el("th", null, h); })));
      var shown = 0;
      var wrapper = el("div", null, table);
      var more = el("button", null, "");
      function next() {
        var end = Math.min(rows.length, shown + LAZY_ROWS);
        var fragment = document.createDocumentFragment();
        for (; shown < end; shown++) fragment.appendChild(makeRow(rows[shown], shown));
        table.appendChild(fragment);
        if (shown < rows.length) {
          more.textContent = "show " + Math.min(LAZY_ROWS, rows.length - shown) + " more of " + rows.length;
          if (!more.parentNode) wrapper.appendChild(more);
        } else if (more.parentNode) {
          more.parentNode.removeChild(more);
        }
      }
      more.addEventListener("click", next);
      next();
      return wrapper;
    }

    // ---- views: sections written once as blocks (render/blocks.py, to_data) ---------------------
    // A block is {kind: "heading" | "lines" | "table" | "code", ...}; a line or a cell is a list
    // of [text, style] spans, the style class names (dim, bold, yellow...). The terminal draws the
    // same blocks (to_rich); every string goes in here as text (add), never as HTML.
    function spansOf(spans) {
      return spans.map(function (span) { return span[1] ? el("span", { "class": span[1] }, span[0]) : span[0]; });
    }
    function blocksTable(block, untitled) {
      var columns = block.columns;
      var table = rowsTable(columns.map(function (c) { return c.header; }), block.rows, function (row) {
        if (row.note) return el("tr", null, el("td", null, spansOf(row.cells[0])), el("td", { colspan: String(columns.length - 1) }, spansOf(row.cells[1] || [])));
        return el("tr", null, row.cells.map(function (cell, i) {
          var column = columns[i] || {};
          // (a name or free text may be one long word: a library's kernel, a path)
          return el("td", { "class": column.justify === "right" ? "right" : (column.long ? "mono wrap" : (i === 0 ? "wrap" : null)) }, spansOf(cell));
        }));
      });
      return [block.title && !untitled ? el("div", { "class": "caption" }, block.title) : null, table];
    }
    function drawBlocks(blocks, fold) {
      // fold ("open" or "closed"): the view under its first table's title, in a <details> built
      // when it is opened (a table of every kernel); else the view as it is.
      function draw(untitled) {
        return el("div", { "class": "blocks" }, blocks.map(function (block, index) {
          if (block.kind === "heading") return el("h3", null, block.text);
          if (block.kind === "lines") return el("div", { "class": block.mono ? "mono" : null }, block.lines.map(function (line) { return el("div", { "class": "line" }, spansOf(line)); }));
          if (block.kind === "table") return blocksTable(block, untitled && index === 0);
          return [codeBlock(block.text, block.lexer), block.more ? el("div", { "class": "dim" }, block.more) : null];
        }));
      }
      var first = blocks[0];
      if (!fold || !first || first.kind !== "table" || !first.title) return draw(false);
      return lazy(first.title, function () { return draw(true); }, fold === "open");
    }

    // ---- the session, flattened ---------------------------------------------------------------
    var compiles = [];
    var byId = {};  // compile id -> its entries (ids repeat across functions, and after a reset)
    S.frames.forEach(function (frame, f) {
      frame.compiles.forEach(function (c, i) {
        var entry = { frame: frame, frameIndex: f, compile: c, indexInFrame: i, index: compiles.length };
        compiles.push(entry);
        (byId[c.compile_id] = byId[c.compile_id] || []).push(entry);
      });
    });
    function compileById(id, frameName) {
      var found = Object.prototype.hasOwnProperty.call(byId, id) ? byId[id] : [];
      for (var i = 0; i < found.length; i++) if (!frameName || found[i].frame.name === frameName) return found[i];
      return null;
    }
    // A compile's details, read from its block the first time they are needed.
    var EMPTY_DETAILS = { failed_guards: [], restarts: [], graph_breaks: [], graphs: [], guards: [], guards_text: "", dynamic: [],
      aot: { forward: null, backward: null, inference: null }, kernels: [], inductor_code: "", transformed_code: null, original_code: null, records: [], passes: null };
    function details(entry) {
      var c = entry.compile;
      if (c.loaded) return c;
      var found = c.details === null || c.details === undefined ? EMPTY_DETAILS : block(c.details);
      Object.keys(EMPTY_DETAILS).forEach(function (key) { c[key] = Object.prototype.hasOwnProperty.call(found, key) ? found[key] : EMPTY_DETAILS[key]; });
      c.guard_function = found.guard_function || null;
      c.left_out = c.details === null;
      c.loaded = true;
      return c;
    }
    function firstCompileOfFrame(name) {
      for (var i = 0; i < compiles.length; i++) if (compiles[i].frame.name === name) return compiles[i];
      return null;
    }
    function compileLink(entry, text) {
      return el("a", { href: "#compile-" + entry.index, "data-compile": String(entry.index) }, text || (entry.frame.name + " " + entry.compile.compile_id));
    }

    // ---- page -------------------------------------------------------------------------------------
    function header() {
      var p = S.program;
      var env = S.environment || {};
      var h = el("header", null, el("h1", null, "compilescope"));
      if (p) {
        var line = el("div", null, p.kind === "capture" ? "" : p.kind + " ", el("span", { "class": "target" }, p.target));
        if (p.argv && p.argv.length) add(line, " " + p.argv.join(" "));
        if (p.exit_status !== null && p.exit_status !== undefined) add(line, " · exit status " + p.exit_status);
        if (p.exception) add(line, " · raised ", el("span", { "class": "actual", title: p.exception }, data.exception_line || p.exception));
        if (p.wall_time_s !== null && p.wall_time_s !== undefined) add(line, " · ran " + p.wall_time_s.toFixed(1) + " s");
        if (S.rank !== null && S.rank !== undefined) add(line, " · rank " + S.rank);
        add(h, line);
      }
      add(h, el("div", { "class": "env" },
        "Python ", unknown(env.python), " · torch ", unknown(env.torch), " · device ", unknown(env.device),
        env.threads ? " · " + env.threads + " threads" : "", " · C++ compiler ", unknown(env.compiler)));
      if (data.memory_line) add(h, el("div", { "class": "env memory", title: data.memory_meaning }, data.memory_line));
      return h;
    }

    function navigation() {
      var nav = el("nav", { id: "nav" });
      if (benchOnly) {  // (bench's page: its verdicts and its figures, nothing compiled here)
        add(nav, el("a", { "class": "section-link", href: "#verdict" }, "Verdict"));
        add(nav, el("a", { "class": "section-link", href: "#runtime" }, "Runtime"));
        return nav;
      }
      if ((data.bench_lead || []).length) add(nav, el("a", { "class": "section-link", href: "#verdict" }, "Verdict"));
      add(nav, el("a", { "class": "section-link", href: "#overview" }, "Overview"));
      add(nav, el("a", { "class": "section-link", href: "#findings" }, "What to look at (" + data.findings.length + ")"));
      add(nav, el("a", { "class": "section-link", href: "#time" }, "Compile time"));
      add(nav, el("a", { "class": "section-link", href: "#timeline" }, "Compile timeline"));
      add(nav, el("a", { "class": "section-link", href: "#runtime" }, "Runtime"));
      add(nav, el("div", { "class": "section-link" }, "Compiled functions"));
      // A tree that mirrors the code: a resume function sits under the function whose graph break it continues.
      var childrenOf = {};
      var roots = [];
      S.frames.forEach(function (frame, f) {
        var parent = null;
        if (frame.resumes) {
          var fn = frame.resumes.split(" line ")[0];
          for (var g = 0; g < S.frames.length; g++) {
            if (g !== f && S.frames[g].name === fn && S.frames[g].filename === frame.filename) { parent = g; break; }
          }
        }
        if (parent === null) roots.push(f);
        else (childrenOf[parent] = childrenOf[parent] || []).push(f);
      });
      function frameItem(f) {
        var frame = S.frames[f];
        var item = el("li", null, el("div", { "class": "frame", title: (frame.filename || "") + ":" + frame.lineno }, frame.label || frame.name,
          el("span", { "class": "muted" }, " " + framePlace(frame))));
        var list = el("ul");
        var own = compilesOf[f] || [];
        function versionItem(entry) {
          return el("li", null, el("a", { "class": "compile", href: "#compile-" + entry.index, id: "nav-compile-" + entry.index, "data-compile": String(entry.index) },
            entry.compile.compile_id + " ", statusBadge(entry.compile.status)));
        }
        own.slice(0, NAV_COMPILES).forEach(function (entry) { add(list, versionItem(entry)); });
        if (own.length > NAV_COMPILES) {
          // A function compiled thousands of times: its versions are listed on request.
          var rest = el("li", null, el("button", { onclick: function () {
            var fragment = document.createDocumentFragment();
            own.slice(NAV_COMPILES).forEach(function (entry) { fragment.appendChild(versionItem(entry)); });
            rest.parentNode.replaceChild(fragment, rest);
          } }, "show " + (own.length - NAV_COMPILES) + " more versions"));
          add(list, rest);
        }
        (childrenOf[f] || []).forEach(function (child) {
          var sub = frameItem(child);
          add(list, sub);
        });
        add(item, list);
        return item;
      }
      var compilesOf = {};
      compiles.forEach(function (entry) { (compilesOf[entry.frameIndex] = compilesOf[entry.frameIndex] || []).push(entry); });
      var tree = inParts(roots, frameItem, "functions", "ul");
      add(nav, tree);
      return nav;
    }
    // The first PART items now, the rest a button press away: thousands of functions or
    // findings stay quick to open.
    function inParts(items, make, what, tag) {
      var holder = el(tag || "div");
      var shown = 0;
      var more = el("button", null, "");
      function next() {
        var end = Math.min(items.length, shown + PART);
        var fragment = document.createDocumentFragment();
        for (; shown < end; shown++) fragment.appendChild(make(items[shown]));
        if (more.parentNode) more.parentNode.removeChild(more);
        holder.appendChild(fragment);
        if (shown < items.length) {
          more.textContent = "show " + Math.min(PART, items.length - shown) + " more of " + items.length + " " + what;
          holder.appendChild(tag === "ul" ? el("li", null, more) : more);
        }
      }
      more.addEventListener("click", next);
      next();
      return holder;
    }
    function unknownText(value) { return value === null || value === undefined ? "?" : String(value); }

    function overview() {
      var total = 0, any = false, kernels = 0, graphs = 0, breaks = 0, recompiles = 0, failed = 0;
      compiles.forEach(function (entry) {
        var c = entry.compile;
        if (c.compile_time_s !== null) { total += c.compile_time_s; any = true; }
        kernels += c.counts.kernels; graphs += c.counts.graphs; breaks += c.counts.graph_breaks;
        if (c.recompile_reason) recompiles++;
        if (c.status === "failed") failed++;
      });
      function card(n, label) { return el("div", { "class": "card" }, el("div", { "class": "n" }, n), el("div", { "class": "l" }, label)); }
      // The counts and their words are the terminal's (session/counts.py), given with the data.
      var counted = data.counts || {};
      function count(name, fallback) {
        var n = counted[name] === undefined ? fallback : counted[name];
        var words = (data.count_words || {})[name];
        return card(n, words ? words[n === 1 ? 0 : 1] : name);
      }
      var section = el("section", { id: "overview" }, el("h2", null, "Overview"));
      add(section, el("div", { "class": "cards" },
        count("functions", S.frames.length), count("compiles", compiles.length),
        count("recompiles", recompiles), count("graph_break_places", breaks), count("graph_break_occurrences", breaks),
        count("failed", failed), count("graphs", graphs), count("kernels", kernels),
        card(any ? total.toFixed(2) + " s" : "unknown", "compile time")));
      if (compiles.length && data.compile_id_note) add(section, el("p", { "class": "muted", id: "compile-ids" }, data.compile_id_note));
      var children = S.children || [];
      var compiledInChildren = children.filter(function (c) { return c.compiles > 0; });
      if (!compiles.length) add(section, el("p", null, compiledInChildren.length
        ? "The program's own process compiled nothing; its child processes did (below)."
        : "torch.compile compiled nothing in this session."));
      if (children.length) add(section, childrenPart(children));
      if (data.left_out) add(section, el("p", { "class": "unknown" }, "This report holds the details (graphs, guards, kernels, code) of the first " +
        (compiles.length - data.left_out) + " of " + compiles.length + " compiles (" + (data.details_budget / 1e6).toFixed(0) + " MB); the other " + data.left_out +
        " are listed, without their details, which the session's JSON holds: compilescope report SESSION.json --frame NAME --show all prints them."));
      if (S.skipped && S.skipped.length) {
        add(section, lazy("Skipped while reading the trace (" + S.skipped.length + ")", function () {
          return el("ul", null, S.skipped.map(function (s) { return el("li", { "class": "mono" }, s); }));
        }));
      }
      return section;
    }

    // The program's child processes (compilescope run follows them): each has its own trace.
    function childrenPart(children) {
      var compiled = children.filter(function (c) { return c.compiles > 0; });
      var missed = children.filter(function (c) { return !c.followed; });
      var idle = children.length - compiled.length - missed.length;
      var parts = [el("h3", null, "Child processes")];
      if (compiled.length) {
        parts.push(rowsTable(["pid", "rank", "process", "functions compiled", "compiles", "recompiles", "graph break occurrences", "kernels", "compile time", "its trace"], compiled, function (c) {
          return el("tr", null, el("td", null, unknown(c.pid)), el("td", null, c.rank === null ? "" : String(c.rank)), el("td", null, c.command),
            el("td", null, String(c.functions)), el("td", null, String(c.compiles)), el("td", null, String(c.recompiles)), el("td", null, String(c.graph_breaks)),
            el("td", null, String(c.kernels)), el("td", null, seconds(c.compile_time_s)),
            el("td", { "class": "mono" }, c.trace ? "compilescope report " + c.trace : unknown(null), c.why_not ? el("div", { "class": "unknown" }, c.why_not) : null));
        }));
      }
      if (idle > 0) parts.push(el("p", { "class": "muted" }, idle + (idle === 1 ? " more child process was" : " more child processes were") + " followed and compiled nothing."));
      if (missed.length) {
        parts.push(el("p", null, "Not followed (what they compiled is not in this session):"));
        parts.push(el("ul", null, missed.map(function (c) { return el("li", null, el("span", { "class": "mono" }, c.command), ": ", c.why_not || "unknown why"); })));
      }
      return el("div", { id: "children" }, parts);
    }

    function findingsSection() {
      var section = el("section", { id: "findings" }, el("h2", null, "What to look at"));
      if (!data.findings.length) add(section, el("p", { "class": "muted" }, "Nothing stands out."));
      function box(f) {
        var found = el("div", { "class": "finding " + f.level }, el("div", { "class": "title" }, f.title));
        if (f.detail) add(found, el("div", { "class": "detail" }, f.detail));
        if (f.act_line) add(found, el("div", { "class": "muted" }, f.act_line));
        if (f.cost_line) add(found, el("div", { "class": "muted cost" }, f.cost_line));
        if (f.fix) add(found, el("div", { "class": "advice" }, "→ " + f.fix));
        if (f.try_line) add(found, el("div", { "class": "mono" }, f.try_line));
        var frame = (f.frames || []).length === 1 ? f.frames[0] : null;
        var links = [];
        (f.compile_ids || []).slice(0, 8).forEach(function (id) {
          var entry = compileById(id, frame);
          if (entry) links.push(" ", compileLink(entry));
        });
        if (links.length) add(found, el.apply(null, ["div", null, "see"].concat(links, (f.compile_ids.length > 8 ? [" …"] : []))));
        return found;
      }
      add(section, inParts(data.findings, box, "findings"));
      if (data.findings_left_out) add(section, el("p", { "class": "unknown" }, data.findings_left_out + " more findings are not in this report (it holds the first " +
        data.findings.length + ", most important first); the compiles they are about are all listed under Compiled functions."));
      return section;
    }

    // ---- charts (SVG) ------------------------------------------------------------------------------
    var SVG = "http://www.w3.org/2000/svg";
    function svg(tag, attrs) {
      var node = document.createElementNS(SVG, tag);
      Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      return node;
    }
    function stageColor(name) { return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888"; }
    function stackedBars(rows, width) {
      // rows: [{label, values: {stageKey: seconds}, total}]
      var labelWidth = 230, barWidth = width - labelWidth - 70, rowHeight = 20;
      var max = 0;
      rows.forEach(function (r) { max = Math.max(max, r.total); });
      var chart = svg("svg", { "class": "chart", width: width, height: rows.length * rowHeight + 6, role: "img" });
      rows.forEach(function (r, i) {
        var y = i * rowHeight + 3;
        var label = svg("text", { x: 0, y: y + 13 });
        label.textContent = r.label.length > 34 ? r.label.slice(0, 33) + "…" : r.label;
        var title = svg("title", {});
        title.textContent = r.label;
        label.appendChild(title);
        chart.appendChild(label);
        var x = labelWidth;
        STAGES.forEach(function (stage) {
          var v = r.values[stage[0]];
          if (!v || max <= 0) return;
          var w = Math.max(1, v / max * barWidth);
          var rect = svg("rect", { x: x, y: y, width: w, height: rowHeight - 5, fill: stageColor(stage[2]) });
          var tip = svg("title", {});
          tip.textContent = stage[1] + ": " + v.toFixed(3) + " s";
          rect.appendChild(tip);
          chart.appendChild(rect);
          x += w;
        });
        var value = svg("text", { x: x + 4, y: y + 13 });
        value.textContent = r.total.toFixed(2) + " s";
        chart.appendChild(value);
      });
      return chart;
    }
    function legend(rows) {
      var present = STAGES.filter(function (s) { return rows.some(function (r) { return r.values[s[0]]; }); });
      return el("div", { "class": "legend" }, present.map(function (s) {
        var swatch = el("i");
        swatch.style.background = stageColor(s[2]);
        return el("span", null, swatch, s[1]);
      }));
    }
    function timeSection() {
      var section = el("section", { id: "time" }, el("h2", null, "Compile time"));
      var byStage = {}, total = 0;
      var rows = [];
      compiles.forEach(function (entry) {
        var t = entry.compile.time || {};
        var values = {}, sum = 0;
        STAGES.forEach(function (s) { if (t[s[0]]) { values[s[0]] = t[s[0]]; sum += t[s[0]]; byStage[s[0]] = (byStage[s[0]] || 0) + t[s[0]]; } });
        total += sum;
        if (sum > 0) rows.push({ label: entry.frame.name + " " + entry.compile.compile_id, values: values, total: sum });
      });
      if (!rows.length) { add(section, el("p", { "class": "unknown" }, "torch reported no compile times in this session.")); return section; }
      add(section, el("p", null, total.toFixed(2) + " s in all (the compile time the terminal gives): each compile from Dynamo's start to Inductor's code" +
        (byStage.backward_s ? ", and " + byStage.backward_s.toFixed(2) + " s compiling backward graphs at the first backward call" : "") + "."));
      add(section, el("h3", null, "By stage, all compiles"));
      add(section, stackedBars([{ label: "all compiles", values: byStage, total: total }], 860));
      add(section, legend(rows));
      var stageRows = STAGES.filter(function (s) { return byStage[s[0]]; }).map(function (s) { return [s[1], byStage[s[0]]]; });
      add(section, el("table", null, el("tr", null, el("th", null, "stage"), el("th", null, "seconds"), el("th", null, "share")),
        stageRows.map(function (r) { return el("tr", null, el("td", null, r[0]), el("td", null, r[1].toFixed(3)), el("td", null, (100 * r[1] / total).toFixed(0) + "%")); })));
      var slowest = rows.slice().sort(function (a, b) { return b.total - a.total; }).slice(0, 40);
      add(section, el("h3", null, rows.length > 40 ? "By compile (the 40 slowest of " + rows.length + ")" : "By compile"));
      add(section, stackedBars(slowest, 860));
      return section;
    }

    // The compile timeline (session/timeline.py): torch's timed stages on a wall-clock Gantt, one
    // row per track and nesting depth; zoom with the buttons or the wheel over the chart.
    function timelineSection() {
      var T = S.timeline, torch = (S.environment || {}).torch || "unknown";
      var section = el("section", { id: "timeline" }, el("h2", null, "Compile timeline"));
      if (!T) { add(section, el("p", { "class": "unknown" }, "not in this trace (torch " + torch + "): no timing events (chromium_event) were recorded.")); return section; }
      var stated = null;  // unknown where torch reported no compile's time
      S.frames.forEach(function (f) { f.compiles.forEach(function (c) { if (c.compile_time_s !== null && c.compile_time_s !== undefined) stated = (stated || 0) + c.compile_time_s; }); });
      add(section, el("p", null, plural(T.span_count, "stage") + " torch timed on " + plural(T.tracks.length, "track") +
        (T.whole_compiles_s !== null ? "; its whole-compile spans (entire_frame_compile, and entire_backward_compile for a backward compiled later) add up to " + T.whole_compiles_s.toFixed(2) + " s, the compile time stated above is " + (stated === null ? "unknown" : stated.toFixed(2) + " s") : "") + "."));
      if (T.not_drawn) add(section, el("p", { "class": "muted" }, T.not_drawn + " shorter stages (" + T.not_drawn_s.toFixed(3) + " s in all) are not drawn: the page draws the " + T.spans.length + " longest; the --timeline file has every one."));
      if (T.unmatched) add(section, el("p", { "class": "muted" }, T.unmatched + " begin or end events without their pair in the trace are left out."));
      var end = T.spans.reduce(function (m, s) { return Math.max(m, s.start_s + s.duration_s); }, 0) || 1;
      // rows: each track, then each nesting depth in it, outermost first
      var depths = {}, rows = {}, count = 0;
      T.spans.forEach(function (s) { depths[s.track] = Math.max(depths[s.track] || 0, s.depth + 1); });
      T.tracks.concat(Object.keys(depths).filter(function (t) { return T.tracks.indexOf(t) < 0; })).forEach(function (t) { rows[t] = count; count += depths[t] || 0; });
      var zoom = 1, inner = el("div", { "class": "gantt-inner" });
      inner.style.height = (count * 20 + 4) + "px";
      T.spans.forEach(function (s) {
        var bar = el("div", { "class": "gantt-bar", title: s.name + " · " + (s.compile_id || "no compile id") + (s.frame ? " · " + s.frame : "") + " · " + s.duration_s.toFixed(4) + " s at " + s.start_s.toFixed(3) + " s" }, s.name);
        bar.style.left = (100 * s.start_s / end) + "%";
        bar.style.width = Math.max(100 * s.duration_s / end, 0.05) + "%";
        bar.style.top = ((rows[s.track] + s.depth) * 20) + "px";
        bar.style.background = "var(" + STAGES[Math.abs(hashOf(s.name)) % STAGES.length][2] + ")";
        inner.appendChild(bar);
      });
      var chart = el("div", { "class": "gantt", role: "img", "aria-label": "compile timeline" }, inner);
      function setZoom(z, at) {
        var frac = at === undefined ? (chart.scrollLeft + chart.clientWidth / 2) / inner.offsetWidth : at;
        zoom = Math.min(Math.max(z, 1), 5000);
        inner.style.width = (100 * zoom) + "%";
        chart.setAttribute("data-zoom", String(zoom));
        chart.scrollLeft = frac * inner.offsetWidth - chart.clientWidth / 2;
      }
      chart.addEventListener("wheel", function (e) {
        e.preventDefault();
        var box = chart.getBoundingClientRect();
        setZoom(zoom * (e.deltaY < 0 ? 1.25 : 0.8), (chart.scrollLeft + e.clientX - box.left) / inner.offsetWidth);
      }, { passive: false });
      add(section, el("div", { "class": "gantt-tools" },
        el("button", { type: "button", onclick: function () { setZoom(zoom * 2); } }, "zoom in"),
        el("button", { type: "button", onclick: function () { setZoom(zoom / 2); } }, "zoom out"),
        el("button", { type: "button", onclick: function () { setZoom(1, 0); } }, "whole run"),
        el("span", { "class": "muted" }, " 0 s – " + end.toFixed(2) + " s wall clock; a row per nesting depth of each track (" + T.tracks.join("; ") + "); hover a stage for its compile, function and time")), chart);
      add(section, el("h3", null, "Time by stage (a stage inside one of the same name counted once)"),
        el("table", null, el("tr", null, el("th", null, "stage"), el("th", null, "seconds"), el("th", null, "times")),
          T.stages.slice(0, 20).map(function (st) { return el("tr", null, el("td", { "class": "mono" }, st.name), el("td", null, st.seconds.toFixed(3)), el("td", null, String(st.count))); })));
      add(section, el("h3", null, "Dynamo's time per inlined function"),
        el("p", { "class": "unknown" }, "not in this trace (torch " + torch + "): torch writes no time per inlined function to its trace; it measures it only under TORCH_COMPILE_DYNAMO_PROFILER=1, which prints it instead."));
      return section;
    }
    function hashOf(text) { var h = 0; for (var i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0; return h; }

    // where the compiled time went, kernel by kernel: render/sections/runtime.py's kernel_time_view
    function kernelTimes(view, open) {
      return drawBlocks(view, open ? "open" : "closed");
    }

    function duration(us) {
      if (us === null || us === undefined) return el("span", { "class": "unknown" }, "unknown");
      if (us < 1000) return us.toFixed(us >= 10 ? 0 : 1) + " µs";
      if (us < 1e6) return (us / 1000).toFixed(2) + " ms";
      return (us / 1e6).toFixed(2) + " s";
    }
    function callsText(t, verb) {
      if (!t) return "";
      var text = (verb || "served") + " " + (t.calls ? plural(t.calls, "call") : "no calls");
      if (t.calls && t.median_us !== null) text += ", median " + duration(t.median_us);
      if (t.raised) text += " (" + t.raised + " raised)";
      return text;
    }
    function callsTable() {
      var rows = [];
      S.frames.forEach(function (frame) {
        compiles.forEach(function (entry) { if (entry.frame === frame && entry.compile.calls) rows.push({ frame: frame, label: entry.compile.compile_id, times: entry.compile.calls, entry: entry }); });
        if (frame.calls_without_compiled_code && frame.calls_without_compiled_code.calls) rows.push({ frame: frame, label: "no compiled code", times: frame.calls_without_compiled_code });
      });
      var parts = [el("h3", null, "Calls each compiled version served"), el("p", { "class": "muted" }, "Recorded by compilescope run: " + (data.calls_recorded || S.calls_recorded))];
      parts.push(rowsTable(["function", "version", "calls", "median", "IQR", "total", "raised"], rows, function (r) {
        var iqr = r.times.iqr_us;
        return el("tr", { "class": r.entry ? "" : "eager" }, el("td", null, r.frame.name), el("td", { "class": "mono" }, r.entry ? compileLink(r.entry, r.label) : r.label),
          el("td", null, String(r.times.calls)), el("td", null, duration(r.times.median_us)),
          el("td", null, iqr && iqr.length === 2 ? [duration(iqr[0]), " – ", duration(iqr[1])] : el("span", { "class": "unknown" }, "unknown")),
          el("td", null, duration(r.times.total_ms * 1000)), el("td", null, String(r.times.raised)));
      }));
      var ordered = S.frames.filter(function (frame) { return frame.call_order && frame.call_order.length > 1; });
      if (ordered.length) parts.push(lazy("Which version served the calls, in order (" + plural(ordered.length, "function") + ")", function () {
        return el("ul", null, ordered.map(function (frame) {
          return el("li", null, el("b", null, frame.name), ": ", el("span", { "class": "mono" }, frame.call_order.map(function (run) { return run[0] + " ×" + run[1]; }).join(" → ") + (frame.call_order_cut ? " → … (cut off)" : "")));
        }));
      }));
      return parts;
    }

    // bench's verdict per configuration, in words ("slower 0.76x"), with what to judge it by, as
    // the terminal says them (render/sections/runtime.py: bench_lead)
    function verdictStyle(verdict) {
      return { "faster": "expected", "slower": "actual", "too noisy to say": "unknown" }[verdict] || "";
    }
    function benchLead() {
      var section = el("section", { id: "verdict" }, el("h2", null, "Verdict"));
      (data.bench_lead || []).forEach(function (item) {
        var b = (S.benchmarks || []).filter(function (x) { return x.config === item.config; })[0] || {};
        add(section, el("p", { "class": "verdict" }, el("b", null, item.config + ": "), el("span", { "class": verdictStyle(b.verdict) }, item.verdict)));
        if (item.notes.length) add(section, el("ul", null, item.notes.map(function (note) { return el("li", { "class": "muted" }, note); })));
      });
      return section;
    }

    function runtimeSection() {
      var section = el("section", { id: "runtime" }, el("h2", null, "Runtime"));
      var benchmarks = S.benchmarks || [];
      var recorded = S.calls_recorded && S.frames.some(function (frame) { return frame.compiles.some(function (c) { return c.calls; }); });
      if (recorded) add(section, callsTable());
      else if (S.calls_recorded) add(section, el("p", { "class": "muted" }, "Calls per compiled version: " + (data.calls_recorded || S.calls_recorded) + "."));
      if (data.accuracy_said) add(section, el("p", { "class": "accuracy" }, data.accuracy_said + "."));
      if (S.profile && views.profile) add(section, kernelTimes(views.profile, true));
      if (!benchmarks.length) {
        if (!recorded && !S.profile) add(section, el("p", { "class": "muted" }, "No runtime figures in this session: it records what torch.compile did and what compiling cost, not how fast the compiled code ran. compilescope bench measures that."));
        return section;
      }
      // bench's table and how it measured: render/sections/runtime.py's bench_view, as the terminal shows it
      add(section, el("div", { id: "benchmarks" }, drawBlocks(views.bench)));
      var measured = benchmarks.filter(function (b) { return !b.skipped && b.eager_ms !== null; });
      if (measured.length) {
        // Eager and compiled per call, side by side: a picture of the speedup.
        var width = 860, labelWidth = 230, barWidth = width - labelWidth - 170, rowHeight = 16;
        var max = 0;
        measured.forEach(function (b) { max = Math.max(max, b.eager_ms, b.compiled_ms); });
        var chart = svg("svg", { "class": "chart", width: width, height: measured.length * rowHeight * 2 + 10, role: "img" });
        measured.forEach(function (b, i) {
          [["eager", b.eager_ms, "--stage-aot"], ["compiled", b.compiled_ms, "--stage-inductor"]].forEach(function (bar, j) {
            var y = (2 * i + j) * rowHeight + 4;
            var label = svg("text", { x: 0, y: y + 11 });
            label.textContent = j === 0 ? b.config : "";
            chart.appendChild(label);
            var w = Math.max(1, bar[1] / max * barWidth);
            chart.appendChild(svg("rect", { x: labelWidth, y: y, width: w, height: rowHeight - 4, fill: stageColor(bar[2]) }));
            var value = svg("text", { x: labelWidth + w + 4, y: y + 11 });
            value.textContent = bar[0] + " " + bar[1].toFixed(3) + " ms";
            chart.appendChild(value);
          });
        });
        add(section, el("h3", null, "Per call, eager and compiled"), chart);
        benchmarks.forEach(function (b, index) {
          var view = views.bench_profiles[index];
          if (view && measured.indexOf(b) >= 0 && b.profile.kernels && b.profile.kernels.length) add(section, kernelTimes(view, false));
        });
      }
      return section;
    }

    // ---- one compile --------------------------------------------------------------------------------
    function guardDiff(entry) {
      if (entry.indexInFrame === 0) return null;
      var previous = details(compiles[entry.index - 1]);
      if (previous.left_out) return null;
      var before = {}, now = {};
      previous.guards.forEach(function (g) { before[g.text] = g; });
      entry.compile.guards.forEach(function (g) { now[g.text] = g; });
      var added = entry.compile.guards.filter(function (g) { return !before[g.text]; });
      var removed = previous.guards.filter(function (g) { return !now[g.text]; });
      return { previous: previous, added: added, removed: removed };
    }
    function whySection(entry) {
      var c = entry.compile, frame = entry.frame;
      var box = el("div");
      if (!c.recompile_reason) {
        if (frame.resumes) add(box, el("p", null, "First compile of the code after a graph break: it continues " + frame.resumes + "."));
        else add(box, el("p", null, "First compile of this function (no earlier version to reuse)."));
      } else {
        add(box, el("p", null, "An earlier version existed, but its guards did not hold for this call:"));
        c.failed_guards.forEach(function (g) {
          var failed = el("div", { "class": "guard-failed" },
            g.previous_compile ? el("div", { "class": "muted" }, "version " + g.previous_compile + " failed its guard:") : null,
            el("div", { "class": "mono" }, g.text));
          if (g.expected !== null || g.actual !== null) {
            add(failed, el("table", null,
              el("tr", null, el("th", null, "checked"), el("th", null, "expected (when compiled)"), el("th", null, "actual (this call)")),
              el("tr", null, el("td", { "class": "mono" }, (g.subject || "") + (g.what ? " " + g.what : "")),
                el("td", { "class": "expected mono" }, unknown(g.expected)), el("td", { "class": "actual mono" }, unknown(g.actual)))));
          }
          if (g.user_code) add(failed, el("div", { "class": "muted" }, "from your code: ", el("code", null, g.user_code),
            g.filename ? " at " + shortPath(g.filename) + ":" + g.lineno : ""));
          add(box, failed);
        });
        var diff = guardDiff(entry);
        if (diff) {
          add(box, lazy("Guards that changed since version " + diff.previous.compile_id + " (" + diff.added.length + " new, " + diff.removed.length + " gone)", function () {
            var list = el("ul");
            diff.removed.slice(0, 200).forEach(function (g) { add(list, el("li", { "class": "removed" }, "− " + g.plain)); });
            diff.added.slice(0, 200).forEach(function (g) { add(list, el("li", { "class": "added" }, "+ " + g.plain)); });
            if (!diff.added.length && !diff.removed.length) add(list, el("li", { "class": "muted" }, "The same guards: the failed one above decided."));
            return list;
          }));
        }
      }
      if (c.restarts && c.restarts.length) add(box, lazy("Dynamo restarted tracing (" + c.restarts.length + ")", function () {
        return c.restarts.map(function (r) { return el("pre", { "class": "code" }, r); });
      }));
      return box;
    }
    function sourceContext(brk) {
      if (!brk.context || !brk.context.length) return null;
      var box = el("div", { "class": "source" });
      brk.context.forEach(function (line, i) {
        var number = brk.context_start + i;
        add(box, el("div", { "class": number === brk.lineno ? "hit" : "" }, el("span", { "class": "ln" }, String(number)), line));
      });
      return box;
    }
    function breaksSection(c) {
      return c.graph_breaks.map(function (brk) {
        var box = el("div", { "class": "finding warning" }, el("div", { "class": "title" }, "Graph break: " + brk.reason));
        add(box, el("div", null, "at ", el("code", null, shortPath(brk.filename) + ":" + unknownText(brk.lineno)), brk.function ? " in " + brk.function : ""));
        add(box, sourceContext(brk) || (brk.code ? el("pre", { "class": "code" }, brk.code) : null));
        if (brk.explanation) add(box, el("div", null, el("b", null, "Explanation: "), brk.explanation));
        if (brk.hint) add(box, el("div", { "class": "advice" }, "Hint: " + brk.hint));
        if (brk.resume_function) {
          var target = firstCompileOfFrame(brk.resume_function);
          add(box, el("div", null, "The code after the break runs as ", target ? compileLink(target, brk.resume_function) : brk.resume_function, ", compiled separately."));
        }
        add(box, lazy("torch's whole message", function () { return el("pre", { "class": "code" }, brk.text); }));
        return box;
      });
    }
    function graphTable(graph) {
      return rowsTable(["op", "name", "target", "shape"], graph.nodes, function (n) {
        return el("tr", null, el("td", null, n.op), el("td", { "class": "mono" }, n.name), el("td", { "class": "mono" }, n.target || ""), el("td", { "class": "mono" }, n.shape || ""));
      });
    }
    // What a decompiled code's summary adds: how far it can be trusted (decompiler/verify.py).
    function checkedSaid(code) {
      if (!code.complete) return " (partly bytecode)";
      if (code.verified !== false) return "";
      return code.made_by_dynamo ? " (Dynamo's code: not verified against its bytecode)" : " (not verified: differs from the bytecode)";
    }
    function decompiledBlock(code) {
      var parts = [];
      if (!code.complete) parts.push(el("div", { "class": "finding problem" }, el("div", { "class": "detail" },
        "The decompiler does not read all of it yet: " + (code.note || "") + ". Its bytecode is shown in the comments, never guessed.")));
      else if (code.verified === false && code.made_by_dynamo) parts.push(el("div", { "class": "finding warning unverified" }, el("div", { "class": "detail" },
        "Dynamo's code, not verified against its bytecode: compiled again, it differs in " + (code.difference || "unknown") +
        ". Dynamo keeps values on its stack between statements, which no Python source writes, so this shows them loaded where they are used. A reading aid; dis.dis shows the exact instructions.")));
      else if (code.verified === false) parts.push(el("div", { "class": "finding problem unverified", "role": "alert" }, el("div", { "class": "detail" },
        "Not the function: compiled again, this decompilation differs from the bytecode in: " + (code.difference || "unknown") + ". Read it as a sketch; the bytecode is what runs.")));
      parts.push(codeBlock(code.source, "python"));
      return parts;
    }
    function dynamoCodeSection(entry) {
      // Dynamo's code for this version, decompiled (recorded by compilescope run; absent in a
      // trace from elsewhere), with the resume functions it calls linked.
      var c = entry.compile, frame = entry.frame;
      var guard = c.guard_function;
      if (!c.transformed_code && !c.original_code) return null;
      var box = el("div", { "class": "dynamo-code" });
      add(box, el("h3", null, "Dynamo's code, as Python"));
      var resumes = Object.keys(c.resume_functions || {});
      if (resumes.length) add(box, el("p", null, "After the graph break it calls ", resumes.map(function (name, i) {
        var target = null;
        for (var k = 0; k < compiles.length && !target; k++) if ((compiles[k].compile.called_as || []).indexOf(name) >= 0) target = compiles[k];
        return el("span", null, i ? ", " : "", el("code", null, name), " (", target ? compileLink(target) : el("span", { "class": "muted" }, "never compiled: it ran as plain Python"), ")");
      }), "."));
      if (c.called_as && c.called_as.length) add(box, el("p", null, "The code before the break calls this resume function as ", el("code", null, c.called_as.join(", ")), "."));
      if (c.transformed_code) add(box, lazy("What Dynamo runs when the guard holds: its bytecode, decompiled" + checkedSaid(c.transformed_code), function () { return decompiledBlock(c.transformed_code); }));
      if (c.original_code) add(box, lazy(frame.name + " as Dynamo got it, decompiled" + checkedSaid(c.original_code), function () { return decompiledBlock(c.original_code); }));
      if (guard) add(box, lazy("The guard as a Python function", function () { return codeBlock(guard, "python"); }));
      var key = frame.name + " " + c.compile_id;
      (data.python_files || []).forEach(function (file) {
        if (file.compiles.indexOf(key) < 0) return;
        if (file.text === null) return; // past the page's budget: the session's JSON has it
        add(box, lazy("The whole file " + file.name + ": " + file.function + " and what torch.compile made of it, in the order it runs (compilescope decompile writes it)", function () { return codeBlock(block(file.text), "python"); }));
      });
      return box;
    }
    function compileSection(entry) {
      var c = details(entry), frame = entry.frame;
      var section = el("section", { id: "compile-view" });
      var named = frame.label && frame.label !== frame.name ? el("span", { "class": "muted" }, " (" + frame.name + ")") : null;
      add(section, el("h2", null, (frame.label || frame.name), named, " ", el("span", { "class": "muted" }, c.compile_id), " ", statusBadge(c.status)));
      if (c.left_out) add(section, el("p", { "class": "unknown" }, "The details of this compile (" + plural(c.counts.graphs, "graph") + ", " + plural(c.counts.guards, "guard") + ", " +
        plural(c.counts.kernels, "kernel") + ", " + plural(c.counts.graph_breaks, "graph break") + ") are past this report's size limit: the session's JSON holds them " +
        "(compilescope report SESSION.json --frame " + frame.name + " --show all)."));
      add(section, el("div", { "class": "muted" }, framePlace(frame) + " · compile time ", seconds(c.compile_time_s),
        c.called_from && c.called_from.length ? " · called from " + c.called_from[c.called_from.length - 1] : "",
        c.calls ? " · " + callsText(c.calls) : ""));
      (c.accuracy_said || []).forEach(function (said, i) {
        var graph = c.accuracy[i], minifier = graph && graph.minifier;
        add(section, el("p", { "class": "accuracy " + said[1].replace(" ", "-") }, "Accuracy against eager" + (c.accuracy.length > 1 ? " (graph " + (i + 1) + ")" : "") + ": " + said[0] + "."));
        if (minifier && minifier.minify) add(section, el("p", null, "torch's minifier on it: ", el("code", null, minifier.minify), " (it writes " + minifier.output + ")"));
        if (said[2]) add(section, el("p", { "class": "muted" }, said[2] + "."));
      });
      add(section, el("h3", null, "Why it was compiled"), whySection(entry));
      if (c.failure) {
        add(section, el("h3", null, "It failed"), el("div", { "class": "finding problem" },
          el("div", { "class": "detail" }, c.failure),
          c.failure_filename ? el("div", null, "at ", el("code", null, shortPath(c.failure_filename) + ":" + c.failure_lineno), c.failure_code ? ": " : "", c.failure_code ? el("code", null, c.failure_code) : "") : null));
      }
      if (c.graph_breaks.length) add(section, el("h3", null, "Graph breaks"), breaksSection(c));

      add(section, el("h3", null, "What was captured"));
      if (!c.graphs.length) add(section, el("p", { "class": "muted" }, "No graph (torch reported none for this compile)."));
      c.graphs.forEach(function (graph, i) {
        add(section, lazy("Graph" + (c.graphs.length > 1 ? " " + (i + 1) : "") + ": " + plural(graph.ops.length, "op") + " — " + graph.ops.slice(0, 12).join(", ") + (graph.ops.length > 12 ? ", …" : ""), function () {
          return [graphTable(graph), lazy("the graph as Python", function () { return codeBlock(graph.code, "python"); })];
        }));
      });
      add(section, lazy("Guards: " + c.guards.length + " (torch counts " + unknownText(c.guard_count) + " before it builds them" + (c.guard_latency_us !== null ? "; checking them took " + c.guard_latency_us + " µs" : "") + ")", function () {
        var shown = c.guards.filter(function (g) { return g.kind !== "DIMENSION_DYNAMIC_MARKING_GUARD"; });
        var marks = c.guards.length - shown.length;
        return [rowsTable(["kind", "in plain words", "torch's check"], shown, function (g) {
          return el("tr", null, el("td", { "class": "mono" }, g.kind), el("td", null, g.plain), el("td", { "class": "mono" }, g.text));
        }), marks ? el("p", { "class": "muted" }, "and " + marks + " DIMENSION_DYNAMIC_MARKING_GUARD, not listed: that a tensor carries no mark_dynamic / maybe_mark_dynamic / mark_unbacked / mark_static marks") : null,
        lazy("torch's guard tree (its managers reach each subject; each other line is one guard)", function () { return el("pre", { "class": "code" }, c.guards_text); })];
      }));
      var dynamoCode = dynamoCodeSection(entry);
      if (dynamoCode) add(section, dynamoCode);
      if (c.dynamic.length) add(section, lazy("Dynamic shapes: " + plural(c.dynamic.length, "decision"), function () {
        return rowsTable(["kind", "symbol", "source", "value", "range", "why", "where"], c.dynamic, function (d) {
          return el("tr", null, el("td", null, d.kind), el("td", { "class": "mono" }, d.symbol || ""), el("td", { "class": "mono" }, d.source || ""),
            el("td", { "class": "mono" }, d.value || ""), el("td", { "class": "mono" }, d.range || ""), el("td", null, d.reason || ""),
            el("td", { "class": "mono" }, d.filename ? shortPath(d.filename) + ":" + d.lineno + (d.code ? "  " + d.code : "") : ""));
        });
      }));

      ["forward", "backward", "inference"].forEach(function (which) {
        var graph = c.aot[which];
        if (!graph) return;
        add(section, lazy("AOT Autograd " + which + " graph: " + plural(graph.ops.length, "ATen op"), function () {
          return [el("ol", { "class": "mono" }, graph.ops.map(function (op) { return el("li", null, op); })),
            lazy("the graph as Python", function () { return codeBlock(graph.code, "python"); })];
        }));
      });

      add(section, passesSection(c));
      if (c.kernels.length) {
        add(section, el("h3", null, "Kernels: " + c.kernels.length));
        add(section, rowsTable(["kernel", "kind", "made from (ATen)", ""], c.kernels, function (k) {
          var row = el("tr", null, el("td", { "class": "mono" }, k.name), el("td", null, k.kind),
            el("td", { "class": "mono" }, k.aten_ops ? k.aten_ops.join(", ") + (k.aten_ops_from === "kernel name" ? " (from its name)" : "") : el("span", { "class": "unknown" }, "unknown")));
          var cell = el("td");
          if (k.code) {
            cell.appendChild(el("button", { onclick: function () {
              var next = row.nextSibling;
              if (next && next.className === "kernel-code") { next.parentNode.removeChild(next); return; }
              var codeRow = el("tr", { "class": "kernel-code" }, el("td", { colspan: "4" }, codeBlock(k.code, k.kind === "cpp" ? "cpp" : "python")));
              row.parentNode.insertBefore(codeRow, row.nextSibling);
            } }, "code"));
          } else if (k.call) {
            cell.appendChild(el("code", null, k.call.length > 80 ? k.call.slice(0, 79) + "…" : k.call));
          }
          row.appendChild(cell);
          return row;
        }));
      }
      if (c.inductor_code) add(section, lazy("Inductor's whole output code (" + c.inductor_code.split("\n").length + " lines)", function () { return codeBlock(c.inductor_code, "python"); }));
      var t = c.time || {};
      var values = {}, sum = 0;
      STAGES.forEach(function (s) { if (t[s[0]]) { values[s[0]] = t[s[0]]; sum += t[s[0]]; } });
      var own = [{ label: c.compile_id, values: values, total: sum }];
      if (sum > 0) add(section, el("h3", null, "Compile time by stage"), stackedBars(own, 860), legend(own));
      add(section, el("div", { "class": "muted" }, "cache: FX graph " + unknownText(c.cache.fx_graph_hits) + " hit / " + unknownText(c.cache.fx_graph_misses) + " miss; AOT Autograd " + unknownText(c.cache.aot_autograd_hits) + " hit / " + unknownText(c.cache.aot_autograd_misses) + " miss"));
      add(section, cacheLookups(c));
      add(section, reproCommand(c));
      return section;
    }

    // Inductor's graphs before and after each group of its passes (render/sections/passes.py's
    // page data): the two side by side, the changed rows marked, and a toggle to the changed only.
    function passesSection(c) {
      var passes = c.passes;
      if (!passes) return null; // (past the page's budget: the session's JSON has them)
      var box = el("div", { "class": "passes" }, el("h3", null, "Inductor's passes"));
      if (passes.missing) {
        add(box, el("p", { "class": "muted" }, passes.missing + ": no graph of Inductor's passes for this compile"));
        return box;
      }
      passes.stages.forEach(function (stage) {
        var said = stage.summary || (stage.ops[0] !== null ? stage.ops[0] + " ops before its passes" : stage.ops[1] + " ops after its passes") + "; the other graph: " + stage.missing;
        add(box, lazy(stage.title + ": " + said, function () {
          var table = null;
          var only = el("input", { type: "checkbox", onchange: function () { table.classList.toggle("changed-only", only.checked); } });
          var wrapper = rowsTable(["before its passes (" + (stage.records[0] || "not in this trace") + ")", "after (" + (stage.records[1] || "not in this trace") + ")"], stage.rows, function (row) {
            return el("tr", { "class": "diff-" + row[2] }, el("td", { "class": "mono" }, row[0] === null ? "" : row[0]), el("td", { "class": "mono" }, row[1] === null ? "" : row[1]));
          });
          table = wrapper.querySelector("table");
          table.className = "side-by-side";
          return [el("label", null, only, " only the changed lines"), wrapper,
            stage.cut ? el("p", { "class": "muted" }, "(the first lines of each graph: the session's JSON has them whole)") : null];
        }));
      });
      if (passes.stages.some(function (s) { return s.changes.length; })) add(box, el("p", { "class": "muted" }, passes.not_named));
      return box;
    }

    // The command that writes a standalone script of this compile's graph (app/repro.py): it
    // runs it eagerly and compiled, in any folder, and says whether they match.
    function shellWord(word) { return /^[\w.\/:=@%+-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\''") + "'"; }
    function reproCommand(c) {
      if (!(c.graphs && c.graphs.length) && !(c.runnable && c.runnable.length)) return null;
      var traced = (S.trace_files && S.trace_files.length) ? S.trace_files[0] : "SESSION.json";
      var words = ["compilescope", "repro", traced, c.compile_id, "-o", "repro_" + c.compile_id.replace(/\W/g, "_") + ".py"];
      return el("div", { "class": "repro" }, el("h3", null, "A runnable repro of this graph"),
        el("pre", { "class": "mono" }, words.map(shellWord).join(" ")),
        el("div", { "class": "muted" }, "writes a script that runs the graph eagerly and compiled on random inputs of the recorded shapes, and says whether they match"));
    }

    // The caches' lookups of one compile (session/caches.py): outcome, torch's detail in words,
    // what a hit saved, why a bypass, the key, and the key's own parts on demand.
    var CACHE_NAMES = { fx_graph: "FX graph cache", aot_autograd: "AOT Autograd cache" };
    var CACHE_DETAILS = { full_miss: "no entry for this key", guard_miss: "an entry for this key, but its guards on input sizes failed", hit: "" };
    function cacheLookups(c) {
      var lookups = (c.cache && c.cache.lookups) || [];
      if (!lookups.length) return el("div", { "class": "muted" }, "caches: no lookup in this trace (torch wrote none for this compile: an older torch, or a backend without Inductor)");
      var box = el("div", null, el("h3", null, "Caches"));
      add(box, rowsTable(["cache", "graph", "outcome", "", "key"], lookups, function (l) {
        var said = Object.prototype.hasOwnProperty.call(CACHE_DETAILS, l.detail || "") ? CACHE_DETAILS[l.detail || ""] : (l.detail || "");
        var notes = [];
        if (said) notes.push(said);
        if (l.time_saved_s != null) notes.push("saved " + seconds(l.time_saved_s) + " of compiling, by torch's estimate");
        if (l.bypass_reason) notes.push("torch's reason: " + l.bypass_reason);
        var keyCell = el("td", { "class": "mono" }, l.key ? l.key.slice(0, 16) + "…" : "");
        if (l.parts && l.parts.length) {
          // one press shows the parts, the next hides them again
          var parts = el("pre", { "class": "mono key-parts", hidden: "hidden" }, l.parts.map(function (p) { return p.name + ": " + p.value; }).join("\n"));
          keyCell.appendChild(el("button", { onclick: function () { parts.hidden = !parts.hidden; } }, "its own parts"));
          keyCell.appendChild(parts);
        }
        return el("tr", null, el("td", null, CACHE_NAMES[l.cache] || l.cache), el("td", null, l.graph || ""),
          el("td", { "class": "cache-" + l.outcome }, l.outcome), el("td", null, notes.join(" · ")), keyCell);
      }));
      var remote = c.cache.remote_hits, remoteMiss = c.cache.remote_misses;
      if (remote || remoteMiss) add(box, el("div", { "class": "muted" }, "remote cache: " + (remote || 0) + " hit(s), " + (remoteMiss || 0) + " miss(es)"));
      else if (remote === 0 && remoteMiss === 0) add(box, el("div", { "class": "muted" }, "remote cache: not used"));
      return box;
    }

    // ---- assemble and route ------------------------------------------------------------------------
    var main = el("main", { id: "main" });
    var compileHolder = el("div", { id: "compile-holder" });
    add(app, header());
    add(app, el("div", { "class": "layout" }, navigation(), main));
    if (benchOnly) add(main, benchLead(), runtimeSection(), compileHolder);
    else add(main, (data.bench_lead || []).length ? benchLead() : null, overview(), findingsSection(), timeSection(), timelineSection(), runtimeSection(), compileHolder);

    var shownIndex = null;
    function showCompile(index) {
      var entry = compiles[index];
      if (!entry || shownIndex === index) return;
      shownIndex = index;
      compileHolder.textContent = "";
      compileHolder.appendChild(compileSection(entry));
      var active = document.querySelectorAll("nav .compile.active");
      for (var i = 0; i < active.length; i++) active[i].classList.remove("active");
      var link = document.getElementById("nav-compile-" + index);
      if (link) link.classList.add("active");
    }
    function route() {
      var match = /^#compile-(\d+)$/.exec(location.hash);
      if (match) {
        showCompile(Number(match[1]));
        compileHolder.scrollIntoView();
      }
    }
    window.addEventListener("hashchange", function () { if (current()) route(); });
    // Show a compile as soon as its link is clicked (the hash follows for back/forward and sharing).
    document.addEventListener("click", function (event) {
      if (!current()) return;
      var link = event.target.closest ? event.target.closest("a[data-compile]") : null;
      if (link) showCompile(Number(link.getAttribute("data-compile")));
    });
    // Open the most telling compile first: the first with a finding, else the first.
    var start = 0;
    for (var f = 0; f < data.findings.length && !start; f++) {
      var ids = data.findings[f].compile_ids || [];
      var found = ids.length ? compileById(ids[0], (data.findings[f].frames || []).length === 1 ? data.findings[f].frames[0] : null) : null;
      if (found) start = found.index;
    }
    if (compiles.length) showCompile(start);
    if (location.hash) route();
  }

  window.addEventListener("beforeprint", function () {
    var all = document.querySelectorAll("details");
    for (var i = 0; i < all.length; i++) if (!all[i].open && all[i].textContent.length < 100000) all[i].open = true;
  });
  function blocksOf(prefix) {
    return function (n) { return JSON.parse(document.getElementById(prefix + n).textContent); };
  }
  var single = document.getElementById("compilescope-data");
  if (single) {
    renderSession(document.getElementById("app"), JSON.parse(single.textContent), blocksOf("compilescope-block-"));
    document.body.setAttribute("data-ready", "true");
  }
  // for cluster.js, the page's other script (an inline script cannot import)
  window.compilescopeReport = { renderSession: renderSession, blocksOf: blocksOf };
})();
