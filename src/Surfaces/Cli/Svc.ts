/**
 * The `svc` commands (DECISIONS §14, docs/cli.md), with `@effect/cli`: serve, analyze, diagnose,
 * check (§23), normalize, patterns, runs (§17), mcp, one file each in Commands/ (runs: a group, and submit apart).
 * Each command that reads or analyses runs in this process by default (Local.ts) or against a
 * service with `--url` (Remote.ts); both print
 * the same output for the same input. stdout holds only the result (or nothing, with `--out`);
 * progress and errors go to stderr. Every command ends with its exit code (ExitCodes.ts). The
 * heavy parts (the service's Layers, the HTTP client, the renderers) are loaded by the command
 * that needs them, so `svc --help` and `svc patterns --url` start quickly.
 */
import * as Command from "@effect/cli/Command"
import type * as Effect from "effect/Effect"
import type { StartFailure } from "../../Program.js"
import { makeAnalyze } from "./Commands/Analyze.js"
import { makeCheck } from "./Commands/Check.js"
import { makeDiagnose } from "./Commands/Diagnose.js"
import { makeEval } from "./Commands/Eval.js"
import { makeMcp } from "./Commands/Mcp.js"
import { makeNormalize } from "./Commands/Normalize.js"
import { makePatterns } from "./Commands/Patterns.js"
import { makeRuns } from "./Commands/Runs.js"
import { makeDigest, makeProblems } from "./Commands/Problems.js"
import { makeServe } from "./Commands/Serve.js"
import { commandHelp, EXIT_CODES } from "./Help.js"
import type { Terminal } from "./Running.js"

/** The `svc` command with its subcommands; `serve`: the service's program, given by the entry (Commands/Serve.ts). */
export const makeSvc = (terminal: Terminal, serve: Effect.Effect<never, StartFailure>) =>
  Command.make("svc").pipe(
    Command.withDescription(
      commandHelp(
        "Read AI-agent runs through 34 organizational-behaviour frameworks: why a run failed and what to change, in named, cited terms. In this process by default (same configuration as the service, from the environment), or against a running service with --url.",
        [
          ["svc diagnose run.json", "the lenses that fit a run, one report"],
          ["svc check traces/*.json --fail-on medium", "the deterministic checks alone, no model"],
          ["svc analyze lewin run.json --mode quick", "one pattern"],
          ["svc patterns", "the catalogue"],
          ["svc runs submit traces/ --url http://127.0.0.1:8000", "runs diagnosed in the background by a service"],
          ["svc --completions bash > ~/.local/share/bash-completion/completions/svc", "shell completions (bash, zsh, fish)"]
        ],
        [EXIT_CODES]
      )
    ),
    Command.withSubcommands([makeServe(serve), makeAnalyze(terminal), makeDiagnose(terminal), makeCheck(terminal), makeNormalize(terminal), makePatterns(terminal), makeRuns(terminal), makeProblems(terminal), makeDigest(terminal), makeEval(terminal), makeMcp()])
  )
