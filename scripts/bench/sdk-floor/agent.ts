// The "SDK floor" of the agent bench: the least an ACP agent on our SDK does to answer `initialize` over
// stdio. Bundled like agent/src/main.ts (scripts/build.mjs), so the bench compares like with like.
import { Readable, Writable } from 'node:stream';
import { agent, ndJsonStream, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';

const stream = ndJsonStream(
  Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
  Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
);
const connection = agent({ name: 'sdk-floor' })
  .onRequest('initialize', ({ params }) => ({
    protocolVersion: Math.min(params.protocolVersion, PROTOCOL_VERSION),
    agentCapabilities: {},
    authMethods: [],
  }))
  .connect(stream);
await connection.closed;
