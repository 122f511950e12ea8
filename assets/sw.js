// The interface's service worker (scope `/`). Online, every page comes from the
// network and a copy is kept; offline, the copy is shown under a banner saying when it
// was stored. Kept as pages are opened: the list, each note with its editor, images and
// text (the text in IndexedDB, for offline search and offline edits), and the new-note
// editor. Never kept: `/api/…` answers, redirects (to `/login`) and refusals. A
// navigation that answers 401 or a redirect (the session is gone), a login and a
// logout delete the copies.
importScripts("/assets/offline-store.js");

var SHELL = "notes-shell-v1";
var PAGES = "notes-pages";
var STAMP = "X-Notes-Stored-At";
var SHELL_FILES = [
  "/assets/app.css",
  "/assets/app.js",
  "/assets/offline.js",
  "/assets/offline-store.js",
  "/assets/offline.html",
  "/assets/icon-192.png",
  "/assets/icon-512.png",
  "/assets/favicon.svg",
  "/favicon.ico",
  "/manifest.webmanifest"
];
// The pages' policy, for the pages this worker writes itself.
var CSP = "default-src 'self'; img-src 'self' data: https:; object-src 'none'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
// Images of one note fetched with it, at most.
var MAX_IMAGES = 20;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(SHELL).then(function (cache) {
    return cache.addAll(SHELL_FILES);
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (name) {
      return name !== SHELL && name !== PAGES;
    }).map(function (name) { return caches.delete(name); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname === "/api" || url.pathname.indexOf("/api/") === 0) return;
  if (request.method === "POST") {
    if (url.pathname === "/login" || url.pathname === "/logout") {
      // Another session must never see this one's copies.
      event.respondWith(forget().then(function () { return fetch(request); }));
    } else if (url.pathname === "/save" && request.mode === "navigate") {
      event.respondWith(saveOrQueue(request));
    }
    return;
  }
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    if (keptPage(url)) event.respondWith(page(event, url));
    return;
  }
  if (url.pathname.indexOf("/raw/") === 0) {
    event.respondWith(rawText(event, url));
  } else if (url.pathname.indexOf("/assets/") === 0 || url.pathname.indexOf("/file/") === 0 ||
      url.pathname === "/favicon.ico" || url.pathname === "/manifest.webmanifest") {
    event.respondWith(file(request));
  }
});

// The background sync of queued saves, where the browser offers it.
self.addEventListener("sync", function (event) {
  if (event.tag === "notes-outbox") event.waitUntil(sendQueued());
});

self.addEventListener("message", function (event) {
  if (event.data && event.data.type === "forget") event.waitUntil(forget());
});

function sendQueued() {
  return NotesOffline.flush().then(function (results) {
    return self.clients.matchAll().then(function (clients) {
      clients.forEach(function (client) { client.postMessage({ type: "sent", results: results }); });
    });
  });
}

// The pages offered offline: the list, a note, its editor, the new-note editor, search.
function keptPage(url) {
  var p = url.pathname;
  return p === "/" || p === "/new" || p === "/search" ||
    p.indexOf("/note/") === 0 || p.indexOf("/edit/") === 0;
}

// The cache key of a page: its address without the one-time confirmation (`?done=`).
function pageKey(url) {
  var key = new URL(url.href);
  key.searchParams.delete("done");
  key.hash = "";
  return key.href;
}

// Deletes every copy: pages, images, note texts.
function forget() {
  return Promise.all([caches.delete(PAGES), NotesOffline.forgetCopies().catch(function () {})]);
}

// The network's answer, or a failure when none came within NETWORK_WAIT_MS: a network
// that takes a request and never answers is as good as none, and the copy is used.
var NETWORK_WAIT_MS = 4000;
function answered(request) {
  return new Promise(function (resolve, reject) {
    var timer = setTimeout(function () { reject(new TypeError("no answer")); }, NETWORK_WAIT_MS);
    fetch(request).then(function (response) {
      clearTimeout(timer);
      resolve(response);
    }, function (error) {
      clearTimeout(timer);
      reject(error);
    });
  });
}

// A page: from the network whenever it answers (a copy is kept), else the copy.
function page(event, url) {
  return answered(event.request).then(function (response) {
    if (response.type === "opaqueredirect" || response.status === 401) {
      // Sent to the login page: the session is gone, and its copies with it.
      event.waitUntil(forget());
      return response;
    }
    if (response.status === 200 && url.pathname !== "/search") {
      event.waitUntil(keep(url, response.clone()));
    }
    return response;
  }, function () {
    return offlinePage(url);
  });
}

// Keeps a page with the time it was stored; a note's page brings its editor, text and
// images along, the list brings the new-note editor.
function keep(url, response) {
  return response.text().then(function (html) {
    var headers = new Headers(response.headers);
    headers.set(STAMP, new Date().toISOString());
    var copy = new Response(html, { status: 200, headers: headers });
    return caches.open(PAGES).then(function (cache) {
      return cache.put(pageKey(url), copy).then(function () {
        if (url.pathname.indexOf("/note/") === 0) return keepNote(cache, url, html);
        if (url.pathname === "/") return keepPage(cache, "/new");
      });
    });
  }).catch(function () {});
}

