/**
 * Data kept apart per API key (issue 12, DECISIONS §15): with auth required, baselines and drift
 * belong to the key's name, and cache hits and single flight too unless SVC_CACHE_SCOPE=global.
 * Two keys, alice and bob, over HTTP against the real service; names that look like paths; the
 * shared baselines of before stay shared; a rotated key keeps its name and so its data.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import fc from "fast-check"
import { Effect, Schema } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { makeScopes } from "../../src/Auth/Scopes.js"
import { encodeScopeName } from "../../src/Text.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleOutput, exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"

const ALICE = "alice-key-0123456789abcdef"
const ALICE_ROTATED = "alice-key-rotated-0123456789"
const BOB = "bob-key-0123456789abcdef"
const DOTS = "dots-key-0123456789abcdef"
const DOT = "dot-key-0123456789abcdef"

const harness = useProviderDouble()
const start = (env: Record<string, string>) =>
  harness.start({ ANTHROPIC_API_KEY: "sk-ant-isolation-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_API_REQUIRE_AUTH: "true", ...env })
const post = (service: RunningService, key: string | null, body: unknown) =>
  fetch(`${service.url}/v1/analyze/lewin`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body)
  })

const Drift = Schema.Struct({
  baseline: Schema.String,
  recorded: Schema.Boolean,
  severity_change: Schema.Unknown,
  profile_change: Schema.Unknown,
  findings_new: Schema.Array(Schema.String),
  findings_resolved: Schema.Array(Schema.String)
})
const WithDrift = Schema.Struct({ detection: Schema.Struct({ drift: Drift }) })
const driftOf = async (response: Response) => {
  expect(response.status).toBe(200)
  return Schema.decodeUnknownSync(WithDrift)(await response.json()).detection.drift
}

const ALICE_TITLES = ["Tool outage not surfaced as a failure", "Gap filled with an assumed value"]
const BOB_TITLES = ["Bob's first finding", "Bob's second finding"]
/** The example detection with its findings renamed (evidence unchanged, so still grounded). */
const renamed = (titles: ReadonlyArray<string>) => {
  const output = exampleOutput("lewin")
  const findings = Array.isArray(output["findings"]) ? output["findings"] : []
  return {
    ...output,
    findings: findings.map((finding: unknown, i: number) => ({ ...(typeof finding === "object" && finding !== null ? finding : {}), title: titles[i] }))
  }
}
const answerWith = (titles: ReadonlyArray<string>) => {
  harness.double.script = () => ({ kind: "object", value: renamed(titles) })
}

const allFiles = (dir: string): Array<string> =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? allFiles(join(dir, entry.name)) : [join(dir, entry.name)]
    )
    : []
const baselineFiles = (home: string) =>
  allFiles(home).map((file) => relative(home, file)).filter((file) => file.endsWith(".json")).sort()

describe("scope names", () => {
  it("encodes names readably and escapes what could address another scope", () => {
    expect(encodeScopeName("alice")).toBe("alice")
    expect(encodeScopeName("team_a-1")).toBe("team_a-1")
    expect(encodeScopeName("..")).toBe("%2E%2E")
    expect(encodeScopeName(".")).toBe("%2E")
    expect(encodeScopeName("a.b")).toBe("a%2Eb")
    expect(encodeScopeName("Alice")).toBe("%41lice")
    expect(encodeScopeName("../etc")).toBe("%2E%2E%2Fetc")
    expect(encodeScopeName("a:b%")).toBe("a%3Ab%25")
    expect(encodeScopeName("")).toBe("%")
  })

  it("is one-to-one, even where letter case is ignored, and never a path or a store-key separator", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 12 }), fc.string({ unit: "grapheme", maxLength: 12 }), (a, b) => {
        const [x, y] = [encodeScopeName(a), encodeScopeName(b)]
        expect(x).not.toMatch(/[/\\:.]/)
        expect(x.length).toBeGreaterThan(0)
        if (a !== b) expect(x.toLowerCase()).not.toBe(y.toLowerCase())
      }),
      { numRuns: 2000 }
    )
    // The key-name alphabet in particular, where names differ only by case or dots.
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/), fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/), (a, b) => {
        if (a !== b) expect(encodeScopeName(a).toLowerCase()).not.toBe(encodeScopeName(b).toLowerCase())
      }),
      { numRuns: 2000 }
    )
  })

  it("scopes by key name only when auth is required; the cache follows unless global", () => {
    const open = makeScopes({ authRequired: false, cacheScope: "key" })
    expect(Effect.runSync(open.of("alice"))).toEqual({ data: { _tag: "Shared" }, cache: "shared" })
    expect(Effect.runSync(open.of(null))).toEqual({ data: { _tag: "Shared" }, cache: "shared" })
    const perKey = makeScopes({ authRequired: true, cacheScope: "key" })
    expect(Effect.runSync(perKey.of("a.b"))).toEqual({ data: { _tag: "Key", name: "a.b" }, cache: "key:a%2Eb" })
    expect(Effect.runSync(perKey.of(null))).toBeUndefined()
    const global = makeScopes({ authRequired: true, cacheScope: "global" })
    expect(Effect.runSync(global.of("alice"))).toEqual({ data: { _tag: "Key", name: "alice" }, cache: "shared" })
  })
})

