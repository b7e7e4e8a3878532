/**
 * Configuration is read once and validated: a malformed value is refused with a message naming
 * the variable and its accepted form (DECISIONS §5), never silently replaced by a default.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { appConfig, describeConfigError } from "../src/Config.js"
import { startService } from "./support/Service.js"

const load = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(appConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))

const accepted = (env: Record<string, string>) => Either.getOrThrow(load(env))

const refused = (env: Record<string, string>) => {
  const result = load(env)
  if (Either.isRight(result)) return expect.fail(`accepted ${JSON.stringify(env)}`)
  return describeConfigError(result.left)
}

describe("configuration", () => {
  it("has the documented defaults", () => {
    const config = Either.getOrThrow(load({}))
    expect(config.host).toBe("127.0.0.1")
    expect(config.port).toBe(8000)
    expect(config.limits.maxBodyBytes).toBe(5 * 1024 * 1024)
    expect(config.limits.maxTraceSteps).toBe(5000)
    expect(config.limits.maxMessages).toBe(5000)
    expect(config.limits.maxStringChars).toBe(200_000)
    expect(config.limits.maxTotalChars).toBe(1_000_000)
    expect(Duration.toSeconds(config.limits.requestTimeout)).toBe(120)
    expect(Option.isNone(config.rateLimit)).toBe(true)
    expect(config.trustedProxies).toBe(1)
    expect(config.cache).toEqual({ enabled: false, shared: false, capacity: 1024, ttl: Option.none(), scope: "key" })
    expect(Duration.toSeconds(config.lifecycle.drainDelay)).toBe(5)
    expect(Duration.toSeconds(config.lifecycle.shutdownGrace)).toBe(20)
    expect(config.auth.required).toBe(false)
    expect(config.logLevel).toBe("info")
    expect(config.limits.maxDepth).toBe(64)
    expect(config.limits.maxKeys).toBe(500_000)
    expect(config.limits.maxInflightBytes).toBe(256 * 1024 * 1024)
    expect(config.trustedProxyAddresses).toEqual(["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"])
    expect(config.allowedHosts).toEqual([])
    expect(Duration.toSeconds(config.server.headersTimeout)).toBe(10)
    expect(Duration.toSeconds(config.server.requestTimeout)).toBe(60)
    expect(Duration.toSeconds(config.server.idleTimeout)).toBe(5)
    expect(config.server.maxConnections).toBe(16_384)
    expect(config.mcp.maxBatch).toBe(32)
  })

  it.each([
    ["SVC_PORT", "eighty", "an integer port"],
    ["SVC_PORT", "70000", "an integer port"],
    ["SVC_HOST", "local host", "a host name"],
    ["SVC_API_REQUIRE_AUTH", "maybe", "true or false"],
    ["SVC_API_RATE_LIMIT", "ten per minute", "N/S"],
    ["SVC_API_RATE_LIMIT", "0/60", "N/S"],
    ["SVC_TRUSTED_PROXIES", "-1", "an integer 0-10"],
    ["SVC_CORS_ORIGINS", "https://app.example.com/path", "origins separated by commas"],
    ["SVC_CORS_ORIGINS", "app.example.com", "origins separated by commas"],
    ["SVC_API_MAX_BODY_BYTES", "5MB", "an integer number of bytes"],
    ["SVC_API_MAX_TRACE_STEPS", "0", "a positive integer"],
    ["SVC_API_MAX_MESSAGES", "lots", "a positive integer"],
    ["SVC_API_MAX_STRING_CHARS", "1e5", "a positive integer"],
    ["SVC_API_MAX_TOTAL_CHARS", "-5", "a positive integer"],
    ["SVC_API_REQUEST_TIMEOUT", "forever", "a positive duration"],
    ["SVC_API_REQUEST_TIMEOUT", "0", "a positive duration"],
    ["SVC_CACHE", "disk", "memory, redis or off"],
    ["SVC_CACHE", "redis", "SVC_CACHE=redis needs SVC_REDIS_URL"],
    ["SVC_REDIS_URL", "http://user:pass@host", "redis:// or rediss://"],
    ["SVC_REDIS_ON_ERROR", "deny", "local or open"],
    ["SVC_CACHE_CAPACITY", "big", "a positive integer"],
    ["SVC_CACHE_TTL_SECONDS", "soon", "a positive duration"],
    ["SVC_CACHE_SCOPE", "tenant", "key or global"],
    ["SVC_DRAIN_DELAY_SECONDS", "x", "a duration in seconds"],
    ["SVC_SHUTDOWN_GRACE_SECONDS", "-3", "a duration in seconds"],
    ["SVC_LLM_PROVIDER", "gemini", "one of anthropic, openai, local"],
    ["SVC_LOG_LEVEL", "loud", "one of trace"],
    ["ANTHROPIC_BASE_URL", "ftp://x", "an http(s) URL"],
    ["LOCAL_MODEL_HOST", "http://", "an http(s) URL"],
    ["SVC_TRUSTED_PROXY_ADDRESSES", "10.0.0.0/33", "IP addresses or CIDR ranges"],
    ["SVC_TRUSTED_PROXY_ADDRESSES", "proxy.internal", "IP addresses or CIDR ranges"],
    ["SVC_ALLOWED_HOSTS", "https://svc.example.com", "host names separated by commas"],
    ["SVC_API_MAX_DEPTH", "1", "an integer 2-10000"],
    ["SVC_API_MAX_KEYS", "many", "a positive integer"],
    ["SVC_API_MAX_INFLIGHT_BYTES", "1000", "an integer number of bytes >= 1048576"],
    ["SVC_HTTP_HEADERS_TIMEOUT", "0", "a positive duration"],
    ["SVC_HTTP_BODY_TIMEOUT", "never", "a positive duration"],
    ["SVC_HTTP_IDLE_TIMEOUT", "-1", "a positive duration"],
    ["SVC_HTTP_MAX_CONNECTIONS", "8", "an integer 16-1000000"],
    ["SVC_MCP_MAX_BATCH", "0", "an integer 1-1000"]
  ])("refuses %s=%s naming the variable and the accepted form", (name, value, accepted) => {
    const message = refused({ [name]: value })
    expect(message).toContain(name)
    expect(message).toContain(accepted)
  })

  it("accepts the documented forms", () => {
    const config = Either.getOrThrow(load({
      SVC_API_RATE_LIMIT: "100/60",
      SVC_API_REQUEST_TIMEOUT: "90s",
      SVC_CACHE: "memory",
      SVC_CACHE_TTL_SECONDS: "300",
      SVC_CACHE_SCOPE: "Global",
      SVC_API_KEYS: "ci=abcdefghijklmnop0123,ops=qrstuvwxyzABCDEF4567",
      SVC_LLM_PROVIDER: "local",
      OLLAMA_HOST: "127.0.0.1:11434"
    }))
    expect(Option.getOrThrow(config.rateLimit)).toEqual({ requests: 100, windowSeconds: 60 })
    expect(Duration.toSeconds(config.limits.requestTimeout)).toBe(90)
    expect(config.cache.enabled).toBe(true)
    expect(config.cache.scope).toBe("global")
    const shared = Either.getOrThrow(load({ SVC_CACHE: "redis", SVC_REDIS_URL: "rediss://:pw@redis.internal:6380" }))
    expect(shared.cache).toMatchObject({ enabled: true, shared: true })
    expect(shared.redis.prefix).toBe("svc:")
    expect(Either.getOrThrow(load({})).cache.scope).toBe("key")
    expect(config.auth.keys.map((k) => k.name)).toEqual(["ci", "ops"])
    expect(Redacted.value(config.auth.keys[0]!.key)).toBe("abcdefghijklmnop0123")
    expect(Option.getOrThrow(config.providers.localHost)).toBe("http://127.0.0.1:11434")
    expect(Option.getOrThrow(load({ SVC_API_RATE_LIMIT: "30" }).pipe(Either.getOrThrow).rateLimit)).toEqual({ requests: 30, windowSeconds: 60 })
    const bounded = Either.getOrThrow(load({
      SVC_TRUSTED_PROXY_ADDRESSES: "203.0.113.0/24, 2001:db8::1",
      SVC_ALLOWED_HOSTS: "Svc.Example.com., 10.0.0.5,[fd00::1]",
      SVC_HTTP_IDLE_TIMEOUT: "1500ms"
    }))
    expect(bounded.trustedProxyAddresses).toEqual(["203.0.113.0/24", "2001:db8::1"])
    expect(bounded.allowedHosts).toEqual(["svc.example.com", "10.0.0.5", "[fd00::1]"])
    expect(Duration.toMillis(bounded.server.idleTimeout)).toBe(1500)
    expect(Either.getOrThrow(load({ SVC_TRUSTED_PROXY_ADDRESSES: "none" })).trustedProxyAddresses).toEqual([])
  })

  it("takes the seed's provider variables as aliases", () => {
    const config = Either.getOrThrow(load({ PROVIDER_A_API_KEY: "sk-a-0123456789", PROVIDER_B_API_KEY: "sk-b-0123456789" }))
    expect(Option.map(config.providers.anthropicKey, Redacted.value)).toEqual(Option.some("sk-a-0123456789"))
    expect(Option.map(config.providers.openaiKey, Redacted.value)).toEqual(Option.some("sk-b-0123456789"))
  })

  it("refuses short, shared and malformed API keys without showing them; a name may hold several keys", () => {
    const short = refused({ SVC_API_KEYS: "ci=short-key" })
    expect(short).toContain("SVC_API_KEYS")
    expect(short).toContain("at least 16 characters")
    expect(short).not.toContain("short-key")
    // Two keys under one name: the overlap of a rotation, which keeps the name and so its data.
    const rotating = Either.getOrThrow(load({ SVC_API_KEYS: "a=abcdefghijklmnop0123,a=qrstuvwxyzABCDEF4567" }))
    expect(rotating.auth.keys.map((entry) => entry.name)).toEqual(["a", "a"])
    expect(refused({ SVC_API_KEYS: "a=abcdefghijklmnop0123,a=abcdefghijklmnop0123" })).toContain("duplicate key")
    expect(refused({ SVC_API_KEYS: "a=abcdefghijklmnop0123,b=abcdefghijklmnop0123" })).toContain("duplicate key")
    expect(refused({ SVC_API_KEYS: "novalue" })).toContain("<key_name>=<API_KEY>")
  })

  it("stops the real process with the message and exit code 1", () => {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, "..", "dist", "server.mjs")], {
      env: { ...process.env, SVC_PORT: "eighty", SVC_CACHE: "disk" },
      encoding: "utf8",
      timeout: 20_000
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("SVC_PORT must be an integer port 0-65535")
    expect(result.stderr).toContain("SVC_CACHE must be memory, redis or off")
  })
})

describe("SVC_API_KEY_ROLES names keys that exist (DECISIONS §16)", () => {
  const KEYS = "alice=alice-key-0123456789abcdef,bob=bob-key-0123456789abcdef"

  it("a role for a key name SVC_API_KEYS does not hold is refused naming it (the real key would be admin of its own scope)", () => {
    const message = refused({ SVC_API_KEYS: KEYS, SVC_API_KEY_ROLES: "alcie=read@team,bob=admin@team" })
    expect(message).toContain("SVC_API_KEY_ROLES")
    expect(message).toContain("\"alcie\"")
    expect(message).not.toContain("bob")
    expect(message).not.toContain("alice-key")
    expect(refused({ SVC_API_KEY_ROLES: "agents=ingest" })).toContain("\"agents\"")
    expect(accepted({ SVC_API_KEYS: KEYS, SVC_API_KEY_ROLES: "alice=read@team,bob=admin@team" }).auth.roles.get("alice")).toEqual({ role: "read", scope: "team" })
  })

  it("with SVC_API_KEYS_FILE, the file's names count, and a name neither holds stops start-up naming it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-roles-file-"))
    const file = join(dir, "keys.txt")
    writeFileSync(file, "# team keys\ncarol=carol-key-0123456789abcdef\n")
    const env = { SVC_API_KEYS: KEYS, SVC_API_KEYS_FILE: file, SVC_API_REQUIRE_AUTH: "true", SVC_HOME: dir }
    const service = await startService({ ...env, SVC_API_KEY_ROLES: "alice=read@team,carol=ingest@team" })
    await service.close()
    const failure = await startService({ ...env, SVC_API_KEY_ROLES: "alice=read@team,dave=ingest@team" }).then(
      async (started) => {
        await started.close()
        return "started"
      },
      (error: unknown) => String(error)
    )
    expect(failure).toContain("SVC_API_KEY_ROLES")
    expect(failure).toContain("\"dave\"")
    expect(failure).toContain("SVC_API_KEYS_FILE")
  })
})

describe("alert webhooks (SVC_ALERT_WEBHOOKS, SVC_ALERT_WEBHOOKS_FILE)", () => {
  const SECRET = "a-webhook-signing-secret-0123456789"
  const webhooks = (env: Record<string, string>) => accepted({ SVC_ALERT_SECRET: SECRET, ...env }).alerts.webhooks
  const refusedHook = (url: string, env: Record<string, string> = {}) => refused({ SVC_ALERT_SECRET: SECRET, SVC_ALERT_WEBHOOKS: `https://hooks.example.test/ok,${url}`, ...env })

  it("are read in their canonical form: the host as WHATWG writes it, numeric IPv4 forms as dotted", () => {
    expect(webhooks({ SVC_ALERT_WEBHOOKS: "HTTP://Hooks.Example.TEST:80/a/../b?x=1,http://2130706434:9000/hook" }).get("")).toEqual([
      "http://hooks.example.test/b?x=1",
      "http://127.0.0.2:9000/hook"
    ])
  })

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://0xA9FEA9FE/latest/meta-data/",
    "http://2852039166/",
    "http://0251.0376.0251.0376/",
    "http://169.254.169.254.:80/",
    "http://169.254.1.1:8080/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[fe80::1]/",
    "http://[FEBF::abcd]:8080/",
    "http://[fd00:ec2::254]/latest/"
  ])("refuse %s: a link-local (metadata) address, naming the entry", (url) => {
    const message = refusedHook(url)
    expect(message).toContain("SVC_ALERT_WEBHOOKS entry 2")
    expect(message).toContain("link-local")
  })

  it("refuse a metadata service by its name (names are not resolved)", () => {
    expect(refusedHook("http://Metadata.Google.Internal./computeMetadata/v1/")).toContain("metadata.google.internal. is a cloud metadata service")
  })

  it("refuse this service's own listener, in any local form, and SVC_PUBLIC_URL's origin", () => {
    // the defaults: 127.0.0.1:8000
    for (const url of ["http://127.0.0.1:8000/hook", "http://localhost:8000/", "http://LOCALHOST.:8000/", "http://0.0.0.0:8000/", "http://127.1:8000/", "http://0x7f000001:8000/", "http://[::1]:8000/", "http://[::ffff:127.0.0.1]:8000/"]) {
      expect(refusedHook(url), url).toContain("own listener (SVC_HOST=127.0.0.1, SVC_PORT=8000)")
    }
    // listening on every address: any local address on its port, this machine's own ones too
    expect(refusedHook("http://127.0.0.2:9000/", { SVC_HOST: "0.0.0.0", SVC_PORT: "9000" })).toContain("own listener")
    expect(refusedHook("https://svc.example.com:9443/", { SVC_HOST: "svc.example.com", SVC_PORT: "9443" })).toContain("own listener")
    expect(refusedHook("https://svc.example.com/other", { SVC_HOST: "svc.example.com", SVC_PORT: "443" })).toContain("own listener")
    for (const url of ["https://SVC.example.com/v1/hooks", "https://svc.example.com:443/x"]) {
      expect(refusedHook(url, { SVC_PUBLIC_URL: "https://svc.example.com/base" }), url).toContain("SVC_PUBLIC_URL")
    }
  })

  it("allow other loopback and private addresses (local relays), other ports, and any port when SVC_PORT=0", () => {
    const allowed = ["http://127.0.0.1:9000/hook", "http://localhost:3000/relay", "http://10.0.0.5/hook", "http://192.168.1.10:8080/", "http://[fd00::1]/", "https://svc.example.com:8443/"]
    expect(webhooks({ SVC_ALERT_WEBHOOKS: allowed.join(","), SVC_PUBLIC_URL: "https://svc.example.com" }).get("")).toEqual(allowed)
    expect(webhooks({ SVC_ALERT_WEBHOOKS: "http://127.0.0.1:8000/hook", SVC_PORT: "0" }).get("")).toEqual(["http://127.0.0.1:8000/hook"])
  })

  it("in SVC_ALERT_WEBHOOKS_FILE: refused naming the file and the line; kept in canonical form", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-webhooks-"))
    const file = join(dir, "webhooks.txt")
    writeFileSync(file, ["# teams", "billing=https://hooks.example.test/billing", "ops=http://0xA9FEA9FE/latest/", ""].join("\n"))
    const message = refused({ SVC_ALERT_SECRET: SECRET, SVC_ALERT_WEBHOOKS_FILE: file })
    expect(message).toContain(`SVC_ALERT_WEBHOOKS_FILE (${file}) line 3`)
    expect(message).toContain("169.254.169.254 is a link-local address")
    writeFileSync(file, "ops=http://[::FFFF:10.0.0.1]:8080/hook\n")
    expect(webhooks({ SVC_ALERT_WEBHOOKS_FILE: file }).get("ops")).toEqual(["http://[::ffff:a00:1]:8080/hook"])
  })
})

/**
 * The forms the setting readers (src/Config/Settings.ts) accept beyond Effect's own `Config`
 * readers, and the ones they refuse that Effect's would take: a reader swapped for
 * `Config.integer`, `Config.boolean`, `Config.literal` or `Config.duration` fails here.
 */
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
