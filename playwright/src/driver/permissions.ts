/**
 * How the client answers the agent's `session/request_permission`: the next answer from a source (the
 * answers a test queued, or a scenario's `permissions` list), by the option kinds ACP defines; a missing
 * answer or an option the agent did not offer is a problem, and the agent gets a JSON-RPC error.
 */
import * as acp from '@agentclientprotocol/sdk';

/** How a test answers a permission request: by option kind, or by a function of the request. */
export type PermissionAnswer =
  | 'allow'
  | 'reject'
  | 'cancel'
  | ((request: acp.RequestPermissionRequest) => acp.RequestPermissionResponse['outcome']);

/** Where a client's permission answers come from, and how it names what is missing. */
export interface PermissionSource {
  /** The answer to request `n` (0-based, counting the requests no cancel or kill point took); undefined: none. */
  next(request: acp.RequestPermissionRequest, n: number): PermissionAnswer | undefined;
  /** When `next` has none: what the report says instead of the answer, and the problem. */
  missing(request: acp.RequestPermissionRequest, n: number): { note: string; problem: string };
  /** Names request `n` in the problem of an answer whose option kind the agent did not offer. */
  label(request: acp.RequestPermissionRequest, n: number): string;
}

/** Picks the option answering a permission request, by the option kinds ACP defines. */
export function chooseOption(
  answer: 'allow' | 'reject',
  options: ReadonlyArray<acp.PermissionOption>,
): string | undefined {
  const kinds = answer === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const found = options.find((o) => o.kind === kind);
    if (found) return found.optionId;
  }
  return undefined;
}

/** The answers a test queued with `acp.answerPermissions(...)`, in order. */
export function queuedAnswers(queue: PermissionAnswer[]): PermissionSource {
  const titled = (r: acp.RequestPermissionRequest) => r.toolCall.title ?? r.toolCall.toolCallId;
  return {
    next: () => queue.shift(),
    missing: (r) => ({
      note: 'no answer queued',
      problem: `the agent asked permission for "${titled(r)}" but the test queued no answer; call acp.answerPermissions('allow' | 'reject' | 'cancel') before the prompt`,
    }),
    label: (r) => `permission for "${r.toolCall.title}"`,
  };
}

/** The report line of a permission request, before its answer. */
export function askedLine(params: acp.RequestPermissionRequest): string {
  return `permission request: ${params.toolCall.title ?? params.toolCall.toolCallId}`;
}

/**
 * Answers request `n` from `source`; `note` gets the report line, `problems` what went wrong. Throws the
 * JSON-RPC error the agent gets when there is no usable answer.
 */
export function answerPermission(
  source: PermissionSource,
  params: acp.RequestPermissionRequest,
  n: number,
  note: (line: string) => void,
  problems: string[],
): acp.RequestPermissionResponse {
  const asked = askedLine(params);
  const answer = source.next(params, n);
  if (!answer) {
    const { note: shown, problem } = source.missing(params, n);
    note(`${asked} → ${shown}`);
    problems.push(problem);
    throw acp.RequestError.invalidParams({}, problem);
  }
  if (typeof answer === 'function') {
    const outcome = answer(params);
    note(`${asked} → ${outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome}`);
    return { outcome };
  }
  note(`${asked} → ${answer}`);
  if (answer === 'cancel') return { outcome: { outcome: 'cancelled' } };
  const optionId = chooseOption(answer, params.options);
  if (!optionId) {
    const msg = `${source.label(params, n)} should be answered "${answer}" but the agent offered no such option (${params.options.map((o) => o.kind).join(', ')})`;
    problems.push(msg);
    throw acp.RequestError.invalidParams({}, msg);
  }
  return { outcome: { outcome: 'selected', optionId } };
}
