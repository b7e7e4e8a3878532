/**
 * Alerts (DECISIONS §19), end to end on the embedded store: the real service on a loopback port
 * with its workers and deliverer, the model provider replaced by the loopback double, and webhook
 * receivers of our own (loopback node:http servers) that check each call's signature on their own
 * (node:crypto, not the service's code) and deduplicate by `X-Svc-Delivery`.
 * - The signature against a published known-answer vector (docs/problems.md), both ways.
 * - A high finding's new problem → one signed `problem.new` (Slack-compatible `text`, the
 *   problem, a link under SVC_PUBLIC_URL), signed with both secrets while rotating; the same
 *   failure again sends nothing; `GET /v1/alerts/deliveries` shows the call (the URL's origin, never
 *   its path), delivered or failed with the receiver's status.
 * - A failed attempt is tried again after the backoff with the same delivery id, and given up after
 *   the last attempt; a dead deliverer's lease lapses (the deliverer over the real store, on
 *   TestClock: the backoff is 30 s, too long to wait for live).
 * - Receivers that are down, slow or redirect never delay runs; a redirect is not followed.
 * - Webhooks per scope (a shared scope a role names, or the key's own), and `run.failed`.
 * - Refusals at start: webhooks without a secret, a short secret, a bad line in the webhooks file.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema, TestClock } from "effect"
import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { join } from "node:path"
import { AlertDeliveryList } from "../../src/Contract/ProblemsContract.js"
import { deliveryBackoff, deliveryRound, type DeliveryOptions, MAX_ATTEMPTS, signatureOf } from "../../src/Alerts/Delivery.js"
import type { AlertPolicy } from "../../src/Store/Problems.js"
import { useProviderDouble } from "../support/Harness.js"
import { freePort, listenLoopback } from "../support/Net.js"
import { verifySignature } from "./support.js"
import { metricTotal } from "../otlp/support.js"
import { openStores } from "../support/RunStore.js"
import { type RunningService, startService } from "../support/Service.js"
import { call, chatTrace, decoded, freshHome, quotingEvents, sleep, submitOne, waitForRun } from "../runs/support.js"

// ---------------------------------------------------------------------------------------------
// The receiver's side, written independently of src/: how a webhook receiver checks a call.
// ---------------------------------------------------------------------------------------------

/** The known-answer vector docs/problems.md publishes (the same secret, time, body and hex). */
const VECTOR_SECRET = "whsec_test_0123456789abcdef0123456789abcdef"
const VECTOR_T = 1767225600
const VECTOR_BODY = `{"id":"dlv_example","event":"problem.new","text":"New problem (high): example"}`
/** HMAC-SHA256 (hex) of `1767225600.<VECTOR_BODY>` under VECTOR_SECRET; docs/problems.md publishes the same vector. */
const KNOWN_ANSWER = "fbc87e6bf29a0f6d5b28b9eecf6f0ad094437cf694791676bcc59e09e01ef1dc"

interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

/** How a receiver answers its n-th request (from 0). */
type Answer =
  | { readonly kind: "status"; readonly status: number }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "delay"; readonly ms: number; readonly status: number }

interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  answer: (index: number) => Answer
  readonly close: () => Promise<void>
}

const OK: Answer = { kind: "status", status: 200 }

