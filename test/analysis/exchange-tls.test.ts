/**
 * A model host reached over https (src/Providers/Exchange.ts): node:https is loaded by the first
 * call to an https host, not at start-up (issue 52), and that call really goes through TLS with
 * the exchange's keep-alive agent. The host here is a TLS server on loopback with a certificate
 * made for this test by `openssl`, which no client trusts: the exchange's answer is the TLS
 * client's own refusal, which only a TLS handshake can give.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer, type Server } from "node:tls"
import { exchange, makeAgents } from "../../src/Providers/Exchange.js"

let server: Server
let port = 0
const handshakes: Array<string> = []
const dir = mkdtempSync(join(tmpdir(), "svc-exchange-tls-"))

beforeAll(async () => {
  const made = spawnSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
    "-subj", "/CN=127.0.0.1", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")
  ], { encoding: "utf8", timeout: 30_000 })
  if (made.status !== 0) throw new Error(`openssl could not make the test's certificate: ${made.stderr}`)
  server = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) })
  // The client refuses the certificate, so the server sees a handshake that the client ended.
  server.on("tlsClientError", (error) => handshakes.push(error.message))
  server.on("secureConnection", (socket) => {
    handshakes.push("completed")
    socket.destroy()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the TLS server has no port")
  port = address.port
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

describe("an https model host", () => {
  it.live("is called over TLS through the exchange's agent, node:https loaded on that first call", () =>
    Effect.gen(function*() {
      const agents = makeAgents()
      const call = exchange(agents, `https://127.0.0.1:${port}/v1/chat/completions`, { "content-type": "application/json" }, [Buffer.from("{}")], Date.now())
      const first = yield* Effect.either(call)
      const second = yield* Effect.either(call)
      agents.close()
      // The TLS client's refusal of an untrusted self-signed certificate (no retry: the deadline is now).
      expect(first).toEqual(Either.left({ _tag: "Unreachable", code: "DEPTH_ZERO_SELF_SIGNED_CERT" }))
      expect(second).toEqual(first)
      expect(handshakes.length).toBeGreaterThanOrEqual(1)
      expect(handshakes).not.toContain("completed")
    }))

  it("closing agents that never called an https host is safe", () => {
    const agents = makeAgents()
    expect(() => agents.close()).not.toThrow()
  })
})
