/** Injection token of the parsed `GatewayConfig`. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
