/**
 * The service's whole configuration, read once from the environment (Effect `Config`) and
 * validated at start-up. A malformed value stops the process with a message naming the variable
 * and its accepted form; there is no silent fallback. Secrets are `Redacted`.
 */
import { Config, ConfigError, Context, Data, Duration, Effect, Either, Option, Redacted } from "effect"
import { existsSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { corsOriginValid } from "./Edge/Cors.js"
import { type KeyRole, parseKeyRoles } from "./Auth/Roles.js"
import { isAddressRange } from "./RateLimit/AddressRanges.js"

/**
 * The checkout's patterns/ folder: the nearest ancestor of this module's directory that holds
 * patterns/catalogue.json (src/ when run from source, dist/chunks/ when built).
 */
const bundledPatternsDir = (): string => {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, "patterns")
    if (existsSync(join(candidate, "catalogue.json"))) return candidate
    if (dirname(dir) === dir) return resolve(import.meta.dirname, "..", "patterns")
  }
}

export type ProviderName = "anthropic" | "openai" | "local"

export interface ApiKeyEntry {
  readonly name: string
  readonly key: Redacted.Redacted<string>
}

export interface RateLimitSetting {
  readonly requests: number
  readonly windowSeconds: number
}

export interface AppConfigShape {
  readonly host: string
  readonly port: number
  readonly home: string
  readonly patternsDir: string
  readonly logLevel: "trace" | "debug" | "info" | "warning" | "error" | "fatal" | "none"
  readonly auth: {
    readonly keys: ReadonlyArray<ApiKeyEntry>
    readonly keysFile: Option.Option<string>
    readonly required: boolean
    /** SVC_API_KEY_ROLES: each listed key's role and scope (DECISIONS §16); a key not listed is admin in its own scope. */
    readonly roles: ReadonlyMap<string, KeyRole>
  }
  readonly rateLimit: Option.Option<RateLimitSetting>
  readonly rateLimitMaxBuckets: number
  readonly trustedProxies: number
  /**
   * SVC_TRUSTED_PROXY_ADDRESSES: socket peers whose X-Forwarded-For is honoured (IPs or CIDR
   * ranges); a request from any other peer is attributed to its socket address.
   */
  readonly trustedProxyAddresses: ReadonlyArray<string>
  /**
   * SVC_ALLOWED_HOSTS: host names (besides the loopback names) this service answers to, checked on
   * `Host` and a browser's `Origin` against DNS rebinding (DECISIONS §16). `*` turns the check off.
   */
  readonly allowedHosts: ReadonlyArray<string>
  /** The node server's own bounds on connections (slow, idle or too many clients). */
  readonly server: {
    /** SVC_HTTP_HEADERS_TIMEOUT: time to receive a request's headers. */
    readonly headersTimeout: Duration.Duration
    /** SVC_HTTP_BODY_TIMEOUT: time to receive a whole request (headers and body). */
    readonly requestTimeout: Duration.Duration
    /** SVC_HTTP_IDLE_TIMEOUT: a connection with no request in progress is closed after this. */
    readonly idleTimeout: Duration.Duration
    /** SVC_HTTP_MAX_CONNECTIONS: connections held at once; more are refused by closing them. */
    readonly maxConnections: number
  }
  /** The MCP surface. */
  readonly mcp: {
    /** SVC_MCP_MAX_BATCH: JSON-RPC messages in one batch (protocol versions that still allow batches). */
    readonly maxBatch: number
  }
  /** SVC_CORS_ORIGINS: origins whose browser pages may call the API (`*`: every origin); empty: CORS off. */
  readonly corsOrigins: ReadonlyArray<string>
  readonly limits: {
    readonly maxBodyBytes: number
    readonly maxTraceSteps: number
    readonly maxMessages: number
    readonly maxStringChars: number
    readonly maxTotalChars: number
    readonly requestTimeout: Duration.Duration
    /** SVC_API_MAX_DEPTH: nesting depth of a JSON body (objects and arrays). */
    readonly maxDepth: number
    /** SVC_API_MAX_KEYS: object keys in one JSON body. */
    readonly maxKeys: number
    /** SVC_API_MAX_INFLIGHT_BYTES: request bodies held in memory at once, all requests together. */
    readonly maxInflightBytes: number
  }
  readonly cache: {
    readonly enabled: boolean
    /** SVC_CACHE=redis: entries and single flight shared by the replicas (DECISIONS §15). */
    readonly shared: boolean
    readonly capacity: number
    readonly ttl: Option.Option<Duration.Duration>
    /** With auth required: hits and single flight per key name (`key`) or across keys (`global`). */
    readonly scope: "key" | "global"
  }
  readonly lifecycle: {
    readonly drainDelay: Duration.Duration
    readonly shutdownGrace: Duration.Duration
  }
  readonly providers: {
    readonly forced: Option.Option<ProviderName>
    readonly defaultModel: Option.Option<string>
    readonly anthropicKey: Option.Option<Redacted.Redacted<string>>
    readonly anthropicBaseUrl: Option.Option<string>
    readonly openaiKey: Option.Option<Redacted.Redacted<string>>
    readonly openaiBaseUrl: Option.Option<string>
    readonly localHost: Option.Option<string>
  }
  readonly errorReporting: {
    readonly dsn: Option.Option<Redacted.Redacted<string>>
    readonly environment: Option.Option<string>
  }
  /** Shared state for several replicas (DECISIONS §15); none: everything stays in the process. */
  readonly redis: {
    /** `redis://` or `rediss://` (TLS); its password is a secret. */
    readonly url: Option.Option<Redacted.Redacted<string>>
    /** Namespace of every key the service writes. */
    readonly prefix: string
    /** The rate limiter while Redis is unavailable: each replica's own window (`local`), or none (`open`). */
    readonly onError: "local" | "open"
  }
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

const invalid = (name: string, accepted: string, got: string) =>
  ConfigError.InvalidData([name], `${name} must be ${accepted} (got "${got.length > 60 ? `${got.slice(0, 60)}…` : got}")`)

/** A variable parsed by `parse`; `undefined` from parse means malformed. */
const parsed = <A>(name: string, accepted: string, parse: (raw: string) => A | undefined): Config.Config<A> =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) => {
      const value = parse(raw.trim())
      return value === undefined ? Either.left(invalid(name, accepted, raw)) : Either.right(value)
    })
  )

