// What a reviewer sees when the agent's requests drift from the recording: the replay refuses the call,
// the agent gets an error it cannot take for an answer, and the test names the part of the request that changed.
import { driftTest } from '@acp-snapshot/playwright';

// Replays opencode.spec.ts's `a plain answer` recording; OpenCode's provider sends a user message's text as a string.
driftTest({ recordedIn: 'opencode.spec.ts', promptAt: /body\.messages\[\d+\]\.content\b/ });
