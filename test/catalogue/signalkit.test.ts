import { describe, expect, it } from "@effect/vitest"
import { gini, looksLikeError, repeatedIndices, shares, signals } from "../../src/Catalogue/SignalKit.js"
import { anchorName, asksForEvidence } from "../../src/Catalogue/CatalogueLoader.js"

describe("SignalKit", () => {
  it("reads errors from wording and status codes in context only", () => {
    expect(looksLikeError("observation", "Error 503: service unavailable")).toBe(true)
    expect(looksLikeError("observation", "HTTP 429 Too Many Requests")).toBe(true)
    expect(looksLikeError("observation", "status: 404")).toBe(true)
    expect(looksLikeError("error", "anything")).toBe(true)
    expect(looksLikeError("observation", "412 passed, 0 failed")).toBe(false)
    expect(looksLikeError("observation", "processed 1,182,440 rows for $450")).toBe(false)
    expect(looksLikeError("observation", "500 rows written, errors: 0")).toBe(false)
    expect(looksLikeError("thought", "no errors so far")).toBe(false)
  })

  it("computes Gini and shares", () => {
    expect(gini([1, 1, 1, 1])).toBe(0)
    expect(gini([0, 0, 0, 4])).toBe(0.75)
    expect(gini([])).toBe(0)
    expect(shares({ a: 1, b: 3 })).toEqual({ a: 0.25, b: 0.75 })
  })

  it("finds repeats after normalising whitespace and case", () => {
    expect(repeatedIndices(["Call API", "call   api", "other", "CALL api"])).toEqual([1, 3])
  })

  it("merges highlights on the same ref instead of dropping reasons", () => {
    const result = signals({}, [
      { ref: "steps[1]", reason: "error" },
      { ref: "steps[2]", reason: "repeat" },
      { ref: "steps[1]", reason: "repeat" },
      { ref: "steps[1]", reason: "error" }
    ])
    expect(result.highlights).toEqual([
      { ref: "steps[1]", reason: "error; repeat" },
      { ref: "steps[2]", reason: "repeat" }
    ])
  })
})

describe("catalogue checks", () => {
  it("takes the anchor's first significant word", () => {
    expect(anchorName("Lewin 1936; Kelley 1967; Ross 1977")).toBe("Lewin")
    expect(anchorName("US Army TC 25-20 (1993)")).toBe("Army")
    expect(anchorName("Latané, Williams & Harkins 1979")).toBe("Latané")
    expect(anchorName("Robbins & Judge (Organizational Behavior)")).toBe("Robbins")
  })

  it("accepts indexed or bare field references, with verbatim quotes", () => {
    expect(asksForEvidence("cite steps[i] with verbatim quotes")).toBe(true)
    expect(asksForEvidence("cite `agent_response` with a verbatim quote")).toBe(true)
    expect(asksForEvidence("cite steps[i]")).toBe(false)
    expect(asksForEvidence("quote verbatim")).toBe(false)
  })
})
