// The pages' side of working offline (the service worker is assets/sw.js; the stores
// are assets/offline-store.js). It registers the worker; keeps the editor's text as a
// draft in IndexedDB at each pause in typing and offers it back when the editor is
// opened again; queues a save made offline instead of losing it; sends the queue when
// the network returns and says what became of each save (a conflict links to its
// resolve page); and asks before a logout would discard saves not sent yet.
(function () {
  "use strict";
  var store = self.NotesOffline;
  if (!store || !window.indexedDB || !window.fetch) return;
  var DEBOUNCE_MS = 300;

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "sent") report(event.data.results);
    });
  }

  // A save the server confirmed (`/note/…?done=saved`) ends the draft it came from. The
  // query is read here, before app.js takes it off the address.
  var saved = /[?&]done=(saved|created)(&|$)/.exec(location.search);
  var notePage = /^\/note\/(.+)$/.exec(location.pathname);
  if (saved && notePage) {
    var key = saved[1] === "created" ? "new:" : "edit:" + decodeURIComponent(notePage[1]);
    store.remove("drafts", key).catch(function () {});
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form.editor");
    if (form) editor(form);
    var logout = document.querySelector("form.logout");
    if (logout) guardLogout(logout);
    if (navigator.onLine) sendQueued(); else showQueue();
  });
  window.addEventListener("online", sendQueued);
  window.addEventListener("offline", showQueue);

  function sendQueued() {
    return store.flush().then(report, function () {}).then(showQueue);
  }

  // The box at the top of the page: saves waiting, and what became of those sent.
  function statusBox() {
    var box = document.querySelector(".offline-status");
    if (box) return box;
    var main = document.querySelector("main");
    if (!main) return null;
    box = document.createElement("section");
    box.className = "offline-status";
    box.setAttribute("role", "status");
    box.setAttribute("aria-label", "Offline saves");
    box.hidden = true;
    var queued = document.createElement("div");
    queued.className = "queue";
    var sent = document.createElement("ul");
    sent.className = "sent";
    box.appendChild(queued);
    box.appendChild(sent);
    main.insertBefore(box, main.firstChild);
    return box;
  }

  function showQueue() {
    return store.all("outbox").then(function (items) {
      var box = statusBox();
      if (!box) return;
      var queue = box.querySelector(".queue");
      queue.textContent = "";
      if (items.length) {
        var head = document.createElement("p");
        head.className = "queued";
        head.textContent = "Queued — will be sent when online:";
        var list = document.createElement("ul");
        items.forEach(function (item) {
          var li = document.createElement("li");
          var path = document.createElement("span");
          path.className = "path";
          path.textContent = item.path;
          li.appendChild(path);
          li.appendChild(document.createTextNode(" · " + (item.base === null ? "new note" : "edit") +
            " · queued " + store.when(item.queued_at)));
          if (item.error) {
            var error = document.createElement("span");
            error.className = "refused";
            error.textContent = " — not sent: " + item.error;
            li.appendChild(error);
          }
          list.appendChild(li);
        });
        queue.appendChild(head);
        queue.appendChild(list);
      }
      box.hidden = !items.length && !box.querySelector(".sent li");
    }, function () {});
  }

  var SAID = {
    saved: "saved",
    merged: "merged with the changes made meanwhile",
    unchanged: "already the note's text",
    conflict: "changed meanwhile on the same lines: both versions are kept in the note"
  };

  function report(results) {
    var box = statusBox();
    if (!box || !results) return;
    var sent = box.querySelector(".sent");
    results.forEach(function (result) {
      if (!result.outcome) return;
      var li = document.createElement("li");
      li.className = result.outcome === "conflict" ? "conflict" : "done";
      var link = document.createElement("a");
      link.href = "/note/" + store.encodePath(result.path);
      link.textContent = result.path;
      li.appendChild(document.createTextNode("Sent: "));
      li.appendChild(link);
      li.appendChild(document.createTextNode(" — " + (SAID[result.outcome] || result.outcome) + "."));
      if (result.outcome === "conflict") {
        var resolve = document.createElement("a");
        resolve.className = "button primary resolve";
        resolve.href = "/resolve/" + store.encodePath(result.path);
        resolve.textContent = "Resolve the conflict";
        li.appendChild(document.createTextNode(" "));
        li.appendChild(resolve);
      }
      sent.appendChild(li);
    });
    box.hidden = !sent.children.length && !box.querySelector(".queue li");
  }

  function ask(sync) {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.ready.then(function (registration) {
      if (sync && registration.sync) return registration.sync.register("notes-outbox");
    }).catch(function () {});
  }

  // The editor: a draft at each pause in typing, the offer to restore one, and a save
  // that cannot reach the server queued.
  function editor(form) {
    var field = function (name) { return form.querySelector("[name=" + name + "]"); };
    var edit = (field("mode") || {}).value === "edit";
    var notePath = edit ? field("path").value.trim() : "";
    var key = edit ? "edit:" + notePath : "new:";
    var loaded = read();
    var state = { base: edit ? undefined : null, offer: null, stale: false };
    var timer = null;
    var message = null;

    function read() {
      return {
        title: field("title") ? field("title").value : "",
        tags: field("tags") ? field("tags").value : "",
        body: field("body") ? field("body").value : "",
        date: field("date") ? field("date").value : "",
        path: field("path") ? field("path").value : ""
      };
    }

    function changed(fields, than) {
      return ["title", "tags", "body", "path"].some(function (name) {
        return (fields[name] || "") !== (than[name] || "");
      });
    }

    function say(text, kind) {
      if (!message) {
        message = document.createElement("p");
        message.setAttribute("role", "status");
        form.parentNode.insertBefore(message, form);
      }
      message.className = kind;
      message.textContent = text;
    }

    // The note's text as the editor was loaded with it: from the server, or, offline,
    // the copy the worker keeps.
    var based = !edit ? Promise.resolve(null) :
      fetch("/raw/" + store.encodePath(notePath), { credentials: "same-origin" }).then(function (r) {
        return r.status === 200 ? r.text() : null;
      }).catch(function () { return null; }).then(function (text) {
        if (text === null) {
          return store.get("notes", notePath).then(function (n) { return n ? n.text : null; });
        }
        return text;
      }).catch(function () { return null; });
    based.then(function (base) {
      if (state.base === undefined) state.base = base;
      return store.get("drafts", key);
    }).then(function (draft) {
      if (draft && changed(draft.fields, read())) offer(draft);
    }).catch(function () {});

    function offer(draft) {
      state.offer = draft;
      var box = document.createElement("div");
      box.className = "draft-offer";
      box.setAttribute("role", "alert");
      var text = document.createElement("p");
      text.textContent = "A draft of this note from " + store.when(draft.saved_at) +
        " was not saved. Restore it?";
      var restore = document.createElement("button");
      restore.type = "button";
      restore.className = "button primary";
      restore.setAttribute("data-restore", "");
      restore.textContent = "Restore the draft";
      var discard = document.createElement("button");
      discard.type = "button";
      discard.className = "button";
      discard.setAttribute("data-discard", "");
      discard.textContent = "Discard it";
      box.appendChild(text);
      box.appendChild(restore);
      box.appendChild(document.createTextNode(" "));
      box.appendChild(discard);
      form.parentNode.insertBefore(box, form);
      restore.addEventListener("click", function () {
        ["title", "tags", "body"].forEach(function (name) {
          if (field(name)) field(name).value = draft.fields[name] || "";
        });
        if (!edit && field("path")) field("path").value = draft.fields.path || "";
        // The draft was typed over its own base: a save sends it to be merged.
        if (edit) {
          state.stale = draft.base !== state.base;
          state.base = draft.base;
          loaded = draft.loaded || loaded;
        }
        state.offer = null;
        box.remove();
        field("body").dispatchEvent(new Event("input", { bubbles: true }));
      });
      discard.addEventListener("click", function () {
        state.offer = null;
        box.remove();
        store.remove("drafts", key).catch(function () {});
      });
    }

    function saveDraft() {
      // A draft not restored yet is not written over until the user says.
      if (state.offer || state.base === undefined) return;
      var fields = read();
      if (!changed(fields, loaded)) {
        store.remove("drafts", key).catch(function () {});
        return;
      }
      var path = edit ? notePath : store.newPath(fields.path, fields.title);
      store.put("drafts", {
        key: key,
        path: path,
        base: state.base,
        text: store.compose(fields, state.base, loaded),
        saved_at: new Date().toISOString(),
        fields: fields,
        loaded: loaded
      }).catch(function () {
        say("This browser could not keep a draft of your text: keep the page open until it is saved.", "error");
      });
    }

    form.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(saveDraft, DEBOUNCE_MS);
    });

    // A save offline, or of a restored draft typed over an older version, is queued;
    // online the queue is sent at once.
    form.addEventListener("submit", function (event) {
      if (navigator.onLine && !state.stale) return;
      event.preventDefault();
      clearTimeout(timer);
      var fields = read();
      var path = edit ? notePath : store.newPath(fields.path, fields.title);
      if (!path) {
        say("Give the note a title or a path.", "error");
        return;
      }
      if (edit && (state.base === null || state.base === undefined)) {
        say("This note's text is not kept on this device, so the edit cannot be queued: keep " +
          "the page open and save when online.", "error");
        return;
      }
      var base = edit ? state.base : null;
      var text = store.compose(fields, base, loaded);
      store.enqueue(path, base, text).then(function () {
        return store.remove("drafts", key);
      }).then(function () {
        // Further edits start from the text queued.
        if (edit) state.base = text;
        state.stale = false;
        loaded = fields;
        form.setAttribute("data-queued", "");
        say("Queued — will be sent when online.", "notice queued");
        ask(true);
        return navigator.onLine ? sendQueued() : showQueue();
      }, function () {
        say("This browser could not keep your text: keep the page open and save when online.", "error");
      });
    });
  }

  // Logging out deletes what this device keeps of the session; saves not sent yet and
  // drafts go only once the user agrees.
  function guardLogout(form) {
    var confirmed = false;
    form.addEventListener("submit", function (event) {
      if (confirmed) return;
      event.preventDefault();
      Promise.all([store.all("outbox"), store.all("drafts")]).then(function (kept) {
        var count = kept[0].length + kept[1].length;
        if (count && !window.confirm(count + (count === 1 ? " edit has" : " edits have") +
            " not reached the server yet (queued or drafts) and will be lost. Log out anyway?")) {
          return false;
        }
        return Promise.all([
          store.clear("outbox"),
          store.clear("drafts"),
          store.forgetCopies(),
          window.caches ? caches.delete("notes-pages") : null
        ]).then(function () { return true; });
      }).catch(function () { return true; }).then(function (leave) {
        if (!leave) return;
        confirmed = true;
        if (form.requestSubmit) form.requestSubmit(); else form.submit();
      });
    });
  }
})();
