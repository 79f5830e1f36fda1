/**
 * An error whose message is the whole report: no stack, so the terminal shows no code frame of the
 * spec that threw it (the spec's code is not what changed; the message says what did).
 */
export function shortError(message: string): Error {
  const e = new Error(message);
  e.stack = `Error: ${message}`;
  return e;
}
