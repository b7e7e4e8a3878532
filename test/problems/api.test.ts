/**
 * Problems end to end (DECISIONS §19) on the embedded store, against the real service on a
 * loopback port with workers and the model provider replaced by the loopback double: runs of one
 * failure (the same finding over traces with other markers) make one problem per finding, counted
 * per run; a run links to its problems and a problem to its runs; list filters; roles (`read`
 * reads, `admin` resolves, merges and detaches); resolved → regressed; the digest in three outputs;
 * the same problems through MCP (`svc_list_problems`, `svc_get_problem`) and the CLI against the
 * service (`svc problems`, `svc digest`, through the typed client).
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { Problem, ProblemDetail, ProblemList } from "../../src/Contract/ProblemsContract.js"
import { useProviderDouble } from "../support/Harness.js"
import type { RunningService } from "../support/Service.js"
import { call, chatTrace, decoded, ErrorBody, freshHome, quotingEvents, submitOne, waitForRun } from "../runs/support.js"
import { svc } from "../cli/support.js"
import { connectHttp, firstText } from "../mcp/support.js"

const harness = useProviderDouble()
const READ_KEY = "read-key-problems-0123456789"
const ADMIN_KEY = "admin-key-problems-0123456789"
const OTHER_KEY = "other-key-problems-0123456789"

let service: RunningService
beforeAll(async () => {
  service = await harness.start({
    ANTHROPIC_API_KEY: "sk-ant-problems-0123456789",
    ANTHROPIC_BASE_URL: harness.double.url,
    SVC_WORKERS: "2",
    SVC_CACHE: "off",
    SVC_HOME: freshHome("problems"),
    SVC_API_REQUIRE_AUTH: "true",
    SVC_API_KEYS: `reader=${READ_KEY},boss=${ADMIN_KEY},other=${OTHER_KEY}`,
    SVC_API_KEY_ROLES: "reader=read@team,boss=admin@team,other=admin"
  })
})

const contentsOf = (marker: string) => chatTrace(marker).messages.map((message) => message.content)

/** A run of `marker`'s trace, diagnosed with one lens whose finding quotes messages 2 and 4. */
const runOf = async (marker: string, labels: Record<string, string> = {}, key = ADMIN_KEY) => {
  harness.double.script = quotingEvents(contentsOf(marker), [2, 4])
  const id = await submitOne(service, { trace: chatTrace(marker), mode: "quick", patterns: ["lewin"], labels }, { key })
  const run = await waitForRun(service, id, { key })
  expect(run.status).toBe("done")
  return run
}

const decodedList = Schema.decodeUnknownSync(ProblemList)
const decodedDetail = Schema.decodeUnknownSync(ProblemDetail)
const problems = async (query = "", key = READ_KEY) => decoded(await call(service, "GET", `/v1/problems${query}`, { key }), 200, ProblemList)
const problem = async (id: string, key = READ_KEY) => decoded(await call(service, "GET", `/v1/problems/${id}`, { key }), 200, ProblemDetail)