/** A loopback webhook receiver recording every request, answering as `answer` says. */
const startReceiver = async (answer: (index: number) => Answer = () => OK): Promise<Receiver> => {
  const received: Array<Received> = []
  const timers = new Set<NodeJS.Timeout>()
  const receiver: { answer: (index: number) => Answer } = { answer }
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const index = received.length
      received.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() })
      const reply = receiver.answer(index)
      switch (reply.kind) {
        case "status":
          response.writeHead(reply.status, { "content-type": "text/plain" }).end("ok")
          return
        case "redirect":
          response.writeHead(302, { location: reply.location }).end()
          return
        case "delay": {
          const timer = setTimeout(() => {
            timers.delete(timer)
            if (!response.destroyed) response.writeHead(reply.status).end("late")
          }, reply.ms)
          timers.add(timer)
        }
      }
    })
  })
  const url = await listenLoopback(server)
  return {
    url,
    received,
    get answer() {
      return receiver.answer
    },
    set answer(next) {
      receiver.answer = next
    },
    close: () => {
      for (const timer of timers) clearTimeout(timer)
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** The n-th request a receiver got (it must have). */
const nth = (receiver: Receiver, index: number): Received => {
  const request = receiver.received[index]
  if (request === undefined) throw new Error(`the receiver got ${receiver.received.length} requests, not ${index + 1}`)
  return request
}

const headerOf = (received: Received, name: string): string => {
  const value = received.headers[name]
  return typeof value === "string" ? value : ""
}

/** The distinct calls a receiver got, deduplicated by `X-Svc-Delivery` as a receiver should. */
const distinctDeliveries = (receiver: Receiver): Array<Received> => {
  const seen = new Map<string, Received>()
  for (const request of receiver.received) {
    const id = headerOf(request, "x-svc-delivery")
    if (!seen.has(id)) seen.set(id, request)
  }
  return Array.from(seen.values())
}

/** The JSON of an alert call. */
const AlertBody = Schema.Struct({
  id: Schema.String,
  event: Schema.Literal("problem.new", "problem.severity", "problem.regressed", "run.failed"),
  text: Schema.String,
  created_at: Schema.String,
  problem: Schema.optional(Schema.Struct({ id: Schema.String, title: Schema.String, severity: Schema.String, status: Schema.String, url: Schema.NullOr(Schema.String) })),
  run: Schema.optional(
    Schema.Struct({ id: Schema.String, url: Schema.NullOr(Schema.String), error: Schema.optional(Schema.Struct({ error: Schema.String, message: Schema.String })) })
  )
})
const alertOf = (received: Received) => Schema.decodeUnknownSync(AlertBody)(JSON.parse(received.body))

const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

// ---------------------------------------------------------------------------------------------

const SECRET = "alerts-secret-0123456789abcdef-0123456789"
const NEXT_SECRET = "alerts-next-secret-abcdefghijklmnopqrstuvwxyz"
const WRONG_SECRET = "alerts-wrong-secret-0123456789abcdef-012345"

describe("the signature", () => {
  it("the receiver's check accepts the known-answer vector, refuses a changed body, secret or stale time", () => {
    const header = `t=${VECTOR_T},v1=${KNOWN_ANSWER}`
    expect(verifySignature(header, VECTOR_BODY, VECTOR_SECRET, VECTOR_T, 300)).toBe(true)
    expect(verifySignature(header, VECTOR_BODY, VECTOR_SECRET, VECTOR_T + 300, 300)).toBe(true)
    expect(verifySignature(header, VECTOR_BODY, VECTOR_SECRET, VECTOR_T + 301, 300)).toBe(false)
    expect(verifySignature(header, `${VECTOR_BODY} `, VECTOR_SECRET, VECTOR_T, 300)).toBe(false)
    expect(verifySignature(header, VECTOR_BODY, WRONG_SECRET, VECTOR_T, 300)).toBe(false)
    expect(verifySignature(`t=${VECTOR_T + 1},v1=${KNOWN_ANSWER}`, VECTOR_BODY, VECTOR_SECRET, VECTOR_T, 300)).toBe(false)
    // any of several v1= values (a rotation), in any order
    expect(verifySignature(`t=${VECTOR_T},v1=${"0".repeat(64)},v1=${KNOWN_ANSWER}`, VECTOR_BODY, VECTOR_SECRET, VECTOR_T, 300)).toBe(true)
    expect(verifySignature(`t=${VECTOR_T},v1=${"0".repeat(64)}`, VECTOR_BODY, VECTOR_SECRET, VECTOR_T, 300)).toBe(false)
  })

  it("signatureOf produces exactly the known answer, and one v1= per secret while rotating", () => {
    expect(signatureOf([Redacted.make(VECTOR_SECRET)], VECTOR_T, VECTOR_BODY)).toBe(`t=${VECTOR_T},v1=${KNOWN_ANSWER}`)
    const rotating = signatureOf([Redacted.make(WRONG_SECRET), Redacted.make(VECTOR_SECRET)], VECTOR_T, VECTOR_BODY)
    expect(rotating).toMatch(new RegExp(`^t=${VECTOR_T},v1=[0-9a-f]{64},v1=${KNOWN_ANSWER}$`))
    expect(verifySignature(rotating, VECTOR_BODY, VECTOR_SECRET, VECTOR_T, 0)).toBe(true)
    expect(verifySignature(rotating, VECTOR_BODY, WRONG_SECRET, VECTOR_T, 0)).toBe(true)
  })
})

const harness = useProviderDouble()
const provider = () => ({ ANTHROPIC_API_KEY: "sk-ant-alerts-0123456789", ANTHROPIC_BASE_URL: harness.double.url, SVC_CACHE: "off" })
const contentsOf = (marker: string) => chatTrace(marker).messages.map((message) => message.content)
/** Each lens's finding quotes messages 2 and 4 (the first 30 characters: the same for every marker). */
const quoting = (severity = "high") => quotingEvents(contentsOf("any"), [2, 4], severity)

const receivers: Array<Receiver> = []
const receiverFor = async (answer?: (index: number) => Answer) => {
  const receiver = await startReceiver(answer)
  receivers.push(receiver)
  return receiver
}
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()))
})

