// Minimal static file server for the built site (make serve-web, and the browser tests).
// Binds to 127.0.0.1 only. Usage: node web/serve.mjs --root build/web [--host 127.0.0.1] [--port 8080]
// The site is served at the root and under /aisimulate/, the folder the docs' embed snippet
// names (https://YOUR-HOST/aisimulate/embed.js), so the snippet works as written against
// http://127.0.0.1:8080 (docs/web.md, "Docs embed").
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const TYPES = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8", ".wasm": "application/wasm", ".json": "application/json", ".yaml": "text/yaml; charset=utf-8",
  ".png": "image/png", ".svg": "image/svg+xml",
};

// MOUNT is the second place the site is served: the publication folder of the docs' snippet.
const MOUNT = "/aisimulate/";

export function serve({ root, host = "127.0.0.1", port = 8080 }) {
  const abs = path.resolve(root);
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    if (u.pathname === MOUNT.slice(0, -1)) { res.writeHead(301, { Location: MOUNT }).end(); return; }
    if (u.pathname.startsWith(MOUNT)) u.pathname = u.pathname.slice(MOUNT.length - 1);
    let p = path.normalize(decodeURIComponent(u.pathname)).replace(/^(\.\.[/\\])+/, "");
    if (p.endsWith("/")) p += "index.html";
    const file = path.join(abs, p);
    if (!file.startsWith(abs)) { res.writeHead(403).end(); return; }
    fs.stat(file, (serr, st) => {
      if (serr || !st.isFile()) { res.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n"); return; }
      // Revalidated caching (ETag + 304) lets Chromium reuse its compiled-wasm code cache.
      const etag = `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const head = {
        "Content-Type": TYPES[path.extname(file)] || "application/octet-stream",
        "Cache-Control": "no-cache",
        "ETag": etag,
        "Access-Control-Allow-Origin": "*",
      };
      if (req.headers["if-none-match"] === etag) { res.writeHead(304, head).end(); return; }
      fs.readFile(file, (err, data) => {
        if (err) { res.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n"); return; }
        res.writeHead(200, head);
        res.end(data);
      });
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve(server));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
  const root = opt("--root", "build/web");
  const host = opt("--host", "127.0.0.1");
  const port = Number(opt("--port", "8080"));
  serve({ root, host, port }).then(() => console.log(`serving ${root} on http://${host}:${port}/ and http://${host}:${port}${MOUNT}`));
}
