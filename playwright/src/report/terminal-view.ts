/**
 * The client terminals of a wire as a reader sees them in the conversation view: for each terminal, the
 * command line the agent asked for (from its terminal/create in stdout) and what the client answered about
 * it (its id, the latest terminal/output, the exit from terminal/wait_for_exit or the output), so a tool
 * call that embeds `{type: "terminal", terminalId}` shows the command and its output. Answers are paired
 * with the agent's requests by JSON-RPC id, in order: terminal calls overlap (an output poll while a
 * wait_for_exit is pending), so the order of answers is not the order of requests.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** One terminal as the wire shows it. */
export interface TerminalView {
  commandLine: string;
  cwd?: string;
  output?: string;
  truncated?: boolean;
  /** `exit 0`, `signal SIGKILL`; undefined while it was never seen ending. */
  exit?: string;
}

/** The client's answers to the agent's requests, each taken by the first request with its id that asks. */
export class AnswersById {
  private readonly byId = new Map<string, Json[]>();
  private readonly used = new Set<Json>();
  constructor(private readonly inOrder: readonly Json[]) {
    for (const a of inOrder) {
      const key = JSON.stringify(a.id);
      this.byId.set(key, [...(this.byId.get(key) ?? []), a]);
    }
  }
  /**
   * The answer to a request (taken, so a later request reusing the id, in another process, gets its own). When
   * no answer carries the request's id (a snapshot numbers the agent's ids as `{{id:N}}` apart from the client's),
   * the first answer not yet taken, as the client answers in turn.
   */
  take(request: Json): Json | undefined {
    const answer =
      this.byId.get(JSON.stringify(request.id))?.find((a) => !this.used.has(a)) ??
      this.inOrder.find((a) => !this.used.has(a));
    if (answer) this.used.add(answer);
    return answer;
  }
}

function exitOf(status: unknown): string | undefined {
  if (!isObject(status)) return undefined;
  if (typeof status.exitCode === 'number') return `exit ${status.exitCode}`;
  if (typeof status.signal === 'string') return `signal ${status.signal}`;
  return undefined;
}

/** The terminals of a wire, by id: the agent's messages (stdout) and the client's answers to its requests. */
export function terminalsOf(
  stdout: readonly Json[],
  clientAnswers: readonly Json[],
): Map<string, TerminalView> {
  const answers = new AnswersById(clientAnswers);
  const terminals = new Map<string, TerminalView>();
  for (const m of stdout) {
    if (typeof m.method !== 'string' || !m.method.startsWith('terminal/') || !('id' in m)) continue;
    const params = isObject(m.params) ? m.params : {};
    const answer = answers.take(m);
    const result = isObject(answer?.result) ? answer.result : undefined;
    if (m.method === 'terminal/create') {
      const id = typeof result?.terminalId === 'string' ? result.terminalId : undefined;
      if (!id) continue;
      const args = Array.isArray(params.args) ? params.args.map(String) : [];
      terminals.set(id, {
        commandLine: [String(params.command ?? ''), ...args].join(' '),
        ...(typeof params.cwd === 'string' ? { cwd: params.cwd } : {}),
      });
      continue;
    }
    const t = terminals.get(String(params.terminalId));
    if (!t || !result) continue;
    if (m.method === 'terminal/output') {
      if (typeof result.output === 'string') t.output = result.output;
      if (result.truncated === true) t.truncated = true;
      t.exit = exitOf(result.exitStatus) ?? t.exit;
    }
    if (m.method === 'terminal/wait_for_exit') t.exit = exitOf(result) ?? t.exit;
  }
  return terminals;
}

/** A terminal as the text under its tool call: `$ command`, its output, how it ended. */
export function terminalText(id: string, t: TerminalView | undefined): string {
  if (!t) return `[terminal ${id}]`;
  const output =
    t.output === undefined ? '' : `${t.truncated ? '[earlier output dropped]\n' : ''}${t.output}`;
  return [`$ ${t.commandLine}`, output.replace(/\n$/, ''), t.exit ? `[${t.exit}]` : '']
    .filter(Boolean)
    .join('\n');
}
