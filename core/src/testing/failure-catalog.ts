/**
 * The failure catalog: one definition of each failure the suite must survive, with how to provoke it
 * at every layer where it applies (llm-replay unit tests, the agent against the model emulator,
 * the full harness) and what the user must observe. Pure data: no runtime imports, so any layer can
 * import it (`@acp-snapshot/core/testing`). The table in e2e/failures/README.md mirrors it.
 */

/**
 * Where a failure case is exercised: 'harness' is the full harness in replay mode, 'harness-record'
 * the harness's record path (`npm run record`) against the model emulator serving the case's responses.
 */
export type FailureLayer = 'llm-replay' | 'agent' | 'harness' | 'harness-record';

/** One failure of the catalog, with how to provoke it at each layer and what the user must observe. */
export interface FailureCase {
  /** Kebab-case id, e.g. 'provider-401'. */
  id: string;
  /** One line: what goes wrong. */
  title: string;
  layers: readonly FailureLayer[];
  /** Emulator script `responses` entries that provoke it live (agent and harness-record layers). */
  emulator?: readonly unknown[];
  /** replay.override.json `calls` that provoke it under replay (llm-replay and harness layers). */
  override?: readonly unknown[];
  /** The prompt that provokes it, when the case needs a particular one (e.g. a tool call to kill mid-run). */
  prompt?: string;
  /** What must be observed; each layer checks the parts that apply to it. */
  expect: {
    /** The prompt's stop reason, when the agent's documented behaviour is to end the turn. */
    stopReason?: 'end_turn' | 'cancelled' | 'max_tokens' | 'refusal' | 'max_turn_requests';
    /** JSON-RPC error code of the failed session/prompt, when the documented behaviour is an error response. */
    rpcErrorCode?: number;
    /** LlmProviderError code / replay error class seen at the plugin boundary. */
    llmErrorCode?: string;
    /** The `turn/end` kind the session log must end the failed turn with (nothing lost from the log). */
    turnEnd?: 'completed' | 'cancelled' | 'error' | 'max_tokens' | 'refusal';
    /** A pattern the readable failure message must match (the text a user reads). */
    message: RegExp;
    /**
     * Record mode (harness-record layer): 'fails' = the recording fails and writes nothing (a fixture of
     * the failure is recorded only when input.json expects it, as fixtures/scenarios/provider-401 does);
     * 'records' = the documented outcome is a normal run, so the recording writes fixtures that hold it.
     */
    recording?: 'fails' | 'records';
  };
}

/** JSON-RPC error code of a session/prompt whose turn ended in an error (agent/README.md; TURN_ERROR_RPC_CODE). */
const TURN_ERROR = -32603;

const text = (t: string) => ({ type: 'text', text: t });
const finish = (reason: 'stop' | 'tool_calls') => ({ type: 'finish', reason });
/** A model call that answers with one tool call (arguments as raw JSON text), then finishes. */
const toolCall = (id: string, name: string, args: string) => ({
  kind: 'chunks',
  chunks: [
    { type: 'tool_call_start', index: 0, id, name },
    { type: 'tool_call_args', index: 0, delta: args },
    finish('tool_calls'),
  ],
});
const reply = (t: string) => ({ kind: 'chunks', chunks: [text(t), finish('stop')] });
/**
 * An HTTP error before the stream, worded the way the openai-compatible plugin words it (the text a
 * recording keeps in replay.override.json).
 */
const httpThrow = (status: number, code: string, message: string) => ({
  kind: 'throw',
  chunks: [],
  code,
  status,
  message,
});

