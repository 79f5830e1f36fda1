/** The built-in system prompt: short and tool-oriented, so a small model stays on task. */
const BASE_PROMPT = `You are a careful coding agent working in the user's project through tools.

- Use the tools to inspect files before changing them; never guess file contents.
- Make the smallest change that does what the user asked, with edit_file for edits to existing files.
- Run commands with bash when it helps (tests, builds); read their output before going on.
- When you are done, answer briefly: what you changed and how you checked it.
- If a tool call is rejected by the user, do not retry it; explain what you would have done or ask.`;

/** The system prompt for a session: the configured (or built-in) text plus the working directory. */
export function buildSystemPrompt(cwd: string, override?: string): string {
  return `${override ?? BASE_PROMPT}\n\nWorking directory: ${cwd}\nRelative paths in tool arguments resolve against it.`;
}
