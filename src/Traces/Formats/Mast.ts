/**
 * The `mast` importer (DECISIONS §12): records of MAD, the Multi-Agent System Traces Dataset of
 * MAST ("Why Do Multi-Agent LLM Systems Fail?", Hugging Face `mcemri/MAD`): the full dataset's
 * `{mas_name, llm_name, benchmark_name, trace_id, trace: {key, index, trajectory},
 * mast_annotation}` and the human-labelled one's `{round, mas_name, benchmark_name, trace_id,
 * trace: "<text>", annotations}`, one record or the dataset's list (one trace per record); and a
 * raw trace file as MAST's annotated logs keep it and as a MAD record's `trace` holds it (MetaGPT):
 * `{run_id, prompt, content, timestamp, cost, log_file}`, `content` the framework's log, with or
 * without a `mast_annotation`, alone or in a list.
 *
 * The trajectory is what each multi-agent system wrote, read by its shape:
 * - JSON with `trajectory` as a list of per-agent messages `{name, role, content}` (AG2; `content`
 *   a string or a list of lines): one message per entry, the agent its `name`; a user proxy
 *   (`*proxy*`, `user`, `human`) speaks as the user. `problem_statement` is the task;
 *   `other_data` (the benchmark's answer, correctness, gold patch, hints) is never read;
 * - JSON with `trajectory` as a list of log lines (HyperAgent), or `{prompt, content}` (MetaGPT):
 *   the lines or `content` read as a log, `prompt` the task;
 * - a log: split at the lines that start a turn: HyperAgent `<Agent>'s Response:` and
 *   `<From>-><To>:` (a reply to the planner), MetaGPT `Name(Profile): …` and its communication
 *   log's `FROM: X TO: Y` / `NEW MESSAGES:` blocks, ChatDev `[… INFO] <Role>: …`, AG2 `<from>
 *   (to <to>):`, OpenManus thoughts, tool arguments and results. A turn runs to the next one (or
 *   a separator line); log lines outside turns (setup, HTTP and usage lines) are skipped and
 *   counted. A planner's `Intern Name: X` is a handoff to X. An ERROR-level turn is an error. A
 *   log in none of these shapes is one message of the system.
 *
 * The failure annotations (`mast_annotation`, `annotations`) are dataset labels: never read.
 * Sources: `[2].trace.trajectory[5]` (JSON entries), `trace#L120` (a log's line, 1-based),
 * `trace.content#L3`, `content#L3` (a raw trace file). Trace ids: the record's `trace_id` (with its
 * `mas_name`, which the dataset needs to tell records apart); a raw trace file's `run_id`.
 */
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import { makeTraceBuilder, type TraceBuilder } from "../Builder.js"
import type { Importer } from "../Importer.js"
import type { ActorRole, EventKind, NormalizedTrace } from "../Model.js"
import { at, detectSafely, idOf, readEach, sample, str, type Rec } from "./Common.js"

// ---------------------------------------------------------------------------------------------
// Detection

/** A MAD record: `mas_name`, a trace (text, or `{trajectory}`), and the dataset's other fields. */
const isMastRecord = (value: unknown): value is Rec => {
  if (!Predicate.isRecord(value) || typeof value["mas_name"] !== "string") return false
  const trace = value["trace"]
  const traced = typeof trace === "string" || (Predicate.isRecord(trace) && "trajectory" in trace)
  return traced && ("benchmark_name" in value || "mast_annotation" in value || "annotations" in value) && "trace_id" in value
}

/** How many of a log's first lines detection reads for a turn it knows. */
const DETECT_LINES = 200

/**
 * A raw trace file `{run_id, prompt, content}`: a run id and the log in `content`, with MAST's
 * annotation, or with the prompt and a turn this importer reads among the log's first lines (a
 * bare `{run_id, content}` could be anything's).
 */
const isRawTrace = (value: unknown): value is Rec => {
  if (!Predicate.isRecord(value) || idOf(value["run_id"]) === undefined) return false
  const content = value["content"]
  if (typeof content !== "string") return false
  if ("mast_annotation" in value) return true
  return typeof value["prompt"] === "string" && turnsOf(content.slice(0, 64 * 1024).split(/\r?\n/, DETECT_LINES)).turns.length > 0
}

const detect = (body: unknown): boolean =>
  isMastRecord(body) || isRawTrace(body) || (Array.isArray(body) && body.length > 0 && (sample(body).every(isMastRecord) || sample(body).every(isRawTrace)))

// ---------------------------------------------------------------------------------------------
// Turns in a log

