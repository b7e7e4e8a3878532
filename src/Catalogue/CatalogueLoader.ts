/**
 * Loads the pattern folders at start-up and validates each one against its code definition.
 * A broken folder stops the service with a message naming the folder and the problem.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { PatternCode } from "./Pattern.js"
import { decoderOf } from "./FastDecode.js"
import {
  Composition,
  type Composition as CompositionType,
  MODE_NAMES,
  type PatternRecord,
  PlaybooksFile
} from "./Resources.js"

export class CatalogueError extends Schema.TaggedError<CatalogueError>()("CatalogueError", {
  folder: Schema.String,
  problem: Schema.String
}) {
  override get message(): string {
    return `pattern folder ${this.folder}: ${this.problem}`
  }
}

/** The prompts a pattern folder holds: the framework, then one per mode of the registry (src/Registry/Modes.ts). */
export const PROMPT_MODES = ["framework", ...MODE_NAMES] as const
export type PromptName = (typeof PROMPT_MODES)[number]

export interface PlaybookEntry {
  readonly key: string
  readonly key_parts: ReadonlyArray<string>
  readonly playbook: Omit<typeof PlaybooksFile.Type[number], "key_parts">
}

export interface LoadedPattern {
  readonly code: PatternCode
  readonly record: PatternRecord
  readonly playbooks: ReadonlyArray<PlaybookEntry>
  /** The playbook keys, for checking references to them. */
  readonly playbookKeys: ReadonlySet<string>
  readonly composition: CompositionType
  readonly citations: string
  readonly prompts: Readonly<Record<PromptName, string>>
}

/**
 * The anchor's first significant word, e.g. "Lewin 1936; Kelley 1967" → "Lewin",
 * "US Army TC 25-20 (1993)" → "Army" (tokens under 3 letters say nothing).
 */
export const anchorName = (anchor: string): string => {
  const first = anchor.split(/[;,&(]/)[0] ?? anchor
  const words = first.replace(/\b\d{4}\b.*$/, "").replace(/\s+et al\.?/, "").trim().split(/\s+/)
  return words.find((word) => /[A-Za-z]{3,}/.test(word)) ?? words[0] ?? first
}

/**
 * A prompt asks for evidence by reference when it names a reference (`steps[i]`, `messages[3]`,
 * or, for patterns whose input has no lists, a backticked field such as `agent_response`) and
 * asks for verbatim quotes.
 */
export const asksForEvidence = (prompt: string): boolean =>
  /[a-z_]+\[\s*i\s*\]|[a-z_]+\[\d+\]|`[a-z][a-z0-9_]*(?:\.[a-z_]+)*`/.test(prompt) && /verbatim/i.test(prompt)

const YEAR_REFERENCE = /\((?:1[89]|20)\d{2}[a-z]?\)/

// Compiled (FastDecode.ts): the general parser made 20 MB of garbage of the 300 KB of playbooks.
const decodePlaybooks = decoderOf(PlaybooksFile, { errors: "all", onExcessProperty: "error" })
const decodeComposition = decoderOf(Composition, { errors: "all", onExcessProperty: "error" })

export const makeRecord = (code: PatternCode): PatternRecord => ({
  name: code.slug,
  friendly: code.friendly,
  group: code.group,
  tool: `svc_${code.slug}`,
  summary: code.summary,
  anchor: code.anchor,
  input_shape: code.family,
  accepts_traces: code.reading.accepts,
  needs: code.reading.needs,
  modes: MODE_NAMES,
  analyze_url: `/v1/analyze/${code.slug}`,
  resources: {
    playbooks: `/v1/patterns/${code.slug}/playbooks`,
    citations: `/v1/patterns/${code.slug}/citations`,
    composition: `/v1/patterns/${code.slug}/composition`
  }
})

/** A file of the folder: one read (no separate check that it exists: 238 fewer calls at start-up). */
const readText = (folder: string, dir: string, file: string): Either.Either<string, CatalogueError> => {
  try {
    return Either.right(readFileSync(join(dir, file), "utf8"))
  } catch (error) {
    return Either.left(
      new CatalogueError({
        folder,
        problem: Predicate.hasProperty(error, "code") && error.code === "ENOENT" ? `missing ${file}` : `cannot read ${file}: ${String(error)}`
      })
    )
  }
}

const readJson = (folder: string, dir: string, file: string): Either.Either<unknown, CatalogueError> =>
  Either.flatMap(readText(folder, dir, file), (text) =>
    Either.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) => new CatalogueError({ folder, problem: `${file} is not valid JSON: ${String(error)}` })
    })
  )

const formatIssue = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ")

