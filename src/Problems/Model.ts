/**
 * A problem (DECISIONS §19, §24): the same failure across a scope's runs, as the store keeps it and
 * the grouping policy (Grouping.ts), the service and the alerts read it. Types only: the SQL is
 * Store/Problems.ts's.
 */
import * as Schema from "effect/Schema"
import type { Severity } from "../Catalogue/Severity.js"
import { ProblemStatus as ProblemStatusSchema } from "../Contract/Statuses.js"

/** A problem's status, as the contract names it. */
export type ProblemStatus = typeof ProblemStatusSchema.Type

/** The label whose values `resolved_in_version` compares (the OTLP intake's `version`, §18). */
export const VERSION_LABEL = "version"

/** A UTC day in milliseconds. */
export const DAY_MS = 86_400_000

export interface ProblemRecord {
  readonly id: string
  readonly scope: string
  readonly fingerprint: string
  readonly title: string
  readonly normalizedTitle: string
  readonly cites: string
  readonly playbook: string | null
  readonly patterns: ReadonlyArray<string>
  /** The check that anchors its failure (DECISIONS §24); null for a lens anchor. */
  readonly check: string | null
  readonly severity: Severity
  readonly status: ProblemStatus
  readonly runCount: number
  readonly firstSeen: number
  readonly lastSeen: number
  readonly resolvedAt: number | null
  readonly resolvedInVersion: string | null
  readonly regressedAt: number | null
  readonly mergedInto: string | null
  /** The versions it was seen on when it was resolved (a run on another one regresses it). */
  readonly versionsBefore: ReadonlyArray<string>
  /** When its last regression alert was written (at most one a day). */
  readonly regressionAlertedAt: number | null
}

/** What an alert is sent for: a problem's news (Grouping.ts decides them), a failed run, a run's verdicts for SVC_EVALUATION_ENDPOINT. */
export const AlertEvent = Schema.Literal("problem.new", "problem.severity", "problem.regressed", "run.failed", "run.evaluation").annotations({ identifier: "AlertEvent" })
export type AlertEvent = typeof AlertEvent.Type

/** The events webhooks are called for (the rest of the outbox is a run's verdicts, sent to SVC_EVALUATION_ENDPOINT). */
export type WebhookEvent = Exclude<AlertEvent, "run.evaluation">
