// The search box of a page whose document has one: it keeps the top-level
// sections after the first, and the rows of the first section's tables,
// whose text has every word typed (case ignored).
(function () {
  var box = document.getElementById("search");
  var count = document.getElementById("search-count");
  if (!box) { return; }
  var tops = Array.prototype.slice.call(document.querySelectorAll("main > section, main > details"));
  var first = tops.shift();
  var rows = first ? Array.prototype.slice.call(first.querySelectorAll("tbody tr")) : [];
  var text = function (el) { return el.textContent.toLowerCase(); };
  var secText = tops.map(text);
  var rowText = rows.map(text);
  function run() {
    var words = box.value.toLowerCase().split(/\s+/).filter(function (w) { return w !== ""; });
    var has = function (t) { return words.every(function (w) { return t.indexOf(w) >= 0; }); };
    var shown = 0;
    tops.forEach(function (s, i) { var ok = has(secText[i]); s.hidden = !ok; if (ok) { shown++; } });
    rows.forEach(function (r, i) { r.hidden = !has(rowText[i]); });
    count.textContent = words.length ? shown + " of " + tops.length + " shown" : tops.length + " in all";
  }
  box.addEventListener("input", run);
  // Following a link to a section the search hides clears the search.
  window.addEventListener("hashchange", function () {
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el && el.closest("[hidden]")) { box.value = ""; run(); el.scrollIntoView(); }
  });
  run();
})();