const withDefault = <A>(config: Config.Config<A>, fallback: A) => Config.withDefault(config, fallback)

const integer = (min: number, max: number) => (raw: string): number | undefined => {
  if (!/^\d+$/.test(raw)) return undefined
  const n = Number(raw)
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined
}

const booleanValue = (raw: string): boolean | undefined => {
  const lower = raw.toLowerCase()
  if (["true", "1", "yes", "on"].includes(lower)) return true
  if (["false", "0", "no", "off", ""].includes(lower)) return false
  return undefined
}

/** Seconds as a number, or with a unit: `120`, `120s`, `1500ms`, `2m`. */
export const parseDuration = (raw: string): Duration.Duration | undefined => {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(raw)
  if (match === null) return undefined
  const value = Number(match[1])
  if (!Number.isFinite(value) || value <= 0) return undefined
  const unit = match[2] ?? "s"
  return Duration.millis(unit === "ms" ? value : unit === "m" ? value * 60_000 : value * 1000)
}

const nonNegativeDuration = (raw: string): Duration.Duration | undefined =>
  /^0+(\.0+)?\s*(ms|s|m)?$/.test(raw) ? Duration.zero : parseDuration(raw)

/** `N/S` (N requests per S seconds), `N` (per 60 s), `off`. */
export const parseRateLimit = (raw: string): Option.Option<RateLimitSetting> | undefined => {
  if (raw === "" || raw.toLowerCase() === "off") return Option.none()
  const match = /^(\d+)(?:\s*\/\s*(\d+)\s*s?)?$/.exec(raw)
  if (match === null) return undefined
  const requests = Number(match[1])
  const windowSeconds = match[2] === undefined ? 60 : Number(match[2])
  if (requests < 1 || windowSeconds < 1 || !Number.isSafeInteger(requests) || windowSeconds > 86_400) return undefined
  return Option.some({ requests, windowSeconds })
}

