// The interface works without this script; with it, the editor shows a live preview
// rendered by the server (the same renderer as the note page), saves on Ctrl+S / Cmd+S,
// and asks before leaving with changes that are not saved.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    // A confirmation (`?done=saved`) is said once: reloading or going back to the page
    // does not repeat it.
    if (window.history && /[?&]done=/.test(location.search)) {
      history.replaceState(null, "", location.pathname);
    }
    var form = document.querySelector("form.editor");
    if (!form) return;
    guard(form);
    preview(form);
  });

  // Unsaved changes: the browser asks before the page is left while a field differs
  // from what was loaded (or the page comes back from a refused save, whose text is not
  // saved yet). Saving is leaving on purpose, so it never asks then. Ctrl+S / Cmd+S
  // submits the form as the Save button does, so a refused save shows the same page.
  function guard(form) {
    var fields = form.querySelectorAll("input[type=text], textarea");
    var loaded = Array.prototype.map.call(fields, function (f) { return f.value; });
    var unsaved = form.hasAttribute("data-unsaved");
    var saving = false;
    function changed() {
      if (unsaved) return true;
      for (var i = 0; i < fields.length; i++) {
        if (fields[i].value !== loaded[i]) return true;
      }
      return false;
    }
    form.addEventListener("submit", function () {
      saving = true;
    });
    // A page restored from the back-forward cache after a save starts afresh.
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) saving = false;
    });
    window.addEventListener("beforeunload", function (event) {
      if (saving || !changed()) return;
      event.preventDefault();
      // Older browsers show the dialog only when a return value is set.
      event.returnValue = "";
    });
    var save = form.querySelector("button[type=submit]");
    document.addEventListener("keydown", function (event) {
      var key = (event.key || "").toLowerCase();
      if (key !== "s" || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      event.preventDefault();
      if (saving) return;
      if (form.requestSubmit) {
        form.requestSubmit(save);
      } else {
        // `submit()` fires no submit event: say it is a save here.
        saving = true;
        form.submit();
      }
    });
  }

  function preview(form) {
    var body = form.querySelector("textarea[name=body]");
    var title = form.querySelector("input[name=title]");
    var path = form.querySelector("input[name=path]");
    var pane = form.querySelector(".preview");
    if (!body || !pane || !window.fetch) return;
    var out = pane.querySelector(".content");
    var timer = null;
    var sent = 0;
    function render() {
      var ticket = ++sent;
      var data = new URLSearchParams();
      data.set("title", title ? title.value : "");
      data.set("body", body.value);
      // Relative links in the preview are read from the note's folder.
      data.set("path", path ? path.value : "");
      fetch("/preview", { method: "POST", body: data, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          // Only the latest answer is shown, whatever order they arrive in.
          if (ticket === sent) out.innerHTML = html;
        })
        .catch(function () {});
    }
    function later() {
      clearTimeout(timer);
      timer = setTimeout(render, 200);
    }
    pane.hidden = false;
    body.addEventListener("input", later);
    if (title) title.addEventListener("input", later);
    render();
  }
})();