describe("problems across runs", () => {
  let problemId = ""
  it("runs of one failure make one problem, counted per run; the run links to it, it links to the runs", async () => {
    const first = await runOf("p1", { version: "1.3", agent: "billing" })
    const second = await runOf("p2", { version: "1.3", agent: "billing" })
    const third = await runOf("p3", { version: "1.4", agent: "support" })
    expect(first.problems?.length).toBe(1)
    const [ref] = first.problems ?? []
    problemId = ref?.id ?? ""
    expect(second.problems?.map((each) => each.id)).toEqual([problemId])
    expect(third.problems?.map((each) => each.id)).toEqual([problemId])
    const listed = await problems()
    expect(listed.problems.map((each) => each.id)).toEqual([problemId])
    // a listed problem's trend: 14 UTC days, today last, the days matching the detail's
    const detail = await problem(problemId)
    const recent = listed.problems[0]?.recent ?? []
    expect(recent).toHaveLength(14)
    const today = new Date().toISOString().slice(0, 10)
    expect(recent[13]).toBe(detail.days.find((day) => day.day === today)?.runs ?? 0)
    expect(recent.reduce((sum, runs) => sum + runs, 0)).toBe(3)
    expect(detail).toMatchObject({ status: "open", run_count: 3, severity: "high", patterns: ["lewin"] })
    expect(detail.examples.map((example) => example.run_id).sort()).toEqual([first.id, second.id, third.id].sort())
    expect(detail.examples[0]?.evidence.length).toBeGreaterThan(0)
    expect(detail.days.reduce((sum, day) => sum + day.runs, 0)).toBe(3)
    expect(detail.labels).toContainEqual({ key: "version", value: "1.3", runs: 2 })
    // another scope sees none of it
    expect((await problems("", OTHER_KEY)).problems).toEqual([])
    expect((await call(service, "GET", `/v1/problems/${problemId}`, { key: OTHER_KEY })).status).toBe(404)
  }, 60_000)

  it("filters by status, severity, pattern and label", async () => {
    expect((await problems("?status=open")).problems).toHaveLength(1)
    expect((await problems("?status=resolved")).problems).toHaveLength(0)
    expect((await problems("?severity=high")).problems).toHaveLength(1)
    expect((await problems("?severity=low")).problems).toHaveLength(0)
    expect((await problems("?pattern=lewin")).problems).toHaveLength(1)
    expect((await problems("?pattern=johari")).problems).toHaveLength(0)
    expect((await problems("?label=agent:support")).problems).toHaveLength(1)
    expect((await problems("?label=agent:nobody")).problems).toHaveLength(0)
    const refused = await call(service, "GET", "/v1/problems?status=closed", { key: READ_KEY })
    expect(refused.status).toBe(400)
    expect((await decoded(refused, 400, ErrorBody)).detail.error).toBe("validation_error")
  })

  it("a read key may not resolve (403); an admin resolves in a version; a run on an older version does not regress it, one on a new version does", async () => {
    const forbidden = await call(service, "PATCH", `/v1/problems/${problemId}`, { key: READ_KEY, body: { status: "resolved" } })
    expect(forbidden.status).toBe(403)
    const resolved = await decoded(await call(service, "PATCH", `/v1/problems/${problemId}`, { key: ADMIN_KEY, body: { status: "resolved", resolved_in_version: "1.5" } }), 200, Problem)
    expect(resolved).toMatchObject({ status: "resolved", resolved_in_version: "1.5" })
    await runOf("p4", { version: "1.4" })
    expect((await problem(problemId)).status).toBe("resolved")
    await runOf("p5", { version: "1.5" })
    const regressed = await problem(problemId)
    expect(regressed.status).toBe("regressed")
    expect(regressed.regressed_at).not.toBeNull()
    expect(regressed.run_count).toBe(5)
  }, 60_000)

  it("the digest: JSON, Markdown and HTML", async () => {
    const digest = await call(service, "GET", "/v1/digest", { key: READ_KEY })
    expect(digest.status).toBe(200)
    const body: unknown = await digest.json()
    expect(body).toMatchObject({ new: [{ id: problemId }], regressed: [{ id: problemId }], recurring: [{ problem: { id: problemId }, runs: 5 }], runs_finished: 5 })
    const markdown = await call(service, "GET", "/v1/digest?output=markdown", { key: READ_KEY })
    expect(markdown.headers.get("content-type")).toContain("text/markdown")
    expect(await markdown.text()).toContain(problemId)
    const html = await call(service, "GET", "/v1/digest?output=html", { key: READ_KEY })
    expect(html.headers.get("content-type")).toContain("text/html")
    expect(await html.text()).toContain("<h2>Regressed</h2>")
  })

  it("MCP: svc_list_problems and svc_get_problem answer what /v1/problems answers, in the key's scope", async () => {
    const { client } = await connectHttp(service.url, { authorization: `Bearer ${READ_KEY}` })
    const listed = await client.callTool({ name: "svc_list_problems", arguments: { status: "regressed" } })
    expect(listed.isError, firstText(listed)).toBeFalsy()
    const list = decodedList(listed.structuredContent)
    expect(list.problems.map((each) => each.id)).toEqual([problemId])
    expect(firstText(listed)).toContain(problemId)
    const got = await client.callTool({ name: "svc_get_problem", arguments: { id: problemId } })
    expect(got.isError, firstText(got)).toBeFalsy()
    expect(decodedDetail(got.structuredContent)).toMatchObject({ id: problemId, run_count: 5, status: "regressed" })
    expect(firstText(got)).toContain("Runs per day")
    const missing = await client.callTool({ name: "svc_get_problem", arguments: { id: "prb_nope" } })
    expect(missing.isError).toBe(true)
    expect(firstText(missing)).toContain("not_found")
    await client.close()
    const { client: other } = await connectHttp(service.url, { authorization: `Bearer ${OTHER_KEY}` })
    const none = await other.callTool({ name: "svc_list_problems", arguments: {} })
    expect(decodedList(none.structuredContent).problems).toEqual([])
    await other.close()
  })

  it("the CLI against the service: svc problems list / show / ignore (admin only) and svc digest", async () => {
    const env = { SVC_API_KEY: READ_KEY }
    const listed = await svc(["problems", "list", "--url", service.url], { env })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(problemId)
    const shown = await svc(["problems", "show", problemId, "--json", "--url", service.url], { env })
    expect(shown.code, shown.stderr).toBe(0)
    expect(decodedDetail(JSON.parse(shown.stdout))).toMatchObject({ id: problemId })
    const refused = await svc(["problems", "ignore", problemId, "--url", service.url], { env })
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain("forbidden")
    const ignored = await svc(["problems", "ignore", problemId, "--url", service.url], { env: { SVC_API_KEY: ADMIN_KEY } })
    expect(ignored.code, ignored.stderr).toBe(0)
    expect((await problem(problemId)).status).toBe("ignored")
    const digest = await svc(["digest", "--url", service.url], { env })
    expect(digest.code, digest.stderr).toBe(0)
    expect(digest.stdout).toContain("## Most recurring")
    expect(digest.stdout).toContain(problemId)
  }, 60_000)

  it("merge and detach (admin): a merged problem's id leads to its target; a detached run makes a new problem", async () => {
    // another run of the same failure (the double's lens has one finding title): it joins the problem, then is detached into its own
    harness.double.script = quotingEvents(contentsOf("q1"), [1, 3], "medium")
    const run = await runOf("q1")
    expect(run.problems?.map((each) => each.id)).toEqual([problemId])
    {
      const detached = await decoded(await call(service, "POST", `/v1/problems/${problemId}/detach`, { key: ADMIN_KEY, body: { run_id: run.id } }), 200, Problem)
      expect(detached.id).not.toBe(problemId)
      expect(detached.run_count).toBe(1)
      expect((await problem(problemId)).run_count).toBe(5)
      // merged back: its id now leads to the first problem, with the run counted there again
      expect((await call(service, "POST", `/v1/problems/${detached.id}/merge`, { key: READ_KEY, body: { into: problemId } })).status).toBe(403)
      const merged = await decoded(await call(service, "POST", `/v1/problems/${detached.id}/merge`, { key: ADMIN_KEY, body: { into: problemId } }), 200, Problem)
      expect(merged).toMatchObject({ id: problemId, run_count: 6 })
      expect((await problem(detached.id)).id).toBe(problemId)
      expect((await problems()).problems.map((each) => each.id)).toEqual([problemId])
      const self = await call(service, "POST", `/v1/problems/${problemId}/merge`, { key: ADMIN_KEY, body: { into: problemId } })
      expect(self.status).toBe(400)
      // a change is JSON (415 otherwise) of the contract's shape (400 naming the field)
      const form = await call(service, "PATCH", `/v1/problems/${problemId}`, { key: ADMIN_KEY, body: "status=open", contentType: "application/x-www-form-urlencoded" })
      expect(form.status).toBe(415)
      const wrong = await call(service, "PATCH", `/v1/problems/${problemId}`, { key: ADMIN_KEY, body: { status: "closed" } })
      expect(wrong.status).toBe(400)
      const said = (await decoded(wrong, 400, ErrorBody)).detail.message
      expect(said).toBe("status: Expected \"open\" | \"resolved\" | \"ignored\", actual \"closed\"")
      // about the change sent, not "the trace" (a change holds none)
      expect(said).not.toContain("trace")
    }
  }, 60_000)
})
