/**
 * Redaction end to end (DECISIONS §20), with the real service on a loopback port and the model
 * provider replaced by the loopback double: a trace of every format family (and the native shape)
 * seeded with ten kinds of secrets and two of personal data reaches nothing observable unredacted
 * (the provider's bytes, every response and rendering, the logs, /metrics, every file under
 * SVC_HOME), over REST, MCP and the CLI; the counts say what was replaced; with SVC_REDACT=off the
 * provider gets the values; the cache key is the redacted trace's; placeholders are stable across
 * processes with one key; the operator's rules file adds kinds, refuses what the linear engine
 * cannot run, and a pathological pattern still answers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Either, Exit, Layer, Predicate, Scope } from "effect"
import { createHash } from "node:crypto"
import { mkdtempSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Caller, callerFrom, type CallerShape } from "../../src/Auth/Caller.js"
import { Scopes } from "../../src/Auth/Scopes.js"
import { AnalyzeService } from "../../src/Analysis/AnalyzeService.js"
import { validateAdmitted } from "../../src/Analysis/RawTraces.js"
import { cacheKey, canonicalJson } from "../../src/Cache/CacheKey.js"
import { appConfig } from "../../src/Config.js"
import { ResourcesLive } from "../../src/Resources.js"
import { svc, tempFile } from "../cli/support.js"
import { connectHttp } from "../mcp/support.js"
import { exampleOutput, exampleTrace, type ProviderDouble, type RecordedCall, type Reply as ScriptedReply, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import {
  carriesAll,
  FAMILY_FIXTURES,
  filesUnder,
  leafOfSeed,
  leaked,
  PII_SEEDS,
  readFixture,
  SECRET_KINDS,
  SECRET_SEEDS,
  type Seeded,
  seedFixture,
  SEEDS
} from "./seeds.js"

// ---------------------------------------------------------------------------------------------
// Plumbing

const freshHome = (label: string) => mkdtempSync(join(tmpdir(), `svc-redact-${label}-`))

interface Reply {
  readonly status: number
  readonly headers: string
  readonly text: string
}

const post = async (url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  return { status: response.status, headers: JSON.stringify([...response.headers.entries()]), text: await response.text() }
}

const parse = (text: string): unknown => JSON.parse(text)

const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => (Predicate.isRecord(at) ? at[key] : undefined), value)

/** The redaction counts at `path` of a JSON text, as a record of kind to count (empty when absent). */
const countsAt = (text: string, ...path: ReadonlyArray<string>): Record<string, number> => {
  const counts = field(parse(text), ...path)
  if (!Predicate.isRecord(counts)) return {}
  return Object.fromEntries(Object.entries(counts).flatMap(([kind, count]) => (typeof count === "number" ? [[kind, count]] : [])))
}

/** Everything the provider double received: bodies and headers. */
const providerBytes = (double: ProviderDouble) => double.calls.map((call) => `${JSON.stringify(call.body)}\n${JSON.stringify(call.headers)}`).join("\n")

/** A placeholder in a text (DECISIONS §20: `[kind:hash]`). */
const PLACEHOLDER = /\[[a-z][a-z0-9_]*:[0-9a-f]{6,16}\]/
/** A placeholder as a rendering writes it: Markdown escapes its brackets (`\[aws_key:3f9a1c\]`), SARIF's JSON escapes the escapes. */
const RENDERED_PLACEHOLDER = /\[[a-z][a-z0-9_]*:[0-9a-f]{6,16}\\{0,2}\]/

/**
 * The model's answer for lewin: its example detection, the first finding quoting, verbatim, an
 * element of the prompt's trace that holds a placeholder (so every rendering shows redacted trace
 * text, and the leak checks read real trace content). Other calls get the default answer.
 */