export const MIN_KEY_LENGTH = 16

/** `name=key,name2=key2`; names `[A-Za-z0-9_.-]`, keys at least 16 characters. */
export const parseKeyList = (
  entries: ReadonlyArray<string>,
  source: string
): Either.Either<Array<ApiKeyEntry>, string> => {
  const out: Array<ApiKeyEntry> = []
  const keys = new Set<string>()
  for (const [index, entry] of entries.entries()) {
    const at = entry.indexOf("=")
    const where = `${source} entry ${index + 1}`
    if (at <= 0) return Either.left(`${where} must be <key_name>=<API_KEY>`)
    const name = entry.slice(0, at).trim()
    const key = entry.slice(at + 1).trim()
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return Either.left(`${where}: key names are 1-64 characters of [A-Za-z0-9_.-]`)
    if (key.length < MIN_KEY_LENGTH) return Either.left(`${where}: keys must be at least ${MIN_KEY_LENGTH} characters`)
    if (keys.has(key)) return Either.left(`${where}: duplicate key (two names share one key)`)
    keys.add(key)
    out.push({ name, key: Redacted.make(key) })
  }
  return Either.right(out)
}

const apiKeys: Config.Config<Array<ApiKeyEntry>> = Config.string("SVC_API_KEYS").pipe(
  Config.withDefault(""),
  Config.mapOrFail((raw) => {
    const entries = raw.split(",").map((s) => s.trim()).filter((s) => s.length > 0)
    return Either.mapLeft(parseKeyList(entries, "SVC_API_KEYS"), (message) =>
      ConfigError.InvalidData(["SVC_API_KEYS"], `${message} (the value is not shown)`)
    )
  })
)

const optionalString = (name: string) =>
  Config.option(Config.string(name)).pipe(Config.map(Option.filter((s) => s.trim().length > 0)))

const optionalSecret = (name: string) =>
  Config.option(Config.redacted(name)).pipe(Config.map(Option.filter((s) => Redacted.value(s).trim().length > 0)))

const firstOf = <A>(a: Option.Option<A>, b: Option.Option<A>) => Option.orElse(a, () => b)

const url = (name: string) =>
  Config.option(
    parsed(name, "an http(s) URL", (raw) => {
      if (raw === "") return undefined
      const withScheme = /^[a-z]+:\/\//i.test(raw) ? raw : `http://${raw}`
      try {
        const parsedUrl = new URL(withScheme)
        return parsedUrl.protocol === "http:" || parsedUrl.protocol === "https:" ? withScheme.replace(/\/+$/, "") : undefined
      } catch {
        return undefined
      }
    })
  )

const MiB = 1024 * 1024

/** SVC_API_MAX_DEPTH's and SVC_API_MAX_KEYS's defaults (DECISIONS §16). */
export const DEFAULT_MAX_DEPTH = 64
export const DEFAULT_MAX_KEYS = 500_000

/** Where proxies live: loopback and the private ranges (RFC 1918, RFC 4193). */
export const DEFAULT_TRUSTED_PROXY_ADDRESSES: ReadonlyArray<string> = [
  "127.0.0.0/8",
  "::1/128",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "fc00::/7"
]

