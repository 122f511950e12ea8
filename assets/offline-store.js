// What the browser keeps for offline use, shared by the pages (offline.js) and the
// service worker (sw.js, through importScripts): the IndexedDB stores, the note text an
// editor's fields make, and sending queued edits to the server's merge route.
//
// Stores of the database `notes-offline`:
//   notes   {path, title, text, stored_at}: the text of each note opened, for offline
//           search and as the base of an edit made offline;
//   drafts  {key, path, base, text, saved_at, fields, loaded}: the editor's text as
//           typed, under `edit:<path>`, or `new:` for a note not created yet;
//   outbox  {id, path, base, text, queued_at, error}: saves waiting for the network.
(function (scope) {
  "use strict";
  var NAME = "notes-offline";
  var VERSION = 1;

  function open() {
    return new Promise(function (resolve, reject) {
      var request = indexedDB.open(NAME, VERSION);
      request.onupgradeneeded = function () {
        var db = request.result;
        if (!db.objectStoreNames.contains("notes")) db.createObjectStore("notes", { keyPath: "path" });
        if (!db.objectStoreNames.contains("drafts")) db.createObjectStore("drafts", { keyPath: "key" });
        if (!db.objectStoreNames.contains("outbox")) {
          db.createObjectStore("outbox", { keyPath: "id", autoIncrement: true });
        }
      };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }

  // One transaction on one store; resolves with the last request's result once the
  // transaction has committed.
  function run(store, mode, work) {
    return open().then(function (db) {
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(store, mode);
        var result;
        var request = work(tx.objectStore(store));
        if (request) request.onsuccess = function () { result = request.result; };
        tx.oncomplete = function () { db.close(); resolve(result); };
        tx.onerror = tx.onabort = function () { db.close(); reject(tx.error); };
      });
    });
  }

  function get(store, key) { return run(store, "readonly", function (s) { return s.get(key); }); }
  function all(store) { return run(store, "readonly", function (s) { return s.getAll(); }); }
  function put(store, value) { return run(store, "readwrite", function (s) { return s.put(value); }); }
  function remove(store, key) { return run(store, "readwrite", function (s) { return s.delete(key); }); }
  function clear(store) { return run(store, "readwrite", function (s) { return s.clear(); }); }

  // `a, b ,#c,, a` → ["a", "b", "c"], as the server reads the editor's tags.
  function splitTags(text) {
    var tags = [];
    String(text || "").split(",").forEach(function (tag) {
      tag = tag.trim().replace(/^#+/, "").trim();
      if (tag && tags.indexOf(tag) < 0) tags.push(tag);
    });
    return tags;
  }

  function sameTags(a, b) {
    var x = splitTags(a).sort(), y = splitTags(b).sort();
    return x.length === y.length && x.every(function (t, i) { return t === y[i]; });
  }

  function yamlTags(text) {
    return "[" + splitTags(text).map(function (t) { return JSON.stringify(t); }).join(", ") + "]";
  }

  // DD-MM-YYYY, the front matter's date.
  function today() {
    var d = new Date();
    function two(n) { return (n < 10 ? "0" : "") + n; }
    return two(d.getDate()) + "-" + two(d.getMonth() + 1) + "-" + d.getFullYear();
  }

  // `7 Dec 2026, 09:05`, as the pages write times.
  function when(at) {
    var months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    function two(n) { return (n < 10 ? "0" : "") + n; }
    at = new Date(at);
    return at.getDate() + " " + months[at.getMonth()] + " " + at.getFullYear() + ", " +
      two(at.getHours()) + ":" + two(at.getMinutes());
  }

  // The front matter and the blank lines before the body: `base` without the body the
  // editor was loaded with; when that is not its end, the `---` block at its start.
  function headOf(base, loadedBody) {
    var body = base.indexOf("\r\n") >= 0 ? loadedBody.replace(/\r?\n/g, "\r\n") : loadedBody;
    if (base.length >= body.length && base.slice(base.length - body.length) === body) {
      return base.slice(0, base.length - body.length);
    }
    var block = /^---\r?\n[\s\S]*?\r?\n(---|\.\.\.)[ \t]*(\r?\n|$)/.exec(base);
    return block ? block[0] : "";
  }

  // `head` with the line of `key` set to `value` (its continuation lines dropped), or
  // the key added at the end of the front matter, or a front matter made for it.
  function setKey(head, key, value) {
    var nl = head.indexOf("\r\n") >= 0 ? "\r\n" : "\n";
    var line = key + ": " + value;
    if (!/^---\r?\n/.test(head)) return "---" + nl + line + nl + "---" + nl + head;
    var lines = head.split(nl);
    var out = [lines[0]];
    var done = false;
    for (var i = 1; i < lines.length; i++) {
      var current = lines[i];
      if (!done && (current === "---" || current === "...")) {
        out.push(line);
        done = true;
      } else if (!done && current.indexOf(key + ":") === 0) {
        out.push(line);
        done = true;
        while (i + 1 < lines.length && /^(\s|-\s|-$)/.test(lines[i + 1])) i++;
        continue;
      }
      out.push(current);
    }
    return out.join(nl);
  }

  // The note's whole text from the editor's `fields` ({title, tags, body, date}). A new
  // note (`base` null): a front matter with the title, date and tags, then the body. An
  // existing one: `base` with its body replaced, and its title or tags line rewritten
  // only when the field differs from what the editor was `loaded` with, so a merge sees
  // only what was changed.
  function compose(fields, base, loaded) {
    var body = String(fields.body || "").replace(/\r\n/g, "\n");
    if (base === null || base === undefined) {
      return "---\ntitle: " + JSON.stringify(String(fields.title || "").trim()) +
        "\ndate: " + (fields.date || today()) + "\ntags: " + yamlTags(fields.tags) + "\n---\n" + body;
    }
    loaded = loaded || { title: fields.title, tags: fields.tags, body: "" };
    var head = headOf(base, String(loaded.body || "").replace(/\r\n/g, "\n"));
    if (base.indexOf("\r\n") >= 0) body = body.replace(/\n/g, "\r\n");
    if (String(fields.title || "").trim() !== String(loaded.title || "").trim()) {
      head = setKey(head, "title", JSON.stringify(String(fields.title || "").trim()));
    }
    if (!sameTags(fields.tags, loaded.tags)) head = setKey(head, "tags", yamlTags(fields.tags));
    return head + body;
  }

  // `Été à Paris!` → `été-à-paris`, as the server makes a path from a title.
  function slug(text) {
    var out = "";
    Array.from(String(text || "").toLowerCase()).forEach(function (c) {
      if (/[\p{L}\p{N}]/u.test(c)) out += c;
      else if (out && out[out.length - 1] !== "-") out += "-";
    });
    return out.replace(/-+$/, "");
  }

  // The path a new note gets: as typed (`.md` added to a name without extension), or
  // made from the title when empty or a folder; "" when there is nothing to make it of.
  function newPath(typed, title) {
    typed = String(typed || "").trim();
    var raw = typed;
    if (!typed || /\/$/.test(typed)) {
      var stem = slug(title);
      if (!stem) return "";
      raw = typed + stem + ".md";
    }
    var name = raw.split("/").pop();
    if (name.indexOf(".") < 0) raw += ".md";
    return raw;
  }

  function encodePath(path) {
    return path.split("/").map(function (segment) {
      return encodeURIComponent(segment).replace(/[()'*!]/g, function (c) {
        return "%" + c.charCodeAt(0).toString(16).toUpperCase();
      });
    }).join("/");
  }

  // Queues a save: the edit's base and text, kept until the server has it.
  function enqueue(path, base, text) {
    return put("outbox", {
      path: path,
      base: base === undefined ? null : base,
      text: text,
      queued_at: new Date().toISOString(),
      error: null
    });
  }

  // Sends one queued save to `POST /api/v1/merge/{path}`. Stored by the server: the
  // entry and the note's draft go. Refused (an HTTP error): the entry stays with the
  // server's message. Not reached: it stays as it was.
  function send(item) {
    return fetch("/api/v1/merge/" + encodePath(item.path), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ base: item.base, text: item.text })
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (response.ok) {
          return remove("outbox", item.id).then(function () {
            return { path: item.path, outcome: answer.outcome || "saved" };
          });
        }
        item.error = (answer && answer.message) || "The server answered " + response.status;
        return put("outbox", item).then(function () {
          return { path: item.path, error: item.error };
        });
      });
    }, function () {
      return { path: item.path, unreachable: true };
    });
  }

  // Sends every queued save, oldest first, one at a time (one sender at a time across
  // tabs and the worker); resolves with what happened to each.
  function flush() {
    function work() {
      return all("outbox").then(function (items) {
        var results = [];
        return items.reduce(function (done, item) {
          return done.then(function () {
            return send(item).then(function (result) { results.push(result); });
          });
        }, Promise.resolve()).then(function () { return results; });
      });
    }
    var locks = scope.navigator && scope.navigator.locks;
    return locks ? locks.request("notes-outbox", work) : work();
  }

  // Forgets the copies of notes (logging out, another session): drafts and the outbox
  // are the user's typing and go only when the user says so.
  function forgetCopies() {
    return clear("notes");
  }

  scope.NotesOffline = {
    get: get,
    all: all,
    put: put,
    remove: remove,
    clear: clear,
    compose: compose,
    newPath: newPath,
    splitTags: splitTags,
    encodePath: encodePath,
    enqueue: enqueue,
    flush: flush,
    forgetCopies: forgetCopies,
    when: when
  };
})(self);
