import * as Schema from "effect/Schema"
import { familyFields, traceInput } from "../../src/Catalogue/Families.js"
import { defineContract } from "../../src/Catalogue/Contract.js"

const Verdict = Schema.Literal("balanced", "too_wide", "too_narrow", "too_deep", "broken_lines", "indeterminate")

export const contract = defineContract({
  slug: "span_of_control",
  name: "SpanOfControl",
  friendly: "Span of Control",
  group: "organization",
  summary:
    "Measures a multi-agent crew's spans of control and depth from its reporting lines: the maximum and mean number of direct reports, the number of levels, Graicunas's count of relationships the widest manager must handle (n(2^(n-1) + n - 1): 2,376 for nine reports), managers over Urwick's limit of five or six interlocking reports, escalation funnels where reports lack decision authority, pass-through layers and reporting cycles or missing managers. With an incoming request rate it estimates the load on the apex and the widest manager, then says whether the crew is too wide, too narrow, too deep or has broken lines, and how to restructure it.",
  anchor: "Graicunas 1933; Urwick 1956",
  family: "crew",
  schemas: () => ({
    input: traceInput("SpanOfControlInput", "A crew of agents with reporting lines, and optionally the request rate it receives.", {
      ...familyFields.crew,
      incoming_request_rate: Schema.optional(
        Schema.Number.pipe(Schema.nonNegative()).annotations({
          description: "Requests per minute arriving at the crew's apex; used to estimate the load on managers."
        })
      )
    }),
    headline: Schema.Struct({
      verdict: Verdict.annotations({
        description: "The crew's span problem: balanced, too_wide, too_narrow, too_deep, broken_lines (cycles or missing managers), or indeterminate."
      }),
      max_span: Schema.Int.pipe(Schema.nonNegative()).annotations({
        description: "Largest number of direct reports of any agent (copy from the signals)."
      }),
      mean_span: Schema.NullOr(Schema.Number.pipe(Schema.nonNegative())).annotations({
        description: "Mean direct reports per manager (copy from the signals), or null when no agent manages another."
      }),
      depth: Schema.Int.pipe(Schema.nonNegative()).annotations({
        description: "Longest reporting chain in reporting lines, 0 for a flat crew (copy from the signals)."
      }),
      graicunas_relationships: Schema.NullOr(Schema.Number.pipe(Schema.nonNegative())).annotations({
        description: "Graicunas's relationship count n(2^(n-1) + n - 1) for the largest span (copy from the signals), or null."
      }),
      bottlenecks: Schema.Array(
        Schema.Struct({
          agent_id: Schema.String.annotations({ description: "Id of the bottleneck agent." }),
          span: Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "Its number of direct reports." }),
          reason: Schema.String.annotations({
            description: "Why it is a bottleneck: over Urwick's limit, escalation funnel, middle chokepoint, or load."
          })
        }).annotations({ description: "One agent where work or decisions queue." })
      ).annotations({ description: "Agents where work or decisions queue, widest first." }),
      structural_defects: Schema.Array(Schema.String).annotations({
        description: "Reporting defects found: cycles, managers missing from the crew, duplicate ids, self-reports."
      })
    }).annotations({
      identifier: "SpanOfControlHeadline",
      description: "Spans, depth, Graicunas relationships and bottlenecks of the crew."
    })
  }),
  profiles: ["balanced", "too_wide", "too_narrow", "too_deep", "broken_lines", "indeterminate"],
  sequences: ["agents"]
})
