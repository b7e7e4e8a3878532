/**
 * Services are Effects; fast lanes are the edge's (docs/architecture.md). A service's interface
 * (the shape of its `Context.Tag`) holds effects and values, never a synchronous or Promise-returning
 * call; where the edge answers without entering the Effect runtime (guards, cache hits), the same
 * core is also offered as a fast lane: a module named `…FastLane.ts` with a tag of the same name,
 * imported only by the edge (src/Edge/), its owner and the lanes built on it, as listed here.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { basename, join, relative } from "node:path"
import ts from "typescript"
import { graph, repo, sourceFiles } from "../support/ImportGraph.js"

/** Each fast lane, its owner first (the module that builds it and the service beside it), then the lanes' owners built on it. */
const LANES: Readonly<Record<string, ReadonlyArray<string>>> = {
  "src/Auth/GuardsFastLane.ts": ["src/Auth/Guards.ts"],
  "src/Auth/ApiKeysFastLane.ts": ["src/Auth/ApiKeys.ts", "src/Auth/Guards.ts"],
  "src/RateLimit/RateLimiterFastLane.ts": ["src/RateLimit/RateLimiter.ts", "src/Auth/Guards.ts"],
  "src/Auth/ScopesFastLane.ts": ["src/Auth/Scopes.ts"],
  "src/Cache/AnalysisCacheFastLane.ts": ["src/Cache/AnalysisCache.ts", "src/Cache/CachedReplies.ts"],
  "src/Cache/CachedRepliesFastLane.ts": ["src/Cache/CachedReplies.ts"],
  "src/Lifecycle/RequestTrackerFastLane.ts": ["src/Lifecycle/Lifecycle.ts"]
}

/**
 * Tags whose interface is not a service's, each with why (docs/architecture.md says the rule):
 * values, the edge's own node handlers, ports to outside libraries, and a listener.
 */
const NOT_SERVICES: Readonly<Record<string, string>> = {
  AppConfig: "a value: the validated configuration",
  Caller: "a value: who a unit of work runs for",
  EndpointAccess: "a value: an endpoint's access annotation",
  Catalogue: "values loaded once at start: the entries, their map and the prepared list",
  ServerHandle: "a value: the listening node server and its address",
  CurrentRequest: "a value: what the edge knows of a request",
  JsonBounds: "a value: the JSON shape bounds",
  AnalyzeAtEdge: "the edge's own hand-off: a node request handler the REST adapter implements",
  McpHttp: "the edge's own hand-off: a node request handler the MCP transport implements",
  RedisStore: "a port: the Redis client",
  ErrorReporting: "a port: the error-reporting SDK",
  McpProtocol: "a port: MCP protocol plumbing",
  Tracing: "a port: the OpenTelemetry SDK behind the service's spans (its server span is the edge's)",
  AnalysisProgress: "a listener the CLI provides, called by the engine as it goes",
  ShutdownSignals: "a value: the first signal received",
  AlertRoutes: "a value: where each scope's alerts go and the links they carry, read from the configuration"
}

const laneFiles = sourceFiles(join(repo, "src")).map((file) => relative(repo, file)).filter((file) => file.endsWith("FastLane.ts"))
const under = (folder: string) => (file: string) => file.startsWith(`${folder}/`)

/** Each `class X extends Context.Tag("X")<X, Shape>()` (and `Context.Reference`) of a file, with its shape's type name. */
const tagsOf = (source: ts.SourceFile): Array<{ readonly name: string; readonly shape: string | undefined }> =>
  source.statements.flatMap((statement) => {
    if (!ts.isClassDeclaration(statement) || statement.name === undefined) return []
    const heritage = statement.heritageClauses?.[0]?.types[0]
    if (heritage === undefined) return []
    const text = heritage.expression.getText(source)
    if (!text.startsWith("Context.Tag(") && !text.startsWith("Context.Reference<")) return []
    const call = ts.isCallExpression(heritage.expression) ? heritage.expression : undefined
    const args = call !== undefined && ts.isCallExpression(call.expression) ? call.typeArguments ?? [] : heritage.typeArguments ?? call?.typeArguments ?? []
    const shape = args[1] ?? args[0]
    return [{ name: statement.name.text, shape: shape !== undefined && ts.isTypeReferenceNode(shape) ? shape.typeName.getText(source) : undefined }]
  })

