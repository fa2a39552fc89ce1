export { GatewayModule, type GatewayModuleOptions } from './gateway.module.js';
export { GatewayEnv, loadConfig, type GatewayConfig } from './config.js';
export { drainHttp, serveHttp, serveStdio } from './serve.js';
export { httpAdapter } from './http/http-adapter.js';
export { Authenticator, type AuthFailure, type AuthOutcome } from './auth/authenticator.js';
