/**
 * Every check over every trace of test/fixtures/traces, normalized as the service reads them: no
 * check throws, and every finding is well formed against its trace (it cites events that exist,
 * decisive one first and named in the explanation; quotes are verbatim stretches of the cited
 * event's text; events without text are described instead). Which checks fire where is measured,
 * not asserted here (docs/checks.md).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { appConfig } from "../../src/Config.js"
import { runChecks } from "../../src/Checks/Run.js"
import { hasText } from "../../src/Checks/View.js"
import { keepAsRead, normalizeTrace } from "../../src/Traces/Normalize.js"
import { fixtureFolders, loadFixtures } from "../traces/support.js"

const LIMITS = Effect.runSync(appConfig).limits

describe("the checks on every fixture", () => {
  it("give only findings that cite, quote and explain their trace faithfully", () => {
    let checked = 0
    for (const [folder, name, body] of fixtureFolders().flatMap((folder) => loadFixtures(folder).map(([name, body]) => [folder, name, body] as const))) {
      const read = normalizeTrace(body, "auto", LIMITS, keepAsRead)
      if (Either.isLeft(read)) continue
      for (const trace of read.right.traces) {
        for (const finding of runChecks(trace)) {
          checked++
          const where = `${folder}/${name} ${finding.check}`
          const [decisive] = finding.evidence
          expect(finding.explanation, where).toContain(`events[${decisive?.event}]`)
          expect(finding.fingerprint, where).toMatch(/^[0-9a-f]{16}$/)
          for (const evidence of finding.evidence) {
            const event = trace.events[evidence.event]
            expect(event, where).toBeDefined()
            expect(evidence.ref).toBe(`events[${evidence.event}]`)
            expect(evidence.source, where).toBe(event?.source)
            if (evidence.quote === null) {
              // no text to quote: empty, or only the ERROR label a span reader gives a failed span without a message (§23)
              expect(event !== undefined && hasText(event), where).toBe(false)
              expect(evidence.describes, where).toBeTruthy()
            } else {
              expect(evidence.quote.length, where).toBeGreaterThan(0)
              expect(event?.content, where).toContain(evidence.quote)
            }
          }
        }
      }
    }
    // the fixtures hold real failures (tool errors, provider errors, turn limits): the rules above were applied
    expect(checked).toBeGreaterThan(10)
  })
})
