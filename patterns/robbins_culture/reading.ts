/**
 * Robbins-Judge culture from a raw trace: `task_class` classified by keywords from the task, the
 * system prompt or the tools called (the same estimate as grant_strengths; `general` when nothing
 * matches, which sets no culture demand).
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"
import { taskClass } from "../grant_strengths/reading.js"

export const deriveFromTrace: DeriveFromTrace = (trace) => ({ fields: { task_class: taskClass(trace) } })
