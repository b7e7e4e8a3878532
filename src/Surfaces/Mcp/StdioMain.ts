/**
 * `svc mcp`: the MCP surface over stdio as one program (Program.ts). Same configuration, Layers and
 * providers as the service, no HTTP server. stdout carries the protocol and nothing else: logs are
 * JSON lines on stderr, a start failure is one line there, and anything that would print to stdout
 * through `console` is sent to stderr.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ResourcesLive } from "../../Resources.js"
import { callerSettings, invalidConfiguration } from "../../Config.js"
import * as Program from "../../Program.js"
import { McpCoreLive } from "./Mcp.js"
import { serveStdio } from "./Stdio.js"

export const mcpStdioProgram = Program.make({ name: "svc mcp", logs: { stream: "stderr" } }, ({ config, logging }) =>
  Effect.gen(function*() {
    // A dependency that prints with console.log must not corrupt the protocol stream.
    console.log = console.error
    console.info = console.error
    console.debug = console.error
    const apiKey = yield* Effect.mapError(callerSettings.apiKey, invalidConfiguration)
    yield* serveStdio({ input: process.stdin, output: process.stdout, apiKey }).pipe(
      Effect.provide(McpCoreLive.pipe(Layer.provideMerge(ResourcesLive(config)), Layer.provide(logging))),
      Effect.provide(logging),
      Effect.scoped
    )
  }))
