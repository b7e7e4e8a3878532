/**
 * What the MCP tests share: the official SDK's client over either transport, and the
 * comparisons with the REST answers.
 */
import { Predicate } from "effect"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { join } from "node:path"

/** `svc mcp`: the command line's entry, run by node (as the `svc` launcher does), then its argument. */
export const MCP_ENTRY = join(import.meta.dirname, "..", "..", "bin", "svc")

export const newClient = () => new Client({ name: "svc-tests", version: "1.0.0" })

/** A connected client over Streamable HTTP at `<url>/mcp`. */
export const connectHttp = async (url: string, headers: Record<string, string> = {}) => {
  const client = newClient()
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } })
  await client.connect(transport)
  return { client, transport }
}

/** A connected client over stdio to `svc mcp`, with this environment. */
export const connectStdio = async (env: Record<string, string>) => {
  const client = newClient()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_ENTRY, "mcp"],
    env: { PATH: process.env["PATH"] ?? "", SVC_LOG_LEVEL: "info", ...env },
    stderr: "pipe"
  })
  const stderr: Array<string> = []
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")))
  await client.connect(transport)
  return { client, transport, stderr }
}

/** The text of a tool result's first content block. */
export const firstText = (result: unknown): string => {
  const content = Predicate.isRecord(result) ? result["content"] : undefined
  const first: unknown = Array.isArray(content) ? content[0] : undefined
  return Predicate.isRecord(first) && typeof first["text"] === "string" ? first["text"] : ""
}

/** Polls `condition`; the deadline is for a hang (tens of seconds), never a timing the test asserts. */
export const waitFor = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A sample of a Prometheus counter with these labels (0 when absent). */
export const sample = async (url: string, name: string, labels: Readonly<Record<string, string>>) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1))
}
