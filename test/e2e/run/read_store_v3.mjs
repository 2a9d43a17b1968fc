// Reads a Zarr v3 store written by aimz-run with zarrita.js (+ numcodecs.js
// for Blosc/zstd) and prints, as JSON, the group attributes and for each
// named array its metadata as zarrita sees it and its values (base64 of the
// little-endian element bytes), for test_zarr_v3.py to compare.
//
// Usage: node read_store_v3.mjs NODE_MODULES_PREFIX STORE ARRAY...
// Exit status 77: zarrita/numcodecs are not installed (test skipped).
// (Package resolution as in test/e2e/io/read_v3.mjs.)
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const SKIP = 77;
const [prefix, storePath, ...names] = process.argv.slice(2);

async function importPackage(name, subpath = ".") {
  const dir = path.join(prefix, "node_modules", name);
  const pkgFile = path.join(dir, "package.json");
  if (!fs.existsSync(pkgFile)) {
    console.error(`SKIP: ${name} is not installed under ${prefix}`);
    process.exit(SKIP);
  }
  const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
  let entry = pkg.exports?.[subpath] ?? (subpath === "." ? pkg.main : null);
  if (entry && typeof entry === "object") entry = entry.import ?? entry.default;
  if (!entry) throw new Error(`${name} has no export ${subpath}`);
  return import(pathToFileURL(path.join(dir, entry)).href);
}

const zarr = await importPackage("zarrita");
const { default: FileSystemStore } = await importPackage(
  "@zarrita/storage",
  "./fs",
);

const store = new FileSystemStore(storePath);
const group = await zarr.open.v3(store, { kind: "group" });
const result = { attrs: group.attrs, arrays: {} };
for (const name of names) {
  const arr = await zarr.open.v3(group.resolve(name), { kind: "array" });
  const got = await zarr.get(arr);
  const data = got.data;
  result.arrays[name] = {
    dtype: arr.dtype,
    shape: arr.shape,
    chunks: arr.chunks,
    dimension_names: arr.dimensionNames,
    result_shape: got.shape,
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString(
      "base64",
    ),
  };
}
process.stdout.write(JSON.stringify(result));
