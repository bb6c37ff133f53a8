// The live log of one campaign: every event from the stream, newest first, as text only.
"use strict";

const name = decodeURIComponent(location.pathname.split("/").pop());
const base = "/api/c/" + encodeURIComponent(name);
const log = document.getElementById("log");
const items = new Map();

function show(entry) {
  const item = document.createElement("li");
  item.dataset.version = String(entry.version);
  const who = entry.who ? entry.who + ": " : "";
  item.textContent = "v" + entry.version + " " + who + entry.summary;
  if (entry.undone) item.classList.add("undone");
  items.set(entry.version, item);
  log.prepend(item);
  const ev = entry.event;
  if (ev && (entry.kind === "action.undone")) {
    for (let v = ev.first; v <= ev.last; v++) items.get(v)?.classList.add("undone");
  }
}

document.getElementById("campaign").textContent = name;
const feed = new EventSource(base + "/stream");
feed.onopen = () => { document.getElementById("status").textContent = "live"; };
feed.onerror = () => { document.getElementById("status").textContent = "reconnecting…"; };
feed.onmessage = (message) => show(JSON.parse(message.data));
feed.addEventListener("revoked", () => {
  feed.close();
  document.getElementById("status").textContent = "this seat was revoked";
});