/** A run of `marker`'s trace with these lenses, ended done (as `key`). */
const doneRun = async (service: RunningService, marker: string, options: { readonly key?: string; readonly patterns?: ReadonlyArray<string> } = {}) => {
  harness.double.script = quoting()
  const keyed = options.key === undefined ? {} : { key: options.key }
  const id = await submitOne(service, { trace: chatTrace(marker), mode: "quick", patterns: options.patterns ?? ["lewin"] }, keyed)
  const run = await waitForRun(service, id, keyed)
  expect(run.status, JSON.stringify(run.error)).toBe("done")
  return run
}

const deliveriesOf = async (service: RunningService, key?: string) =>
  (await decoded(await call(service, "GET", "/v1/alerts/deliveries", key === undefined ? {} : { key }), 200, AlertDeliveryList)).deliveries

describe("alerts of a service without auth (SVC_ALERT_WEBHOOKS)", () => {
  let service: RunningService
  let fine: Receiver
  let flaky: Receiver
  const finePath = "/hooks/T000/B000/fine-token-5f3a9c"
  const flakyPath = "/hooks/T000/B000/flaky-token-77aa01"
  beforeAll(async () => {
    fine = await receiverFor()
    // the first attempt fails (500): the deliverer must try again later with the same id
    flaky = await receiverFor((index) => (index === 0 ? { kind: "status", status: 500 } : OK))
    service = await harness.start({
      ...provider(),
      SVC_WORKERS: "2",
      SVC_HOME: freshHome("alerts-open"),
      SVC_ALERT_WEBHOOKS: `${fine.url}${finePath},${flaky.url}${flakyPath}`,
      // rotating: each call is signed with both
      SVC_ALERT_SECRET: `${SECRET},${NEXT_SECRET}`,
      SVC_ALERT_MIN_SEVERITY: "high",
      SVC_PUBLIC_URL: "https://svc.example.test/"
    })
  })

  let problemId = ""
  it("a high finding's new problem: one signed problem.new per webhook, with a Slack-compatible text and the problem", async () => {
    const run = await doneRun(service, "open-1")
    const [ref] = run.problems ?? []
    problemId = ref?.id ?? ""
    expect(problemId).not.toBe("")
    await until("both receivers called", () => fine.received.length >= 1 && flaky.received.length >= 1)
    const request = nth(fine, 0)
    expect(request.method).toBe("POST")
    expect(request.path).toBe(finePath)
    expect(headerOf(request, "content-type")).toContain("application/json")
    const signature = headerOf(request, "x-svc-signature")
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/)
    expect(verifySignature(signature, request.body, SECRET, nowSeconds(), 300)).toBe(true)
    expect(verifySignature(signature, request.body, NEXT_SECRET, nowSeconds(), 300)).toBe(true)
    expect(verifySignature(signature, request.body, WRONG_SECRET, nowSeconds(), 300)).toBe(false)
    expect(verifySignature(signature, request.body.replace("problem.new", "problem.old"), SECRET, nowSeconds(), 300)).toBe(false)
    const id = headerOf(request, "x-svc-delivery")
    expect(id).toMatch(/^dlv_[0-9a-f]{24}$/)
    const alert = alertOf(request)
    expect(alert).toMatchObject({ id, event: "problem.new", problem: { id: problemId, severity: "high" }, run: { id: run.id, url: `https://svc.example.test/v1/runs/${run.id}` } })
    expect(alert.text).toMatch(/^New problem \(high\): \S/)
    expect(alert.text).toContain(`https://svc.example.test/v1/problems/${problemId}`)
    // the other webhook got its own call of the same event (its own id)
    const other = nth(flaky, 0)
    expect(alertOf(other)).toMatchObject({ event: "problem.new", problem: { id: problemId } })
    expect(headerOf(other, "x-svc-delivery")).not.toBe(id)
  })

  it("the same failure again joins the problem and sends no second problem.new", async () => {
    const again = await doneRun(service, "open-2")
    expect(again.problems?.map((each) => each.id)).toEqual([problemId])
    // The outbox is written in the finish's transaction (src/Store/Problems.ts, DECISIONS §19):
    // once the run is done, every delivery it makes is listed, so the list shows at once that it
    // made none (no wait for rounds of the deliverer that would only prove an absence)
    const rows = await deliveriesOf(service)
    expect(rows.map((row) => [row.event, row.problem_id])).toEqual([["problem.new", problemId], ["problem.new", problemId]])
    expect(fine.received).toHaveLength(1)
    expect(flaky.received).toHaveLength(1)
  })

  it("GET /v1/alerts/deliveries: the webhook's origin only; delivered, or failed with the receiver's status and tried again after the backoff", async () => {
    const rows = await deliveriesOf(service)
    const fineRow = rows.find((row) => row.url.startsWith(fine.url))
    const flakyRow = rows.find((row) => row.url.startsWith(flaky.url))
    for (const row of rows) {
      expect(row.url).not.toContain("token")
      expect(row.url).not.toContain("/hooks")
    }
    expect(fineRow).toMatchObject({ id: headerOf(nth(fine, 0), "x-svc-delivery"), state: "delivered", attempts: 1, last_status: 200, last_error: null })
    expect(fineRow?.delivered_at).not.toBeNull()
    expect(flakyRow).toMatchObject({ state: "pending", attempts: 1, last_status: 500, last_error: "HTTP 500", delivered_at: null })
    const created = Date.parse(flakyRow?.created_at ?? "")
    const next = Date.parse(flakyRow?.next_at ?? "")
    expect(next - created).toBeGreaterThanOrEqual(deliveryBackoff(1) - 1_000)
    expect(next - created).toBeLessThanOrEqual(deliveryBackoff(1) + 5_000)
    // and counted: svc_alert_deliveries_total by outcome
    const metrics = await (await fetch(`${service.url}/metrics`)).text()
    expect(metricTotal(metrics, "svc_alert_deliveries_total", { outcome: "delivered" })).toBeGreaterThanOrEqual(1)
    expect(metricTotal(metrics, "svc_alert_deliveries_total", { outcome: "retry" })).toBeGreaterThanOrEqual(1)
  })
})

