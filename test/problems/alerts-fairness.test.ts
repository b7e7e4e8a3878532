/**
 * Alert delivery fair to every scope, each call bounded (issue 47 item 4):
 * - The deliverer (src/Alerts/Delivery.ts makeDeliverer) over the real store on TestClock: a scope
 *   whose receiver never answers holds at most PER_SCOPE calls, and only its own; another scope's
 *   alert, written while they hang, is delivered at the next round; the hanging calls are cut at
 *   their deadline (the fiber's, so TestClock drives it) and recorded as retries, their slots free.
 * - The real service, under forced garbage collection (vitest runs with --expose-gc): the deadline
 *   given to fetch as an AbortSignal.timeout was collected with its signal on Node 20, and a
 *   receiver that never answered held every scope's alerts for about 5 minutes. Here one scope's
 *   receiver never answers; the other scope's alert is delivered before the hanging call's
 *   deadline, and the hanging call is counted as a retry at its 10 s deadline.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted, TestClock } from "effect"
import { writeFileSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { join } from "node:path"
import { AlertDeliveryList } from "../../src/Contract/ProblemsContract.js"
import { deliveryBackoff, type DeliveryOptions, makeDeliverer, PER_SCOPE } from "../../src/Alerts/Delivery.js"
import type { AlertPolicy, DeliveryRecord } from "../../src/Store/Problems.js"
import { metricTotal } from "../otlp/support.js"
import { useProviderDouble } from "../support/Harness.js"
import { listenLoopback } from "../support/Net.js"
import { openStores } from "../support/RunStore.js"
import type { RunningService } from "../support/Service.js"
import { eventually } from "../support/TestTime.js"
import { call, chatTrace, decoded, freshHome, sleep, submitOne, waitForRun } from "../runs/support.js"

const SECRET = "alerts-fairness-secret-0123456789abcdef"

/** A loopback receiver: the requests it got; it answers 200, or never (`answers: false`). */
interface Receiver {
  readonly url: string
  readonly received: Array<string>
  readonly close: () => Promise<void>
}

