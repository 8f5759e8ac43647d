/** What a hook learns about the call it runs for. */
export interface ToolCallContext {
  readonly toolName: string;
  readonly toolInput: unknown;
}
