// The deployment itself (docs/artifacts.md) on every target: bin/aisimulate predict
// --artifacts writes deploy/0001/; the GOOS=js core under node (aisimulateCore.deployPrediction),
// the page (window.aisimulate.deployment, in the simulation worker) and the edge
// (POST /v1/predict?artifacts=1) must give the same files byte for byte, and the node and
// browser zips must be the same bytes. The Predict view's download button saves the same
// files (the Recommend view's is checked in recommend.test.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import {
  ROOT, CLI, FIXED_WALL, parseMultipart, assertSameText, startAllTargets, unzip, readDeploy,
} from "./lib.mjs";

let targets, page, edge, core;

before(async () => {
  assert.ok(fs.existsSync(CLI), `${CLI} missing: run make build`);
  targets = await startAllTargets();
  ({ page, edge, core } = targets);
});

after(async () => { if (targets) await targets.close(); });

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

// The Predict view's "Download deployment" saves deploy/0001/ of the run it shows: the CLI's
// predict --artifacts on the page's configuration (the default one, run from the form).
test("the Predict view's deployment download is the CLI's deploy/0001/", { timeout: 120000 }, async () => {
  await page.click("#run");
  await page.waitForSelector("#dl-deployment", { timeout: 90000 });
  const yaml = await page.inputValue("#yaml");
  const [dl] = await Promise.all([page.waitForEvent("download", { timeout: 30000 }), page.click("#dl-deployment")]);
  assert.equal(dl.suggestedFilename(), "deployment-0001.zip");
  const got = unzip(fs.readFileSync(await dl.path()));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "aisim-art-"));
  fs.writeFileSync(path.join(dir, "prediction.yaml"), yaml);
  execFileSync(CLI, ["predict", "--stack", "dynamo", "--config", "prediction.yaml", "--output-dir", "out", "--artifacts"],
    { cwd: dir, env: { ...process.env, AISIMULATE_WAZERO_CACHE: process.env.AISIMULATE_WAZERO_CACHE || path.join(ROOT, "build/wazero-cache") } });
  const cli = readDeploy(path.join(dir, "out"));
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(Object.keys(got).sort(), Object.keys(cli).sort(), "file names");
  for (const [k, v] of Object.entries(cli)) assertSameText(got[k], v, "downloaded " + k);
});
