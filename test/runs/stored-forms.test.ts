/**
 * A run's stored request and dedupe key, put together from one serialisation of the trace
 * (src/Runs/RunsService.ts `storedForms`), are byte for byte what serialising the whole made before:
 * the key of a trace submitted before this change still finds its run, and the request reads back
 * as the trace it was. Traces with what JSON treats specially: optional fields present as
 * `undefined` (left out), quotes, newlines, control characters, lone surrogates, non-ASCII text,
 * a key name and none, redactions and none.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { createHash } from "node:crypto"
import { readStoredRequest, type StoredRequest, storedForms } from "../../src/Runs/RunsService.js"

const TEXTS = ["plain", "quote \" and backslash \\", "line\nbreak\ttab", "control \u0001\u001f", "lone \ud800 surrogate", "naïve — 日本語 🙂", ""]

const traceOf = (seed: number): StoredRequest["trace"] => ({
  id: seed % 2 === 0 ? `trace-${seed}` : null,
  task: TEXTS[seed % TEXTS.length] ?? "",
  outcome: TEXTS[(seed + 1) % TEXTS.length] ?? "",
  success: seed % 3 === 0 ? null : seed % 3 === 1,
  agents: ["planner", TEXTS[(seed + 2) % TEXTS.length] ?? ""],
  events: Array.from({ length: 3 + seed }, (_, index) => ({
    actor: index % 2 === 0 ? "user" : "planner",
    role: index % 2 === 0 ? "user" : "agent",
    kind: index % 3 === 0 ? "tool_call" : "message",
    content: TEXTS[(seed + index) % TEXTS.length] ?? "",
    tool: index % 3 === 0 ? "lookup" : undefined,
    timestamp: index % 2 === 0 ? new Date(1_764_000_000_000 + index).toISOString() : undefined,
    source: `span:${seed}-${index}`,
    tokens: index % 4 === 1 ? { input: 10 + index, output: 3 } : undefined,
    duration_ms: index % 5 === 2 ? 12.5 : undefined
  })),
  skipped: seed,
  ...(seed % 2 === 1 ? { redactions: { email: seed } } : {})
})

const optionsOf = (seed: number): StoredRequest["options"] => ({
  mode: "standard",
  model: seed % 2 === 0 ? null : "gpt-4o",
  hints: seed % 2 === 0 ? {} : { note: TEXTS[seed % TEXTS.length], nested: { list: [1, "two", null] }, gone: undefined },
  patterns: seed % 3 === 0 ? null : ["lewin", "tuckman"],
  max_patterns: 5,
  budget_tokens: seed % 2 === 0 ? null : 20_000
})

describe("a run's stored request and dedupe key", () => {
  it("are what serialising the whole request makes, byte for byte", () => {
    for (let seed = 0; seed < 12; seed++) {
      const kept = { format: seed % 2 === 0 ? "otel" : "openai", trace: traceOf(seed), options: optionsOf(seed) } satisfies Pick<StoredRequest, "format" | "trace" | "options">
      const keyName = seed % 4 === 0 ? null : `key-${seed}`
      const redactions = seed % 3 === 0 ? {} : { aws_key: seed, email: 1 }
      const forms = storedForms(kept, keyName, redactions)
      expect(forms.dedupeKey).toBe(createHash("sha256").update(JSON.stringify([kept.format, kept.trace, kept.options])).digest("hex"))
      expect(forms.request).toBe(JSON.stringify({ ...kept, key_name: keyName, redactions } satisfies StoredRequest))
      const read = readStoredRequest(forms.request)
      expect(Either.isRight(read)).toBe(true)
      if (Either.isRight(read)) expect(read.right.trace.events.length).toBe(kept.trace.events.length)
    }
  })
})
