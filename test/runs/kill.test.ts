/**
 * Nothing lost (DECISIONS §17), with the real process (dist/server.mjs), real signals and the
 * provider double: 200 runs queued, 8 workers, the process killed with SIGKILL at three moments
 * (before a model call, during one, while finishing); after a restart every run ends done or
 * failed with a kind, none is missing, none has two reports, and no run made more than one extra
 * attempt of model calls. SIGTERM: the workers stop claiming, readiness fails, and what runs is
 * finished or given back within the grace. And start-up warns when Redis is set while runs stay in
 * this process's SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { cpSync, mkdtempSync } from "node:fs"
import { createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Run, RunWithReport, SubmitRunsResponse } from "../../src/Contract/RunsContract.js"
import { defaultReply, exampleTrace, type ProviderDouble, type Script, startProviderDouble } from "../support/ProviderDouble.js"
import { EXPLAIN_EVERY_RUN, type Spawned, spawnService } from "../support/Spawned.js"
import { allRunsAt } from "./support.js"

const RUNS = 200
const WORKERS = "8"
const base = exampleTrace("lewin")
const marker = (i: number) => `(run ${i} of the kill test)`
const traceOf = (i: number) => ({ ...base, task: `${String(base["task"])} ${marker(i)}` })

let double: ProviderDouble
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(async () => {
  await double.close()
})

const decodeSubmitted = Schema.decodeUnknownSync(SubmitRunsResponse)
const decodeRun = Schema.decodeUnknownSync(RunWithReport)

const submitAll = async (url: string): Promise<ReadonlyArray<string>> => {
  const ids: Array<string> = []
  for (let start = 0; start < RUNS; start += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, RUNS - start) }, async (_, k) => {
        const response = await fetch(`${url}/v1/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ trace: traceOf(start + k), mode: "quick", patterns: ["lewin"] })
        })
        expect(response.status).toBe(202)
        return decodeSubmitted(await response.json()).runs.map((run) => run.id)
      })
    )
    ids.push(...batch.flat())
  }
  return ids
}


const until = async (what: string, check: () => Promise<boolean> | boolean, ms = 60_000) => {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Model calls per run, by the marker in their prompt. */
const callsPerRun = (): Map<number, number> => {
  const counts = new Map<number, number>()
  for (const call of double.calls) {
    const match = /\(run (\d+) of the kill test\)/.exec(call.text)
    if (match?.[1] !== undefined) counts.set(Number(match[1]), (counts.get(Number(match[1])) ?? 0) + 1)
  }
  return counts
}

/** The runs a home's store holds, read by a service without workers. */
const runsIn = async (home: string): Promise<Array<Run>> => {
  const api = await spawnService(double.url, { SVC_HOME: home, SVC_WORKERS: "0" })
  try {
    return await allRunsAt(api.url)
  } finally {
    api.child.kill("SIGTERM")
    await api.exited
  }
}

const kill = (spawned: Spawned) => {
  spawned.child.kill("SIGKILL")
}

/** 200 runs queued by a service without workers, stopped: the store holds them all, queued. */
const queueRuns = async (): Promise<{ readonly home: string; readonly ids: ReadonlyArray<string> }> => {
  const home = mkdtempSync(join(tmpdir(), "svc-kill-"))
  const api = await spawnService(double.url, { SVC_HOME: home, SVC_WORKERS: "0" })
  try {
    const ids = await submitAll(api.url)
    expect(new Set(ids).size).toBe(RUNS)
    return { home, ids }
  } finally {
    // stopped whatever happened: a failed submission must not leave a service running after the suite
    api.child.kill("SIGTERM")
    await api.exited
  }
}

/**
 * The queued home is made once per file (a service started, 200 runs submitted, stopped) and each
 * test gets a copy of it, its store closed: the 200 submissions are not what these tests are about.
 */
let queued: { readonly home: string; readonly ids: ReadonlyArray<string> }
beforeAll(async () => {
  queued = await queueRuns()
})
const queuedHome = (): { readonly home: string; readonly ids: ReadonlyArray<string> } => {
  const home = mkdtempSync(join(tmpdir(), "svc-kill-"))
  cpSync(queued.home, home, { recursive: true })
  return { home, ids: queued.ids }
}

/** Restarted with the double answering: every run ends; none missing, none run more than twice. */
const recovers = async (home: string, ids: ReadonlyArray<string>) => {
  double.script = () => undefined
  const after = await spawnService(double.url, { ...EXPLAIN_EVERY_RUN, SVC_HOME: home, SVC_WORKERS: WORKERS })
  try {
    await until("every run to end", async () => (await allRunsAt(after.url)).every((run) => run.status === "done" || run.status === "failed"))
    const runs = await allRunsAt(after.url)
    expect(runs.map((run) => run.id).sort()).toEqual([...ids].sort())
    for (const run of runs) {
      if (run.status === "failed") expect(run.error?.error, run.id).toMatch(/^[a-z_]+$/)
      expect(run.attempts, run.id).toBeLessThanOrEqual(2)
    }
    expect(runs.filter((run) => run.status === "done").length).toBe(RUNS)
    // one report each, of the one lens asked for
    const sample = await Promise.all(runs.slice(0, 20).map(async (run) => (await (await fetch(`${after.url}/v1/runs/${run.id}`)).json())))
    for (const body of sample) {
      const run = decodeRun(body)
      expect(run.status).toBe("done")
      expect(run.report?.patterns).toHaveLength(1)
    }
    // at most one extra attempt of model calls (one lens in quick mode: one call per attempt)
    const calls = callsPerRun()
    expect(calls.size).toBe(RUNS)
    for (const [run, count] of calls) expect(count, `run ${run}`).toBeLessThanOrEqual(2)
    return { runs, calls }
  } finally {
    after.child.kill("SIGTERM")
    await after.exited
  }
}

