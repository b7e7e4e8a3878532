/**
 * Schemas of a pattern folder's data files and of the per-pattern resources the API serves
 * (DECISIONS §2): playbooks, composition manifest, and the PatternRecord.
 */
import * as Schema from "effect/Schema"
import { MODE_NAMES, MODES_DESCRIBED } from "../Registry/Derived.js"
import { Family } from "./Families.js"
import { Group } from "./Contract.js"

export const Slug = Schema.String.pipe(Schema.pattern(/^[a-z][a-z0-9_]*$/)).annotations({
  identifier: "PatternSlug",
  description: "A catalogue pattern name (snake_case slug)."
})

export const Effort = Schema.Literal("low", "medium", "high")

export const PlaybookStepKind = Schema.Literal(
  "prompt",
  "tool",
  "scaffold",
  "eval",
  "human_review",
  "compose",
  "guardrail",
  "process"
).annotations({ identifier: "PlaybookStepKind" })

export const PlaybookStep = Schema.Struct({
  kind: PlaybookStepKind,
  action: Schema.String.pipe(Schema.minLength(20)).annotations({ description: "What to do, concretely." }),
  compose_pattern: Schema.optionalWith(Schema.NullOr(Slug), { default: () => null }).annotations({
    description: "For `compose` steps: the pattern to run."
  })
}).annotations({ identifier: "PlaybookStep" })

export const Playbook = Schema.Struct({
  title: Schema.String.pipe(Schema.minLength(5)),
  failure_mode: Schema.String.pipe(Schema.minLength(20)).annotations({
    description: "The failure mode this playbook answers, as it shows in an agent trace."
  }),
  steps: Schema.Array(PlaybookStep).pipe(Schema.minItems(3), Schema.maxItems(6)),
  effort: Effort,
  impact: Effort,
  source: Schema.String.pipe(Schema.minLength(5)).annotations({
    description: "The source the playbook rests on (a reference of the pattern's CITATIONS.md)."
  })
}).annotations({ identifier: "Playbook", description: "A failure-mode playbook: ordered steps an agent builder can act on." })
export type Playbook = typeof Playbook.Type

/** One entry of playbooks.json. The key is derived: key_parts joined by ".". */
export const PlaybookEntryFile = Schema.Struct({
  key_parts: Schema.Array(Schema.String.pipe(Schema.pattern(/^[a-z0-9_]+$/))).pipe(Schema.minItems(1)),
  ...Playbook.fields
})
export const PlaybooksFile = Schema.Array(PlaybookEntryFile)

export const PlaybookEntry = Schema.Struct({
  key: Schema.String,
  key_parts: Schema.Array(Schema.String),
  playbook: Playbook
}).annotations({ identifier: "PlaybookEntry" })

export const PlaybooksResponse = Schema.Struct({
  pattern: Schema.String,
  count: Schema.Int,
  playbooks: Schema.Array(PlaybookEntry)
}).annotations({ identifier: "PlaybooksResponse", description: "A pattern's failure-mode playbooks." })

const Link = Schema.Struct({
  pattern: Slug,
  reason: Schema.String.pipe(Schema.minLength(10))
}).annotations({ identifier: "CompositionLink" })

export const Composition = Schema.Struct({
  upstream: Schema.Array(Link).annotations({ description: "Patterns whose result feeds this one." }),
  downstream: Schema.Record({ key: Schema.String, value: Schema.Array(Link) }).annotations({
    description: "Patterns to run next, keyed by this pattern's profile value."
  }),
  framework_overlays: Schema.optionalWith(Schema.Array(Link), { default: () => [] }).annotations({
    description: "Frameworks that read the same trace from a complementary angle."
  }),
  intervention_overlays: Schema.optionalWith(
    Schema.Array(
      Schema.Struct({
        playbook: Schema.String.annotations({ description: "Key of one of this pattern's playbooks." }),
        pattern: Slug,
        reason: Schema.String.pipe(Schema.minLength(10))
      })
    ),
    { default: () => [] }
  ).annotations({ description: "Playbooks whose effect another pattern can check." })
}).annotations({ identifier: "Composition", description: "How the pattern composes with others." })
export type Composition = typeof Composition.Type

export const CompositionResponse = Schema.Struct({
  pattern: Schema.String,
  composition: Composition
}).annotations({ identifier: "CompositionResponse", description: "A pattern's composition manifest." })

/** The modes' names and words, from the registry (src/Registry/Modes.ts). */
export { MODE_NAMES, MODES_DESCRIBED }

export const Mode = Schema.Literal(...MODE_NAMES).annotations({
  identifier: "Mode",
  description: `Analysis depth: ${MODES_DESCRIBED}.`
})
export type Mode = typeof Mode.Type

export const PatternRecord = Schema.Struct({
  name: Slug,
  friendly: Schema.String,
  group: Group,
  tool: Schema.String.annotations({ description: "MCP tool name (`svc_<name>`)." }),
  summary: Schema.String,
  anchor: Schema.String.annotations({ description: "Primary citation, short form." }),
  input_shape: Family,
  accepts_traces: Schema.Boolean.annotations({
    description: "True when the pattern takes a raw trace in any supported format (DECISIONS §12), not only its own input shape."
  }),
  needs: Schema.String.annotations({
    description: "What a raw trace must be accompanied by (in `hints`), in words; empty when a trace alone is enough."
  }),
  modes: Schema.Array(Mode),
  analyze_url: Schema.String,
  resources: Schema.Struct({ playbooks: Schema.String, citations: Schema.String, composition: Schema.String })
}).annotations({ identifier: "PatternRecord", description: "One pattern of the catalogue." })
export type PatternRecord = typeof PatternRecord.Type

export const CatalogueResponse = Schema.Struct({
  count: Schema.Int,
  patterns: Schema.Array(PatternRecord)
}).annotations({ identifier: "CatalogueResponse", description: "The catalogue, in catalogue order." })