describe("baselines per key (auth required)", () => {
  it("bob cannot read, overwrite or diff against alice's baseline of the same id", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-isolation-"))
    const service = await start({ SVC_HOME: home, SVC_API_KEYS: `alice=${ALICE},bob=${BOB}` })
    const body = { trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" }

    answerWith(ALICE_TITLES)
    expect(await driftOf(await post(service, ALICE, body))).toMatchObject({ baseline: "prod", recorded: true })
    const aliceFile = join(home, "scopes", "alice", "baselines", "lewin", "prod.json")
    const aliceStored = readFileSync(aliceFile, "utf8")
    expect(aliceStored).toContain(ALICE_TITLES[0])

    // Bob's run with the same id records his own baseline: nothing of alice's is read or shown.
    answerWith(BOB_TITLES)
    const bobFirst = await driftOf(await post(service, BOB, body))
    expect(bobFirst).toEqual({ baseline: "prod", recorded: true, severity_change: null, profile_change: null, findings_new: [], findings_resolved: [] })
    expect(JSON.stringify(bobFirst)).not.toContain(ALICE_TITLES[0])
    expect(readFileSync(aliceFile, "utf8")).toBe(aliceStored)

    // Bob's second run diffs against his own baseline; alice's against hers, which bob left alone.
    answerWith(ALICE_TITLES)
    expect(await driftOf(await post(service, BOB, body))).toMatchObject({ recorded: false, findings_new: ALICE_TITLES, findings_resolved: BOB_TITLES })
    answerWith(BOB_TITLES)
    expect(await driftOf(await post(service, ALICE, body))).toMatchObject({ recorded: false, findings_new: BOB_TITLES, findings_resolved: ALICE_TITLES })
    expect(readFileSync(aliceFile, "utf8")).toBe(aliceStored)
    expect(baselineFiles(home)).toEqual(["scopes/alice/baselines/lewin/prod.json", "scopes/bob/baselines/lewin/prod.json"])
  })

  it("key names `..` and `.` stay inside their own scope directories", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-isolation-"))
    const service = await start({ SVC_HOME: home, SVC_API_KEYS: `..=${DOTS},.=${DOT},alice=${ALICE}` })
    const body = { trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" }
    answerWith(ALICE_TITLES)
    expect(await driftOf(await post(service, ALICE, body))).toMatchObject({ recorded: true })
    answerWith(BOB_TITLES)
    expect(await driftOf(await post(service, DOTS, body))).toMatchObject({ recorded: true })
    expect(await driftOf(await post(service, DOT, body))).toMatchObject({ recorded: true })
    expect(baselineFiles(home)).toEqual([
      "scopes/%2E%2E/baselines/lewin/prod.json",
      "scopes/%2E/baselines/lewin/prod.json",
      "scopes/alice/baselines/lewin/prod.json"
    ])
    expect(readFileSync(join(home, "scopes", "alice", "baselines", "lewin", "prod.json"), "utf8")).toContain(ALICE_TITLES[0])
  })

  it("baselines stored before scoping stay shared: read without auth, not with it", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-isolation-"))
    const legacy = join(home, "baselines", "lewin")
    mkdirSync(legacy, { recursive: true })
    const stored = { severity: "low", confidence: 0.5, profile: "personal", findings: [{ title: "Legacy finding" }], generated_at: null }
    writeFileSync(join(legacy, "prod.json"), JSON.stringify(stored))
    const body = { trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" }
    answerWith(ALICE_TITLES)

    const scoped = await start({ SVC_HOME: home, SVC_API_KEYS: `alice=${ALICE}` })
    expect(await driftOf(await post(scoped, ALICE, body))).toMatchObject({ recorded: true })
    expect(JSON.parse(readFileSync(join(legacy, "prod.json"), "utf8"))).toEqual(stored)

    const open = await start({ SVC_HOME: home, SVC_API_REQUIRE_AUTH: "false", SVC_API_KEYS: `alice=${ALICE}` })
    // Without required auth a known key only names a rate-limit bucket: the shared scope is read.
    for (const key of [null, ALICE]) {
      expect(await driftOf(await post(open, key, body))).toMatchObject({ recorded: false, findings_resolved: ["Legacy finding"] })
    }

    // Moved as docs/operations.md says, the shared baselines become alice's.
    renameSync(join(home, "scopes", "alice", "baselines"), join(home, "alice-before"))
    renameSync(join(home, "baselines"), join(home, "scopes", "alice", "baselines"))
    expect(await driftOf(await post(scoped, ALICE, body))).toMatchObject({ recorded: false, findings_resolved: ["Legacy finding"] })
  })
})