const quotingPlaceholders = (call: RecordedCall): ScriptedReply | undefined => {
  if (call.objectName !== "LewinDetection") return undefined
  const element = /^(steps\[\d+\]|task|outcome)(?: type: \w+ \| content:)? (.*)$/m
  const found = call.text
    .split("\n")
    .map((line) => element.exec(line))
    .find((match) => match !== null && PLACEHOLDER.test(match[2] ?? ""))
  const ref = found?.[1]
  const content = (found?.[2] ?? "").split(" | ")[0] ?? ""
  const placeholder = PLACEHOLDER.exec(content)
  if (ref === undefined || placeholder === null) return undefined
  const quote = content.slice(Math.max(0, placeholder.index - 12), placeholder.index + placeholder[0].length).trim()
  const output = exampleOutput("lewin")
  const findings = Array.isArray(output["findings"]) ? output["findings"] : []
  const first: unknown = findings[0]
  return {
    kind: "object",
    value: { ...output, findings: [{ ...(Predicate.isRecord(first) ? first : {}), evidence: [{ ref, quote }] }] }
  }
}

/** Every log line of the file's services (they log JSON lines through the console); each run reads its own slice. */
const logLines: Array<string> = []
beforeAll(() => {
  const keep = (...args: Array<unknown>) => {
    logLines.push(args.map(String).join(" "))
  }
  vi.spyOn(console, "log").mockImplementation(keep)
  vi.spyOn(console, "error").mockImplementation(keep)
  vi.spyOn(console, "warn").mockImplementation(keep)
  vi.spyOn(console, "info").mockImplementation(keep)
})
afterAll(() => {
  vi.restoreAllMocks()
})

let double: ProviderDouble
const providerEnv = () => ({ ANTHROPIC_API_KEY: "sk-ant-e2e-provider-0123456789", ANTHROPIC_BASE_URL: double.url })
/** Services started here and not yet stopped: closed when the file ends. */
const running = new Set<RunningService>()
const start = async (env: Record<string, string>) => {
  const service = await startService({ ...providerEnv(), ...env })
  running.add(service)
  return service
}
const stop = async (service: RunningService) => {
  running.delete(service)
  await service.close()
}

/** The native shape: lewin's own input, seeded in its first long strings. */
const NATIVE = "native"
/** What each family's seeded body is, and the request body to send it in. */
const seeded = new Map<string, Seeded>()
const bodyOf = (family: string) => {
  const body = seeded.get(family)?.body
  if (body === undefined) throw new Error(`${family} was not seeded`)
  return body
}
const traceField = (family: string) => (family === NATIVE ? { trace: bodyOf(family) } : { trace: bodyOf(family), select: 0 })
const FAMILIES = [...FAMILY_FIXTURES.map(([family]) => family), NATIVE]

/** A service with SVC_REDACT=off: learns what each fixture's content is and checks the seeding reached it. */
let offService: RunningService
const normalizeText = (service: RunningService, trace: unknown) => post(`${service.url}/v1/traces/normalize`, { trace, select: 0 })

beforeAll(async () => {
  double = await startProviderDouble()
  offService = await start({ SVC_REDACT: "off", SVC_HOME: freshHome("off") })
  for (const [family, path] of FAMILY_FIXTURES) {
    const fixture = readFixture(path)
    const normalized = parse((await normalizeText(offService, fixture)).text)
    const events = field(normalized, "trace", "events")
    const contents = [field(normalized, "trace", "task"), field(normalized, "trace", "outcome"), ...(Array.isArray(events) ? events.map((event) => field(event, "content")) : [])]
      .filter((content) => typeof content === "string")
    // A leaf whose seeds do not reach the normalized content (a field the importer does not read) is skipped, and the rest re-chosen.
    const skip: Array<string> = []
    let attempt = seedFixture(fixture, contents, skip)
    for (let round = 0; attempt !== undefined && round < 6; round++) {
      const missing = carriesAll((await normalizeText(offService, attempt.body)).text)
      if (missing.length === 0) break
      const current: Seeded = attempt
      skip.push(...missing.flatMap((kind) => leafOfSeed(current, kind) ?? []))
      attempt = seedFixture(fixture, contents, skip)
    }
    if (attempt !== undefined) seeded.set(family, attempt)
  }
  const native = exampleTrace("lewin")
  const nativeSeeded = seedFixture(native, [JSON.stringify(native)])
  if (nativeSeeded !== undefined) seeded.set(NATIVE, nativeSeeded)
})

afterAll(async () => {
  await Promise.all([...running].map((service) => service.close()))
  await double.close()
})

// ---------------------------------------------------------------------------------------------
// 1. The seeding reaches content

