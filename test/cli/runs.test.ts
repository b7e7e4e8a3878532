/**
 * `svc runs` (DECISIONS §17) through the real binary: against a real service (`--url`, the typed
 * client) whose two workers diagnose the runs with the provider double, and in-process over a
 * temporary SVC_HOME's store, where nothing diagnoses (no workers) until a `svc serve` on the same
 * store does: here the test's service is that `svc serve`, sharing its SVC_HOME with the commands.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { type ProviderDouble, startProviderDouble } from "../support/ProviderDouble.js"
import { validateSarif } from "../support/Sarif.js"
import { type RunningService, startService } from "../support/Service.js"
import { freshHome, REPO, svc, tempFile } from "./support.js"

let double: ProviderDouble
let service: RunningService
/** The service's SVC_HOME (its store, svc.db), which the in-process commands share. */
let home: string
let providerEnv: Record<string, string>
beforeAll(async () => {
  double = await startProviderDouble()
  providerEnv = { OPENAI_API_KEY: "sk-test-cli-runs-0123456789", OPENAI_BASE_URL: `${double.url}/v1` }
  home = freshHome()
  service = await startService({ ...providerEnv, SVC_WORKERS: "2", SVC_HOME: home })
})
afterAll(async () => {
  await service.close()
  await double.close()
})

/** Two traces in one file (an OpenHands output, JSON Lines): two runs. */
const twoTraces = join(REPO, "test", "fixtures", "traces", "trajectory", "openhands-output.jsonl")
const oneTrace = join(REPO, "test", "fixtures", "traces", "trajectory", "openhands-events.json")

const linesOf = (text: string) => text.split("\n").filter((line) => line.length > 0)
const parse = (text: string): unknown => JSON.parse(text)
const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? Reflect.get(at, key) : undefined), value)
const idsOf = (listed: unknown): Array<string> => {
  const runs = field(listed, "runs")
  return Array.isArray(runs) ? runs.map((run) => String(field(run, "id"))).sort() : []
}

