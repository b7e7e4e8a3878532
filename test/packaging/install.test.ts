/**
 * The package as a new user gets it (issue 19): `npm pack` (its `prepack` builds) of the service
 * and of the client's own package, each installed into a fresh project with
 * `npm install --omit=dev`, and used from there, outside the repository:
 * - the tarballs hold what docs/packaging.md lists and nothing of tests, bench, fixtures or sources;
 * - a plain Node ESM script uses the client against the live service (the catalogue, an analysis
 *   against the provider double, a typed error), through both packages;
 * - a TypeScript consumer typechecks under `moduleResolution` node16 and bundler, and a deliberate
 *   type error in it is reported (the declarations are real types);
 * - the installed `svc` runs (`svc patterns`, `svc analyze` against the double, `svc serve`);
 * - the client's install holds `effect`, `@effect/platform` and their dependencies only;
 * - the client bundled by esbuild for a browser works in headless Chromium against the service
 *   from another origin through SVC_CORS_ORIGINS, and is refused without it (off by default).
 * The repository is copied first (its node_modules linked), so packing never rebuilds the dist/
 * that other test files are using.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { build } from "esbuild"
import { execFile, spawn } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { promisify } from "node:util"
import { type Browser, chromium } from "playwright-core"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { requireTool } from "../support/Tools.js"

const REPO = join(import.meta.dirname, "..", "..")
const KEY = "packaging-key-0123456789"
const run = promisify(execFile)
const harness = useProviderDouble()

let work: string
let fullProject: string
let clientProject: string
let fullTarball: string
let clientTarball: string
let service: RunningService

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  run("npm", [...args], { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, maxBuffer: 64 * 1024 * 1024 })

const PackResult = Schema.Array(Schema.Struct({ filename: Schema.String, files: Schema.Array(Schema.Struct({ path: Schema.String, size: Schema.Number })) }))
const pack = async (cwd: string) => {
  const { stdout } = await npm(["pack", "--json", "--pack-destination", work], cwd)
  const [packed] = Schema.decodeUnknownSync(PackResult)(JSON.parse(stdout.slice(stdout.indexOf("["))))
  if (packed === undefined) throw new Error(`npm pack in ${cwd} reported nothing`)
  return { tarball: join(work, packed.filename), files: packed.files.map((file) => file.path) }
}
let fullFiles: ReadonlyArray<string> = []
let clientFiles: ReadonlyArray<string> = []

const project = async (name: string, tarball: string) => {
  const dir = join(work, name)
  mkdirSync(dir)
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `${name}-consumer`, private: true, type: "module" }))
  await npm(["install", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", tarball], dir)
  return dir
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "svc-packaging-"))
  // A copy of the checkout, sources and all, without its builds; node_modules linked.
  const copy = join(work, "repo")
  cpSync(REPO, copy, {
    recursive: true,
    filter: (path) => !/^(node_modules|dist|\.git|coverage|packages\/client\/(dist|node_modules))(\/|$)/.test(relative(REPO, path))
  })
  symlinkSync(join(REPO, "node_modules"), join(copy, "node_modules"))
  const full = await pack(copy)
  const client = await pack(join(copy, "packages", "client"))
  fullTarball = full.tarball
  fullFiles = full.files
  clientTarball = client.tarball
  clientFiles = client.files
  fullProject = await project("full", fullTarball)
  clientProject = await project("client", clientTarball)
  service = await harness.start({
    ANTHROPIC_API_KEY: "sk-ant-packaging-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `consumer=${KEY}`
  })
}, 300_000)
afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

/** A plain Node ESM script that uses the client installed in `dir` against the live service. */
const clientScript = (specifier: string) => `
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { makeClient } from "${specifier}"

const [url, key, trace] = process.argv.slice(2)
const program = Effect.gen(function* () {
  const client = yield* makeClient(url, { apiKey: key })
  const catalogue = yield* client.catalogue.listPatterns()
  const analysis = yield* client.analyze.lewin({ payload: { trace: JSON.parse(trace), mode: "quick" } })
  const unknown = yield* Effect.flip(client.catalogue.getPattern({ path: { name: "nope" } }))
  const anonymous = yield* makeClient(url)
  const refused = yield* Effect.flip(anonymous.catalogue.listPatterns())
  return {
    count: catalogue.count,
    pattern: analysis.pattern,
    locus: analysis.detection.headline.dominant_locus,
    unknown: unknown._tag,
    refused: refused._tag
  }
}).pipe(Effect.provide(FetchHttpClient.layer))
process.stdout.write(JSON.stringify(await Effect.runPromise(program)))
`

