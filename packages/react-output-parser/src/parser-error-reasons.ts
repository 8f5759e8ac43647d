/** Why the parser rejected a reply (the `reason` of `parser_error` events; a closed set, bounded for metrics). */
export const PARSER_ERROR_REASONS = Object.freeze([
  "not_text",
  "empty_output",
  "reasoning_only",
  "missing_action",
  "missing_action_label",
  "empty_tool_name",
  "unknown_tool",
  "ambiguous_tool",
  "no_op_action",
  "prompt_echo",
  "missing_action_input",
  "final_answer_then_action",
  "action_and_final_answer",
  "empty_final_answer",
  "invalid_json_input",
  "invalid_tool_input",
  "schema_echo",
  "thought_too_short",
  "thought_too_long",
  "banned_phrase",
  "required_pattern",
  "final_answer_before_observation",
  "final_answer_rejected",
  "too_many_labels",
  "truncated_input",
  "untrusted_call",
] as const);

/** Why the parser rejected a reply (the `reason` of `parser_error` events; bounded). */
export type ParserErrorReason = (typeof PARSER_ERROR_REASONS)[number];
