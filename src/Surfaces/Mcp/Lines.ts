/**
 * Newline-delimited messages from a byte stream (MCP's stdio framing), each line at most `limit`
 * bytes: a longer line is dropped as it streams in, never held whole, and reported once when its
 * newline (or the end of the stream) comes; reading goes on with the next line. A line keeps only
 * the chunks it spans (its bytes, and at most the two chunks it starts and ends in).
 */
export interface LineHandlers {
  /** A line, decoded as UTF-8, without its newline (nor a `\r` before it). */
  readonly line: (text: string) => void
  /** A line longer than the limit was dropped. */
  readonly tooLong: () => void
}

const NEWLINE = 10

export const makeLineSplitter = (limit: number, handlers: LineHandlers) => {
  let parts: Array<Uint8Array> = []
  let held = 0
  let dropping = false

  const finish = () => {
    if (dropping) {
      dropping = false
      handlers.tooLong()
    } else {
      const text = Buffer.concat(parts, held).toString("utf8")
      handlers.line(text.endsWith("\r") ? text.slice(0, -1) : text)
    }
    parts = []
    held = 0
  }

  return {
    push: (chunk: Uint8Array): void => {
      let start = 0
      while (start <= chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start)
        const end = newline === -1 ? chunk.length : newline
        if (!dropping) {
          if (held + (end - start) > limit) {
            dropping = true
            parts = []
            held = 0
          } else if (end > start) {
            parts.push(chunk.subarray(start, end))
            held += end - start
          }
        }
        if (newline === -1) return
        finish()
        start = newline + 1
      }
    },
    /** The stream ended: a last line without a newline counts. */
    end: (): void => {
      if (dropping || held > 0) finish()
    }
  }
}