function keepNote(cache, url, html) {
  var tail = url.pathname.slice("/note/".length);
  var images = [];
  var found = /src="(\/file\/[^"]+)"/g;
  var match;
  while ((match = found.exec(html)) && images.length < MAX_IMAGES) {
    images.push(decodeEntities(match[1]));
  }
  var title = /<title>([\s\S]*?) · notes<\/title>/.exec(html);
  return Promise.all([
    keepPage(cache, "/edit/" + tail),
    fetch("/raw/" + tail, { credentials: "same-origin" }).then(function (response) {
      if (response.status !== 200) return;
      return response.text().then(function (text) {
        return NotesOffline.put("notes", {
          path: decodeURIComponent(tail),
          title: title ? decodeEntities(title[1]) : decodeURIComponent(tail),
          text: text,
          stored_at: new Date().toISOString()
        });
      });
    }).catch(function () {})
  ].concat(images.map(function (src) {
    return fetch(src, { credentials: "same-origin" }).then(function (response) {
      if (response.status === 200) return cache.put(new URL(src, self.location.origin).href, response);
    }).catch(function () {});
  })));
}

// Fetches a page beside the one opened and keeps it when it answers 200.
function keepPage(cache, path) {
  return fetch(path, { credentials: "same-origin", redirect: "manual" }).then(function (response) {
    if (response.status !== 200) return;
    return response.text().then(function (html) {
      var headers = new Headers(response.headers);
      headers.set(STAMP, new Date().toISOString());
      return cache.put(new URL(path, self.location.origin).href,
        new Response(html, { status: 200, headers: headers }));
    });
  }).catch(function () {});
}

// The copy of a page, under the offline banner; the offline search; or the offline page.
function offlinePage(url) {
  if (url.pathname === "/search") return offlineSearch(url);
  return caches.open(PAGES).then(function (cache) {
    return cache.match(pageKey(url));
  }).then(function (copy) {
    if (!copy) return caches.match("/assets/offline.html").then(function (page) {
      return page || new Response("Offline", { status: 503, headers: { "Content-Type": "text/plain" } });
    });
    return copy.text().then(function (html) {
      return new Response(withBanner(html, copy.headers.get(STAMP)), {
        status: 200,
        headers: copy.headers
      });
    });
  });
}

// The banner goes right after `<body …>`: a string insert, the page is not parsed.
function withBanner(html, storedAt) {
  var at = storedAt ? new Date(storedAt) : null;
  var when = at && !isNaN(at) ? NotesOffline.when(at) : "an unknown time";
  var banner = '<div class="offline-banner" role="status" data-stored-at="' +
    escapeHtml(storedAt || "") + '">Offline — copy of ' + escapeHtml(when) + "</div>";
  var body = html.search(/<body[\s>]/i);
  if (body < 0) return banner + html;
  var end = html.indexOf(">", body) + 1;
  return html.slice(0, end) + banner + html.slice(end);
}

// `/search?q=` offline: the notes kept on this device whose title or text holds the
// words (case-insensitive), in a page that says so.
function offlineSearch(url) {
  var query = (url.searchParams.get("q") || "").trim();
  return NotesOffline.all("notes").catch(function () { return []; }).then(function (notes) {
    var needle = query.toLowerCase();
    var found = needle ? notes.filter(function (note) {
      return note.title.toLowerCase().indexOf(needle) >= 0 || note.text.toLowerCase().indexOf(needle) >= 0;
    }) : [];
    var items = found.map(function (note) {
      var href = "/note/" + NotesOffline.encodePath(note.path);
      return '<li><a class="title" href="' + escapeHtml(href) + '">' + escapeHtml(note.title) +
        '</a><p class="meta"><span class="path">' + escapeHtml(note.path) + "</span></p>" +
        '<p class="snippet">' + escapeHtml(excerpt(note.text, needle)) + "</p></li>";
    }).join("");
    var result = !query ? "" : found.length ?
      '<ol class="notes results offline-results">' + items + "</ol>" :
      '<div class="empty-state"><p>No note kept on this device matches.</p></div>';
    var html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
      '<meta name="viewport" content="width=device-width, initial-scale=1">' +
      '<meta name="color-scheme" content="light dark"><title>Search (offline) · notes</title>' +
      '<link rel="stylesheet" href="/assets/app.css"><link rel="manifest" href="/manifest.webmanifest">' +
      '<link rel="icon" href="/favicon.ico" sizes="32x32">' +
      '<script src="/assets/offline-store.js" defer></script><script src="/assets/offline.js" defer></script>' +
      '</head><body class="app search">' +
      '<div class="offline-banner" role="status">Offline — these are offline results</div>' +
      '<header class="bar"><div class="bar-inner"><a class="brand" href="/"><span class="logo" aria-hidden="true">✎</span>notes</a>' +
      '<span class="spacer"></span></div></header><main><header class="page"><h1>Search</h1>' +
      '<form class="find big" action="/search" method="get" role="search">' +
      '<input type="search" name="q" value="' + escapeHtml(query) + '" aria-label="Search notes">' +
      '<button class="button primary" type="submit">Search</button></form></header>' +
      '<p class="meta offline-note">Offline results: only the ' + notes.length +
      " notes opened on this device were searched" + (query ? " for “" + escapeHtml(query) + "”" : "") +
      " (" + found.length + (found.length === 1 ? " result" : " results") + ").</p>" +
      result + "</main></body></html>";
    return new Response(html, {
      status: 200,
      headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": CSP }
    });
  });
}

