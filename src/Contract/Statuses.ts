/**
 * The states of a run (DECISIONS §17) and of a problem (§19), and the page sizes of their lists:
 * schemas only, so the `svc runs` and `svc problems` commands offer them as choices without
 * loading the HttpApi contract (RunsContract.ts, ProblemsContract.ts) at start (issue 52).
 */
import * as Schema from "effect/Schema"

/** The most runs one page lists. */
export const MAX_PAGE = 200
export const DEFAULT_PAGE = 50

export const RunStatus = Schema.Literal("queued", "running", "done", "failed", "skipped").annotations({
  identifier: "RunStatus",
  description: "queued → running → done | failed | skipped (DECISIONS §17)."
})
export type RunStatus = typeof RunStatus.Type

export const ProblemStatus = Schema.Literal("open", "resolved", "ignored", "regressed").annotations({
  identifier: "ProblemStatus",
  description:
    "open → resolved (by an admin, optionally in a version) → regressed (seen again; with `resolved_in_version`, only on a `version` label the problem was not seen on before it was resolved); `ignored` keeps counting without alerts."
})
