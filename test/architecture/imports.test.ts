/**
 * The import graph of src/ keeps its shape (STYLE "Folders point one way"): no cycles, the edge
 * never reaches the analysis engine, and the contract (what the typed client loads) imports
 * schemas only. The graph is read with TypeScript's own parser (test/support/ImportGraph.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { graph, reachable, repo, sourceFiles } from "../support/ImportGraph.js"

/** Strongly connected components with more than one file (or a self-import): the cycles. */
const cycles = (): Array<Array<string>> => {
  let index = 0
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: Array<string> = []
  const found: Array<Array<string>> = []
  const connect = (file: string) => {
    indices.set(file, index)
    low.set(file, index)
    index += 1
    stack.push(file)
    onStack.add(file)
    for (const { to } of graph.get(file) ?? []) {
      if (!indices.has(to)) {
        connect(to)
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0))
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) ?? 0, indices.get(to) ?? 0))
      }
    }
    if (low.get(file) === indices.get(file)) {
      const component: Array<string> = []
      let member: string | undefined
      do {
        member = stack.pop()
        if (member === undefined) break
        onStack.delete(member)
        component.push(member)
      } while (member !== file)
      const selfImport = (graph.get(file) ?? []).some((edge) => edge.to === file)
      if (component.length > 1 || selfImport) found.push(component.sort())
    }
  }
  for (const file of graph.keys()) if (!indices.has(file)) connect(file)
  return found
}

