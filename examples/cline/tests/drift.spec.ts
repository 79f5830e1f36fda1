// What a reviewer sees when the agent's requests drift from the recording: the replay refuses the call,
// the agent gets an error it cannot take for an answer, and the test names the part of the request that changed.
import { driftTest } from '@acp-snapshot/playwright';

// Replays cline.spec.ts's `a plain answer` recording; Cline's provider sends a user message's text as a string.
driftTest({ recordedIn: 'cline.spec.ts', promptAt: /body\.messages\[\d+\]\.content\b/ });
