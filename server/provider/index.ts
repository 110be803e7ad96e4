// @kasir/sandbox: the payment-service sandbox as a library. `startSandbox` does from code what the kasir-sandbox bin
// does: a real, offline payment service for a shop's own tests. Importing this module starts nothing.
export { startSandbox, type RunningSandbox } from './process/main.js';
export { SandboxConfigError, type ExpirySeconds, type SandboxOptions } from './instance/config.js';
export type { SandboxCredentials } from './sandbox/seed.js';
export type { WebhookAttempt } from './sandbox/client.js';
export type { DepositView as SandboxDeposit } from './deposits/view.js';
