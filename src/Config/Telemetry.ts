/**
 * The service's own telemetry (DECISIONS §21), read from the OpenTelemetry SDK's standard
 * variables (the OpenTelemetry specification's "Environment Variable Specification" and "OTLP
 * Exporter Configuration") and ours:
 * - OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as given) or OTEL_EXPORTER_OTLP_ENDPOINT (`v1/traces`
 *   appended): where spans go; neither set, no span is made. OTEL_SDK_DISABLED=true or
 *   OTEL_TRACES_EXPORTER=none turn it off too.
 * - OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: `http/protobuf` (default) or `http/json`; `grpc` is
 *   refused (OTLP/HTTP only: a Collector's port 4318).
 * - OTEL_EXPORTER_OTLP_[TRACES_]HEADERS: `name=value,…`, values percent-decoded; secrets.
 * - OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT: milliseconds per export (default 10000).
 * - OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES (`name=value,…`, percent-decoded).
 * - OTEL_TRACES_SAMPLER (always_on, always_off, traceidratio, parentbased_always_on (default),
 *   parentbased_always_off, parentbased_traceidratio) and OTEL_TRACES_SAMPLER_ARG (a ratio 0-1).
 * - OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_EXPORT_TIMEOUT (milliseconds), OTEL_BSP_MAX_QUEUE_SIZE,
 *   OTEL_BSP_MAX_EXPORT_BATCH_SIZE: the batch span processor.
 * - SVC_OTEL_CAPTURE_CONTENT: trace content (prompts, model answers, failure messages) on spans.
 * - SVC_EVALUATION_ENDPOINT (an OTLP/HTTP logs URL, used as given), SVC_EVALUATION_HEADERS,
 *   SVC_EVALUATION_PROTOCOL: where verdicts go as `gen_ai.evaluation.result` log records.
 * The signal-specific variable wins over the general one, as the specification says.
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { isWebhookUrl } from "./Alerts.js"
import { choice, flag, integer, optionalSetting, optionalText } from "./Settings.js"

export type OtlpProtocol = "http/protobuf" | "http/json"

/** One OTLP/HTTP destination: the full URL of its signal's path, the encoding, headers (secrets), a timeout. */
export interface ExportTarget {
  readonly url: string
  readonly protocol: OtlpProtocol
  readonly headers: ReadonlyArray<readonly [string, Redacted.Redacted<string>]>
  readonly timeoutMs: number
}

export type SamplerKind = "always_on" | "always_off" | "traceidratio"

export interface TelemetrySettings {
  /** Where the service's spans go; none: no span is made anywhere (the hot path holds no tracing code). */
  readonly traces: Option.Option<ExportTarget>
  /** `service.name` of the spans, and the name the OTLP receiver knows its own spans by. */
  readonly serviceName: string
  /** OTEL_RESOURCE_ATTRIBUTES, `service.name` left to `serviceName`. */
  readonly resourceAttributes: ReadonlyArray<readonly [string, string]>
  readonly sampler: { readonly kind: SamplerKind; readonly parentBased: boolean; readonly ratio: number }
  readonly batch: {
    readonly scheduleDelayMs: number
    readonly exportTimeoutMs: number
    readonly maxQueueSize: number
    readonly maxExportBatchSize: number
  }
  /** SVC_OTEL_CAPTURE_CONTENT: prompts, answers and failure messages on spans (default false). */
  readonly captureContent: boolean
  /** Where verdicts of OTLP runs go as log records; none: nowhere. */
  readonly evaluation: Option.Option<ExportTarget>
}

export const DEFAULT_SERVICE_NAME = "pattern-analysis-service"

const PROTOCOLS = "http/protobuf or http/json (grpc is not supported: use the OTLP/HTTP port of a Collector, 4318)"

const parseProtocol = (name: string) =>
  optionalSetting(name, PROTOCOLS, (text) => {
    const lower = text.toLowerCase()
    return lower === "http/protobuf" || lower === "http/json" ? Option.some<OtlpProtocol>(lower) : Option.none()
  })

/** An http(s) URL naming a host, used as given; unset or blank: none. */
const endpoint = (name: string) => optionalSetting(name, "an http(s) URL", Option.liftPredicate(isWebhookUrl))

/** `name=value,…` with percent-encoded values (the W3C Baggage form the specification uses); undefined: malformed. */
export const parseKeyValues = (text: string): Array<readonly [string, string]> | undefined => {
  const pairs: Array<readonly [string, string]> = []
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue
    const at = entry.indexOf("=")
    if (at <= 0) return undefined
    const name = entry.slice(0, at).trim()
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return undefined
    try {
      pairs.push([name, decodeURIComponent(entry.slice(at + 1).trim())])
    } catch {
      return undefined
    }
  }
  return pairs
}

/** Headers: secrets, so a malformed value is refused without showing it. */
const headers = (name: string) =>
  Config.option(Config.redacted(name)).pipe(
    Config.mapOrFail((raw) => {
      if (Option.isNone(raw)) return Either.right(Option.none<ReadonlyArray<readonly [string, Redacted.Redacted<string>]>>())
      const pairs = parseKeyValues(Redacted.value(raw.value))
      return pairs === undefined
        ? Either.left(ConfigError.InvalidData([name], `${name} must be name=value pairs separated by commas, values percent-encoded (the value is not shown)`))
        : Either.right(Option.some(pairs.map(([key, value]) => [key.toLowerCase(), Redacted.make(value)] as const)))
    })
  )

const milliseconds = (name: string) => integer(name, "an integer number of milliseconds 1-600000", { min: 1, max: 600_000 })

const SAMPLERS = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"] as const

