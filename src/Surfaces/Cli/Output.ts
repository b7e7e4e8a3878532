/**
 * Where a command's result goes: stdout, or the --out file, written whole or not at all. stdout
 * holds only the result; progress and errors go to stderr.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { rename, writeFile } from "node:fs/promises"
import { CliFailure } from "./Backend.js"
import { printable } from "./Printable.js"

/** Writes the result: to --out (a temporary file renamed), else stdout. */
export const emit = (text: string, target: Option.Option<string>) =>
  Option.match(target, {
    onNone: () =>
      Effect.async<void>((resume) => {
        process.stdout.write(text, () => resume(Effect.void))
      }),
    onSome: (path) =>
      Effect.tryPromise({
        try: async () => {
          const temporary = `${path}.${process.pid}.tmp`
          await writeFile(temporary, text)
          await rename(temporary, path)
        },
        catch: (error) =>
          new CliFailure({ kind: "usage", message: `cannot write ${printable(path)}: ${printable(error instanceof Error ? error.message : String(error))}` })
      })
  })

export const withNewline = (text: string) => (text.endsWith("\n") ? text : `${text}\n`)

/** A JSON value, indented, on its own lines. */
export const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
