/**
 * Many small GET requests, fast: raw HTTP/1.1 pipelined over a few keep-alive sockets. Used where
 * a test must send a very large number of requests (e.g. 100,000 distinct client addresses).
 */
import { connect } from "node:net"

export interface PipelinedRequest {
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
}

/** Sends all requests and resolves with the count of each status code. */
export const pipelinedGets = async (
  port: number,
  requests: ReadonlyArray<PipelinedRequest>,
  options: { readonly sockets?: number; readonly batch?: number } = {}
): Promise<Map<number, number>> => {
  const sockets = options.sockets ?? 16
  const batch = options.batch ?? 64
  const statuses = new Map<number, number>()
  let next = 0
  const runSocket = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1")
      let pending = 0
      let buffer = ""
      const sendBatch = () => {
        if (next >= requests.length) {
          socket.end()
          return
        }
        const lines: Array<string> = []
        for (let k = 0; k < batch && next < requests.length; k++) {
          const request = requests[next++]!
          const headers = Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}\r\n`).join("")
          lines.push(`GET ${request.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`)
          pending += 1
        }
        socket.write(lines.join(""))
      }
      socket.setEncoding("latin1")
      socket.on("connect", sendBatch)
      socket.on("data", (chunk: string) => {
        buffer += chunk
        // Each response: status line, headers, Content-Length body.
        for (;;) {
          const headerEnd = buffer.indexOf("\r\n\r\n")
          if (headerEnd < 0) return
          const head = buffer.slice(0, headerEnd)
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? "0")
          if (buffer.length < headerEnd + 4 + length) return
          const status = Number(head.slice(9, 12))
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
          buffer = buffer.slice(headerEnd + 4 + length)
          pending -= 1
          if (pending === 0) sendBatch()
        }
      })
      socket.on("close", () => resolve())
      socket.on("error", reject)
    })
  await Promise.all(Array.from({ length: sockets }, runSocket))
  return statuses
}
