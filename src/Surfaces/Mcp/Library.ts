/**
 * The MCP resources and prompts (DECISIONS §14): each pattern's playbooks, citations and
 * composition as resources (`svc://patterns/{name}/playbooks|citations|composition`, one
 * resource template per kind, and each concrete resource listed for clients without template
 * support), and a prompt per pattern that asks for the run and has the assistant analyse it with
 * the pattern's tool. The bodies are the catalogue's, as REST serves them. A URI that is none of
 * these is refused with -32602 naming it (the McpServer alone answers it with no contents).
 */
import * as McpSchema from "@effect/ai/McpSchema"
import { McpServer } from "@effect/ai/McpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import { Catalogue, type CatalogueEntry } from "../../Catalogue/Catalogue.js"
import { MODE_NAMES, MODES_DESCRIBED } from "../../Catalogue/Resources.js"
import { DEFAULT_MODE } from "../../Registry/Modes.js"
import { INVALID_PARAMS } from "./JsonRpc.js"
import { McpProtocol } from "./Protocol.js"
import { toolName } from "./ToolTexts.js"

export const RESOURCE_BASE = "svc://patterns"

interface Kind {
  readonly kind: "playbooks" | "citations" | "composition"
  readonly mimeType: string
  readonly title: string
  readonly body: (entry: CatalogueEntry) => Uint8Array
  readonly describe: (friendly: string) => string
}

const KINDS: ReadonlyArray<Kind> = [
  {
    kind: "playbooks",
    mimeType: "application/json",
    title: "Playbooks",
    body: (entry) => entry.playbooksJson,
    describe: (friendly) => `The ${friendly} playbooks: the interventions a detection may point to, with their steps.`
  },
  {
    kind: "citations",
    mimeType: "text/markdown",
    title: "Citations",
    body: (entry) => entry.citations,
    describe: (friendly) => `The research behind ${friendly}: the works its framework and playbooks cite.`
  },
  {
    kind: "composition",
    mimeType: "application/json",
    title: "Composition",
    body: (entry) => entry.compositionJson,
    describe: (friendly) => `How ${friendly} composes with the other patterns: what to run before, after or alongside it.`
  }
]

const decoder = new TextDecoder()

export const resourceUri = (slug: string, kind: Kind["kind"]) => `${RESOURCE_BASE}/${slug}/${kind}`

/**
 * The URIs the templates answer: `svc://patterns/<one segment>/<kind>` (a segment that names no
 * pattern gets the template's own -32602, naming the pattern).
 */
const RESOURCE_URI = new RegExp(`^svc://patterns/[^/?#]+/(?:${KINDS.map((kind) => kind.kind).join("|")})$`)

/** -32602 for a `resources/read` of a URI that is no resource here; undefined for the rest. */
export const unknownResource = (params: unknown) => {
  const uri = Predicate.isRecord(params) ? params["uri"] : undefined
  if (typeof uri !== "string" || RESOURCE_URI.test(uri)) return undefined
  return {
    code: INVALID_PARAMS,
    message: `Invalid params: resource not found: ${JSON.stringify(uri.slice(0, 200))}; the resources are ${RESOURCE_BASE}/{name}/playbooks, citations and composition (resources/list)`
  }
}

export const McpLibraryLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const server = yield* McpServer
    const catalogue = yield* Catalogue
    const protocol = yield* McpProtocol
    protocol.precheck("resources/read", unknownResource)
    const slugs = catalogue.entries.map((entry) => entry.pattern.code.slug)

    const contents = (uri: string, kind: Kind, entry: CatalogueEntry) => ({
      contents: [{ uri, mimeType: kind.mimeType, text: decoder.decode(kind.body(entry)) }]
    })

    for (const kind of KINDS) {
      yield* server.addResourceTemplate({
        template: new McpSchema.ResourceTemplate({
          uriTemplate: `${RESOURCE_BASE}/{name}/${kind.kind}`,
          name: `pattern-${kind.kind}`,
          title: `A pattern's ${kind.title.toLowerCase()}`,
          description: `${kind.describe("a pattern")} {name} is a pattern name (svc_list_patterns lists them).`,
          mimeType: kind.mimeType
        }),
        // find-my-way's syntax: `::` is a literal colon, `:0` the first parameter.
        routerPath: `svc:://patterns/:0/${kind.kind}`,
        completions: {
          name: (input: string) =>
            Effect.succeed(
              McpSchema.CompleteResult.make({
                completion: { values: slugs.filter((slug) => slug.startsWith(input)).slice(0, 100), hasMore: false }
              })
            )
        },
        handle: (uri: string, params: Array<string>) => {
          const name = params[0] ?? ""
          const entry = catalogue.get(name)
          return entry === undefined
            ? Effect.fail(new McpSchema.InvalidParams({ message: `no pattern named ${JSON.stringify(name.slice(0, 80))}; svc_list_patterns lists them` }))
            : Effect.succeed(contents(uri, kind, entry))
        }
      })
      for (const entry of catalogue.entries) {
        const { friendly, slug } = entry.pattern.code
        const uri = resourceUri(slug, kind.kind)
        yield* server.addResource(
          new McpSchema.Resource({ uri, name: `${slug}-${kind.kind}`, title: `${friendly}: ${kind.title}`, description: kind.describe(friendly), mimeType: kind.mimeType }),
          Effect.succeed(contents(uri, kind, entry))
        )
      }
    }

    for (const entry of catalogue.entries) {
      const code = entry.pattern.code
      const tool = toolName(code.slug)
      yield* server.addPrompt({
        prompt: new McpSchema.Prompt({
          name: code.slug,
          title: `Analyse a run: ${code.friendly}`,
          description: `Read an agent run through ${code.friendly} (${code.name}) and explain what went wrong and what to change.`,
          arguments: [
            { name: "trace", description: "The agent run: a trace export or the pattern's own input, as JSON.", required: true },
            { name: "mode", description: `${MODES_DESCRIBED}.`, required: false }
          ]
        }),
        completions: {
          mode: (input: string) =>
            Effect.succeed(
              McpSchema.CompleteResult.make({ completion: { values: MODE_NAMES.filter((mode) => mode.startsWith(input)), hasMore: false } })
            )
        },
        handle: (params: Record<string, string>) => {
          const trace = params["trace"]
          if (trace === undefined || trace.trim().length === 0) {
            return Effect.fail(new McpSchema.InvalidParams({ message: `the prompt ${code.slug} needs the argument trace: the agent run, as JSON` }))
          }
          const mode = params["mode"] ?? DEFAULT_MODE
          const instructions = [
            `Analyse the agent run below through ${code.friendly} (${code.name}): ${code.summary}`,
            "",
            `1. Call the tool \`${tool}\` with the run as \`trace\` and mode \`${mode}\`.`,
            "2. Report the severity and profile, then each finding with the evidence the tool quoted from the run.",
            `3. Recommend the interventions, most valuable first; for the steps of a playbook, read \`${resourceUri(code.slug, "playbooks")}\`.`,
            `4. Name the works behind the framework from \`${resourceUri(code.slug, "citations")}\`, and, if a finding points past this lens, the pattern \`${resourceUri(code.slug, "composition")}\` suggests next.`,
            "",
            "The run:",
            "",
            trace
          ].join("\n")
          return Effect.succeed(
            new McpSchema.GetPromptResult({
              description: `${code.friendly} on an agent run`,
              messages: [{ role: "user", content: McpSchema.TextContent.make({ type: "text", text: instructions }) }]
            })
          )
        }
      })
    }
  })
)