function excerpt(text, needle) {
  var body = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, "");
  var at = needle ? body.toLowerCase().indexOf(needle) : -1;
  var start = Math.max(0, at - 60);
  var piece = body.slice(start, start + 180).replace(/\s+/g, " ").trim();
  return (start > 0 ? "…" : "") + piece;
}

// A file, script, stylesheet or image: the network first (a fresh copy kept for files
// and the shell), the copy when it is not reached.
function file(request) {
  return answered(request).then(function (response) {
    if (response.status === 200 && response.type === "basic") {
      var copy = response.clone();
      var shell = new URL(request.url).pathname.indexOf("/file/") !== 0;
      caches.open(shell ? SHELL : PAGES).then(function (cache) { return cache.put(request, copy); })
        .catch(function () {});
    }
    return response;
  }, function () {
    return caches.match(request).then(function (copy) {
      return copy || new Response("", { status: 504 });
    });
  });
}

// A note's raw text: the network first (its text kept for offline search), the kept
// text when not reached: the editor reads it as the base of an offline edit.
function rawText(event, url) {
  var path = decodeURIComponent(url.pathname.slice("/raw/".length));
  return answered(event.request).then(function (response) {
    if (response.status === 200) {
      event.waitUntil(response.clone().text().then(function (text) {
        return NotesOffline.get("notes", path).then(function (known) {
          return NotesOffline.put("notes", {
            path: path,
            title: known ? known.title : path,
            text: text,
            stored_at: new Date().toISOString()
          });
        });
      }).catch(function () {}));
    }
    return response;
  }, function () {
    return NotesOffline.get("notes", path).then(function (note) {
      if (!note) return new Response("", { status: 504 });
      return new Response(note.text, {
        status: 200,
        headers: { "Content-Type": "text/plain; charset=utf-8", "X-Notes-Stored-At": note.stored_at }
      });
    });
  });
}

// A form save that does not reach the server: queued, and a page that says so. The
// editor's draft gives the base the edit started from.
function saveOrQueue(request) {
  var copy = request.clone();
  return fetch(request).catch(function () {
    return copy.formData().then(function (form) {
      var fields = {
        title: form.get("title") || "",
        tags: form.get("tags") || "",
        body: form.get("body") || "",
        date: form.get("date") || ""
      };
      var edit = form.get("mode") === "edit";
      var path = edit ? String(form.get("path") || "").trim() : NotesOffline.newPath(form.get("path"), fields.title);
      if (!path) return queuedPage("", false);
      var key = edit ? "edit:" + path : "new:";
      return NotesOffline.get("drafts", key).catch(function () { return null; }).then(function (draft) {
        var base = edit ? (draft ? draft.base : undefined) : null;
        var ready = base === undefined ?
          NotesOffline.get("notes", path).then(function (note) { return note ? note.text : null; }) :
          Promise.resolve(base);
        return ready.then(function (base) {
          var text = NotesOffline.compose(fields, base, draft ? draft.loaded : null);
          return NotesOffline.enqueue(path, base, text).then(function () {
            return NotesOffline.remove("drafts", key);
          }).then(function () {
            if (self.registration.sync) self.registration.sync.register("notes-outbox").catch(function () {});
            return queuedPage(path, true);
          });
        });
      });
    });
  });
}

function queuedPage(path, queued) {
  var message = queued ? "Queued — will be sent when online: " + path :
    "Not saved: give the note a title or a path, then save again.";
  var html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">" +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Queued · notes</title><link rel="stylesheet" href="/assets/app.css">' +
    '<script src="/assets/offline-store.js" defer></script><script src="/assets/offline.js" defer></script>' +
    '</head><body class="app"><header class="bar"><div class="bar-inner"><a class="brand" href="/">' +
    '<span class="logo" aria-hidden="true">✎</span>notes</a><span class="spacer"></span></div></header>' +
    '<main><p class="' + (queued ? "notice queued" : "error") + '" role="status">' + escapeHtml(message) +
    '</p><p><a class="button" href="/">← All notes</a></p></main></body></html>';
  return new Response(html, {
    status: queued ? 202 : 400,
    headers: { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": CSP }
  });
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, function (c) {
    return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
  });
}

function decodeEntities(text) {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, function (_, name) {
    return { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" }[name];
  });
}
