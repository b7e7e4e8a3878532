/**
 * Logs: JSON lines (Effect's JSON logger) on stdout, or on stderr where stdout carries a protocol
 * (MCP over stdio); minimum level from SVC_LOG_LEVEL.
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type { AppConfigShape } from "../Config.js"

const levels: Record<AppConfigShape["logLevel"], LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

export const loggingLayer = (level: AppConfigShape["logLevel"], stream: "stdout" | "stderr" = "stdout") =>
  Layer.merge(
    stream === "stdout" ? Logger.json : Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.jsonLogger)),
    Logger.minimumLogLevel(levels[level])
  )
