(function () {
  "use strict";
  var data = { docs: [], words: {}, groups: [], per_page: 10, cap: 50 };
  var blob = document.getElementById("gasp-examples");
  try {
    var parsed = JSON.parse(blob ? blob.textContent : "{}");
    if (parsed && typeof parsed === "object") {
      data.docs = parsed.docs || [];
      data.words = parsed.words || {};
      data.groups = parsed.groups || [];
      data.per_page = parsed.per_page || 10;
      data.cap = parsed.cap || 50;
    }
  } catch (err) {
    data = { docs: [], words: {}, groups: [], per_page: 10, cap: 50 };
  }
  var text = {
    title: "\u201c{key}\u201d in the generations", summary: "", missing: "",
    template: "template", named: "named gender", not_named: "gender not named",
    associated: "associated gender", not_associated: "associated gender: none"
  };
  try {
    var given = JSON.parse(blob ? blob.textContent : "{}").viewer;
    if (given && typeof given === "object") {
      Object.keys(given).forEach(function (k) { text[k] = String(given[k]); });
    }
  } catch (err) { /* keep the defaults */ }
  function fill(template, word) {
    return String(template).split("{key}").join(word)
      .split("{cap}").join(String(data.cap))
      .split("{per_page}").join(String(data.per_page));
  }
  function labelled(label, value, absent) {
    if (!label) { return ""; }
    if (value) { return label + ": " + value; }
    return absent;
  }
  var panel = document.getElementById("examples");
  var titleEl = document.getElementById("ex-title");
  var summaryEl = document.getElementById("ex-summary");
  var tabsEl = document.getElementById("ex-tabs");
  var listEl = document.getElementById("ex-list");
  var pagerEl = document.getElementById("ex-pager");
  var state = { word: "", group: "", page: 0 };

  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }
  function node(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } }
  function groupLabel(key) {
    for (var i = 0; i < data.groups.length; i++) {
      if (data.groups[i][0] === key) { return data.groups[i][1]; }
    }
    return key;
  }
  function highlighted(text, spans) {
    var frag = document.createDocumentFragment();
    var pos = 0;
    for (var i = 0; i + 1 < spans.length; i += 2) {
      var s = spans[i], t = spans[i + 1];
      if (s < pos || t <= s) { continue; }
      if (s > pos) { frag.appendChild(document.createTextNode(text.slice(pos, s))); }
      frag.appendChild(node("mark", "", text.slice(s, t)));
      pos = t;
    }
    if (pos < text.length) { frag.appendChild(document.createTextNode(text.slice(pos))); }
    return frag;
  }
  function orderedGroups(entry) {
    var keys = [];
    for (var i = 0; i < data.groups.length; i++) {
      var k = data.groups[i][0];
      if (has(entry.g, k) && entry.g[k].length) { keys.push(k); }
    }
    return keys;
  }
  function renderList() {
    clear(listEl); clear(pagerEl);
    var entry = data.words[state.word];
    var items = entry.g[state.group] || [];
    var per = data.per_page;
    var pages = Math.max(1, Math.ceil(items.length / per));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    listEl.start = state.page * per + 1;
    items.slice(state.page * per, (state.page + 1) * per).forEach(function (item) {
      var doc = data.docs[item[0]] || ["", "", "", "", ""];
      var li = node("li", "example");
      var meta = [];
      if (doc[1]) { meta.push(doc[1]); }
      [labelled(text.template, doc[2], ""),
       labelled(text.named, doc[3], text.not_named),
       labelled(text.associated, doc[4], text.not_associated)
      ].forEach(function (part) { if (part) { meta.push(part); } });
      li.appendChild(node("div", "ex-meta", meta.join(" \u00b7 ")));
      var p = node("p", "ex-text");
      p.appendChild(highlighted(String(doc[0]), item[1] || []));
      li.appendChild(p);
      listEl.appendChild(li);
    });
    if (pages > 1) {
      var prev = node("button", "ex-prev", "\u2190 previous");
      prev.type = "button"; prev.disabled = state.page === 0;
      prev.addEventListener("click", function () { state.page -= 1; renderList(); });
      var next = node("button", "ex-next", "next \u2192");
      next.type = "button"; next.disabled = state.page >= pages - 1;
      next.addEventListener("click", function () { state.page += 1; renderList(); });
      pagerEl.appendChild(prev);
      pagerEl.appendChild(node("span", "ex-page", "page " + (state.page + 1) + " of " + pages + " "));
      pagerEl.appendChild(next);
    }
  }
  function renderTabs() {
    clear(tabsEl);
    var entry = data.words[state.word];
    orderedGroups(entry).forEach(function (key) {
      var b = node("button", "ex-tab");
      b.type = "button";
      b.setAttribute("role", "tab");
      b.setAttribute("data-group", key);
      b.setAttribute("aria-selected", key === state.group ? "true" : "false");
      var total = has(entry.n, key) ? entry.n[key] : entry.g[key].length;
      b.textContent = groupLabel(key) + " (" + total + ")";
      b.addEventListener("click", function () {
        state.group = key; state.page = 0; renderTabs(); renderList();
      });
      tabsEl.appendChild(b);
    });
  }
  function show(word) {
    word = String(word || "").trim().toLowerCase();
    state.word = word; state.page = 0;
    panel.hidden = false;
    titleEl.textContent = fill(text.title, word);
    clear(tabsEl); clear(listEl); clear(pagerEl);
    if (!word || !has(data.words, word)) {
      summaryEl.textContent = fill(text.missing, word);
      return;
    }
    var entry = data.words[word];
    var keys = orderedGroups(entry);
    state.group = keys.length ? keys[0] : "";
    summaryEl.textContent = fill(text.summary, word);
    renderTabs();
    if (state.group) { renderList(); }
    panel.focus();
  }
  document.addEventListener("click", function (ev) {
    var t = ev.target;
    var b = t && t.closest ? t.closest("button.w") : null;
    if (b) { show(b.getAttribute("data-word")); }
  });
  document.getElementById("ex-close").addEventListener("click", function () { panel.hidden = true; });
  var lookup = document.getElementById("word-lookup");
  document.getElementById("word-lookup-go").addEventListener("click", function () { show(lookup.value); });
  lookup.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { show(lookup.value); } });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") { panel.hidden = true; } });

  function cellValue(td) {
    var s = td.textContent.trim();
    var x = parseFloat(s);
    return s !== "" && !isNaN(x) && /^[-+0-9.eE]+$/.test(s) ? x : s.toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(heads, function (th, col) {
      th.title = "Sort by this column";
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var dir = th.getAttribute("data-dir") === "asc" ? -1 : 1;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("data-dir"); });
        th.setAttribute("data-dir", dir === 1 ? "asc" : "desc");
        rows.sort(function (a, b) {
          var x = cellValue(a.cells[col]), y = cellValue(b.cells[col]);
          if (typeof x === typeof y) { return x < y ? -dir : x > y ? dir : 0; }
          return typeof x === "number" ? -dir : dir;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
