/* The scorer's pad's service worker: keeps the pad's page and files so that a reload with
 * the connection down still opens the pad (its queue is in localStorage). The API is never
 * cached: the pad asks the service, or queues. */
"use strict";
const CACHE = "jaslog-pad-v2";
//: the page (the same file at /record and at every /record/{game}) and what it loads
const PAGE = "/record";
const FILES = ["/static/record.js", "/static/record.css", "/static/favicon.svg", "/static/pages.js",
  "/static/header.css"];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll([PAGE, ...FILES])).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (e) => { e.waitUntil(self.clients.claim()); });

self.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  const page = e.request.mode === "navigate" && (url.pathname === "/record" || url.pathname.startsWith("/record/"));
  if (e.request.method !== "GET" || !(page || FILES.includes(url.pathname))) return;
  const key = page ? PAGE : url.pathname;
  e.respondWith(fetch(e.request).then((r) => {
    if (r.ok) { const copy = r.clone(); caches.open(CACHE).then((c) => c.put(key, copy)); }
    return r;
  }).catch(() => caches.match(key).then((r) => r || Response.error())));
});
