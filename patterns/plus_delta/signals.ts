/**
 * Plus/delta signals: measurements of the request that ground the review. How much of the task
 * context's vocabulary the artifact covers, figures and strong claims in the contribution summary
 * that the artifact does not show, unfinished markers in the artifact, acceptance-criteria
 * markers in the task context, and whether the reviewer is reviewing itself.
 */
import type { Signals } from "../../src/Catalogue/Detection.js"
import { containsEach, type Highlight, normalise, ratio, signals, wordCount } from "../../src/Catalogue/SignalKit.js"

export interface PlusDeltaTrace {
  readonly reviewer: string
  readonly subject: string
  readonly task_context: string
  readonly contribution_summary: string
  readonly artifact: string
}

const STOPWORDS = new Set([
  "about", "above", "after", "again", "against", "their", "there", "these", "those", "which", "while", "where",
  "would", "could", "should", "being", "because", "before", "below", "between", "other", "under", "until",
  "within", "without", "every", "still", "shall", "might", "must", "never", "always", "into", "from", "with",
  "that", "this", "have", "will", "your", "they", "them", "then", "than", "what", "when", "also", "each",
  "only", "such", "some", "more", "most", "very", "just", "over", "does", "done", "make", "made"
])

const CLAIM = /\b(all|every|fully|complete(ly)?|entire(ly)?|100 ?%|thoroughly|tested|handled|robust|production[- ]ready|no issues|covers?)\b/gi
const UNFINISHED = /\b(todo|fixme|xxx|tbd|placeholder|lorem ipsum|coming soon|not implemented|to be written)\b/gi
const CRITERIA =
  /(\bmust\b|\bshould\b|\bacceptance\b|\bcriteria\b|\bat least\b|\bat most\b|\bno more than\b|\bunder \d|\bwithin \d|\bbefore\b|\bdeadline\b|[<>]=?\s*\d|\b\d+\s*(%|words?|ms|s|seconds?|minutes?|hours?|days?|items?|pages?)\b)/gi
const FIGURE = /\d[\d,.]*%?/g
const CODE = /(```|\bdef \w+\(|\bfunction \w*\(|\bclass \w+|=>|;\s*$|\bimport \w+|\bSELECT\b)/m

/** Content words (5+ letters, not stopwords), lower-cased, in first-seen order. */
export const contentWords = (text: string): Array<string> => {
  const seen = new Set<string>()
  for (const word of normalise(text).match(/[a-z][a-z0-9_-]{4,}/g) ?? []) {
    if (!STOPWORDS.has(word)) seen.add(word)
  }
  return [...seen]
}

const figures = (text: string): Array<string> =>
  [...new Set((text.match(FIGURE) ?? []).map((f) => f.replace(/[.,]+$/, "")).filter((f) => f.length > 0))]

const matches = (text: string, re: RegExp): Array<string> => [...new Set((text.match(re) ?? []).map((m) => m.toLowerCase()))]

export const plusDeltaSignals = (trace: PlusDeltaTrace): Signals => {
  const artifactNorm = normalise(trace.artifact)
  const taskTerms = contentWords(trace.task_context)
  const summaryTerms = contentWords(trace.contribution_summary)
  // Every term against the artifact in one pass (a search per term was terms × characters).
  const inArtifact = containsEach(artifactNorm, [...taskTerms, ...summaryTerms])
  const missingTerms = taskTerms.filter((_, i) => inArtifact[i] !== true)
  const summaryInArtifact = summaryTerms.filter((_, i) => inArtifact[taskTerms.length + i] === true)
  const summaryFigures = figures(trace.contribution_summary)
  const artifactFigures = new Set(figures(trace.artifact))
  const unbackedFigures = summaryFigures.filter((f) => !artifactFigures.has(f))
  const claims = matches(trace.contribution_summary, CLAIM)
  const unfinished = matches(trace.artifact, UNFINISHED)
  const criteria = trace.task_context.match(CRITERIA) ?? []
  const selfReview = normalise(trace.reviewer) === normalise(trace.subject)
  const lines = trace.artifact.split(/\r?\n/).filter((line) => line.trim().length > 0).length

  const highlights: Array<Highlight> = [
    ...(unbackedFigures.length > 0
      ? [{ ref: "contribution_summary", reason: `figures the artifact does not show: ${unbackedFigures.join(", ")}` }]
      : []),
    ...(unfinished.length > 0 ? [{ ref: "artifact", reason: `unfinished markers: ${unfinished.join(", ")}` }] : []),
    ...(criteria.length === 0 ? [{ ref: "task_context", reason: "no acceptance criteria or measurable standard stated" }] : []),
    ...(selfReview ? [{ ref: "reviewer", reason: "the reviewer is the subject: a self-review" }] : [])
  ]

  return signals(
    {
      task_context_words: wordCount(trace.task_context),
      contribution_summary_words: wordCount(trace.contribution_summary),
      artifact_words: wordCount(trace.artifact),
      artifact_lines: lines,
      artifact_kind: CODE.test(trace.artifact) ? "code" : /^\s*[[{]/.test(trace.artifact) ? "structured" : "prose",
      task_terms: taskTerms.length,
      task_term_coverage: ratio(taskTerms.length - missingTerms.length, taskTerms.length),
      task_terms_missing_from_artifact: missingTerms.slice(0, 12),
      summary_term_overlap: ratio(summaryInArtifact.length, summaryTerms.length),
      summary_claim_words: claims,
      summary_figures: summaryFigures,
      summary_figures_not_in_artifact: unbackedFigures,
      artifact_unfinished_markers: unfinished,
      task_criteria_markers: criteria.length,
      self_review: selfReview
    },
    highlights
  )
}
