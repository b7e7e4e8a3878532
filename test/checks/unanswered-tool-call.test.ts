import { describe, expect, it } from "@effect/vitest"
import { unansweredToolCall } from "../../src/Checks/UnansweredToolCall.js"
import { agentError, call, citedOf, handoff, longTrace, result, runOne, say, traceOf, user } from "./support.js"

describe("unanswered_tool_call", () => {
  it("fires on a call no result answered (by call id) while the run went on", () => {
    const trace = traceOf([
      user("Check stock and price of SKU 42"),
      call("check_stock", '{"sku":42}', "call_a"),
      call("get_price", '{"sku":42}', "call_b"),
      result("check_stock", "12 in stock", "call_a"),
      say("We have 12 in stock.")
    ])
    const { findings } = runOne(unansweredToolCall, trace)
    expect(findings).toHaveLength(1)
    expect(citedOf(findings[0])).toEqual([2])
    expect(findings[0]?.severity).toBe("medium")
    expect(findings[0]?.evidence[0]?.quote).toBe('{"sku":42}')
    expect(findings[0]?.explanation).toBe("get_price was called at events[2] (call_b) and it was never answered (no result, no error); the run went on to events[4].")
  })

  it("pairs calls without ids in order per tool, and groups a tool's unanswered calls", () => {
    const trace = traceOf([call("search", '{"q":1}'), call("search", '{"q":2}'), call("search", '{"q":3}'), result("search", "r1"), say("Done.")])
    const { findings } = runOne(unansweredToolCall, trace)
    expect(findings).toHaveLength(1)
    expect(citedOf(findings[0])).toEqual([1, 2])
    expect(findings[0]?.explanation).toContain("none of these 2 calls was answered")
  })

  it("fires on a call still open when a run that failed ended, citing the error too", () => {
    const trace = traceOf([user("Deploy"), call("build", "{}", "b1"), result("build", "built", "b1"), call("deploy", '{"env":"prod"}', "d1"), agentError("Run timed out after 600s")], { success: false })
    const [finding] = runOne(unansweredToolCall, trace).findings
    expect(citedOf(finding)).toEqual([3, 4])
    expect(finding?.explanation).toContain("the run ended with an error while it was open (events[4]: Run timed out after 600s)")
    // the same with no answer to any call: a format that does not record them
    expect(runOne(unansweredToolCall, traceOf([user("Deploy"), call("deploy", "{}", "d1"), agentError("Run timed out")], { success: false })).findings).toEqual([])
  })

  it("is quiet where a missing answer says nothing", () => {
    // the format records no answers at all (one completion with its tool calls)
    expect(runOne(unansweredToolCall, traceOf([user("weather?"), call("get_weather", '{"city":"Paris"}'), call("get_weather", '{"city":"Rome"}')])).findings).toEqual([])
    // the call's own event says how it went (a hosted tool whose results come inline)
    const hosted = traceOf([{ ...call("web_search", '{"q":"pi price"}'), status: "ok" }, call("convert", "{}", "c"), result("convert", "73.6", "c"), say("About 73.60 EUR.")])
    expect(runOne(unansweredToolCall, hosted).findings).toEqual([])
    // a hosted tool whose results come back inside the model's output (Responses' web_search_call), and an answer given through a tool
    const responses = traceOf([call("web_search", '{"type":"search","query":"pi price"}', "ws_1"), call("convert", "{}", "c"), result("convert", "73.6", "c"), say("About 73.60 EUR.")])
    expect(runOne(unansweredToolCall, responses).findings).toEqual([])
    const pydantic = traceOf([call("lookup", "{}", "l"), result("lookup", "found", "l"), call("final_result", '{"quality":"good"}', "r")], { success: true })
    expect(runOne(unansweredToolCall, pydantic).findings).toEqual([])
    // the framework's turn limit stopped the run with the call open: turn_limit_reached's stop, not a lost answer
    const limit = traceOf([call("a", "{}", "1"), result("a", "ok", "1"), call("fetch_url", "{}", "2"), agentError("Max turns exceeded", { status_code: "MaxTurnsExceeded" })], { success: false })
    expect(runOne(unansweredToolCall, limit).findings).toEqual([])
    // a transfer tool that a handoff answers
    const transfer = traceOf([call("lookup", "{}", "l"), result("lookup", "found", "l"), call("transfer_to_billing", "{}"), handoff("agent", "billing"), say("Billing here: refunded.", "billing")])
    expect(runOne(unansweredToolCall, transfer).findings).toEqual([])
  })

  it("is low when the trace stops on the open call and does not say it ended: a run that stopped there, or a recording cut short", () => {
    const cut = traceOf([call("a", "{}", "1"), result("a", "ok", "1"), say("One moment while I do that."), call("b", "{}", "2")])
    const [finding, ...rest] = runOne(unansweredToolCall, cut).findings
    expect(rest).toEqual([])
    expect(finding?.severity).toBe("low")
    expect(finding?.explanation).toBe("b was called at events[3] (2) and it was never answered (no result, no error); the trace ends on it and does not say whether the run ended there or its recording was cut short.")
    // the same stop in a run that says it ended is medium
    expect(runOne(unansweredToolCall, traceOf(cut.events, { success: true })).findings[0]?.severity).toBe("medium")
  })

  it("pairs a result without an id with its tool's newest open call: a call left open earlier stays open (LangSmith's tool runs carry no id)", () => {
    const trace = traceOf([
      call("search_docs", '{"query":"refunds"}', "call_a"),
      call("fetch_url", '{"url":"https://x"}', "call_b"),
      { actor: "fetch_url", role: "tool", kind: "tool_result", tool: "fetch_url", content: "page" },
      call("search_docs", '{"query":"retry budget"}', "call_c"),
      { actor: "search_docs", role: "tool", kind: "tool_result", tool: "search_docs", content: "Release 2.4" },
      say("Release 2.4.")
    ])
    const [finding] = runOne(unansweredToolCall, trace).findings
    expect(citedOf(finding)).toEqual([0])
  })

  it("pairs answers the view could not: an id on the call but not on its result, a result naming no tool that was called", () => {
    const trace = traceOf([
      call("Grep", '{"pattern":"x"}', "toolu_1"),
      { actor: "tool", role: "tool", kind: "tool_result", content: "a.ts:3" },
      call("Read", '{"path":"a.ts"}', "toolu_2"),
      result("Read", "contents"),
      say("Found it in a.ts.")
    ])
    expect(runOne(unansweredToolCall, trace).findings).toEqual([])
  })

  it("reads a content-free trace by its call ids: described, not quoted", () => {
    const bare = traceOf([
      { actor: "agent", role: "agent", kind: "tool_call", tool: "get_weather", content: "", call_id: "p" },
      { actor: "agent", role: "agent", kind: "tool_call", tool: "get_weather", content: "", call_id: "l" },
      { actor: "get_weather", role: "tool", kind: "tool_result", tool: "get_weather", content: "", call_id: "p", status: "ok" },
      { actor: "agent", role: "agent", kind: "message", content: "", finish_reason: "stop" }
    ])
    const [finding] = runOne(unansweredToolCall, bare).findings
    expect(finding?.evidence[0]).toMatchObject({ event: 1, quote: null, describes: "tool_call get_weather" })
  })

  it("is linear", () => {
    const trace = longTrace(1_000)
    expect(runOne(unansweredToolCall, trace).visits).toBeLessThanOrEqual(4 * trace.events.length)
    const open = traceOf([...Array.from({ length: 1_000 }, (_, n) => call("search", `{"q":${n}}`)), result("search", "r"), say("ok")])
    expect(runOne(unansweredToolCall, open).visits).toBeLessThanOrEqual(4 * open.events.length)
  })
})
