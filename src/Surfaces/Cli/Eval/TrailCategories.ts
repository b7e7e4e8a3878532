/**
 * The mapping table `svc eval` scores TRAIL's error categories by (docs/eval.md): a category counts
 * as found when the decisive step sits on a span annotated with it and one of the patterns its
 * findings came from is mapped to the category here. Categories not in the table are scored on
 * location only. The table reads each category through the catalogue's frameworks: the locus of a
 * failure (Lewin: internal reasoning errors, or the environment's), load and pressure
 * (Yerkes-Dodson), judgement biases (bias stack), goal pursuit (motivation traps), orchestration
 * (McGregor's orchestrator mode), strengths overused (Grant).
 */
export const TRAIL_CATEGORIES: Readonly<Record<string, ReadonlyArray<string>>> = {
  // reasoning errors
  "Language-only": ["lewin"],
  "Tool-related": ["lewin"],
  "Poor Information Retrieval": ["lewin", "bias_stack"],
  "Tool Output Misinterpretation": ["lewin", "bias_stack"],
  "Incorrect Problem Identification": ["lewin", "bias_stack"],
  "Tool Selection Errors": ["lewin", "grant_strengths"],
  "Formatting Errors": ["lewin"],
  "Instruction Non-compliance": ["lewin", "mcgregor"],
  // system execution errors: the environment's locus
  "Tool Definition Issues": ["lewin"],
  "Environment Setup Errors": ["lewin"],
  "Rate Limiting": ["lewin", "yerkes_dodson"],
  "Authentication Errors": ["lewin"],
  "Service Errors": ["lewin"],
  "Resource Not Found": ["lewin"],
  "Resource Exhaustion": ["yerkes_dodson", "lewin"],
  "Timeout Issues": ["yerkes_dodson", "lewin"],
  // planning and coordination errors
  "Context Handling Failures": ["yerkes_dodson"],
  "Resource Abuse": ["yerkes_dodson", "motivation_traps"],
  "Goal Deviation": ["motivation_traps", "grant_strengths"],
  "Task Orchestration": ["mcgregor"]
}
