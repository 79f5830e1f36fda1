// The model emulator's public API: start a scripted server, load and validate scripts.

export { loadScript, type Script, type ScriptEntry } from './script.js';
export { type Emulator, type LoggedRequest, startEmulator } from './server.js';