const useClient = async (dir: string, specifier: string) => {
  writeFileSync(join(dir, "use-client.mjs"), clientScript(specifier))
  const { stdout } = await run(process.execPath, ["use-client.mjs", service.url, KEY, JSON.stringify(exampleTrace("lewin"))], { cwd: dir })
  const parsed: unknown = JSON.parse(stdout)
  return parsed
}

const CONSUMER = `
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "@pattern-analysis-service/client/api"
import { makeClient } from "@pattern-analysis-service/client"

export const program = Effect.gen(function*() {
  const client = yield* makeClient("http://127.0.0.1:8000", { apiKey: "a-key-of-sixteen-chars" })
  const catalogue = yield* client.catalogue.listPatterns()
  const count: number = catalogue.count
  const trace = { task: "t", steps: [{ type: "tool_call", content: "c" }], outcome: "o", success: false }
  const analysis = yield* client.analyze.lencioni({ payload: { trace, mode: "quick" } })
  const dysfunction: string = analysis.detection.headline.dominant_dysfunction
  return { count, dysfunction, api: Api.identifier }
}).pipe(Effect.provide(FetchHttpClient.layer))
`
/** The deliberate type error: a detection's headline field is a string, not a number. */
const WRONG = `
import { Effect } from "effect"
import { makeClient } from "@pattern-analysis-service/client"

export const wrong = Effect.gen(function*() {
  const client = yield* makeClient("http://127.0.0.1:8000")
  const analysis = yield* client.analyze.lencioni({ payload: { trace: { task: "t", steps: [], outcome: "o", success: false }, mode: "quick" } })
  const dysfunction: number = analysis.detection.headline.dominant_dysfunction
  return dysfunction
})
`

const tsc = async (dir: string, resolution: "node16" | "bundler") => {
  const config = `tsconfig.${resolution}.json`
  writeFileSync(
    join(dir, config),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: resolution === "node16" ? "node16" : "esnext",
        moduleResolution: resolution,
        lib: ["ES2022", "DOM"],
        types: [],
        strict: true,
        noEmit: true,
        // The installed declarations are checked too.
        skipLibCheck: false
      },
      files: ["consumer.ts", "wrong.ts"]
    })
  )
  const compiler = join(REPO, "node_modules", "typescript", "bin", "tsc")
  return run(process.execPath, [compiler, "-p", config], { cwd: dir }).then(
    () => ({ code: 0, output: "" }),
    (error: { readonly code?: number; readonly stdout?: string }) => ({ code: error.code ?? -1, output: error.stdout ?? "" })
  )
}

const sizeOf = (path: string): number => {
  const stat = statSync(path)
  return stat.isDirectory() ? readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0) : stat.size
}

const InstalledTree = Schema.Struct({
  dependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
/** Every package installed under `dir`'s node_modules (scoped ones as @scope/name). */
const installed = (dir: string): Array<string> =>
  readdirSync(join(dir, "node_modules"))
    .filter((name) => !name.startsWith("."))
    .flatMap((name) => name.startsWith("@") ? readdirSync(join(dir, "node_modules", name)).map((inner) => `${name}/${inner}`) : [name])

const Manifest = Schema.Struct({
  dependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  optionalDependencies: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
})
/** A package and every installed package it depends on (optional ones included when installed), from `dir`'s node_modules. */
const dependencyClosure = (dir: string, root: string): Array<string> => {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name)) return
    let manifest: typeof Manifest.Type
    try {
      manifest = Schema.decodeUnknownSync(Manifest)(JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")))
    } catch {
      return
    }
    seen.add(name)
    for (const dependency of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})]) visit(dependency)
  }
  visit(root)
  return [...seen]
}

