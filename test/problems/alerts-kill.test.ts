/**
 * Alerts at least once across a crash (DECISIONS §19), with the real process (dist/server.mjs) and
 * a real SIGKILL: the run's finish commits the outbox row, the deliverer calls the webhook, and the
 * process is killed while the receiver holds the call unanswered. Restarted on the same SVC_HOME
 * (the SQLite store), the service sends the same `X-Svc-Delivery` again; a receiver deduplicating
 * by it has exactly one alert, and the deliveries list shows it delivered. The webhook's path (its
 * token) is in no log line.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AlertDeliveryList } from "../../src/Contract/ProblemsContract.js"
import { RunWithReport, SubmitRunsResponse } from "../../src/Contract/RunsContract.js"
import { type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type Spawned, spawnService } from "../support/Spawned.js"
import { chatTrace, quotingEvents, sleep } from "../runs/support.js"
import { listenLoopback } from "../support/Net.js"
import { verifySignature } from "./support.js"

const SECRET = "alerts-kill-secret-0123456789abcdef-0123"
const TOKEN_PATH = "/services/T0KILL/B0KILL/kill-token-9d8c7b"

interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A webhook receiver that holds every call unanswered until `answering` is set. */
const startReceiver = async () => {
  const received: Array<Received> = []
  const held: Array<ServerResponse> = []
  const state = { answering: false }
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") })
      if (state.answering) response.writeHead(200).end("ok")
      else held.push(response)
    })
  })
  const url = await listenLoopback(server)
  return {
    url,
    received,
    held,
    state,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

const headerOf = (received: Received | undefined, name: string): string => {
  const value = received?.headers[name]
  return typeof value === "string" ? value : ""
}

const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

let double: ProviderDouble
let receiver: Awaited<ReturnType<typeof startReceiver>>
const started: Array<Spawned> = []
beforeAll(async () => {
  double = await startProviderDouble()
  receiver = await startReceiver()
})
afterAll(async () => {
  for (const spawned of started) {
    if (spawned.child.exitCode === null && spawned.child.signalCode === null) {
      spawned.child.kill("SIGKILL")
      await spawned.exited
    }
  }
  await receiver.close()
  await double.close()
})

const start = async (home: string) => {
  const spawned = await spawnService(double.url, {
    SVC_HOME: home,
    SVC_WORKERS: "1",
    SVC_CACHE: "off",
    SVC_ALERT_WEBHOOKS: `${receiver.url}${TOKEN_PATH}`,
    SVC_ALERT_SECRET: SECRET
  })
  started.push(spawned)
  return spawned
}

const runOf = async (service: Spawned, id: string) => Schema.decodeUnknownSync(RunWithReport)(await (await fetch(`${service.url}/v1/runs/${id}`)).json())

describe("an alert across a SIGKILL between its commit and its delivery", () => {
  it("is sent again with the same X-Svc-Delivery after a restart on the same store; deduplicated, one alert, listed delivered", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-alerts-kill-"))
    const contents = chatTrace("kill").messages.map((message) => message.content)
    double.script = quotingEvents(contents, [2, 4])
    const first = await start(home)
    const submitted = await fetch(`${first.url}/v1/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ trace: chatTrace("kill"), mode: "quick", patterns: ["lewin"] })
    })
    expect(submitted.status).toBe(202)
    const [run] = Schema.decodeUnknownSync(SubmitRunsResponse)(await submitted.json()).runs
    const runId = run?.id ?? ""
    // the run is committed with its problem and outbox row; the deliverer's call is held unanswered
    await until("the webhook called", () => receiver.received.length >= 1)
    expect((await runOf(first, runId)).status).toBe("done")
    first.child.kill("SIGKILL")
    const exit = await first.exited
    expect(exit.signal).toBe("SIGKILL")
    expect(receiver.received).toHaveLength(1)

    receiver.state.answering = true
    const second = await start(home)
    await until("the webhook called again", () => receiver.received.length >= 2)
    const [before, after] = receiver.received
    const id = headerOf(before, "x-svc-delivery")
    expect(id).toMatch(/^dlv_[0-9a-f]{24}$/)
    expect(headerOf(after, "x-svc-delivery")).toBe(id)
    expect(after?.body).toBe(before?.body)
    expect(after?.path).toBe(TOKEN_PATH)
    const now = Math.floor(Date.now() / 1000)
    for (const request of receiver.received) expect(verifySignature(headerOf(request, "x-svc-signature"), request.body, SECRET, now, 300)).toBe(true)
    // deduplicated by its id, the receiver has exactly one alert: the run's new problem
    const distinct = new Map(receiver.received.map((request) => [headerOf(request, "x-svc-delivery"), request.body]))
    expect(distinct.size).toBe(1)
    const body: unknown = JSON.parse(distinct.get(id) ?? "{}")
    expect(body).toMatchObject({ id, event: "problem.new", run: { id: runId } })

    await until("listed delivered", async () => {
      const list = Schema.decodeUnknownSync(AlertDeliveryList)(await (await fetch(`${second.url}/v1/alerts/deliveries`)).json())
      return list.deliveries.some((row) => row.state === "delivered")
    })
    const list = Schema.decodeUnknownSync(AlertDeliveryList)(await (await fetch(`${second.url}/v1/alerts/deliveries`)).json())
    expect(list.deliveries).toHaveLength(1)
    expect(list.deliveries[0]).toMatchObject({ id, event: "problem.new", run_id: runId, state: "delivered", last_status: 200, url: `${receiver.url}/…` })
    // the call the killed process had in flight counts as an attempt, and the delivered one
    expect(list.deliveries[0]?.attempts).toBe(2)
    // nothing more is sent: the one row is delivered (a final state the deliverer never picks up
    // again), and the receiver has had exactly its two calls
    expect(receiver.received).toHaveLength(2)
    // the restart said it sends again what the killed process had in flight; no log holds the webhook's path
    expect(second.logs.some(({ line }) => String(line["message"]).includes("previous process had in flight"))).toBe(true)
    for (const { line } of [...first.logs, ...second.logs]) expect(JSON.stringify(line)).not.toContain("kill-token")
    second.child.kill("SIGTERM")
    await second.exited
  })
})