const startReceiver = async (answers: boolean): Promise<Receiver> => {
  const received: Array<string> = []
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push(Buffer.concat(chunks).toString("utf8"))
      // never answering: the request is read, the response never written
      if (answers) response.writeHead(200, { "content-type": "text/plain" }).end("ok")
    })
  })
  const url = await listenLoopback(server)
  return {
    url,
    received,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

const withReceiver = (answers: boolean) => Effect.acquireRelease(Effect.promise(() => startReceiver(answers)), (receiver) => Effect.promise(() => receiver.close()))

describe("the deliverer, each scope on its own (real store, TestClock)", () => {
  const T0 = Date.UTC(2026, 2, 10, 12)
  const options: DeliveryOptions = { secrets: [Redacted.make(SECRET)], timeoutMs: 10_000, owner: "test-deliverer" }
  const failed = { error: "analyzer_error", message: "the provider refused the request" }

  it.scoped("a receiver that never answers holds PER_SCOPE calls of its own scope only; another scope's alert goes at the next round; the hung calls are retries at their deadline", () =>
    Effect.gen(function*() {
      const dead = yield* withReceiver(false)
      const live = yield* withReceiver(true)
      const policy: AlertPolicy = {
        minSeverity: "high",
        webhooksOf: (scope) => (scope === "key:dead" ? [`${dead.url}/hook`] : scope === "key:live" ? [`${live.url}/hook`] : []),
        linkOf: () => null
      }
      const { problems } = yield* openStores(undefined, policy)
      const rowsOf = (scope: string) => Effect.map(Effect.orDie(problems.deliveries(scope, 100, null)), (page) => page.deliveries)
      const whenRows = (scope: string, what: string, holds: (rows: ReadonlyArray<DeliveryRecord>) => boolean) =>
        eventually(Effect.map(rowsOf(scope), (rows) => (holds(rows) ? Option.some(rows) : Option.none())), what)
      yield* TestClock.setTime(T0)
      for (let i = 0; i < PER_SCOPE + 2; i++) yield* problems.failedRun("key:dead", `dead-${i}`, null, failed, T0)
      const deliverer = yield* makeDeliverer(problems, options, "alerts")

      // the dead scope's first PER_SCOPE calls start (and hang); the round does not wait for them
      expect(yield* deliverer.round).toBe(PER_SCOPE)
      yield* eventually(Effect.sync(() => (dead.received.length === PER_SCOPE ? Option.some(true) : Option.none())), "the hanging calls to arrive")
      // a round while they hang takes none of the dead scope's other rows
      expect(yield* deliverer.round).toBe(0)

      // the live scope's alert, written while they hang, is taken and delivered by the next round
      yield* problems.failedRun("key:live", "live-0", null, failed, T0)
      expect(yield* deliverer.round).toBe(1)
      const [delivered] = yield* whenRows("key:live", "the live scope's alert delivered", (rows) => rows.length === 1 && rows.every((row) => row.state === "delivered"))
      expect(delivered).toMatchObject({ attempts: 1, lastStatus: 200, deliveredAt: T0 })
      expect(live.received).toHaveLength(1)
      // meanwhile the hanging calls are still in flight: their deadline (on the test clock) is not reached
      const hanging = yield* rowsOf("key:dead")
      expect(hanging.filter((row) => row.state === "delivering" && row.attempts === 0)).toHaveLength(PER_SCOPE)
      expect(hanging.filter((row) => row.state === "pending" && row.attempts === 0)).toHaveLength(2)

      // their deadline: each is cut, recorded as a retry after the backoff, and its slot is free again
      yield* TestClock.adjust(options.timeoutMs)
      const retried = yield* whenRows("key:dead", "the hung calls recorded as retries", (rows) => rows.filter((row) => row.attempts === 1).length === PER_SCOPE)
      for (const row of retried.filter((each) => each.attempts === 1)) {
        expect(row).toMatchObject({ state: "pending", lastStatus: null, lastError: "timed out", nextAt: T0 + options.timeoutMs + deliveryBackoff(1) })
      }
      expect(yield* deliverer.round).toBe(2)
      yield* eventually(Effect.sync(() => (dead.received.length === PER_SCOPE + 2 ? Option.some(true) : Option.none())), "the dead scope's last two calls")
    }))
})

describe("a receiver that never answers, under forced garbage collection (the real service)", () => {
  const DEAD = "dead-key-alerts-fairness-0123456789"
  const LIVE = "live-key-alerts-fairness-0123456789"
  const harness = useProviderDouble()
  let service: RunningService
  let dead: Receiver
  let live: Receiver
  beforeAll(async () => {
    dead = await startReceiver(false)
    live = await startReceiver(true)
    const home = freshHome("alerts-fairness")
    const file = join(home, "webhooks.txt")
    writeFileSync(file, [`dead=${dead.url}/dead-hook`, `live=${live.url}/live-hook`].join("\n"))
    service = await harness.start({
      ANTHROPIC_API_KEY: "sk-ant-alerts-fairness-0123456789",
      ANTHROPIC_BASE_URL: harness.double.url,
      SVC_CACHE: "off",
      SVC_WORKERS: "1",
      SVC_HOME: home,
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: `dead=${DEAD},live=${LIVE}`,
      SVC_ALERT_WEBHOOKS_FILE: file,
      SVC_ALERT_SECRET: SECRET
    })
  })
  afterAll(async () => {
    await Promise.all([dead.close(), live.close()])
  })

  /** A run of `key` whose lens fails finally (the provider answers 400): a `run.failed` alert for its scope. */
  const failedRun = async (key: string, marker: string) => {
    harness.double.script = () => ({
      kind: "status",
      status: 400,
      body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "the request is not valid" } })
    })
    const id = await submitOne(service, { trace: chatTrace(marker), mode: "quick", patterns: ["lewin"] }, { key })
    expect((await waitForRun(service, id, { key })).status).toBe("failed")
  }
  const deliveriesOf = async (key: string) => (await decoded(await call(service, "GET", "/v1/alerts/deliveries", { key }), 200, AlertDeliveryList)).deliveries
  const until = async (what: string, check: () => boolean | Promise<boolean>) => {
    // the hanging call's deadline is 10 s: waited for, with room for a loaded machine
    const deadline = Date.now() + 45_000
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await sleep(50)
    }
  }

  it("the other scope's alert is delivered before the hanging call's deadline; the hanging call is cut at it and counted as a retry", async () => {
    const gc = globalThis.gc
    if (gc === undefined) throw new Error("run the tests with --expose-gc (vitest.config.ts sets it)")
    // collected all along (a full collection, then a pause as long again: the service keeps
    // serving): a deadline whose timer a collection can drop never fires
    let collecting: NodeJS.Timeout | undefined
    let spent = 0
    const collect = () => {
      const started = Date.now()
      gc()
      spent = Date.now() - started
      collecting = setTimeout(collect, Math.max(100, spent))
    }
    collect()
    const counted = async (outcome: string) => metricTotal(await (await fetch(`${service.url}/metrics`)).text(), "svc_alert_deliveries_total", { outcome })
    const before = { retry: await counted("retry"), delivered: await counted("delivered") }
    try {
      await failedRun(DEAD, "never-answered")
      await until("the dead scope's call to hang", () => dead.received.length >= 1)
      await failedRun(LIVE, "answered")
      await until("the live scope's alert delivered", async () => (await deliveriesOf(LIVE)).some((row) => row.state === "delivered"))
      await until("the hanging call recorded as a retry", async () => (await deliveriesOf(DEAD)).some((row) => row.attempts >= 1))
    } finally {
      clearTimeout(collecting)
    }
    console.info(`a full collection took ${spent} ms`)
    const [hung] = await deliveriesOf(DEAD)
    const [answered] = await deliveriesOf(LIVE)
    expect(hung).toMatchObject({ event: "run.failed", state: "pending", attempts: 1, last_status: null, last_error: "timed out" })
    expect(answered).toMatchObject({ event: "run.failed", state: "delivered", attempts: 1, last_status: 200 })
    // the order: the live scope's alert was delivered before the hanging call's deadline ended it
    const hungAt = Date.parse(hung?.next_at ?? "") - deliveryBackoff(1)
    expect(Date.parse(answered?.delivered_at ?? "")).toBeLessThan(hungAt)
    expect(dead.received).toHaveLength(1)
    expect({ retry: (await counted("retry")) - before.retry, delivered: (await counted("delivered")) - before.delivered }).toEqual({ retry: 1, delivered: 1 })
  })
})
