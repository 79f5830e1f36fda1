/**
 * Validation of agent messages against the JSON Schema the ACP SDK ships (schema/v1/schema.json):
 * responses by the method of the request they answer, notifications and agent requests by their method.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

const require = createRequire(import.meta.url);
/** Where the v1 schema is read from (the SDK package's own copy). */
export const SCHEMA_PATH = require.resolve('@agentclientprotocol/sdk/schema/v1/schema.json');

/**
 * The protocol versions the kit knows: those whose JSON Schema the SDK ships (`schema/vN/schema.json`). An
 * agent answering one of these is judged against that version's schema; any other version is unknown.
 */
export const KNOWN_PROTOCOL_VERSIONS: readonly number[] = [1, 2];

/** The schema file of a known protocol version. */
export function schemaPath(version: number): string {
  if (!KNOWN_PROTOCOL_VERSIONS.includes(version))
    throw new Error(
      `protocol version ${version} has no schema here; the kit knows ${KNOWN_PROTOCOL_VERSIONS.join(', ')}`,
    );
  return version === 1
    ? SCHEMA_PATH
    : require.resolve(`@agentclientprotocol/sdk/schema/v${version}/schema.json`);
}

/** Result definitions for the client requests the suite sends. */
const RESPONSE_DEFS: Record<string, string> = {
  initialize: 'InitializeResponse',
  authenticate: 'AuthenticateResponse',
  logout: 'LogoutResponse',
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/list': 'ListSessionsResponse',
  'session/resume': 'ResumeSessionResponse',
  'session/close': 'CloseSessionResponse',
  'session/delete': 'DeleteSessionResponse',
  'session/set_mode': 'SetSessionModeResponse',
  'session/set_config_option': 'SetSessionConfigOptionResponse',
  'session/prompt': 'PromptResponse',
};

/** Params definitions for the agent -> client messages the schema defines. */
const AGENT_MESSAGE_DEFS: Record<string, string> = {
  'session/update': 'SessionNotification',
  'session/request_permission': 'RequestPermissionRequest',
  'fs/read_text_file': 'ReadTextFileRequest',
  'fs/write_text_file': 'WriteTextFileRequest',
  'terminal/create': 'CreateTerminalRequest',
  'terminal/output': 'TerminalOutputRequest',
  'terminal/release': 'ReleaseTerminalRequest',
  'terminal/wait_for_exit': 'WaitForTerminalExitRequest',
  'terminal/kill': 'KillTerminalRequest',
};

const UINT_MAX: Record<string, number> = {
  uint16: 0xffff,
  uint32: 0xffffffff,
  uint64: Number.MAX_SAFE_INTEGER,
};
const INT_RANGE: Record<string, [number, number]> = {
  int32: [-0x80000000, 0x7fffffff],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

function buildAjv(version: number): Ajv2020 {
  // strict: false because the schema carries vendor keywords (x-side, x-method, discriminator, ...).
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  for (const [name, max] of Object.entries(UINT_MAX)) {
    ajv.addFormat(name, {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= max,
    });
  }
  for (const [name, [min, max]] of Object.entries(INT_RANGE)) {
    ajv.addFormat(name, {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
    });
  }
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
  // Formats the v2 schema uses.
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) =>
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)),
  });
  ajv.addFormat('regex', {
    type: 'string',
    validate: (s: string) => {
      try {
        new RegExp(s, 'u');
        return true;
      } catch {
        return false;
      }
    },
  });
  ajv.addSchema(JSON.parse(readFileSync(schemaPath(version), 'utf8')) as object, 'acp');
  return ajv;
}

const shared = new Map<number, Ajv2020>();
const compiled = new Map<string, ValidateFunction>();

/** The compiled validator of one `$defs` entry of a version's schema (compiled once per process). */
export function validatorFor(def: string, version = 1): ValidateFunction {
  const key = `${version}:${def}`;
  let v = compiled.get(key);
  if (!v) {
    let ajv = shared.get(version);
    if (!ajv) {
      ajv = buildAjv(version);
      shared.set(version, ajv);
    }
    v = ajv.getSchema(`acp#/$defs/${def}`);
    if (!v) throw new Error(`${schemaPath(version)} has no definition named ${def}`);
    compiled.set(key, v);
  }
  return v;
}

