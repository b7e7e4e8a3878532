/**
 * A background loop's round contained (src/Observability/Background.ts, issue 47): a round that
 * dies or fails inside a forked `Effect.repeat` is counted in `svc_background_errors_total{loop}`
 * and the loop runs its next rounds (without it, the defect ended the fiber without a word);
 * interruption still ends the loop.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Fiber, MetricLabel, Option, Ref, Schedule, TestClock } from "effect"
import { containRound, defectSummary } from "../../src/Observability/Background.js"
import { backgroundErrorsTotal } from "../../src/Observability/Metrics.js"
import { eventually } from "../support/TestTime.js"

const retentionErrors = () => backgroundErrorsTotal.unsafeValue([MetricLabel.make("loop", "retention")]).count

describe("a background loop's round", () => {
  it.scoped("that dies or fails is counted, and the next rounds run; interruption ends the loop", () =>
    Effect.gen(function*() {
      const rounds = yield* Ref.make(0)
      const before = retentionErrors()
      const round = Effect.flatMap(Ref.updateAndGet(rounds, (n) => n + 1), (n) =>
        n === 1 ? Effect.dieMessage("a bug in the first round") : n === 2 ? Effect.fail("the store failed") : Effect.void)
      const loop = yield* Effect.fork(round.pipe(containRound("retention", "upkeep failed"), Effect.repeat(Schedule.spaced("1 second"))))
      yield* eventually(Effect.map(Ref.get(rounds), (n) => (n === 1 ? Option.some(n) : Option.none())), "the first round")
      yield* TestClock.adjust(1_000)
      yield* eventually(Effect.map(Ref.get(rounds), (n) => (n === 2 ? Option.some(n) : Option.none())), "the second round")
      yield* TestClock.adjust(1_000)
      yield* eventually(Effect.map(Ref.get(rounds), (n) => (n === 3 ? Option.some(n) : Option.none())), "the third round")
      expect(retentionErrors() - before).toBe(2)
      expect(Option.isNone(yield* Fiber.poll(loop))).toBe(true)
      yield* Fiber.interrupt(loop)
      expect(retentionErrors() - before).toBe(2)
    }))

  it("says what a defect was in a line", () => {
    expect(defectSummary(Cause.die(new SyntaxError("Unexpected end of JSON input")))).toBe("SyntaxError: Unexpected end of JSON input")
    expect(defectSummary(Cause.die("x".repeat(400)), 10)).toBe(`${"x".repeat(10)}…`)
  })
})
