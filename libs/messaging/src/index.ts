export { BUS_CLIENT, REQUEST_ID_HEADER, serviceOf, type BusClient, type RequestOptions } from './bus-client.js';
export { BusRequestError, toBusError, type ErrorClassifier } from './errors.js';
export { BusExceptionFilter } from './exception-filter.js';
export { InProcessBus } from './in-process-bus.js';
export { ActiveRequests } from './liveness.js';
export {
  NatsBusClient,
  natsServer,
  type NatsAuth,
  type NatsBusOptions,
  type NatsServerOptions,
  type SextantServerNats,
} from './nats-bus.js';
export { traceServer } from './tracing-hooks.js';
export { checkReplies, ToolHandler } from './tool-handler.js';
export { MIN_SECRET_LENGTH, PRINCIPAL_HEADER, PRINCIPAL_SIGNATURE_HEADER, PrincipalSeal } from './principal-seal.js';
