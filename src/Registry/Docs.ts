/**
 * The docs' sections that list a registry's entries (docs/traces.md, docs/diagnose.md,
 * docs/cli.md): the text between `<!-- registry:NAME -->` and `<!-- /registry -->` is generated
 * here from the registries. `npm run docs:registries` writes it; test/docs/registries.test.ts
 * checks that the committed docs are current and that every registry has its sections.
 */
import { FORMAT_NAMES, OUTPUT_NAMES, SEVERITY_SCALE } from "./Derived.js"
import { TRACE_FORMATS } from "./Formats.js"
import { MODES } from "./Modes.js"
import { DIAGNOSE_OUTPUTS } from "./Outputs.js"

const code = (names: ReadonlyArray<string>) => names.map((name) => `\`${name}\``).join(", ")
/** A block section: a table, with blank lines around it so the markers stay out of it. */
const block = (lines: ReadonlyArray<string>) => `\n\n${lines.join("\n")}\n\n`

export const SECTIONS = {
  /** The formats' names, inline, in detection order. */
  "format-names": () => code(FORMAT_NAMES),
  /** The formats, what each reads, in detection order. */
  formats: () =>
    block([
      "| `format` | What it reads |",
      "|---|---|",
      ...TRACE_FORMATS.map((format) => `| \`${format.name}\` | ${format.reads} |`)
    ]),
  /** The outputs' names, inline. */
  "output-names": () => code(OUTPUT_NAMES),
  /** The outputs with their media types, the default first. */
  outputs: () =>
    block([
      "| `?output=` | Content-Type | What it is |",
      "|---|---|---|",
      ...DIAGNOSE_OUTPUTS.map((output, index) =>
        `| \`${output.name}\`${index === 0 ? " (default)" : ""} | \`${output.contentType}\` | ${output.description} |`
      )
    ]),
  /** The modes and what they cost. */
  modes: () => MODES.map((mode) => `\`${mode.name}\` (${mode.calls})`).join(", "),
  /** `--fail-on`'s thresholds: the severity scale but its least severe step. */
  "fail-on": () => code(SEVERITY_SCALE.slice(1))
} satisfies Readonly<Record<string, () => string>>

export type SectionName = keyof typeof SECTIONS
const isSectionName = (name: string): name is SectionName => Object.hasOwn(SECTIONS, name)

/** The files that hold sections, and the sections each must hold. */
export const DOCS_SECTIONS: Readonly<Record<string, ReadonlyArray<SectionName>>> = {
  "docs/traces.md": ["format-names", "formats"],
  "docs/diagnose.md": ["outputs"],
  "docs/cli.md": ["output-names", "format-names", "modes", "fail-on"]
}

const MARKED = /<!-- registry:([a-z-]+) -->([\s\S]*?)<!-- \/registry -->/g

/** The names of the sections a text holds, in order (unknown names too, so a check can name them). */
export const sectionsIn = (text: string): ReadonlyArray<string> => Array.from(text.matchAll(MARKED), (match) => match[1] ?? "")

/** The text with every known section generated afresh from the registries. */
export const withSections = (text: string): string =>
  text.replace(MARKED, (whole: string, name: string) => (isSectionName(name) ? `<!-- registry:${name} -->${SECTIONS[name]()}<!-- /registry -->` : whole))
