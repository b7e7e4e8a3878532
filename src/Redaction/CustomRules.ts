/**
 * The operator's own rules (SVC_REDACT_RULES=FILE, DECISIONS §20): one per line,
 * `name = expression`, blank lines and `#` comments ignored. `name` is the placeholder's kind
 * (`[name:3f9a1c]`, lower case, digits, `_`); the expression is a JavaScript regular expression
 * run by V8's linear-time engine (the `l` flag): its time grows with the text's length only, so no
 * pattern can stall a request. What that engine cannot run (back-references, lookaround), an
 * expression that does not compile, one that matches the empty string, or a name used twice stops
 * start-up with the file's line.
 */
import * as Either from "effect/Either"
import { setFlagsFromString } from "node:v8"
import type { Rule } from "./Rules.js"

// V8's linear-time engine, for expressions with the `l` flag only; nothing else changes.
setFlagsFromString("--enable-experimental-regexp-engine")

const NAME = /^[a-z][a-z0-9_]{0,31}$/

/** The rules of a file's text, or why line N is not one. */
export const parseRules = (text: string, file: string, builtInKinds: ReadonlySet<string>): Either.Either<ReadonlyArray<Rule>, string> => {
  const rules: Array<Rule> = []
  const names = new Set<string>()
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? "").trim()
    if (line.length === 0 || line.startsWith("#")) continue
    const at = `${file}:${index + 1}`
    const equals = line.indexOf("=")
    if (equals < 0) return Either.left(`${at}: expected \`name = expression\``)
    const name = line.slice(0, equals).trim()
    const source = line.slice(equals + 1).trim()
    if (!NAME.test(name)) return Either.left(`${at}: the name \`${name}\` is not 1-32 of a-z, 0-9 and _ starting with a letter`)
    if (names.has(name)) return Either.left(`${at}: the name \`${name}\` is used twice`)
    if (builtInKinds.has(name)) return Either.left(`${at}: \`${name}\` is a built-in kind; name the rule otherwise`)
    if (source.length === 0) return Either.left(`${at}: the expression is empty`)
    if (/\(\?<[A-Za-z]/.test(source)) return Either.left(`${at}: named groups are not allowed`)
    let expression: RegExp
    try {
      // eslint-disable-next-line no-invalid-regexp -- `l` is V8's linear-time engine, enabled above
      expression = new RegExp(source, "l")
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      return Either.left(`${at}: ${/linear/i.test(reason) ? "cannot run in linear time (no back-references or lookaround)" : reason}`)
    }
    if (expression.test("")) return Either.left(`${at}: the expression matches the empty string`)
    names.add(name)
    rules.push({ kind: name, class: "secrets", source })
  }
  return Either.right(rules)
}
