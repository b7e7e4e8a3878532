/**
 * Alerts (DECISIONS §19): webhook calls for problems and failed runs, written to the outbox in the
 * transaction that finishes a run (Store/Problems.ts) and delivered here, by `svc serve` only.
 * - Each call is a POST of JSON with a Slack-compatible `text`, `X-Svc-Delivery: <id>` (the same id
 *   on every attempt: receivers deduplicate by it) and `X-Svc-Signature: t=<unix seconds>,v1=<hex
 *   HMAC-SHA256 of "<t>.<body>">` under SVC_ALERT_SECRET (two `v1=` while a secret is rotated).
 * - At least once: a row is delivered, tried again with backoff (30 s doubling, up to 6 h; 12
 *   attempts), or given up, and a deliverer that dies mid-call leaves its rows to the next once its
 *   lease lapses. Redirects are not followed (a 3xx is a failed attempt), each call is cut at 10 s
 *   (the fiber's deadline), and nothing waits on delivery: runs and ingest only write the outbox.
 * - Fair to every scope: calls start as soon as a slot is free, the scopes' rows in turn, at most
 *   PER_SCOPE calls of a scope in flight, so one scope's slow or dead receivers delay no other scope.
 * - URLs are logged as their origin only (their path often holds a token).
 * The same outbox carries a run's verdicts to SVC_EVALUATION_ENDPOINT (DECISIONS §21, `run.evaluation`
 * rows): OTLP logs in the endpoint's encoding with its headers, not signed, retried the same way.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { createHmac, randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { SHARED, scopeTokenOf } from "../Auth/Scopes.js"
import { AppConfig, type AppConfigShape } from "../Config.js"
import { OPEN_SCOPE, shownUrl } from "../Config/Alerts.js"
import { Readiness } from "../Lifecycle/Readiness.js"
import { reportBackgroundError } from "../Observability/Background.js"
import { countAlertDelivery, countEvaluationDelivery } from "../Observability/Metrics.js"
import { logsJsonAsProtobuf } from "../Otlp/Wire/Logs.js"
import { type ExportTarget, revealHeaders } from "../Config/Telemetry.js"
import { type AlertPolicy, AlertRoutes, type DeliveryStream, type DueDelivery, type ProblemStoreShape } from "../Store/Problems.js"
import { RunStoreAccess } from "../Store/RunStoreAccess.js"

/** The signature header of a body sent at `seconds` (unix), one `v1=` per secret. */
export const signatureOf = (secrets: ReadonlyArray<Redacted.Redacted<string>>, seconds: number, body: string): string =>
  [`t=${seconds}`, ...secrets.map((secret) => `v1=${createHmac("sha256", Redacted.value(secret)).update(`${seconds}.${body}`).digest("hex")}`)].join(",")

/** Where each scope's alerts go, from the settings (scope names → the store's scope tokens). */
export const alertPolicyOf = (config: AppConfigShape): AlertPolicy => {
  const { alerts } = config
  const byToken = new Map<string, ReadonlyArray<string>>()
  for (const [name, urls] of alerts.webhooks) byToken.set(name === OPEN_SCOPE ? scopeTokenOf(SHARED) : scopeTokenOf({ _tag: "Key", name }), urls)
  return {
    minSeverity: alerts.minSeverity,
    webhooksOf: (scope) => byToken.get(scope) ?? [],
    // SVC_PUBLIC_URL is read without a trailing slash (Config/Settings.ts optionalHttpUrl)
    linkOf: (path) => Option.match(alerts.publicUrl, { onNone: () => null, onSome: (base) => `${base}${path}` })
  }
}

export const AlertRoutesLive = Layer.effect(AlertRoutes, Effect.map(AppConfig, alertPolicyOf))

/** Why a call failed, as an operator reads it: the system's code (ECONNREFUSED, ENOTFOUND) when fetch names one, never the URL. */
const failureOf = (error: unknown): string => {
  const cause = error instanceof Error ? error.cause : undefined
  const code = cause instanceof Error && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  return code ?? (error instanceof Error ? error.name : "error")
}

/** Attempts before a delivery is given up. */
export const MAX_ATTEMPTS = 12
const FIRST_BACKOFF_MS = 30_000
const MAX_BACKOFF_MS = 6 * 3_600_000
/** The wait before attempt `attempts + 1`. */
export const deliveryBackoff = (attempts: number): number => Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, attempts - 1))

export interface DeliveryOptions {
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
  readonly timeoutMs: number
  readonly owner: string
  /** SVC_EVALUATION_*: how a run's verdicts are sent (unset since they were written: OTLP/JSON, no headers). */
  readonly evaluation?: ExportTarget | undefined
}

/**
 * What one delivery sends: an alert is signed JSON; a run's verdicts (`run.evaluation`, DECISIONS
 * §21) are an OTLP logs request in the evaluation endpoint's encoding, with its headers.
 */