const ratio = optionalSetting("OTEL_TRACES_SAMPLER_ARG", "a ratio 0-1", (text) => {
  const value = Number(text)
  return /^\d*\.?\d+$/.test(text) && value >= 0 && value <= 1 ? Option.some(value) : Option.none()
}).pipe(Config.map(Option.getOrElse(() => 1)))

const withV1Path = (base: string, signal: string): string => `${base.replace(/\/+$/, "")}/v1/${signal}`

export const telemetrySettings: Config.Config<TelemetrySettings> = Config.all({
  disabled: flag("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporter: choice("OTEL_TRACES_EXPORTER", "otlp or none", ["otlp", "none"]).pipe(Config.withDefault("otlp")),
  endpoint: endpoint("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  protocol: parseProtocol("OTEL_EXPORTER_OTLP_PROTOCOL"),
  tracesProtocol: parseProtocol("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
  headers: headers("OTEL_EXPORTER_OTLP_HEADERS"),
  tracesHeaders: headers("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
  timeout: Config.option(milliseconds("OTEL_EXPORTER_OTLP_TIMEOUT")),
  tracesTimeout: Config.option(milliseconds("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT")),
  serviceName: optionalText("OTEL_SERVICE_NAME"),
  resource: optionalSetting("OTEL_RESOURCE_ATTRIBUTES", "name=value pairs separated by commas, values percent-encoded", (text) => Option.fromNullable(parseKeyValues(text))).pipe(
    Config.map(Option.getOrElse((): ReadonlyArray<readonly [string, string]> => []))
  ),
  sampler: choice("OTEL_TRACES_SAMPLER", SAMPLERS.join(", "), SAMPLERS).pipe(Config.withDefault("parentbased_always_on")),
  ratio,
  scheduleDelayMs: milliseconds("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5000)),
  exportTimeoutMs: milliseconds("OTEL_BSP_EXPORT_TIMEOUT").pipe(Config.withDefault(30_000)),
  maxQueueSize: integer("OTEL_BSP_MAX_QUEUE_SIZE", "an integer 1-1000000", { min: 1, max: 1_000_000 }).pipe(Config.withDefault(2048)),
  maxExportBatchSize: integer("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "an integer 1-1000000", { min: 1, max: 1_000_000 }).pipe(Config.withDefault(512)),
  captureContent: flag("SVC_OTEL_CAPTURE_CONTENT").pipe(Config.withDefault(false)),
  evaluationEndpoint: endpoint("SVC_EVALUATION_ENDPOINT"),
  evaluationHeaders: headers("SVC_EVALUATION_HEADERS"),
  evaluationProtocol: parseProtocol("SVC_EVALUATION_PROTOCOL")
}).pipe(
  Config.mapOrFail((raw) => {
    if (raw.maxExportBatchSize > raw.maxQueueSize) {
      return Either.left(ConfigError.InvalidData(["OTEL_BSP_MAX_EXPORT_BATCH_SIZE"], "OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not exceed OTEL_BSP_MAX_QUEUE_SIZE"))
    }
    const url = Option.orElse(raw.tracesEndpoint, () => Option.map(raw.endpoint, (base) => withV1Path(base, "traces")))
    const on = !raw.disabled && raw.exporter === "otlp"
    const traces = Option.filter(url, () => on).pipe(Option.map((target): ExportTarget => ({
      url: target,
      protocol: Option.getOrElse(Option.orElse(raw.tracesProtocol, () => raw.protocol), () => "http/protobuf" as const),
      // the signal's own headers win over the general ones of the same name
      headers: mergeHeaders(Option.getOrElse(raw.headers, () => []), Option.getOrElse(raw.tracesHeaders, () => [])),
      timeoutMs: Option.getOrElse(Option.orElse(raw.tracesTimeout, () => raw.timeout), () => 10_000)
    })))
    const named = raw.resource.find(([key]) => key === "service.name")?.[1]
    const [kind, parentBased] = samplerOf(raw.sampler)
    return Either.right<TelemetrySettings>({
      traces,
      serviceName: Option.getOrElse(raw.serviceName, () => named ?? DEFAULT_SERVICE_NAME),
      resourceAttributes: raw.resource.filter(([key]) => key !== "service.name"),
      sampler: { kind, parentBased, ratio: raw.ratio },
      batch: {
        scheduleDelayMs: raw.scheduleDelayMs,
        exportTimeoutMs: raw.exportTimeoutMs,
        maxQueueSize: raw.maxQueueSize,
        maxExportBatchSize: raw.maxExportBatchSize
      },
      captureContent: raw.captureContent,
      evaluation: Option.map(raw.evaluationEndpoint, (target): ExportTarget => ({
        url: target,
        protocol: Option.getOrElse(raw.evaluationProtocol, () => "http/protobuf" as const),
        headers: Option.getOrElse(raw.evaluationHeaders, () => []),
        timeoutMs: 10_000
      }))
    })
  })
)

const mergeHeaders = (
  general: ReadonlyArray<readonly [string, Redacted.Redacted<string>]>,
  specific: ReadonlyArray<readonly [string, Redacted.Redacted<string>]>
) => [...general.filter(([name]) => !specific.some(([other]) => other === name)), ...specific]

const samplerOf = (name: typeof SAMPLERS[number]): readonly [SamplerKind, boolean] => {
  switch (name) {
    case "always_on":
    case "always_off":
    case "traceidratio":
      return [name, false]
    case "parentbased_always_on":
      return ["always_on", true]
    case "parentbased_always_off":
      return ["always_off", true]
    case "parentbased_traceidratio":
      return ["traceidratio", true]
  }
}

/** The headers of a target as a plain record (for a request), values revealed only here. */
export const revealHeaders = (target: ExportTarget): Record<string, string> =>
  Object.fromEntries(target.headers.map(([name, value]) => [name, Redacted.value(value)]))
