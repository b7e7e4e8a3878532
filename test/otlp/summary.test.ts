/**
 * A trace's labels as the OTLP intake takes them from its root's resource (src/Otlp/Assembly.ts
 * `summarize`): at most MAX_LABEL_VALUE characters, and no U+0000, which neither store keeps in
 * text (PostgreSQL refuses it; a request's labels with it are a 400, RunLabels).
 */
import { describe, expect, it } from "@effect/vitest"
import { MAX_LABEL_VALUE } from "../../src/Contract/RunsContract.js"
import type { Span } from "../../src/Otlp/Wire/Model.js"
import { summarize } from "../../src/Otlp/Assembly.js"

const root: Span = {
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  name: "invoke_agent billing",
  kind: 1,
  startTimeUnixNano: "1767225600000000000",
  endTimeUnixNano: "1767225601000000000",
  attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "invoke_agent" } }, { key: "gen_ai.agent.name", value: { stringValue: "billing\u0000agent" } }],
  events: [],
  links: []
}

describe("OTLP labels", () => {
  it("drop U+0000 and keep at most MAX_LABEL_VALUE characters", () => {
    const resource = {
      attributes: [
        { key: "service.name", value: { stringValue: "check\u0000out" } },
        { key: "service.version", value: { stringValue: "\u0000" } },
        { key: "deployment.environment.name", value: { stringValue: "p".repeat(MAX_LABEL_VALUE + 10) } }
      ]
    }
    const { labels } = summarize([{ span: root, resource }], 0)
    expect(labels).toEqual({ service: "checkout", agent: "billingagent", environment: "p".repeat(MAX_LABEL_VALUE) })
  })
})