/** Every catalogued failure, in the order of docs/architecture.md, "Failure catalog". */
export const FAILURE_CATALOG: readonly FailureCase[] = [
  {
    id: 'agent-command-not-found',
    title: 'the configured agent command does not exist (spawn ENOENT)',
    layers: ['harness'],
    expect: { message: /^agent command not found: \S+/ },
  },
  {
    id: 'provider-401',
    title: 'the provider answers HTTP 401 (bad API key) before the stream',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [{ fail: { kind: 'http', status: 401 } }],
    override: [
      httpThrow(
        401,
        'unauthorized',
        'model provider returned HTTP 401 (unauthorized): Authentication Fails, Your api key: ****-emu is invalid (check the API key in DEEPSEEK_API_KEY)',
      ),
    ],
    expect: {
      recording: 'fails',
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'unauthorized',
      turnEnd: 'error',
      message: /HTTP 401 \(unauthorized\): .*\(check the API key in DEEPSEEK_API_KEY\)/,
    },
  },
  {
    id: 'provider-402',
    title: 'the provider answers HTTP 402 (insufficient balance) before the stream',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [{ fail: { kind: 'http', status: 402 } }],
    override: [
      httpThrow(
        402,
        'payment_required',
        'model provider returned HTTP 402 (payment_required): Insufficient Balance (the account balance is insufficient; top it up with the provider)',
      ),
    ],
    expect: {
      recording: 'fails',
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'payment_required',
      turnEnd: 'error',
      message: /HTTP 402 \(payment_required\): Insufficient Balance \(the account balance is insufficient/,
    },
  },
  {
    id: 'provider-429',
    title: 'the provider keeps answering HTTP 429 (rate limited) through every retry',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    // The openai SDK retries a 429 options.maxRetries (default 2) times: three refusals end the call.
    emulator: [0, 1, 2].map(() => ({ fail: { kind: 'http', status: 429, retryAfterMs: 1 } })),
    override: [
      httpThrow(
        429,
        'rate_limited',
        'model provider returned HTTP 429 (rate_limited): Rate Limit Reached (rate limited; retries are bounded by options.maxRetries)',
      ),
    ],
    expect: {
      recording: 'fails',
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'rate_limited',
      turnEnd: 'error',
      message: /HTTP 429 \(rate_limited\): Rate Limit Reached/,
    },
  },
  {
    id: 'provider-5xx',
    title: 'the provider keeps answering HTTP 500 (server error) through every retry',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [0, 1, 2].map(() => ({ fail: { kind: 'http', status: 500, retryAfterMs: 1 } })),
    override: [
      httpThrow(500, 'server_error', 'model provider returned HTTP 500 (server_error): Server Error'),
    ],
    expect: {
      recording: 'fails',
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'server_error',
      turnEnd: 'error',
      message: /HTTP 500 \(server_error\): Server Error/,
    },
  },
  {
    id: 'stream-cut',
    title: 'the model stream is cut mid-way, before a finish_reason',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [
      { fail: { kind: 'cut', afterChunks: 2, reply: { text: 'Bytes on a pipe, newline after newline' } } },
    ],
    override: [
      {
        kind: 'throw',
        chunks: [text('Bytes'), text(' on')],
        code: 'stream_cut',
        message: 'the model stream was cut before a finish_reason: other side closed (UND_ERR_SOCKET)',
      },
    ],
    expect: {
      recording: 'fails',
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'stream_cut',
      turnEnd: 'error',
      message: /the model stream (was cut|ended) before a finish_reason/,
    },
  },
  {
    id: 'malformed-chunk',
    title: 'the provider sends a stream chunk that is not JSON',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [
      {
        fail: { kind: 'malformed', afterChunks: 1, reply: { text: 'Half an answer' }, data: '{"choices":[' },
      },
    ],
    override: [
      {
        kind: 'throw',
        chunks: [text('Half')],
        code: 'malformed_chunk',
        message:
          'the model provider sent a chunk that is not valid JSON (Unexpected end of JSON input): {"choices":[',
      },
    ],
    expect: {
      recording: 'fails',
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'malformed_chunk',
      turnEnd: 'error',
      message: /the model provider sent a chunk that is not valid JSON/,
    },
  },
  {
    id: 'malformed-tool-args',
    title:
      'the model sends tool-call arguments that are not JSON (documented: a failed tool result, the model retries)',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [
      { reply: { toolCalls: [{ name: 'read_file', arguments: '{"path": "README.md"' }] } },
      { reply: { text: 'My arguments were malformed; I give up.' } },
    ],
    override: [
      toolCall('call_0', 'read_file', '{"path": "README.md"'),
      reply('My arguments were malformed; I give up.'),
    ],
    expect: {
      recording: 'records',
      stopReason: 'end_turn',
      turnEnd: 'completed',
      message: /the arguments of this read_file call are not valid JSON/,
    },
  },
  {
    id: 'hang-then-cancel',
    title: 'the model stops answering mid-stream and the client cancels (documented: stop reason cancelled)',
    layers: ['llm-replay', 'agent', 'harness', 'harness-record'],
    emulator: [{ fail: { kind: 'hang', afterChunks: 1, reply: { text: 'Sure. The repository has' } } }],
    override: [{ kind: 'hang', chunks: [text('Sure.')] }],
    expect: {
      recording: 'records',
      stopReason: 'cancelled',
      turnEnd: 'cancelled',
      message: /cancelled/,
    },
  },
  {
    id: 'killed-mid-turn',
    title: 'the agent is killed with SIGKILL while its bash tool runs (no orphan process may remain)',
    layers: ['agent', 'harness', 'harness-record'],
    prompt: 'Run the long job.',
    emulator: [{ reply: { toolCalls: [{ name: 'bash', arguments: { command: 'sleep 300' } }] } }],
    override: [toolCall('call_0', 'bash', '{"command":"sleep 300"}')],
    expect: {
      recording: 'fails',
      message: /agent process 1 exited \(SIGKILL\) before the scenario finished/,
    },
  },
  {
    id: 'non-json-stdout',
    title: 'the agent writes a line that is not JSON to stdout',
    layers: ['harness'],
    expect: {
      message:
        /agent wrote a non-JSON line to stdout \(process 1, stdout line \d+\): "debug: initialized"\nstdout must carry ACP messages only; log to stderr\./,
    },
  },
  {
    id: 'malformed-fixture-line',
    title: 'a line of the scenario session.jsonl is not a valid log row',
    layers: ['llm-replay', 'harness'],
    expect: { llmErrorCode: 'ReplayFixtureError', message: /session\.jsonl:\d+/ },
  },
  {
    id: 'fixture-exhausted',
    title: 'the agent makes more model calls than the recording holds',
    layers: ['llm-replay', 'harness'],
    override: [toolCall('call_0', 'read_file', '{"path":"README.md"}')],
    expect: {
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'ReplayExhaustedError',
      turnEnd: 'error',
      message:
        /ReplayExhaustedError: scenario "[^"]+": the agent made model call 2 \(.*\) but \S+ holds only 1 recorded model call\b/,
    },
  },
  {
    id: 'fixture-unused',
    title: 'the agent makes fewer model calls than the recording holds',
    layers: ['llm-replay', 'harness'],
    override: [reply('Hello!'), reply('A second answer nobody asks for.')],
    expect: {
      stopReason: 'end_turn',
      turnEnd: 'completed',
      message:
        /recorded model call(?:\(s\)|s)? (?:were|was) never (?:requested|made) \((?:unused )?calls?:? 2\b/,
    },
  },
  {
    id: 'request-drift',
    title: 'the agent sends the model a different request than the recording',
    layers: ['llm-replay', 'harness'],
    override: [{ ...reply('Hello!'), turn: 1, step: 1, purpose: 'turn', fingerprint: '0000000000000000' }],
    expect: {
      rpcErrorCode: TURN_ERROR,
      llmErrorCode: 'ReplayDriftError',
      turnEnd: 'error',
      message:
        /ReplayDriftError: scenario "[^"]+": model call 1 of 1 \(.*\) sends a different request than the recording .*first differing part /,
    },
  },
];

/** The cases where the provider fails a model call (before or during the stream): one test shape serves them all. */
export const PROVIDER_FAILURES = [
  'provider-401',
  'provider-402',
  'provider-429',
  'provider-5xx',
  'stream-cut',
  'malformed-chunk',
] as const;

/** The catalog entry with this id; throws naming the known ids. */
export function failureCase(id: string): FailureCase {
  const found = FAILURE_CATALOG.find((c) => c.id === id);
  if (!found) {
    throw new Error(
      `unknown failure case "${id}" (known: ${FAILURE_CATALOG.map((c) => c.id).join(', ')}); cases are defined in core/src/testing/failure-catalog.ts`,
    );
  }
  return found;
}

/** The catalog entries exercised at a layer. */
export function failureCasesFor(layer: FailureLayer): FailureCase[] {
  return FAILURE_CATALOG.filter((c) => c.layers.includes(layer));
}

/** Ids of a layer's cases missing from `tested` (the ids a layer's spec has a test for); [] when all are covered. */
export function untestedCases(layer: FailureLayer, tested: ReadonlySet<string>): string[] {
  return failureCasesFor(layer)
    .map((c) => c.id)
    .filter((id) => !tested.has(id));
}
