/**
 * Stone-Heen feedback triggers from a raw trace. `messages` are the events, one per event as in the
 * message family, and a message is marked `is_feedback` (an estimate, by wording) when a user or
 * an agent comments on an agent's earlier work in the words of a review, a correction or a
 * suggestion ("that's wrong", "please fix", "you forgot", "looks good", "I suggest"). Messages
 * that read otherwise carry no flag. Whether the feedback reached the final result
 * (`feedback_incorporated`) is not derived: the model judges it, or the operator says it in hints.
 */
import type { DeriveFromTrace } from "../../src/Traces/Reading.js"

export const FEEDBACK_WORDING =
  /\b(feedback|critique|lgtm|looks good( to me)?|good (job|work|catch)|well done|nice work|that'?s (wrong|not right|incorrect|not what)|this is (wrong|incorrect|not right)|incorrect|you (should|need to|forgot|missed|didn'?t)|please (fix|change|revise|correct|add|remove|redo|double-check|check)|(needs?|requires?) (more )?(work|changes|revision)|i (suggest|recommend)|consider (adding|using|changing|removing)|(an |one )?issue with|not what i (asked|wanted|meant))\b/i

export const deriveFromTrace: DeriveFromTrace = (trace) => {
  // Agents that have spoken so far, grown in place: a copy per event was events × agents (issue 27).
  const agentSpoke = new Set<string>()
  const messages = trace.events.map((event) => {
    const onOthersWork = agentSpoke.size > 1 || (agentSpoke.size === 1 && !agentSpoke.has(event.actor))
    const feedback = (event.role === "user" || event.role === "agent") && event.kind === "message" && onOthersWork &&
      FEEDBACK_WORDING.test(event.content)
    if (event.role === "agent") agentSpoke.add(event.actor)
    return {
      from: event.actor.trim().length > 0 ? event.actor : event.role,
      content: event.content,
      type: event.kind,
      ...(event.to === undefined || event.to.length === 0 ? {} : { to: event.to }),
      ...(event.timestamp === undefined || event.timestamp.length === 0 ? {} : { timestamp: event.timestamp }),
      ...(feedback ? { is_feedback: true } : {})
    }
  })
  return { fields: { messages } }
}
