/**
 * The service's whole configuration, read once from the environment (Effect `Config`) and
 * validated at start-up. A malformed value stops the process with a message naming the variable
 * and its accepted form; there is no silent fallback. Secrets are `Redacted`. Every variable is
 * named here; the readers (Config/Settings.ts), the key-list rule (Config/KeyList.ts), the default
 * paths (Config/Paths.ts) and the rendering of a refusal (Config/Describe.ts) live beside it.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { type KeyRole, parseKeyRoles, unknownRoleNames } from "./Config/KeyRoles.js"
import { type AlertSettings, isWebhookUrl, readAlertSettings } from "./Config/Alerts.js"
import { corsOriginValid, isAddressRange } from "./Config/Entries.js"
import { type InvalidConfiguration, invalidConfiguration } from "./Config/Describe.js"
import { type ApiKeyEntry, keyList } from "./Config/KeyList.js"
import { type TelemetrySettings, telemetrySettings } from "./Config/Telemetry.js"
import { bundledPatternsDir, defaultHome, directory } from "./Config/Paths.js"
import {
  choice,
  duration,
  firstSet,
  flag,
  integer,
  list,
  optionalCheckedSecret,
  optionalHttpUrl,
  optionalSecret,
  optionalText,
  setting
} from "./Config/Settings.js"

import { MAX_PATTERNS, MODES, type ModeName } from "./Registry/Modes.js"

export { describeConfigError, InvalidConfiguration, invalidConfiguration } from "./Config/Describe.js"

/** When a run's lenses run for a failure its scope knows (DECISIONS §24). */
export interface ExplainSettings {
  /** SVC_EXPLAIN_EXEMPLARS: a problem's runs explained before its later runs end on their checks. */
  readonly exemplars: number
  /** SVC_EXPLAIN_SAMPLE: the share of a known failure's later runs explained all the same. */
  readonly sample: number
  /** SVC_EXPLAIN_MAX_PER_DAY: a problem's runs explained in one UTC day, at most (new, regressed, version, sampled). */
  readonly maxPerDay: number
}

