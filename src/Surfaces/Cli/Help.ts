/**
 * The help text of the `svc` commands: a summary, notes, and examples each shown as a command
 * line with what it does. `svc <command> --help` prints it; the completions carry none of it.
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Span from "@effect/cli/HelpDoc/Span"

/** A command's description: its summary, then its notes, then its examples. */
export const commandHelp = (summary: string, examples: ReadonlyArray<readonly [command: string, what: string]>, notes: ReadonlyArray<string> = []) =>
  HelpDoc.blocks([
    HelpDoc.p(summary),
    ...notes.map((note) => HelpDoc.p(note)),
    HelpDoc.h1("EXAMPLES"),
    ...examples.flatMap(([command, what]) => [HelpDoc.p(Span.code(`$ ${command}`)), HelpDoc.p(Span.weak(`  ${what}`))])
  ])

/** The note of svc, analyze and diagnose: the exit codes (ExitCodes.ts). */
export const EXIT_CODES =
  "Exit codes: 0 done; 1 a finding at or above --fail-on; 2 usage or input error (a file larger than SVC_API_MAX_BODY_BYTES too); 3 no analysis could run (provider, timeout, rate limit, service unreachable) and nothing reached --fail-on; 70 unexpected failure; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM)."