describe("cache per key (auth required)", () => {
  const trace = { trace: exampleTrace("lewin"), mode: "quick" }
  const cacheOf = async (response: Response) => {
    expect(response.status).toBe(200)
    await response.arrayBuffer()
    return response.headers.get("x-cache")
  }

  it("by default: bob's identical trace is a miss while alice's is a hit", async () => {
    const service = await start({ SVC_CACHE: "memory", SVC_API_KEYS: `alice=${ALICE},bob=${BOB}` })
    expect(await cacheOf(await post(service, ALICE, trace))).toBe("miss")
    expect(await cacheOf(await post(service, ALICE, trace))).toBe("hit")
    expect(await cacheOf(await post(service, BOB, trace))).toBe("miss")
    expect(await cacheOf(await post(service, BOB, trace))).toBe("hit")
    expect(await cacheOf(await post(service, ALICE, trace))).toBe("hit")
    expect(harness.double.calls).toHaveLength(2)
  })

  it("SVC_CACHE_SCOPE=global shares hits across keys on purpose", async () => {
    const service = await start({ SVC_CACHE: "memory", SVC_CACHE_SCOPE: "global", SVC_API_KEYS: `alice=${ALICE},bob=${BOB}` })
    expect(await cacheOf(await post(service, ALICE, trace))).toBe("miss")
    expect(await cacheOf(await post(service, BOB, trace))).toBe("hit")
    expect(await cacheOf(await post(service, ALICE, trace))).toBe("hit")
    expect(harness.double.calls).toHaveLength(1)
  })

  it.each([["key", 2], ["global", 1]] as const)("single flight follows the scope (%s): %i provider call(s) for concurrent alice and bob", async (scope, calls) => {
    const service = await start({ SVC_CACHE: "memory", SVC_CACHE_SCOPE: scope, SVC_API_KEYS: `alice=${ALICE},bob=${BOB}` })
    harness.double.script = () => ({ kind: "delay", ms: 300, then: { kind: "object", value: exampleOutput("lewin") } })
    const responses = await Promise.all([ALICE, BOB, ALICE, BOB].map((key) => post(service, key, trace)))
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200])
    expect(harness.double.calls).toHaveLength(calls)
  })
})

describe("rotation", () => {
  it("a rotated key keeps its name, so its baselines and its cache entries", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-isolation-"))
    const keys = join(home, "keys")
    writeFileSync(keys, `alice=${ALICE}\n`)
    const service = await start({ SVC_HOME: join(home, "svc"), SVC_CACHE: "memory", SVC_API_KEYS_FILE: keys, SVC_API_KEYS: `bob=${BOB}` })
    const body = { trace: exampleTrace("lewin"), mode: "quick", baseline: "prod" }
    answerWith(ALICE_TITLES)
    expect(await driftOf(await post(service, ALICE, body))).toMatchObject({ recorded: true })
    expect((await post(service, ALICE, { trace: exampleTrace("lewin"), mode: "quick" })).headers.get("x-cache")).toBe("hit")

    // The overlap: both keys under one name, as docs/operations.md describes; then the old one goes.
    writeFileSync(`${keys}.new`, `alice=${ALICE}\nalice=${ALICE_ROTATED}\n`)
    renameSync(`${keys}.new`, keys)
    const status = async (key: string) => (await fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${key}` } })).status
    await vi.waitFor(async () => expect(await status(ALICE_ROTATED)).toBe(200), { timeout: 5000, interval: 100 })
    expect(await status(ALICE)).toBe(200)
    writeFileSync(`${keys}.new`, `alice=${ALICE_ROTATED}\n`)
    renameSync(`${keys}.new`, keys)
    await vi.waitFor(async () => expect(await status(ALICE)).toBe(401), { timeout: 5000, interval: 100 })

    // The new key finds alice's cache entry and her baseline (a diff, not a first record).
    const rotated = await post(service, ALICE_ROTATED, body)
    expect(rotated.headers.get("x-cache")).toBe("hit")
    expect(await driftOf(rotated)).toMatchObject({ recorded: false, findings_new: [], findings_resolved: [] })
    // Bob still sees none of it: a miss and a first record of his own.
    answerWith(BOB_TITLES)
    const bob = await post(service, BOB, body)
    expect(bob.headers.get("x-cache")).toBe("miss")
    expect(await driftOf(bob)).toMatchObject({ recorded: true })
    expect(harness.double.calls).toHaveLength(2)
  })
})