const settings: Config.Config<AppConfigShape> = Config.all({
  host: withDefault(
    parsed("SVC_HOST", "a host name or IP address", (raw) => (/^[A-Za-z0-9.:[\]-]+$/.test(raw) ? raw : undefined)),
    "127.0.0.1"
  ),
  port: withDefault(parsed("SVC_PORT", "an integer port 0-65535", integer(0, 65_535)), 8000),
  home: withDefault(
    parsed("SVC_HOME", "a directory path", (raw) => (raw.length > 0 ? resolve(raw.replace(/^~(?=$|\/)/, homedir())) : undefined)),
    join(homedir(), ".svc")
  ),
  patternsDir: withDefault(
    parsed("SVC_PATTERNS_DIR", "a directory path", (raw) => (raw.length > 0 ? resolve(raw) : undefined)),
    bundledPatternsDir()
  ),
  logLevel: withDefault(
    parsed("SVC_LOG_LEVEL", "one of trace, debug, info, warning, error, fatal, none", (raw) => {
      const lower = raw.toLowerCase() === "warn" ? "warning" : raw.toLowerCase()
      return lower === "trace" || lower === "debug" || lower === "info" || lower === "warning" || lower === "error" ||
          lower === "fatal" || lower === "none"
        ? lower
        : undefined
    }),
    "info"
  ),
  auth: Config.all({
    keys: apiKeys,
    keysFile: optionalString("SVC_API_KEYS_FILE"),
    required: withDefault(parsed("SVC_API_REQUIRE_AUTH", "true or false", booleanValue), false),
    roles: Config.string("SVC_API_KEY_ROLES").pipe(
      Config.withDefault(""),
      Config.mapOrFail((raw) => {
        const roles = parseKeyRoles(raw)
        return typeof roles === "string"
          ? Either.left(ConfigError.InvalidData(["SVC_API_KEY_ROLES"], `SVC_API_KEY_ROLES ${roles} (name=role[@scope], roles ingest, read, admin)`))
          : Either.right(roles)
      })
    )
  }),
  rateLimit: withDefault(
    parsed("SVC_API_RATE_LIMIT", "N/S (N requests per S seconds), N (per 60 s) or off", parseRateLimit),
    Option.none()
  ),
  rateLimitMaxBuckets: withDefault(
    parsed("SVC_API_RATE_LIMIT_MAX_BUCKETS", "an integer 100-10000000", integer(100, 10_000_000)),
    10_000
  ),
  trustedProxies: withDefault(parsed("SVC_TRUSTED_PROXIES", "an integer 0-10 (proxy hops)", integer(0, 10)), 1),
  trustedProxyAddresses: withDefault(
    parsed("SVC_TRUSTED_PROXY_ADDRESSES", "IP addresses or CIDR ranges separated by commas (10.0.0.0/8,::1), or none", (raw) => {
      if (raw.toLowerCase() === "none" || raw === "") return []
      const entries = raw.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
      return entries.every(isAddressRange) ? entries : undefined
    }),
    DEFAULT_TRUSTED_PROXY_ADDRESSES
  ),
  allowedHosts: withDefault(
    parsed("SVC_ALLOWED_HOSTS", "host names separated by commas (svc.example.com,10.0.0.5), or *", (raw) => {
      const entries = raw.split(",").map((entry) => entry.trim().toLowerCase().replace(/\.$/, "")).filter((entry) => entry.length > 0)
      return entries.every((entry) => entry === "*" || /^(\[[0-9a-f:.]+\]|[a-z0-9.-]{1,253})$/.test(entry)) ? entries : undefined
    }),
    []
  ),
  server: Config.all({
    headersTimeout: withDefault(
      parsed("SVC_HTTP_HEADERS_TIMEOUT", "a positive duration in seconds (10, 10s, 1500ms)", parseDuration),
      Duration.seconds(10)
    ),
    requestTimeout: withDefault(
      parsed("SVC_HTTP_BODY_TIMEOUT", "a positive duration in seconds (60, 60s, 2m)", parseDuration),
      Duration.seconds(60)
    ),
    idleTimeout: withDefault(
      parsed("SVC_HTTP_IDLE_TIMEOUT", "a positive duration in seconds (5, 5s, 1500ms)", parseDuration),
      Duration.seconds(5)
    ),
    maxConnections: withDefault(
      parsed("SVC_HTTP_MAX_CONNECTIONS", "an integer 16-1000000", integer(16, 1_000_000)),
      16_384
    )
  }),
  mcp: Config.all({
    maxBatch: withDefault(parsed("SVC_MCP_MAX_BATCH", "an integer 1-1000", integer(1, 1000)), 32)
  }),
  corsOrigins: withDefault(
    parsed("SVC_CORS_ORIGINS", "origins separated by commas (https://app.example.com,http://localhost:5173), * or empty", (raw) => {
      const entries = raw.split(",").map((entry) => entry.trim().replace(/\/+$/, "")).filter((entry) => entry.length > 0)
      return entries.every(corsOriginValid) ? entries : undefined
    }),
    []
  ),
  limits: Config.all({
    maxBodyBytes: withDefault(parsed("SVC_API_MAX_BODY_BYTES", "an integer number of bytes >= 1024", integer(1024, 2 ** 40)), 5 * MiB),
    maxTraceSteps: withDefault(parsed("SVC_API_MAX_TRACE_STEPS", "a positive integer", integer(1, 10_000_000)), 5000),
    maxMessages: withDefault(parsed("SVC_API_MAX_MESSAGES", "a positive integer", integer(1, 10_000_000)), 5000),
    maxStringChars: withDefault(parsed("SVC_API_MAX_STRING_CHARS", "a positive integer", integer(1, 2 ** 40)), 200_000),
    maxTotalChars: withDefault(parsed("SVC_API_MAX_TOTAL_CHARS", "a positive integer", integer(1, 2 ** 40)), 1_000_000),
    requestTimeout: withDefault(
      parsed("SVC_API_REQUEST_TIMEOUT", "a positive duration in seconds (120, 120s, 1500ms, 2m)", parseDuration),
      Duration.seconds(120)
    ),
    maxDepth: withDefault(parsed("SVC_API_MAX_DEPTH", "an integer 2-10000", integer(2, 10_000)), DEFAULT_MAX_DEPTH),
    maxKeys: withDefault(parsed("SVC_API_MAX_KEYS", "a positive integer", integer(1, 100_000_000)), DEFAULT_MAX_KEYS),
    maxInflightBytes: withDefault(
      parsed("SVC_API_MAX_INFLIGHT_BYTES", "an integer number of bytes >= 1048576", integer(MiB, 2 ** 40)),
      256 * MiB
    )
  }),
  cache: Config.all({
    backend: withDefault(
      parsed("SVC_CACHE", "memory, redis or off", (raw) => {
        const lower = raw.toLowerCase()
        return lower === "memory" || lower === "redis" ? lower : lower === "off" || lower === "none" || lower === "" ? "off" : undefined
      }),
      "off"
    ),
    capacity: withDefault(parsed("SVC_CACHE_CAPACITY", "a positive integer", integer(1, 100_000_000)), 1024),
    ttl: Config.option(parsed("SVC_CACHE_TTL_SECONDS", "a positive duration in seconds", parseDuration)),
    scope: withDefault(
      parsed("SVC_CACHE_SCOPE", "key or global", (raw) => {
        const lower = raw.toLowerCase()
        return lower === "key" || lower === "global" ? lower : undefined
      }),
      "key"
    )
  }).pipe(Config.map(({ backend, ...cache }) => ({ ...cache, enabled: backend !== "off", shared: backend === "redis" }))),
  lifecycle: Config.all({
    drainDelay: withDefault(
      parsed("SVC_DRAIN_DELAY_SECONDS", "a duration in seconds >= 0", nonNegativeDuration),
      Duration.seconds(5)
    ),
    shutdownGrace: withDefault(
      parsed("SVC_SHUTDOWN_GRACE_SECONDS", "a duration in seconds >= 0", nonNegativeDuration),
      Duration.seconds(20)
    )
  }),
  providers: Config.all({
    forced: Config.option(
      parsed("SVC_LLM_PROVIDER", "one of anthropic, openai, local", (raw) => {
        const lower = raw.toLowerCase()
        return lower === "anthropic" || lower === "openai" || lower === "local" ? lower : undefined
      })
    ),
    defaultModel: optionalString("SVC_MODEL"),
    anthropicKey: Config.all([optionalSecret("ANTHROPIC_API_KEY"), optionalSecret("PROVIDER_A_API_KEY")]).pipe(
      Config.map(([a, b]) => firstOf(a, b))
    ),
    anthropicBaseUrl: url("ANTHROPIC_BASE_URL"),
    openaiKey: Config.all([optionalSecret("OPENAI_API_KEY"), optionalSecret("PROVIDER_B_API_KEY")]).pipe(
      Config.map(([a, b]) => firstOf(a, b))
    ),
    openaiBaseUrl: url("OPENAI_BASE_URL"),
    localHost: Config.all([url("LOCAL_MODEL_HOST"), url("OLLAMA_HOST")]).pipe(Config.map(([a, b]) => firstOf(a, b)))
  }),
  errorReporting: Config.all({
    dsn: optionalSecret("ERROR_REPORTING_DSN"),
    environment: optionalString("ERROR_REPORTING_ENVIRONMENT")
  }),
  redis: Config.all({
    url: Config.option(
      Config.redacted("SVC_REDIS_URL").pipe(
        Config.mapOrFail((secret) => {
          const raw = Redacted.value(secret).trim()
          if (raw.length === 0) return Either.right(Redacted.make(raw))
          let ok = false
          try {
            const parsedUrl = new URL(raw)
            ok = (parsedUrl.protocol === "redis:" || parsedUrl.protocol === "rediss:") && parsedUrl.hostname.length > 0
          } catch {
            ok = false
          }
          // The value may hold a password: it is never shown.
          return ok
            ? Either.right(Redacted.make(raw))
            : Either.left(ConfigError.InvalidData(["SVC_REDIS_URL"], "SVC_REDIS_URL must be a redis:// or rediss:// URL (the value is not shown)"))
        })
      )
    ).pipe(Config.map(Option.filter((secret) => Redacted.value(secret).length > 0))),
    prefix: withDefault(
      parsed("SVC_REDIS_PREFIX", "1-64 characters of [A-Za-z0-9:_.-]", (raw) => (/^[A-Za-z0-9:_.-]{1,64}$/.test(raw) ? raw : undefined)),
      "svc:"
    ),
    onError: withDefault(
      parsed("SVC_REDIS_ON_ERROR", "local or open", (raw) => {
        const lower = raw.toLowerCase()
        return lower === "local" || lower === "open" ? lower : undefined
      }),
      "local"
    )
  })
})

