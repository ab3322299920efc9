// Takes a screenshot of the built page: node web/shot.mjs OUT.png [#fragment] [--run]
import { startStatic, launchChromium, withTimeout } from "./test/lib.mjs";
const out = process.argv[2] || "page.png";
const frag = process.argv.find((a) => a.startsWith("#")) || "";
const srv = await startStatic();
const b = await launchChromium();
try {
  const page = await b.ctx.newPage();
  page.on("console", (m) => console.log("console:", m.text()));
  page.on("pageerror", (e) => console.log("pageerror:", e.message));
  await page.goto(srv.url + frag);
  await withTimeout(page.waitForSelector("#run"), 20000, "ui");
  if (process.argv.includes("--run")) {
    await page.click("#run");
    await page.waitForFunction(() => !document.querySelector("#run").disabled, null, { timeout: 60000 });
  }
  await page.waitForTimeout(300);
  await page.screenshot({ path: out, fullPage: true });
  console.log("wrote", out);
} finally { await b.close(); await srv.close(); }