const requestOf = (options: DeliveryOptions, delivery: DueDelivery, seconds: number) =>
  Effect.gen(function*() {
    if (delivery.event !== "run.evaluation") {
      return {
        headers: {
          "content-type": "application/json",
          "user-agent": "pattern-analysis-service-alerts",
          "x-svc-delivery": delivery.id,
          "x-svc-signature": signatureOf(options.secrets, seconds, delivery.body)
        },
        body: delivery.body
      }
    }
    const target = options.evaluation
    const headers = { ...(target === undefined ? {} : revealHeaders(target)), "user-agent": "pattern-analysis-service-evaluations" }
    if (target?.protocol !== "http/protobuf") return { headers: { ...headers, "content-type": "application/json" }, body: delivery.body }
    return { headers: { ...headers, "content-type": "application/x-protobuf" }, body: yield* logsJsonAsProtobuf(delivery.body) }
  })

/** One attempt at one delivery: its outcome recorded (delivered, again later, or given up). */
export const deliverOnce = (store: ProblemStoreShape, options: DeliveryOptions, delivery: DueDelivery) =>
  Effect.gen(function*() {
    const seconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const request = yield* Effect.either(requestOf(options, delivery, seconds))
    if (Either.isLeft(request)) {
      // a row no attempt can send (written by another version?): given up at once
      yield* store.recordAttempt(delivery.id, options.owner, yield* Clock.currentTimeMillis, { delivered: false, status: null, error: request.left, nextAt: null })
      countEvaluationDelivery("failed")
      return yield* Effect.logWarning("verdicts export given up: the outbox row cannot be sent").pipe(Effect.annotateLogs({ delivery: delivery.id, error: request.left }))
    }
    const sent = request.right
    // The deadline is the fiber's (Effect.timeout, on Clock): its timer is held by the runtime. An
    // AbortSignal.timeout given to fetch was collected with its signal (Node 20 drops the timer of
    // a signal nothing holds), and a receiver that never answered held the call about 5 minutes.
    // Interrupted at the deadline, the call's own signal (tryPromise's) aborts the request.
    const attempt = yield* Effect.tryPromise({
      try: (signal) =>
        fetch(delivery.url, { method: "POST", redirect: "manual", signal, headers: sent.headers, body: sent.body }).then(async (response) => {
          // the body is not read past what closes the connection cleanly
          await response.body?.cancel().catch(() => undefined)
          return response.status
        }),
      catch: failureOf
    }).pipe(Effect.timeoutFail({ duration: Duration.millis(options.timeoutMs), onTimeout: () => "timed out" }), Effect.either)
    const now = yield* Clock.currentTimeMillis
    const status = attempt._tag === "Right" ? attempt.right : null
    const delivered = status !== null && status >= 200 && status < 300
    const attempts = delivery.attempts + 1
    const error = delivered
      ? null
      : attempt._tag === "Left"
      ? attempt.left
      : status !== null && status >= 300 && status < 400
      ? `redirect (${status}) not followed`
      : `HTTP ${status ?? "?"}`
    const nextAt = delivered || attempts >= MAX_ATTEMPTS ? null : now + deliveryBackoff(attempts)
    yield* store.recordAttempt(delivery.id, options.owner, now, { delivered, status, error, nextAt })
    const evaluation = delivery.event === "run.evaluation"
    ;(evaluation ? countEvaluationDelivery : countAlertDelivery)(delivered ? "delivered" : nextAt === null ? "failed" : "retry")
    if (!delivered) {
      const what = evaluation ? "verdicts export" : "alert delivery"
      yield* Effect.logWarning(nextAt === null ? `${what} given up` : `${what} failed; trying again later`).pipe(
        Effect.annotateLogs({ delivery: delivery.id, url: shownUrl(delivery.url), attempts, error: error ?? "" })
      )
    }
  })

/** Calls in flight at once, per deliverer of a stream. */
const BATCH = 16
/** Calls in flight at once for one scope (all deliverers): a scope's hanging receivers hold these, never another scope's. */
export const PER_SCOPE = 4
const LEASE_MS = 60_000

/**
 * A deliverer of one stream (or all): each `round` claims as many due rows as it has calls free
 * (BATCH), the scopes in turn and PER_SCOPE calls in flight a scope at most (the store counts every
 * deliverer's), and starts their calls without waiting for them, so a call that hangs holds its own
 * slot until its timeout, never the next round or another scope's rows; how many it started.
 * `idle` waits for a call to end or a second, whichever comes first; `settled`, for every call.
 * Its calls are interrupted when its scope closes (their rows' leases lapse: sent again).
 */
