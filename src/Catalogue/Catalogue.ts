/**
 * The loaded catalogue, as a service. Loaded and validated once at start-up; the static
 * resources (catalogue list, records, playbooks, compositions, citations) are serialised once
 * here so requests for them do no schema or JSON work.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { definitions } from "../../patterns/index.js"
import { AppConfig } from "../Config.js"
import { type CatalogueError, type LoadedPattern, loadCatalogue } from "./CatalogueLoader.js"
import type { PatternCode } from "./Pattern.js"

export interface CatalogueEntry {
  readonly pattern: LoadedPattern
  readonly recordJson: Uint8Array
  readonly playbooksJson: Uint8Array
  readonly compositionJson: Uint8Array
  readonly citations: Uint8Array
  readonly playbookKeys: ReadonlySet<string>
}

export interface CatalogueShape {
  readonly entries: ReadonlyArray<CatalogueEntry>
  readonly get: (name: string) => CatalogueEntry | undefined
  readonly listJson: Uint8Array
  readonly slugs: ReadonlySet<string>
}

const encoder = new TextEncoder()
const jsonBytes = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value))

export const makeCatalogue = (patterns: ReadonlyArray<LoadedPattern>): CatalogueShape => {
  const entries = patterns.map((pattern): CatalogueEntry => ({
    pattern,
    recordJson: jsonBytes(pattern.record),
    playbooksJson: jsonBytes({ pattern: pattern.code.slug, count: pattern.playbooks.length, playbooks: pattern.playbooks }),
    compositionJson: jsonBytes({ pattern: pattern.code.slug, composition: pattern.composition }),
    citations: encoder.encode(pattern.citations),
    playbookKeys: pattern.playbookKeys
  }))
  const bySlug = new Map(entries.map((entry) => [entry.pattern.code.slug, entry]))
  return {
    entries,
    get: (name) => bySlug.get(name),
    listJson: jsonBytes({ count: entries.length, patterns: patterns.map((pattern) => pattern.record) }),
    slugs: new Set(bySlug.keys())
  }
}

export class Catalogue extends Context.Tag("Catalogue")<Catalogue, CatalogueShape>() {}

export const patternCodes: ReadonlyArray<PatternCode> = definitions.map((definition) => definition.code)

/** Loads patterns/ (SVC_PATTERNS_DIR) against the registered definitions; fails on a broken folder. */
export const CatalogueLive: Layer.Layer<Catalogue, CatalogueError, AppConfig> = Layer.effect(
  Catalogue,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const patterns = yield* loadCatalogue(config.patternsDir, patternCodes)
    return makeCatalogue(patterns)
  })
)