/** A rate 0-1, as `0.05`. */
const parseRate = (text: string): Option.Option<number> => (/^(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/.test(text) ? Option.some(Number(text)) : Option.none())
export { type ApiKeyEntry, MIN_KEY_LENGTH, parseKeyList } from "./Config/KeyList.js"
export { parseDuration } from "./Config/Settings.js"

export type ProviderName = "anthropic" | "openai" | "local"

/**
 * SVC_OTLP_DIAGNOSE (DECISIONS §18): `failed` queues the traces that failed, `all` every trace,
 * `sample` the failures and a share `rate` of the rest (by a hash of the trace id).
 */
export type OtlpDiagnose =
  | { readonly _tag: "failed" }
  | { readonly _tag: "all" }
  | { readonly _tag: "sample"; readonly rate: number }

const parseOtlpDiagnose = (text: string): Option.Option<OtlpDiagnose> => {
  if (text === "failed" || text === "all") return Option.some({ _tag: text })
  const rate = /^sample:(0(?:\.\d+)?|1(?:\.0+)?)$/.exec(text)?.[1]
  return rate === undefined ? Option.none() : Option.some({ _tag: "sample", rate: Number(rate) })
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
   * ranges); a request from another peer is attributed to its socket address.
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
  /** Redaction of trace content before anything keeps or sends it (DECISIONS §20). */
  readonly redact: {
    /** SVC_REDACT: `secrets` (default), `secrets,pii`, or `off` (none). */
    readonly classes: ReadonlyArray<"secrets" | "pii">
    /** SVC_REDACT_KEY: the root of the placeholders' keyed hashes; unset: generated once and kept (Redis, else SVC_HOME). */
    readonly key: Option.Option<Redacted.Redacted<string>>
    /** SVC_REDACT_RULES: a file of the operator's own named patterns. */
    readonly rulesFile: Option.Option<string>
  }
  /** The checks (DECISIONS §23). */
  readonly checks: {
    /** SVC_CHECKS_FILE: JSON or YAML turning checks off per scope, setting thresholds and tools' expected errors (src/Checks/Settings.ts). */
    readonly file: Option.Option<string>
  }
  /** Runs diagnosed in the background (DECISIONS §17), kept in SQLite at SVC_HOME/svc.db. */
  readonly runs: {
    /** SVC_WORKERS: workers `svc serve` runs (0: the runs API only, nothing diagnosed). */
    readonly workers: number
    /** SVC_RUN_LEASE_SECONDS: how long a worker's claim on a run holds without renewal. */
    readonly leaseSeconds: number
    /** SVC_RETENTION_DAYS: finished runs are removed this many days after they finished. */
    readonly retentionDays: number
    /** SVC_DAILY_TOKEN_BUDGET: the tokens a scope's runs may spend per UTC day; none: unlimited. */
    readonly dailyTokenBudget: Option.Option<number>
    /** SVC_RUN_MODE: the mode of a run whose submission names none (OTLP runs name none; DECISIONS §24). */
    readonly mode: ModeName
    /** SVC_RUN_MAX_PATTERNS: the lenses a run's explanation runs at most when its submission names none. */
    readonly maxPatterns: number
    /** Explanations per problem (DECISIONS §24). */
    readonly explain: ExplainSettings
    /** SVC_DATABASE_URL: `postgres://` or `postgresql://`, the store the replicas share; none: SQLite in SVC_HOME. A secret. */
    readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
    /** SVC_DATABASE_POOL: connections to PostgreSQL, per process. */
    readonly pool: number
    /** SVC_DATABASE_STATEMENT_TIMEOUT: a statement running longer is cancelled by PostgreSQL. */
    readonly statementTimeout: Duration.Duration
  }
  /** OTLP in (DECISIONS §18): spans kept per trace until it completes, then a run. */
  readonly otlp: {
    /** SVC_OTLP_DIAGNOSE: which complete traces are queued; the others are runs `skipped`. */
    readonly diagnose: OtlpDiagnose
    /** SVC_OTLP_QUIET_SECONDS: a trace whose root ended is complete after this long without a span. */
    readonly quietSeconds: number
    /** SVC_OTLP_MAX_AGE_SECONDS: a trace is complete this long after its first span, whatever came. */
    readonly maxAgeSeconds: number
    /** SVC_OTLP_RATE_LIMIT: spans (and log records) accepted per second per scope; none: off. */
    readonly rateLimit: Option.Option<number>
    /** SVC_OTLP_MAX_SPANS_PER_TRACE: spans kept per pending trace; past it they are refused in `partialSuccess`. */
    readonly maxSpansPerTrace: number
    /** SVC_OTLP_PENDING_BYTES_PER_SCOPE: bytes of pending spans one scope may hold; past it 429. */
    readonly pendingBytesPerScope: number
    /** SVC_OTLP_PENDING_BYTES: bytes of pending spans all scopes may hold; past it 429. */
    readonly pendingBytes: number
  }
  /** The service's own spans and the verdicts sent back over OTLP (DECISIONS §21; Config/Telemetry.ts). */
  readonly telemetry: TelemetrySettings
  /** Problems' alerts (DECISIONS §19): webhooks per scope, their signing secret, the alerting severity, links. */
  readonly alerts: AlertSettings
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

/** SVC_REDACT: `off` (or `none`), `secrets`, `pii`, or both comma-separated (`secrets,pii`); `pii` alone keeps secrets redacted too. */
export const parseRedact = (raw: string): Option.Option<ReadonlyArray<"secrets" | "pii">> => {
  const words = raw.toLowerCase().split(",").map((word) => word.trim()).filter((word) => word.length > 0)
  if (words.length === 0) return Option.some(["secrets"])
  if (words.length === 1 && (words[0] === "off" || words[0] === "none")) return Option.some([])
  if (words.length === 0 || !words.every((word) => word === "secrets" || word === "pii")) return Option.none()
  return Option.some(words.includes("pii") ? ["secrets", "pii"] : ["secrets"])
}

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

/** A URL of one of `protocols` (`redis:`, …) that names a host. */
const isUrlOf = (...protocols: ReadonlyArray<string>) => (text: string): boolean => {
  try {
    const url = new URL(text)
    return protocols.includes(url.protocol) && url.hostname.length > 0
  } catch {
    return false
  }
}
const isRedisUrl = isUrlOf("redis:", "rediss:")
const isPostgresUrl = isUrlOf("postgres:", "postgresql:")

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

/** SVC_API_MAX_BODY_BYTES: the service's body limit, and what the CLI reads of a trace before sending it. */
export const DEFAULT_MAX_BODY_BYTES = 5 * MiB

const maxBodyBytes = integer("SVC_API_MAX_BODY_BYTES", "an integer number of bytes >= 1024", { min: 1024, max: 2 ** 40 }).pipe(
  Config.withDefault(DEFAULT_MAX_BODY_BYTES)
)

/**
 * The settings of a caller of the service, read here with the service's own: `svc` against a URL,
 * the in-process commands and `svc mcp` over stdio.
 */
export const callerSettings = {
  /** SVC_API_KEY: the key the caller presents (none: Option.none()). */
  apiKey: Config.option(Config.redacted("SVC_API_KEY")),
  /** Whether SVC_LOG_LEVEL was set (the commands log errors only unless asked for more). */
  logLevelSet: Config.map(Config.option(Config.string("SVC_LOG_LEVEL")), Option.isSome),
  maxBodyBytes
} as const

const positiveInteger = (name: string, max: number) => integer(name, "a positive integer", { min: 1, max })

const listenHost = setting("SVC_HOST", "a host name or IP address", Option.liftPredicate((text: string) => /^[A-Za-z0-9.:[\]-]+$/.test(text))).pipe(
  Config.withDefault("127.0.0.1")
)
const listenPort = integer("SVC_PORT", "an integer port 0-65535", { min: 0, max: 65_535 }).pipe(Config.withDefault(8000))

const settings: Config.Config<AppConfigShape> = Config.all({
  host: listenHost,
  port: listenPort,
  home: directory("SVC_HOME", { expandHome: true }).pipe(Config.withDefault(defaultHome)),
  patternsDir: directory("SVC_PATTERNS_DIR").pipe(Config.withDefault(bundledPatternsDir(import.meta.dirname))),
  logLevel: choice(
    "SVC_LOG_LEVEL",
    "one of trace, debug, info, warning, error, fatal, none",
    ["trace", "debug", "info", "warning", "error", "fatal", "none"],
    { warn: "warning" }
  ).pipe(Config.withDefault("info")),
  auth: Config.all({
    keys: keyList("SVC_API_KEYS"),
    keysFile: optionalText("SVC_API_KEYS_FILE"),
    required: flag("SVC_API_REQUIRE_AUTH").pipe(Config.withDefault(false)),
    roles: Config.string("SVC_API_KEY_ROLES").pipe(
      Config.withDefault(""),
      Config.mapOrFail((raw) => {
        const roles = parseKeyRoles(raw)
        return typeof roles === "string"
          ? Either.left(ConfigError.InvalidData(["SVC_API_KEY_ROLES"], `SVC_API_KEY_ROLES ${roles} (name=role[@scope], roles ingest, read, admin)`))
          : Either.right(roles)
      })
    )
  }).pipe(
    // with a key file, its names are known once it is read: Auth/ApiKeys.ts checks them there
    Config.mapOrFail((auth) => {
      const unknown = Option.isNone(auth.keysFile) ? unknownRoleNames(auth.roles, new Set(auth.keys.map((key) => key.name)), "SVC_API_KEYS") : undefined
      return unknown === undefined ? Either.right(auth) : Either.left(ConfigError.InvalidData(["SVC_API_KEY_ROLES"], unknown))
    })
  ),
  rateLimit: setting(
    "SVC_API_RATE_LIMIT",
    "N/S (N requests per S seconds), N (per 60 s) or off",
    (text) => Option.fromNullable(parseRateLimit(text))
  ).pipe(Config.withDefault(Option.none())),
  rateLimitMaxBuckets: integer("SVC_API_RATE_LIMIT_MAX_BUCKETS", "an integer 100-10000000", { min: 100, max: 10_000_000 }).pipe(
    Config.withDefault(10_000)
  ),
  trustedProxies: integer("SVC_TRUSTED_PROXIES", "an integer 0-10 (proxy hops)", { min: 0, max: 10 }).pipe(Config.withDefault(1)),
  trustedProxyAddresses: list(
    "SVC_TRUSTED_PROXY_ADDRESSES",
    "IP addresses or CIDR ranges separated by commas (10.0.0.0/8,::1), or none",
    { valid: isAddressRange, noneWord: "none" }
  ).pipe(Config.withDefault(DEFAULT_TRUSTED_PROXY_ADDRESSES)),
  allowedHosts: list("SVC_ALLOWED_HOSTS", "host names separated by commas (svc.example.com,10.0.0.5), or *", {
    normalize: (entry) => entry.toLowerCase().replace(/\.$/, ""),
    valid: (entry) => entry === "*" || /^(\[[0-9a-f:.]+\]|[a-z0-9.-]{1,253})$/.test(entry)
  }).pipe(Config.withDefault([])),
  server: Config.all({
    headersTimeout: duration("SVC_HTTP_HEADERS_TIMEOUT", { examples: "10, 10s, 1500ms" }).pipe(Config.withDefault(Duration.seconds(10))),
    requestTimeout: duration("SVC_HTTP_BODY_TIMEOUT", { examples: "60, 60s, 2m" }).pipe(Config.withDefault(Duration.seconds(60))),
    idleTimeout: duration("SVC_HTTP_IDLE_TIMEOUT", { examples: "5, 5s, 1500ms" }).pipe(Config.withDefault(Duration.seconds(5))),
    maxConnections: integer("SVC_HTTP_MAX_CONNECTIONS", "an integer 16-1000000", { min: 16, max: 1_000_000 }).pipe(
      Config.withDefault(16_384)
    )
  }),
  mcp: Config.all({
    maxBatch: integer("SVC_MCP_MAX_BATCH", "an integer 1-1000", { min: 1, max: 1000 }).pipe(Config.withDefault(32))
  }),
  corsOrigins: list(
    "SVC_CORS_ORIGINS",
    "origins separated by commas (https://app.example.com,http://localhost:5173), * or empty",
    { normalize: (entry) => entry.replace(/\/+$/, ""), valid: corsOriginValid }
  ).pipe(Config.withDefault([])),
  limits: Config.all({
    maxBodyBytes,
    maxTraceSteps: positiveInteger("SVC_API_MAX_TRACE_STEPS", 10_000_000).pipe(Config.withDefault(5000)),
    maxMessages: positiveInteger("SVC_API_MAX_MESSAGES", 10_000_000).pipe(Config.withDefault(5000)),
    maxStringChars: positiveInteger("SVC_API_MAX_STRING_CHARS", 2 ** 40).pipe(Config.withDefault(200_000)),
    maxTotalChars: positiveInteger("SVC_API_MAX_TOTAL_CHARS", 2 ** 40).pipe(Config.withDefault(1_000_000)),
    requestTimeout: duration("SVC_API_REQUEST_TIMEOUT", { examples: "120, 120s, 1500ms, 2m" }).pipe(
      Config.withDefault(Duration.seconds(120))
    ),
    maxDepth: integer("SVC_API_MAX_DEPTH", "an integer 2-10000", { min: 2, max: 10_000 }).pipe(Config.withDefault(DEFAULT_MAX_DEPTH)),
    maxKeys: positiveInteger("SVC_API_MAX_KEYS", 100_000_000).pipe(Config.withDefault(DEFAULT_MAX_KEYS)),
    maxInflightBytes: integer("SVC_API_MAX_INFLIGHT_BYTES", "an integer number of bytes >= 1048576", { min: MiB, max: 2 ** 40 }).pipe(
      Config.withDefault(256 * MiB)
    )
  }),
  cache: Config.all({
    backend: choice("SVC_CACHE", "memory, redis or off", ["memory", "redis", "off"], { none: "off", "": "off" }).pipe(
      Config.withDefault("off")
    ),
    capacity: positiveInteger("SVC_CACHE_CAPACITY", 100_000_000).pipe(Config.withDefault(1024)),
    ttl: Config.option(duration("SVC_CACHE_TTL_SECONDS")),
    scope: choice("SVC_CACHE_SCOPE", "key or global", ["key", "global"]).pipe(Config.withDefault("key"))
  }).pipe(Config.map(({ backend, ...cache }) => ({ ...cache, enabled: backend !== "off", shared: backend === "redis" }))),
  lifecycle: Config.all({
    drainDelay: duration("SVC_DRAIN_DELAY_SECONDS", { orZero: true }).pipe(Config.withDefault(Duration.seconds(5))),
    shutdownGrace: duration("SVC_SHUTDOWN_GRACE_SECONDS", { orZero: true }).pipe(Config.withDefault(Duration.seconds(20)))
  }),
  providers: Config.all({
    forced: Config.option(choice("SVC_LLM_PROVIDER", "one of anthropic, openai, local", ["anthropic", "openai", "local"])),
    defaultModel: optionalText("SVC_MODEL"),
    anthropicKey: firstSet(optionalSecret("ANTHROPIC_API_KEY"), optionalSecret("PROVIDER_A_API_KEY")),
    anthropicBaseUrl: optionalHttpUrl("ANTHROPIC_BASE_URL"),
    openaiKey: firstSet(optionalSecret("OPENAI_API_KEY"), optionalSecret("PROVIDER_B_API_KEY")),
    openaiBaseUrl: optionalHttpUrl("OPENAI_BASE_URL"),
    localHost: firstSet(optionalHttpUrl("LOCAL_MODEL_HOST"), optionalHttpUrl("OLLAMA_HOST"))
  }),
  errorReporting: Config.all({
    dsn: optionalSecret("ERROR_REPORTING_DSN"),
    environment: optionalText("ERROR_REPORTING_ENVIRONMENT")
  }),
  redact: Config.all({
    classes: setting("SVC_REDACT", "secrets, secrets,pii or off", parseRedact).pipe(Config.withDefault<ReadonlyArray<"secrets" | "pii">>(["secrets"])),
    key: optionalSecret("SVC_REDACT_KEY"),
    rulesFile: optionalText("SVC_REDACT_RULES")
  }),
  checks: Config.all({ file: optionalText("SVC_CHECKS_FILE") }),
  runs: Config.all({
    workers: integer("SVC_WORKERS", "an integer 0-64", { min: 0, max: 64 }).pipe(Config.withDefault(2)),
    leaseSeconds: integer("SVC_RUN_LEASE_SECONDS", "an integer number of seconds 5-3600", { min: 5, max: 3600 }).pipe(Config.withDefault(60)),
    retentionDays: integer("SVC_RETENTION_DAYS", "an integer number of days 1-36500", { min: 1, max: 36_500 }).pipe(Config.withDefault(30)),
    dailyTokenBudget: Config.option(positiveInteger("SVC_DAILY_TOKEN_BUDGET", 2 ** 50)),
    mode: choice("SVC_RUN_MODE", MODES.map((mode) => mode.name).join(", "), MODES.map((mode) => mode.name)).pipe(Config.withDefault<ModeName>("quick")),
    maxPatterns: integer("SVC_RUN_MAX_PATTERNS", `an integer 1-${MAX_PATTERNS}`, { min: 1, max: MAX_PATTERNS }).pipe(Config.withDefault(3)),
    explain: Config.all({
      exemplars: integer("SVC_EXPLAIN_EXEMPLARS", "an integer 0-100", { min: 0, max: 100 }).pipe(Config.withDefault(3)),
      sample: setting("SVC_EXPLAIN_SAMPLE", "a rate 0-1", parseRate).pipe(Config.withDefault(0.05)),
      maxPerDay: integer("SVC_EXPLAIN_MAX_PER_DAY", "an integer 0-100000", { min: 0, max: 100_000 }).pipe(Config.withDefault(20))
    }),
    databaseUrl: optionalCheckedSecret("SVC_DATABASE_URL", "a postgres:// or postgresql:// URL (unset: SQLite in SVC_HOME/svc.db)", isPostgresUrl),
    pool: integer("SVC_DATABASE_POOL", "an integer 1-1000", { min: 1, max: 1000 }).pipe(Config.withDefault(10)),
    statementTimeout: duration("SVC_DATABASE_STATEMENT_TIMEOUT", { examples: "30, 30s, 1500ms" }).pipe(Config.withDefault(Duration.seconds(30)))
  }),
  otlp: Config.all({
    diagnose: setting("SVC_OTLP_DIAGNOSE", "failed, all or sample:<rate> with a rate 0-1", parseOtlpDiagnose).pipe(
      Config.withDefault<OtlpDiagnose>({ _tag: "failed" })
    ),
    quietSeconds: integer("SVC_OTLP_QUIET_SECONDS", "an integer number of seconds 1-86400", { min: 1, max: 86_400 }).pipe(Config.withDefault(30)),
    maxAgeSeconds: integer("SVC_OTLP_MAX_AGE_SECONDS", "an integer number of seconds 1-604800", { min: 1, max: 604_800 }).pipe(Config.withDefault(600)),
    rateLimit: setting("SVC_OTLP_RATE_LIMIT", "a positive integer (spans per second per scope) or off", (text) =>
      text === "off" ? Option.some(Option.none<number>()) : /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 1e9 ? Option.some(Option.some(Number(text))) : Option.none()
    ).pipe(Config.withDefault(Option.some(20_000))),
    maxSpansPerTrace: integer("SVC_OTLP_MAX_SPANS_PER_TRACE", "an integer 1-1000000", { min: 1, max: 1_000_000 }).pipe(Config.withDefault(10_000)),
    pendingBytesPerScope: integer("SVC_OTLP_PENDING_BYTES_PER_SCOPE", "an integer number of bytes >= 1024", { min: 1024, max: 2 ** 40 }).pipe(
      Config.withDefault(64 * MiB)
    ),
    pendingBytes: integer("SVC_OTLP_PENDING_BYTES", "an integer number of bytes >= 1024", { min: 1024, max: 2 ** 40 }).pipe(Config.withDefault(256 * MiB))
  }),
  telemetry: telemetrySettings,
  alerts: Config.all({
    webhooksFile: optionalText("SVC_ALERT_WEBHOOKS_FILE"),
    webhooks: list("SVC_ALERT_WEBHOOKS", "http(s) URLs separated by commas", { valid: isWebhookUrl }).pipe(Config.withDefault<ReadonlyArray<string>>([])),
    secret: optionalSecret("SVC_ALERT_SECRET"),
    minSeverity: optionalText("SVC_ALERT_MIN_SEVERITY"),
    publicUrl: optionalHttpUrl("SVC_PUBLIC_URL"),
    // webhooks may not call this service itself (Config/Alerts.ts)
    listener: Config.all({ host: listenHost, port: listenPort })
  }).pipe(
    Config.mapOrFail((raw) => Either.mapLeft(readAlertSettings(raw), (refused) => ConfigError.InvalidData([refused.name], refused.message)))
  ),
  redis: Config.all({
    url: optionalCheckedSecret("SVC_REDIS_URL", "a redis:// or rediss:// URL", isRedisUrl),
    prefix: setting("SVC_REDIS_PREFIX", "1-64 characters of [A-Za-z0-9:_.-]", Option.liftPredicate((text: string) => /^[A-Za-z0-9:_.-]{1,64}$/.test(text))).pipe(
      Config.withDefault("svc:")
    ),
    onError: choice("SVC_REDIS_ON_ERROR", "local or open", ["local", "open"]).pipe(Config.withDefault("local"))
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

/** The validated configuration, as every program starts with it (svc serve, svc mcp, the commands). */
export const loadConfig: Effect.Effect<AppConfigShape, InvalidConfiguration> = Effect.mapError(appConfig, invalidConfiguration)
