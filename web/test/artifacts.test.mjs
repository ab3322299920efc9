// The deployment itself (docs/artifacts.md) on every target: bin/aisimulate predict
// --artifacts writes deploy/0001/; the GOOS=js core under node (aisimulateCore.deployPrediction),
// the page (window.aisimulate.deployment, in the simulation worker) and the edge
// (POST /v1/predict?artifacts=1) must give the same files byte for byte, and the node and
// browser zips must be the same bytes.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { execFileSync } from "node:child_process";
import {
  ROOT, CLI, FIXED_WALL, loadNodeCore, startStatic, launchChromium, startWorkerd, parseMultipart, assertSameText, withTimeout,
} from "./lib.mjs";

let srv, browser, page, edge, core;

before(async () => {
  assert.ok(fs.existsSync(CLI), `${CLI} missing: run make build`);
  core = await loadNodeCore();
  srv = await startStatic();
  browser = await launchChromium();
  page = await browser.ctx.newPage();
  await page.goto(srv.url);
  await withTimeout(page.evaluate(() => window.aisimulate.ready), 30000, "page core ready");
  edge = await startWorkerd({ env: { AISIMULATE_FIXED_WALL_TIME_MS: String(FIXED_WALL) } });
});

after(async () => {
  if (edge) await edge.close();
  if (browser) await browser.close();
  if (srv) await srv.close();
});

/** unzip reads a zip archive's entries from its central directory: {name: text}, in order. */
function unzip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, "no end of central directory");
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out = {};
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, "central directory entry");
    const method = buf.readUInt16LE(p + 10), size = buf.readUInt32LE(p + 20);
    const n = buf.readUInt16LE(p + 28), e = buf.readUInt16LE(p + 30), c = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + n);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(start, start + size);
    out[name] = (method === 8 ? zlib.inflateRawSync(data) : data).toString("utf8");
    p += 46 + n + e + c;
  }
  return out;
}

/** readDeploy reads out/deploy/** as {"deploy/0001/…": text}. */
function readDeploy(out) {
  const files = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files[path.relative(out, p).split(path.sep).join("/")] = fs.readFileSync(p, "utf8");
    }
  };
  walk(path.join(out, "deploy"));
  return files;
}

for (const name of ["04-fixed-disaggregated.yaml", "06-default-timing.yaml", "07-planner.yaml"]) {
  test(`deployment identity ${name}`, { timeout: 120000 }, async () => {
    // The edge names every configuration prediction.yaml: the CLI runs the same name.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-art-"));
    const yaml = fs.readFileSync(path.join(ROOT, "web/testdata/identity", name), "utf8");
    fs.writeFileSync(path.join(dir, "prediction.yaml"), yaml);
    execFileSync(CLI, ["predict", "--stack", "dynamo", "--config", "prediction.yaml", "--output-dir", "out", "--artifacts"],
      { cwd: dir, env: { ...process.env, AISIMULATE_FIXED_WALL_TIME_MS: String(FIXED_WALL),
        AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } });
    const cli = readDeploy(path.join(dir, "out"));
    const prediction = fs.readFileSync(path.join(dir, "out", "prediction.json"), "utf8");
    fs.rmSync(dir, { recursive: true, force: true });
    assert.ok(Object.keys(cli).length >= 3, "CLI deploy files: " + Object.keys(cli));

    const node = core.deployPrediction(yaml, prediction, { configName: "prediction.yaml" });
    assert.ok(node.ok, "node: " + (node.error && node.error.message));
    const nodeZip = Buffer.from(node.zipBase64, "base64");
    const nodeFiles = unzip(nodeZip);
    assert.deepEqual(Object.keys(nodeFiles).sort(), Object.keys(cli).sort(), "node file names");
    for (const [k, v] of Object.entries(cli)) assertSameText(nodeFiles[k], v, "node " + k);

    const web = await page.evaluate(async ([y, p]) => {
      const r = await window.aisimulate.deployment("prediction", y, p, { configName: "prediction.yaml" });
      return { names: r.names, zip: Array.from(r.zip) };
    }, [yaml, prediction]);
    assert.ok(Buffer.from(web.zip).equals(nodeZip), "the browser's zip differs from node's");
    assert.deepEqual(web.names, Object.keys(nodeFiles), "browser names");

    const r = await fetch(edge.url + "/v1/predict?artifacts=1", { method: "POST", body: yaml, headers: { "Content-Type": "application/yaml" } });
    const text = await r.text();
    assert.equal(r.status, 200, "edge: " + text);
    const parts = parseMultipart(r.headers.get("content-type") || "", text);
    for (const [k, v] of Object.entries(cli)) assertSameText(parts[k], v, "edge " + k);
  });
}
