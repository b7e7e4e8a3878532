/**
 * Authentication (SEED §5, DECISIONS §5) against the real server: key sources, both headers,
 * 401 / 500 bodies and headers, exempt paths, checking before the body is read, key-file rotation,
 * keys never leaking, the OpenAPI security schemes and the typed client sending a key.
 */
import { FetchHttpClient } from "@effect/platform"
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import { ConfigProvider, Context, Duration, Effect, Either, Layer, Option, Redacted, Schema, Supervisor, TestClock } from "effect"
import { mkdtempSync, renameSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiKeys, ApiKeysLive, ApiKeysOnceLive, KEY_FILE_POLL, mergeKeys, parseKeyFile, verifyAgainst, digestKeys } from "../../src/Auth/ApiKeys.js"
import { AppConfig, appConfig } from "../../src/Config.js"
import { makeClient } from "../../src/Client.js"
import { type RunningService, startService } from "../support/Service.js"
import { eventually, sleepInstants, whenSleeping } from "../support/TestTime.js"

const ENV_KEY = "env-key-0123456789abcdef"
const FILE_KEY = "file-key-0123456789abcdef"
const ROTATED_KEY = "rotated-key-0123456789abcdef"
const services: Array<RunningService> = []
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()))
})
const start = async (env: Record<string, string>) => {
  const service = await startService(env)
  services.push(service)
  return service
}

const keyFile = (lines: string) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-keys-"))
  const path = join(dir, "keys")
  writeFileSync(path, lines)
  return path
}

const Operation = Schema.Struct({ security: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }))) })
const SecurityView = Schema.Struct({
  components: Schema.Struct({ securitySchemes: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Operation }) })
})

const body = async (response: Response) => ({ status: response.status, json: await response.json() })

describe("key handling", () => {
  it("parses key files with comments and blank lines, and refuses a key shared across sources", () => {
    const parsed = Either.getOrThrow(parseKeyFile(`# team keys\n\nci=${FILE_KEY}\n  ops = ${ROTATED_KEY}  \n`, "keys"))
    expect(parsed.map((entry) => entry.name)).toEqual(["ci", "ops"])
    // One name in both sources: two keys of one caller (a rotation's overlap), not a conflict.
    const fromEnv = [{ name: "ci", key: Redacted.make(ENV_KEY) }]
    expect(Either.getOrThrow(mergeKeys(fromEnv, parsed)).map((entry) => entry.name)).toEqual(["ci", "ci", "ops"])
    const sameKey = [{ name: "other", key: Redacted.make(FILE_KEY) }]
    expect(Either.isLeft(mergeKeys(sameKey, parsed.slice(0, 1)))).toBe(true)
    expect(Either.isLeft(parseKeyFile("ci=short", "keys"))).toBe(true)
  })

  it("verifies against digests only, comparing every digest", () => {
    const digests = digestKeys([{ name: "a", key: Redacted.make(ENV_KEY) }, { name: "b", key: Redacted.make(FILE_KEY) }])
    expect(verifyAgainst(digests, FILE_KEY)).toBe("b")
    expect(verifyAgainst(digests, `${FILE_KEY}x`)).toBeUndefined()
    expect(JSON.stringify(digests)).not.toContain(FILE_KEY)
    let wrong = 0
    for (let i = 0; i < 100_000; i++) if (verifyAgainst(digests, `guess-${i}-0123456789abcdef`) !== undefined) wrong += 1
    expect(wrong).toBe(0)
  })
})

