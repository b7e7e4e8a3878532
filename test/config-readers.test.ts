/**
 * The forms the setting readers (src/Config/Settings.ts) accept beyond Effect's own `Config`
 * readers, and the ones they refuse that Effect's would take: a reader swapped for
 * `Config.integer`, `Config.boolean`, `Config.literal` or `Config.duration` fails here.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option } from "effect"
import { homedir } from "node:os"
import { join } from "node:path"
import { appConfig, describeConfigError } from "../src/Config.js"

const load = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(appConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

const accepted = (env: Record<string, string>) => Either.getOrThrow(load(env))

const refused = (env: Record<string, string>) => {
  const result = load(env)
  if (Either.isRight(result)) return expect.fail(`accepted ${JSON.stringify(env)}`)
  return describeConfigError(result.left)
}

describe("setting readers", () => {
  it("take integers as decimal digits only, trimmed, within their range", () => {
    expect(accepted({ SVC_PORT: "0" }).port).toBe(0)
    expect(accepted({ SVC_PORT: " 8080 " }).port).toBe(8080)
    expect(accepted({ SVC_PORT: "080" }).port).toBe(80)
    for (const value of ["", "1e3", "0x10", "+80", "80.0", "65536"]) {
      expect(refused({ SVC_PORT: value })).toBe(`SVC_PORT must be an integer port 0-65535 (got "${value}")`)
    }
    expect(refused({ SVC_API_RATE_LIMIT_MAX_BUCKETS: "99" })).toBe(`SVC_API_RATE_LIMIT_MAX_BUCKETS must be an integer 100-10000000 (got "99")`)
  })

  it("take booleans whatever their letter case, an empty value as false", () => {
    expect(accepted({ SVC_API_REQUIRE_AUTH: "YES" }).auth.required).toBe(true)
    expect(accepted({ SVC_API_REQUIRE_AUTH: " On " }).auth.required).toBe(true)
    expect(accepted({ SVC_API_REQUIRE_AUTH: "Off" }).auth.required).toBe(false)
    expect(accepted({ SVC_API_REQUIRE_AUTH: "" }).auth.required).toBe(false)
    expect(refused({ SVC_API_REQUIRE_AUTH: "2" })).toBe(`SVC_API_REQUIRE_AUTH must be true or false (got "2")`)
  })

  it("take choices whatever their letter case, with their aliases", () => {
    expect(accepted({ SVC_LOG_LEVEL: "WARN" }).logLevel).toBe("warning")
    expect(accepted({ SVC_CACHE: "none" }).cache.enabled).toBe(false)
    expect(accepted({ SVC_CACHE: "" }).cache.enabled).toBe(false)
    expect(Option.getOrThrow(accepted({ SVC_LLM_PROVIDER: "OpenAI" }).providers.forced)).toBe("openai")
    expect(accepted({ SVC_REDIS_ON_ERROR: "OPEN" }).redis.onError).toBe("open")
    // An alias table is not an object's prototype.
    expect(refused({ SVC_CACHE: "constructor" })).toBe(`SVC_CACHE must be memory, redis or off (got "constructor")`)
    expect(refused({ SVC_LOG_LEVEL: "all" })).toContain("SVC_LOG_LEVEL must be one of trace")
  })

  it("take durations in seconds, s, ms or m; zero only where a delay may be skipped", () => {
    expect(Duration.toMillis(accepted({ SVC_HTTP_HEADERS_TIMEOUT: "2.5" }).server.headersTimeout)).toBe(2500)
    expect(Duration.toMillis(accepted({ SVC_HTTP_HEADERS_TIMEOUT: "2m" }).server.headersTimeout)).toBe(120_000)
    expect(Duration.toMillis(Option.getOrThrow(accepted({ SVC_CACHE_TTL_SECONDS: "1500 ms" }).cache.ttl))).toBe(1500)
    expect(Duration.toMillis(accepted({ SVC_DRAIN_DELAY_SECONDS: "0ms" }).lifecycle.drainDelay)).toBe(0)
    expect(refused({ SVC_HTTP_HEADERS_TIMEOUT: "10 seconds" })).toBe(
      `SVC_HTTP_HEADERS_TIMEOUT must be a positive duration in seconds (10, 10s, 1500ms) (got "10 seconds")`
    )
    expect(refused({ SVC_CACHE_TTL_SECONDS: "0s" })).toBe(`SVC_CACHE_TTL_SECONDS must be a positive duration in seconds (got "0s")`)
    expect(refused({ SVC_SHUTDOWN_GRACE_SECONDS: "1h" })).toBe(`SVC_SHUTDOWN_GRACE_SECONDS must be a duration in seconds >= 0 (got "1h")`)
  })

  it("read directories and other text, and cut a long refused value at 60 characters", () => {
    expect(accepted({ SVC_HOME: "~/svc-home" }).home).toBe(join(homedir(), "svc-home"))
    expect(refused({ SVC_HOME: " " })).toBe(`SVC_HOME must be a directory path (got " ")`)
    const long = "x".repeat(70)
    expect(refused({ SVC_REDIS_PREFIX: long })).toBe(`SVC_REDIS_PREFIX must be 1-64 characters of [A-Za-z0-9:_.-] (got "${"x".repeat(60)}…")`)
  })
})
