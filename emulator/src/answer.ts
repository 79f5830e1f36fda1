// The script's answer to a routed request with a JSON body: which entry answers (a prompt-aware responder's,
// else the script's by match and order), its vars filled from the request, then a reply or a failure.
import type { ServerResponse } from 'node:http';
import { streamsAnswer } from '@acp-snapshot/core';
import { serveFail } from './faults.js';
import type { LoggedRequest } from './request-log.js';
import { sendJson, serveReply } from './response-writer.js';
import type { Script, ScriptEntry } from './script.js';
import type { ScriptCursor } from './script-cursor.js';
import { applyVars, resolveVars, usedVars, VarNotFound } from './template.js';
import type { FormatAdapter } from './wire-format.js';

/** Answers by a request's content instead of the script's order (EmulatorOptions.respond). */
export type Responder = (body: Record<string, unknown>, request: LoggedRequest) => ScriptEntry | undefined;

/** What answers requests: the script, where it is, and the optional responder that replaces its order. */
export interface Answerer {
  script: Script;
  scriptName: string;
  cursor: ScriptCursor;
  respond?: Responder | undefined;
  log: (line: string) => void;
}

/** The request as routed: its path, body text and query. */
export interface RoutedRequest {
  path: string;
  text: string;
  query: URLSearchParams;
}

export async function answer(
  a: Answerer,
  res: ServerResponse,
  fmt: FormatAdapter,
  entry: LoggedRequest,
  body: Record<string, unknown>,
  { path, text, query }: RoutedRequest,
): Promise<void> {
  const { script, scriptName, cursor, log } = a;
  const responded = a.respond ? a.respond(body, entry) : undefined;
  const n = a.respond
    ? responded
      ? cursor.nextResponded()
      : undefined
    : cursor.pick(path, text, fmt.messages(body));
  if (n === undefined) {
    entry.served = 'exhausted';
    const message = cursor.exhaustedMessage(entry.index, path);
    log(message);
    return sendJson(
      res,
      400,
      fmt.errorBody(400, { message, type: 'emulator_script_exhausted', code: 'script_exhausted' }),
    );
  }
  if (!responded) cursor.consume(n);
  entry.entry = n;
  let scripted = responded ?? script.responses[n]!;
  if (script.vars) {
    try {
      const names = usedVars(script.vars, scripted);
      scripted = applyVars(scripted, resolveVars(script.vars, names, fmt.messages(body)));
    } catch (e) {
      if (!(e instanceof VarNotFound)) throw e;
      entry.served = 'script_var';
      const message = `emulator: ${scriptName} response ${n}: ${e.message}`;
      log(message);
      return sendJson(
        res,
        400,
        fmt.errorBody(400, { message, type: 'emulator_script_var', code: 'script_var' }),
      );
    }
  }
  const who = cursor.identity(n, fmt, body, path);
  const stream = streamsAnswer(fmt.name, `${path}?${query}`, body);
  if ('reply' in scripted) {
    log(`emulator: #${entry.index} POST ${path} -> response ${n}: reply${stream ? ' (stream)' : ''}`);
    return serveReply(res, fmt, scripted, who, { stream, path });
  }
  entry.served = `fail:${scripted.fail.kind}`;
  log(
    `emulator: #${entry.index} POST ${path} -> response ${n}: fail ${scripted.fail.kind}${'status' in scripted.fail ? ` ${scripted.fail.status}` : ''}`,
  );
  return serveFail(res, fmt, scripted.fail, who, stream, entry);
}
