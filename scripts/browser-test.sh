#!/usr/bin/env bash
# The page in a real browser: Debian's headless chromium driven by playwright-core (under /tmp) loads KQvK from
# `retro serve` on the shipped tables, checks the shown value and moves against the API, clicks the best move and
# checks the new value; a screenshot goes to /tmp/retro-browser.png.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || { apt-get update -qq && apt-get install -y -qq chromium; }
work=/tmp/retro-browser
mkdir -p "$work"
[ -d "$work/node_modules/playwright-core" ] || (cd "$work" && npm init -y >/dev/null && npm install -q playwright-core)
cargo build --release -q -p retro
port=$((20000 + RANDOM % 20000))
./target/release/retro serve --tables tablebases/chess --bind "127.0.0.1:$port" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
cat > "$work/test.js" <<'JS'
const { chromium } = require("playwright-core");
const base = process.argv[2];
const fen = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1";
const api = async (f) => (await fetch(`${base}/standard?fen=${encodeURIComponent(f)}`)).json();
const check = (ok, what) => { if (!ok) { console.error("FAILED: " + what); process.exit(1); } };
(async () => {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox",
    "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"] });
  const page = await browser.newPage();
  await page.goto(base + "/#chess");
  await page.fill("#position", fen);
  await page.click("#load");
  await page.waitForFunction((f) => document.querySelector("#value").dataset.category && document.querySelector("#position").value === f, fen);
  await page.waitForSelector("#moves li");
  const read = () => page.evaluate(() => ({
    value: document.querySelector("#value").textContent,
    category: document.querySelector("#value").dataset.category,
    dtm: document.querySelector("#value").dataset.dtm,
    moves: [...document.querySelectorAll("#moves li")].map((li) => ({ uci: li.dataset.move, category: li.dataset.category, dtm: li.dataset.dtm, text: li.textContent })),
  }));
  const shown = await read();
  const expected = await api(fen);
  console.log("shown:", shown.value, "|", shown.moves.length, "moves, best:", shown.moves[0].text);
  check(shown.category === expected.category && shown.dtm === String(expected.dtm), "value");
  check(shown.moves.length === expected.moves.length, "move count");
  shown.moves.forEach((m, i) => check(m.uci === expected.moves[i].uci && m.category === expected.moves[i].category && m.dtm === String(expected.moves[i].dtm), "move " + i));
  await page.click("#moves li:first-child");
  const next = expected.moves[0].fen;
  await page.waitForFunction((f) => document.querySelector("#position").value === f, next);
  await page.waitForFunction((c) => document.querySelector("#value").dataset.dtm === c, String(expected.moves[0].dtm));
  const after = await read();
  const expectedAfter = await api(next);
  console.log("after", expected.moves[0].san + ":", after.value, "|", after.moves.length, "moves");
  check(after.category === expectedAfter.category && after.dtm === String(expectedAfter.dtm), "value after the move");
  await page.screenshot({ path: "/tmp/retro-browser.png", fullPage: true });
  await browser.close();
  console.log("browser test passed; screenshot /tmp/retro-browser.png");
})().catch((e) => { console.error(e); process.exit(1); });
JS
node "$work/test.js" "http://127.0.0.1:$port"
