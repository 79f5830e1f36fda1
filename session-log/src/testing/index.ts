/**
 * Test helpers every layer's tests may use (`@acp-snapshot/session-log/testing`): fast-check arbitraries
 * of records and texts, the hostile inputs and parser property of the fuzz tests, and the failure catalog.
 * Not part of the runtime package: nothing under src/ outside this folder imports it.
 */
export * from './arbitraries.js';
export * from './failure-catalog.js';
export * from './hostile.js';
