/**
 * Optional error reporting (SEED §6, DECISIONS §10). With ERROR_REPORTING_DSN set, 5xx responses
 * are sent through the Sentry Node SDK when the optional `@sentry/node` package is installed
 * (loaded with a dynamic import, kept out of the bundle); without it, one info line and nothing
 * else. Events carry the error kind, status, request id, pattern and mode: never trace content,
 * request bodies or keys (the SDK's default integrations, which would read requests, are off).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../Config.js"

export interface ErrorEvent {
  readonly kind: string
  readonly status: number
  readonly message: string
  readonly requestId: string
  readonly pattern: string | null
  readonly mode: string | null
}

export interface ErrorReportingShape {
  readonly enabled: boolean
  readonly report: (event: ErrorEvent) => Effect.Effect<void>
}

export class ErrorReporting extends Context.Tag("ErrorReporting")<ErrorReporting, ErrorReportingShape>() {}

/** The part of the Sentry SDK the service uses. */
interface SentryLike {
  readonly init: (options: Record<string, unknown>) => unknown
  readonly captureMessage: (message: string, context: Record<string, unknown>) => unknown
  readonly flush: (timeout: number) => Promise<boolean>
}

const isSentryLike = (u: unknown): u is SentryLike =>
  Predicate.hasProperty(u, "init") && Predicate.isFunction(u.init) &&
  Predicate.hasProperty(u, "captureMessage") && Predicate.isFunction(u.captureMessage) &&
  Predicate.hasProperty(u, "flush") && Predicate.isFunction(u.flush)

export const SENTRY_MODULE = "@sentry/node"

/** Loads the optional SDK; the specifier is a variable so bundlers leave it alone. */
export const importOptional = (specifier: string): Promise<unknown> => import(specifier)

const disabled: ErrorReportingShape = { enabled: false, report: () => Effect.void }

export const makeErrorReporting = (
  dsn: Option.Option<Redacted.Redacted<string>>,
  environment: Option.Option<string>,
  load: (specifier: string) => Promise<unknown> = importOptional
) =>
  Effect.gen(function*() {
    if (Option.isNone(dsn)) return disabled
    const loaded = yield* Effect.tryPromise(() => load(SENTRY_MODULE)).pipe(Effect.option)
    const sdk = Option.filter(loaded, isSentryLike)
    if (Option.isNone(sdk)) {
      yield* Effect.logInfo(`error reporting is off: ERROR_REPORTING_DSN is set but ${SENTRY_MODULE} is not installed`)
      return disabled
    }
    const sentry = sdk.value
    yield* Effect.sync(() =>
      sentry.init({
        dsn: Redacted.value(dsn.value),
        environment: Option.getOrUndefined(environment),
        defaultIntegrations: false,
        skipOpenTelemetrySetup: true,
        sendDefaultPii: false,
        tracesSampleRate: 0
      })
    )
    yield* Effect.addFinalizer(() => Effect.promise(() => sentry.flush(2000)).pipe(Effect.asVoid))
    yield* Effect.logInfo("error reporting is on")
    return {
      enabled: true,
      report: (event: ErrorEvent) =>
        Effect.sync(() => {
          sentry.captureMessage(`${event.kind}: ${event.message}`, {
            level: "error",
            tags: {
              kind: event.kind,
              status: String(event.status),
              request_id: event.requestId,
              pattern: event.pattern ?? "none",
              mode: event.mode ?? "none"
            }
          })
        })
    } satisfies ErrorReportingShape
  })

export const ErrorReportingLive = Layer.scoped(
  ErrorReporting,
  Effect.flatMap(AppConfig, (config) => makeErrorReporting(config.errorReporting.dsn, config.errorReporting.environment))
)