const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`)

/**
 * The layer order of docs/architecture.md ("Folders point one way"), top first: a folder or root
 * file of src/ may import its own layer's and the layers below it, never one above. Within a
 * layer, folders may import each other as long as no two import each other (checked below).
 */
const LAYERS: ReadonlyArray<ReadonlyArray<string>> = [
  ["main", "boot", "cli", "cliBoot", "Serve", "App", "Http"],
  ["Surfaces"],
  ["Program"],
  ["Resources", "RunsResources"],
  ["Edge"],
  ["Runs", "Otlp", "Problems/Service", "Alerts/Delivery"],
  ["Diagnose"],
  ["Analysis"],
  ["Intake"],
  ["Cache", "Home", "Auth", "RateLimit", "Store", "Problems", "Alerts", "Checks", "Redaction", "Lifecycle", "Observability", "Providers", "Ui"],
  ["Contract", "Api", "Client", "Docs"],
  ["Catalogue"],
  ["Traces"],
  ["Otlp/Wire"],
  ["Registry", "Config", "Errors", "Text", "Lru"]
]

/**
 * Imports that go up the order, each with its reason (at most 3, counted as folder-to-folder
 * pairs). None today: `svc serve` is given the service's program by the entry (src/cli.ts), which
 * loads it as main.ts does, through Program.ts.
 */
const UPWARD: ReadonlyMap<string, string> = new Map()

/**
 * A domain folder's services, each a unit of its own a layer above the folder's pure core: the
 * problems' service reads runs and reports through Runs and Diagnose, and the alerts' deliverer
 * claims the outbox through the store, while the store's finish writes what the core's grouping
 * policy decides and the core's texts say (DECISIONS §24; issue 49's homes).
 */
const SERVICE_FILES: ReadonlyMap<string, string> = new Map([
  ["src/Problems/Service.ts", "Problems/Service"],
  ["src/Alerts/Delivery.ts", "Alerts/Delivery"]
])

/**
 * A folder's sub-folder that is a unit of its own, in a lower layer than the folder: OTLP's wire
 * format (the model, OTLP/JSON, protobuf, the Status replies) under the receiver and the assembly,
 * so the trace readers, the diagnose's OTLP output and the alerts' deliverer use the one model
 * without importing the receiver (issue 51).
 */
const SUB_FOLDERS: ReadonlyMap<string, string> = new Map([
  ["src/Otlp/Wire/", "Otlp/Wire"]
])

/** A file's unit: its folder under src/ (or a service file or sub-folder of one), or a root file's name; undefined outside src/. */
const unitOf = (file: string): string | undefined => {
  const service = SERVICE_FILES.get(file)
  if (service !== undefined) return service
  for (const [folder, unit] of SUB_FOLDERS) if (file.startsWith(folder)) return unit
  const parts = file.split("/")
  if (parts[0] !== "src" || parts.length < 2) return undefined
  return parts.length > 2 ? parts[1] : parts[1]?.replace(/\.ts$/, "")
}

const rankOf = (unit: string): number => LAYERS.findIndex((layer) => layer.includes(unit))

/** Every import from one unit to another, as `from → to` with the files that make it. */
const unitEdges = (): Map<string, Array<string>> => {
  const edges = new Map<string, Array<string>>()
  for (const [file, imports] of graph) {
    const from = unitOf(file)
    for (const { to: target } of imports) {
      const to = unitOf(target)
      if (from === undefined || to === undefined || from === to) continue
      const key = `${from} → ${to}`
      edges.set(key, [...(edges.get(key) ?? []), `${file} → ${target}`])
    }
  }
  return edges
}

describe("the import graph of src/", () => {
  it("is read whole (the parser finds the files and their imports)", () => {
    expect(graph.size).toBeGreaterThan(60)
    expect(graph.get("src/Http.ts")?.map((edge) => edge.to)).toContain("src/Edge/Server.ts")
  })

  it("has no import cycle, type-only imports included", () => {
    expect(cycles()).toEqual([])
  })

  it("the edge imports nothing from Analysis/, directly, and nothing at run time, transitively", () => {
    const edgeFiles = Array.from(graph.keys()).filter(under("src/Edge"))
    expect(edgeFiles.length).toBeGreaterThan(5)
    const direct = edgeFiles.flatMap((file) => (graph.get(file) ?? []).filter((edge) => under("src/Analysis")(edge.to)).map((edge) => `${file} → ${edge.to}`))
    expect(direct).toEqual([])
    const transitive = edgeFiles.flatMap((file) => Array.from(reachable(file, true)).filter(under("src/Analysis")).map((to) => `${file} ⇝ ${to}`))
    expect(transitive).toEqual([])
  })

  it("the contract and the client load schemas only: no signals, SignalKit, engine, edge or server code", () => {
    const loaded = Array.from(reachable("src/Client.ts", false))
    const forbidden = loaded.filter((file) =>
      /\/signals\.ts$/.test(file) || file.endsWith("SignalKit.ts") || file.endsWith("src/Catalogue/Pattern.ts") ||
      ["src/Analysis", "src/Edge", "src/Surfaces", "src/Providers", "src/Cache", "src/Lifecycle", "src/Observability"].some((folder) => under(folder)(file))
    )
    expect(forbidden).toEqual([])
    expect(loaded).toContain("patterns/lewin/contract.ts")
  })

  it("the CLI and MCP's tools read bytes into JSON through the intake (Intake/Json.ts), not the edge: only MCP's HTTP transport imports src/Edge", () => {
    const surfaceFiles = Array.from(graph.keys()).filter((file) => under("src/Surfaces/Cli")(file) || under("src/Surfaces/Mcp")(file))
    expect(surfaceFiles.length).toBeGreaterThan(10)
    const httpOnly = new Set(["src/Surfaces/Mcp/HttpTransport.ts", "src/Surfaces/Mcp/Entry.ts"])
    const direct = surfaceFiles.filter((file) => !httpOnly.has(file)).flatMap((file) =>
      (graph.get(file) ?? []).filter((edge) => under("src/Edge")(edge.to)).map((edge) => `${file} → ${edge.to}`)
    )
    expect(direct).toEqual([])
  })

  it("the svc commands, svc mcp and the launcher they share build the resources without loading the HTTP server", () => {
    for (const entry of ["src/Surfaces/Cli/Local.ts", "src/Surfaces/Mcp/StdioMain.ts", "src/Resources.ts", "src/Program.ts"]) {
      const loaded = Array.from(reachable(entry, true))
      expect(loaded, entry).not.toContain("src/Http.ts")
      expect(loaded, entry).not.toContain("src/Edge/Server.ts")
      expect(loaded, entry).not.toContain("src/App.ts")
    }
    // The launcher loads no resources either: `svc --version` starts it.
    expect(Array.from(reachable("src/Program.ts", true))).not.toContain("src/Resources.ts")
  })

  it("chooses where state lives in one place: only Resources.ts picks the memory or Redis layers", () => {
    const pickers = Array.from(graph.keys()).filter((file) => file.startsWith("src/") && file !== "src/Resources.ts").filter((file) =>
      /\b(RateLimiterRedisLive|AnalysisCacheRedisLive|HomeRedisLive|RedisStoreLive)\b/.test(readFileSync(file, "utf8").replace(/export const \w+/g, ""))
    )
    expect(pickers).toEqual([])
  })

  it("reads the service's settings in one place: no SVC_ variable is read outside src/Config.ts", () => {
    const readers = sourceFiles(join(repo, "src")).map((file) => relative(repo, file)).filter((file) => file !== "src/Config.ts").filter((file) =>
      /\b(Config\.\w+\(\s*"SVC_|process\.env\[?\.?\s*["']?SVC_)/.test(readFileSync(join(repo, file), "utf8"))
    )
    expect(readers).toEqual([])
  })
})

describe("folders point one way (docs/architecture.md)", () => {
  const units = new Set(Array.from(graph.keys()).flatMap((file) => unitOf(file) ?? []))

  it("places every folder and root file of src/ in exactly one layer, and names nothing that is gone", () => {
    for (const unit of units) expect(LAYERS.filter((layer) => layer.includes(unit)), unit).toHaveLength(1)
    for (const unit of LAYERS.flat()) expect(units.has(unit), `${unit} is in LAYERS but not in src/`).toBe(true)
  })

  it("imports only its own layer and the layers below, but for the named exceptions (at most 3)", () => {
    const upward = Array.from(unitEdges()).filter(([key]) => {
      const [from = "", to = ""] = key.split(" → ")
      return rankOf(to) < rankOf(from)
    })
    expect(upward.filter(([key]) => !UPWARD.has(key)).map(([key, files]) => `${key}: ${files.join("; ")}`)).toEqual([])
    // Every exception is still needed, and there are few.
    expect(upward.map(([key]) => key).sort()).toEqual(Array.from(UPWARD.keys()).sort())
    expect(UPWARD.size).toBeLessThanOrEqual(3)
  })

  it("has no cycle of folders, in a layer or across it (the exceptions aside)", () => {
    const next = new Map<string, Array<string>>()
    for (const key of unitEdges().keys()) {
      if (UPWARD.has(key)) continue
      const [from = "", to = ""] = key.split(" → ")
      next.set(from, [...(next.get(from) ?? []), to])
    }
    // A walk that comes back to a unit on its own path is a cycle.
    const cyclesFound: Array<string> = []
    const done = new Set<string>()
    const walk = (unit: string, path: ReadonlyArray<string>) => {
      const at = path.indexOf(unit)
      if (at >= 0) return void cyclesFound.push([...path.slice(at), unit].join(" → "))
      if (done.has(unit)) return
      for (const to of next.get(unit) ?? []) walk(to, [...path, unit])
      done.add(unit)
    }
    for (const unit of units) walk(unit, [])
    expect(cyclesFound).toEqual([])
  })
})
