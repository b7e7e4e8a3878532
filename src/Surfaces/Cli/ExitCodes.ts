/**
 * The `svc` exit codes (DECISIONS §14, docs/cli.md) and how a command hands its own to the entry
 * point: every command ends by failing with `CommandEnded` (@effect/cli's handlers return void,
 * so the error channel is the one that carries a value), and src/cli.ts turns that, or a usage
 * error, a signal or a defect, into the process's exit code once.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { ErrorKind } from "../../Errors.js"

/**
 * 0 done; 1 a finding at or above --fail-on; 2 usage or input error; 3 no analysis could run
 * (provider, timeout) and nothing reached --fail-on; 70 unexpected failure; stopped by a signal,
 * 128 + its number (the shell's convention): 130 SIGINT (Ctrl-C), 143 SIGTERM.
 */
export const EXIT = { done: 0, failOn: 1, input: 2, noAnalysis: 3, unexpected: 70, interrupted: 130, terminated: 143 } as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** A command has finished (or given up) with this exit code. */
export class CommandEnded extends Data.TaggedError("CommandEnded")<{ readonly code: ExitCode }> {}

/** How a command's handler ends. */
export const endWith = (code: ExitCode): Effect.Effect<never, CommandEnded> => Effect.fail(new CommandEnded({ code }))

/**
 * The exit code of each of the service's error kinds: 2 when the input, the command line or the
 * key is wrong, 3 when no analysis could run (provider, deadline, the service's state), 70 for
 * what should not happen. A Record over every kind, so a new kind cannot go unplaced.
 */
const SERVICE_KINDS: Readonly<Record<ErrorKind, ExitCode>> = {
  validation_error: EXIT.input,
  unsupported_trace_format: EXIT.input,
  invalid_mode: EXIT.input,
  unauthorized: EXIT.input,
  forbidden: EXIT.input,
  unknown_pattern: EXIT.input,
  not_found: EXIT.input,
  conflict: EXIT.input,
  request_too_large: EXIT.input,
  unsupported_media_type: EXIT.input,
  overloaded: EXIT.noAnalysis,
  store_unavailable: EXIT.noAnalysis,
  rate_limited: EXIT.noAnalysis,
  auth_misconfigured: EXIT.noAnalysis,
  llm_resolution_error: EXIT.noAnalysis,
  analyzer_error: EXIT.noAnalysis,
  timeout: EXIT.noAnalysis,
  method_not_allowed: EXIT.unexpected,
  internal_error: EXIT.unexpected
}

/** The CLI's own kinds (CliFailure): bad arguments or files, no service at --url. */
const CLI_KINDS: ReadonlyMap<string, ExitCode> = new Map([["usage", EXIT.input], ["unreachable", EXIT.noAnalysis]])

const isServiceKind = (kind: string): kind is ErrorKind => Object.hasOwn(SERVICE_KINDS, kind)

/** The exit code of a failure's kind (CliFailure: the service's error kind or the CLI's own). */
export const exitCodeOfKind = (kind: string): ExitCode =>
  isServiceKind(kind) ? SERVICE_KINDS[kind] : CLI_KINDS.get(kind) ?? EXIT.unexpected
