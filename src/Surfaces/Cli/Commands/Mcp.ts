/** `svc mcp`: MCP over stdio for a desktop client. */
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { commandHelp } from "../Help.js"
import { endProgram } from "../Running.js"

export const makeMcp = () =>
  Command.make("mcp", {}, () =>
    Effect.gen(function*() {
      const { mcpStdioProgram } = yield* Effect.promise(() => import("../../Mcp/StdioMain.js"))
      return yield* endProgram(mcpStdioProgram)
    })).pipe(
      Command.withDescription(
        commandHelp(
          "Serve MCP over stdio for a desktop client (Claude Desktop, Claude Code, Cursor): every pattern, svc_diagnose and svc_list_patterns as tools, playbooks and citations as resources. stdout carries only the protocol; logs go to stderr. SVC_API_KEY is the caller's key when SVC_API_REQUIRE_AUTH=true.",
          [["svc mcp", "what an MCP client's configuration runs (docs/mcp.md)"]]
        )
      )
    )
