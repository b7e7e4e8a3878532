// Completes package-lock.json with entries for other platforms' optional binary packages.
//
// Why: the registry this project's machines reach does not always carry every platform build of
// a package at the exact version its parent pins (e.g. @rollup/rollup-darwin-arm64 lags behind
// @rollup/rollup-linux-x64-gnu). npm then writes a lock without those entries, and `npm ci`
// refuses it as out of sync. The missing packages are optional and for other platforms, so npm
// never fetches them here; it only needs their lock entries (version, optional, os/cpu/libc).
// Run after `npm install` changes the lock:  node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

const OS = ["darwin", "linux", "win32", "android", "freebsd", "openbsd", "openharmony", "sunos", "aix", "netbsd"]
const CPU = ["arm64", "x64", "ia32", "arm", "loong64", "ppc64", "riscv64", "s390x", "mips64el"]

const platformOf = (name) => {
  const parts = name.split("/").at(-1).split("-")
  const os = parts.find((part) => OS.includes(part))
  const cpu = parts.find((part) => CPU.includes(part)) ?? (parts.includes("arm") ? "arm" : undefined)
  if (os === undefined || cpu === undefined) return undefined
  const libc = os === "linux" ? (parts.some((p) => p.startsWith("musl")) ? ["musl"] : parts.some((p) => p.startsWith("gnu")) ? ["glibc"] : undefined) : undefined
  return { os: [os], cpu: [cpu], ...(libc === undefined ? {} : { libc }) }
}

/** Where npm would look for `name` from `parent`: its own node_modules, then each ancestor's. */
const resolve = (parent, name) => {
  let base = parent
  for (;;) {
    const candidate = `${base === "" ? "" : `${base}/`}node_modules/${name}`
    if (packages[candidate] !== undefined) return candidate
    if (base === "") return undefined
    const cut = base.lastIndexOf("/node_modules/")
    base = cut < 0 ? "" : base.slice(0, cut)
  }
}

let added = 0
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolve(location, name) !== undefined) continue
    const platform = platformOf(name)
    if (platform === undefined) continue
    const target = location === "" ? `node_modules/${name}` : `${location}/node_modules/${name}`
    packages[target] = { version: version.replace(/^[\^~=]/, ""), optional: true, ...platform }
    added += 1
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)))
lock.packages = sorted
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`package-lock.json: ${added} optional platform entries added`)