export const makeDeliverer = (store: ProblemStoreShape, options: DeliveryOptions, stream?: DeliveryStream) =>
  Effect.gen(function*() {
    const calls = yield* FiberSet.make<void>()
    const inFlight = yield* Ref.make(0)
    const ended = yield* Queue.sliding<void>(1)
    const call = (delivery: DueDelivery) =>
      deliverOnce(store, options, delivery).pipe(
        // one call's store failure or defect ends that call only (its row is sent again once its lease lapses)
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause) ? Effect.interrupt : reportBackgroundError("outbox", "an outbox delivery failed", cause, { delivery: delivery.id })
        ),
        Effect.ensuring(Effect.zipRight(Ref.update(inFlight, (count) => count - 1), Queue.offer(ended, undefined)))
      )
    const round = Effect.gen(function*() {
      const free = BATCH - (yield* Ref.get(inFlight))
      if (free <= 0) return 0
      const due = yield* store.claimDeliveries(options.owner, yield* Clock.currentTimeMillis, LEASE_MS, free, stream, PER_SCOPE)
      yield* Ref.update(inFlight, (count) => count + due.length)
      for (const delivery of due) yield* FiberSet.run(calls, call(delivery))
      return due.length
    })
    return {
      round,
      idle: Effect.asVoid(Effect.raceFirst(Effect.sleep(Duration.seconds(1)), Queue.take(ended))),
      settled: FiberSet.awaitEmpty(calls)
    }
  })

/** One round, waited for: the due deliveries (of one stream, or all) taken and attempted; how many. */
export const deliveryRound = (store: ProblemStoreShape, options: DeliveryOptions, stream?: DeliveryStream) =>
  Effect.scoped(Effect.gen(function*() {
    const deliverer = yield* makeDeliverer(store, options, stream)
    const taken = yield* deliverer.round
    yield* deliverer.settled
    return taken
  }))

/**
 * The deliverer of `svc serve`, when any webhook or the evaluation endpoint is configured: per
 * stream, a round when a call ends or a second passed (at once again after a full batch).
 */
export const AlertDeliveryLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const { alerts, auth, telemetry } = yield* AppConfig
    if (alerts.webhooks.size === 0 && Option.isNone(telemetry.evaluation)) return
    if (auth.required && alerts.webhooks.has(OPEN_SCOPE)) {
      yield* Effect.logWarning(
        "SVC_ALERT_WEBHOOKS names the webhooks of the service without keys; with keys each scope's webhooks are lines <scope>=<url> of SVC_ALERT_WEBHOOKS_FILE (docs/problems.md)"
      )
    }
    const access = yield* RunStoreAccess
    const readiness = yield* Readiness
    const options: DeliveryOptions = {
      secrets: alerts.secrets,
      timeoutMs: 10_000,
      owner: `${hostname()}-${process.pid}-${randomBytes(4).toString("hex")}`,
      evaluation: Option.getOrUndefined(telemetry.evaluation)
    }
    const loop = Effect.gen(function*() {
      // the store as the workers take it: once something opened it, or at once when it exists
      const store = (yield* access.exists) ? yield* access.problems.pipe(Effect.retry(Schedule.spaced(Duration.seconds(5)))) : yield* Effect.zipRight(access.whenOpen, access.problems)
      // SQLite is one process's: a delivery in flight in it is a dead process's, sent again now (at
      // least once); PostgreSQL's may be another replica's, alive: a dead one's lease lapses
      const runs = yield* access.store
      if (!runs.shared) {
        const released = yield* store.releaseDeliveries
        if (released > 0) yield* Effect.logWarning("alert deliveries a previous process had in flight are sent again").pipe(Effect.annotateLogs({ deliveries: released }))
      }
      // each stream its own loop: a slow or hanging receiver (10 s a call) holds up only its own
      // rows, and within a stream only its scope's (makeDeliverer)
      const deliver = (stream: DeliveryStream) =>
        Effect.scoped(Effect.flatMap(makeDeliverer(store, options, stream), (deliverer) =>
        Effect.forever(
          Effect.gen(function*() {
            if ((yield* readiness.current) !== "ready") return yield* Effect.sleep(Duration.seconds(1))
            // a store failure or a defect ends the round, never the loop: logged with its cause and counted
            const taken = yield* deliverer.round.pipe(
              Effect.catchAllCause((cause) =>
                Cause.isInterruptedOnly(cause)
                  ? Effect.interrupt
                  : Effect.as(reportBackgroundError("outbox", `${stream === "alerts" ? "alert deliveries" : "verdicts exports"}: the round failed`, cause), 0)
              )
            )
            if (taken < BATCH) yield* deliverer.idle
          })
        )))
      yield* Effect.all([deliver("alerts"), deliver("evaluations")], { concurrency: 2, discard: true })
    })
    yield* loop.pipe(
      Effect.tapErrorCause((cause) => Effect.logWarning("alert deliveries stopped; starting again", cause)),
      Effect.retry(Schedule.spaced(Duration.seconds(5))),
      Effect.forkScoped
    )
  })
)
