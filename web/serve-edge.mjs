// make serve-edge: runs the built worker (build/worker) under workerd with web/workerd.capnp,
// waits until its API answers, then prints one "listening on" line (workerd itself prints
// nothing) and keeps serving until Ctrl+C. Usage: node web/serve-edge.mjs [--port 8787]
// A port other than the configuration's 8787 is written into a copy of the configuration
// under build/ (the browser and edge tests use their own servers; this is for people).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CONFIG = path.join(ROOT, "web/workerd.capnp");
const ADDRESS = `address = "127.0.0.1:8787"`;

const args = process.argv.slice(2);
const i = args.indexOf("--port");
const port = i >= 0 ? Number(args[i + 1]) : 8787;
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error(`serve-edge: --port must be a TCP port number, got ${args[i + 1]}`);
  process.exit(2);
}
let config = CONFIG;
if (port !== 8787) {
  // build/ sits next to web/, so the configuration's ../build/worker paths still resolve.
  config = path.join(ROOT, "build/serve-edge.capnp");
  const text = fs.readFileSync(CONFIG, "utf8");
  if (!text.includes(ADDRESS)) {
    console.error(`serve-edge: ${path.relative(ROOT, CONFIG)} has no socket ${ADDRESS} to move to port ${port}`);
    process.exit(1);
  }
  fs.writeFileSync(config, text.replace(ADDRESS, `address = "127.0.0.1:${port}"`));
}
const url = `http://127.0.0.1:${port}/`;
const proc = spawn(path.join(ROOT, "web/node_modules/.bin/workerd"), ["serve", config, "--experimental"], { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => proc.kill(sig));
proc.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));

const deadline = Date.now() + 60000;
for (;;) {
  try {
    if ((await fetch(url + "v1/health")).ok) break;
  } catch { /* not up yet */ }
  if (proc.exitCode !== null) break; // the exit handler reports it
  if (Date.now() > deadline) {
    console.error(`serve-edge: workerd did not answer on ${url} within 60 s`);
    proc.kill("SIGTERM");
    process.exit(1);
  }
  await new Promise((r) => setTimeout(r, 150));
}
console.log(`listening on ${url} (aisimulate edge API under workerd, ${path.relative(ROOT, config)}; Ctrl+C stops)`);
