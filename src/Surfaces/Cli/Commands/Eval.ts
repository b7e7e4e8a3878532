/**
 * `svc eval DATASET` (issue 38, docs/eval.md): diagnose run on each labelled trace of a dataset
 * (Eval/Dataset.ts) in this process or against --url, its decisive step scored against the label
 * by exact match (Eval/Score.ts), or a baseline that needs no model (Eval/Baselines.ts). Results go
 * to --out as JSON Lines, one per item as it ends, so a run that stopped goes on from there; the
 * summary covers every result of the dataset's items in --out with this method. `--method checks`
 * scores the checks alone instead (Eval/Checks.ts, issue 48): per check precision, recall and
 * localisation, the shares flagged, the checks' decisive step beside the baselines.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { lenses, optional, remote, run } from "../CommonOptions.js"
import { commandHelp } from "../Help.js"
import { runCommand, type Terminal } from "../Running.js"
import { BASELINES } from "../Eval/Dataset.js"

export const makeEval = (terminal: Terminal) =>
  Command.make(
    "eval",
    {
      dataset: Args.text({ name: "DATASET" }).pipe(Args.withDescription("A labelled dataset: a folder of Who&When- or TRAIL-style JSON files, or a JSON Lines file of {trace, expect}.")),
      ...run,
      patterns: lenses.patterns,
      maxPatterns: lenses.maxPatterns,
      budgetTokens: lenses.budgetTokens,
      concurrency: Options.integer("concurrency").pipe(
        Options.withSchema(Schema.Int.pipe(Schema.between(1, 64))),
        Options.withDescription("Items diagnosed at once (1-64, default 4)."),
        Options.withDefault(4)
      ),
      withGroundTruth: Options.boolean("with-ground-truth").pipe(Options.withDescription("Give each trace's correct final answer to the model (hints.ground_truth), where the dataset has one.")),
      baseline: optional(Options.choice("baseline", BASELINES), "Score a baseline that needs no model instead of diagnose: random (its expected value), first-error, triage."),
      method: Options.choice("method", ["diagnose", "checks"]).pipe(
        Options.withDescription("diagnose (default), or checks: the deterministic checks alone, scored per check on items labelled with expect.checks, and by outcome (docs/eval.md \"Checks\")."),
        Options.withDefault("diagnose")
      ),
      out: optional(Options.file("out"), "Keep each item's result here (JSON Lines) as it ends; a run given the same file goes on where it stopped."),
      format: Options.choice("format", ["table", "json"]).pipe(Options.withDescription("The summary as a table (default) or one JSON object."), Options.withDefault("table")),
      failUnder: optional(Options.text("fail-under"), "Exit 1 when an accuracy is below it: a fraction for the agent accuracy, or agent=0.4,step=0.1 (agent, step, span, category, coverage)."),
      ...remote
    },
    (options) =>
      runCommand(terminal, "eval", (progress) =>
        Effect.flatMap(Effect.promise(() => import("../Eval/Run.js")), ({ evaluate }) => evaluate(options, progress)))
  ).pipe(
    Command.withDescription(
      commandHelp(
        "Measure diagnose against labelled failure data: the decisive step's agent and step (or span), exact match, per split and ground-truth setting, per lens, with cost and time (docs/eval.md).",
        [
          ["svc eval Who\\&When/ --mode quick --out results.jsonl", "diagnose every labelled log, resumable"],
          ["svc eval Who\\&When/ --baseline random --format json", "the random baseline's expected accuracy"],
          ["svc eval checks.jsonl --method checks", "the checks' precision, recall and localisation on a generated set (scripts/generate-check-set.ts)"],
          ["svc eval labelled.jsonl --url http://127.0.0.1:8000 --fail-under agent=0.4", "in CI, against a service"]
        ]
      )
    )
  )