interface Turn {
  readonly actor: string
  readonly kind: EventKind
  readonly to?: string | undefined
  readonly tool?: string | undefined
  readonly timestamp?: string | undefined
  /** The turn's first line's index in the log. */
  readonly line: number
  readonly lines: Array<string>
  /** Lines after a separator are not part of the turn. */
  closed: boolean
}

/** What a line that starts a turn says; `undefined` actor: a log line that belongs to no turn. */
interface Header {
  readonly actor?: string | undefined
  readonly kind?: EventKind | undefined
  readonly to?: string | undefined
  readonly tool?: string | undefined
  readonly rest: string
  readonly timestamp?: string | undefined
}

const isoOfLogTime = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined
  const match = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d{1,3})?/.exec(text)
  if (match === null) return undefined
  const date = new Date(`${match[1]}T${match[2]}${match[3] ?? ""}Z`)
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString()
}

/** Reads the header of a line (a turn's start or a log line), or undefined for a body line. */
/** What the rules remember across lines: the tool being prepared, the time of a `NEW MESSAGES:` block awaiting its speaker. */
interface RuleState {
  tool: string | undefined
  awaiting: string | undefined
}
type HeaderRule = (line: string, state: RuleState) => Header | undefined

const HYPER = /^HyperAgent_\S+ - (INFO|WARNING|ERROR|DEBUG) - (.*)$/
const LOGURU = /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) \| (\w+)\s*\| \S+ - (.*)$/
const COMM_FROM = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\] FROM: (.+?) TO: (.*)$/
const COMM_NEW = /^\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\] NEW MESSAGES:\s*$/
const CHATDEV = /^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (INFO|WARNING|ERROR)\] (.*)$/
const AG2 = /^([\w .@-]{1,80}) \(to ([\w .@-]{1,80})\):\s*$/

const RULES: ReadonlyArray<HeaderRule> = [
  (line) => {
    const match = HYPER.exec(line)
    if (match === null) return undefined
    const [, level, rest = ""] = match
    const response = /^([\w-]+)'s Response: ?([\s\S]*)$/.exec(rest)
    if (response !== null) return { actor: response[1] ?? "agent", rest: response[2] ?? "", kind: level === "ERROR" ? "error" : "message" }
    const reply = /^(\w+)->(\w+): ?([\s\S]*)$/.exec(rest)
    if (reply !== null) return { actor: reply[1] ?? "agent", to: reply[2] ?? "", rest: reply[3] ?? "", kind: level === "ERROR" ? "error" : "message" }
    return level === "ERROR" ? { actor: "HyperAgent", kind: "error", rest } : { rest }
  },
  (line, state) => {
    const match = LOGURU.exec(line)
    if (match === null) return undefined
    const [, time, level, rest = ""] = match
    const timestamp = isoOfLogTime(time)
    const error = level === "ERROR" ? "error" : undefined
    // MetaGPT's `Name(Profile)`, whose profile may be words (`Alice(Product Manager)`)
    const role = /^(\w+)\((\w[\w ]{0,40})\): ?([\s\S]*)$/.exec(rest)
    if (role !== null) return { actor: `${role[1] ?? ""}(${role[2] ?? ""})`, rest: role[3] ?? "", kind: error ?? "message", timestamp }
    // OpenManus
    const thought = /^✨ (\w+)'s thoughts: ?([\s\S]*)$/.exec(rest)
    if (thought !== null) return { actor: thought[1] ?? "agent", kind: "thought", rest: thought[2] ?? "", timestamp }
    const prepared = /^🧰 Tools being prepared: \['([^']+)'/.exec(rest)
    if (prepared !== null) state.tool = prepared[1]
    const args = /^🔧 Tool arguments: ?([\s\S]*)$/.exec(rest)
    if (args !== null) return { actor: "Manus", kind: "tool_call", tool: state.tool ?? "tool", rest: args[1] ?? "", timestamp }
    const result = /^🎯 Tool '([^']+)' completed its mission! Result: ?([\s\S]*)$/.exec(rest)
    if (result !== null) return { actor: result[1] ?? "tool", kind: "tool_result", tool: result[1] ?? "tool", rest: result[2] ?? "", timestamp }
    if (error !== undefined) return { actor: "agent", kind: "error", rest, timestamp }
    return { rest }
  },
  (line, state) => {
    const from = COMM_FROM.exec(line)
    if (from !== null) return { actor: from[2] ?? "agent", to: (from[3] ?? "").replace(/^\{'?|'?\}$/g, ""), rest: "", timestamp: isoOfLogTime(from[1]) }
    const fresh = COMM_NEW.exec(line)
    if (fresh !== null) {
      state.awaiting = isoOfLogTime(fresh[1]) ?? ""
      return { rest: "" }
    }
    if (state.awaiting !== undefined) {
      const speaker = /^(\w[\w ]{0,60}): ?([\s\S]*)$/.exec(line)
      if (speaker !== null) {
        const timestamp = state.awaiting.length > 0 ? state.awaiting : undefined
        state.awaiting = undefined
        return { actor: speaker[1] ?? "agent", rest: speaker[2] ?? "", ...(timestamp === undefined ? {} : { timestamp }) }
      }
    }
    return undefined
  },
  (line) => {
    const match = CHATDEV.exec(line)
    if (match === null) return undefined
    const [, level, rest = ""] = match
    const speaker = /^([A-Z][\w ]{0,60}): (\*\*[\s\S]*)$/.exec(rest)
    if (speaker !== null) return { actor: speaker[1] ?? "agent", rest: speaker[2] ?? "", kind: level === "ERROR" ? "error" : "message" }
    return { rest }
  },
  (line) => {
    const match = AG2.exec(line)
    return match === null ? undefined : { actor: match[1] ?? "agent", to: match[2] ?? "", rest: "" }
  }
]

