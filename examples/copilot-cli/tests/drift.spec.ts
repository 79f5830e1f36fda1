// What a reviewer sees when the agent's requests drift from the recording: the replay refuses the call,
// the agent gets an error it cannot take for an answer, and the test names the part of the request that changed.
import { driftTest } from '@acp-snapshot/playwright';

// Replays copilot.spec.ts's `a plain answer` recording; Copilot sends a user message's text as a string, after the time it was sent.
driftTest({ recordedIn: 'copilot.spec.ts', promptAt: /body\.messages\[\d+\]\.content\b/ });
