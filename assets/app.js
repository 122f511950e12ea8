// The interface works without this script; with it, the editor shows a live preview
// rendered by the server (the same renderer as the note page), saves on Ctrl+S / Cmd+S,
// asks before leaving with changes that are not saved, and attaches files (picked,
// dropped on the text or pasted) through the files API, inserting their Markdown.
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
    uploads(form);
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

  // Attachments. A file goes beside the note (`<folder>/<name>`); an image pasted from
  // the clipboard, which has no name of its own, goes to
  // `<folder>/attachments/<note name>-<n>.png`. Nothing is replaced: each upload asks
  // the API to create the file only (`If-None-Match: *`), and on 412 tries the next
  // name (`name-2.ext`, `name-3.ext`, …). Once stored, its Markdown goes in at the
  // cursor, as a path relative to the note.
  function uploads(form) {
    var bar = form.querySelector(".upload");
    var body = form.querySelector("textarea[name=body]");
    var pathField = form.querySelector("input[name=path]");
    var titleField = form.querySelector("input[name=title]");
    if (!bar || !body || !window.fetch) return;
    var picker = bar.querySelector("input[type=file]");
    var log = bar.querySelector(".uploads");
    var queue = Promise.resolve();
    bar.hidden = false;

    bar.querySelector("[data-pick]").addEventListener("click", function () {
      picker.click();
    });
    picker.addEventListener("change", function () {
      send(picker.files, false);
      picker.value = "";
    });
    body.addEventListener("dragover", function (event) {
      if (!hasFiles(event.dataTransfer)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      body.classList.add("dropping");
    });
    body.addEventListener("dragleave", function () {
      body.classList.remove("dropping");
    });
    body.addEventListener("drop", function (event) {
      body.classList.remove("dropping");
      var files = event.dataTransfer && event.dataTransfer.files;
      if (!files || !files.length) return;
      event.preventDefault();
      send(files, false);
    });
    body.addEventListener("paste", function (event) {
      var data = event.clipboardData;
      var files = data && data.files;
      // Text copied from an office program often comes with a picture of itself: when
      // the clipboard holds text, the text is what is pasted.
      if (!files || !files.length || data.getData("text/plain")) return;
      event.preventDefault();
      send(files, true);
    });
    // A file dropped beside the text would make the browser leave the editor to show
    // it: there it is refused.
    document.addEventListener("dragover", function (event) {
      if (event.target !== body && hasFiles(event.dataTransfer)) {
        event.preventDefault();
        event.dataTransfer.dropEffect = "none";
      }
    });
    document.addEventListener("drop", function (event) {
      if (event.target !== body && hasFiles(event.dataTransfer)) event.preventDefault();
    });

    function hasFiles(data) {
      return !!data && Array.prototype.indexOf.call(data.types || [], "Files") >= 0;
    }

    // One upload at a time, in the order given, so the links go in that order.
    function send(files, pasted) {
      Array.prototype.forEach.call(files, function (file) {
        var line = report(file.name || "pasted image", "Uploading…", "busy");
        queue = queue.then(function () {
          return upload(file, pasted, line);
        });
      });
    }

    // The server's limit, from the page: a file past it is not sent at all.
    function limit() {
      return Number(bar.getAttribute("data-max-upload")) || 0;
    }

    function upload(file, pasted, line) {
      if (limit() && file.size > limit()) {
        line.fail(tooLarge(limit()));
        return Promise.resolve();
      }
      var note = whereIsTheNote();
      var name = pasted && unnamed(file) ?
        { dir: "attachments/", stem: note.name, ext: imageExtension(file.type), n: 1, numbered: true } :
        split(cleanName(file.name));
      return attempt(file, note, name, line);
    }

    function attempt(file, note, name, line) {
      var relative = name.dir + name.stem + (name.numbered || name.n > 1 ? "-" + name.n : "") + name.ext;
      var full = note.folder ? note.folder + "/" + relative : relative;
      return fetch("/api/v1/files/" + encodePath(full), {
        method: "PUT",
        body: file,
        credentials: "same-origin",
        headers: {
          "If-None-Match": "*",
          "Content-Type": file.type || "application/octet-stream"
        }
      }).then(function (response) {
        if (response.status === 412 && name.n < 1000) {
          name.n += 1;
          return attempt(file, note, name, line);
        }
        if (response.ok) {
          var label = relative.split("/").pop();
          insert(markdown(file, label, relative), /^image\//.test(file.type));
          line.done("Attached as " + full);
          return;
        }
        return response.json().catch(function () { return {}; }).then(function (error) {
          var message = error.message || "";
          if (response.status === 413) {
            // The ErrorResponse names the limit in bytes; the page's is the fallback.
            var named = /(\d+) bytes/.exec(message);
            line.fail(tooLarge(named ? Number(named[1]) : limit()));
          } else {
            line.fail(message || "Upload failed (" + response.status + ")");
          }
        });
      }).catch(function () {
        line.fail("Upload failed: the server cannot be reached");
      });
    }

    // The note's folder and name, from the path field (a new note may only have a
    // folder, or nothing yet: then its name comes from the title).
    function whereIsTheNote() {
      var path = (pathField ? pathField.value : "").trim().replace(/^\/+/, "");
      var slash = path.lastIndexOf("/");
      var folder = slash >= 0 ? path.slice(0, slash) : "";
      var name = path.slice(slash + 1).replace(/\.md$/i, "");
      if (!name) name = slugOf(titleField ? titleField.value : "") || "note";
      return { folder: folder, name: name };
    }

    function slugOf(text) {
      return text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "")
        .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
    }

    // Browsers call an image from the clipboard `image.png` (or nothing at all).
    function unnamed(file) {
      return /^image\//.test(file.type) && (!file.name || /^image\.\w+$/i.test(file.name));
    }

    function imageExtension(type) {
      var known = { "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp" };
      return known[type] || ".png";
    }

    // A file's own name, made a valid attachment name: no folders, no leading dot.
    function cleanName(name) {
      var clean = (name || "file").replace(/[\/\\\u0000-\u001f]+/g, "-").replace(/^[.\s]+/, "");
      return clean || "file";
    }

    function split(fileName) {
      var dot = fileName.lastIndexOf(".");
      if (dot <= 0) return { dir: "", stem: fileName, ext: "", n: 1, numbered: false };
      return { dir: "", stem: fileName.slice(0, dot), ext: fileName.slice(dot), n: 1, numbered: false };
    }

    function encodePath(path) {
      return path.split("/").map(function (segment) {
        return encodeURIComponent(segment).replace(/[()'*!]/g, function (c) {
          return "%" + c.charCodeAt(0).toString(16).toUpperCase();
        });
      }).join("/");
    }

    function markdown(file, label, relative) {
      var text = label.replace(/([\\\[\]])/g, "\\$1");
      var link = "[" + text + "](" + encodePath(relative) + ")";
      return /^image\//.test(file.type) ? "!" + link : link;
    }

    // At the cursor, replacing a selection; the preview and the unsaved-changes guard
    // hear it as typing. An image is a paragraph of its own (blank lines around it), so
    // the preview and the note's page both show it on its own line, not inline on the
    // text's baseline; a link to a file goes in the text.
    function insert(text, image) {
      var start = body.selectionStart, end = body.selectionEnd;
      var before = body.value.slice(0, start);
      var after = body.value.slice(end);
      if (image) {
        if (before) text = (/\n\n$/.test(before) ? "" : /\n$/.test(before) ? "\n" : "\n\n") + text;
        text += /^\n\n/.test(after) ? "" : /^\n/.test(after) ? "\n" : "\n\n";
      } else if (before && !/\s$/.test(before)) text = " " + text;
      body.setRangeText(text, start, end, "end");
      body.dispatchEvent(new Event("input", { bubbles: true }));
    }

    function tooLarge(max) {
      return max ? "File too large (limit " + bytes(max) + ")" : "File too large";
    }

    function bytes(n) {
      var units = ["bytes", "KiB", "MiB", "GiB"];
      var i = 0;
      while (n >= 1024 && i < units.length - 1 && n % 1024 === 0) { n /= 1024; i++; }
      return n + " " + units[i];
    }

    function report(name, state, kind) {
      var item = document.createElement("li");
      var what = document.createElement("span");
      what.className = "path";
      what.textContent = name;
      var how = document.createElement("span");
      item.className = kind;
      how.textContent = " " + state;
      item.appendChild(what);
      item.appendChild(how);
      log.appendChild(item);
      return {
        done: function (text) { item.className = "done"; how.textContent = " " + text; },
        fail: function (text) {
          item.className = "failed";
          item.setAttribute("role", "alert");
          how.textContent = " " + text;
        }
      };
    }
  }
})();
