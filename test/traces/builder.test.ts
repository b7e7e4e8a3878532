/**
 * The trace builder's history de-duplication (src/Traces/Builder.ts, DECISIONS §12): history
 * repeated across model calls becomes one event per message, while a tool genuinely called again
 * with the same arguments (a call's own output) stays twice; and the task taken from the user's
 * input only when an importer asks for it.
 */
import { describe, expect, it } from "@effect/vitest"
import { type EventInput, makeTraceBuilder } from "../../src/Traces/Builder.js"

const user = (content: string, source: string): EventInput => ({ actor: "user", role: "user", kind: "message", content, source })
const call = (content: string, source: string): EventInput => ({ actor: "assistant", role: "agent", kind: "tool_call", tool: "search", content, source })
const result = (content: string, source: string): EventInput => ({ actor: "search", role: "tool", kind: "tool_result", tool: "search", content, source })

describe("TraceBuilder.addHistory", () => {
  it("de-duplicates history repeated across calls, the outputs included", () => {
    const builder = makeTraceBuilder(null)
    builder.addHistory([user("find x", "c0.in[0]"), call("{\"q\":\"x\"}", "c0.out[0]")], { outputFrom: 1 })
    builder.addHistory([user("find x", "c1.in[0]"), call("{\"q\":\"x\"}", "c1.in[1]"), result("none", "c1.in[2]"), call("{\"q\":\"x y\"}", "c1.out[0]")], { outputFrom: 3 })
    builder.addHistory([user("find x", "c2.in[0]"), call("{\"q\":\"x\"}", "c2.in[1]"), result("none", "c2.in[2]"), call("{\"q\":\"x y\"}", "c2.in[3]")])
    expect(builder.build().events.map((event) => event.source)).toEqual(["c0.in[0]", "c0.out[0]", "c1.in[2]", "c1.out[0]"])
  })

  it("keeps an identical call made again independently: a call's output is never history", () => {
    const builder = makeTraceBuilder(null)
    // Two fresh conversations (a sub-agent asked the same thing twice) each call the same tool with the same arguments.
    builder.addHistory([user("find x", "c0.in[0]"), call("{\"q\":\"x\"}", "c0.out[0]")], { outputFrom: 1 })
    builder.addHistory([user("find x", "c1.in[0]"), call("{\"q\":\"x\"}", "c1.out[0]")], { outputFrom: 1 })
    // A third call carrying both as history adds nothing.
    builder.addHistory([user("find x", "c2.in[0]"), call("{\"q\":\"x\"}", "c2.in[1]"), call("{\"q\":\"x\"}", "c2.in[2]")])
    expect(builder.build().events.map((event) => event.source)).toEqual(["c0.in[0]", "c0.out[0]", "c1.out[0]"])
  })

  it("without outputFrom, reads every message by occurrence, as before", () => {
    const builder = makeTraceBuilder(null)
    builder.addHistory([user("find x", "c0[0]"), call("{\"q\":\"x\"}", "c0[1]")])
    builder.addHistory([user("find x", "c1[0]"), call("{\"q\":\"x\"}", "c1[1]"), result("none", "c1[2]"), call("{\"q\":\"x\"}", "c1[3]")])
    expect(builder.build().events.map((event) => event.source)).toEqual(["c0[0]", "c0[1]", "c1[2]", "c1[3]"])
  })
})

describe("TraceBuilder task", () => {
  it("is the user's input, never the model's answer: empty until the user says something", () => {
    const answer: EventInput = { actor: "assistant", role: "agent", kind: "message", content: "Sunny.", source: "content[0]" }
    const builder = makeTraceBuilder(null)
    builder.add(answer)
    expect(builder.build().task).toBe("")
    builder.add(user("Weather?", "messages[0]"))
    expect(builder.build().task).toBe("Weather?")
  })
})