describe("the packed tarballs", () => {
  it("hold the built service, the compiled client with its declarations and the catalogue, and nothing of sources, tests or bench", () => {
    expect(fullFiles).toContain("bin/svc")
    expect(fullFiles).toContain("dist/cli.mjs")
    expect(fullFiles).toContain("dist/server.mjs")
    expect(fullFiles).toContain("dist/client/index.js")
    expect(fullFiles).toContain("dist/client/index.d.ts")
    expect(fullFiles).toContain("dist/client/api.d.ts")
    expect(fullFiles).toContain("dist/assets/redoc/bundles/redoc.standalone.js")
    expect(fullFiles).toContain("dist/ui/manifest.json")
    expect(fullFiles).toContain("dist/THIRD_PARTY_LICENSES.txt")
    expect(fullFiles).toContain("patterns/catalogue.json")
    expect(fullFiles).toContain("patterns/lencioni/prompts/standard.md")
    const unwanted = fullFiles.filter((path) =>
      /^(src|test|bench|scripts|packages|\.ci)\//.test(path) || (/\.ts$/.test(path) && !/\.d\.ts$/.test(path)) || /\.map$/.test(path)
    )
    expect(unwanted).toEqual([])
    expect(clientFiles.filter((path) => !/^(dist\/|package\.json$|README\.md$)/.test(path))).toEqual([])
    expect(clientFiles).toContain("dist/index.d.ts")
    expect(clientFiles.filter((path) => /\.(js|d\.ts)$/.test(path)).length).toBeGreaterThan(40)
    // Declarations come first in every export (the `types` condition must precede `import`).
    const manifest: unknown = JSON.parse(readFileSync(join(clientProject, "node_modules", "@pattern-analysis-service", "client", "package.json"), "utf8"))
    const Exports = Schema.Struct({ exports: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
    for (const [path, conditions] of Object.entries(Schema.decodeUnknownSync(Exports)(manifest).exports)) {
      if (typeof conditions === "object" && conditions !== null) expect(Object.keys(conditions)[0], path).toBe("types")
    }
  })

  it("install without the server's dependencies: the client brings effect and @effect/platform (and theirs) only", async () => {
    const { stdout } = await npm(["ls", "--omit=dev", "--json", "--depth=0"], clientProject)
    const top = Object.keys(Schema.decodeUnknownSync(InstalledTree)(JSON.parse(stdout)).dependencies ?? {})
    expect(top).toEqual(["@pattern-analysis-service/client"])
    const packages = installed(clientProject).sort()
    expect(packages).toContain("effect")
    expect(packages).toContain("@effect/platform")
    const server = packages.filter((name) =>
      /^(redoc|swagger-ui-dist|ioredis|@effect\/(platform-node|ai|cli|cluster|sql|rpc|opentelemetry)|@opentelemetry\/.*|pattern-analysis-service)$/.test(name)
    )
    expect(server).toEqual([])
    // The full package installs the same runtime dependencies, the service itself being bundled,
    // and the SQLite driver of the runs store (external: its native binding comes prebuilt per
    // platform) with what it depends on.
    const full = installed(fullProject).filter((name) => name !== "pattern-analysis-service").sort()
    const driver = dependencyClosure(fullProject, "@libsql/client")
    expect(driver).toContain("libsql")
    expect(driver.some((name) => /^@libsql\/(linux|darwin|win32)-/.test(name))).toBe(true)
    expect(full).toEqual([...new Set([...packages.filter((name) => name !== "@pattern-analysis-service/client"), ...driver])].sort())
    const megabytes = (dir: string) => (sizeOf(join(dir, "node_modules")) / 1024 / 1024).toFixed(1)
    process.stdout.write(
      `client install: ${packages.length} packages, ${megabytes(clientProject)} MiB (${packages.join(", ")}); ` +
        `full install: ${full.length + 1} packages, ${megabytes(fullProject)} MiB; tarballs ${statSync(clientTarball).size} and ${statSync(fullTarball).size} bytes\n`
    )
  })
})

describe("used from outside the repository", () => {
  it("a plain Node ESM script uses the client against the live service, through either package", async () => {
    const expected = { count: 34, pattern: "lewin", locus: "interactional", unknown: "UnknownPattern", refused: "Unauthorized" }
    expect(await useClient(fullProject, "pattern-analysis-service/client")).toEqual(expected)
    expect(await useClient(clientProject, "@pattern-analysis-service/client")).toEqual(expected)
  })

  it("a TypeScript consumer typechecks under node16 and bundler resolution, and its deliberate type error is reported", async () => {
    writeFileSync(join(clientProject, "consumer.ts"), CONSUMER)
    writeFileSync(join(clientProject, "wrong.ts"), WRONG)
    for (const resolution of ["node16", "bundler"] as const) {
      const checked = await tsc(clientProject, resolution)
      const errors = checked.output.split("\n").filter((line) => line.includes("error TS"))
      expect(errors, resolution).toEqual([expect.stringMatching(/^wrong\.ts\(8,9\): error TS2322: Type 'string' is not assignable to type 'number'/)])
      expect(checked.code, resolution).not.toBe(0)
    }
  }, 120_000)

  it("the installed svc lists the patterns and analyzes a trace against the double", async () => {
    const bin = join(fullProject, "node_modules", ".bin", "svc")
    const env = { PATH: process.env["PATH"] ?? "", SVC_HOME: join(work, "svc-home") }
    const listed = await run(bin, ["patterns"], { cwd: fullProject, env })
    expect(listed.stdout).toMatch(/^lewin\s+individual\s+/m)
    expect(listed.stdout.trim().split("\n")).toHaveLength(34)
    writeFileSync(join(fullProject, "trace.json"), JSON.stringify(exampleTrace("lewin")))
    const analyzed = await run(bin, ["analyze", "lewin", "trace.json", "--mode", "quick"], {
      cwd: fullProject,
      env: { ...env, ANTHROPIC_API_KEY: "sk-ant-installed-0123456789", ANTHROPIC_BASE_URL: harness.double.url }
    })
    const body: unknown = JSON.parse(analyzed.stdout)
    const Analysis = Schema.Struct({ pattern: Schema.Literal("lewin"), mode: Schema.Literal("quick"), detection: Schema.Struct({ severity: Schema.String }) })
    expect(Schema.decodeUnknownSync(Analysis)(body).pattern).toBe("lewin")
  }, 60_000)
})

describe("the installed service", () => {
  it("`svc serve` starts from the install alone: ready, its docs assets, the dashboard and the OpenAPI document served", async () => {
    const bin = join(fullProject, "node_modules", ".bin", "svc")
    const child = spawn(bin, ["serve"], {
      cwd: fullProject,
      env: { PATH: process.env["PATH"] ?? "", SVC_HOME: join(work, "serve-home"), SVC_PORT: "0", SVC_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    try {
      const address = await new Promise<string>((resolve, reject) => {
        let seen = ""
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          seen += chunk
          const ready = /"address":"(http:\/\/[^"]+)"/.exec(seen)
          if (ready?.[1] !== undefined) resolve(ready[1])
        })
        child.once("exit", (code) => reject(new Error(`svc serve exited (${code}) before it was ready: ${seen}`)))
      })
      expect((await fetch(`${address}/readyz`)).status).toBe(200)
      const redoc = await fetch(`${address}/redoc/redoc.standalone.js`)
      expect(redoc.status).toBe(200)
      expect((await redoc.arrayBuffer()).byteLength).toBeGreaterThan(500_000)
      expect((await fetch(`${address}/docs/swagger-ui-bundle.js`)).status).toBe(200)
      // the dashboard's shell, and the script it names
      const shell = await (await fetch(`${address}/ui/runs`)).text()
      const script = /src="(\/ui\/assets\/app-[A-Z0-9]+\.js)"/.exec(shell)?.[1]
      expect(script).toBeDefined()
      expect((await fetch(`${address}${script ?? ""}`)).status).toBe(200)
      const openapi: unknown = await (await fetch(`${address}/openapi.json`)).json()
      expect(openapi).toEqual(JSON.parse(readFileSync(join(REPO, "docs", "openapi.json"), "utf8")))
    } finally {
      child.kill("SIGTERM")
    }
  }, 60_000)
})

describe("in a browser", () => {
  let browser: Browser
  let pages: Server
  let pagesOrigin: string
  beforeAll(async () => {
    // The client as a browser app bundles it: esbuild, from the client-only project's install.
    const app = `
import { FetchHttpClient } from "@effect/platform"
import { Effect } from "effect"
import { makeClient } from "@pattern-analysis-service/client"

const params = new URLSearchParams(location.search)
const program = Effect.gen(function* () {
  const client = yield* makeClient(params.get("api") ?? "", { apiKey: params.get("key") ?? "" })
  const catalogue = yield* client.catalogue.listPatterns()
  const analysis = yield* client.analyze.lewin({ payload: { trace: JSON.parse(params.get("trace") ?? "{}"), mode: "quick" } })
  const unknown = yield* Effect.flip(client.catalogue.getPattern({ path: { name: "nope" } }))
  return { count: catalogue.count, pattern: analysis.pattern, unknown: unknown._tag }
}).pipe(Effect.provide(FetchHttpClient.layer))
Effect.runPromise(Effect.either(program)).then((result) => {
  document.title = JSON.stringify(result._tag === "Right" ? result.right : { failed: String(result.left._tag ?? result.left) })
})
`
    writeFileSync(join(clientProject, "app.js"), app)
    const bundled = await build({
      entryPoints: [join(clientProject, "app.js")],
      absWorkingDir: clientProject,
      bundle: true,
      platform: "browser",
      format: "esm",
      target: "es2022",
      minify: true,
      write: false,
      logLevel: "silent"
    })
    const script = bundled.outputFiles[0]?.contents ?? new Uint8Array()
    process.stdout.write(`client browser bundle: ${script.byteLength} bytes minified\n`)
    pages = createServer((request, response) => {
      if ((request.url ?? "").startsWith("/app.js")) return response.writeHead(200, { "content-type": "text/javascript" }).end(script)
      response.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><title>loading</title><script type="module" src="/app.js"></script>`)
    })
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
    const address: AddressInfo | string | null = pages.address()
    pagesOrigin = typeof address === "object" && address !== null ? `http://127.0.0.1:${address.port}` : ""
    browser = await chromium.launch({
      executablePath: requireTool("chromium", "chromium"),
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic", "--no-first-run"]
    })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => pages?.close(resolve))
  })

  const open = async (api: string) => {
    const page = await browser.newPage()
    const query = new URLSearchParams({ api, key: KEY, trace: JSON.stringify(exampleTrace("lewin")) })
    await page.goto(`${pagesOrigin}/?${query.toString()}`)
    await page.waitForFunction("document.title !== 'loading'", undefined, { timeout: 20_000 })
    const title = await page.title()
    await page.close()
    const parsed: unknown = JSON.parse(title)
    return parsed
  }

  it("works from another origin listed in SVC_CORS_ORIGINS, and is refused without it (off by default)", async () => {
    const listed = await harness.start({
      ANTHROPIC_API_KEY: "sk-ant-browser-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url,
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: `consumer=${KEY}`,
      SVC_CORS_ORIGINS: pagesOrigin
    })
    expect(await open(listed.url)).toEqual({ count: 34, pattern: "lewin", unknown: "UnknownPattern" })
    // The same page against the service without CORS: the browser refuses to read the answers.
    const refused = await open(service.url)
    expect(refused).toEqual({ failed: expect.stringMatching(/RequestError|HttpClientError|Transport/) })
  }, 60_000)
})
