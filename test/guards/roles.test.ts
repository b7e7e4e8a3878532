/**
 * Roles and shared scopes (DECISIONS §16, issue 28) on today's routes, against the real server:
 * `ingest` keys only submit (so none of today's routes), `read` keys analyze, diagnose, normalize
 * and read the catalogue, `admin` keys everything; 403 `forbidden` comes after 401 and before
 * 429; keys listed with `@scope` share their stored data, others keep their own. Later issues
 * add the tests for the routes they build (runs, OTLP, problems).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Layer, Option, Redacted, Schema } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Api } from "../../src/Api.js"
import { EndpointAccess } from "../../src/Contract/Access.js"
import { LOCAL_OPERATIONS } from "../../src/Auth/Operations.js"
import { httpOperation as routeOperation, matchRoute } from "../../src/Edge/Routes.js"
import { parseKeyRoles } from "../../src/Config/KeyRoles.js"
import { makeScopes, Scopes, ScopesLive } from "../../src/Auth/Scopes.js"
import { ScopesFastLane } from "../../src/Auth/ScopesFastLane.js"
import { AppConfig, appConfig, describeConfigError } from "../../src/Config.js"
import { ApiKeysLive } from "../../src/Auth/ApiKeys.js"
import { GuardsLive } from "../../src/Auth/Guards.js"
import { RateLimiterMemoryLive } from "../../src/RateLimit/RateLimiter.js"
import { makeLocalCaller } from "../../src/Surfaces/LocalCaller.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

/** The operation of a request, as the edge reads it from the route its endpoint's annotation describes. */
const httpOperation = (method: string, path: string) => routeOperation(method, path, matchRoute(method, path))
const requiredRole = (method: string, path: string) => httpOperation(method, path).role

const AGENTS = "agents-key-0123456789abcdef"
const ALICE = "alice-key-0123456789abcdef"
const BOB = "bob-key-0123456789abcdef"
const CAROL = "carol-key-0123456789abcdef"
const KEYS = `agents=${AGENTS},alice=${ALICE},bob=${BOB},carol=${CAROL}`
const ROLES = "agents=ingest@billing,alice=admin@billing,bob=read@billing"

const harness = useProviderDouble()
const start = (env: Record<string, string> = {}) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-roles-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: KEYS,
    SVC_API_KEY_ROLES: ROLES,
    SVC_HOME: mkdtempSync(join(tmpdir(), "svc-roles-")),
    ...env
  })

const call = (service: RunningService, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })
const Drift = Schema.Struct({ detection: Schema.Struct({ drift: Schema.Struct({ recorded: Schema.Boolean }) }) })