describe("seeded traces in every format family", () => {
  it.each(FAMILY_FIXTURES.map(([family, path]) => [family, path]))("%s (%s): with SVC_REDACT=off the normalized trace carries every seed verbatim", async (family) => {
    const body = seeded.get(family)?.body
    expect(body, `no content string of the ${family} fixture could be seeded`).toBeDefined()
    const reply = await normalizeText(offService, body)
    expect(reply.status).toBe(200)
    expect(parse(reply.text)).toMatchObject({ format: family })
    expect(carriesAll(reply.text)).toEqual([])
    expect(field(parse(reply.text), "trace", "redactions")).toBeUndefined()
  })

  it("the native shape with SVC_REDACT=off reaches the provider with every seed", async () => {
    double.reset()
    const reply = await post(`${offService.url}/v1/analyze/lewin`, { ...traceField(NATIVE), mode: "quick" })
    expect(reply.status, reply.text.slice(0, 300)).toBe(200)
    expect(carriesAll(providerBytes(double))).toEqual([])
    expect(field(parse(reply.text), "redactions")).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------
// 2. Nothing observable carries a seed: REST (every family), MCP and the CLI (one family)

/** Every response body and header of a run, and the provider's bytes, for the leak check. */
const observed: Array<string> = []
const keep = (reply: Reply) => {
  observed.push(reply.headers, reply.text)
  return reply
}

describe("with the default settings (secrets)", () => {
  let service: RunningService
  const home = freshHome("secrets")
  let logsFrom = 0
  beforeAll(async () => {
    logsFrom = logLines.length
    observed.length = 0
    service = await start({ SVC_HOME: home, SVC_LOG_LEVEL: "info" })
  })

  it.each(FAMILIES)("%s: normalize, analyze, diagnose and its renderings answer redacted, with counts per kind", async (family) => {
    double.reset()
    double.script = quotingPlaceholders
    if (family !== NATIVE) {
      const normalized = keep(await normalizeText(service, bodyOf(family)))
      expect(normalized.status).toBe(200)
      expect(Object.keys(countsAt(normalized.text, "trace", "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))
      // personal data is not redacted by default
      expect(Object.keys(countsAt(normalized.text, "trace", "redactions"))).not.toContain("email")
      expect(carriesAll(normalized.text, PII_SEEDS)).toEqual([])
    }

    const analyzed = keep(await post(`${service.url}/v1/analyze/lewin`, { ...traceField(family), mode: "quick" }))
    expect(analyzed.status, analyzed.text.slice(0, 300)).toBe(200)
    expect(Object.keys(countsAt(analyzed.text, "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))

    const request = { ...traceField(family), mode: "quick", patterns: ["lewin"] }
    const diagnosed = keep(await post(`${service.url}/v1/diagnose`, request))
    expect(diagnosed.status, diagnosed.text.slice(0, 300)).toBe(200)
    expect(Object.keys(countsAt(diagnosed.text, "report", "trace", "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))

    // the model quoted redacted text: the quote is grounded against the redacted trace and kept
    expect(analyzed.text).toMatch(PLACEHOLDER)
    expect(JSON.stringify(field(parse(diagnosed.text), "report", "findings"))).toMatch(PLACEHOLDER)

    const markdown = keep(await post(`${service.url}/v1/diagnose`, request, { accept: "text/markdown" }))
    expect(markdown.status).toBe(200)
    expect(markdown.headers).toContain("text/markdown")
    expect(markdown.text).toMatch(RENDERED_PLACEHOLDER)
    for (const output of ["sarif", "html", "otlp"]) {
      const rendered = keep(await post(`${service.url}/v1/diagnose?output=${output}&artifact=traces/run.json`, request))
      expect(rendered.status, `${output}: ${rendered.text.slice(0, 200)}`).toBe(200)
      // OTLP log records carry the findings' names and explanations, not the trace's text
      if (output !== "otlp") expect(rendered.text, output).toMatch(RENDERED_PLACEHOLDER)
    }

    const sent = providerBytes(double)
    observed.push(sent)
    // the trace reached the provider, its values as placeholders (a long first message may be condensed away)
    expect(double.calls.length).toBeGreaterThanOrEqual(2)
    expect(sent).toMatch(/\[[a-z_]+:[0-9a-f]{6,16}\]/)
    expect(leaked(sent, SECRET_SEEDS)).toEqual([])
    expect(leaked(observed.join("\n"), SECRET_SEEDS)).toEqual([])
  })

  it("the native shape's names too: a step's tool holding a key is redacted alike by normalize, analyze and diagnose", async () => {
    double.reset()
    double.script = quotingPlaceholders
    const native = exampleTrace("lewin")
    const stripe = "sk_live_S33dStripeKey4eC39HqLyjWDarjt"
    const steps = field(native, "steps")
    expect(Array.isArray(steps)).toBe(true)
    const trace = { ...native, steps: (Array.isArray(steps) ? steps : []).map((step, i) => (i === 0 && typeof step === "object" && step !== null ? { ...step, tool: `billing ${stripe}` } : step)) }
    const replies = [
      keep(await normalizeText(service, trace)),
      keep(await post(`${service.url}/v1/analyze/lewin`, { trace, mode: "quick" })),
      keep(await post(`${service.url}/v1/diagnose`, { trace, mode: "quick", patterns: ["lewin"] }))
    ]
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200])
    for (const reply of replies) expect(reply.text).not.toContain(stripe)
    expect(providerBytes(double)).not.toContain(stripe)
    expect(countsAt(replies[2]?.text ?? "", "report", "trace", "redactions")).toMatchObject({ stripe_key: 1 })
  })

  it("a trace with nothing to redact: normalize and analyze carry no counts, diagnose says {}", async () => {
    const trace = readFixture("openai/chat-tool-calls.json")
    const normalized = await normalizeText(service, trace)
    const analyzed = await post(`${service.url}/v1/analyze/lewin`, { trace, select: 0, mode: "quick" })
    const diagnosed = await post(`${service.url}/v1/diagnose`, { trace, select: 0, mode: "quick", patterns: ["lewin"] })
    expect([normalized.status, analyzed.status, diagnosed.status]).toEqual([200, 200, 200])
    expect(field(parse(normalized.text), "trace", "redactions")).toBeUndefined()
    expect(field(parse(analyzed.text), "redactions")).toBeUndefined()
    expect(field(parse(diagnosed.text), "report", "trace", "redactions")).toEqual({})
  })

  it("over MCP (Streamable HTTP): the pattern tool and svc_diagnose answer redacted, with counts", async () => {
    double.reset()
    const { client } = await connectHttp(service.url)
    try {
      const analyzed = await client.callTool({ name: "svc_lewin", arguments: { trace: bodyOf("openai"), mode: "quick" } })
      const diagnosed = await client.callTool({ name: "svc_diagnose", arguments: { trace: bodyOf("openai"), mode: "quick", patterns: ["lewin"] } })
      expect(analyzed.isError).toBeFalsy()
      expect(diagnosed.isError).toBeFalsy()
      expect(Object.keys(countsAt(JSON.stringify(analyzed.structuredContent), "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))
      expect(Object.keys(countsAt(JSON.stringify(diagnosed.structuredContent), "report", "trace", "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))
      observed.push(JSON.stringify(analyzed), JSON.stringify(diagnosed), providerBytes(double))
      expect(leaked(observed.join("\n"), SECRET_SEEDS)).toEqual([])
      expect(double.calls.length).toBeGreaterThanOrEqual(2)
    } finally {
      await client.close()
    }
  })

  it("through the CLI, in-process and against the service (--url): stdout, stderr and its SVC_HOME hold no seed", async () => {
    double.reset()
    const file = tempFile("seeded-run.json", JSON.stringify(bodyOf("openai")))
    const cliHome = freshHome("cli")
    const env = { ...providerEnv(), SVC_HOME: cliHome, SVC_LOG_LEVEL: "info" }
    const runs = await Promise.all([
      svc(["normalize", file], { env }),
      svc(["analyze", "lewin", file, "--mode", "quick"], { env }),
      svc(["diagnose", file, "--mode", "quick", "--patterns", "lewin", "--format", "json"], { env }),
      svc(["diagnose", file, "--mode", "quick", "--patterns", "lewin", "--format", "markdown"], { env }),
      svc(["analyze", "lewin", file, "--mode", "quick", "--url", service.url], { env: {} }),
      svc(["diagnose", file, "--mode", "quick", "--patterns", "lewin", "--format", "sarif", "--url", service.url], { env: {} })
    ])
    for (const ran of runs) expect(ran.code, ran.stderr).toBe(0)
    const [normalized, analyzed, diagnosed] = runs
    expect(Object.keys(countsAt(normalized?.stdout ?? "{}", "trace", "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))
    expect(Object.keys(countsAt(analyzed?.stdout ?? "{}", "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))
    expect(Object.keys(countsAt(diagnosed?.stdout ?? "{}", "report", "trace", "redactions"))).toEqual(expect.arrayContaining(SECRET_KINDS))
    const cliFiles = filesUnder(cliHome)
    const everything = [...runs.flatMap((ran) => [ran.stdout, ran.stderr]), providerBytes(double), ...cliFiles.map((file) => file.text)].join("\n")
    expect(double.calls.length).toBeGreaterThanOrEqual(3)
    expect(leaked(everything, SECRET_SEEDS)).toEqual([])
  })

  it("nothing observable carries a seed: responses, the provider's bytes, logs, /metrics, every file under SVC_HOME", async () => {
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    await stop(service)
    const files = filesUnder(home)
    expect(files.map((file) => file.path)).toEqual(expect.arrayContaining([expect.stringContaining("redact.key")]))
    const logs = logLines.slice(logsFrom)
    expect(logs.length).toBeGreaterThan(0)
    expect(leaked(observed.join("\n"), SECRET_SEEDS)).toEqual([])
    expect(leaked(logs.join("\n"), SECRET_SEEDS)).toEqual([])
    expect(leaked(metrics, SECRET_SEEDS)).toEqual([])
    for (const file of files) expect(leaked(file.text, SECRET_SEEDS), file.path).toEqual([])
  })
})

describe("with SVC_REDACT=secrets,pii", () => {
  let service: RunningService
  const home = freshHome("pii")
  let logsFrom = 0
  const seen: Array<string> = []
  beforeAll(async () => {
    logsFrom = logLines.length
    service = await start({ SVC_HOME: home, SVC_LOG_LEVEL: "info", SVC_REDACT: "secrets,pii" })
  })

  it.each(FAMILIES)("%s: emails and phone numbers are redacted too, and counted", async (family) => {
    double.reset()
    const kinds = SEEDS.map((seed) => seed.kind)
    if (family !== NATIVE) {
      const normalized = await normalizeText(service, bodyOf(family))
      seen.push(normalized.text)
      expect(Object.keys(countsAt(normalized.text, "trace", "redactions"))).toEqual(expect.arrayContaining(kinds))
    }
    const analyzed = await post(`${service.url}/v1/analyze/lewin`, { ...traceField(family), mode: "quick" })
    const diagnosed = await post(`${service.url}/v1/diagnose`, { ...traceField(family), mode: "quick", patterns: ["lewin"] })
    expect(analyzed.status).toBe(200)
    expect(diagnosed.status).toBe(200)
    expect(Object.keys(countsAt(analyzed.text, "redactions"))).toEqual(expect.arrayContaining(kinds))
    expect(Object.keys(countsAt(diagnosed.text, "report", "trace", "redactions"))).toEqual(expect.arrayContaining(kinds))
    seen.push(analyzed.text, analyzed.headers, diagnosed.text, diagnosed.headers, providerBytes(double))
    expect(leaked(seen.join("\n"))).toEqual([])
  })

  it("no log line, metric or file under SVC_HOME carries any seed", async () => {
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    await stop(service)
    expect(leaked([...seen, ...logLines.slice(logsFrom), metrics].join("\n"))).toEqual([])
    for (const file of filesUnder(home)) expect(leaked(file.text), file.path).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// 3. Off means off

describe("with SVC_REDACT=off", () => {
  it("the provider receives the seeded values unchanged", async () => {
    double.reset()
    const reply = await post(`${offService.url}/v1/analyze/lewin`, { ...traceField("openai"), mode: "quick" })
    expect(reply.status).toBe(200)
    expect(carriesAll(providerBytes(double))).toEqual([])
    expect(field(parse(reply.text), "redactions")).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------
// 4. The cache key is the redacted trace's; 5. the edge's body digest is not a plain hash

describe("the analysis cache", () => {
  /** AnalyzeService built in this process from the application's resources, with this configuration. */
  const analyses = async (env: Record<string, string>) => {
    const scope = Effect.runSync(Scope.make())
    const provider = ConfigProvider.fromMap(new Map(Object.entries({ SVC_LOG_LEVEL: "none", SVC_CACHE: "memory", SVC_HOME: freshHome("key"), ...env })))
    const context = await Effect.runPromise(
      Effect.flatMap(appConfig, (config) => Layer.buildWithScope(ResourcesLive(config), scope)).pipe(Effect.withConfigProvider(provider))
    )
    return {
      service: Context.get(context, AnalyzeService),
      caller: Effect.runSync(callerFrom(Context.get(context, Scopes), null)),
      close: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }

  /** The prepared analysis of a body, and the key recomputed from the parts `prepare` hashes. */
  const keyed = ({ caller, service }: { readonly service: Context.Tag.Service<AnalyzeService>; readonly caller: CallerShape }, body: Record<string, unknown>) =>
    Effect.runPromise(Effect.provideService(
      Effect.gen(function*() {
        const request = yield* service.admit("lewin", body)
        const prepared = yield* service.prepare(request)
        const validated = validateAdmitted(request.entry.pattern.code, request.trace, request.options.hints)
        if (Either.isLeft(validated)) return yield* Effect.die(validated.left)
        const { trace, origin } = validated.right
        const parts = origin === undefined
          ? { pattern: "lewin", mode: prepared.mode, model: prepared.model, trace: trace.canonical }
          : { pattern: "lewin", mode: prepared.mode, model: prepared.model, trace: trace.canonical, intake: origin.keyParts }
        return { prepared, hashed: canonicalJson(parts), recomputed: cacheKey(parts) }
      }),
      Caller,
      caller
    ))

  it("in-process: prepare's key is the hash of the redacted trace, which holds placeholders and no seed", async () => {
    const on = await analyses({ SVC_REDACT_KEY: "cache-key-test" })
    const off = await analyses({ SVC_REDACT: "off" })
    try {
      const body = { ...traceField("openai"), mode: "quick" }
      const redacted = await keyed(on, body)
      expect(redacted.prepared.key.endsWith(`/${redacted.recomputed}`)).toBe(true)
      expect(leaked(redacted.hashed, SECRET_SEEDS)).toEqual([])
      expect(redacted.hashed).toMatch(/\[aws_key:[0-9a-f]{6,16}\]/)
      expect(Object.keys(redacted.prepared.redactions)).toEqual(expect.arrayContaining(SECRET_KINDS))
      // the same body read without redaction hashes its raw values: another key
      const raw = await keyed(off, body)
      expect(raw.prepared.key.endsWith(`/${raw.recomputed}`)).toBe(true)
      expect(carriesAll(raw.hashed)).toEqual([])
      expect(raw.recomputed).not.toBe(redacted.recomputed)
      // a native trace: its redacted shape is what is hashed
      const native = await keyed(on, { ...traceField(NATIVE), mode: "quick" })
      expect(native.prepared.key.endsWith(`/${native.recomputed}`)).toBe(true)
      expect(leaked(native.hashed, SECRET_SEEDS)).toEqual([])
    } finally {
      await on.close()
      await off.close()
    }
  })

  it("over HTTP with SVC_CACHE=memory: the second identical seeded request is a cache hit, the provider called once; the body's plain SHA-256 shows nowhere", async () => {
    const home = freshHome("cache")
    const logsFrom = logLines.length
    const service = await start({ SVC_HOME: home, SVC_CACHE: "memory", SVC_LOG_LEVEL: "info" })
    double.reset()
    const bytes = JSON.stringify({ ...traceField("openai"), mode: "quick" })
    const send = async () => {
      const response = await fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { "content-type": "application/json" }, body: bytes })
      return { status: response.status, cache: response.headers.get("x-cache"), headers: JSON.stringify([...response.headers.entries()]), text: await response.text() }
    }
    const first = await send()
    const second = await send()
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(first.cache).toBe("miss")
    expect(second.cache).toBe("hit")
    expect(double.calls).toHaveLength(1)
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    await stop(service)
    const plainDigests = [createHash("sha256").update(bytes).digest("hex"), createHash("sha256").update(bytes).digest("base64")]
    const everything = [first.headers, first.text, second.headers, second.text, metrics, ...logLines.slice(logsFrom), ...filesUnder(home).map((file) => file.text)].join("\n")
    for (const digest of plainDigests) expect(everything).not.toContain(digest)
    expect(leaked(everything, SECRET_SEEDS)).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// 6. Placeholders are stable across requests and replicas of one key

describe("placeholders", () => {
  const AWS = "AKIAQ7ZSTABLE4KWJ2MP"
  const trace = [{ role: "user", content: `deploy with ${AWS} now` }, { role: "assistant", content: "done" }]
  const placeholderOf = async (service: RunningService) => {
    const reply = await normalizeText(service, trace)
    expect(reply.status, reply.text.slice(0, 200)).toBe(200)
    expect(reply.text).not.toContain(AWS)
    const found = /\[aws_key:([0-9a-f]{6,16})\]/.exec(reply.text)
    expect(found).not.toBeNull()
    return found?.[0] ?? ""
  }

  it("the same SVC_REDACT_KEY gives the same placeholder in two processes, another key another; with none, one SVC_HOME keeps one key (0600)", async () => {
    const sharedHome = freshHome("stable")
    const [a, b, c] = await Promise.all([
      start({ SVC_REDACT_KEY: "replica-root-key-1", SVC_HOME: freshHome("a") }),
      start({ SVC_REDACT_KEY: "replica-root-key-1", SVC_HOME: freshHome("b") }),
      start({ SVC_REDACT_KEY: "replica-root-key-2", SVC_HOME: freshHome("c") })
    ])
    const fromA = await placeholderOf(a)
    expect(await placeholderOf(a)).toBe(fromA)
    expect(await placeholderOf(b)).toBe(fromA)
    expect(await placeholderOf(c)).not.toBe(fromA)
    await Promise.all([a, b, c].map(stop))

    const first = await start({ SVC_HOME: sharedHome })
    const fromFirst = await placeholderOf(first)
    await stop(first)
    const keyFile = join(sharedHome, "redact.key")
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    const second = await start({ SVC_HOME: sharedHome })
    expect(await placeholderOf(second)).toBe(fromFirst)
    await stop(second)
    const elsewhere = await start({ SVC_HOME: freshHome("other") })
    expect(await placeholderOf(elsewhere)).not.toBe(fromFirst)
    await stop(elsewhere)
  })
})

// ---------------------------------------------------------------------------------------------
// 7. The operator's rules

describe("SVC_REDACT_RULES", () => {
  const rulesFile = (text: string) => {
    const path = join(freshHome("rules"), "rules.txt")
    writeFileSync(path, text)
    return path
  }

  it("adds a named kind that is redacted and counted; a pathological pattern over 100,000 characters still answers", async () => {
    const path = rulesFile("# the operator's own kinds\n\nemployee_id = EMP-\\d{6}\nslow_pattern = (a+)+b\n")
    const service = await start({ SVC_REDACT_RULES: path, SVC_HOME: freshHome("rules-home") })
    const reply = await normalizeText(service, [{ role: "user", content: "ticket for EMP-204866 and AKIAQ7ZSEEDX4KWJ2MPL" }, { role: "assistant", content: "ok" }])
    expect(reply.status, reply.text.slice(0, 200)).toBe(200)
    expect(reply.text).not.toContain("EMP-204866")
    expect(reply.text).toMatch(/\[employee_id:[0-9a-f]{6,16}\]/)
    expect(countsAt(reply.text, "trace", "redactions")).toMatchObject({ employee_id: expect.any(Number), aws_key: expect.any(Number) })

    const pathological = await normalizeText(service, [{ role: "user", content: "a".repeat(100_000) }, { role: "assistant", content: "ok" }])
    expect(pathological.status).toBe(200)
    await stop(service)
  })

  it.each([
    ["a back-reference", "# fine so far\nemployee_id = EMP-\\d{6}\necho = (a)\\1\n", 3],
    ["a name with a space", "bad name = x\n", 1],
    ["an expression matching the empty string", "\n\nempty = a*\n", 3]
  ])("refuses %s at start-up, naming the file and line", async (_, text, line) => {
    const path = rulesFile(text)
    await expect(startService({ SVC_REDACT_RULES: path, SVC_HOME: freshHome("bad-rules") })).rejects.toThrow(`${path}:${line}`)
  })
})