describe("the deliverer over the real store (TestClock: the backoff is 30 s)", () => {
  const T0 = VECTOR_T * 1000
  const secrets = [Redacted.make(SECRET)]
  const options: DeliveryOptions = { secrets, timeoutMs: 5_000, owner: "test-deliverer" }
  const withReceiver = (answer: (index: number) => Answer) => Effect.acquireRelease(Effect.promise(() => startReceiver(answer)), (receiver) => Effect.promise(() => receiver.close()))
  const policyTo = (url: string): AlertPolicy => ({ minSeverity: "high", webhooksOf: (scope) => (scope === "shared" ? [url] : []), linkOf: () => null })
  const failed = { error: "analyzer_error", message: "the provider refused the request" }

  it.scoped("a failed attempt is tried again after the backoff with the same X-Svc-Delivery; deduplicated, the receiver has one alert", () =>
    Effect.gen(function*() {
      const receiver = yield* withReceiver((index) => (index === 0 ? { kind: "status", status: 500 } : OK))
      const { problems } = yield* openStores(undefined, policyTo(`${receiver.url}/hook/secret-path`))
      yield* TestClock.setTime(T0)
      yield* problems.failedRun("shared", "run_retry", null, failed, T0)
      expect(yield* deliveryRound(problems, options)).toBe(1)
      const [first] = (yield* problems.deliveries("shared", 10, null)).deliveries
      expect(first).toMatchObject({ state: "pending", attempts: 1, lastStatus: 500, lastError: "HTTP 500", nextAt: T0 + deliveryBackoff(1) })
      // not before the backoff
      yield* TestClock.adjust(deliveryBackoff(1) - 1)
      expect(yield* deliveryRound(problems, options)).toBe(0)
      yield* TestClock.adjust(1)
      expect(yield* deliveryRound(problems, options)).toBe(1)
      expect(receiver.received).toHaveLength(2)
      const ids = receiver.received.map((request) => headerOf(request, "x-svc-delivery"))
      expect(ids[0]).toBe(ids[1])
      expect(distinctDeliveries(receiver)).toHaveLength(1)
      // each attempt signed at its own time, both verify; the body is the same
      expect(nth(receiver, 0).body).toBe(nth(receiver, 1).body)
      for (const [index, request] of receiver.received.entries()) {
        const at = VECTOR_T + (index === 0 ? 0 : deliveryBackoff(1) / 1000)
        expect(headerOf(request, "x-svc-signature")).toMatch(new RegExp(`^t=${at},v1=[0-9a-f]{64}$`))
        expect(verifySignature(headerOf(request, "x-svc-signature"), request.body, SECRET, at, 0)).toBe(true)
      }
      expect(alertOf(nth(receiver, 0))).toMatchObject({ id: ids[0], event: "run.failed", run: { id: "run_retry", error: failed } })
      const [done] = (yield* problems.deliveries("shared", 10, null)).deliveries
      expect(done).toMatchObject({ state: "delivered", attempts: 2, lastStatus: 200, lastError: null, deliveredAt: T0 + deliveryBackoff(1) })
      // delivered: never again
      yield* TestClock.adjust(24 * 3_600_000)
      expect(yield* deliveryRound(problems, options)).toBe(0)
    }))

  it.scoped("a receiver that keeps failing: the backoff doubles and the delivery is given up after the last attempt", () =>
    Effect.gen(function*() {
      const receiver = yield* withReceiver(() => ({ kind: "status", status: 503 }))
      const { problems } = yield* openStores(undefined, policyTo(receiver.url))
      yield* TestClock.setTime(T0)
      yield* problems.failedRun("shared", "run_give_up", null, failed, T0)
      for (let attempts = 0; attempts < MAX_ATTEMPTS; attempts++) {
        if (attempts > 0) yield* TestClock.adjust(deliveryBackoff(attempts))
        expect(yield* deliveryRound(problems, options), `attempt ${attempts + 1}`).toBe(1)
      }
      expect(deliveryBackoff(2)).toBe(2 * deliveryBackoff(1))
      const [row] = (yield* problems.deliveries("shared", 10, null)).deliveries
      expect(row).toMatchObject({ state: "failed", attempts: MAX_ATTEMPTS, lastStatus: 503 })
      yield* TestClock.adjust(7 * 24 * 3_600_000)
      expect(yield* deliveryRound(problems, options)).toBe(0)
      expect(distinctDeliveries(receiver)).toHaveLength(1)
      expect(receiver.received).toHaveLength(MAX_ATTEMPTS)
    }))

  it.scoped("a deliverer that took a row and died: another takes it once the lease lapses, same id", () =>
    Effect.gen(function*() {
      const receiver = yield* withReceiver(() => OK)
      const { problems } = yield* openStores(undefined, policyTo(receiver.url))
      yield* TestClock.setTime(T0)
      yield* problems.failedRun("shared", "run_lease", null, failed, T0)
      const [taken] = yield* problems.claimDeliveries("dead-deliverer", T0, 60_000, 16)
      yield* TestClock.adjust(60_000)
      expect(yield* deliveryRound(problems, options)).toBe(0)
      yield* TestClock.adjust(1)
      expect(yield* deliveryRound(problems, options)).toBe(1)
      expect(receiver.received.map((request) => headerOf(request, "x-svc-delivery"))).toEqual([taken?.id])
      // the dead one's late record is not taken
      yield* problems.recordAttempt(taken?.id ?? "", "dead-deliverer", T0 + 60_002, { delivered: false, status: 500, error: "HTTP 500", nextAt: T0 + 90_000 })
      const [row] = (yield* problems.deliveries("shared", 10, null)).deliveries
      // the dead deliverer's call counts as an attempt (a receiver that hangs still meets the limit)
      expect(row).toMatchObject({ state: "delivered", attempts: 2, lastStatus: 200 })
    }))
})

