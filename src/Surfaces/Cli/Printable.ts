/**
 * Text that reaches the terminal from outside (a file name, a pattern name, an address, a
 * message quoting either) is printed with its control characters as visible escapes: a file
 * named `run\x1b]0;pwned\x07.json` would otherwise retitle the window, clear the screen or move
 * the cursor over the progress lines (issue 27). Escaped: C0 controls, DEL and C1 controls
 * (`\x1b`, `\x07`, `\x7f`, `\x9b`), and the bidirectional controls that reorder what a line
 * shows (`\u202e`, `\u2066`, ...). Backslashes are left as they are, so escaping twice changes
 * nothing: a name escaped where it is quoted passes the safety net of the stderr sink untouched.
 */

/** C0, DEL, C1; the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), and the marks (U+061C, U+200E, U+200F). */
const unprintable = (code: number): boolean =>
  code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x061c || code === 0x200e || code === 0x200f ||
  (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)

const hex = (code: number, width: number) => code.toString(16).padStart(width, "0")

/** One line of outside text, every control character escaped (newlines and tabs too). */
export const printable = (text: string): string => {
  let out = ""
  for (const character of text) {
    const code = character.charCodeAt(0)
    out += !unprintable(code) ? character : code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`
  }
  return out
}

/** A message of several lines: each line made printable, the line breaks (and tabs) kept. */
export const printableLines = (text: string): string => text.split("\n").map((line) => line.split("\t").map(printable).join("\t")).join("\n")
