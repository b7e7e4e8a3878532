import { describe, expect, it } from "@effect/vitest"
import { toolErrorUnrecovered } from "../../src/Checks/ToolErrorUnrecovered.js"
import { call, citedOf, failure, longTrace, result, runOne, say, traceOf, user } from "./support.js"

const refund = traceOf([
  user("Refund order 1182 please"),
  call("issue_refund", '{"order":"1182"}', "call_1"),
  failure("issue_refund", "503 Service Unavailable: payments gateway down", "call_1"),
  say("Done! Your refund for order 1182 has been issued.")
])

describe("tool_error_unrecovered", () => {
  it("fires on a tool error the run carried on past, citing the error, the call and the answer", () => {
    const { findings } = runOne(toolErrorUnrecovered, refund)
    expect(findings).toHaveLength(1)
    const [finding] = findings
    expect(finding?.severity).toBe("high")
    expect(citedOf(finding)).toEqual([2, 1, 3])
    expect(finding?.explanation).toContain("issue_refund failed at events[2] (503 Service Unavailable")
    expect(finding?.playbook).toBe("lewin/environmental.tool_failure_unhandled")
  })

  it("is quiet when a later call of the tool succeeded, or the answer owns up to the failure", () => {
    const retried = traceOf([
      call("issue_refund", "{}", "a"),
      failure("issue_refund", "503", "a"),
      call("issue_refund", "{}", "b"),
      result("issue_refund", "refund r_1 issued", "b"),
      say("Done, refunded.")
    ])
    expect(runOne(toolErrorUnrecovered, retried).findings).toEqual([])
    const owned = traceOf([call("issue_refund", "{}", "a"), failure("issue_refund", "503", "a"), say("Sorry, the refund could not be issued: the gateway is down.")])
    expect(runOne(toolErrorUnrecovered, owned).findings).toEqual([])
  })

  it("is quiet when the agent owned up in a message before its final answer, or said so and took another way that worked", () => {
    const toldEarly = traceOf([
      call("query_metrics", '{"metric":"gateway.p99"}'),
      failure("query_metrics", "metric gateway.p99 is not exported in this region"),
      say("The gateway metric is missing here."),
      say("The database is healthy; look at the gateway status page next.")
    ])
    expect(runOne(toolErrorUnrecovered, toldEarly).findings).toEqual([])
    const otherWay = traceOf([
      call("web_search_exa", '{"query":"stars"}'),
      failure("web_search_exa", "Permission to use web_search_exa has been rejected."),
      say("Let me fetch the repository page directly."),
      call("web_fetch", '{"url":"https://github.com/x/y"}'),
      result("web_fetch", "894 stars"),
      say("The repository has 894 stars.")
    ])
    expect(runOne(toolErrorUnrecovered, otherWay).findings).toEqual([])
    // a silent switch to another tool is not taking another way: nothing says the first one failed
    const silent = traceOf([call("issue_refund", "{}"), failure("issue_refund", "503"), call("send_email", "{}"), result("send_email", "sent"), say("Done! Refunded.")])
    expect(runOne(toolErrorUnrecovered, silent).findings).toHaveLength(1)
  })

  it("takes an acknowledgement only of this failure: a message naming another failure, or a failure word about something else, is none", () => {
    // Chat Completions: two failures; the agent speaks of the first (Berlin) only, and works around it
    const chat = traceOf([
      user("Do I need an umbrella in Paris and Berlin?"),
      call("get_weather", '{"city": "Berlin"}', "w"),
      failure("get_weather", "Error: weather service timed out for Berlin", "w"),
      call("get_job_status", '{"job_id":"job_5b04"}', "j"),
      failure("get_job_status", "HTTPError: 404 Client Error: Not Found for url: https://batch.internal/v1/jobs/job_5b04", "j"),
      say("The Berlin lookup failed, so I will check tomorrow's forecast instead."),
      call("get_forecast", '{"city": "Berlin"}', "f"),
      result("get_forecast", "showers", "f"),
      say("Take an umbrella: showers in Berlin tomorrow.")
    ])
    const findings = runOne(toolErrorUnrecovered, chat).findings
    expect(findings.map((finding) => finding.explanation.split(" ")[0])).toEqual(["get_job_status"])
    // a "retry budget" owns up to nothing
    const budget = traceOf([call("deploy_service", '{"service":"auth"}', "d"), failure("deploy_service", "DeploymentError: rollout timed out", "d"), say("The retry budget setting was introduced in release 2.4.")])
    expect(runOne(toolErrorUnrecovered, budget).findings).toHaveLength(1)
    // the agent's next words, naming nothing, are about the failure just before them
    const next = traceOf([call("deploy_service", "{}", "d"), failure("deploy_service", "DeploymentError: rollout timed out", "d"), say("That failed; I will not retry it."), say("Anything else?")])
    expect(runOne(toolErrorUnrecovered, next).findings).toEqual([])
    // an apology for something else later on is no acknowledgement
    const later = traceOf([call("deploy_service", "{}", "d"), failure("deploy_service", "DeploymentError: rollout timed out", "d"), say("Let me look at the photo."), call("describe_image", "{}", "i"), result("describe_image", "a person", "i"), say("I'm sorry, but I can't identify people in images.")])
    expect(runOne(toolErrorUnrecovered, later).findings).toHaveLength(1)
  })

  it("reads the errors SDKs write into status-less tool messages, in their wordings, and not a result that merely starts with a name", () => {
    const chat = (text: string) => traceOf([call("run_sql", '{"query":"SELECT 1"}', "q"), { actor: "run_sql", role: "tool", kind: "tool_result", tool: "run_sql", call_id: "q", content: text }, say("The count is 31566.")])
    for (const text of [
      "ReadTimeout: HTTPSConnectionPool(host='search.internal', port=443): Read timed out. (read timeout=30)",
      "UndefinedTable: relation \"orders_2023\" does not exist",
      "requests.exceptions.ConnectionError('Connection aborted.')",
      "SMTPRecipientsRefused: {'a@b.c': (550, b'5.1.1 does not exist')}",
      "Error executing tool run_sql: canceling statement due to statement timeout",
      "1 validation error for run_sql\nquery\n  Field required",
      '{"error":{"type":"HTTPError","message":"401 Client Error"}}'
    ]) expect(runOne(toolErrorUnrecovered, chat(text)).findings, text).toHaveLength(1)
    for (const text of ["GitHub: 894 stars", "Changelog\n\n2.4.0 — Added the retry budget setting.", '[{"count":31566}]', "ErrorBudget: 99.9% remaining"]) {
      expect(runOne(toolErrorUnrecovered, chat(text)).findings, text).toEqual([])
    }
  })

  it("pairs an error without a call id with its tool's call (LangSmith's tool runs), and is low when a failed read was replaced by another source the answer names", () => {
    const langsmith = traceOf([
      user("Which release introduced the retry budget setting?"),
      call("search_docs", '{"query":"retry budget"}', "call_search_1"),
      { actor: "search_docs", role: "tool", kind: "tool_result", tool: "search_docs", content: "Release 2.4 notes: added the retry budget setting." },
      call("fetch_page", '{"url":"https://docs.example.test/changelog"}', "call_fetch_2"),
      { actor: "fetch_page", role: "tool", kind: "error", tool: "fetch_page", status: "error", content: "Error: fetch_page failed: 503 Service Unavailable" },
      say("The retry budget setting was introduced in release 2.4, according to the search results.")
    ], { success: true })
    const [finding] = runOne(toolErrorUnrecovered, langsmith).findings
    expect(citedOf(finding)).toEqual([4, 3, 5])
    expect(finding?.severity).toBe("low")
    expect(finding?.explanation).toContain("it says it rests on search_docs's results instead")
    // an action that failed stays high, whatever the answer rests on
    const action = traceOf([...langsmith.events.slice(0, 3), call("deploy_service", '{"service":"auth"}', "d"), failure("deploy_service", "DeploymentError: rollout timed out", "d"), langsmith.events[5] ?? say("")])
    expect(runOne(toolErrorUnrecovered, action).findings[0]?.severity).toBe("high")
  })

  it("gives one finding per tool and error class, the first failure decisive, with the count", () => {
    const trace = traceOf([
      call("bash", "make test"),
      failure("bash", "make: *** No rule to make target 'test'."),
      call("bash", "make test"),
      failure("bash", "make: *** No rule to make target 'test'."),
      say("Here is the summary of the repository.")
    ])
    const { findings } = runOne(toolErrorUnrecovered, trace)
    expect(findings).toHaveLength(1)
    expect(citedOf(findings[0])).toEqual([1, 0, 4, 3])
    expect(findings[0]?.explanation).toContain("bash failed at events[1], events[3] (2 times)")
  })

  it("leaves a framework's stop on a tool's step to turn_limit_reached", () => {
    const trace = traceOf([call("python_interpreter", "print(1)"), failure("python_interpreter", "Reached max steps.")])
    expect(runOne(toolErrorUnrecovered, trace).findings).toEqual([])
  })

  it("reads a content-free trace by its statuses: medium, described, not quoted", () => {
    const bare = traceOf([
      { actor: "agent", role: "agent", kind: "tool_call", tool: "issue_refund", content: "", call_id: "x" },
      { actor: "issue_refund", role: "tool", kind: "tool_result", tool: "issue_refund", content: "", call_id: "x", status: "error", status_code: "503" },
      { actor: "agent", role: "agent", kind: "message", content: "", finish_reason: "stop" }
    ])
    const [finding] = runOne(toolErrorUnrecovered, bare).findings
    expect(finding?.severity).toBe("medium")
    expect(finding?.evidence[0]).toMatchObject({ quote: null, describes: "tool_result issue_refund, status error 503" })
  })

  it("is linear: on a 2,000-event trace it reads each event a bounded number of times", () => {
    const trace = longTrace(1_000)
    const { visits } = runOne(toolErrorUnrecovered, trace)
    expect(visits).toBeLessThanOrEqual(4 * trace.events.length)
    // a thousand failures, then a thousand messages owning up to them: the messages are read once each
    const failing = traceOf([
      ...Array.from({ length: 1_000 }, (_, n) => [call("bash", `make ${n}`, `c${n}`), failure("bash", "make: *** No rule to make target.", `c${n}`)]).flat(),
      ...Array.from({ length: 1_000 }, () => say("That failed again, sorry."))
    ])
    const noisy = runOne(toolErrorUnrecovered, failing)
    expect(noisy.findings).toEqual([])
    expect(noisy.visits).toBeLessThanOrEqual(4 * failing.events.length)
  })
})
