/** Diagnostics for humans: always stderr, because stdout carries ACP messages only. */
export function logLine(line: string): void {
  process.stderr.write(`acp-snapshot-agent: ${line}\n`);
}
