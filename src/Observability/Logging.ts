/**
 * Logs: JSON lines on stdout (Effect's JSON logger), minimum level from SVC_LOG_LEVEL.
 */
import { Layer, Logger, LogLevel } from "effect"
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

export const loggingLayer = (level: AppConfigShape["logLevel"]) =>
  Layer.merge(Logger.json, Logger.minimumLogLevel(levels[level]))
