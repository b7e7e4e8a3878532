/** `svc patterns`: the catalogue, or one pattern's record, playbooks, citations or composition. */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CatalogueResponse } from "../../../Catalogue/Resources.js"
import { CliFailure } from "../Backend.js"
import { remote } from "../CommonOptions.js"
import { EXIT } from "../ExitCodes.js"
import { commandHelp } from "../Help.js"
import { emit, pretty, withNewline } from "../Output.js"
import { backendOf, runCommand, type Terminal } from "../Running.js"

export const makePatterns = (terminal: Terminal) =>
  Command.make(
    "patterns",
    {
      name: Args.text({ name: "NAME" }).pipe(Args.withDescription("A pattern: print its record (or its playbooks, citations, composition)."), Args.optional),
      playbooks: Options.boolean("playbooks").pipe(Options.withDescription("The pattern's playbooks (JSON).")),
      citations: Options.boolean("citations").pipe(Options.withDescription("The works behind the pattern (Markdown).")),
      composition: Options.boolean("composition").pipe(Options.withDescription("How the pattern composes with the others (JSON).")),
      json: Options.boolean("json").pipe(Options.withDescription("The list as JSON (GET /v1/patterns) instead of a table.")),
      ...remote
    },
    (options) =>
      runCommand(terminal, "patterns", (progress) =>
        Effect.gen(function*() {
          const backend = yield* backendOf(options, "svc patterns", progress)
          const parts = [options.playbooks && "playbooks", options.citations && "citations", options.composition && "composition"].filter(
            (part): part is "playbooks" | "citations" | "composition" => typeof part === "string"
          )
          const part = parts[0]
          if (parts.length > 1) return yield* new CliFailure({ kind: "usage", message: "give one of --playbooks, --citations, --composition" })
          if (Option.isNone(options.name)) {
            if (part !== undefined) return yield* new CliFailure({ kind: "usage", message: `--${part} needs a pattern NAME` })
            const list = yield* backend.patterns
            yield* emit(options.json ? pretty(list) : patternTable(list), Option.none())
            return EXIT.done
          }
          const value = yield* backend.pattern(options.name.value, part ?? "record")
          yield* emit(typeof value === "string" ? withNewline(value) : pretty(value), Option.none())
          return EXIT.done
        }))
  ).pipe(
    Command.withDescription(
      commandHelp("List the 34 patterns, or show one: its record, playbooks, citations or composition.", [
        ["svc patterns", "name, group and friendly name of each pattern"],
        ["svc patterns lencioni", "the pattern's record (JSON)"],
        ["svc patterns lencioni --citations", "the research behind it"],
        ["svc patterns --json --url http://127.0.0.1:8000", "the catalogue of a running service"]
      ])
    )
  )

const decodeCatalogue = Schema.decodeUnknownOption(CatalogueResponse)

/** The catalogue as a table: name, group, friendly name (read by the contract's schema). */
const patternTable = (list: unknown): string => {
  const patterns = Option.match(decodeCatalogue(list), { onNone: () => [], onSome: (catalogue) => catalogue.patterns })
  const rows = patterns.map((pattern) => [pattern.name, pattern.group, pattern.friendly] as const)
  const width = (index: 0 | 1) => Math.max(...rows.map((row) => row[index].length), 4)
  return rows.map(([slug, family, friendly]) => `${slug.padEnd(width(0))}  ${family.padEnd(width(1))}  ${friendly}`).join("\n") + "\n"
}