const SEPARATOR = /^-{20,}\s*$/

/**
 * The turns of a log's lines, and how many log records belonged to none: a log line of no turn
 * (with the lines that follow it), or a block of lines outside every turn, counts once.
 */
const turnsOf = (lines: ReadonlyArray<string>): { readonly turns: ReadonlyArray<Turn>; readonly stray: number } => {
  const turns: Array<Turn> = []
  const state: RuleState = { tool: undefined, awaiting: undefined }
  let current: Turn | undefined
  let stray = 0
  let inStray = false
  lines.forEach((line, index) => {
    let header: Header | undefined
    for (const rule of RULES) {
      header = rule(line, state)
      if (header !== undefined) break
    }
    if (header === undefined) {
      if (SEPARATOR.test(line)) {
        if (current !== undefined) current.closed = true
        inStray = false
      } else if (current !== undefined && !current.closed) current.lines.push(line)
      else if (line.trim().length > 0 && !inStray) {
        stray++
        inStray = true
      }
      return
    }
    if (header.actor === undefined) {
      // a log line of no turn: it ends the turn before it
      if (current !== undefined) current.closed = true
      if (state.awaiting === undefined) stray++
      inStray = state.awaiting === undefined
      return
    }
    inStray = false
    current = { actor: header.actor, kind: header.kind ?? "message", to: header.to, tool: header.tool, timestamp: header.timestamp, line: index, lines: [header.rest], closed: false }
    turns.push(current)
  })
  return { turns, stray }
}

// ---------------------------------------------------------------------------------------------
// Reading

const roleOf = (actor: string): ActorRole => {
  if (/^system$/i.test(actor)) return "system"
  if (/^(human|user)$/i.test(actor) || /proxy/i.test(actor)) return "user"
  return "agent"
}

/** A MetaGPT communication turn: what follows its `CONTENT:` line (the `ACTION:` line is not content). */
const turnText = (turn: Turn): string => {
  const at = turn.lines.findIndex((line) => line === "CONTENT:")
  const lines = at >= 0 && turn.lines.slice(0, at).every((line) => line === "" || line.startsWith("ACTION:")) ? turn.lines.slice(at + 1) : turn.lines
  return lines.join("\n").trim()
}

/** Adds a log's turns; `source(i)` points at the log's i-th line. */
const readLog = (builder: TraceBuilder, lines: ReadonlyArray<string>, source: (line: number) => string, system: string): void => {
  const { turns, stray } = turnsOf(lines)
  if (turns.length === 0) {
    // a log without turn markers the importer knows: one message of the system, nothing skipped
    const text = lines.join("\n").trim()
    if (text.length > 0) builder.add({ actor: system, role: "agent", kind: "message", content: text, source: source(0) })
    return
  }
  builder.skip(stray)
  for (const turn of turns) {
    const content = turnText(turn)
    if (content.length === 0) continue
    const role = turn.kind === "tool_result" ? "tool" : roleOf(turn.actor)
    builder.add({ actor: turn.actor, role, kind: turn.kind, content, to: turn.to, tool: turn.tool, timestamp: turn.timestamp, source: source(turn.line) })
    // a planner handing a subgoal to one of its interns
    turn.lines.forEach((line, offset) => {
      const intern = /^Intern Name: ?(.+)$/.exec(line.trim())
      if (intern === null) return
      const subgoal = turn.lines.slice(offset + 1).find((next) => next.startsWith("Subgoal:"))
      builder.add({ actor: turn.actor, role: "agent", kind: "handoff", to: (intern[1] ?? "").trim(), content: subgoal ?? line.trim(), timestamp: turn.timestamp, source: source(turn.line + offset) })
    })
  }
}

const linesOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (Array.isArray(value) && value.every((line) => typeof line === "string")) return value.join("\n")
  return undefined
}

/** Reads a trajectory: JSON (per-agent messages, log lines, `{prompt, content}`) or a log. Returns the task when it states one. */
const readTrajectory = (builder: TraceBuilder, text: string, base: string, system: string): string | undefined => {
  let parsed: unknown
  const trimmed = text.trim()
  if (trimmed.startsWith("{")) {
    try {
      parsed = JSON.parse(trimmed)
    } catch {
      parsed = undefined
    }
  }
  const logLines = (log: string, at: string) => readLog(builder, log.split(/\r?\n/), (line) => `${at}#L${line + 1}`, system)
  if (!Predicate.isRecord(parsed)) {
    logLines(text, base)
    return /\*\*task_prompt\*\*: ([^\n]+)/.exec(text)?.[1]?.trim()
  }
  const task = linesOf(parsed["problem_statement"])?.trim() ?? str(parsed["prompt"])
  const trajectory = parsed["trajectory"]
  if (Array.isArray(trajectory) && trajectory.every((line) => typeof line === "string")) {
    readLog(builder, trajectory, (line) => `${base}.trajectory[${line}]`, system)
  } else if (Array.isArray(trajectory)) {
    trajectory.forEach((entry, index) => {
      const source = `${base}.trajectory[${index}]`
      if (!Predicate.isRecord(entry)) {
        builder.skip()
        return
      }
      const content = linesOf(entry["content"]) ?? (entry["content"] === undefined || entry["content"] === null ? undefined : JSON.stringify(entry["content"]))
      const actor = str(entry["name"]) ?? str(entry["role"])
      if (content === undefined || actor === undefined) {
        builder.skip()
        return
      }
      if (content.trim().length === 0) return
      builder.add({ actor, role: roleOf(actor), kind: "message", content, source })
    })
  } else if (typeof parsed["content"] === "string") {
    logLines(parsed["content"], `${base}.content`)
  } else {
    builder.skip()
  }
  return task
}

const readRecord = (record: Rec, prefix: string): NormalizedTrace | undefined => {
  const system = str(record["mas_name"]) ?? "agent"
  const traceId = idOf(record["trace_id"])
  const builder = makeTraceBuilder(traceId === undefined ? null : `${system}-${traceId}`)
  const trace = record["trace"]
  let task: string | undefined
  if (typeof trace === "string") task = readTrajectory(builder, trace, at(prefix, "trace"), system)
  else if (Predicate.isRecord(trace) && typeof trace["trajectory"] === "string") {
    task = readTrajectory(builder, trace["trajectory"], at(prefix, "trace.trajectory"), system)
  } else {
    builder.skip()
  }
  if (builder.eventCount() === 0) return undefined
  if (task !== undefined) builder.setTask(task)
  // Without one, the builder's task is the user's first message, never an agent's words.
  return builder.build()
}

/** A raw trace file: `content` read as a log, `prompt` the task, the id its `run_id`. */
const readRawTrace = (record: Rec, prefix: string): NormalizedTrace | undefined => {
  const builder = makeTraceBuilder(idOf(record["run_id"]) ?? null)
  const content = record["content"]
  if (typeof content === "string") readLog(builder, content.split(/\r?\n/), (line) => `${at(prefix, "content")}#L${line + 1}`, "agent")
  if (builder.eventCount() === 0) return undefined
  const prompt = str(record["prompt"])
  if (prompt !== undefined) builder.setTask(prompt)
  return builder.build()
}

const fail = (message: string) => Either.left(`mast: ${message}`)

export const mastImporter: Importer = {
  format: "mast",
  detect: detectSafely(detect),
  read: (body) => {
    if (isMastRecord(body)) {
      const trace = readRecord(body, "")
      return trace === undefined ? fail("the record's trajectory holds nothing readable") : Either.right([trace])
    }
    if (isRawTrace(body)) {
      const trace = readRawTrace(body, "")
      return trace === undefined ? fail("the trace's content holds nothing readable") : Either.right([trace])
    }
    if (!Array.isArray(body)) return fail("expected a MAD record ({mas_name, trace, …}), a trace file ({run_id, prompt, content}) or a list of them")
    const { traces } = readEach(body, (record, index) =>
      isMastRecord(record) ? readRecord(record, `[${index}]`) : isRawTrace(record) ? readRawTrace(record, `[${index}]`) : undefined
    )
    return traces.length === 0 ? fail("no readable records") : Either.right(traces)
  }
}