describe("receivers down, slow or redirecting never delay runs", () => {
  const N = 5
  /** Lenses of one family (step_trace), one per timed run: each run its own problem, so each writes new deliveries. */
  const PATTERNS = ["aar", "bias_stack", "devils_advocate", "grant_strengths", "mcgregor"]
  let plain: RunningService
  let hooked: RunningService
  let slow: Receiver
  let redirecting: Receiver
  let target: Receiver
  let downUrl = ""
  beforeAll(async () => {
    slow = await receiverFor(() => ({ kind: "delay", ms: 20_000, status: 200 }))
    target = await receiverFor()
    redirecting = await receiverFor(() => ({ kind: "redirect", location: `${target.url}/elsewhere` }))
    downUrl = `http://127.0.0.1:${await freePort()}/down`
    plain = await harness.start({ ...provider(), SVC_WORKERS: "2", SVC_HOME: freshHome("alerts-plain") })
    hooked = await harness.start({
      ...provider(),
      SVC_WORKERS: "2",
      SVC_HOME: freshHome("alerts-hooked"),
      SVC_ALERT_WEBHOOKS: `${downUrl},${slow.url}/slow,${redirecting.url}/redirect`,
      SVC_ALERT_SECRET: SECRET
    })
  })

  /** N runs (a lens each) submitted at once, until all are done: the milliseconds taken. */
  const timed = async (service: RunningService, label: string) => {
    harness.double.script = quoting()
    const started = Date.now()
    const ids = await Promise.all(PATTERNS.slice(0, N).map((pattern, i) => submitOne(service, { trace: chatTrace(`${label}-${i}`), mode: "quick", patterns: [pattern] })))
    const runs = await Promise.all(ids.map((id) => waitForRun(service, id)))
    const took = Date.now() - started
    for (const run of runs) expect(run.status).toBe("done")
    return { took, runs }
  }

  it("with a webhook down, one answering after 20 s and one redirecting, runs finish as fast as without webhooks (within 3x + 2 s)", async () => {
    // warm both up; the hooked one's first problem leaves the slow call hanging
    await doneRun(plain, "warm-plain")
    await doneRun(hooked, "warm-hooked")
    await until("the slow receiver to be called", () => slow.received.length >= 1)
    const without = await timed(plain, "plain")
    const withHooks = await timed(hooked, "hooked")
    expect(withHooks.took, `without webhooks ${without.took} ms, with ${withHooks.took} ms`).toBeLessThanOrEqual(3 * without.took + 2_000)
    for (const run of withHooks.runs) expect(run.problems?.length).toBe(1)
    // the slow call is still in flight (the deliverer cuts it at 10 s): the runs did not wait on it
    const rows = await deliveriesOf(hooked)
    const slowRows = rows.filter((row) => row.url.startsWith(slow.url))
    expect(slowRows.length).toBe(N + 1)
    expect(slowRows.some((row) => row.state === "delivering")).toBe(true)
  })

  it("a redirect is a failed attempt, never followed; a closed port is a failed attempt without a status", async () => {
    await until("the redirect and the down webhook tried", async () => {
      const rows = await deliveriesOf(hooked)
      return rows.some((row) => row.url.startsWith(redirecting.url) && row.attempts >= 1) && rows.some((row) => row.url.startsWith(new URL(downUrl).origin) && row.attempts >= 1)
    })
    const rows = await deliveriesOf(hooked)
    const redirected = rows.find((row) => row.url.startsWith(redirecting.url) && row.attempts >= 1)
    expect(redirected).toMatchObject({ state: "pending", last_status: 302 })
    expect(redirected?.last_error).toMatch(/redirect/i)
    const down = rows.find((row) => row.url.startsWith(new URL(downUrl).origin) && row.attempts >= 1)
    expect(down).toMatchObject({ state: "pending", last_status: null })
    expect(down?.last_error).toEqual(expect.any(String))
    expect(redirecting.received.length).toBeGreaterThanOrEqual(1)
    expect(target.received).toHaveLength(0)
  })
})

