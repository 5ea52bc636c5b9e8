// ruff's WebAssembly build (npm's @astral-sh/ruff-wasm-nodejs, which
// scripts/install-deps.sh fetches) checking the files named on stdin with the
// rules E4, E7, E9 and F (ruff's defaults): the second anchor of
// bench/lint_compare.sh. One thread, as WebAssembly runs here.
//   node bench/lint_ruff.js RUFF_WASM_DIR < files
// Prints the number of files checked and of diagnostics.
"use strict";
const fs = require("fs");
const path = require("path");

const ruff = require(path.join(process.argv[2], "ruff_wasm.js"));
const workspace = new ruff.Workspace(
  { lint: { select: ["E4", "E7", "E9", "F"] } },
  ruff.PositionEncoding.Utf16,
);
const files = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
let diagnostics = 0;
for (const file of files) {
  diagnostics += workspace.check(fs.readFileSync(file, "utf8")).length;
}
console.log(`${files.length} ${diagnostics}`);
