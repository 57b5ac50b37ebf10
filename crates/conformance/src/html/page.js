"use strict";
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "class") e.className = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    for (const k of kids) e.append(k);
    return e;
  };
  // Control and invisible characters are shown escaped, as in spec/DIVERGENCES.md.
  const visible = (s) => s.replace(/[\u0000-\u001f\u007f-\u009f\u200b\u2028\u2029\ufeff]/g,
    (c) => "\\u{" + c.codePointAt(0).toString(16) + "}");

  // --- The matrix.
  const M = D.matrix;
  const labels = [["pass", "pass"], ["fail", "fail"], ["crash", "crash"], ["div", "declared"], ["skip", "skip"], ["notrun", "not run"]];
  const head = el("tr", {}, el("th", {}, "category"));
  for (const c of M.columns) {
    head.append(el("th", {}, c.name + (c.version ? " " + c.version : ""), el("br"), el("span", { class: "muted" }, c.profile)));
  }
  const mt = $("matrix");
  mt.append(el("thead", {}, head));
  const mb = el("tbody");
  for (const [cat, counts] of M.rows) {
    const tr = el("tr", {}, el("td", {}, cat));
    for (const n of counts) {
      const td = el("td", { class: "n" });
      let any = false;
      n.forEach((k, i) => {
        if (k > 0) {
          if (any) td.append(" ");
          td.append(el("span", { class: labels[i][0] }, k + " " + labels[i][1]));
          any = true;
        }
      });
      if (!any) td.append("-");
      tr.append(td);
    }
    mb.append(tr);
  }
  mt.append(mb);
  for (const u of D.unusable) {
    $("unusable").append(el("p", { class: "fail" }, u.name + " could not be run: " + u.why));
  }

  // --- The divergences.
  const toolSel = $("tool"), catSel = $("category"), q = $("q");
  D.tools.forEach((t, i) => toolSel.append(el("option", { value: t.name }, t.name + (t.version ? " " + t.version : "") + " (" + t.profile + ")")));
  D.categories.map((c, i) => [c, i]).sort().forEach(([c]) => catSel.append(el("option", { value: c }, c)));
  const th = el("tr", {}, el("th", {}, "case"), el("th", {}, "input"), el("th", {}, "environment"), el("th", {}, "spec-2026"));
  for (const t of D.tools) th.append(el("th", {}, t.name));
  document.querySelector("#divs thead").append(th);
  const tbody = document.querySelector("#divs tbody");

  // The text filter is a phrase, case-insensitive, with ' and " alike.
  const norm = (s) => s.toLowerCase().replace(/"/g, "'");
  const hay = D.rows.map((r) => norm([r[0], r[2], r[3], r[4], D.categories[r[1]]].concat(
    r[5].map((c) => (c ? D.strings[c[0]] : ""))).join("\n")));

  let matching = [], shown = 0;
  const PAGE = 300;

  function row(r) {
    const [name, cat, input, env, spec, cells] = r;
    const tr = el("tr", { id: name });
    tr.append(el("td", { class: "case" }, el("a", { href: "#" + name }, name), el("br"), el("span", { class: "muted" }, D.categories[cat])));
    tr.append(el("td", { class: "input" }, el("code", {}, input === "" ? "(empty)" : visible(input))));
    tr.append(el("td", {}, env));
    tr.append(el("td", { class: "cell" }, spec));
    for (const c of cells) {
      if (!c) { tr.append(el("td", { class: "cell muted" }, "-")); continue; }
      tr.append(el("td", { class: "cell" + (c[1] ? " differs" : "") }, visible(D.strings[c[0]])));
    }
    return tr;
  }

  function renderMore() {
    const frag = document.createDocumentFragment();
    const end = Math.min(matching.length, shown + PAGE);
    for (; shown < end; shown++) frag.append(row(D.rows[matching[shown]]));
    tbody.append(frag);
    const more = $("more");
    more.textContent = "";
    if (shown < matching.length) {
      const b = el("button", {}, "Show " + Math.min(PAGE, matching.length - shown) + " more of " + (matching.length - shown));
      b.onclick = renderMore;
      more.append(b);
    }
  }

  function apply(updateUrl) {
    const tool = toolSel.value, cat = catSel.value, text = norm(q.value.trim());
    const t = D.tools.findIndex((x) => x.name === tool);
    const c = D.categories.indexOf(cat);
    matching = [];
    D.rows.forEach((r, i) => {
      if (c >= 0 && r[1] !== c) return;
      // A tool filter keeps the cases where that tool differs from the specification (from
      // another tool where the specification says nothing).
      if (t >= 0) {
        const mine = r[5][t];
        if (!mine) return;
        if (r[4] === "-") {
          if (r[5].every((x, j) => !x || j === t || x[0] === mine[0])) return;
        } else if (!mine[1]) return;
      }
      if (text && !hay[i].includes(text)) return;
      matching.push(i);
    });
    tbody.textContent = "";
    shown = 0;
    $("count").textContent = matching.length + " of " + D.rows.length + " divergences (" + D.cases + " cases in the suite)";
    renderMore();
    if (updateUrl) {
      const p = new URLSearchParams();
      if (tool) p.set("tool", tool);
      if (cat) p.set("category", cat);
      if (text) p.set("q", q.value.trim());
      const s = p.toString();
      history.replaceState(null, "", (s ? "?" + s : location.pathname) + location.hash);
    }
  }

  // A #case link shows that case even when the filters or the paging would hide it.
  function showTarget() {
    const id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    const i = D.rows.findIndex((r) => r[0] === id);
    if (i < 0) return;
    let pos = matching.indexOf(i);
    if (pos < 0) {
      toolSel.value = ""; catSel.value = ""; q.value = "";
      apply(true);
      pos = matching.indexOf(i);
    }
    while (shown <= pos) renderMore();
    const tr = document.getElementById(id);
    if (tr) {
      for (const o of document.querySelectorAll("tr.target")) o.classList.remove("target");
      tr.classList.add("target");
      tr.scrollIntoView({ block: "center" });
    }
  }

  const params = new URLSearchParams(location.search);
  if (params.get("tool")) toolSel.value = params.get("tool");
  if (params.get("category")) catSel.value = params.get("category");
  if (params.get("q")) q.value = params.get("q");
  toolSel.onchange = catSel.onchange = () => apply(true);
  let timer = 0;
  q.oninput = () => { clearTimeout(timer); timer = setTimeout(() => apply(true), 150); };
  window.addEventListener("hashchange", showTarget);
  apply(false);
  showTarget();
  // Load further rows as the reader nears the end of the table.
  if ("IntersectionObserver" in window) {
    new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting) && shown < matching.length) renderMore(); },
      { rootMargin: "800px" }).observe($("more"));
  }
})();
