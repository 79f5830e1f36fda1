// What a reviewer sees when the agent's requests drift from the recording: the replay refuses the call,
// the agent gets an error it cannot take for an answer, and the test names the part of the request that changed.
import { driftTest } from '@acp-snapshot/playwright';

// Replays gemini.spec.ts's `a plain answer` recording; the prompt's text in a Gemini generateContent request.
driftTest({ recordedIn: 'gemini.spec.ts', promptAt: /body\.contents\[\d+\]\.parts\[\d+\]\.text/ });