/** Every route of today that a key reaches, with a body where it takes one. */
const ROUTES: ReadonlyArray<readonly [string, string, unknown]> = [
  ["GET", "/v1/patterns", undefined],
  ["GET", "/v1/patterns/lewin", undefined],
  ["GET", "/v1/patterns/lewin/playbooks", undefined],
  ["GET", "/v1/patterns/lewin/citations", undefined],
  ["GET", "/v1/patterns/lewin/composition", undefined],
  ["POST", "/v1/analyze/lewin", { trace: exampleTrace("lewin"), mode: "quick" }],
  ["POST", "/v1/diagnose", { trace: exampleTrace("lewin"), mode: "quick", max_patterns: 1 }],
  ["POST", "/v1/traces/normalize", exampleTrace("lewin")],
  ["POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }]
]

describe("SVC_API_KEY_ROLES", () => {
  it("parses name=role[@scope] and refuses malformed entries naming the variable", () => {
    const roles = parseKeyRoles("agents=ingest@billing, alice=admin@billing,bob=read")
    expect(typeof roles).not.toBe("string")
    if (typeof roles === "string") return
    expect(roles.get("agents")).toEqual({ role: "ingest", scope: "billing" })
    expect(roles.get("bob")).toEqual({ role: "read", scope: "bob" })
    for (const [raw, says] of [["alice=owner", "role must be one of"], ["alice", "name=role"], ["a b=read", "key names"], ["a=read@x/y", "scope names"], ["a=read,a=admin", "twice"]]) {
      const refused = Either.getLeft(
        Effect.runSync(Effect.either(appConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SVC_API_KEY_ROLES", raw ?? ""]]))))))
      )
      expect(Option.isSome(refused), raw).toBe(true)
      if (Option.isSome(refused)) {
        const message = describeConfigError(refused.value)
        expect(message).toContain("SVC_API_KEY_ROLES")
        expect(message).toContain(says)
      }
    }
  })

  it("names the least role of each operation: ingest submits, admin deletes, retries and merges, read the rest", () => {
    expect(requiredRole("POST", "/v1/runs")).toBe("ingest")
    expect(requiredRole("POST", "/v1/traces")).toBe("ingest")
    expect(requiredRole("POST", "/v1/traces/normalize")).toBe("read")
    expect(requiredRole("GET", "/v1/runs")).toBe("read")
    expect(requiredRole("DELETE", "/v1/runs/r1")).toBe("admin")
    expect(requiredRole("POST", "/v1/runs/r1/retry")).toBe("admin")
    expect(requiredRole("PATCH", "/v1/problems/p1")).toBe("admin")
    expect(requiredRole("POST", "/v1/problems/p1/merge")).toBe("admin")
    expect(requiredRole("POST", "/v1/analyze/lewin")).toBe("read")
    expect(requiredRole("POST", "/v1/runs/r1/explain")).toBe("admin")
    expect(requiredRole("POST", "/v1/problems/p1/detach")).toBe("admin")
    expect(requiredRole("POST", "/v1/logs")).toBe("ingest")
  })

  it("reads every endpoint's operation from the contract: each carries its access", () => {
    for (const group of Object.values(Api.groups)) {
      for (const endpoint of Object.values(group.endpoints)) {
        expect(Context.getOption(endpoint.annotations, EndpointAccess)._tag, `${group.identifier}.${endpoint.name}`).toBe("Some")
      }
    }
  })

  it("names each operation once: HTTP by method and path (probes and docs open), the in-process surfaces by their own name", () => {
    expect(httpOperation("GET", "/healthz")).toEqual({ label: "GET /healthz", role: "read", authenticated: false, counted: false })
    expect(httpOperation("GET", "/docs/index.html")).toMatchObject({ authenticated: false, counted: true })
    expect(httpOperation("DELETE", "/v1/runs/r1")).toMatchObject({ role: "admin", authenticated: true, counted: true })
    expect(httpOperation("HEAD", "/metrics")).toMatchObject({ authenticated: false, counted: false })
    expect(httpOperation("POST", "/v1/traces")).toMatchObject({ role: "ingest", authenticated: true, counted: false })
    expect(httpOperation("POST", "/ui/runs")).toMatchObject({ authenticated: false, counted: false })
    expect(httpOperation("POST", "/mcp")).toMatchObject({ role: "read", authenticated: true, counted: true })
    // no route: a key and the count like any other request, then 404 or 405
    expect(httpOperation("DELETE", "/v1/nowhere")).toMatchObject({ role: "read", authenticated: true, counted: true })
    // The runs commands need the role of their routes (submit POST /v1/runs, retry POST /v1/runs/{id}/retry);
    // import writes runs with their reports, as only an admin may.
    // The problems' changes are admin's, as their routes are (PATCH, merge, detach).
    const roles: Readonly<Record<string, string>> = {
      "runs submit": "ingest",
      "runs retry": "admin",
      "runs explain": "admin",
      "runs import": "admin",
      "problems update": "admin",
      "problems merge": "admin",
      "problems detach": "admin",
      // rewrites a scope's problems (DECISIONS §24): an admin's, as merging is
      "problems regroup": "admin"
    }
    expect(roles["runs submit"]).toBe(requiredRole("POST", "/v1/runs"))
    expect(roles["runs retry"]).toBe(requiredRole("POST", "/v1/runs/r1/retry"))
    // explaining a run again spends model budget (DECISIONS §24): an admin's, as retrying is
    expect(roles["runs explain"]).toBe(requiredRole("POST", "/v1/runs/r1/explain"))
    expect(roles["problems update"]).toBe(requiredRole("PATCH", "/v1/problems/p1"))
    expect(roles["problems merge"]).toBe(requiredRole("POST", "/v1/problems/p1/merge"))
    expect(roles["problems detach"]).toBe(requiredRole("POST", "/v1/problems/p1/detach"))
    for (const [name, operation] of Object.entries(LOCAL_OPERATIONS)) {
      expect(operation.label).toBe(`svc ${name}`)
      expect(operation.label).not.toContain("/")
      expect(operation).toMatchObject({ role: roles[name] ?? "read", authenticated: true, counted: true })
    }
  })
})

describe("roles on today's routes", () => {
  it("an ingest key gets 403 forbidden on every route of today; read and admin keys are served; probes need no key", async () => {
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await start()
    for (const [method, path, body] of ROUTES) {
      const refused = await call(service, AGENTS, method, path, body)
      expect(refused.status, `${method} ${path}`).toBe(403)
      const detail = Schema.decodeUnknownSync(ErrorBody)(await refused.json()).detail
      expect(detail.error).toBe("forbidden")
      expect(detail.message).toContain("ingest")
      expect(detail.message).not.toContain(AGENTS)
      for (const key of [BOB, ALICE, CAROL]) {
        const served = await call(service, key, method, path, body)
        expect(served.status, `${method} ${path} as ${key.slice(0, 5)}`).toBe(200)
        await served.arrayBuffer()
      }
    }
    for (const path of ["/healthz", "/livez", "/readyz", "/metrics", "/openapi.json"]) {
      expect((await call(service, AGENTS, "GET", path)).status, path).toBe(200)
    }
    // No model call was made for the refused key.
    const analyses = harness.double.calls.length
    await call(service, AGENTS, "POST", "/v1/analyze/lewin", { trace: exampleTrace("lewin"), mode: "quick" })
    expect(harness.double.calls.length).toBe(analyses)
  })

  it("403 comes after 401 and before 429", async () => {
    const service = await start({ SVC_API_RATE_LIMIT: "1/60" })
    expect((await call(service, "wrong-key-0123456789abcdef", "GET", "/v1/patterns")).status).toBe(401)
    const statuses: Array<number> = []
    for (let i = 0; i < 3; i++) statuses.push((await call(service, AGENTS, "GET", "/v1/patterns")).status)
    expect(statuses).toEqual([403, 403, 403])
    expect((await call(service, BOB, "GET", "/v1/patterns")).status).toBe(200)
    expect((await call(service, BOB, "GET", "/v1/patterns")).status).toBe(429)
  })

  it("keys listed with @scope share their data; a key not listed keeps its own", async () => {
    harness.double.script = () => ({ kind: "object", value: exampleOutput("lewin") })
    const service = await start()
    const drift = async (key: string) => {
      const response = await call(service, key, "POST", "/v1/analyze/lewin", { trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" })
      expect(response.status).toBe(200)
      return Schema.decodeUnknownSync(Drift)(await response.json()).detection.drift.recorded
    }
    // alice records the baseline of the billing scope; bob, in the same scope, compares with it.
    expect(await drift(ALICE)).toBe(true)
    expect(await drift(BOB)).toBe(false)
    // carol has a scope of her own: she records hers.
    expect(await drift(CAROL)).toBe(true)
  })
})

describe("roles in the caller's own process (svc, svc mcp)", () => {
  it("the local caller passes the key itself, not a made-up header, and gets the same 403", async () => {
    const provider = ConfigProvider.fromMap(new Map([
      ["SVC_API_REQUIRE_AUTH", "true"],
      ["SVC_API_KEYS", KEYS],
      ["SVC_API_KEY_ROLES", ROLES]
    ]))
    const outcome = (key: string) =>
      Effect.runPromise(
        Effect.gen(function*() {
          const caller = yield* makeLocalCaller(Option.some(Redacted.make(key)), "svc analyze", LOCAL_OPERATIONS.analyze)
          return yield* Effect.either(caller)
        }).pipe(
          Effect.provide(
            GuardsLive.pipe(
              Layer.provide(Layer.mergeAll(ApiKeysLive, RateLimiterMemoryLive)),
              Layer.provideMerge(Layer.effect(AppConfig, appConfig))
            )
          ),
          Effect.scoped,
          Effect.withConfigProvider(provider)
        )
      )
    const refused = await outcome(AGENTS)
    expect(Either.isLeft(refused) && refused.left._tag).toBe("Forbidden")
    // The refusal names the command, not a route it never took.
    expect(Either.isLeft(refused) && refused.left.message).toContain("may not svc analyze")
    const served = await outcome(BOB)
    expect(Either.isRight(served) && served.right.keyName).toBe("bob")
    const scopes = makeScopes({ authRequired: true, cacheScope: "key", roles: new Map([["bob", { role: "read", scope: "billing" }]]) })
    expect(Effect.runSync(scopes.of("bob"))?.data).toEqual({ _tag: "Key", name: "billing" })
  })
})

describe("the caller, by the scopes' rules", () => {
  it("is the key's name, its scope's token and its role; the same one for the service and the edge's lane, made once per name", () => {
    const roles = new Map([["bob", { role: "read" as const, scope: "billing" }]])
    const config = { authRequired: true, cacheScope: "key" as const, roles }
    const scopes = makeScopes(config)
    const bob = Effect.runSync(scopes.callerOf("bob"))
    expect(bob).toEqual({ keyName: "bob", scope: "key:billing", scopes: { data: { _tag: "Key", name: "billing" }, cache: "key:billing" }, role: "read" })
    // Made once per name: a request asks for it on every call.
    expect(Effect.runSync(scopes.callerOf("bob"))).toBe(bob)
    const alice = Effect.runSync(scopes.callerOf("Alice"))
    expect(alice).toEqual({ keyName: "Alice", scope: "key:%41lice", scopes: { data: { _tag: "Key", name: "Alice" }, cache: "key:%41lice" }, role: "admin" })
    // No key verified where one is required: no scope, so services fail closed.
    expect(Effect.runSync(scopes.callerOf(null))).toEqual({ keyName: null, scope: undefined, scopes: undefined, role: null })
    // Without required auth everyone is the shared scope, with no role.
    const open = makeScopes({ authRequired: false, cacheScope: "key" })
    expect(Effect.runSync(open.callerOf("bob"))).toEqual({ keyName: "bob", scope: "shared", scopes: { data: { _tag: "Shared" }, cache: "shared" }, role: null })
  })

  it("the edge's lane gives the caller the service gives", async () => {
    const provider = ConfigProvider.fromJson({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: "bob=key-bob-0123456789abcdef", SVC_API_KEY_ROLES: "bob=read@billing" })
    const both = await Effect.runPromise(
      Effect.map(Layer.build(ScopesLive.pipe(Layer.provide(Layer.effect(AppConfig, appConfig)))), (context) => ({
        lane: Context.get(context, ScopesFastLane),
        service: Context.get(context, Scopes)
      })).pipe(Effect.scoped, Effect.withConfigProvider(provider))
    )
    const fromService = await Effect.runPromise(both.service.callerOf("bob"))
    expect(both.lane.callerOf("bob")).toBe(fromService)
    expect(fromService.scope).toBe("key:billing")
    expect(fromService.role).toBe("read")
  })
})