describe("webhooks per scope (SVC_ALERT_WEBHOOKS_FILE, auth on) and run.failed", () => {
  const ALICE = "alice-key-alerts-0123456789"
  const BOB = "bob-key-alerts-0123456789"
  let service: RunningService
  let team: Receiver
  let bobs: Receiver
  let alicesOwn: Receiver
  beforeAll(async () => {
    team = await receiverFor()
    bobs = await receiverFor()
    alicesOwn = await receiverFor()
    const home = freshHome("alerts-scopes")
    const file = join(home, "webhooks.txt")
    writeFileSync(
      file,
      [
        "# alerts per scope",
        `team=${team.url}/team-hook`,
        "",
        `bob=${bobs.url}/bob-hook`,
        // alice's data scope is `team` (her role names it): her own name's line is not hers
        `alice=${alicesOwn.url}/alice-hook`
      ].join("\n")
    )
    service = await harness.start({
      ...provider(),
      SVC_WORKERS: "2",
      SVC_HOME: home,
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: `alice=${ALICE},bob=${BOB}`,
      SVC_API_KEY_ROLES: "alice=admin@team,bob=admin",
      SVC_ALERT_WEBHOOKS_FILE: file,
      SVC_ALERT_SECRET: SECRET
    })
  })

  it("a problem of the shared scope `team` reaches only its webhook; bob's (his own scope) only his", async () => {
    const alices = await doneRun(service, "scope-team", { key: ALICE })
    await until("team's webhook called", () => team.received.length >= 1)
    const bobsRun = await doneRun(service, "scope-bob", { key: BOB })
    await until("bob's webhook called", () => bobs.received.length >= 1)
    // Not a pause for a second call that should not come: the rows are written with each run's
    // finish, so once both scopes' lists hold their one row delivered, nothing is left to send.
    const delivered = async (key: string) => {
      const rows = await deliveriesOf(service, key)
      return rows.length > 0 && rows.every((row) => row.state === "delivered")
    }
    await until("both deliveries recorded", async () => (await delivered(ALICE)) && (await delivered(BOB)))
    expect(team.received).toHaveLength(1)
    expect(bobs.received).toHaveLength(1)
    expect(alicesOwn.received).toHaveLength(0)
    const toTeam = nth(team, 0)
    const toBob = nth(bobs, 0)
    expect(alertOf(toTeam)).toMatchObject({ event: "problem.new", run: { id: alices.id, url: null }, problem: { id: alices.problems?.[0]?.id } })
    expect(alertOf(toBob)).toMatchObject({ event: "problem.new", run: { id: bobsRun.id }, problem: { id: bobsRun.problems?.[0]?.id } })
    for (const request of [toTeam, toBob]) expect(verifySignature(headerOf(request, "x-svc-signature"), request.body, SECRET, nowSeconds(), 300)).toBe(true)
    // each scope lists its own deliveries
    expect((await deliveriesOf(service, ALICE)).map((row) => [row.event, row.run_id, row.state, row.url])).toEqual([["problem.new", alices.id, "delivered", `${team.url}/…`]])
    expect((await deliveriesOf(service, BOB)).map((row) => [row.event, row.run_id, row.state, row.url])).toEqual([["problem.new", bobsRun.id, "delivered", `${bobs.url}/…`]])
  })

  it("a run whose lenses fail finally (the provider answers 400) sends run.failed to its scope's webhook", async () => {
    harness.double.script = () => ({
      kind: "status",
      status: 400,
      body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "the request is not valid" } })
    })
    const id = await submitOne(service, { trace: chatTrace("scope-failed"), mode: "quick", patterns: ["lewin"] }, { key: ALICE })
    const run = await waitForRun(service, id, { key: ALICE })
    expect(run.status).toBe("failed")
    await until("run.failed delivered", () => team.received.length >= 2)
    const failedCall = nth(team, 1)
    const alert = alertOf(failedCall)
    expect(alert).toMatchObject({ event: "run.failed", run: { id, error: { error: run.error?.error } } })
    expect(alert.text).toMatch(/^Run failed: [a-z_]+/)
    expect(verifySignature(headerOf(failedCall, "x-svc-signature"), failedCall.body, SECRET, nowSeconds(), 300)).toBe(true)
    await until("run.failed listed as delivered", async () => (await deliveriesOf(service, ALICE)).some((row) => row.event === "run.failed" && row.state === "delivered"))
    const row = (await deliveriesOf(service, ALICE)).find((each) => each.event === "run.failed")
    expect(row).toMatchObject({ run_id: id, problem_id: null, attempts: 1, last_status: 200 })
    expect(bobs.received).toHaveLength(1)
    expect(alicesOwn.received).toHaveLength(0)
  })
})