describe("svc runs against a service (--url)", () => {
  it("submits a file of two traces, waits, shows (JSON, SARIF: the same in-process), lists, exports and imports into another SVC_HOME", async () => {
    const url = ["--url", service.url]
    const submitted = await svc(["runs", "submit", twoTraces, "--mode", "quick", "--label", "team=billing", ...url])
    expect(submitted.code, submitted.stderr).toBe(0)
    const ids = linesOf(submitted.stdout)
    expect(ids).toHaveLength(2)
    for (const id of ids) expect(id).toMatch(/^run_[\w-]+$/)
    expect(submitted.stderr).toContain(`1/1 ${twoTraces}: 2 runs, 0 rejected`)
    expect(submitted.stderr).toContain("svc runs submit: 2 runs from 1 file\n")

    // The same file again: the same runs (one run per trace and options).
    const again = await svc(["runs", "submit", twoTraces, "--mode", "quick", "--label", "team=billing", "--json", ...url])
    expect(again.code).toBe(0)
    expect(field(parse(again.stdout), "0", "file")).toBe(twoTraces)
    expect(idsOf(field(parse(again.stdout), "0"))).toEqual([...ids].sort())

    for (const id of ids) {
      const waited = await svc(["runs", "wait", id, "--timeout", "90", ...url])
      expect(waited.code, waited.stderr).toBe(0)
      expect(field(parse(waited.stdout), "status")).toBe("done")
      expect(field(parse(waited.stdout), "report")).toBeUndefined()
    }
    const [first = ""] = ids
    const shown = await svc(["runs", "show", first, ...url])
    expect(shown.code).toBe(0)
    expect(field(parse(shown.stdout), "labels")).toEqual({ team: "billing" })
    expect(field(parse(shown.stdout), "report", "mode")).toBe("quick")

    const sarif = await svc(["runs", "show", first, "--format", "sarif", ...url])
    expect(sarif.code, sarif.stderr).toBe(0)
    expect((await validateSarif(parse(sarif.stdout), "cli-runs")).errors).toEqual([])
    // In-process over the service's own store, the same renderers print the same document.
    const local = await svc(["runs", "show", first, "--format", "sarif"], { env: { SVC_HOME: home } })
    expect(local.code, local.stderr).toBe(0)
    expect(local.stdout).toBe(sarif.stdout)
    const markdown = await svc(["runs", "show", first, "--format", "markdown", ...url])
    expect(markdown.stdout).toMatch(/^# /)

    const table = await svc(["runs", "list", "--status", "done", "--label", "team:billing", ...url])
    expect(table.code).toBe(0)
    expect(linesOf(table.stdout)).toHaveLength(2)
    for (const id of ids) expect(table.stdout).toMatch(new RegExp(`^${id}  done  \\w+  \\d{4}-`, "m"))
    // Page by page up to --limit: one a page here.
    const paged = await svc(["runs", "list", "--label", "team:billing", "--limit", "1", "--json", ...url])
    expect(idsOf(parse(paged.stdout))).toHaveLength(1)
    expect(field(parse(paged.stdout), "next_cursor")).toEqual(expect.any(String))
    expect(paged.stderr).toBe("")

    const exported = tempFile("runs.jsonl", "")
    const exportRan = await svc(["runs", "export", "--label", "team:billing", "--out", exported, ...url])
    expect(exportRan.code, exportRan.stderr).toBe(0)
    const exportLines = linesOf(readFileSync(exported, "utf8"))
    expect(exportLines.map((line) => String(field(parse(line), "run", "id"))).sort()).toEqual([...ids].sort())

    const other = freshHome()
    const imported = await svc(["runs", "import", exported], { env: { SVC_HOME: other } })
    expect(imported.code, imported.stderr).toBe(0)
    expect(parse(imported.stdout)).toEqual({ imported: 2, existing: 0, refused: [] })
    const twice = await svc(["runs", "import", "-"], { env: { SVC_HOME: other }, input: readFileSync(exported, "utf8") })
    expect(parse(twice.stdout)).toEqual({ imported: 0, existing: 2, refused: [] })
    const listed = await svc(["runs", "list", "--json"], { env: { SVC_HOME: other } })
    expect(idsOf(parse(listed.stdout))).toEqual([...ids].sort())
    const importedSarif = await svc(["runs", "show", first, "--format", "sarif"], { env: { SVC_HOME: other } })
    expect(importedSarif.stdout).toBe(sarif.stdout)

    const remoteImport = await svc(["runs", "import", exported, ...url])
    expect(remoteImport.code).toBe(2)
    expect(remoteImport.stderr).toContain("svc runs import: svc runs import writes to the store of this environment")
  })

  it("retry --status failed re-queues the failed runs: against the service (listed, then retried) and in-process on its store", async () => {
    const url = ["--url", service.url]
    // A provider that is not configured: the run fails (llm_resolution_error), with no retry of its own.
    const submitted = await svc(["runs", "submit", oneTrace, "--mode", "quick", "--model", "anthropic:claude-test", ...url])
    expect(submitted.code, submitted.stderr).toBe(0)
    const [id = ""] = linesOf(submitted.stdout)
    const failed = await svc(["runs", "wait", id, "--timeout", "90", ...url])
    expect(failed.code).toBe(3)
    expect(failed.stderr).toContain(`svc runs wait: run ${id} failed: llm_resolution_error: `)
    const firstEnd = String(field(parse(failed.stdout), "finished_at"))

    const retried = await svc(["runs", "retry", "--status", "failed", ...url])
    expect(retried.code, retried.stderr).toBe(0)
    expect(parse(retried.stdout)).toEqual({ status: "failed", retried: 1 })
    const secondFailure = await svc(["runs", "wait", id, "--timeout", "90", ...url])
    expect(secondFailure.code).toBe(3)
    const secondEnd = String(field(parse(secondFailure.stdout), "finished_at"))
    expect(secondEnd > firstEnd).toBe(true)

    const local = await svc(["runs", "retry", "--status", "failed"], { env: { SVC_HOME: home } })
    expect(local.code, local.stderr).toBe(0)
    expect(parse(local.stdout)).toEqual({ status: "failed", retried: 1 })
    // In-process, waiting polls the store the service's workers end the run in.
    const thirdFailure = await svc(["runs", "wait", id, "--timeout", "90"], { env: { SVC_HOME: home } })
    expect(thirdFailure.code).toBe(3)
    expect(String(field(parse(thirdFailure.stdout), "finished_at")) > secondEnd).toBe(true)

    const one = await svc(["runs", "retry", id, ...url])
    expect(one.code).toBe(0)
    expect(field(parse(one.stdout), "status")).toBe("queued")
    const neither = await svc(["runs", "retry", ...url])
    expect(neither.code).toBe(2)
    expect(neither.stderr).toContain("give a run's ID or --status failed|skipped")
    const unknown = await svc(["runs", "show", "run_nope", ...url])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^svc runs show: not_found: /)
  })
})

