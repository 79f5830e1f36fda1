export * from './closest.js';
export * from './exchange-log.js';
export * from './formats.js';
export * from './frames.js';
export { ERROR_HEADER } from './http.js';
export * from './normalize.js';
export type { Upstream } from './record.js';
export * from './server.js';
export * from './verdict.js';