describe("enforcement", () => {
  it("accepts Bearer and X-API-Key from either source; refuses missing and wrong keys with 401", async () => {
    const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `env=${ENV_KEY}`, SVC_API_KEYS_FILE: keyFile(`file=${FILE_KEY}\n`) })
    expect((await fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${ENV_KEY}` } })).status).toBe(200)
    expect((await fetch(`${service.url}/v1/patterns`, { headers: { "x-api-key": FILE_KEY } })).status).toBe(200)
    for (const headers of [{}, { authorization: "Bearer wrong-key-0123456789abcdef" }, { "x-api-key": "nope" }, { authorization: ENV_KEY }]) {
      const response = await fetch(`${service.url}/v1/patterns/lewin`, { headers })
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="svc"')
      expect(await body(response)).toEqual({ status: 401, json: { detail: { error: "unauthorized", message: expect.any(String) } } })
    }
  })

  it("leaves probes, metrics, OpenAPI and docs open", async () => {
    const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `env=${ENV_KEY}` })
    for (const path of ["/healthz", "/livez", "/readyz", "/metrics", "/openapi.json", "/docs", "/redoc", "/docs/init.js"]) {
      expect((await fetch(`${service.url}${path}`)).status, path).toBe(200)
    }
    expect((await fetch(`${service.url}/v1/analyze/lewin`, { method: "POST" })).status).toBe(401)
    expect((await fetch(`${service.url}/nope`)).status).toBe(401)
  })

  it("answers 500 auth_misconfigured on every non-exempt request when auth is required without keys", async () => {
    const service = await start({ SVC_API_REQUIRE_AUTH: "true" })
    expect(await body(await fetch(`${service.url}/v1/patterns`))).toEqual({
      status: 500,
      json: { detail: { error: "auth_misconfigured", message: expect.stringContaining("SVC_API_KEYS") } }
    })
    expect((await fetch(`${service.url}/v1/analyze/lewin`, { method: "POST", headers: { authorization: `Bearer ${ENV_KEY}` } })).status).toBe(500)
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200)
  })

  it("without SVC_API_REQUIRE_AUTH a key only names the bucket; requests without one are served", async () => {
    const service = await start({ SVC_API_KEYS: `env=${ENV_KEY}` })
    expect((await fetch(`${service.url}/v1/patterns`)).status).toBe(200)
    expect((await fetch(`${service.url}/v1/patterns`, { headers: { authorization: "Bearer whatever-0123456789abcdef" } })).status).toBe(200)
  })

  it("answers 401 before reading the body: a 5 MiB upload gets its answer after the first chunk", async () => {
    const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `env=${ENV_KEY}` })
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(service.port, "127.0.0.1", () => {
        socket.write(
          `POST /v1/analyze/lewin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n`
        )
        socket.write(Buffer.alloc(64 * 1024, "a"))
      })
      let received = ""
      socket.on("data", (chunk) => {
        received += chunk.toString("utf8")
        if (received.includes("\r\n\r\n") && received.includes("unauthorized")) {
          socket.destroy()
          resolve(received)
        }
      })
      socket.on("error", reject)
      setTimeout(() => reject(new Error(`no answer before the body was sent; got: ${received.slice(0, 200)}`)), 5000)
    })
    expect(reply).toMatch(/^HTTP\/1\.1 401/)
    expect(reply.toLowerCase()).toContain("connection: close")
  })
})

describe("key file rotation", () => {
  it("re-reads the file when it changes; a bad new file keeps the old keys and says why", async () => {
    const path = keyFile(`ci=${FILE_KEY}\n`)
    const logged: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    })
    try {
      const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS_FILE: path, SVC_LOG_LEVEL: "info" })
      const status = async (key: string) => (await fetch(`${service.url}/v1/patterns`, { headers: { authorization: `Bearer ${key}` } })).status
      expect(await status(FILE_KEY)).toBe(200)
      // Atomic replacement, as secret managers do it.
      writeFileSync(`${path}.new`, `ci=${ROTATED_KEY}\n`)
      renameSync(`${path}.new`, path)
      await vi.waitFor(async () => expect(await status(ROTATED_KEY)).toBe(200), { timeout: 5000, interval: 100 })
      expect(await status(FILE_KEY)).toBe(401)
      writeFileSync(path, "ci=too-short\n")
      await vi.waitFor(() => expect(logged.join("\n")).toContain("was not loaded"), { timeout: 5000, interval: 100 })
      expect(await status(ROTATED_KEY)).toBe(200)
      const output = logged.join("\n")
      for (const secret of [FILE_KEY, ROTATED_KEY, "too-short"]) expect(output).not.toContain(secret)
    } finally {
      spy.mockRestore()
    }
  })
})

describe("background work (DECISIONS §16: only a serving process starts it)", () => {
  // On the test clock, not a wall-clock wait for a re-read that should not come: the watcher is a
  // fiber polling on Effect's clock, so "not watched" is no fiber left and no sleep waiting on the
  // clock, and the watched layer beside it shows the same rotation is read once the poll comes.
  it.scoped("a command's keys are read once: the key file is not watched, so nothing is left running", () =>
    Effect.gen(function*() {
      const rotated = (layer: typeof ApiKeysOnceLive) =>
        Effect.gen(function*() {
          const path = keyFile(`ci=${FILE_KEY}\n`)
          const provider = ConfigProvider.fromMap(new Map([["SVC_API_REQUIRE_AUTH", "true"], ["SVC_API_KEYS_FILE", path]]))
          const supervisor = yield* Supervisor.track
          const built = yield* Layer.build(layer.pipe(Layer.provide(Layer.effect(AppConfig, appConfig)))).pipe(
            Effect.supervised(supervisor),
            Effect.withConfigProvider(provider)
          )
          const keys = Context.get(built, ApiKeys)
          const before = yield* keys.verify(FILE_KEY)
          writeFileSync(`${path}.new`, `ci=${ROTATED_KEY}\n`)
          renameSync(`${path}.new`, path)
          return { keys, before, running: (yield* supervisor.value).length }
        })
      const once = yield* rotated(ApiKeysOnceLive)
      expect(once.running).toBe(0)
      expect(yield* sleepInstants).toEqual([])
      yield* TestClock.adjust(Duration.times(KEY_FILE_POLL, 10))
      expect({ before: once.before, old: yield* once.keys.verify(FILE_KEY), rotated: yield* once.keys.verify(ROTATED_KEY) }).toEqual({
        before: Option.some("ci"),
        old: Option.some("ci"),
        rotated: Option.none()
      })
      // the serving layer's watcher: one fiber, asleep until its poll, which reads the rotated file
      const watched = yield* rotated(ApiKeysLive)
      expect(watched.running).toBe(1)
      yield* whenSleeping(1)
      yield* TestClock.adjust(KEY_FILE_POLL)
      yield* eventually(watched.keys.verify(ROTATED_KEY), "the watcher's re-read")
      expect({ before: watched.before, old: yield* watched.keys.verify(FILE_KEY), rotated: yield* watched.keys.verify(ROTATED_KEY) }).toEqual({
        before: Option.some("ci"),
        old: Option.none(),
        rotated: Option.some("ci")
      })
    }))
})

describe("secrets stay secret", () => {
  it("keys and key names appear in no log line, error body or metric", async () => {
    const logged: Array<string> = []
    const spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      logged.push(args.map(String).join(" "))
    })
    try {
      const service = await start({
        SVC_API_REQUIRE_AUTH: "true",
        SVC_API_KEYS: `secret-team-name=${ENV_KEY}`,
        SVC_API_RATE_LIMIT: "3/60",
        SVC_LOG_LEVEL: "debug"
      })
      const bodies: Array<string> = []
      for (const headers of [{ authorization: `Bearer ${ENV_KEY}` }, { "x-api-key": `${ENV_KEY}-wrong` }, {}]) {
        for (let i = 0; i < 5; i++) bodies.push(await (await fetch(`${service.url}/v1/patterns/nope`, { headers })).text())
      }
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      const everything = [...logged, ...bodies, metrics].join("\n")
      expect(everything).not.toContain(ENV_KEY)
      expect(everything).not.toContain("secret-team-name")
      expect(bodies.some((text) => text.includes("rate_limited"))).toBe(true)
    } finally {
      spy.mockRestore()
    }
  })
})

describe("contract", () => {
  it("declares the security schemes in OpenAPI on the guarded operations only", async () => {
    const service = await start({})
    const doc = Schema.decodeUnknownSync(SecurityView)(await (await fetch(`${service.url}/openapi.json`)).json())
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: "http", scheme: "bearer" }),
      apiKey: expect.objectContaining({ type: "apiKey", name: "X-API-Key", in: "header" })
    })
    expect(doc.paths["/v1/analyze/lewin"]?.["post"]?.security).toEqual([{ bearer: [] }, { apiKey: [] }])
    expect(doc.paths["/v1/patterns"]?.["get"]?.security).toEqual([{ bearer: [] }, { apiKey: [] }])
    expect(doc.paths["/healthz"]?.["get"]?.security ?? []).toEqual([])
  })

  it("the typed client sends the key", async () => {
    const service = await start({ SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `env=${ENV_KEY}` })
    const run = (apiKey: string | undefined) =>
      Effect.runPromise(
        Effect.gen(function*() {
          const client = yield* makeClient(service.url, apiKey === undefined ? {} : { apiKey })
          return yield* Effect.either(client.catalogue.listPatterns())
        }).pipe(Effect.provide(FetchHttpClient.layer))
      )
    const ok = await run(ENV_KEY)
    expect(Either.isRight(ok) && ok.right.count).toBe(34)
    const refused = await run(undefined)
    expect(Either.isLeft(refused) && refused.left._tag).toBe("Unauthorized")
  })
})
