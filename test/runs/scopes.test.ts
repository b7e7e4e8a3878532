/**
 * Roles and shared scopes on the runs routes (DECISIONS §16, §17), against the real service with
 * auth required: an `ingest` key submits and does nothing else (403 forbidden); an admin key in the
 * same named scope sees, reads, retries and deletes the ingest key's runs; a key of another scope
 * finds none of them (404 not_found, never 403, and an empty list) and keeps its own; run ids are
 * 128 random bits, so one scope cannot guess another's.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { RunExport } from "../../src/Contract/RunsContract.js"
import { Schema } from "effect"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { call, chatTrace, freshHome, getRun, listRuns, refusal, RUN_ID, submit, submitOne, waitForRun } from "./support.js"

const AGENTS = "agents-runs-key-0123456789abcdef"
const ALICE = "alice-runs-key-0123456789abcdef"
const BOB = "bob-runs-key-0123456789abcdef"

const harness = useProviderDouble()
let service: RunningService
beforeAll(async () => {
  service = await harness.start({
    ANTHROPIC_API_KEY: "sk-ant-runs-scopes-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `agents=${AGENTS},alice=${ALICE},bob=${BOB}`,
    SVC_API_KEY_ROLES: "agents=ingest@team,alice=admin@team,bob=admin",
    SVC_WORKERS: "2",
    SVC_HOME: freshHome("scopes")
  })
})

const exportedIds = async (key: string) => {
  const response = await call(service, "GET", "/v1/runs/export", { key })
  expect(response.status).toBe(200)
  return (await response.text())
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => Schema.decodeUnknownSync(Schema.parseJson(RunExport))(line).run.id)
}

describe("runs with roles and scopes", () => {
  it("an ingest key submits (202) and is refused everything else with 403 forbidden; no key is 401", async () => {
    const id = await submitOne(service, { trace: chatTrace("ingest"), mode: "quick", max_patterns: 1 }, { key: AGENTS })
    expect(id).toMatch(RUN_ID)
    const refused: ReadonlyArray<readonly [string, string]> = [
      ["GET", "/v1/runs"],
      ["GET", `/v1/runs/${id}`],
      ["GET", `/v1/runs/${id}/report`],
      ["POST", `/v1/runs/${id}/retry`],
      ["DELETE", `/v1/runs/${id}`],
      ["GET", "/v1/runs/export"]
    ]
    for (const [method, path] of refused) {
      expect(await refusal(await call(service, method, path, { key: AGENTS }), 403), `${method} ${path}`).toBe("forbidden")
    }
    expect(await refusal(await call(service, "POST", "/v1/runs", { body: { trace: chatTrace("anonymous") } }), 401)).toBe("unauthorized")
    expect(await refusal(await call(service, "GET", "/v1/runs"), 401)).toBe("unauthorized")
    // The refused calls changed nothing: the run goes on, as its scope's admin sees.
    expect((await waitForRun(service, id, { key: ALICE })).status).toBe("done")
  })

  it("an admin key of the same scope sees the ingest key's runs; a key of another scope finds none of them (404, an empty list)", async () => {
    const body = { trace: chatTrace("shared"), mode: "quick", max_patterns: 1, external_id: "shared-ticket", labels: { source: "agents" } }
    const id = await submitOne(service, body, { key: AGENTS })
    const done = await waitForRun(service, id, { key: ALICE })
    expect(done).toMatchObject({ status: "done", external_id: "shared-ticket", labels: { source: "agents" } })
    expect((await listRuns(service, "?limit=200", ALICE)).runs.map((run) => run.id)).toContain(id)
    expect((await listRuns(service, "?external_id=shared-ticket", ALICE)).runs.map((run) => run.id)).toEqual([id])
    expect(await exportedIds(ALICE)).toContain(id)
    const report = await call(service, "GET", `/v1/runs/${id}/report?output=markdown`, { key: ALICE })
    expect(report.status).toBe(200)
    // The same trace from alice is the scope's existing run.
    expect(await submitOne(service, body, { key: ALICE })).toBe(id)

    // bob: another scope. Nothing of the team's is found, whatever the route.
    const notFound: ReadonlyArray<readonly [string, string]> = [
      ["GET", `/v1/runs/${id}`],
      ["GET", `/v1/runs/${id}/report`],
      ["POST", `/v1/runs/${id}/retry`],
      ["DELETE", `/v1/runs/${id}`]
    ]
    for (const [method, path] of notFound) {
      expect(await refusal(await call(service, method, path, { key: BOB }), 404), `${method} ${path}`).toBe("not_found")
    }
    expect(await listRuns(service, "", BOB)).toEqual({ runs: [], next_cursor: null })
    expect(await listRuns(service, "?external_id=shared-ticket", BOB)).toEqual({ runs: [], next_cursor: null })
    expect(await exportedIds(BOB)).toEqual([])
    // bob's delete did nothing to the team's run
    expect((await getRun(service, id, ALICE)).status).toBe("done")

    // The same trace and external id in bob's scope are bob's own run: no dedupe, no conflict across scopes.
    const own = await submitOne(service, body, { key: BOB })
    expect(own).not.toBe(id)
    expect((await listRuns(service, "", BOB)).runs.map((run) => run.id)).toEqual([own])
    expect(await refusal(await call(service, "GET", `/v1/runs/${own}`, { key: ALICE }), 404)).toBe("not_found")
    await waitForRun(service, own, { key: BOB })

    // alice (admin) may retry (409: the run is done) and delete
    expect(await refusal(await call(service, "POST", `/v1/runs/${id}/retry`, { key: ALICE }), 409)).toBe("conflict")
    expect((await call(service, "DELETE", `/v1/runs/${id}`, { key: ALICE })).status).toBe(204)
    expect(await refusal(await call(service, "GET", `/v1/runs/${id}`, { key: ALICE }), 404)).toBe("not_found")
    expect((await getRun(service, own, BOB)).status).toBe("done")
  })

  it("gives runs unguessable ids: run_ and 22 base64url characters (128 random bits), never alike", async () => {
    const answer = await submit(service, { trace: chatTrace("ids"), mode: "quick", max_patterns: 1 }, { key: AGENTS })
    const ids = [...answer.runs.map((run) => run.id)]
    for (let i = 0; i < 7; i++) ids.push(await submitOne(service, { trace: chatTrace(`ids-${i}`), mode: "quick", max_patterns: 1 }, { key: AGENTS }))
    expect(new Set(ids).size).toBe(8)
    for (const id of ids) {
      expect(id).toMatch(RUN_ID)
      expect(Buffer.from(id.slice("run_".length), "base64url")).toHaveLength(16)
    }
    // no shared prefix beyond chance: ids are not counters or times
    const prefixes = new Set(ids.map((id) => id.slice(0, 8)))
    expect(prefixes.size).toBeGreaterThan(4)
    for (const id of ids) await waitForRun(service, id, { key: ALICE })
  })
})