/** The validated configuration; settings that depend on each other are checked together here. */
export const appConfig: Config.Config<AppConfigShape> = settings.pipe(
  Config.mapOrFail((config) =>
    config.cache.shared && Option.isNone(config.redis.url)
      ? Either.left(ConfigError.InvalidData(["SVC_CACHE"], "SVC_CACHE=redis needs SVC_REDIS_URL (the Redis the replicas share)"))
      : Either.right(config)
  )
)

/** The configuration could not be read: the one message every program prints (one line per problem). */
export class InvalidConfiguration extends Data.TaggedError("InvalidConfiguration")<{ readonly message: string }> {}

export const invalidConfiguration = (error: ConfigError.ConfigError) =>
  new InvalidConfiguration({ message: `invalid configuration:\n${describeConfigError(error)}` })

/** The validated configuration, as every program starts with it (svc serve, svc mcp, the commands). */
export const loadConfig: Effect.Effect<AppConfigShape, InvalidConfiguration> = Effect.mapError(appConfig, invalidConfiguration)

/** Renders a ConfigError for a person: one line per problem, variable first. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "InvalidData":
        lines.push(e.message)
        return
      case "MissingData":
        lines.push(`${e.path.join(".")}: ${e.message}`)
        return
      case "SourceUnavailable":
        lines.push(`${e.path.join(".")}: ${e.message}`)
        return
      case "Unsupported":
        lines.push(`${e.path.join(".")}: ${e.message}`)
        return
    }
  }
  walk(error)
  return Array.from(new Set(lines)).join("\n")
}
