// What a reviewer sees when the agent's requests drift from the recording: the replay refuses the call,
// the agent gets an error it cannot take for an answer, and the test names the part of the request that changed.
import { driftTest } from '@acp-snapshot/playwright';

// Replays codex.spec.ts's `a plain answer` recording; the prompt's text in an OpenAI Responses request.
driftTest({ recordedIn: 'codex.spec.ts', promptAt: /body\.input\[\d+\]\.content\[\d+\]\.text/ });
