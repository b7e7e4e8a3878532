/**
 * The checks (DECISIONS §23), in the order they run and are listed: one file each, one line here.
 * Adding a check is its file, its tests and its line; its entry in docs/checks.md is checked by a test.
 */
import type { Check } from "./Check.js"
import { contextOverflow } from "./ContextOverflow.js"
import { emptyFinalAnswer } from "./EmptyFinalAnswer.js"
import { handoffPingPong } from "./HandoffPingPong.js"
import { handoffUnanswered } from "./HandoffUnanswered.js"
import { invalidToolArguments } from "./InvalidToolArguments.js"
import { providerError } from "./ProviderError.js"
import { repeatedCallLoop } from "./RepeatedCallLoop.js"
import { successClaimAfterError } from "./SuccessClaimAfterError.js"
import { toolErrorUnrecovered } from "./ToolErrorUnrecovered.js"
import { truncatedOutput } from "./TruncatedOutput.js"
import { turnLimitReached } from "./TurnLimitReached.js"
import { unansweredToolCall } from "./UnansweredToolCall.js"
import { unknownTool } from "./UnknownTool.js"

export const CHECKS: ReadonlyArray<Check> = [
  toolErrorUnrecovered,
  successClaimAfterError,
  repeatedCallLoop,
  unansweredToolCall,
  unknownTool,
  invalidToolArguments,
  truncatedOutput,
  emptyFinalAnswer,
  turnLimitReached,
  contextOverflow,
  providerError,
  handoffUnanswered,
  handoffPingPong
]

/** The checks' ids, in registry order. */
export const CHECK_IDS: ReadonlyArray<string> = CHECKS.map((check) => check.id)
