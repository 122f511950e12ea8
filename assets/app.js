// The interface works without this script; with it, the editor shows a live preview
// rendered by the server (the same renderer as the note page).
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
  });
})();
