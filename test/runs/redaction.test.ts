/**
 * Redaction holds in the runs store (DECISIONS §20): a trace carrying the seeded secrets of
 * test/redaction/seeds.ts is submitted as a run and diagnosed; once the service has stopped, no
 * byte of SVC_HOME (svc.db, its write-ahead log if any, anything else) holds a seeded value, while
 * the store does hold the run's redacted trace (its placeholders).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, statSync } from "node:fs"
import { databaseFile } from "../../src/Store/RunStoreAccess.js"
import { filesUnder, leaked, SECRET_SEEDS } from "../redaction/seeds.js"
import { type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { type RunningService, startService } from "../support/Service.js"
import { call, freshHome, submitOne, waitForRun } from "./support.js"

/** A placeholder of a secret kind, as the store keeps it (`[aws_key:3f9a1c]`). */
const placeholderOf = (kind: string) => new RegExp(`\\[${kind}:[0-9a-f]{6,16}\\]`)

let double: ProviderDouble
beforeAll(async () => {
  double = await startProviderDouble()
})
afterAll(async () => {
  await double.close()
})

describe("a run of a trace carrying secrets", () => {
  it("keeps no seeded value in any byte of the store (svc.db and its WAL), only placeholders", async () => {
    const home = freshHome("redaction")
    const service: RunningService = await startService({
      ANTHROPIC_API_KEY: "sk-ant-runs-redaction-0123456789",
      ANTHROPIC_BASE_URL: double.url,
      SVC_WORKERS: "2",
      SVC_HOME: home
    })
    let stopped = false
    try {
      const seeds = SECRET_SEEDS.map((seed) => seed.text)
      const trace = {
        messages: [
          { role: "system", content: "You are an operations assistant with access to the deployment tools." },
          { role: "user", content: `Deploy with these credentials: ${seeds.slice(0, 3).join(" and ")}.` },
          { role: "assistant", content: `Using ${seeds.slice(3, 6).join(", ")} for the rollout.` },
          { role: "user", content: `Also ${seeds.slice(6).join("; ")}.` },
          { role: "assistant", content: "The rollout is complete; every credential worked." }
        ]
      }
      const text = JSON.stringify({ trace, mode: "quick", max_patterns: 2, labels: { team: "ops" } }, null, 2)
      expect(leaked(text, SECRET_SEEDS).length).toBeGreaterThanOrEqual(SECRET_SEEDS.length)
      const id = await submitOne(service, text)
      const run = await waitForRun(service, id)
      expect(run.status).toBe("done")
      expect(run.report?.trace.redactions).toEqual(Object.fromEntries(SECRET_SEEDS.map((seed) => [seed.kind, expect.any(Number)])))
      // What is read back, and what the provider was sent, is redacted too.
      expect(leaked(JSON.stringify(run), SECRET_SEEDS)).toEqual([])
      expect(leaked(await (await call(service, "GET", "/v1/runs/export")).text(), SECRET_SEEDS)).toEqual([])
      expect(double.calls.length).toBeGreaterThan(0)
      expect(leaked(double.calls.map((recorded) => JSON.stringify(recorded.body)).join("\n"), SECRET_SEEDS)).toEqual([])
      // The store holds the run's trace, redacted: its placeholders are there (read back from the
      // store; in the file's raw bytes a long text may be split across overflow pages).
      const kept = await (await call(service, "GET", `/v1/runs/${id}/trace`)).text()
      for (const seed of SECRET_SEEDS) expect(kept, seed.kind).toMatch(placeholderOf(seed.kind))

      await service.close()
      stopped = true
      const database = databaseFile(home)
      expect(statSync(database).size).toBeGreaterThan(0)
      const stored = [database, `${database}-wal`].filter((file) => existsSync(file)).map((file) => {
        const bytes = readFileSync(file)
        return `${bytes.toString("utf8")}\n${bytes.toString("latin1")}`
      })
      const everything = [...stored, ...filesUnder(home).map((file) => file.text)].join("\n")
      expect(leaked(everything, SECRET_SEEDS)).toEqual([])
      expect(everything).toContain(id)
    } finally {
      if (!stopped) await service.close()
    }
  })
})
