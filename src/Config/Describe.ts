/** How a configuration that cannot be read is told to a person: one line per problem, variable first. */
import type * as ConfigError from "effect/ConfigError"
import * as Data from "effect/Data"

/** Renders a ConfigError for a person: one line per problem, variable first. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "InvalidData":
        lines.push(e.message)
        return
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        lines.push(`${e.path.join(".")}: ${e.message}`)
        return
    }
  }
  walk(error)
  return Array.from(new Set(lines)).join("\n")
}

/** The configuration could not be read: the one message every program prints (one line per problem). */
export class InvalidConfiguration extends Data.TaggedError("InvalidConfiguration")<{ readonly message: string }> {}

export const invalidConfiguration = (error: ConfigError.ConfigError) =>
  new InvalidConfiguration({ message: `invalid configuration:\n${describeConfigError(error)}` })