describe("runs survive SIGKILL (the built service, 200 runs, 8 workers)", () => {
  it("killed before a model call: 8 runs claimed, no call answered or even read by the provider", async () => {
    const { home, ids } = queuedHome()
    double.reset()
    // a provider that accepts connections and never reads them: no call reaches it
    const sockets: Array<Socket> = []
    const silent = createServer((socket) => {
      socket.pause()
      sockets.push(socket)
    })
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    const address = silent.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const service = await spawnService(double.url, { ...EXPLAIN_EVERY_RUN, SVC_HOME: home, SVC_WORKERS: WORKERS, OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` })
      await until("8 runs running", async () => (await allRunsAt(service.url)).filter((run) => run.status === "running").length === 8)
      kill(service)
      expect((await service.exited).signal).toBe("SIGKILL")
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
    expect(double.calls).toHaveLength(0)
    const { calls } = await recovers(home, ids)
    // nothing was called before the kill: every run made exactly one call
    expect(Array.from(calls.values()).every((count) => count === 1)).toBe(true)
  }, 120_000)

  it("killed during model calls: 8 runs waiting on the provider", async () => {
    const { home, ids } = queuedHome()
    double.reset()
    double.script = () => ({ kind: "hang" })
    const service = await spawnService(double.url, { ...EXPLAIN_EVERY_RUN, SVC_HOME: home, SVC_WORKERS: WORKERS })
    await until("8 calls in flight", () => double.calls.length >= 8)
    const running = (await allRunsAt(service.url)).filter((run) => run.status === "running")
    expect(running).toHaveLength(8)
    kill(service)
    expect((await service.exited).signal).toBe("SIGKILL")
    const { calls, runs } = await recovers(home, ids)
    const again = new Set(running.map((run) => run.id))
    expect(runs.filter((run) => again.has(run.id)).every((run) => run.attempts === 2)).toBe(true)
    expect(Array.from(calls.values()).filter((count) => count === 2)).toHaveLength(8)
  }, 120_000)

  it("killed while finishing: just after the double answered", async () => {
    const { home, ids } = queuedHome()
    double.reset()
    const started: { service?: Spawned } = {}
    const script: Script = (call, index) => {
      // the 21st answer is written, then the process dies while workers read and store answers
      const target = started.service
      if (index === 20 && target !== undefined) setImmediate(() => kill(target))
      return defaultReply(call)
    }
    double.script = script
    const service = await spawnService(double.url, { ...EXPLAIN_EVERY_RUN, SVC_HOME: home, SVC_WORKERS: WORKERS })
    started.service = service
    expect((await service.exited).signal).toBe("SIGKILL")
    const { calls } = await recovers(home, ids)
    expect(Array.from(calls.values()).filter((count) => count === 2).length).toBeLessThanOrEqual(8)
  }, 120_000)
})

/** 200 runs queued, then a service with 8 workers and these drain settings, its 8 runs each in a model call the double answers by `script`. */
const eightInFlight = async (script: Script, drainDelay: string, grace: string) => {
  const { home, ids } = queuedHome()
  double.reset()
  double.script = script
  const service = await spawnService(double.url, {
    SVC_HOME: home,
    ...EXPLAIN_EVERY_RUN,
    SVC_WORKERS: WORKERS,
    SVC_DRAIN_DELAY_SECONDS: drainDelay,
    SVC_SHUTDOWN_GRACE_SECONDS: grace
  })
  await until("8 calls in flight", () => double.calls.length >= 8)
  return { home, ids, service }
}

describe("SIGTERM with runs in progress (the built service)", () => {
  it("stops claiming, fails readiness, gives back what outlasts the grace, and exits", async () => {
    const { home, ids, service } = await eightInFlight(() => ({ kind: "hang" }), "0.5", "1")
    const signalled = Date.now()
    service.child.kill("SIGTERM")
    await until("readiness to fail", async () => (await fetch(`${service.url}/readyz`)).status === 503, 2_000)
    const exited = await service.exited
    expect(exited.code).toBe(0)
    // drain delay + grace + the cut's 2 s at most, and a margin
    expect(exited.at - signalled).toBeLessThan(6_000)
    // no run was claimed after the signal: the double saw only the 8 calls
    expect(double.calls).toHaveLength(8)
    // what was running was given back: queued, its one attempt counted
    const runs = await runsIn(home)
    expect(runs).toHaveLength(ids.length)
    expect(runs.filter((run) => run.status === "running")).toHaveLength(0)
    expect(runs.filter((run) => run.attempts === 1).map((run) => run.status)).toEqual(Array.from({ length: 8 }, () => "queued"))
  }, 60_000)

  it("finishes the runs that end within the grace", async () => {
    const { home, service } = await eightInFlight((call) => ({ kind: "delay", ms: 1_500, then: defaultReply(call) }), "0", "10")
    service.child.kill("SIGTERM")
    expect((await service.exited).code).toBe(0)
    expect(double.calls).toHaveLength(8)
    expect((await runsIn(home)).filter((run) => run.status === "done")).toHaveLength(8)
  }, 60_000)
})

describe("start-up with Redis but the SQLite store", () => {
  it("warns that replicas would not share runs", async () => {
    // a Redis that is not there: the service starts on its fallbacks, and says what replicas would not share
    const service = await spawnService(double.url, { SVC_REDIS_URL: "redis://127.0.0.1:1" })
    try {
      const warned = service.logs.some(({ line }) => typeof line["message"] === "string" && line["message"].includes("replicas do not share runs"))
      expect(warned).toBe(true)
    } finally {
      service.child.kill("SIGTERM")
      await service.exited
    }
  }, 30_000)
})
