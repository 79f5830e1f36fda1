export * from './canonical-order.js';
export * from './closest.js';
export * from './exchange-log.js';
export * from './faults.js';
export * from './formats.js';
export * from './frames.js';
export { ERROR_HEADER } from './http.js';
export * from './log-changes.js';
export * from './normalize.js';
export * from './provider-errors.js';
export type { Upstream } from './record.js';
export {
  findSecrets,
  isIdentifyingHome,
  isIdentifyingUserName,
  machineSecrets,
  RECORDING_KEY_VARIABLE,
  type SecretFind,
  type Secrets,
  scrub,
} from './secrets.js';
export * from './server.js';
export * from './verdict.js';
