// Production build: src/boot.ts → dist/server.mjs, which loads the application (src/main.ts and
// everything it imports, patterns included) from dist/chunks/, and src/cliBoot.ts → dist/cli.mjs,
// which loads the `svc` command line (src/cli.ts, bin/svc; sharing those chunks). Code only some configurations use
// (the OpenTelemetry exporter behind /metrics, the MCP surface, the renderers) is in chunks loaded on
// first use, so start-up does not parse or run it. Swagger UI's and Redoc's assets are copied to
// dist/assets/; the dashboard is built for browsers into dist/ui/. The typed client's build
// (dist/client/) is scripts/build-client.mjs.
import { build } from "esbuild"
import { createHash } from "node:crypto"
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { nodeCodegen } from "./build-options.mjs"

const started = Date.now()
// No stale chunks from an earlier build.
rmSync("dist", { recursive: true, force: true })
const built = await build({
  metafile: true,
  entryPoints: { server: "src/boot.ts", cli: "src/cliBoot.ts" },
  outdir: "dist",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  ...nodeCodegen(process.cwd()),
  splitting: true,
  sourcemap: "linked"
})
// The build's id (src/Lifecycle/CompileCache.ts): a hash of the code it made, written over the
// placeholder (of the same length, so the source maps still hold), naming the directory of its
// module compile cache, which no other build shares.
const BUILD_ID_PLACEHOLDER = "svc-build-id-xxx"
const code = Object.keys(built.metafile.outputs).filter((file) => file.endsWith(".mjs")).sort()
const digest = createHash("sha256")
for (const file of code) digest.update(file).update("\0").update(readFileSync(file)).update("\0")
const buildId = digest.digest("hex").slice(0, BUILD_ID_PLACEHOLDER.length)
const stamped = code.filter((file) => readFileSync(file, "utf8").includes(`"${BUILD_ID_PLACEHOLDER}"`))
if (stamped.length !== 1) throw new Error(`the build id's placeholder is in ${stamped.length} files, not 1`)
for (const file of stamped) writeFileSync(file, readFileSync(file, "utf8").replace(`"${BUILD_ID_PLACEHOLDER}"`, `"${buildId}"`))
// The docs pages' assets, with their licences, copied from their packages (src/Docs/Docs.ts reads
// them from here), so the installed package needs neither swagger-ui-dist nor redoc.
const require = createRequire(import.meta.url)
const ASSETS = {
  "swagger-ui-dist": ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-bundle.js.LICENSE.txt", "favicon-32x32.png", "LICENSE", "NOTICE"],
  redoc: ["bundles/redoc.standalone.js", "bundles/redoc.standalone.js.LICENSE.txt", "LICENSE"]
}
for (const [name, files] of Object.entries(ASSETS)) {
  const from = dirname(require.resolve(`${name}/package.json`))
  for (const file of files) {
    const to = join("dist", "assets", name, file)
    mkdirSync(dirname(to), { recursive: true })
    copyFileSync(join(from, file), to)
  }
}
// The dashboard (DECISIONS §22, docs/ui.md): src/Ui/app/ for browsers, into dist/ui/ under hashed
// names (served `immutable`), with manifest.json naming them for the shell (src/Ui/Shell.ts).
const ui = await build({
  metafile: true,
  entryPoints: { app: "src/Ui/app/main.tsx" },
  outdir: join("dist", "ui"),
  entryNames: "[name]-[hash]",
  bundle: true,
  minify: true,
  platform: "browser",
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  logLevel: "warning",
  tsconfig: "src/Ui/app/tsconfig.json"
})
const uiFiles = Object.keys(ui.metafile.outputs).map((file) => file.slice(join("dist", "ui").length + 1))
const uiOf = (extension) => {
  const file = uiFiles.find((name) => name.startsWith("app-") && name.endsWith(extension))
  if (file === undefined) throw new Error(`the dashboard's build made no app-*${extension}`)
  return file
}
writeFileSync(join("dist", "ui", "manifest.json"), `${JSON.stringify({ script: uiOf(".js"), style: uiOf(".css") })}\n`)
// The licences of the packages bundled into dist/ (the installed package ships their code, not
// the packages): dist/THIRD_PARTY_LICENSES.txt, one section per package.
const bundled = new Map()
for (const input of [...Object.keys(built.metafile.inputs), ...Object.keys(ui.metafile.inputs)]) {
  // The innermost node_modules/<package>/ of the input's path.
  const match = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input)
  if (match?.[1] !== undefined && match[2] !== undefined) bundled.set(match[2], match[1])
}
const sections = []
for (const [name, dir] of [...bundled].sort(([a], [b]) => a.localeCompare(b))) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"))
  const licenceFile = readdirSync(dir).find((file) => /^(licen[cs]e|copying)(\.|$)/i.test(file))
  sections.push([
    `${name}@${manifest.version} (${typeof manifest.license === "string" ? manifest.license : "see below"})`,
    licenceFile === undefined ? "" : readFileSync(join(dir, licenceFile), "utf8").trim()
  ].join("\n\n"))
}
writeFileSync(join("dist", "THIRD_PARTY_LICENSES.txt"), `${sections.join(`\n\n${"-".repeat(72)}\n\n`)}\n`)
// On stderr: bin/svc may build first, and its stdout is the command's result (or the MCP protocol stream).
console.error(`dist/server.mjs, dist/cli.mjs and dist/ui/ built in ${Date.now() - started} ms`)
