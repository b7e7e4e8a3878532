/**
 * The telemetry settings (DECISIONS §21, src/Config/Telemetry.ts): the OpenTelemetry SDK's
 * variables read and checked through Config like every other setting, the signal's own variable
 * winning over the general one, headers kept secret, and refusals that name the variable.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { appConfig, describeConfigError } from "../../src/Config.js"
import { parseKeyValues } from "../../src/Config/Telemetry.js"

const load = (env: Record<string, string>) =>
  Effect.runSync(Effect.either(appConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
const telemetry = (env: Record<string, string>) => Either.getOrThrow(load(env)).telemetry
const refused = (env: Record<string, string>) => {
  const result = load(env)
  if (Either.isRight(result)) return expect.fail(`accepted ${JSON.stringify(env)}`)
  return describeConfigError(result.left)
}

describe("telemetry settings", () => {
  it("nothing set: no spans, no verdicts, the documented defaults", () => {
    const settings = telemetry({})
    expect(Option.isNone(settings.traces)).toBe(true)
    expect(Option.isNone(settings.evaluation)).toBe(true)
    expect(settings.serviceName).toBe("pattern-analysis-service")
    expect(settings.captureContent).toBe(false)
    expect(settings.sampler).toEqual({ kind: "always_on", parentBased: true, ratio: 1 })
    expect(settings.batch).toEqual({ scheduleDelayMs: 5000, exportTimeoutMs: 30_000, maxQueueSize: 2048, maxExportBatchSize: 512 })
  })

  it("the general endpoint gets /v1/traces; the signal's own endpoint, protocol, headers and timeout win", () => {
    const general = telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/" })
    expect(Option.getOrThrow(general.traces)).toMatchObject({ url: "http://collector:4318/v1/traces", protocol: "http/protobuf", timeoutMs: 10_000 })
    const specific = Option.getOrThrow(telemetry({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://tempo.example/otlp/v1/traces",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "HTTP/JSON",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Basic%20abc,x-tenant=a",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "X-Tenant=b",
      OTEL_EXPORTER_OTLP_TIMEOUT: "2000",
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "3000"
    }).traces)
    expect(specific.url).toBe("https://tempo.example/otlp/v1/traces")
    expect(specific.protocol).toBe("http/json")
    expect(specific.timeoutMs).toBe(3000)
    expect(specific.headers.map(([name, value]) => [name, Redacted.value(value)])).toEqual([["authorization", "Basic abc"], ["x-tenant", "b"]])
    // headers are secrets: their values never print
    expect(String(specific.headers[0]?.[1])).not.toContain("abc")
  })

  it("OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn spans off; names, resource, sampler and content capture are read", () => {
    expect(Option.isNone(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }).traces)).toBe(true)
    expect(Option.isNone(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }).traces)).toBe(true)
    const settings = telemetry({
      OTEL_RESOURCE_ATTRIBUTES: "service.name=from-resource,deployment.environment.name=prod%2Deu",
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0.25",
      SVC_OTEL_CAPTURE_CONTENT: "true"
    })
    expect(settings.serviceName).toBe("from-resource")
    expect(settings.resourceAttributes).toEqual([["deployment.environment.name", "prod-eu"]])
    expect(settings.sampler).toEqual({ kind: "traceidratio", parentBased: true, ratio: 0.25 })
    expect(settings.captureContent).toBe(true)
    // OTEL_SERVICE_NAME wins over the resource's, as the specification says
    expect(telemetry({ OTEL_SERVICE_NAME: "svc-a", OTEL_RESOURCE_ATTRIBUTES: "service.name=svc-b" }).serviceName).toBe("svc-a")
  })

  it("the evaluation endpoint: used as given, its own headers and protocol (protobuf by default)", () => {
    const target = Option.getOrThrow(telemetry({ SVC_EVALUATION_ENDPOINT: "http://loki:3100/otlp/v1/logs", SVC_EVALUATION_HEADERS: "x-scope-orgid=t1" }).evaluation)
    expect(target).toMatchObject({ url: "http://loki:3100/otlp/v1/logs", protocol: "http/protobuf" })
    expect(target.headers.map(([name, value]) => [name, Redacted.value(value)])).toEqual([["x-scope-orgid", "t1"]])
    expect(Option.getOrThrow(telemetry({ SVC_EVALUATION_ENDPOINT: "http://c:4318/v1/logs", SVC_EVALUATION_PROTOCOL: "http/json" }).evaluation).protocol).toBe("http/json")
  })

  it("refuses what it cannot use, naming the variable, never showing a header's value", () => {
    expect(refused({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toContain("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported")
    expect(refused({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "collector:4317" })).toContain("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL")
    expect(refused({ SVC_EVALUATION_ENDPOINT: "ftp://x/v1/logs" })).toContain("SVC_EVALUATION_ENDPOINT must be an http(s) URL")
    const headers = refused({ OTEL_EXPORTER_OTLP_HEADERS: "authorization Bearer top-secret-9" })
    expect(headers).toContain("OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs")
    expect(headers).not.toContain("top-secret-9")
    expect(refused({ SVC_EVALUATION_HEADERS: "x=%E0%A4%A" })).not.toContain("%E0")
    expect(refused({ OTEL_TRACES_SAMPLER: "sometimes" })).toContain("OTEL_TRACES_SAMPLER must be always_on")
    expect(refused({ OTEL_TRACES_SAMPLER_ARG: "1.5" })).toContain("OTEL_TRACES_SAMPLER_ARG must be a ratio 0-1")
    expect(refused({ OTEL_EXPORTER_OTLP_TIMEOUT: "0" })).toContain("OTEL_EXPORTER_OTLP_TIMEOUT must be an integer number of milliseconds")
    expect(refused({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "4096" })).toContain("must not exceed OTEL_BSP_MAX_QUEUE_SIZE")
    expect(refused({ SVC_OTEL_CAPTURE_CONTENT: "maybe" })).toContain("SVC_OTEL_CAPTURE_CONTENT must be true or false")
  })

  it("reads name=value lists as the specification writes them", () => {
    expect(parseKeyValues("a=1, b = two%20words ,,c=")).toEqual([["a", "1"], ["b", "two words"], ["c", ""]])
    expect(parseKeyValues("=x")).toBeUndefined()
    expect(parseKeyValues("a b=1")).toBeUndefined()
    expect(parseKeyValues("a=%ZZ")).toBeUndefined()
  })
})
