// Reads the v3 stores written by aimz-io-e2e-write-stores with zarrita.js
// (+ numcodecs.js for Blosc/zstd) and checks them against expected.json.
//
// Usage: node read_v3.mjs OUTDIR NODE_MODULES_PREFIX
// Exit status 77 means "skipped": the npm packages could not be installed.
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const SKIP = 77;
const [outDir, prefix] = process.argv.slice(2);

function fail(msg) {
  console.log("FAIL: " + msg);
  process.exit(1);
}

// The packages live in a cache outside the source tree, so resolve their
// ESM entry points by hand from package.json "exports".
async function importPackage(name, subpath = ".") {
  const dir = path.join(prefix, "node_modules", name);
  const pkgFile = path.join(dir, "package.json");
  if (!fs.existsSync(pkgFile)) {
    console.log(
      `SKIP: ${name} is not installed under ${prefix}; the npm install ` +
        "fixture could not reach the registry (see its log)",
    );
    process.exit(SKIP);
  }
  const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
  let entry = pkg.exports?.[subpath] ?? (subpath === "." ? pkg.main : null);
  if (entry && typeof entry === "object") entry = entry.import ?? entry.default;
  if (!entry) fail(`${name} has no export ${subpath}`);
  return import(pathToFileURL(path.join(dir, entry)).href);
}

const zarr = await importPackage("zarrita");
const { default: FileSystemStore } = await importPackage(
  "@zarrita/storage",
  "./fs",
);
const { default: Blosc } = await importPackage("numcodecs", "./blosc");
const { default: Zstd } = await importPackage("numcodecs", "./zstd");

const expected = JSON.parse(
  fs.readFileSync(path.join(outDir, "expected.json"), "utf8"),
);

function deepEqual(a, b) {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}

function valueAt(data, i) {
  if (typeof data.get === "function") return data.get(i); // BoolArray
  return data[i];
}

function sameValue(got, want) {
  if (want === null) return Number.isNaN(got);
  if (typeof got === "bigint") return got === BigInt(want);
  return got === want;
}

// Decodes the last (edge) chunk of an array by hand and checks that its
// padding is the fill value, which zarrita itself never exposes.
async function checkPadding(storePath, name, spec, codecs) {
  const grid = spec.shape.map((s, i) => Math.ceil(s / spec.chunks[i]));
  const key = ["c", ...grid.map((g) => g - 1)].join("/");
  let bytes = new Uint8Array(
    fs.readFileSync(path.join(storePath, name, ...key.split("/"))),
  );
  const comp = codecs[codecs.length - 1];
  if (comp.name === "blosc") bytes = await Blosc.fromConfig(comp.configuration).decode(bytes);
  else if (comp.name === "zstd") bytes = await Zstd.fromConfig(comp.configuration).decode(bytes);
  const vals = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const [rows, cols] = spec.chunks;
  const validRows = spec.shape[0] - (grid[0] - 1) * rows;
  const validCols = spec.shape[1] - (grid[1] - 1) * cols;
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      const v = vals[r * cols + c];
      if (r < validRows && c < validCols) continue;
      if (!Number.isNaN(v))
        fail(`${storePath}/${name}/${key}: padding (${r},${c}) is ${v}, not NaN`);
    }
}

let checked = 0;
for (const st of expected.stores) {
  if (st.format !== 3) continue;
  const storePath = path.join(outDir, st.path);
  const store = new FileSystemStore(storePath);
  const group = await zarr.open.v3(store, { kind: "group" });
  if (!deepEqual(group.attrs, expected.group_attrs))
    fail(`${st.path}: group attrs ${JSON.stringify(group.attrs)}`);
  for (const [name, spec] of Object.entries(expected.arrays)) {
    if (spec.v2_only) continue;
    const where = `${st.path}/${name} (${st.codec})`;
    const arr = await zarr.open.v3(group.resolve(name), { kind: "array" });
    if (arr.dtype !== spec.v3_dtype) fail(`${where}: dtype ${arr.dtype}`);
    if (!deepEqual(arr.shape, spec.shape)) fail(`${where}: shape ${arr.shape}`);
    if (!deepEqual(arr.chunks, spec.chunks))
      fail(`${where}: chunks ${arr.chunks}`);
    if (!deepEqual(arr.dimensionNames, spec.dims))
      fail(`${where}: dimension_names ${JSON.stringify(arr.dimensionNames)}`);
    if (!deepEqual(arr.attrs, spec.attrs))
      fail(`${where}: attrs ${JSON.stringify(arr.attrs)}`);
    let chunk = await zarr.get(arr);
    // A 0-d array reads as a bare scalar.
    if (spec.shape.length === 0 && (chunk === null || typeof chunk !== "object"))
      chunk = { data: [chunk], shape: [] };
    if (!deepEqual(chunk.shape, spec.shape))
      fail(`${where}: result shape ${chunk.shape}`);
    spec.values.forEach((want, i) => {
      const got = valueAt(chunk.data, i);
      if (!sameValue(got, want))
        fail(`${where}: element ${i} is ${got}, want ${want}`);
    });
    if (name === "theta") {
      const meta = JSON.parse(
        fs.readFileSync(path.join(storePath, name, "zarr.json"), "utf8"),
      );
      await checkPadding(storePath, name, spec, meta.codecs);
    }
    checked++;
  }
}
// Spot checks independent of expected.json.
{
  const store = new FileSystemStore(path.join(outDir, "v3-default.zarr"));
  const theta = await zarr.open.v3(zarr.root(store).resolve("theta"), {
    kind: "array",
  });
  const one = await zarr.get(theta, [4, 6]);
  if (one !== 46.25) fail(`theta[4, 6] is ${one}, want 46.25`);
}
console.log(`ok: zarrita read ${checked} arrays`);
