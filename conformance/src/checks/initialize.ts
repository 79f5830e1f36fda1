/** Initialization checks (ACP v1 protocol/initialization). */
import { type Check, clip, fail } from '../check.js';
import { finish, initialize, initializeParams, PROTOCOL_VERSION, resultOf } from '../exchange.js';
import { checkDef, KNOWN_PROTOCOL_VERSIONS } from '../schema.js';

/** A version no v1 agent supports. */
const FUTURE_VERSION = 65535;

const versionEcho: Check = {
  id: 'initialize.version-echo',
  title: 'initialize with protocolVersion 1 returns protocolVersion 1',
  source: 'protocol/initialization (version negotiation)',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    try {
      const init = await initialize(conn, ctx);
      if (init.protocolVersion !== PROTOCOL_VERSION) {
        fail(`asked for ${PROTOCOL_VERSION}, got protocolVersion ${JSON.stringify(init.protocolVersion)}`);
      }
    } finally {
      await finish(conn, ctx);
    }
    return 'protocolVersion 1';
  },
};

const versionDowngrade: Check = {
  id: 'initialize.version-downgrade',
  title: `initialize asking for an unsupported newer version (${FUTURE_VERSION}) answers with the latest version the agent supports, valid under that version's schema`,
  source: 'protocol/initialization (version negotiation)',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    let init: Record<string, unknown>;
    try {
      const resp = await conn.request(
        'initialize',
        initializeParams(conn, FUTURE_VERSION),
        ctx.timeouts.request,
      );
      init = resultOf(resp, `initialize with protocolVersion ${FUTURE_VERSION}`);
    } finally {
      await finish(conn, ctx);
    }
    // The spec: an agent that does not support the requested version answers with the latest it supports.
    // Which that is the kit cannot know; it can know the answer is a version with a published schema, and
    // that the answer is valid under that version's schema.
    const version = init.protocolVersion;
    if (typeof version !== 'number' || !KNOWN_PROTOCOL_VERSIONS.includes(version))
      fail(
        `asked for ${FUTURE_VERSION}, got protocolVersion ${JSON.stringify(version)}, not a version the kit knows (${KNOWN_PROTOCOL_VERSIONS.join(', ')}: the versions the ACP SDK ships a schema for)`,
      );
    const problem = checkDef('InitializeResponse', init, version);
    if (problem) fail(`asked for ${FUTURE_VERSION}, got protocolVersion ${version}; the result ${problem}`);
    return `asked for ${FUTURE_VERSION}, got ${version} (valid under the v${version} schema)`;
  },
};

const capabilities: Check = {
  id: 'initialize.capabilities',
  title: 'the initialize result is a schema-valid InitializeResponse with well-formed agentCapabilities',
  source: 'protocol/initialization; schema $defs/InitializeResponse, AgentCapabilities',
  level: 'mandatory',
  async run(ctx) {
    const conn = ctx.start();
    let init: Record<string, unknown>;
    try {
      init = await initialize(conn, ctx);
    } finally {
      await finish(conn, ctx);
    }
    const problem = checkDef('InitializeResponse', init);
    if (problem) fail(`initialize result ${problem}`);
    if ('agentCapabilities' in init) {
      const caps = checkDef('AgentCapabilities', init.agentCapabilities);
      if (caps) fail(`agentCapabilities ${caps}`);
    }
    return `agentCapabilities ${clip(JSON.stringify(init.agentCapabilities ?? '(absent: all defaults)'), 120)}`;
  },
};

const agentInfo: Check = {
  id: 'initialize.agent-info',
  title: 'the initialize result carries agentInfo with a name and a version',
  source:
    'protocol/initialization (agentInfo; "will be required" in future versions); schema $defs/Implementation',
  level: 'advisory',
  async run(ctx) {
    const conn = ctx.start();
    let init: Record<string, unknown>;
    try {
      init = await initialize(conn, ctx);
    } finally {
      await finish(conn, ctx);
    }
    if (init.agentInfo === undefined || init.agentInfo === null) fail('initialize result has no agentInfo');
    const problem = checkDef('Implementation', init.agentInfo);
    if (problem) fail(`agentInfo ${problem}`);
    return clip(JSON.stringify(init.agentInfo), 120);
  },
};

const beforeInitialize: Check = {
  id: 'initialize.before-initialize',
  title:
    'a request before initialize gets a well-formed response (result or error) and initialize still works after it',
  source: 'protocol/initialization (clients MUST initialize first); JSON-RPC 2.0 (every request is answered)',
  level: 'advisory',
  async run(ctx) {
    const conn = ctx.start();
    let early: Record<string, unknown>;
    try {
      early = await conn
        .request('session/new', { cwd: ctx.cwd, mcpServers: [] }, ctx.timeouts.request)
        .catch((e: Error) => fail(`session/new before initialize: ${e.message}`));
      const hasResult = 'result' in early;
      if (hasResult === 'error' in early)
        fail(`the early response has ${hasResult ? 'both result and error' : 'neither result nor error'}`);
      if ('error' in early) {
        const p = checkDef('Error', early.error);
        if (p) fail(`the early error ${p}`);
      }
      await initialize(conn, ctx);
    } finally {
      await finish(conn, ctx);
    }
    return 'error' in early
      ? `answered with error ${clip(JSON.stringify(early.error), 100)}; initialize then succeeded`
      : 'answered with a result; initialize then succeeded';
  },
};

/** Initialization checks. */
export const initializeChecks: Check[] = [
  versionEcho,
  versionDowngrade,
  capabilities,
  agentInfo,
  beforeInitialize,
];