describe("refusals at start", () => {
  const refusedStart = async (env: Record<string, string>): Promise<string> => {
    const outcome = await startService(env).then(
      async (service) => {
        await service.close()
        return "started"
      },
      (error: unknown) => String(error)
    )
    expect(outcome).not.toBe("started")
    return outcome
  }

  it("webhooks without SVC_ALERT_SECRET, a 10-character secret, three secrets: refused naming SVC_ALERT_SECRET", async () => {
    const home = freshHome("alerts-refused")
    const none = await refusedStart({ SVC_HOME: home, SVC_ALERT_WEBHOOKS: "http://127.0.0.1:9/hook" })
    expect(none).toContain("SVC_ALERT_SECRET")
    expect(none).toContain("required")
    const short = await refusedStart({ SVC_HOME: home, SVC_ALERT_WEBHOOKS: "http://127.0.0.1:9/hook", SVC_ALERT_SECRET: "0123456789" })
    expect(short).toContain("SVC_ALERT_SECRET")
    expect(short).toContain("32")
    expect(short).not.toContain("0123456789")
    expect(await refusedStart({ SVC_HOME: home, SVC_ALERT_WEBHOOKS: "http://127.0.0.1:9/hook", SVC_ALERT_SECRET: [SECRET, NEXT_SECRET, WRONG_SECRET].join(",") })).toContain("SVC_ALERT_SECRET")
  })

  it("a webhooks file with a bad line: refused naming SVC_ALERT_WEBHOOKS_FILE and the line", async () => {
    const home = freshHome("alerts-bad-file")
    const file = join(home, "webhooks.txt")
    writeFileSync(file, ["# ok", "team=https://hooks.example.test/a", "this line has no scope", ""].join("\n"))
    const message = await refusedStart({ SVC_HOME: home, SVC_ALERT_WEBHOOKS_FILE: file, SVC_ALERT_SECRET: SECRET })
    expect(message).toContain("SVC_ALERT_WEBHOOKS_FILE")
    expect(message).toContain("line 3")
    writeFileSync(file, "team=ftp://hooks.example.test/a\n")
    expect(await refusedStart({ SVC_HOME: home, SVC_ALERT_WEBHOOKS_FILE: file, SVC_ALERT_SECRET: SECRET })).toContain("SVC_ALERT_WEBHOOKS_FILE")
  })

  it("the real process stops with the message and exit code 1", () => {
    const result = spawnSync(process.execPath, [join(import.meta.dirname, "..", "..", "dist", "server.mjs")], {
      env: { PATH: process.env["PATH"] ?? "", SVC_HOME: freshHome("alerts-refused-process"), SVC_PORT: "0", SVC_ALERT_WEBHOOKS: "http://127.0.0.1:9/hook", SVC_ALERT_SECRET: "s3cr3t-xyz" },
      encoding: "utf8",
      timeout: 20_000
    })
    expect(result.status).toBe(1)
    expect(result.stderr).toContain("SVC_ALERT_SECRET must be")
    expect(result.stderr).not.toContain("s3cr3t-xyz")
  })
})