describe("svc runs in-process (no --url)", () => {
  it("submit queues the runs in SVC_HOME's store (no workers here); list shows them; the guards ask each command's role", async () => {
    const own = freshHome()
    const submitted = await svc(["runs", "submit", twoTraces, "--label", "env=ci"], { env: { SVC_HOME: own } })
    expect(submitted.code, submitted.stderr).toBe(0)
    const ids = linesOf(submitted.stdout)
    expect(ids).toHaveLength(2)
    expect(submitted.stderr).toContain("queued for the workers of a `svc serve` on the same store")
    const listed = await svc(["runs", "list", "--json"], { env: { SVC_HOME: own } })
    expect(listed.code).toBe(0)
    expect(idsOf(parse(listed.stdout))).toEqual([...ids].sort())
    expect(field(parse(listed.stdout), "runs", "0", "status")).toBe("queued")
    const none = await svc(["runs", "list", "--status", "done"], { env: { SVC_HOME: own } })
    expect(none.stdout).toBe("")
    const [first = ""] = ids
    const timedOut = await svc(["runs", "wait", first, "--timeout", "1"], { env: { SVC_HOME: own } })
    expect(timedOut.code, timedOut.stderr).toBe(3)
    expect(timedOut.stderr).toContain(`did not end within 1 s (--timeout)`)
    const notDone = await svc(["runs", "show", first, "--format", "markdown"], { env: { SVC_HOME: own } })
    expect(notDone.code, notDone.stderr).toBe(2)
    expect(notDone.stderr).toContain("not_found: ")

    const keys = {
      SVC_HOME: own,
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: "agents=agents-key-0123456789abcdef,bob=bob-key-0123456789abcdef",
      SVC_API_KEY_ROLES: "agents=ingest@ci,bob=read@ci"
    }
    const agents = { ...keys, SVC_API_KEY: "agents-key-0123456789abcdef" }
    const bob = { ...keys, SVC_API_KEY: "bob-key-0123456789abcdef" }
    const ingest = await svc(["runs", "submit", oneTrace], { env: agents })
    expect(ingest.code, ingest.stderr).toBe(0)
    const refused = await svc(["runs", "list"], { env: agents })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("svc runs list: forbidden: this API key's role (ingest) may not svc runs list; it needs read")
    const read = await svc(["runs", "list", "--json"], { env: bob })
    expect(read.code, read.stderr).toBe(0)
    expect(idsOf(parse(read.stdout))).toHaveLength(1)
    const retry = await svc(["runs", "retry", "--status", "failed"], { env: bob })
    expect(retry.code).toBe(2)
    expect(retry.stderr).toContain("it needs admin")
  })
})
