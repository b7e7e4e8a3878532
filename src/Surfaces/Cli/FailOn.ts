/**
 * `--fail-on` (analyze, diagnose): exit 1 when the result's highest severity is at or above the
 * threshold. The choices are every step of the severity scale but the least severe.
 */
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import { type Severity, SEVERITY_SCALE, severityRank } from "../../Catalogue/Severity.js"
import { optional } from "./CommonOptions.js"

const FAIL_ON = SEVERITY_SCALE.slice(1)

export const failOn = optional(Options.choice("fail-on", FAIL_ON), "Exit 1 when a finding (or the overall severity) is at or above this severity.")

/** Whether --fail-on was given and `severity` reaches it. */
export const reached = (threshold: Option.Option<Severity>, severity: Severity): boolean =>
  Option.isSome(threshold) && severityRank(severity) >= severityRank(threshold.value)
