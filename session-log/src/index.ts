export * from './events.js';
export * from './fingerprint.js';
export * from './llm.js';