/** The members of an interface of the file whose type is, or holds, a call that returns neither an Effect nor a Stream. */
const nonEffectMembers = (source: ts.SourceFile, shape: string): Array<string> | undefined => {
  const declaration = source.statements.find((statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === shape)
  if (declaration === undefined) return undefined
  const returnsEffect = (type: ts.TypeNode | undefined) => type !== undefined && /^(Effect\.Effect|Stream\.Stream)</.test(type.getText(source))
  const offending = (type: ts.TypeNode): boolean =>
    ts.isFunctionTypeNode(type) ? !returnsEffect(type.type)
      : ts.isParenthesizedTypeNode(type) ? offending(type.type)
      : ts.isUnionTypeNode(type) ? type.types.some(offending)
      : ts.isTypeLiteralNode(type) ? type.members.some((member) => ts.isMethodSignature(member) || (ts.isPropertySignature(member) && member.type !== undefined && offending(member.type)))
      : false
  return declaration.members.flatMap((member) => {
    const name = member.name?.getText(source) ?? "?"
    if (ts.isMethodSignature(member)) return returnsEffect(member.type) ? [] : [name]
    return ts.isPropertySignature(member) && member.type !== undefined && offending(member.type) ? [name] : []
  })
}

describe("services are Effects; fast lanes are the edge's (docs/architecture.md)", () => {
  it("lists every fast lane (a file named …FastLane.ts), and each holds one tag of its name", () => {
    expect(laneFiles.sort()).toEqual(Object.keys(LANES).sort())
    for (const file of laneFiles) {
      const source = ts.createSourceFile(file, readFileSync(join(repo, file), "utf8"), ts.ScriptTarget.Latest, true)
      expect(tagsOf(source).map((tag) => tag.name)).toEqual([basename(file, ".ts")])
    }
  })

  it("a fast lane is imported only by the edge, its owner and the lanes built on it", () => {
    const strays = Array.from(graph).flatMap(([file, imports]) =>
      imports.filter((edge) => edge.to in LANES && !under("src/Edge")(file) && !(LANES[edge.to] ?? []).includes(file)).map((edge) => `${file} → ${edge.to}`)
    )
    expect(strays).toEqual([])
    // each owner builds its lane (so the list names real importers)
    for (const [lane, importers] of Object.entries(LANES)) {
      for (const importer of importers) expect((graph.get(importer) ?? []).map((edge) => edge.to), `${importer} imports ${lane}`).toContain(lane)
    }
  })

  it("every service's interface holds effects and values only (the exceptions named, with why)", () => {
    const found: Array<string> = []
    const unread: Array<string> = []
    for (const file of sourceFiles(join(repo, "src")).map((path) => relative(repo, path))) {
      if (file in LANES) continue
      const source = ts.createSourceFile(file, readFileSync(join(repo, file), "utf8"), ts.ScriptTarget.Latest, true)
      for (const tag of tagsOf(source)) {
        if (tag.name in NOT_SERVICES) continue
        const members = tag.shape === undefined ? undefined : nonEffectMembers(source, tag.shape)
        if (members === undefined) unread.push(`${file}: ${tag.name}`)
        else for (const member of members) found.push(`${file}: ${tag.name}.${member}`)
      }
    }
    expect(found).toEqual([])
    // a tag whose interface this test cannot read must be named above
    expect(unread).toEqual([])
  })

  it("names no exception that is gone", () => {
    const tags = new Set(sourceFiles(join(repo, "src")).flatMap((path) => {
      const file = relative(repo, path)
      return tagsOf(ts.createSourceFile(file, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true)).map((tag) => tag.name)
    }))
    expect(Object.keys(NOT_SERVICES).filter((name) => !tags.has(name))).toEqual([])
  })
})
