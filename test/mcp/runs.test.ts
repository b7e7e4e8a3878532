/**
 * The runs over MCP (DECISIONS §14, §17): `svc_submit_run`, `svc_list_runs` and `svc_get_run` at
 * the real Streamable HTTP endpoint of the service on a loopback port, with two run workers, a
 * temporary SVC_HOME and the provider double, driven by the official `@modelcontextprotocol/sdk`
 * client. The tools answer what `/v1/runs` answers, in the caller's data scope, with the same
 * errors as tool results. Each tool's role is checked per call: over stdio (`svc mcp`) an ingest
 * key submits and does nothing else.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RunList, RunWithReport, SubmitRunsResponse } from "../../src/Contract/RunsContract.js"
import { useProviderDouble } from "../support/Harness.js"
import { exampleTrace } from "../support/ProviderDouble.js"
import type { RunningService } from "../support/Service.js"
import { connectHttp, connectStdio, firstText } from "./support.js"

const harness = useProviderDouble()
const home = () => mkdtempSync(join(tmpdir(), "svc-mcp-runs-"))
const withWorkers = (env: Record<string, string> = {}) =>
  harness.start({
    ANTHROPIC_API_KEY: "sk-ant-mcp-runs-0123456789abcdef",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "2",
    SVC_HOME: home(),
    ...env
  })

const ALICE = "alice-key-0123456789abcdef0123"
const BOB = "bob-key-0123456789abcdef012345"
const AGENTS = "agents-key-0123456789abcdef0123"
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const ErrorBody = Schema.Struct({ detail: Schema.Struct({ error: Schema.String, message: Schema.String }) })
const decodeSubmitted = Schema.decodeUnknownSync(SubmitRunsResponse)
const decodeList = Schema.decodeUnknownSync(RunList)
const decodeRun = Schema.decodeUnknownSync(RunWithReport)
const decodeError = Schema.decodeUnknownSync(ErrorBody)

const call = (client: Client, name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args })

const rest = async (service: RunningService, path: string, init: { readonly body?: unknown; readonly key?: string } = {}) => {
  const headers: Record<string, string> = init.key === undefined ? {} : bearer(init.key)
  const response = await fetch(`${service.url}${path}`, init.body === undefined ? { headers } : {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(init.body)
  })
  return { status: response.status, text: await response.text() }
}

/** A run's tool result, polled until the run has ended (done, failed or skipped). */
const untilEnded = async (client: Client, id: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const result = await call(client, "svc_get_run", { id })
    expect(result.isError, firstText(result)).toBeFalsy()
    const run = decodeRun(result.structuredContent)
    if (run.status !== "queued" && run.status !== "running") return { result, run }
    if (Date.now() > deadline) throw new Error(`run ${id} still ${run.status} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const lensArguments = { mode: "quick", patterns: ["lewin"] }

describe("the runs over MCP (Streamable HTTP)", () => {
  it("tools/list holds the four runs tools with schemas derived from the contract", async () => {
    const service = await withWorkers({ SVC_WORKERS: "0" })
    const { client } = await connectHttp(service.url)
    const { tools } = await client.listTools()
    await client.close()
    const tool = (name: string) => {
      const found = tools.find((candidate) => candidate.name === name)
      expect(found, name).toBeDefined()
      return found
    }
    const submit = tool("svc_submit_run")
    expect(submit?.inputSchema.required).toEqual(["trace"])
    expect(Object.keys(submit?.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["trace", "format", "select", "hints", "mode", "model", "patterns", "max_patterns", "budget_tokens", "labels", "external_id"])
    )
    // svc_diagnose's options, exactly: the same contract fields.
    const diagnose = tool("svc_diagnose")
    for (const [name, schema] of Object.entries(diagnose?.inputSchema.properties ?? {})) {
      expect(submit?.inputSchema.properties?.[name], name).toEqual(schema)
    }
    expect(submit?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true })

    const list = tool("svc_list_runs")
    expect(list?.inputSchema.required).toEqual([])
    const properties = list?.inputSchema.properties ?? {}
    expect(Object.keys(properties).sort()).toEqual(["cursor", "external_id", "label", "limit", "pattern", "problem", "severity", "since", "status", "trace_id", "until"])
    expect(properties["status"]).toMatchObject({ enum: ["queued", "running", "done", "failed", "skipped"] })
    expect(properties["severity"]).toMatchObject({ enum: ["none", "low", "medium", "high", "critical"] })
    expect(properties["limit"]).toMatchObject({ type: "integer", minimum: 1, maximum: 200 })

    const get = tool("svc_get_run")
    expect(get?.inputSchema.required).toEqual(["id"])
    expect(get?.inputSchema.properties?.["output"]).toMatchObject({ enum: ["json", "markdown"] })
    for (const name of ["svc_list_runs", "svc_get_run"]) expect(tool(name)?.annotations, name).toMatchObject({ readOnlyHint: true, openWorldHint: false })
    // DECISIONS §24: a run's lenses asked for; it queues the run and spends model budget
    const explain = tool("svc_explain_run")
    expect(explain?.inputSchema.required).toEqual(["id"])
    expect(explain?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true })
  })

  it("submit, list, get until done: the report is the run's diagnose, and markdown is the page REST renders", async () => {
    const service = await withWorkers()
    const { client } = await connectHttp(service.url)
    const trace = exampleTrace("lewin")
    const submitted = await call(client, "svc_submit_run", { trace, ...lensArguments, labels: { team: "billing" }, external_id: "ticket-1" })
    expect(submitted.isError, firstText(submitted)).toBeFalsy()
    const { rejected, runs } = decodeSubmitted(submitted.structuredContent)
    expect(rejected).toEqual([])
    expect(runs).toHaveLength(1)
    const id = runs[0]?.id ?? ""
    expect(id).toMatch(/^run_/)
    expect(firstText(submitted)).toContain(id)

    // The same trace with the same options is the same run.
    const again = await call(client, "svc_submit_run", { trace, ...lensArguments, labels: { team: "billing" }, external_id: "ticket-1" })
    expect(decodeSubmitted(again.structuredContent).runs.map((run) => run.id)).toEqual([id])

    // Listed, by every filter that names it, and not by one that does not.
    for (const filters of [{}, { external_id: "ticket-1" }, { label: "team:billing" }, { limit: 1 }, { since: "2000-01-01T00:00:00Z" }]) {
      const listed = await call(client, "svc_list_runs", filters)
      expect(listed.isError, firstText(listed)).toBeFalsy()
      expect(decodeList(listed.structuredContent).runs.map((run) => run.id), JSON.stringify(filters)).toEqual([id])
    }
    const none = await call(client, "svc_list_runs", { label: "team:other" })
    expect(decodeList(none.structuredContent)).toEqual({ runs: [], next_cursor: null })
    expect(firstText(none)).toBe("No runs match.")

    const { result, run } = await untilEnded(client, id)
    expect(run).toMatchObject({ id, status: "done", external_id: "ticket-1", labels: { team: "billing" }, source: "api", attempts: 1 })
    expect(run.report?.patterns.map((lens) => lens.pattern)).toEqual(["lewin"])
    expect(run.severity).toBe(run.report?.severity)
    expect(firstText(result)).toContain(`Run ${id}: done`)
    expect(firstText(result)).toContain("Diagnose of a")
    // The tool's run is REST's run.
    const viaRest = await rest(service, `/v1/runs/${id}`)
    expect(viaRest.status).toBe(200)
    expect(result.structuredContent).toEqual(JSON.parse(viaRest.text))

    // Markdown: the page of GET /v1/runs/{id}/report?output=markdown, by the same renderer.
    const markdown = await call(client, "svc_get_run", { id, output: "markdown" })
    expect(markdown.isError, firstText(markdown)).toBeFalsy()
    const page = await rest(service, `/v1/runs/${id}/report?output=markdown`)
    expect(page.status).toBe(200)
    expect(firstText(markdown)).toBe(page.text)
    expect(markdown.structuredContent).toEqual(result.structuredContent)

    // Done runs filter by severity and pattern too.
    const done = await call(client, "svc_list_runs", { status: "done", pattern: "lewin" })
    expect(decodeList(done.structuredContent).runs.map((listed) => listed.id)).toEqual([id])
    await client.close()
  }, 30_000)

  it("errors are tool errors with REST's kind and message: validation, conflict, not_found", async () => {
    const service = await withWorkers({ SVC_WORKERS: "0" })
    const { client } = await connectHttp(service.url)
    const expectSameError = async (result: Awaited<ReturnType<typeof call>>, viaRest: { readonly status: number; readonly text: string }, kind: string) => {
      expect(result.isError).toBe(true)
      const body = decodeError(result.structuredContent)
      expect(body.detail.error).toBe(kind)
      expect(body).toEqual(JSON.parse(viaRest.text))
      expect(firstText(result)).toBe(`${body.detail.error}: ${body.detail.message}`)
    }

    const first = await call(client, "svc_submit_run", { trace: exampleTrace("lewin"), ...lensArguments, external_id: "ticket-9" })
    expect(first.isError, firstText(first)).toBeFalsy()
    const other = { trace: { ...exampleTrace("lewin"), task: "another task" }, ...lensArguments, external_id: "ticket-9" }
    await expectSameError(await call(client, "svc_submit_run", other), await rest(service, "/v1/runs", { body: other }), "conflict")

    const badLabels = { trace: exampleTrace("lewin"), labels: { "Not A Key": "x" } }
    await expectSameError(await call(client, "svc_submit_run", badLabels), await rest(service, "/v1/runs", { body: badLabels }), "validation_error")
    const badMode = { trace: exampleTrace("lewin"), mode: "bogus" }
    await expectSameError(await call(client, "svc_submit_run", badMode), await rest(service, "/v1/runs", { body: badMode }), "invalid_mode")
    const missing = await call(client, "svc_submit_run", {})
    expect(decodeError(missing.structuredContent).detail.message).toContain("`trace` is required")

    await expectSameError(await call(client, "svc_get_run", { id: "run_nope" }), await rest(service, "/v1/runs/run_nope"), "not_found")
    await expectSameError(await call(client, "svc_list_runs", { since: "yesterday" }), await rest(service, "/v1/runs?since=yesterday"), "validation_error")
    // The tools' own arguments are decoded by their schema: a field path names what is wrong.
    for (const args of [{ status: "bogus" }, { limit: 0 }, { limit: "ten" }]) {
      const refused = await call(client, "svc_list_runs", args)
      expect(refused.isError, JSON.stringify(args)).toBe(true)
      expect(decodeError(refused.structuredContent).detail.error).toBe("validation_error")
    }
    const noId = await call(client, "svc_get_run", { output: "markdown" })
    expect(decodeError(noId.structuredContent).detail).toMatchObject({ error: "validation_error", message: expect.stringContaining("id") })
    const html = await call(client, "svc_get_run", { id: "run_nope", output: "html" })
    expect(decodeError(html.structuredContent).detail).toMatchObject({ error: "validation_error", message: expect.stringContaining("output") })

    // A run not done yet: no report, and the text says so, in either output.
    const queued = decodeSubmitted(first.structuredContent).runs[0]?.id ?? ""
    for (const output of ["json", "markdown"]) {
      const pending = await call(client, "svc_get_run", { id: queued, output })
      expect(pending.isError).toBeFalsy()
      expect(decodeRun(pending.structuredContent)).toMatchObject({ id: queued, status: "queued" })
      expect(decodeRun(pending.structuredContent).report).toBeUndefined()
      expect(firstText(pending)).toContain("Not done yet")
    }
    await client.close()
  })

  it("store_unavailable while the runs store cannot be opened; analyses are unaffected", async () => {
    // SVC_HOME names a file: the store (SVC_HOME/svc.db) cannot be opened.
    const file = join(home(), "not-a-directory")
    writeFileSync(file, "")
    const service = await withWorkers({ SVC_WORKERS: "0", SVC_HOME: file })
    const { client } = await connectHttp(service.url)
    const listed = await call(client, "svc_list_runs", {})
    expect(listed.isError).toBe(true)
    const viaRest = await rest(service, "/v1/runs")
    expect(viaRest.status).toBe(503)
    expect(listed.structuredContent).toEqual(JSON.parse(viaRest.text))
    expect(decodeError(listed.structuredContent).detail.error).toBe("store_unavailable")
    const submitted = await call(client, "svc_submit_run", { trace: exampleTrace("lewin"), ...lensArguments })
    expect(decodeError(submitted.structuredContent).detail.error).toBe("store_unavailable")
    const diagnosed = await call(client, "svc_diagnose", { trace: exampleTrace("lewin"), ...lensArguments })
    expect(diagnosed.isError, firstText(diagnosed)).toBeFalsy()
    await client.close()
  })

  it("with keys, each key sees its own scope's runs: another key's run is not_found and not listed", async () => {
    const service = await withWorkers({ SVC_WORKERS: "0", SVC_API_REQUIRE_AUTH: "true", SVC_API_KEYS: `alice=${ALICE},bob=${BOB}` })
    const alice = (await connectHttp(service.url, bearer(ALICE))).client
    const bob = (await connectHttp(service.url, bearer(BOB))).client
    const submitted = await call(alice, "svc_submit_run", { trace: exampleTrace("lewin"), ...lensArguments, external_id: "shared-name" })
    expect(submitted.isError, firstText(submitted)).toBeFalsy()
    const id = decodeSubmitted(submitted.structuredContent).runs[0]?.id ?? ""

    expect(decodeRun((await call(alice, "svc_get_run", { id })).structuredContent).id).toBe(id)
    const hidden = await call(bob, "svc_get_run", { id })
    expect(hidden.isError).toBe(true)
    expect(decodeError(hidden.structuredContent).detail.error).toBe("not_found")
    const viaRest = await rest(service, `/v1/runs/${id}`, { key: BOB })
    expect(viaRest.status).toBe(404)
    expect(hidden.structuredContent).toEqual(JSON.parse(viaRest.text))
    expect(decodeList((await call(bob, "svc_list_runs", {})).structuredContent).runs).toEqual([])
    expect(decodeList((await call(bob, "svc_list_runs", { external_id: "shared-name" })).structuredContent).runs).toEqual([])
    expect(decodeList((await call(alice, "svc_list_runs", {})).structuredContent).runs.map((run) => run.id)).toEqual([id])
    // An external id names a run per scope: bob may use the same one for another trace.
    const bobs = await call(bob, "svc_submit_run", { trace: { ...exampleTrace("lewin"), task: "bob's" }, ...lensArguments, external_id: "shared-name" })
    expect(bobs.isError, firstText(bobs)).toBeFalsy()
    await alice.close()
    await bob.close()
  })

  it("roles: a read key calls every runs tool; an ingest key is refused at /mcp (it submits through POST /v1/runs)", async () => {
    const service = await withWorkers({
      SVC_WORKERS: "0",
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: `agents=${AGENTS},bob=${BOB}`,
      SVC_API_KEY_ROLES: "agents=ingest@billing,bob=read@billing"
    })
    await expect(connectHttp(service.url, bearer(AGENTS))).rejects.toThrow(/"error":"forbidden"/)
    const submittedByAgents = await rest(service, "/v1/runs", { key: AGENTS, body: { trace: exampleTrace("lewin"), ...lensArguments } })
    expect(submittedByAgents.status).toBe(202)
    const id = decodeSubmitted(JSON.parse(submittedByAgents.text)).runs[0]?.id ?? ""
    const { client } = await connectHttp(service.url, bearer(BOB))
    // One scope (billing): bob reads the agents' run, and submits his own.
    expect(decodeRun((await call(client, "svc_get_run", { id })).structuredContent).id).toBe(id)
    const submitted = await call(client, "svc_submit_run", { trace: { ...exampleTrace("lewin"), task: "bob's" }, ...lensArguments })
    expect(submitted.isError, firstText(submitted)).toBeFalsy()
    expect(decodeList((await call(client, "svc_list_runs", {})).structuredContent).runs).toHaveLength(2)
    await client.close()
  })
})

describe("the runs tools' roles over stdio (svc mcp)", () => {
  it("an ingest key calls svc_submit_run and is refused every other tool, by the guards, per call", async () => {
    const { client } = await connectStdio({
      SVC_HOME: home(),
      SVC_API_REQUIRE_AUTH: "true",
      SVC_API_KEYS: `agents=${AGENTS},bob=${BOB}`,
      SVC_API_KEY_ROLES: "agents=ingest",
      SVC_API_KEY: AGENTS
    })
    try {
      const submitted = await call(client, "svc_submit_run", { trace: exampleTrace("lewin"), ...lensArguments })
      expect(submitted.isError, firstText(submitted)).toBeFalsy()
      const id = decodeSubmitted(submitted.structuredContent).runs[0]?.id ?? ""
      for (const [name, args] of [["svc_get_run", { id }], ["svc_list_runs", {}], ["svc_diagnose", { trace: exampleTrace("lewin") }], ["svc_list_patterns", {}]] as const) {
        const refused = await call(client, name, args)
        expect(refused.isError, name).toBe(true)
        expect(decodeError(refused.structuredContent).detail).toEqual({
          error: "forbidden",
          message: `this API key's role (ingest) may not call ${name}; it needs read (SVC_API_KEY_ROLES)`
        })
      }
    } finally {
      await client.close()
    }
  }, 30_000)
})
