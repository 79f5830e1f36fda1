/** A failure that ends a turn with `turn/end {kind: 'error'}` and a JSON-RPC error for session/prompt. */
export class TurnError extends Error {
  override readonly name = 'TurnError';
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** JSON-RPC error code of a session/prompt whose turn ended in an error (see agent/README.md). */
export const TURN_ERROR_RPC_CODE = -32603;