/** Validates one pattern folder against its code; pure apart from reading the folder's files. */
export const loadPattern = (
  patternsDir: string,
  code: PatternCode,
  allSlugs: ReadonlySet<string>
): Either.Either<LoadedPattern, CatalogueError> => {
  const folder = `patterns/${code.slug}`
  const dir = join(patternsDir, code.slug)
  const fail = (problem: string) => Either.left(new CatalogueError({ folder, problem }))
  if (!existsSync(dir)) return fail("folder is missing")
  if (!code.profiles.includes("indeterminate")) return fail("profiles must include `indeterminate`")

  return Either.gen(function*() {
    const playbooksRaw = yield* readJson(folder, dir, "playbooks.json")
    const playbookFile = yield* Either.mapLeft(decodePlaybooks(playbooksRaw), (error) =>
      new CatalogueError({ folder, problem: `playbooks.json: ${formatIssue(error)}` })
    )
    if (playbookFile.length < 6) yield* fail(`playbooks.json has ${playbookFile.length} playbooks, at least 6 required`)
    const playbooks: Array<PlaybookEntry> = playbookFile.map(({ key_parts, ...playbook }) => ({
      key: key_parts.join("."),
      key_parts,
      playbook
    }))
    const keys = new Set<string>()
    for (const entry of playbooks) {
      if (keys.has(entry.key)) yield* fail(`playbooks.json repeats the key ${entry.key}`)
      keys.add(entry.key)
      for (const step of entry.playbook.steps) {
        if (step.kind === "compose" && step.compose_pattern === null) {
          yield* fail(`playbook ${entry.key}: a compose step must name compose_pattern`)
        }
        if (step.compose_pattern !== null && !allSlugs.has(step.compose_pattern)) {
          yield* fail(`playbook ${entry.key} names unknown pattern ${step.compose_pattern}`)
        }
      }
    }

    const compositionRaw = yield* readJson(folder, dir, "composition.json")
    const composition = yield* Either.mapLeft(decodeComposition(compositionRaw), (error) =>
      new CatalogueError({ folder, problem: `composition.json: ${formatIssue(error)}` })
    )
    const linked = [
      ...composition.upstream,
      ...Object.values(composition.downstream).flat(),
      ...composition.framework_overlays,
      ...composition.intervention_overlays
    ]
    for (const link of linked) {
      if (!allSlugs.has(link.pattern)) yield* fail(`composition.json names unknown pattern ${link.pattern}`)
      if (link.pattern === code.slug) yield* fail("composition.json names the pattern itself")
    }
    for (const key of Object.keys(composition.downstream)) {
      if (!code.profiles.includes(key)) {
        yield* fail(`composition.json downstream key ${key} is not a profile (${code.profiles.join(", ")})`)
      }
    }
    for (const overlay of composition.intervention_overlays) {
      if (!keys.has(overlay.playbook)) yield* fail(`composition.json intervention overlay names unknown playbook ${overlay.playbook}`)
    }

    const citations = yield* readText(folder, dir, "CITATIONS.md")
    if (!YEAR_REFERENCE.test(citations)) yield* fail("CITATIONS.md has no reference with a year in parentheses")
    if (!/used in/i.test(citations)) yield* fail("CITATIONS.md says nowhere where a reference is used (`Used in:`)")

    const prompts: Record<PromptName, string> = { framework: "", quick: "", standard: "", forensic: "" }
    const anchor = anchorName(code.anchor)
    for (const mode of PROMPT_MODES) {
      const text = yield* readText(folder, dir, join("prompts", `${mode}.md`))
      if (text.trim().length < 200) yield* fail(`prompts/${mode}.md is too short to teach the framework`)
      if (!text.toLowerCase().includes(anchor.toLowerCase())) yield* fail(`prompts/${mode}.md does not mention its anchor ${anchor}`)
      if (mode !== "framework" && !asksForEvidence(text)) {
        yield* fail(`prompts/${mode}.md does not ask for evidence by reference with verbatim quotes`)
      }
      prompts[mode] = text
    }
    return { code, record: makeRecord(code), playbooks, playbookKeys: keys, composition, citations, prompts }
  })
}

/** Loads the whole catalogue in the order of patterns/catalogue.json. */
export const loadCatalogue = (
  patternsDir: string,
  codes: ReadonlyArray<PatternCode>
): Effect.Effect<ReadonlyArray<LoadedPattern>, CatalogueError> =>
  Effect.gen(function*() {
    const order = yield* Either.flatMap(readJson("patterns", patternsDir, "catalogue.json"), (raw) =>
      Either.mapLeft(Schema.decodeUnknownEither(Schema.Array(Schema.String))(raw), (error) =>
        new CatalogueError({ folder: "patterns", problem: `catalogue.json: ${formatIssue(error)}` })
      )
    )
    const bySlug = new Map(codes.map((code) => [code.slug, code]))
    const allSlugs = new Set(order)
    const loaded: Array<LoadedPattern> = []
    for (const slug of order) {
      const code = bySlug.get(slug)
      if (code === undefined) {
        return yield* new CatalogueError({ folder: `patterns/${slug}`, problem: "no pattern.ts definition is registered" })
      }
      loaded.push(yield* loadPattern(patternsDir, code, allSlugs))
    }
    for (const code of codes) {
      if (!allSlugs.has(code.slug)) {
        return yield* new CatalogueError({ folder: `patterns/${code.slug}`, problem: "not listed in catalogue.json" })
      }
    }
    return loaded
  })
