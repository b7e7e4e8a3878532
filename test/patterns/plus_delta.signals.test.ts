import { describe, expect, it } from "@effect/vitest"
import { contentWords, plusDeltaSignals } from "../../patterns/plus_delta/signals.js"

describe("plus_delta signals", () => {
  it("extracts content words of five letters or more, without stopwords", () => {
    expect(contentWords("Write the summary, then write tests before Friday")).toEqual(["write", "summary", "tests", "friday"])
    expect(contentWords("")).toEqual([])
  })

  it("measures coverage, unbacked figures and claims against the artifact", () => {
    const result = plusDeltaSignals({
      reviewer: "Critic",
      subject: "writer",
      task_context: "Summarise the outage report in under 100 words.",
      contribution_summary: "Fully summarised all 3 incidents in 80 words.",
      artifact: "Outage summary: 2 incidents. TODO add the third.\nRoot cause: expired certificate."
    })
    const v = result.values
    // task terms: summarise, outage, report, words -> only "outage" occurs in the artifact
    expect(v["task_terms"]).toBe(4)
    expect(v["task_term_coverage"]).toBe(0.25)
    expect(v["task_terms_missing_from_artifact"]).toEqual(["summarise", "report", "words"])
    expect(v["summary_figures"]).toEqual(["3", "80"])
    expect(v["summary_figures_not_in_artifact"]).toEqual(["3", "80"])
    expect(v["summary_claim_words"]).toEqual(["fully", "all"])
    expect(v["artifact_unfinished_markers"]).toEqual(["todo"])
    expect(v["artifact_lines"]).toBe(2)
    expect(v["artifact_kind"]).toBe("prose")
    // only "under 1": the "100 words" match would overlap it
    expect(v["task_criteria_markers"]).toBe(1)
    expect(v["self_review"]).toBe(false)
    expect(result.highlights.map((h) => h.ref)).toEqual(["contribution_summary", "artifact"])
  })

  it("flags a self-review, a missing standard and code artifacts", () => {
    const result = plusDeltaSignals({
      reviewer: "Coder ",
      subject: "coder",
      task_context: "Improve the parser.",
      contribution_summary: "Refactored.",
      artifact: "def parse(x):\n    return x"
    })
    expect(result.values["self_review"]).toBe(true)
    expect(result.values["task_criteria_markers"]).toBe(0)
    expect(result.values["artifact_kind"]).toBe("code")
    expect(result.values["summary_figures"]).toEqual([])
    expect(result.highlights.map((h) => h.ref)).toEqual(["task_context", "reviewer"])
  })
})