function formatErrors(errors: ErrorObject[] | null | undefined): string {
  const list = errors ?? [];
  // anyOf/oneOf failures list every branch; the first few name the actual problem well enough.
  return list
    .slice(0, 4)
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params && 'allowedValue' in e.params ? ` (${JSON.stringify(e.params.allowedValue)})` : ''}`,
    )
    .join('; ');
}

/**
 * Validates `value` against `$defs/def` of a version's schema (default v1); returns a readable problem, or
 * undefined when valid.
 */
export function checkDef(def: string, value: unknown, version = 1): string | undefined {
  const v = validatorFor(def, version);
  const which = version === 1 ? '' : `v${version} `;
  return v(value) ? undefined : `does not match ${which}schema $defs/${def}: ${formatErrors(v.errors)}`;
}

/** The valid StopReason values, read from the schema. */
export function stopReasons(): string[] {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as {
    $defs: { StopReason: { oneOf: { const: string }[] } };
  };
  return schema.$defs.StopReason.oneOf.map((o) => o.const);
}

interface SchemaDefs {
  $defs: Record<string, { 'x-side'?: string; 'x-method'?: string }>;
}

/**
 * The v2 schema's own map of methods to definitions (`x-side`, `x-method`): what each client request's result
 * must match, and the params of each message the agent may send. Read from the schema, so a method the SDK adds
 * is known without a list here.
 */
function v2MethodDefs(): {
  responses: Record<string, string>;
  agentMessages: Record<string, string>;
  updateKinds: Record<string, string>;
} {
  const schema = JSON.parse(readFileSync(schemaPath(2), 'utf8')) as SchemaDefs;
  const union = schema.$defs.SessionUpdate as unknown as {
    anyOf: { properties?: { sessionUpdate?: { const?: string } }; allOf?: { $ref: string }[] }[];
  };
  const responses: Record<string, string> = {};
  const agentMessages: Record<string, string> = {};
  // Each update kind's own definition, so a bad update is named by its kind's rule, not by every branch of the union.
  const updateKinds: Record<string, string> = {};
  for (const branch of union.anyOf) {
    const kind = branch.properties?.sessionUpdate?.const;
    const ref = branch.allOf?.[0]?.$ref;
    if (kind && ref) updateKinds[kind] = ref.replace('#/$defs/', '');
  }
  for (const [name, def] of Object.entries(schema.$defs)) {
    const method = def['x-method'];
    if (!method) continue;
    if (def['x-side'] === 'agent' && name.endsWith('Response')) responses[method] = name;
    if (def['x-side'] === 'client' && /(Request|Notification)$/.test(name)) agentMessages[method] = name;
  }
  return { responses, agentMessages, updateKinds };
}

let v2Defs: ReturnType<typeof v2MethodDefs> | undefined;

/**
 * v1 update kinds v2 removed (migration guide: `tool_call` is gone, the first `tool_call_update` creates a call;
 * `plan` became `plan_update`; modes became config options). v2's open enums would take them as unknown future
 * kinds, so they are named here.
 */
export const V1_ONLY_UPDATE_KINDS: Readonly<Record<string, string>> = {
  tool_call: 'v2 removed tool_call: the first tool_call_update for a toolCallId creates the call',
  plan: 'v2 replaced plan with plan_update (a planId and a type)',
  current_mode_update: 'v2 removed modes: config options and config_option_update replace them',
};

/**
 * Validates one agent message on a v2 connection against the SDK's v2 schema: results by the method of the
 * request they answer, agent requests and notifications by their method. A method v2 does not define (the v1
 * client `fs/*` and `terminal/*` methods among them) and a removed v1 update kind are problems too.
 */
export function checkAgentMessageV2(
  msg: Record<string, unknown>,
  requestMethod: string | undefined,
): string[] {
  v2Defs ??= v2MethodDefs();
  const problems: string[] = [];
  if (typeof msg.method === 'string') {
    const def = v2Defs.agentMessages[msg.method];
    if (def) {
      const update = (msg.params as { update?: { sessionUpdate?: unknown } } | undefined)?.update;
      const kind = update?.sessionUpdate;
      const kindDef =
        msg.method === 'session/update' && typeof kind === 'string' ? v2Defs.updateKinds[kind] : undefined;
      const p = checkDef(def, msg.params, 2);
      const precise = p && kindDef ? checkDef(kindDef, update, 2) : undefined;
      if (precise) problems.push(`session/update ${kind} ${precise}`);
      else if (p) problems.push(`${msg.method} params ${p}`);
      if (msg.method === 'session/update' && typeof kind === 'string' && kind in V1_ONLY_UPDATE_KINDS)
        problems.push(`session/update ${kind}: ${V1_ONLY_UPDATE_KINDS[kind]}`);
    } else if (!msg.method.startsWith('_') && msg.method !== '$/cancel_request') {
      problems.push(`${msg.method} is not a method the ACP v2 schema defines for the agent to send`);
    }
    return problems;
  }
  if ('error' in msg) {
    const p = checkDef('Error', msg.error, 2);
    if (p) problems.push(`error object ${p}`);
    return problems;
  }
  const def = requestMethod === undefined ? undefined : v2Defs.responses[requestMethod];
  if (def) {
    const p = checkDef(def, msg.result, 2);
    if (p) problems.push(`result of ${requestMethod} ${p}`);
  }
  return problems;
}

/**
 * Validates one agent message. `requestMethod` is the method of the client request a response answers
 * (undefined when the response answers nothing the client sent). Returns the problems found.
 */
export function checkAgentMessage(msg: Record<string, unknown>, requestMethod: string | undefined): string[] {
  const problems: string[] = [];
  if (typeof msg.method === 'string') {
    const def = AGENT_MESSAGE_DEFS[msg.method];
    if (def) {
      const p = checkDef(def, msg.params);
      if (p) problems.push(`${msg.method} params ${p}`);
    } else if (!msg.method.startsWith('_')) {
      problems.push(`${msg.method} is not a method the ACP v1 schema defines for the agent to send`);
    }
    return problems;
  }
  if ('error' in msg) {
    const p = checkDef('Error', msg.error);
    if (p) problems.push(`error object ${p}`);
    return problems;
  }
  if (requestMethod !== undefined) {
    const def = RESPONSE_DEFS[requestMethod];
    if (def) {
      const p = checkDef(def, msg.result);
      if (p) problems.push(`result of ${requestMethod} ${p}`);
    }
  }
  return problems;
}
